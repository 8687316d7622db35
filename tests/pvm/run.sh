#!/bin/sh
# The PVM 3 front end (libdmsg-pvm): this project's own PVM test programs
# (tests/pvm/*.c, built by make as BUILD/tests/pvm/NAME) and PVM's own
# example programs (Debian's pvm-examples), built unmodified against
# include/pvm3.h in a temporary folder and run under dmsgrun with their
# expected output. docs/baselines.md ("PVM 3 on postal") lists the examples
# left out and why.
# Usage: sh tests/pvm/run.sh BUILD_DIR   (exit 77: skipped, with the reason)
b=${1:-build}
run="$b/bin/dmsgrun"
ex=/usr/share/doc/pvm-examples
[ -x "$run" ] && [ -f "$b/lib/libdmsg-pvm.a" ] || { echo "pvm: build first ($b/lib/libdmsg-pvm.a)"; exit 1; }
cc=${CC:-cc}
# Every wait inside dmsg ends in time; `timeout` catches what is left, with
# a margin that holds on a loaded host.
export DMSG_TIMEOUT=60
lim=120
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmsg-pvm.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# check NAME STATUS_OK PATTERN... -- DMSGRUN ARGS: runs the job, keeps its
# output, and wants its exit status to be STATUS_OK (PVM's examples end
# with exit(1) in places) and every PATTERN (grep -E) in its output; a
# PATTERN !RE wants no line to match RE.
check() {
    name=$1 want=$2
    shift 2
    pats=
    while [ "$1" != "--" ]; do pats="$pats
$1"; shift; done
    shift
    out="$tmp/$name.out"
    ( cd "$tmp/bin" && timeout $lim "$OLDPWD/$run" "$@" ) >"$out" 2>&1 </dev/null
    rc=$?
    ok=1
    [ "$rc" = "$want" ] || { echo "pvm: $name: exit status $rc, expected $want"; ok=0; }
    echo "$pats" | while IFS= read -r p; do
        [ -z "$p" ] && continue
        case $p in
        !*) ! grep -Eq -- "${p#!}" "$out" || { echo "pvm: $name: a line matches '${p#!}'"; exit 1; } ;;
        *) grep -Eq -- "$p" "$out" || { echo "pvm: $name: no line matches '$p'"; exit 1; } ;;
        esac
    done || ok=0
    if [ $ok = 1 ]; then
        echo "pvm: $name: ok"
    else
        sed 's/^/    | /' "$out" | tail -20
        fail=1
    fi
}

mkdir -p "$tmp/bin"
# ------------------------------------------------------------ own tests
own=0
for t in "$b"/tests/pvm/*; do
    [ -x "$t" ] || continue
    own=$((own + 1))
    cp "$t" "$tmp/bin/"
done
[ $own -gt 0 ] || { echo "pvm: no test programs in $b/tests/pvm (make tests)"; fail=1; }
if [ -x "$tmp/bin/pvm_calls" ]; then
    for n in 1 2 4; do
        check "pvm_calls-$n" 0 "pvm_calls: ok" -- -n $n ./pvm_calls
    done
    check pvm_mpmd 0 "pvm_mpmd: ok" -- -n 1 ./pvm_calls mpmd : -n 3 ./pvm_worker
fi
if [ -x "$tmp/bin/pvm_groups" ]; then
    for n in 1 3 4; do
        check "pvm_groups-$n" 0 "pvm_groups: ok" -- -n $n ./pvm_groups
    done
fi
if [ -x "$tmp/bin/pvm_packf" ]; then
    check pvm_packf 0 "pvm_packf: ok" -- -n 1 ./pvm_packf
    ( export DMSG_POSTAL_WINDOW=0; check pvm_packf-nowin 0 "pvm_packf: ok" -- -n 1 ./pvm_packf; exit $fail ) || fail=1
    ( export DMSG_TRANSPORT=sim; check pvm_packf-sim 0 "pvm_packf: ok" -- -n 1 ./pvm_packf; exit $fail ) || fail=1
fi
if [ -x "$tmp/bin/pvm_mbox" ]; then
    check pvm_mbox-1 0 "pvm_mbox: ok" -- -n 1 ./pvm_mbox
    check pvm_mbox-2 0 "pvm_mbox: ok" -- -n 2 ./pvm_mbox
    ( export DMSG_TRANSPORT=sim; check pvm_mbox-sim 0 "pvm_mbox: ok" -- -n 2 ./pvm_mbox; exit $fail ) || fail=1
fi
# pvm_packf.c and pvm_mbox.c against the real PVM 3.4.6 (Debian pvm,
# pvm-dev) too, one task under a private pvmd (tools/pvm/pvmd.sh): their
# expected bytes, headers and mailbox answers are real PVM's, so they must
# pass there (-DREAL_PVM leaves out the checks of this library's stricter
# argument rules and its multi-task parts). Skipped without PVM. Plain cc:
# libpvm3 is not built for the sanitizers of an ASan run.
real() { # NAME
    if [ ! -x /usr/lib/pvm3/lib/pvmd ] ||
        ! cc -w -DREAL_PVM -I. -o "$tmp/$1_real" "tests/pvm/$1.c" -lpvm3 >"$tmp/$1_real.cc" 2>&1; then
        echo "pvm: $1-real: skipped (no libpvm3 or pvmd)"
        return 0
    fi
    ( . tools/pvm/pvmd.sh
      if ! pvmd_start "$tmp/pvmd" >"$tmp/pvmd.err" 2>&1; then
          echo "pvm: $1-real: skipped (pvmd did not start)"
          exit 0
      fi
      timeout $lim "$tmp/$1_real" >"$tmp/$1_real.out" 2>&1 </dev/null
      rc=$?
      pvmd_stop
      if [ $rc = 0 ] && grep -q "$1: ok" "$tmp/$1_real.out"; then
          echo "pvm: $1-real: ok"
      else
          echo "pvm: $1-real: exit status $rc against libpvm3"
          sed 's/^/    | /' "$tmp/$1_real.out" | tail -5
          exit 1
      fi ) || fail=1
}
real pvm_packf
real pvm_mbox
if [ -x "$tmp/bin/pvm_notify" ]; then
    check pvm_notify 0 "pvm_notify: ok" -- -n 3 ./pvm_notify
    ( export DMSG_TRANSPORT=sim; check pvm_notify-sim 0 "pvm_notify: ok" -- -n 3 ./pvm_notify; exit $fail ) || fail=1
fi
if [ -x "$tmp/bin/pvm_errors" ]; then
    check pvm_errors 0 "pvm_errors: ok" -- -n 2 ./pvm_errors
    # a spawn's children that nobody hands out: waiting ends with the timeout
    DMSG_TIMEOUT=2
    check pvm_unclaimed 0 "pvm_errors: unclaimed ok" -- -n 1 ./pvm_errors none : -n 1 ./pvm_errors child
    DMSG_TIMEOUT=60
fi
# Large messages (postal's announcements and windows) with the default
# windows, without them (fragments), with a window smaller than the
# messages and a tiny mailbox, on the simulated machine and over ofi.
large() {
    name=$1
    shift
    ( export "$@"; check "$name" 0 "pvm_large: ok" -- -n 2 ./pvm_large; exit $fail ) || fail=1
}
if [ -x "$tmp/bin/pvm_large" ]; then
    large pvm_large X=
    large pvm_large-nowin DMSG_POSTAL_WINDOW=0
    large pvm_large-4k DMSG_POSTAL_WINDOW=4K DMSG_POSTAL_MAILBOX=1K
    large pvm_large-sim DMSG_TRANSPORT=sim
    if command -v fi_info >/dev/null 2>&1 && fi_info -p tcp >/dev/null 2>&1; then
        large pvm_large-ofi DMSG_TRANSPORT=ofi 'DMSG_OFI_PROVIDER=tcp;ofi_rxm'
    else
        echo "pvm: pvm_large-ofi: skipped (no libfabric tcp provider)"
    fi
fi

# ------------------------------------------------------- PVM's examples
if [ ! -f "$ex/examples.tar.gz" ] || [ ! -f "$ex/gexamples.tar.gz" ]; then
    echo "pvm: PVM's examples not installed ($ex; Debian package pvm-examples): only the own tests ran"
    exit $fail
fi
tar -xzf "$ex/examples.tar.gz" -C "$tmp" && tar -xzf "$ex/gexamples.tar.gz" -C "$tmp" || exit 1
# The examples are K&R C of the 1990s (implicit int, old declarations):
# warnings off, everything else as they are. trsg calls pvmsleep, a helper
# of libpvm3 outside PVM's documented interface: it is sleep() here.
build() {
    src=$1 name=$(basename "$1" .c)
    shift
    if ! $cc -w -O1 "$@" -Iinclude -o "$tmp/bin/$name" "$src" "$b/lib/libdmsg-pvm.a" \
        "$b/lib/libdmsg.a" -pthread -lm -ldl >"$tmp/$name.cc" 2>&1; then
        echo "pvm: $name does not compile against include/pvm3.h:"
        sed 's/^/    | /' "$tmp/$name.cc" | head -20
        fail=1
    fi
}
for e in hello hello_other master1 slave1 spmd gexample timing timing_slave inherit1 inherit2 \
    inherit3 inherita inheritb; do
    build "$tmp/examples/$e.c"
done
for e in gexamp gs joinleave thb tnb tjl tst; do
    build "$tmp/gexamples/$e.c"
done
build "$tmp/gexamples/trsg.c" -Dpvmsleep=sleep
build "$tmp/examples/mbox.c" -Dpvmsleep=sleep

check hello 0 "^i'm t40001" "^from t40002: hello, world from " -- -n 1 ./hello : -n 1 ./hello_other
check master1 0 "Spawning 3 worker tasks ... SUCCESSFUL" \
    "I got 100.000000 from 1; \(expecting 100.000000\)" \
    "I got 200.000000 from 0; \(expecting 200.000000\)" \
    "I got 300.000000 from 2; \(expecting 300.000000\)" -- -n 1 ./master1 : -n 3 ./slave1
check spmd 1 "Pass a token through the +4 tid ring" "^token ring done" -- -n 4 ./spmd
check gexample 0 "Using 4 processors" "The 1-Norm is 5050" \
    "The product of column 1 is 9.33262e\+157" -- -n 4 ./gexample
check timing 1 "Avg Byte/uSec" "^done" -- -n 1 ./timing : -n 1 ./timing_slave
check inherita-1 0 "inherit1 t40002 on machine <.*> with context 65537" \
    "inherit2 t40003 on machine <.*> with context 65537" \
    "END - sent from inherit1" "with original context 0" -- \
    -n 1 ./inherita inherit1 : -n 1 ./inherit1 : -n 1 ./inherit2
check inherita-3 0 "inherit3 t40002 on machine <.*> with context 65537" \
    "inherit2 t40003 on machine <.*> with context 131073" "END - sent from inherit3" -- \
    -n 1 ./inherita inherit3 : -n 1 ./inherit3 : -n 1 ./inherit2
check inheritb 0 "inherit2 t40002 on machine <.*> with context 65537. <-- received from 1st" \
    "inherit2 t40003 on machine <.*> with context 65538. <-- received from 2nd" -- \
    -n 1 ./inheritb : -n 2 ./inherit2
check trsg 1 "Test OK: Sum of Squares of first 20 integers is 2870" \
    "Test Ok: Received \(5.000000, 2.000000\)" -- -n 1 sh -c 'printf "4\n5\n" | ./trsg' : -n 3 ./trsg
check gexamp 0 "gexamp 0: sync" "gexamp 3: sync" -- -n 1 ./gexamp 4 : -n 3 ./gexamp 4
check gs 0 "gs 0x40003 enrolled" -- -n 1 ./gs 3 : -n 2 ./gs 3
check thb 0 "barrier on group0" "^done." -- -n 1 ./thb 3 : -n 3 ./tnb
check joinleave 0 "Joined 300 times" -- -n 1 ./joinleave 300
check tjl 0 "joined group31" -- -n 1 ./tjl
check tst 0 "left prognosis" -- -n 2 ./tst
# mbox's exit status counts the entries it found as put (real PVM 3.4.6
# gives the same three statuses and output).
check mbox 1 "Retrieved Message is a Match" "!Mismatch" -- -n 1 ./mbox
check mbox-default 13 "Retrieved Message is \"This Message Left Here By Mbox \(4\)\"" "!Mismatch" \
    -- -n 1 ./mbox default
check mbox-direct 3 "Retrieved Message From \"mbox_test\" at index=1:" "Here By Mbox \(X\)" \
    "!Mismatch|denied" -- -n 1 ./mbox direct
exit $fail
