#!/bin/sh
# Builds OpenSHMEM programs written elsewhere, unmodified, with dmsg-oshcc and
# runs them with dmsg-oshrun (docs/openshmem.md, "Programs written elsewhere").
#
# Usage: sh tests/shmem/external.sh BUILD DIR [NPES]
#   DIR holds the suites, fetched by the user (they are not part of dmsg):
#     DIR/sos   openshmem-org/tests-sos (SOS's test/unit, test/spec-example, test/apps)
#     DIR/uh    openshmem-org/tests-uh (feature_tests/C)
#     DIR/osu   OSU micro-benchmarks' openshmem/ folder
#   Suites that are absent are skipped. NPES defaults to 2 (the suites' own
#   default). Environment: DMSG_TRANSPORT (shm, sim, ofi) as for any job;
#   EXT_TIMEOUT seconds per program (default 120).
# Prints per program built / missing symbol / compile error and pass / FAIL /
# timeout, then the counts per suite. Exit status 0 (it reports; it does not judge).
b=${1:?usage: external.sh BUILD DIR [NPES]}
dir=${2:?usage: external.sh BUILD DIR [NPES]}
np=${3:-2}
tmo=${EXT_TIMEOUT:-120}
cc="$b/bin/dmsg-oshcc"
run="$b/bin/dmsg-oshrun"
out="$dir/build-dmsg"
mkdir -p "$out"

# suite name, source folder, extra compile arguments, extra sources
suite() {
    name=$1 src=$2 extra=$3 more=$4
    [ -d "$src" ] || { echo "== $name: $src absent, skipped"; return; }
    built=0 miss=0 cerr=0 pass=0 fail=0 tout=0
    echo "== $name ($src, $np PEs, transport ${DMSG_TRANSPORT:-shm})"
    for f in "$src"/*.c; do
        p=$(basename "$f" .c)
        case " $more " in *" $p.c "*) continue ;; esac
        # a helper of another program
        case "$name/$p" in
        sos/mt_lock) continue ;;
        esac
        exe="$out/$name-$p"
        extras=
        for m in $more; do extras="$extras $src/$m"; done
        case "$name/$p" in
        sos/mt_lock_test) extras="$extras $src/mt_lock.c" ;; # a program of two files
        esac
        # shellcheck disable=SC2086
        if ! "$cc" -std=gnu11 -O1 -w $extra -o "$exe" "$f" $extras -lm >"$exe.build" 2>&1; then
            if grep -q "undefined reference" "$exe.build"; then
                miss=$((miss + 1))
                echo "   $p: missing symbol: $(grep -o "undefined reference to \`[^']*'" "$exe.build" | sort -u | tr '\n' ' ')"
            else
                cerr=$((cerr + 1))
                echo "   $p: compile error: $(grep -m1 'error' "$exe.build" | cut -c1-160)"
            fi
            continue
        fi
        built=$((built + 1))
        want=0
        case "$name/$p" in
        uh/test_shmem_global_exit) want=99 ;;
        esac
        args=
        seg=${DMSG_SEGMENT_SIZE:-128M}
        case "$name/$p" in
        osu/osu_oshm_put_mr) seg=512M ;; # 200 MB of static buffers
        esac
        case "$name/$p" in
        osu/osu_oshm_put | osu/osu_oshm_get | osu/osu_oshm_atomics | osu/osu_oshm_put_mr) args=global ;;
        esac
        # shellcheck disable=SC2086
        DMSG_SEGMENT_SIZE=$seg timeout -k 5 "$tmo" "$run" -n "$np" "$exe" $args >"$exe.out" 2>&1 </dev/null
        rc=$?
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            tout=$((tout + 1))
            echo "   $p: timeout ($tmo s)"
        elif [ $rc -eq $want ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "   $p: FAIL (exit $rc): $(grep -v '^$' "$exe.out" | tail -1 | cut -c1-160)"
        fi
    done
    echo "   $name: built $built, missing symbol $miss, compile error $cerr; ran: pass $pass, fail $fail, timeout $tout"
}

suite sos "$dir/sos/test/unit" "-I$dir/sos/test/include" ""
suite spec "$dir/sos/test/spec-example" "-I$dir/sos/test/include" ""
suite apps "$dir/sos/test/apps" "-I$dir/sos/test/include" ""
suite uh "$dir/uh/feature_tests/C" "" ""
suite osu "$dir/osu/openshmem" "" "osu_common.c"
exit 0
