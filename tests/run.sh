#!/bin/sh
# The test suite in named steps, each timed, stopping at the first failure.
# `make test` runs the quick steps, `make check-all` those and then the
# extra ones (docs/running.md, "Testing"):
#
#   sh tests/run.sh BUILD_DIR STEP...      e.g. sh tests/run.sh build unit integ
#   sh tests/run.sh BUILD_DIR quick|extra|ci|all
#   sh tests/run.sh --list                 the steps, one line each
#
# Environment: OFI=0 leaves the ofi steps out (and says so); MAKE is the make
# that runs the sanitizer builds; RUN_DEADLINE (seconds since the epoch)
# skips, and says so, each extra step that would run past it at one and a
# half times its usual time on a 2-core host (step_minutes): CI's 90
# minutes hold on a slow host, and the quick steps (make test) always run. No step judges
# speed: every time bound in them only catches a hang and holds at a load
# of 20 on 2 cores.
#
# Lines that a step prints on purpose while checking bad input (the errors
# its programs must report) are shown by the test that provokes them only
# when it fails; what reaches this output is progress, results and failures.

steps_quick="layers build_flags unit integ sim examples kernels gen bench_coll shmem caf pvm ofi_integ ofi_errors pid_digits launchers install"
# The extra steps, the cheap ones first. CI (make check-ci) runs all but
# the integration suite over the two slowest providers.
steps_ci="tsan oversub slurm netns asan ofi_integ_full"
steps_extra="$steps_ci ofi_integ_slow"
steps_all="$steps_quick $steps_extra"

describe() {
    case $1 in
    layers) echo "no lower layer includes a higher one, every global symbol is prefixed (tests/layers.sh, tests/symbols.sh)" ;;
    build_flags) echo "make CFLAGS=... keeps the flags the build needs (tests/build_flags.sh)" ;;
    unit) echo "unit tests, no PEs (tests/unit)" ;;
    integ) echo "multi-PE integration suite over shm, 1-4 and 8 PEs (tests/integ, tests/pe)" ;;
    sim) echo "the simulator's tests (tests/sim, tests/simpe)" ;;
    examples) echo "every example at 1-4 PEs over shm, sim and ofi (tests/run_examples.sh)" ;;
    kernels) echo "the kernels in every variant, verified (tests/kernels/run.sh)" ;;
    gen) echo "dmsg-gen end to end (tests/gen/run.sh)" ;;
    bench_coll) echo "dmsg-bench's coll workers run, verify and print parseable rows (tests/bench_coll.sh)" ;;
    shmem) echo "the OpenSHMEM front end: own tests and programs written elsewhere (tests/shmem/run.sh)" ;;
    caf) echo "the Fortran coarray runtime against OpenCoarrays (tests/caf/run.sh)" ;;
    pvm) echo "the PVM 3 front end: own tests and PVM's examples (tests/pvm/run.sh)" ;;
    ofi_integ) echo "the SPMD cases over ofi, tcp;ofi_rxm, at 3 PEs (tests/ofi/integ.sh)" ;;
    ofi_errors) echo "ofi failures and bad input (tests/ofi/errors.sh)" ;;
    pid_digits) echo "PEs whose pids differ in length, over ofi (tests/ofi/pid_digits.sh)" ;;
    launchers) echo "start-up under mpiexec and mpirun (tests/launchers.sh)" ;;
    install) echo "make install, then a program built against it (tests/install.sh)" ;;
    asan) echo "the suites under AddressSanitizer and UBSan (make check-asan)" ;;
    tsan) echo "calls from several threads under ThreadSanitizer (make check-tsan)" ;;
    ofi_integ_full) echo "the whole integration suite over ofi's shm and tcp;ofi_rxm providers (tests/ofi/integ.sh)" ;;
    ofi_integ_slow) echo "the whole integration suite over ofi's udp;ofi_rxd and sockets providers (tests/ofi/integ.sh)" ;;
    oversub) echo "16 PEs on this host's cores over ofi and shm (tests/ofi/oversub.sh)" ;;
    slurm) echo "start-up under a private one-host Slurm (tests/slurm.sh)" ;;
    netns) echo "two hosts as network namespaces (tests/ofi/netns.sh)" ;;
    *) return 1 ;;
    esac
}

# Steps left out of a build without the ofi transport (OFI=0): they need it,
# or the programs they run are built only with it.
ofi_step() {
    case $1 in
    layers | build_flags | unit | integ | sim | examples | bench_coll | shmem | caf | pvm | asan | tsan) return 1 ;;
    *) return 0 ;;
    esac
}

# An extra step's usual minutes on a 2-core host, from a fresh clone,
# rounded up (the deadline allows half as much again). The quick steps have
# none: they always run.
step_minutes() {
    case $1 in
    tsan | oversub | slurm | netns) echo 2 ;;
    asan) echo 30 ;;
    ofi_integ_full) echo 32 ;;
    ofi_integ_slow) echo 40 ;;
    *) echo 0 ;;
    esac
}

# A step's exit status 77 means "skipped, reason above".
run_step() {
    b=$BUILD
    case $1 in
    layers) sh tests/layers.sh && sh tests/symbols.sh "$b" ;;
    build_flags) sh tests/build_flags.sh ;;
    unit) "$b/tests/unit" --jobs 2 ;;
    integ) DMSG_BUILD=$b "$b/tests/integ" --jobs 1 ;;
    sim) DMSG_BUILD=$b "$b/tests/sim" --jobs 1 ;;
    examples) if [ "$OFI" = 0 ]; then sh tests/run_examples.sh "$b" shm sim
              else sh tests/run_examples.sh "$b" shm sim ofi; fi ;;
    kernels) sh tests/kernels/run.sh "$b" ;;
    gen) sh tests/gen/run.sh "$b" ;;
    bench_coll) sh tests/bench_coll.sh "$b" ;;
    shmem | caf | pvm) if [ -f "tests/$1/run.sh" ]; then sh "tests/$1/run.sh" "$b"
                       else echo "no tests/$1/run.sh in this tree"; return 77; fi ;;
    ofi_integ) INTEG_PES=3 sh tests/ofi/integ.sh "$b" 'tcp;ofi_rxm' ;;
    ofi_errors) sh tests/ofi/errors.sh "$b" ;;
    pid_digits) sh tests/ofi/pid_digits.sh "$b" shm 'tcp;ofi_rxm' ;;
    launchers) sh tests/launchers.sh "$b" ;;
    install) sh tests/install.sh "$b" ;;
    asan) ${MAKE:-make} --no-print-directory check-asan ;;
    tsan) ${MAKE:-make} --no-print-directory check-tsan ;;
    ofi_integ_full) sh tests/ofi/integ.sh "$b" shm 'tcp;ofi_rxm' ;;
    ofi_integ_slow) sh tests/ofi/integ.sh "$b" 'udp;ofi_rxd' sockets ;;
    oversub) PE_ROUNDS=200 sh tests/ofi/oversub.sh "$b" shm 'tcp;ofi_rxm' ;;
    slurm) sh tests/slurm.sh "$b" ;;
    netns) sh tests/ofi/netns.sh "$b" ;;
    esac
}

if [ "$1" = --list ]; then
    for s in $steps_all; do
        q=all
        case " $steps_quick " in *" $s "*) q=test ;; esac
        case " $steps_ci " in *" $s "*) [ $q = all ] && q=ci ;; esac
        printf '%-14s %-5s %s\n' "$s" "$q" "$(describe "$s")"
    done
    exit 0
fi

BUILD=${1:?usage: sh tests/run.sh BUILD_DIR STEP... (or --list)}
shift
[ $# -gt 0 ] || { echo "run.sh: name the steps (sh tests/run.sh --list)" >&2; exit 2; }
case "$*" in
quick) set -- $steps_quick ;;
extra) set -- $steps_extra ;;
ci) set -- $steps_ci ;;
all) set -- $steps_all ;;
esac
for s in "$@"; do
    describe "$s" >/dev/null || { echo "run.sh: no step \"$s\" (sh tests/run.sh --list)" >&2; exit 2; }
done

summary=$(mktemp) || exit 1
trap 'rm -f "$summary"' EXIT
t_all=$(date +%s)
n=$#
k=0
skipped=0
for s in "$@"; do
    k=$((k + 1))
    if [ "$OFI" = 0 ] && ofi_step "$s"; then
        printf '%-14s SKIPPED (built with OFI=0)\n' "$s" >>"$summary"
        skipped=$((skipped + 1))
        continue
    fi
    m=$(step_minutes "$s")
    if [ -n "${RUN_DEADLINE:-}" ] && [ "$m" -gt 0 ] && [ $(($(date +%s) + 90 * m)) -gt "$RUN_DEADLINE" ]; then
        echo
        echo "*** $s SKIPPED: at 1.5 times its usual $m minutes it would end past RUN_DEADLINE"
        printf '%-14s SKIPPED (would end past RUN_DEADLINE)\n' "$s" >>"$summary"
        skipped=$((skipped + 1))
        continue
    fi
    echo
    echo "=== [$k/$n] $s: $(describe "$s")"
    t0=$(date +%s)
    run_step "$s"
    rc=$?
    dt=$(($(date +%s) - t0))
    if [ $rc -eq 77 ]; then
        echo "*** $s SKIPPED (reason above)"
        printf '%-14s SKIPPED after %4d s (reason in its output)\n' "$s" "$dt" >>"$summary"
        skipped=$((skipped + 1))
    elif [ $rc -ne 0 ]; then
        echo
        echo "*** $s FAILED (exit $rc, after $dt s): its output is above"
        cat "$summary"
        exit 1
    else
        printf '%-14s ok in %4d s\n' "$s" "$dt" >>"$summary"
    fi
done
echo
echo "=== summary"
cat "$summary"
echo "$((n - skipped)) of $n steps passed, $skipped skipped, in $(($(date +%s) - t_all)) s"
