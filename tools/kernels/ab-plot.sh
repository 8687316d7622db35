#!/bin/sh
# ab-plot.sh - PNG figures from the CSV of tools/dmsg-ab (gnuplot):
#   split-<machine>-<kernel>-n<N>-p<P>.png  time per step split into computation,
#                                           transfer, synchronization, packing, alignment wait,
#                                           per variant
#   mbs-pes-<machine>-<kernel>-n<N>.png     communication MB/s per PE against the PE count
#   mbs-size-<machine>-<kernel>-p<P>.png    communication MB/s per PE against the size
# (machine "host" for real-time runs).
#
#   sh tools/kernels/ab-plot.sh CSV OUTDIR
CSV=$1
OUT=${2:-.}
command -v gnuplot >/dev/null || { echo "ab-plot: gnuplot missing, no plots" >&2; exit 0; }
DAT=$OUT/plotdata
rm -rf "$DAT"
mkdir -p "$DAT" || exit 1

# One data file per figure (and per variant for line plots), and a list of
# figures to draw: "split FILE TITLE" or "lines XLABEL PNG TITLE FILES...".
awk -F, -v dat="$DAT" '
NR == 1 || $7 != "ok" { next }
{
    m = $1 == "-" ? "host" : $1; k = $2; n = $3 + 0; p = $4 + 0; v = $5
    comm = $8 - $10 - $18; mbs = comm > 0 ? $14 / comm / 1e6 : 0
    s = sprintf("%s/split-%s-%s-n%d-p%d", dat, m, k, n, p)
    if (!(s in splits)) { splits[s] = sprintf("%s %s N=%d, %d PEs", m, k, n, p); so[++ns] = s }
    printf "%s %g %g %g %g %g\n", v, $10 * 1e6, $11 * 1e6, $12 * 1e6, $13 * 1e6, $18 * 1e6 > s
    mk = m SUBSEP k
    if (n > maxn[mk]) maxn[mk] = n
    if (p > maxp[mk]) maxp[mk] = p
    row[++nr] = m "|" k "|" n "|" p "|" v "|" mbs
}
END {
    for (s in splits) print "split", s, splits[s] > (dat "/list")
    for (i = 1; i <= nr; i++) {
        split(row[i], f, "|"); mk = f[1] SUBSEP f[2]
        if (f[3] == maxn[mk]) {
            fn = sprintf("%s/mbs-pes-%s-%s-n%d", dat, f[1], f[2], f[3])
            print f[4], f[6] > (fn "." f[5]); figs[fn] = "PEs|" f[1] " " f[2] " N=" f[3]; vv[fn, f[5]] = 1
        }
        if (f[4] == maxp[mk]) {
            fn = sprintf("%s/mbs-size-%s-%s-p%d", dat, f[1], f[2], f[4])
            print f[3], f[6] > (fn "." f[5]); figs[fn] = "N|" f[1] " " f[2] ", " f[4] " PEs"; vv[fn, f[5]] = 1
        }
    }
    for (fn in figs) {
        split(figs[fn], t, "|")
        line = "lines " fn " " t[1] " " t[2]
        print line > (dat "/lines-" substr(fn, length(dat) + 2))
        for (key in vv) { split(key, q, SUBSEP); if (q[1] == fn) print q[2] > (dat "/lines-" substr(fn, length(dat) + 2)) }
    }
}' "$CSV"

n=0
if [ -f "$DAT/list" ]; then
    while read -r kind file title; do
        png=$OUT/$(basename "$file").png
        gnuplot <<EOF || echo "ab-plot: gnuplot failed for $png" >&2
set terminal png size 900,500
set output "$png"
set title "$title: time per step (us)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -35
set key outside right
set ylabel "us per step"
plot "$file" using 2:xtic(1) title "computation", "" using 3 title "transfer", \
     "" using 4 title "sync+protocol", "" using 5 title "packing", "" using 6 title "alignment wait"
EOF
        n=$((n + 1))
    done <"$DAT/list"
fi
for spec in "$DAT"/lines-*; do
    [ -f "$spec" ] || continue
    read -r kind file xlabel title <"$spec"
    png=$OUT/$(basename "$file").png
    plots=
    for v in $(sed 1d "$spec" | sort); do
        sort -n "$file.$v" >"$file.$v.s"
        plots="$plots${plots:+, }\"$file.$v.s\" using 1:2 with linespoints title \"$v\""
    done
    logx=
    [ "$xlabel" = PEs ] || logx="set logscale x 2"
    gnuplot <<EOF || echo "ab-plot: gnuplot failed for $png" >&2
set terminal png size 900,500
set output "$png"
set title "$title: communication MB/s per PE"
set xlabel "$xlabel"
set ylabel "MB/s per PE"
set key outside right
$logx
plot $plots
EOF
    n=$((n + 1))
done
echo "ab-plot: $n figures in $OUT" >&2
