# pvmd.sh - starts and halts a private PVM 3 daemon for the harnesses that
# run real PVM (tools/dmsg-ab's pvm-real variant, tools/bench-pvm.sh).
# Sourced by sh scripts:
#
#   . tools/pvm/pvmd.sh
#   pvmd_start DIR || fail      # pvmd with a host file, its files in DIR
#   ... tasks linked with -lpvm3, in the environment this sets ...
#   pvmd_stop                   # halts it; safe to call twice, or never started
#
# The daemon's socket, log and host file live in DIR (PVM_TMP), not in /tmp
# under the user's id, so that it never meets another user's (or another
# harness's) pvmd. PVM_ROOT defaults to the Debian layout; as root PVM
# refuses to start unless PVM_ALLOW_ROOT=1, which is set. Callers must call
# pvmd_stop on every exit path (an EXIT trap): the daemon otherwise outlives
# the script, with the tasks it spawned.

PVMD_PID=
PVMD_DIR=

pvmd_start() { # dir
    PVMD_DIR=$1
    PVM_ROOT=${PVM_ROOT:-/usr/lib/pvm3}
    [ -x "$PVM_ROOT/lib/pvmd" ] || { echo "pvmd.sh: no pvmd in $PVM_ROOT/lib" >&2; return 1; }
    PVM_ARCH=${PVM_ARCH:-$("$PVM_ROOT/lib/pvmgetarch" 2>/dev/null || echo LINUX64)}
    PVM_TMP=$PVMD_DIR
    export PVM_ROOT PVM_ARCH PVM_TMP
    [ "$(id -u)" = 0 ] && { PVM_ALLOW_ROOT=1; export PVM_ALLOW_ROOT; }
    mkdir -p "$PVMD_DIR" || return 1
    # One host, this one: tasks are spawned by absolute path.
    uname -n >"$PVMD_DIR/hosts"
    # pvmd stays in the foreground; once ready it writes its address to
    # pvmd.UID, where tasks look for it (pvmd.out, its own output, says
    # nothing: an error there, e.g. an unresolvable host name, is not a start).
    "$PVM_ROOT/lib/pvmd" "$PVMD_DIR/hosts" >"$PVMD_DIR/pvmd.out" 2>&1 &
    PVMD_PID=$!
    i=0
    while [ $i -lt 100 ]; do
        [ -s "$PVMD_DIR/pvmd.$(id -u)" ] && kill -0 "$PVMD_PID" 2>/dev/null && return 0
        kill -0 "$PVMD_PID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    echo "pvmd.sh: pvmd did not start:" >&2
    cat "$PVMD_DIR/pvmd.out" "$PVMD_DIR"/pvml.* >&2 2>/dev/null
    pvmd_stop
    return 1
}

# SIGTERM makes pvmd kill its tasks and remove its socket files; a daemon
# that does not go within 3 s is killed.
pvmd_stop() {
    [ -n "$PVMD_PID" ] || return 0
    kill -TERM "$PVMD_PID" 2>/dev/null
    i=0
    while kill -0 "$PVMD_PID" 2>/dev/null && [ $i -lt 30 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -KILL "$PVMD_PID" 2>/dev/null
    wait "$PVMD_PID" 2>/dev/null
    PVMD_PID=
    [ -n "$PVMD_DIR" ] && rm -rf "$PVMD_DIR"
    PVMD_DIR=
    return 0
}
