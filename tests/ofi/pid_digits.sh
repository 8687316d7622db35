#!/bin/sh
# PEs whose pids have different numbers of digits join over every provider
# given: libfabric's shm provider names an endpoint after its pid, so its
# addresses differ in length between PE 9999 and PE 10000 (start-up used to
# refuse that as "another provider or address format"). Run as root: the
# next pid is set through /proc/sys/kernel/ns_last_pid so that the four PEs
# straddle 9999/10000; other processes may take pids meanwhile, so each
# provider gets five tries and a try counts only when its PEs did straddle.
# Usage: sh tests/ofi/pid_digits.sh BUILD PROVIDER...
build=$1
shift
knob=/proc/sys/kernel/ns_last_pid
if [ "$(id -u)" != 0 ] || ! [ -w $knob ]; then
    echo "*** pid_digits SKIPPED (needs root to set $knob)"
    exit 0
fi
fail=0
for prov in "$@"; do
    seen=0
    for start in 9994 9995 9996 9993 9992; do
        echo $start > $knob
        out=$(DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="$prov" timeout 300 \
            "$build/bin/dmsgrun" -n 4 sh -c 'echo pid $$; exec "$0" ' "$build/examples/hello" 2>&1)
        rc=$?
        pids=$(echo "$out" | sed -n 's/^pid //p')
        short=0 long=0
        for p in $pids; do
            if [ "$p" -lt 10000 ]; then short=1; else long=1; fi
        done
        [ $short = 1 ] && [ $long = 1 ] || continue
        seen=1
        if [ $rc -ne 0 ]; then
            echo "FAIL pid_digits $prov: PEs $(echo $pids) (exit $rc)"
            echo "$out" | sed 's/^/    | /'
            fail=1
        else
            echo "PASS pid_digits $prov: PEs $(echo $pids)"
        fi
        break
    done
    [ $seen = 1 ] || echo "*** pid_digits $prov: no try straddled 9999/10000 (busy host); not judged"
done
exit $fail
