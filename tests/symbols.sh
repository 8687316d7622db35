#!/bin/sh
# The symbol rule (DESIGN.md section 3): every global symbol the built
# libraries define starts with dmsg_ or a front end's standard prefix
# (shmem_, pvm_, _gfortran_caf_), so linking dmsg into a program can never
# collide with the program's own names. Internal functions of several files
# are dmsg_-prefixed too; the shared library exports only the public calls
# (its version script), so this checks the static archive, where every
# non-static function is visible.
# Usage: sh tests/symbols.sh [BUILD]   (prints every offender; exit 1 if any)
b=${1:-build}
bad=0
for lib in "$b"/lib/libdmsg*.a "$b"/lib/libcaf_dmsg*.a; do
    [ -e "$lib" ] || { echo "symbols: no $b/lib/libdmsg*.a (build first)"; exit 2; }
    off=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $3 !~ /^(dmsg_|shmem_|pvm_|_gfortran_caf_)/ { print $3 }' | sort -u)
    if [ -n "$off" ]; then
        echo "symbols: $lib defines $(echo "$off" | wc -l) global symbols without the dmsg_ prefix:"
        echo "$off" | sed 's/^/    /'
        bad=1
    fi
done
for so in "$b"/lib/libdmsg*.so "$b"/lib/libcaf_dmsg*.so; do
    [ -e "$so" ] || continue
    off=$(nm -D --defined-only "$so" | awk 'NF == 3 && $3 !~ /^(dmsg_|shmem_|pvm_|_gfortran_caf_)/ && $2 != "A" { print $3 }' | sort -u)
    if [ -n "$off" ]; then
        echo "symbols: $so exports symbols without the dmsg_ prefix:"
        echo "$off" | sed 's/^/    /'
        bad=1
    fi
done
[ $bad -eq 0 ] && echo "symbols: OK"
exit $bad
