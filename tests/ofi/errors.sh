#!/bin/sh
# Failure and bad input over the ofi transport, in seconds:
# - a provider that does not exist, and one that lacks what dmsg needs
#   (sockets asked to count by remote CQ data, which never arrives there;
#   tcp;ofi_rxm asked to count by remote counters, which it lacks), each give
#   one clear error naming the provider and the missing capability, and the
#   job fails; a bad DMSG_OFI_COUNT is named; a libfabric that cannot be
#   loaded (DMSG_OFI_LIBRARY) is named;
# - sockets with the automatic counting works (remote counters);
# - a PE that dies under mpiexec ends the job instead of hanging it;
# - a PE that leaves without dmsg_finalize: the others' waits are bounded by
#   DMSG_TIMEOUT (no wait has a limit without it, on any transport).
#
#   sh tests/ofi/errors.sh [BUILD_DIR]
BUILD=${1:-build}
RUN=$BUILD/bin/dmsgrun
passed=0
failed=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

check() { # name, expected exit (nonzero, zero or any), grep pattern, command...
    name=$1
    want=$2
    pat=$3
    shift 3
    timeout 300 "$@" >"$out" 2>&1
    rc=$?
    ok=1
    [ "$want" = nonzero ] && [ "$rc" -eq 0 ] && ok=0
    [ "$want" = zero ] && [ "$rc" -ne 0 ] && ok=0
    [ "$rc" -eq 124 ] && ok=0
    [ -n "$pat" ] && ! grep -q -- "$pat" "$out" && ok=0
    if [ $ok = 1 ]; then
        echo "PASS $name (exit $rc)"
        passed=$((passed + 1))
    else
        echo "FAIL $name (exit $rc)"
        sed 's/^/    | /' "$out" | tail -n 10
        failed=$((failed + 1))
    fi
}

check "missing provider is named" nonzero 'provider "verbs" is not available' \
    env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER=verbs "$RUN" -n 2 "$BUILD/examples/hello"
once() { # the last check's error line was printed exactly once (by dmsgrun, for the job)
    n=$(grep -c 'could not start: ofi:' "$out")
    if [ "$n" -eq 1 ]; then
        echo "PASS the error is printed once"
        passed=$((passed + 1))
    else
        echo "FAIL the error is printed $n times"
        failed=$((failed + 1))
    fi
}
# dmsgrun says why, whichever PE failed first: here rank 0 is slow to load
# libfabric (a library that needs libfabric and sleeps 2 s as it loads), and
# the others' failure, the same, is named without waiting for it.
slow=$(mktemp -d) || exit 1
trap 'rm -f "$out"; rm -rf "$slow"' EXIT
printf '#include <unistd.h>\n__attribute__((constructor)) static void slow(void) { sleep(2); }\n' \
    >"$slow/slow.c"
if cc -shared -fPIC -o "$slow/slowfabric.so" "$slow/slow.c" -Wl,--no-as-needed -l:libfabric.so.1 2>"$out"; then
    cat >"$slow/rank0-slow" <<EOS
#!/bin/sh
[ "\$DMSG_BOOT_RANK" = 0 ] && export DMSG_OFI_LIBRARY=$slow/slowfabric.so
exec "\$@"
EOS
    chmod +x "$slow/rank0-slow"
    check "a slow rank 0 still names the missing provider" nonzero \
        'provider "verbs" is not available' \
        env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER=verbs "$RUN" -n 3 "$slow/rank0-slow" \
        "$BUILD/examples/hello"
    once
else
    echo "FAIL cannot build the slow libfabric shim"
    cat "$out"
    failed=$((failed + 1))
fi
check "incapable provider names the capability" nonzero \
    'DMSG_OFI_COUNT=cqdata: provider "sockets" lacks working remote CQ data' \
    env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER=sockets DMSG_OFI_COUNT=cqdata \
    "$RUN" -n 2 "$BUILD/examples/hello"
once
check "counting by counters without them names the capability" nonzero \
    'DMSG_OFI_COUNT=counter: provider "tcp;ofi_rxm" lacks remote write counters (FI_RMA_EVENT)' \
    env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="tcp;ofi_rxm" DMSG_OFI_COUNT=counter \
    "$RUN" -n 2 "$BUILD/examples/hello"
once
check "bad DMSG_OFI_COUNT" nonzero 'DMSG_OFI_COUNT=sideways is not one of' \
    env DMSG_TRANSPORT=ofi DMSG_OFI_COUNT=sideways "$RUN" -n 2 "$BUILD/examples/hello"
# said once, by dmsgrun (before, rank 0 printed its own "dmsg: ..." line too)
if [ "$(grep -c 'could not start: DMSG_OFI_COUNT=sideways is not one of' "$out")" -eq 1 ] &&
    ! grep -q '^dmsg: DMSG_OFI_COUNT' "$out"; then
    echo "PASS a bad choice is said once, by dmsgrun"
    passed=$((passed + 1))
else
    echo "FAIL a bad choice is not said once by dmsgrun"
    sed 's/^/    | /' "$out" | tail -n 10
    failed=$((failed + 1))
fi
check "sockets counts by remote counters" zero 'hello: OK' \
    env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER=sockets "$RUN" -n 2 "$BUILD/examples/hello"
# PEs that end up on different providers (here forced per rank; with "auto"
# a PE whose first choice failed would fall back alone) are named, not hung,
# once for the job (by dmsgrun: before, every PE printed its own line).
mix=$(mktemp) || exit 1
trap 'rm -f "$out" "$mix"; rm -rf "$slow"' EXIT
cat >"$mix" <<'EOS'
#!/bin/sh
if [ "$DMSG_BOOT_RANK" = 1 ]; then DMSG_OFI_PROVIDER="tcp;ofi_rxm"; else DMSG_OFI_PROVIDER=shm; fi
export DMSG_OFI_PROVIDER
exec "$@"
EOS
chmod +x "$mix"
check "PEs on different providers are named" nonzero 'PE 0 uses provider "shm", PE 1 "tcp;ofi_rxm"' \
    env DMSG_TRANSPORT=ofi "$RUN" -n 2 "$mix" "$BUILD/examples/hello"
once
check "libfabric that cannot be loaded is named" nonzero \
    'cannot load libfabric (DMSG_OFI_LIBRARY=/nonexistent/libfabric.so.1)' \
    env DMSG_OFI_LIBRARY=/nonexistent/libfabric.so.1 "$RUN" -n 2 -t ofi "$BUILD/examples/hello"
once
check "a library that is not libfabric is named" nonzero \
    'libm.so.6 lacks a function dmsg calls' \
    env DMSG_OFI_LIBRARY=libm.so.6 "$RUN" -n 2 -t ofi "$BUILD/examples/hello"
check "bad DMSG_OFI_MECH" nonzero 'DMSG_OFI_MECH=sideways' \
    env DMSG_TRANSPORT=ofi DMSG_OFI_MECH=sideways "$RUN" -n 2 "$BUILD/examples/hello"
# MPICH's launcher by name: with Open MPI installed too, plain mpiexec is Open MPI's.
MPIEXEC=$(command -v mpiexec.mpich || command -v mpiexec || true)
if [ -n "$MPIEXEC" ]; then
    check "PE crash under mpiexec ends the job" nonzero '' \
        env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="udp;ofi_rxd" DMSG_OFI_IFACE=lo \
        "$MPIEXEC" -n 3 "$BUILD/tests/pe_prog" crash_segv
    check "PE leaving without finalize: bounded" any '' \
        env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="udp;ofi_rxd" DMSG_OFI_IFACE=lo \
        DMSG_TIMEOUT=3 "$MPIEXEC" -n 3 "$BUILD/tests/pe_prog" no_finalize
fi
check "PE crash under dmsgrun ends the job" nonzero '' \
    env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="udp;ofi_rxd" "$RUN" -n 3 \
    "$BUILD/tests/pe_prog" crash_exit
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
