#!/bin/sh
# Start-up under Slurm's srun, on a one-host Slurm started here for the test:
# a private munged, slurmctld and slurmd (own key, sockets, ports, state and
# logs in a temporary directory, stopped and removed on every exit).
# - srun --mpi=pmix starts every example at 2 and 4 PEs over ofi (PMIx), one
#   job of N PEs (one final "OK" line, hello counts the PEs);
# - srun --mpi=pmi2 starts hello (dmsg's PMI-1 client, which Slurm's pmi2
#   plugin also answers);
# - srun without PMIx (MpiDefault=none), and the default transport shm under
#   srun --mpi=pmix, fail at dmsg_init with a line naming srun.
#
#   sh tests/slurm.sh [BUILD_DIR]
#
# Needs root and Debian's slurmd, slurmctld (with slurm-client and munge):
# `apt-get install slurmd slurmctld`. They are not among tools/install-deps.sh's
# packages (installing them starts daemons on a machine with systemd). Without
# them: exit 77 and "SKIP: <reason>". Exit 0: all passed; 1: a check failed.
BUILD=${1:-build}
LIMIT=300   # catches a hang only: holds at a load of 20 on 2 cores

skip() {
    echo "SKIP: $*"
    exit 77
}

[ "$(id -u)" = 0 ] || skip "a private slurmd must run as root"
for d in munged slurmctld slurmd srun sinfo; do
    command -v $d >/dev/null 2>&1 || skip "$d is missing (apt-get install slurmd slurmctld)"
done
for p in hello transpose halo gather; do
    [ -x "$BUILD/examples/$p" ] || { echo "slurm: $BUILD/examples/$p not built" >&2; exit 1; }
done
BUILD=$(cd "$BUILD" && pwd)

DIR=$(mktemp -d) || exit 1
pids=""
cleanup() {
    for p in $pids; do
        kill "$p" 2>/dev/null
    done
    for p in $pids; do
        # the daemons end their job steps before they exit; give them a moment
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -9 "$p" 2>/dev/null
    done
    rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

host=$(hostname -s)
# Ports of their own, so that jobs of other test runs on this host do not meet.
port=$((20000 + ($$ % 10000) * 2))
mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/tmp"
dd if=/dev/urandom of="$DIR/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$DIR/munge.key"
cpus=$(nproc)
cat >"$DIR/slurm.conf" <<EOF
ClusterName=dmsgtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge.sock
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
TmpFS=$DIR/tmp
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
PlugStackConfig=/dev/null
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=dmsg Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=FORCE
EOF
export SLURM_CONF="$DIR/slurm.conf"

munged -F --force -S "$DIR/munge.sock" --key-file="$DIR/munge.key" --pid-file="$DIR/munged.pid" \
    --seed-file="$DIR/munged.seed" --log-file="$DIR/log/munged.log" >"$DIR/log/munged.out" 2>&1 &
pids="$!"
i=0
while [ ! -S "$DIR/munge.sock" ] && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
[ -S "$DIR/munge.sock" ] || skip "munged did not start: $(tail -n 3 "$DIR/log/munged.out")"
slurmctld -D -i >"$DIR/log/ctld.out" 2>&1 &
pids="$! $pids"
slurmd -D -N "$host" >"$DIR/log/slurmd.out" 2>&1 &
pids="$! $pids"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
    i=$((i + 1))
    [ $i -lt 60 ] || skip "the one-host Slurm did not come up: $(tail -n 3 "$DIR/log/slurmctld.log" 2>&1)"
    sleep 0.5
done
echo "slurm: one-host Slurm up on $host (ports $port, $((port + 1)))"

passed=0
failed=0
out=$DIR/out
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
# Runs a command (an srun) with output in $out. When Slurm itself reports that it could not
# launch the step (dmsg never ran; seen on a host under heavy load), it is
# tried once more, and said so.
srun_run() {
    timeout "$LIMIT" "$@" >"$out" 2>&1
    rc=$?
    if grep -q "launch failed\|aborted before step completely launched" "$out"; then
        echo "note: Slurm could not launch the step; once more: $*"
        timeout "$LIMIT" "$@" >"$out" 2>&1
        rc=$?
    fi
    return $rc
}
small_args() {
    case $1 in
    transpose) echo "96 3" ;;
    halo) echo "60 200" ;;
    gather) echo "600 500" ;;
    *) echo "" ;;
    esac
}

for np in 2 4; do
    for p in hello transpose halo gather; do
        args=$(small_args "$p")
        # -O: more tasks than the host's CPUs; $args is split into words on purpose
        srun_run env DMSG_TRANSPORT=ofi DMSG_TIMEOUT=30 srun --mpi=pmix -O -n "$np" \
            "$BUILD/examples/$p" $args
        rc=$?
        ok=1
        [ "$rc" -eq 0 ] && [ "$(grep -c "^$p: .*OK" "$out")" -eq 1 ] && ok=0
        [ "$p" = hello ] && ! grep -q "hello: OK, $np PEs, transport ofi" "$out" && ok=1
        verdict $ok "srun --mpi=pmix -n $np $p $args over ofi: one job of $np PEs (exit $rc)"
    done
done

srun_run env DMSG_TRANSPORT=ofi srun --mpi=pmi2 -n 2 "$BUILD/examples/hello"
rc=$?
[ "$rc" -eq 0 ] && grep -q "hello: OK, 2 PEs, transport ofi" "$out"
verdict $? "srun --mpi=pmi2 -n 2 hello over ofi (PMI-1 client) (exit $rc)"

srun_run env DMSG_TRANSPORT=ofi srun -n 2 "$BUILD/examples/hello"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! grep -q "Hello from" "$out" &&
    [ "$(grep -c "^dmsg: started by Slurm's srun (SLURM_STEP_NUM_TASKS=2), which dmsg cannot join.*srun --mpi=pmix" "$out")" -eq 1 ]
verdict $? "srun without PMIx: fails naming srun and --mpi=pmix, once (exit $rc)"

srun_run env -u DMSG_TRANSPORT srun --mpi=pmix -n 2 "$BUILD/examples/hello"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
    [ "$(grep -c "^dmsg: started by Slurm's srun: transport shm" "$out")" -eq 1 ] &&
    grep -q "DMSG_TRANSPORT=ofi srun" "$out"
verdict $? "srun --mpi=pmix, default transport shm: fails naming srun and DMSG_TRANSPORT=ofi (exit $rc)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
