#!/bin/sh
# The coarray tests (make test's step caf): every tests/caf/*.f90 compiled
# with dmsg-caf and run under dmsg over shm (xfer, sync and comp also over sim and
# ofi, tcp;ofi_rxm); each run's sorted output must equal NAME.out beside it
# (each program checks its own results and prints "ok" lines), and its exit
# status must be 0 (stop.f90: 7, its ERROR STOP code; compbad.f90: 1, with
# libcaf_dmsg's message naming the unallocated component; comp is also run
# with a component heap too small, DMSG_CAF_HEAP=1K: status 1 and the message). In the same run each
# program is built with OpenCoarrays (the reference) and run under its MPI,
# and its output is compared with dmsg's. The reference is OpenCoarrays over
# Open MPI (caf.openmpi, mpirun.openmpi) where installed, else over MPICH
# (caf.mpich, mpiexec.mpich): Debian 12's MPICH 4.0.2 (ch4:ucx) sends a
# scalar put `a[2] = 10` to the image doing it. A difference is reported, not
# failed: OpenCoarrays 2.10.1 lacks atomic OR/XOR, vector puts, co_max of
# CHARACTER, failed-image queries and more (docs/coarrays.md lists them).
# CAF_REF=mpich|openmpi|none chooses. stopend.f90 is run once per statement
# it names (each must end the job with exit status 1 and a message naming
# the stopped image). Every dmsg run has DMSG_TIMEOUT=60 (unless set): a wait
# that would hang fails the test instead.
# Usage: sh tests/caf/run.sh BUILD_DIR      exit 77: skipped (reason printed)
b=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
command -v gfortran >/dev/null 2>&1 || { echo "caf: no gfortran (make deps installs it)"; exit 77; }
[ -x "$b/bin/dmsg-caf" ] && [ -e "$b/lib/libcaf_dmsg.a" ] || { echo "caf: build first ($b/bin/dmsg-caf)"; exit 2; }
out=$b/caf-tests
rm -rf "$out" && mkdir -p "$out" "$out/ompi-shm" || exit 2
ref=0
case ${CAF_REF:-auto} in
auto | openmpi)
    if command -v caf.openmpi >/dev/null 2>&1 && command -v mpirun.openmpi >/dev/null 2>&1; then
        ref=1 refcaf=caf.openmpi refname="Open MPI"
        refrun="mpirun.openmpi --oversubscribe"
        [ "$(id -u)" = 0 ] && refrun="$refrun --allow-run-as-root"
        # its shared-memory segments in the output folder, not /dev/shm:
        # a run stopped for hanging leaves them behind
        refrun="env OMPI_MCA_btl_vader_backing_directory=$out/ompi-shm $refrun"
    fi ;;
esac
case ${CAF_REF:-auto} in
auto | mpich)
    if [ $ref -eq 0 ] && command -v caf.mpich >/dev/null 2>&1 && command -v mpiexec.mpich >/dev/null 2>&1; then
        ref=1 refcaf=caf.mpich refname=MPICH refrun=mpiexec.mpich
    fi ;;
esac
fail=0 same=0 differ=0
DMSG_TIMEOUT=${DMSG_TIMEOUT:-60}
export DMSG_TIMEOUT

# Without STAT=, a statement that waits for a stopped image ends the job
# with status 1 and says which image stopped (tests/caf/stopend.f90).
stopend() {
    for what in co_sum allocate deallocate event_wait form_team change_team sync_all_in_team \
        sync_team end_team; do
        timeout 120 env DMSG_TRANSPORT=shm "$b/bin/dmsg-cafrun" -n 2 "$out/stopend" "$what" \
            >"$out/stopend.$what" 2>&1
        rc=$?
        if [ $rc -ne 1 ] || ! grep -q 'libcaf_dmsg: image 1: .*has stopped' "$out/stopend.$what"; then
            echo "caf: FAIL stopend $what (exit $rc, want 1 and the message):"
            head -5 "$out/stopend.$what"
            fail=1
        fi
    done
}

# run NAME LABEL EXPECTED_RC CMD... : runs, sorts the output, checks it
check() {
    name=$1 label=$2 want=$3
    shift 3
    timeout 120 "$@" >"$out/$name.$label.raw" 2>"$out/$name.$label.err"
    rc=$?
    grep -v -e 'UCX  WARN' -e '^dmsgrun:' "$out/$name.$label.raw" | sort >"$out/$name.$label"
    if [ "$rc" -ne "$want" ] || ! cmp -s "$out/$name.$label" "$here/$name.out"; then
        echo "caf: FAIL $name over $label (exit $rc, want $want):"
        diff "$here/$name.out" "$out/$name.$label" | head -20
        head -5 "$out/$name.$label.err"
        fail=1
    fi
}

for src in "$here"/*.f90; do
    name=$(basename "$src" .f90)
    n=$(sed -n 's/.*images: *\([0-9]*\).*/\1/p' "$src" | head -1)
    want=0
    [ "$name" = stop ] && want=7
    [ "$name" = compbad ] && want=1
    if ! "$b/bin/dmsg-caf" -O1 -ffree-line-length-none -J"$out" "$src" -o "$out/$name" 2>"$out/$name.cc"; then
        echo "caf: FAIL $name does not compile with dmsg-caf:"; head -20 "$out/$name.cc"; fail=1; continue
    fi
    if [ "$name" = stopend ]; then
        stopend
        continue
    fi
    check "$name" shm "$want" env DMSG_TRANSPORT=shm "$b/bin/dmsg-cafrun" -n "$n" "$out/$name"
    # a component heap too small for comp's components: ALLOCATE says so
    if [ "$name" = comp ]; then
        timeout 120 env DMSG_TRANSPORT=shm DMSG_CAF_HEAP=1K "$b/bin/dmsg-cafrun" -n "$n" \
            "$out/$name" >"$out/$name.heap" 2>&1
        rc=$?
        if [ $rc -ne 1 ] || ! grep -q 'component heap (1024 bytes, DMSG_CAF_HEAP) is full' "$out/$name.heap"; then
            echo "caf: FAIL comp with DMSG_CAF_HEAP=1K (exit $rc, want 1 and the message):"
            head -5 "$out/$name.heap"
            fail=1
        fi
    fi
    if [ "$name" = compbad ] &&
        ! grep -q 'libcaf_dmsg: image 1: .*component on image 2: .*not allocated' "$out/$name.shm.err"; then
        echo "caf: FAIL compbad: no message naming the unallocated component"
        head -5 "$out/$name.shm.err"
        fail=1
    fi
    case $name in
    xfer|sync|comp)
        check "$name" sim "$want" env DMSG_TRANSPORT=sim "$b/bin/dmsg-cafrun" -n "$n" "$out/$name"
        if [ "${OFI:-1}" != 0 ]; then
            check "$name" ofi "$want" env DMSG_TRANSPORT=ofi 'DMSG_OFI_PROVIDER=tcp;ofi_rxm' \
                "$b/bin/dmsg-cafrun" -n "$n" "$out/$name"
        fi ;;
    esac
    [ $ref -eq 1 ] || continue
    if $refcaf -O1 -ffree-line-length-none -J"$out" "$src" -o "$out/$name.ocx" 2>"$out/$name.oca.cc"; then
        # (its LOCK can hang: a bound keeps the step short)
        GFORTRAN_UNBUFFERED_PRECONNECTED=y timeout 15 $refrun -n "$n" "$out/$name.ocx" \
            >"$out/$name.oca.raw" 2>&1
        [ $? -eq 124 ] && echo "caf: $name: OpenCoarrays over $refname hung (stopped after 15 s)"
        grep -v -e 'UCX  WARN' -e '^ERROR STOP' -e 'exit code' -e '^=' -e '^ *$' -e 'BAD TERMINATION' \
            -e 'KILLED BY SIGNAL' -e 'PID ' -e 'RUNNING AT' -e 'CLEANING UP' "$out/$name.oca.raw" |
            sort >"$out/$name.oca"
        grep -v '^ERROR STOP' "$out/$name.shm" >"$out/$name.shm.cmp"
        if cmp -s "$out/$name.oca" "$out/$name.shm.cmp"; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            echo "caf: $name: OpenCoarrays over $refname differs from dmsg in" \
                "$(diff "$out/$name.shm.cmp" "$out/$name.oca" | grep -c '^[<>]') lines (its FAILs: $(grep -c FAIL "$out/$name.oca"))"
        fi
    else
        echo "caf: $name does not compile with $refcaf"
    fi
done
[ $ref -eq 1 ] && echo "caf: OpenCoarrays over $refname gives dmsg's output for $same programs, differs for $differ"
[ $fail -eq 0 ] && echo "caf: OK"
exit $fail
