#!/bin/sh
# Start-up under the launchers a user has, on this host:
# - MPICH's mpiexec (PMI-1) and Open MPI's mpirun (PMIx) start every example
#   at 2 and 4 PEs over ofi; each example verifies its result, and exactly one
#   final "OK" line (PE 0's) proves one job of N PEs, not N jobs of one PE;
# - under either launcher the default transport (shm) fails at dmsg_init
#   with one line naming the launcher and how to pass DMSG_TRANSPORT=ofi;
# - under mpirun a PE that crashes, or leaves without dmsg_finalize, ends
#   the job with a non-zero status;
# - launchers dmsg cannot join (their variables set by hand: Open MPI without
#   PMIx, srun without --mpi=pmix, a PMI without PMI_FD) and a PMI socket or PMIx server
#   that is not there make dmsg_init fail with a line naming them, printed
#   by rank 0 only; a one-process launch runs as the singleton it is.
# Across two hosts (network namespaces) see tests/ofi/netns.sh.
#
#   sh tests/launchers.sh [BUILD_DIR]
#
# Prints one line per check and "N passed, M failed"; exits non-zero if any failed.
BUILD=${1:-build}
LIMIT=300   # catches a hang only: holds at a load of 20 on 2 cores
passed=0
failed=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

# The MPI launchers by name: with both installed, plain mpiexec and mpirun
# are Open MPI's. Both come with tools/install-deps.sh (mpich, openmpi-bin).
MPICH=$(command -v mpiexec.mpich)
OMPI=$(command -v mpirun.openmpi)
# Open MPI refuses root unless told (CI runs as root), and by default
# starts no more processes than there are cores.
OMPI_FLAGS="--oversubscribe"
[ "$(id -u)" = 0 ] && OMPI_FLAGS="$OMPI_FLAGS --allow-run-as-root"

# Runs without any launcher variable this shell may have inherited.
clean_env() {
    env -u PMI_FD -u PMI_RANK -u PMI_SIZE -u PMIX_NAMESPACE -u PMIX_RANK -u OMPI_COMM_WORLD_SIZE \
        -u OMPI_COMM_WORLD_RANK -u SLURM_STEP_ID -u SLURM_STEPID -u SLURM_STEP_NUM_TASKS \
        -u SLURM_PROCID -u DMSG_BOOT_FD -u DMSG_BOOT_RANK -u DMSG_BOOT_NPES -u DMSG_BOOT_LIFE_FD -u DMSG_TRANSPORT "$@"
}

verdict() { # ok (0 = pass), description
    if [ "$1" = 0 ]; then
        echo "PASS $2"
        passed=$((passed + 1))
    else
        echo "FAIL $2"
        tail -n 15 "$out" | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}

for tool in "$MPICH:MPICH's mpiexec.mpich (Debian package mpich)" \
    "$OMPI:Open MPI's mpirun.openmpi (Debian package openmpi-bin)"; do
    if [ -z "${tool%%:*}" ]; then
        echo "launchers: ${tool#*:} is missing: run tools/install-deps.sh" >"$out"
        verdict 1 "launcher present: ${tool#*:}"
    fi
done
for p in hello transpose halo gather; do
    [ -x "$BUILD/examples/$p" ] || { echo "launchers: $BUILD/examples/$p not built" >&2; exit 1; }
done
[ -x "$BUILD/tests/pe_prog" ] || { echo "launchers: $BUILD/tests/pe_prog not built" >&2; exit 1; }

small_args() {
    case $1 in
    transpose) echo "96 3" ;;
    halo) echo "60 200" ;;
    gather) echo "600 500" ;;
    *) echo "" ;;
    esac
}

launch() { # launcher (mpich|ompi), PEs, program, args...: runs it, output in $out
    which=$1
    np=$2
    shift 2
    if [ "$which" = mpich ]; then
        clean_env DMSG_TIMEOUT=30 timeout "$LIMIT" "$MPICH" -n "$np" \
            -genv DMSG_TRANSPORT "${TP:-ofi}" "$@" >"$out" 2>&1
    else
        # shellcheck disable=SC2086 # OMPI_FLAGS is split into words on purpose
        clean_env DMSG_TIMEOUT=30 timeout "$LIMIT" "$OMPI" $OMPI_FLAGS -n "$np" \
            -x DMSG_TRANSPORT="${TP:-ofi}" -x DMSG_TIMEOUT "$@" >"$out" 2>&1
    fi
}

name_of() {
    [ "$1" = mpich ] && echo "MPICH's mpiexec" || echo "Open MPI's mpirun"
}

for which in mpich ompi; do
    if [ "$which" = mpich ] && [ -z "$MPICH" ]; then continue; fi
    if [ "$which" = ompi ] && [ -z "$OMPI" ]; then continue; fi
    who=$(name_of "$which")
    for np in 2 4; do
        for p in hello transpose halo gather; do
            args=$(small_args "$p")
            # $args is split into words on purpose
            launch "$which" "$np" "$BUILD/examples/$p" $args
            rc=$?
            oks=$(grep -c "^$p: .*OK" "$out")
            ok=1
            [ "$rc" -eq 0 ] && [ "$oks" -eq 1 ] && ok=0
            [ "$p" = hello ] && ! grep -q "hello: OK, $np PEs, transport ofi" "$out" && ok=1
            verdict $ok "$who -n $np $p $args over ofi: one job of $np PEs (exit $rc)"
        done
    done
    # A PE that runs a dmsg program before (nested_before_init) or after
    # (nested_job) its own dmsg_init: the child runs as a single PE of its
    # own, and the launcher's job runs normally.
    for c in nested_before_init nested_job; do
        launch "$which" 2 "$BUILD/tests/pe_prog" "$c"
        rc=$?
        verdict $rc "$who -n 2 pe_prog $c: the PE's child runs alone, the job runs (exit $rc)"
    done
    # The default transport cannot run under a launcher: one clear line.
    TP=shm launch "$which" 2 "$BUILD/examples/hello"
    rc=$?
    ok=1
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$(grep -c "^dmsg: started by $who: transport shm" "$out")" -eq 1 ] &&
        grep -q "DMSG_TRANSPORT=ofi" "$out" && ok=0
    verdict $ok "$who, default transport shm: fails naming the launcher and DMSG_TRANSPORT=ofi (exit $rc)"
done

if [ -n "$OMPI" ]; then
    launch ompi 3 "$BUILD/tests/pe_prog" crash_segv
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]
    verdict $? "Open MPI's mpirun: a PE killed by a signal ends the job (exit $rc)"
    launch ompi 3 "$BUILD/tests/pe_prog" no_finalize
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]
    verdict $? "Open MPI's mpirun: a PE that leaves without dmsg_finalize ends the job (exit $rc)"
fi

fails_naming() { # description, pattern, env assignments... (one process, no real launcher)
    what=$1
    pat=$2
    shift 2
    clean_env "$@" timeout "$LIMIT" "$BUILD/examples/hello" >"$out" 2>&1
    rc=$?
    ok=1
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$(grep -c -- "$pat" "$out")" -eq 1 ] &&
        ! grep -q "Hello from" "$out" && ok=0
    verdict $ok "$what (exit $rc)"
}
fails_naming "Open MPI without PMIx is named, not run as one PE" \
    "^dmsg: started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=2), which dmsg cannot join" \
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0
fails_naming "srun without PMIx is named, with --mpi=pmix" \
    "^dmsg: started by Slurm's srun (SLURM_STEP_NUM_TASKS=4).*srun --mpi=pmix" \
    SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=4 SLURM_PROCID=0
fails_naming "a PMI launcher without PMI_FD is named" \
    "^dmsg: started by a PMI launcher without PMI_FD (PMI_SIZE=2)" PMI_SIZE=2 PMI_RANK=0
fails_naming "a PMI socket that is not there is named" \
    "^dmsg: started by MPICH's mpiexec (PMI_FD is set), but cannot join its job: PMI start-up failed" \
    PMI_FD=999 PMI_RANK=0 PMI_SIZE=2
fails_naming "a PMIx server that is not there is named" \
    "^dmsg: started by a PMIx launcher (PMIX_NAMESPACE is set), but cannot join its job: PMIx_Init" \
    PMIX_NAMESPACE=dmsg-test-none PMIX_RANK=0
fails_naming "a libpmix that is not there is named (DMSG_PMIX_LIBRARY)" \
    "^dmsg: started by a PMIx launcher (PMIX_NAMESPACE is set), but cannot join its job: cannot load the PMIx library libdmsg-no-such-pmix.so.9 (DMSG_PMIX_LIBRARY" \
    PMIX_NAMESPACE=dmsg-test-none PMIX_RANK=0 DMSG_PMIX_LIBRARY=libdmsg-no-such-pmix.so.9
notlib=$(mktemp) || exit 1
echo "not a shared library" >"$notlib"
fails_naming "a libpmix that cannot be loaded is named (DMSG_PMIX_LIBRARY)" \
    "^dmsg: started by a PMIx launcher (PMIX_NAMESPACE is set), but cannot join its job: cannot load the PMIx library $notlib (DMSG_PMIX_LIBRARY" \
    PMIX_NAMESPACE=dmsg-test-none PMIX_RANK=0 DMSG_PMIX_LIBRARY="$notlib"
fails_naming "a library without PMIx's calls is named (DMSG_PMIX_LIBRARY)" \
    "^dmsg: started by a PMIx launcher (PMIX_NAMESPACE is set), but cannot join its job: the PMIx library libm.so.6 (DMSG_PMIX_LIBRARY) has no PMIx_Init" \
    PMIX_NAMESPACE=dmsg-test-none PMIX_RANK=0 DMSG_PMIX_LIBRARY=libm.so.6
rm -f "$notlib"

# Only rank 0 prints, so N processes give one line, not N.
clean_env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 timeout "$LIMIT" "$BUILD/examples/hello" \
    >"$out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! grep -q "^dmsg:" "$out"
verdict $? "a rank other than 0 fails without repeating the launcher line (exit $rc)"
# ... and the application still learns why (dmsg_last_error), to print it itself.
grep -q "^dmsg_init() failed: .*(started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=2), which dmsg cannot join" "$out"
verdict $? "a rank other than 0 gets the launcher line as its error detail"

clean_env SLURM_STEP_ID=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 timeout "$LIMIT" \
    "$BUILD/examples/hello" >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "hello: OK, 1 PEs" "$out"
verdict $? "a one-process srun runs as a singleton (exit $rc)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
