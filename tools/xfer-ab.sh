#!/bin/sh
# xfer-ab.sh - the copy engine's transposes, two builds side by side.
#
#   tools/xfer-ab.sh [-r ROUNDS] [-n "N..."] [-p "P..."] BUILD_A BUILD_B
#
# Alternates the two builds (A, B, B, A, ...) round after round so that the
# host's load falls on both alike, and prints, per round and build:
#  - the transposes of dmsg-bench (its worker, as `dmsg-bench --test
#    transpose` runs it): 8- and 16-byte elements at P PEs and each N, dmsg's
#    MB/s per PE, the best local transpose of the same half-matrix measured
#    in the same job (the copy engine's or a hand loop's) and their ratio
#    (issue 29's target: 0.9);
#  - the FFT and transpose kernels at 2048^2, 2 PEs (dmsg-kern, dmsg-chained):
#    time a step and the communication CPU time a step (ccpu), which a busy
#    host disturbs less.
# The load (uptime) is printed before every round: figures of a loaded host
# are noise; compare A and B of the same round.
#
# A base build to compare with: git archive BASE | tar -x -C /tmp/base &&
# make -C /tmp/base -j2 all, then tools/xfer-ab.sh /tmp/base/build build.
set -eu
rounds=2
sizes="1024 2048 4096"
pes="2 4"
while [ $# -gt 2 ]; do
    case "$1" in
    -r) rounds=$2; shift 2 ;;
    -n) sizes=$2; shift 2 ;;
    -p) pes=$2; shift 2 ;;
    *) echo "usage: $0 [-r ROUNDS] [-n \"N...\"] [-p \"P...\"] BUILD_A BUILD_B" >&2; exit 2 ;;
    esac
done
[ $# -eq 2 ] || { echo "usage: $0 [-r ROUNDS] [-n \"N...\"] [-p \"P...\"] BUILD_A BUILD_B" >&2; exit 2; }
for b in "$1" "$2"; do
    for t in dmsgrun dmsg-bench dmsg-kern; do
        [ -x "$b/bin/$t" ] || { echo "$0: $b/bin/$t not built (make all)" >&2; exit 2; }
    done
done

# The largest N sets the segment: A and B of N*N*16/P bytes each, and room.
nmax=0
for n in $sizes; do [ "$n" -gt "$nmax" ] && nmax=$n; done
seg=$((2 * nmax * nmax * 16 / 2 / 1048576 + 64))M

# One build: the transposes and the kernels, as "build test P N ..." lines.
run_build() {
    label=$1
    b=$2
    for p in $pes; do
        for t in transpose8 transpose; do
            # shellcheck disable=SC2086
            DMSG_SEGMENT_SIZE=$seg "$b/bin/dmsgrun" -n "$p" "$b/bin/dmsg-bench" --worker "$t" 1500 \
                $sizes 2>/dev/null |
                awk -v label="$label" '
                    $1 == "R" { key = $2 " " $3 " " $4
                                if ($5 == "dmsg") d[key] = $6
                                else if ($5 != "engine-allpes" && $6 > lim[key]) { lim[key] = $6; by[key] = $5 }
                                keys[key] = 1 }
                    END { for (k in keys) if (d[k] && lim[k])
                              printf "%-4s %-11s P=%s N=%-5s dmsg %8.0f MB/s/PE  limit %8.0f (%s)  ratio %.3f\n",
                                     label, substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1, 1),
                                     substr(k, index(k, " ") + 3), d[k], lim[k], by[k], d[k] / lim[k] }' |
                sort -t= -k3n
        done
    done
    for k in fft transpose; do
        DMSG_SEGMENT_SIZE=512M "$b/bin/dmsgrun" -n 2 "$b/bin/dmsg-kern" "$k" dmsg-chained 2048 2>/dev/null |
            awk -v label="$label" -v k="$k" '
                /^KERN/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                          printf "%-4s kernel %-9s 2048^2 P=2: %.2f ms a step, communication CPU %.2f ms a step, status %s\n",
                                 label, k, v["t_step"] * 1e3, v["ccpu"] * 1e3, v["status"] }'
    done
}

r=1
while [ "$r" -le "$rounds" ]; do
    echo "# round $r of $rounds: $(uptime)"
    if [ $((r % 2)) -eq 1 ]; then
        run_build A "$1"
        run_build B "$2"
    else
        run_build B "$2"
        run_build A "$1"
    fi
    r=$((r + 1))
done
