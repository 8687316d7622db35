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
check() { # what, command text[, the flags to look for]
    for f in ${3:--std=c11 -D_GNU_SOURCE -Werror -pthread -O1 -DUSER_FLAG}; do
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
# The MPI and OpenSHMEM kernels are built with their wrappers (which add
# what MPI needs, -pthread included): the user's flags must reach them, and
# no flag of the build's own may override them (a later -O2 would win).
kcmds=$(make -n --no-print-directory BUILD="$tmp" CFLAGS='-O1 -g -DUSER_FLAG' \
    "$tmp/bin/kern-mpi" 2>&1)
kern_mpi=$(printf '%s\n' "$kcmds" | grep -- "-o $tmp/bin/kern-mpi" | head -n 1)
[ -n "$kern_mpi" ] || { echo "build_flags: unexpected make -n output for kern-mpi:"; printf '%s\n' "$kcmds"; exit 1; }
check kern-mpi "$kern_mpi" "-std=c11 -D_GNU_SOURCE -Werror -O1 -DUSER_FLAG"
if command -v oshcc >/dev/null 2>&1; then
    scmds=$(make -n --no-print-directory BUILD="$tmp" CFLAGS='-O1 -g -DUSER_FLAG' \
        "$tmp/bin/kern-shmem" 2>&1)
    kern_shmem=$(printf '%s\n' "$scmds" | grep -- "-o $tmp/bin/kern-shmem" | head -n 1)
    [ -n "$kern_shmem" ] || { echo "build_flags: unexpected make -n output for kern-shmem:"; printf '%s\n' "$scmds"; exit 1; }
    check kern-shmem "$kern_shmem" "-std=c11 -D_GNU_SOURCE -Werror -O1 -DUSER_FLAG"
fi
# The MPI reference benchmark (tools/mpi) likewise.
bcmds=$(make -n --no-print-directory BUILD="$tmp" CFLAGS='-O1 -g -DUSER_FLAG' \
    "$tmp/bin/dmsg-bench-mpi" 2>&1)
bench_mpi=$(printf '%s\n' "$bcmds" | grep -- "-o $tmp/bin/dmsg-bench-mpi" | head -n 1)
[ -n "$bench_mpi" ] || { echo "build_flags: unexpected make -n output for dmsg-bench-mpi:"; printf '%s\n' "$bcmds"; exit 1; }
check dmsg-bench-mpi "$bench_mpi" "-std=c11 -D_GNU_SOURCE -Werror -O1 -DUSER_FLAG"
# And its OpenSHMEM reference (tools/oshmem), where oshcc exists.
if command -v oshcc >/dev/null 2>&1; then
    ocmds=$(make -n --no-print-directory BUILD="$tmp" CFLAGS='-O1 -g -DUSER_FLAG' \
        "$tmp/bin/dmsg-bench-shmem" 2>&1)
    bench_shmem=$(printf '%s\n' "$ocmds" | grep -- "-o $tmp/bin/dmsg-bench-shmem" | head -n 1)
    [ -n "$bench_shmem" ] || { echo "build_flags: unexpected make -n output for dmsg-bench-shmem:"; printf '%s\n' "$ocmds"; exit 1; }
    check dmsg-bench-shmem "$bench_shmem" "-std=c11 -D_GNU_SOURCE -Werror -O1 -DUSER_FLAG"
fi
for c in "$kern_mpi" "${kern_shmem:-}" "$bench_mpi" "${bench_shmem:-}"; do
    case " $c " in
    *" -O2 "*) echo "build_flags: make CFLAGS='-O1 -g -DUSER_FLAG': a kernel command still has -O2:"; echo "  $c"; fail=1 ;;
    esac
done
[ $fail = 0 ] && echo "build_flags: ok"
exit $fail
