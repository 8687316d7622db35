#!/bin/sh
# The OpenSHMEM front end's own tests (make test, step shmem): every routine
# and type family (rma, amo, p2p, coll), static data (static_data) on shm,
# sim and ofi (providers shm and tcp;ofi_rxm), threads at
# SHMEM_THREAD_MULTIPLE (thread, and the others with SHT_MULTIPLE=1), and bad input (errors: one
# line naming the call, the job's exit status). Programs written elsewhere
# are run by tests/shmem/external.sh (docs/openshmem.md), not here.
# Usage: sh tests/shmem/run.sh BUILD
b=${1:-build}
t="$b/tests/shmem"
run="$b/bin/dmsg-oshrun"
[ -x "$run" ] || { echo "shmem: $run not built (make tests)"; exit 1; }
for p in rma amo p2p coll static_data ptr errors thread; do
    [ -x "$t/$p" ] || { echo "shmem: $t/$p not built (make tests)"; exit 1; }
done
fail=0
# Each run is bounded only to catch a hang (generous: loaded hosts are slow).
go() { # label, then the command
    label=$1
    shift
    if ! out=$(timeout -k 5 300 "$@" 2>&1); then
        echo "shmem: FAIL $label"
        echo "$out" | tail -5 | sed 's/^/    /'
        fail=1
    else
        echo "shmem: ok   $label: $(echo "$out" | tail -1)"
    fi
}
progs="rma amo p2p coll static_data"
for p in $progs; do go "shm 3 PEs $p" "$run" -n 3 -t shm "$t/$p"; done
for p in $progs; do go "sim 3 PEs $p" "$run" -n 3 -t sim "$t/$p"; done
go "shm 1 PE coll" "$run" -n 1 "$t/coll"
# shmem_ptr and SHMEM_TEAM_SHARED: shm maps every PE, sim only the PE itself.
go "shm 3 PEs ptr" "$run" -n 3 -t shm "$t/ptr" all
go "shm 1 PE ptr" "$run" -n 1 -t shm "$t/ptr" all
go "sim 3 PEs ptr" "$run" -n 3 -t sim "$t/ptr" self
go "shm 4 PEs coll" "$run" -n 4 "$t/coll"
# SHMEM_THREAD_MULTIPLE: threads at once (thread), and every routine family
# through the paths for threads, from one thread (SHT_MULTIPLE, shtest.h).
for n in 1 2 4; do go "shm $n PEs thread" "$run" -n $n "$t/thread"; done
go "sim 3 PEs thread" "$run" -n 3 -t sim "$t/thread"
# Only the first PE asks for MULTIPLE: every PE takes the lock (the gate).
go "shm 3 PEs thread mixed" "$run" -n 3 "$t/thread" mixed
go "sim 3 PEs thread mixed" "$run" -n 3 -t sim "$t/thread" mixed
for p in $progs; do go "shm 3 PEs $p MULTIPLE" env SHT_MULTIPLE=1 "$run" -n 3 -t shm "$t/$p"; done
for p in $progs; do go "sim 3 PEs $p MULTIPLE" env SHT_MULTIPLE=1 "$run" -n 3 -t sim "$t/$p"; done
go "shm 4 PEs coll MULTIPLE" env SHT_MULTIPLE=1 "$run" -n 4 "$t/coll"
# dmsg's direct path for every size (the movers' too), static data included
go "shm 3 PEs coll, DMSG_COLL_DIRECT=1" env DMSG_COLL_DIRECT=1 "$run" -n 3 "$t/coll"
if [ "${OFI:-1}" != 0 ]; then
    for prov in shm 'tcp;ofi_rxm'; do
        for p in $progs; do
            go "ofi $prov 2 PEs $p" env DMSG_OFI_PROVIDER="$prov" "$run" -n 2 -t ofi "$t/$p"
        done
        go "ofi $prov 2 PEs ptr" env DMSG_OFI_PROVIDER="$prov" "$run" -n 2 -t ofi "$t/ptr" self
        go "ofi $prov 2 PEs thread" env DMSG_OFI_PROVIDER="$prov" "$run" -n 2 -t ofi "$t/thread"
        go "ofi $prov 2 PEs thread mixed" env DMSG_OFI_PROVIDER="$prov" "$run" -n 2 -t ofi "$t/thread" mixed
        go "ofi $prov 2 PEs p2p MULTIPLE" env SHT_MULTIPLE=1 DMSG_OFI_PROVIDER="$prov" "$run" -n 2 -t ofi "$t/p2p"
        go "ofi $prov 2 PEs coll MULTIPLE" env SHT_MULTIPLE=1 DMSG_OFI_PROVIDER="$prov" "$run" -n 2 -t ofi "$t/coll"
    done
fi

# Bad input: the call named, the job ended with status 1 (7 for global_exit(7)).
expect() { # mode, status, text
    out=$(timeout -k 5 120 "$run" -n 2 "$t/errors" "$1" 2>&1)
    rc=$?
    if [ $rc -ne "$2" ] || ! echo "$out" | grep -q "$3"; then
        echo "shmem: FAIL errors $1: exit $rc (want $2), output:"
        echo "$out" | sed 's/^/    /'
        fail=1
    else
        echo "shmem: ok   errors $1: $(echo "$out" | grep -m1 "$3")"
    fi
}
expect pe 1 'shmem_long_p: .*PE 2 is not in \[0, 2)'
expect nonsym 1 'shmem_long_put: .*not in the symmetric segment'
expect team 1 'shmem_team_sync: team used after shmem_team_destroy'
expect ctx 1 'shmem_ctx_long_p: context used after shmem_ctx_destroy'
expect cmp 1 'shmem_long_wait_until: cmp is not one of'
expect exit 7 'ended the job with status 7'
# shmem_global_exit(S) ends every PE and dmsgrun exits with S, 0 included,
# on every transport (PE 0's output before it is kept).
gexit() { # transport, status, then env settings
    tp=$1 want=$2
    shift 2
    out=$(timeout -k 5 120 env "$@" "$run" -n 3 -t "$tp" "$t/errors" exit "$want" 2>&1)
    rc=$?
    if [ $rc -ne "$want" ] || ! echo "$out" | grep -q "^global exit $want\$" ||
        ! echo "$out" | grep -q "ended the job with status $want"; then
        echo "shmem: FAIL global_exit($want) on $tp: exit $rc, output:"
        echo "$out" | sed 's/^/    /'
        fail=1
    else
        echo "shmem: ok   global_exit($want) on $tp: exit $rc"
    fi
}
for s in 0 3 99; do
    gexit shm $s
    gexit sim $s
    [ "${OFI:-1}" = 0 ] || gexit ofi $s DMSG_OFI_PROVIDER=shm
done
exit $fail
