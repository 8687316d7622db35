#!/bin/sh
# caf-bench.sh - Fortran coarrays on dmsg (libcaf_dmsg) against OpenCoarrays
# over MPICH, side by side in one run (docs/coarrays.md, "Speed"):
# tools/kernels/caf_bench.f90 (8 B put/get, SYNC ALL, CO_SUM 8 B and 64 KiB,
# strided puts of 1-16 MiB) built with dmsg-caf and with caf.mpich, and the
# coarray transpose and SOR kernels through tools/dmsg-ab (variants caf-dmsg
# and caf-opencoarrays). Prints each figure and dmsg's ratio over
# OpenCoarrays (time ratio: OpenCoarrays' time / dmsg's; throughput: dmsg's
# MB/s / OpenCoarrays'), so above 1 means dmsg is faster.
#
#   tools/caf-bench.sh [options]        (run from the source tree, after make)
#
#   -p PES       image counts (default 2,4)
#   -b SECONDS   budget for one strided size (default 30): a size predicted to
#                take longer is skipped and says so (OpenCoarrays' strided puts
#                go element by element)
#   -T SECONDS   time limit of one job (default 300)
#   -n SIZES     kernel sizes, transpose:sor (default 1024:1024)
#   -k           skip the kernels
#   -s SPIN      DMSG_SPIN for the dmsg runs (default: dmsg's own, which under
#                load sleeps after 64 polls where MPICH keeps polling)
#   -B BUILD     build directory (default build)
set -u
BUILD=build
PES=2,4
BUDGET=30
LIMIT=300
KSIZES=1024:1024
KERNELS=1
while [ $# -gt 0 ]; do
    case $1 in
    -p) PES=$2; shift ;;
    -b) BUDGET=$2; shift ;;
    -T) LIMIT=$2; shift ;;
    -n) KSIZES=$2; shift ;;
    -k) KERNELS=0 ;;
    -s) export DMSG_SPIN=$2; shift ;;
    -B) BUILD=$2; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "caf-bench: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
BIN=$BUILD/bin
MPIEXEC=$(command -v mpiexec.mpich) || { echo "caf-bench: mpiexec.mpich not found" >&2; exit 2; }
command -v caf.mpich >/dev/null || { echo "caf-bench: caf.mpich (OpenCoarrays over MPICH) not found" >&2; exit 2; }
[ -x "$BIN/dmsg-caf" ] && [ -x "$BIN/dmsgrun" ] || { echo "caf-bench: run make first" >&2; exit 2; }
DIR=$BUILD/caf-bench
mkdir -p "$DIR" || exit 2
SRC=$(dirname "$0")/kernels/caf_bench.f90
"$BIN/dmsg-caf" -O2 -J "$DIR" "$SRC" -o "$DIR/bench-dmsg" || exit 1
caf.mpich -O2 -J "$DIR" "$SRC" -o "$DIR/bench-oc" || exit 1

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "host: $cpu, $(nproc) cores, DMSG_SPIN=${DMSG_SPIN:-default}, load $(cut -d' ' -f1-3 /proc/loadavg) at start ($(date -u '+%Y-%m-%d %H:%M') UTC)"

for np in $(echo "$PES" | tr , ' '); do
    env DMSG_TRANSPORT=shm DMSG_TIMEOUT="$LIMIT" timeout -k 5 "$LIMIT" "$BIN/dmsgrun" -n "$np" \
        "$DIR/bench-dmsg" "$BUDGET" >"$DIR/dmsg.$np" 2>"$DIR/dmsg.$np.err" ||
        echo "caf-bench: dmsg at $np images: exit $? (see $DIR/dmsg.$np.err)" >&2
    timeout -k 5 "$LIMIT" "$MPIEXEC" -n "$np" "$DIR/bench-oc" "$BUDGET" >"$DIR/oc.$np" 2>"$DIR/oc.$np.err"
    rc=$?
    [ $rc -eq 0 ] || echo "caf-bench: OpenCoarrays at $np images: exit $rc$( [ $rc -ge 124 ] && echo " (timeout ${LIMIT}s)")" >&2
done

# One table: measurement, then per image count dmsg, OpenCoarrays, ratio.
echo
printf '%-14s' "measurement"
for np in $(echo "$PES" | tr , ' '); do printf ' %12s %12s %7s' "dmsg $np" "OC $np" "ratio"; done
echo
for m in put_8B get_8B sync_all co_sum_8B co_sum_64KiB strided_1MiB strided_4MiB strided_16MiB; do
    printf '%-14s' "$m"
    for np in $(echo "$PES" | tr , ' '); do
        awk -v m="$m" -v d="$DIR/dmsg.$np" -v o="$DIR/oc.$np" '
        function get(f,   line, a, v) {
            v = "-"
            while ((getline line < f) > 0) {
                split(line, a, " ")
                if (a[1] == m) v = (a[2] == "skipped") ? "skipped" : a[2]
            }
            close(f)
            return v
        }
        BEGIN {
            x = get(d); y = get(o)
            r = "-"
            if (x + 0 > 0 && y + 0 > 0) r = sprintf("%.2f", m ~ /^strided/ ? x / y : y / x)
            printf " %12s %12s %7s", x, y, r
        }'
    done
    echo
done
echo "(us per operation; strided: MB/s; ratio above 1: dmsg faster)"
for np in $(echo "$PES" | tr , ' '); do
    grep -q 'put_8B_remote F' "$DIR/oc.$np" 2>/dev/null &&
        echo "note: OpenCoarrays at $np images: the scalar put did not reach image 2 (it wrote the local copy): its put_8B is no remote put"
    grep -q 'strided_remote F' "$DIR/oc.$np" 2>/dev/null &&
        echo "note: OpenCoarrays at $np images: the strided put did not land right"
    grep -q ' F$' "$DIR/dmsg.$np" 2>/dev/null && echo "note: dmsg at $np images: a put did not land right"
done

[ "$KERNELS" = 1 ] || exit 0
echo
xs=${KSIZES%%:*} ss=${KSIZES#*:}
for k in transpose:$xs sor:$ss; do
    sh "$(dirname "$0")/dmsg-ab" -B "$BUILD" -k "${k%%:*}" -n "${k#*:}" -p "$PES" -V caf-dmsg,caf-opencoarrays \
        -r 2 -R 3 -T "$LIMIT" -o "$DIR/ab-${k%%:*}" 2>/dev/null |
        grep -E '^(transpose|sor) |^caf-|coarrays:'
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at end"
