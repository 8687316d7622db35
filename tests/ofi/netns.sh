#!/bin/sh
# Multi-host test on one machine: two network namespaces ("hosts") joined by
# a veth pair, 10.200.0.1/24 and 10.200.0.2/24 (they exist only inside the
# namespaces made here). A job is started across both with MPICH's mpiexec,
# whose ssh launcher is pointed at a script that runs `ip netns exec NS ...`
# instead of ssh; the PEs find each other through PMI and move data over a
# network provider. The transpose and halo examples verify their results.
# Then Open MPI's mpirun does the same (its rsh launcher starts its daemon in
# the other namespace through the same script; the PEs join through PMIx).
#
#   sh tests/ofi/netns.sh [BUILD_DIR] [PROVIDER ...]
#       (default: build, "tcp;ofi_rxm" and "udp;ofi_rxd")
#
# Exit 0: all passed; 1: a run failed; 77: SKIP (printed with the reason)
# where namespaces cannot be made. Namespaces are removed on every exit.

BUILD=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "tcp;ofi_rxm" "udp;ofi_rxd"
LIMIT=300   # catches a hang only: holds at a load of 20 on 2 cores

skip() {
    echo "SKIP: $*"
    exit 77
}

[ "$(id -u)" = 0 ] || skip "creating network namespaces needs root"
command -v ip >/dev/null 2>&1 || skip "the ip command (iproute2) is missing"
# MPICH's launcher by name: with Open MPI installed too, plain mpiexec is Open MPI's.
MPIEXEC_BIN=$(command -v mpiexec.mpich || command -v mpiexec) || skip "MPICH's mpiexec is missing"
OMPI_BIN=$(command -v mpirun.openmpi) || skip "Open MPI's mpirun is missing (openmpi-bin)"
for p in transpose halo; do
    [ -x "$BUILD/examples/$p" ] || { echo "netns: $BUILD/examples/$p not built" >&2; exit 1; }
done
BUILD=$(cd "$BUILD" && pwd)

tag=$$
NS1=dmsgA$tag
NS2=dmsgB$tag
V1=dmsgva$tag
V2=dmsgvb$tag
TMP=$(mktemp -d) || exit 1

cleanup() {
    ip netns del "$NS1" 2>/dev/null
    ip netns del "$NS2" 2>/dev/null
    ip link del "$V1" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ip netns add "$NS1" 2>"$TMP/err" || skip "cannot create a network namespace: $(cat "$TMP/err")"
ip netns add "$NS2" 2>"$TMP/err" || skip "cannot create a network namespace: $(cat "$TMP/err")"
ip link add "$V1" type veth peer name "$V2" 2>"$TMP/err" ||
    skip "cannot create a veth pair: $(cat "$TMP/err")"
ip link set "$V1" netns "$NS1" && ip link set "$V2" netns "$NS2" &&
    ip -n "$NS1" addr add 10.200.0.1/24 dev "$V1" && ip -n "$NS2" addr add 10.200.0.2/24 dev "$V2" &&
    ip -n "$NS1" link set lo up && ip -n "$NS2" link set lo up &&
    ip -n "$NS1" link set "$V1" up && ip -n "$NS2" link set "$V2" up ||
    skip "cannot configure the namespaces"

# hydra's ssh launcher runs: LAUNCHER [ssh options] HOST COMMAND...; like
# ssh, hand the command to a shell, but inside the host's namespace.
cat >"$TMP/nsexec" <<EOS
#!/bin/sh
while [ \$# -gt 0 ]; do
    case \$1 in
    -*) shift ;;
    *) break ;;
    esac
done
host=\$1
shift
case \$host in
10.200.0.1) ns=$NS1 ;;
10.200.0.2) ns=$NS2 ;;
*) echo "nsexec: unknown host \$host" >&2; exit 1 ;;
esac
exec ip netns exec "\$ns" sh -c "\$*"
EOS
chmod +x "$TMP/nsexec"

MPIEXEC="$MPIEXEC_BIN -launcher ssh -launcher-exec $TMP/nsexec -iface $V1 -hosts 10.200.0.1,10.200.0.2"

# The job must really span both "hosts": each rank reports its namespace.
where=$(timeout "$LIMIT" ip netns exec "$NS1" $MPIEXEC -n 2 -ppn 1 ip netns identify 2>&1 | sort)
if [ "$where" != "$(printf '%s\n%s' "$NS1" "$NS2" | sort)" ]; then
    echo "FAIL: mpiexec did not place one rank in each namespace: $where"
    exit 1
fi
echo "mpiexec places ranks in $NS1 and $NS2"

passed=0
failed=0
run() { # provider, PEs, PEs per host, example, args...
    prov=$1
    np=$2
    ppn=$3
    name=$4
    shift 4
    out=$TMP/out
    timeout "$LIMIT" ip netns exec "$NS1" env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="$prov" \
        DMSG_TIMEOUT=30 $MPIEXEC -n "$np" -ppn "$ppn" "$BUILD/examples/$name" "$@" >"$out" 2>&1
    rc=$?
    # The example checks its result and prints OK; with -ppn the PEs are
    # spread over both namespaces (checked above for 2 PEs).
    if [ $rc -eq 0 ] && grep -q "OK" "$out"; then
        echo "PASS $prov $name $* ($np PEs on 2 hosts)"
        passed=$((passed + 1))
    else
        echo "FAIL $prov $name $* ($np PEs, exit $rc)"
        tail -n 15 "$out" | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}

# An application kernel across both hosts (docs/kernels.md): the program
# verifies its result before it prints its status=ok line.
runk() { # label, PEs, PEs per host, program and arguments...
    label=$1
    np=$2
    ppn=$3
    shift 3
    out=$TMP/out
    timeout "$LIMIT" ip netns exec "$NS1" env DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="$prov" \
        DMSG_TIMEOUT=30 $MPIEXEC -n "$np" -ppn "$ppn" "$@" >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "status=ok" "$out"; then
        echo "PASS $label $(basename "$1") $2 $3 $4 ($np PEs on 2 hosts)"
        passed=$((passed + 1))
    else
        echo "FAIL $label $(basename "$1") $2 $3 $4 ($np PEs, exit $rc)"
        tail -n 15 "$out" | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}

first=1
for prov in "$@"; do
    run "$prov" 2 1 transpose 96 3
    run "$prov" 2 1 halo 60 200
    run "$prov" 4 2 transpose 96 3
    if [ $first = 1 ] && [ -x "$BUILD/bin/dmsg-kern" ]; then
        runk "$prov" 2 1 "$BUILD/bin/dmsg-kern" fft dmsg-chained 64 2 1
        runk "$prov" 4 2 "$BUILD/bin/dmsg-kern" fem dmsg-indexed 12 2 1
    fi
    first=0
done

# Open MPI: a host file with both "hosts", its daemons started through
# nsexec, its own traffic kept on the veth network, ranks alternating
# between the hosts (--map-by node). As root it must be told it may run.
printf '10.200.0.1 slots=2\n10.200.0.2 slots=2\n' >"$TMP/hosts"
OMPIRUN="$OMPI_BIN --allow-run-as-root --oversubscribe --hostfile $TMP/hosts \
    --mca plm_rsh_agent $TMP/nsexec --mca oob_tcp_if_include 10.200.0.0/24 --map-by node"
where=$(timeout "$LIMIT" ip netns exec "$NS1" $OMPIRUN -n 2 ip netns identify 2>&1 | sort)
if [ "$where" != "$(printf '%s\n%s' "$NS1" "$NS2" | sort)" ]; then
    echo "FAIL: Open MPI's mpirun did not place one rank in each namespace: $where"
    exit 1
fi
echo "Open MPI's mpirun places ranks in $NS1 and $NS2"
run_ompi() { # provider, PEs, example, args...
    prov=$1
    np=$2
    name=$3
    shift 3
    out=$TMP/out
    timeout "$LIMIT" ip netns exec "$NS1" $OMPIRUN -n "$np" -x DMSG_TRANSPORT=ofi \
        -x DMSG_OFI_PROVIDER="$prov" -x DMSG_TIMEOUT=30 "$BUILD/examples/$name" "$@" >"$out" 2>&1
    rc=$?
    # one final OK (PE 0's): one job of np PEs, not np jobs of one
    if [ $rc -eq 0 ] && [ "$(grep -c "^$name: .*OK" "$out")" -eq 1 ]; then
        echo "PASS Open MPI $prov $name $* ($np PEs on 2 hosts)"
        passed=$((passed + 1))
    else
        echo "FAIL Open MPI $prov $name $* ($np PEs, exit $rc)"
        tail -n 15 "$out" | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}
for prov in "$@"; do
    run_ompi "$prov" 2 halo 60 200
    run_ompi "$prov" 4 transpose 96 3
done
# The MPI reference across the same two hosts, as an MPI user starts it.
if [ -x "$BUILD/bin/kern-mpi" ]; then
    prov=-
    runk mpich 2 1 "$BUILD/bin/kern-mpi" fft mpi-ddt 64 2 1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
