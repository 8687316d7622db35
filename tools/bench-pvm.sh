#!/bin/sh
# bench-pvm.sh - the postal baseline against the real PVM 3 (issue 28; figures
# in docs/baselines.md, "Postal against the real PVM"): a ping-pong of 8 B to
# 4 MiB and the strided exchange (2048 x 2048 doubles, row blocks to column
# blocks) on postal, real PVM 3.4.6 (direct route; raw, in place and
# psend, the best counts), RRMSG and dmsg deposits, in interleaved rounds
# (the best round counts), ratios side by side.
#
#   tools/bench-pvm.sh [options]      (run from the source tree, after make)
#
# Options:
#   -r ROUNDS   interleaved rounds (default 3)
#   -p PES      PE counts of the strided exchange (default 2,4)
#   -L N        load the host with N busy loops (sh -c 'while :; do :; done')
#               for the whole run (default 0: as the host is)
#   -B BUILD    build directory (default build)
#   -o FILE     also write the raw lines there
#
# Programs: BUILD/bin/postal-bench (dmsgrun) and BUILD/bin/pvm-bench (libpvm3,
# under a private pvmd that this script starts per run and halts on every
# path: tools/pvm/pvmd.sh). Without pvm-bench (no libpvm3) the PVM columns
# are empty. Ratios: PVM/postal above 1 means postal is faster than real PVM;
# postal/RRMSG and postal/dmsg above 1 mean RRMSG and dmsg are faster than postal.
# Each library's best mode counts; the last column names them: postal pack or
# bytes, PVM raw, inplace or psend, RRMSG send (blocking send and receive) or
# posted (each receive posted before the PE's send, RRMSG's own idiom: its
# response goes ahead, no request round trip).
set -u

ROUNDS=3
PES=2,4
LOAD=0
BUILD=build
RAWOUT=
while [ $# -gt 0 ]; do
    case $1 in
    -r) ROUNDS=$2; shift ;;
    -p) PES=$2; shift ;;
    -L) LOAD=$2; shift ;;
    -B) BUILD=$2; shift ;;
    -o) RAWOUT=$2; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-pvm.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

BIN=$BUILD/bin
[ -x "$BIN/postal-bench" ] && [ -x "$BIN/dmsgrun" ] ||
    { echo "bench-pvm.sh: $BIN/postal-bench missing: run make first" >&2; exit 2; }
HAVE_PVM=0
[ -x "$BIN/pvm-bench" ] && HAVE_PVM=1

TMP=$(mktemp -d) || exit 2
LOADERS=
. "$(dirname "$0")/pvm/pvmd.sh"
cleanup() {
    pvmd_stop
    for p in $LOADERS; do kill "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

i=0
while [ "$i" -lt "$LOAD" ]; do
    sh -c 'while :; do :; done' &
    LOADERS="$LOADERS $!"
    i=$((i + 1))
done

RAW=$TMP/raw
: >"$RAW"
LIMIT=600

run_dmsg() { # np test
    timeout -k 5 $LIMIT env DMSG_SEGMENT_SIZE=128M DMSG_TIMEOUT=$LIMIT "$BIN/dmsgrun" -n "$1" \
        "$BIN/postal-bench" "$2" >>"$RAW" 2>>"$TMP/err" || echo "bench-pvm.sh: postal-bench $2 on $1 PEs failed" >&2
}

run_pvm() { # args...
    [ "$HAVE_PVM" = 1 ] || return 0
    if ! pvmd_start "$TMP/pvm" 2>>"$TMP/err"; then
        echo "bench-pvm.sh: pvmd did not start" >&2
        return 0
    fi
    timeout -k 5 $LIMIT "$BIN/pvm-bench" "$@" 2>>"$TMP/err" | grep -E '^(PP|SX) ' >>"$RAW" ||
        echo "bench-pvm.sh: pvm-bench $* failed" >&2
    pvmd_stop
}

echo "bench-pvm.sh: $ROUNDS rounds, $LOAD busy loops, load $(cut -d' ' -f1 /proc/loadavg) at start," \
    "$(nproc) cores, $(uname -n)" >&2
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    # Each round starts with the other library, so neither always runs first.
    if [ $((r % 2)) -eq 0 ]; then
        run_dmsg 2 pingpong; run_pvm pingpong
    else
        run_pvm pingpong; run_dmsg 2 pingpong
    fi
    for np in $(echo "$PES" | tr , ' '); do
        if [ $((r % 2)) -eq 0 ]; then
            run_pvm strided "$np"; run_dmsg "$np" strided
        else
            run_dmsg "$np" strided; run_pvm strided "$np"
        fi
    done
    r=$((r + 1))
    echo "bench-pvm.sh: round $r of $ROUNDS done, load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
[ -n "$RAWOUT" ] && cp "$RAW" "$RAWOUT"

# The best (least) time per library, mode and size over the rounds; per
# library the best mode.
awk '
function keep(k, v) { if (!(k in best) || v < best[k]) best[k] = v }
# Sizes and PE counts in the order first seen (the programs print them in order).
$1 == "PP" { keep("PP" SUBSEP $2 SUBSEP $4, $5); keep("PPM" SUBSEP $2 SUBSEP $3 SUBSEP $4, $5)
             if (!($4 in seens)) { seens[$4] = 1; s[++n] = $4 } }
$1 == "SX" { keep("SX" SUBSEP $2 SUBSEP $4, $5); keep("SXM" SUBSEP $2 SUBSEP $3 SUBSEP $4, $5)
             if (!($4 in seenp)) { seenp[$4] = 1; q[++m] = $4 } }
function get(k) { return (k in best) ? best[k] : 0 }
function mode(t, lib, x,   k, bm, bv) {
    bm = "-"; bv = 0
    for (k in best) {
        split(k, f, SUBSEP)
        if (f[1] == t && f[2] == lib && f[4] == x && (bv == 0 || best[k] < bv)) { bv = best[k]; bm = f[3] }
    }
    return bm
}
function cell(v) { return v > 0 ? sprintf("%10.1f", v) : sprintf("%10s", "-") }
function ratio(a, b) { return a > 0 && b > 0 ? sprintf("%9.2f", a / b) : sprintf("%9s", "-") }
function show(t, x, label) {
    po = get(t SUBSEP "postal" SUBSEP x); pv = get(t SUBSEP "pvm" SUBSEP x)
    rr = get(t SUBSEP "rrmsg" SUBSEP x); dm = get(t SUBSEP "dmsg" SUBSEP x)
    printf "%-9s %s %s %s %s %s %s %s %s  %s/%s/%s\n", label, cell(po), cell(pv), cell(rr), cell(dm),
        ratio(pv, po), ratio(po, rr), ratio(po, dm), ratio(pv, rr), mode(t "M", "postal", x), mode(t "M", "pvm", x),
        mode(t "M", "rrmsg", x)
}
END {
    printf "\nping-pong, half round trip (us; best of the rounds)\n"
    printf "%-9s %10s %10s %10s %10s %9s %9s %9s %9s  %s\n", "bytes", "postal", "pvm-real", "rrmsg", "dmsg",
        "PVM/pst", "pst/RR", "pst/dmsg", "PVM/RR", "modes postal/pvm/RR"
    for (i = 1; i <= n; i++) show("PP", s[i], s[i])
    printf "\nstrided exchange, 2048 x 2048 doubles, column blocks (us per exchange; best)\n"
    printf "%-9s %10s %10s %10s %10s %9s %9s %9s %9s  %s\n", "PEs", "postal", "pvm-real", "rrmsg", "dmsg",
        "PVM/pst", "pst/RR", "pst/dmsg", "PVM/RR", "modes postal/pvm/RR"
    for (i = 1; i <= m; i++) show("SX", q[i], q[i])
}' "$RAW"
if [ -s "$TMP/err" ] && grep -qv -e 'BEGIN' -e 'EOF' -e 'child task' "$TMP/err"; then
    echo "bench-pvm.sh: messages of the programs:" >&2
    grep -v -e 'BEGIN' -e 'EOF' -e 'child task' "$TMP/err" | tail -n 20 >&2
fi
exit 0
