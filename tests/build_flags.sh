#!/bin/sh
# CFLAGS on the command line replaces only the user's part of the flags:
# `make CFLAGS='-O1 -g'` must still compile and link with the flags the build
# needs (C11, _GNU_SOURCE, the warnings as errors, -pthread), and with the
# user's. Checks the commands make would run (make -n), for an object, a
# program and the shared library.
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # what, command text
    for f in -std=c11 -D_GNU_SOURCE -Werror -pthread -O1 -DUSER_FLAG; do
        case " $2 " in
        *" $f "*) ;;
        *) echo "build_flags: make CFLAGS='-O1 -g -DUSER_FLAG': the $1 command lacks $f:"; echo "  $2"; fail=1 ;;
        esac
    done
}
cmds=$(make -n --no-print-directory BUILD="$tmp" CFLAGS='-O1 -g -DUSER_FLAG' \
    "$tmp/obj/dmsg/core/sync.o" "$tmp/bin/dmsgrun" "$tmp/lib/libdmsg.so.0.1.0" 2>&1)
obj=$(printf '%s\n' "$cmds" | grep -- '-c dmsg/core/sync.c' | head -n 1)
prog=$(printf '%s\n' "$cmds" | grep -- "-o $tmp/bin/dmsgrun" | head -n 1)
so=$(printf '%s\n' "$cmds" | grep -- '-shared' | head -n 1)
[ -n "$obj" ] && [ -n "$prog" ] && [ -n "$so" ] || { echo "build_flags: unexpected make -n output:"; printf '%s\n' "$cmds"; exit 1; }
check compile "$obj"
check link "$prog"
check "shared library" "$so"
[ $fail = 0 ] && echo "build_flags: ok"
exit $fail
