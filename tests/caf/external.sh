#!/bin/sh
# Coarray programs written elsewhere (e.g. OpenCoarrays' src/tests/unit and
# src/tests/regression, fetched outside this repository), compiled with
# dmsg-caf and run without edits on 4 images over shm (some programs need an
# even number or more images: 4 suits most). A program passes when it exits
# 0 and prints no failure; a "clear failure" stops with libcaf_dmsg's message
# naming what is unsupported, or does not compile; anything else (wrong
# result, crash, hang) is listed as unclear. Prints one line per program and
# the counts (docs/coarrays.md reports them).
# A few programs say in their source that they need another number of images
# or an argument: run() gives them what they ask for.
# Usage: sh tests/caf/external.sh DIR [BUILD]
dir=${1:?usage: external.sh DIR [BUILD]}
b=${2:-build}
n=${CAF_IMAGES:-4}
out=$b/caf-external
rm -rf "$out" && mkdir -p "$out" || exit 2
pass=0 clear=0 unclear=0

# Images and arguments of the programs that ask for others than the
# default (each says so: an ERROR STOP, or its header's cafrun line).
run_args() { # name -> "IMAGES [ARGS...]"
    case $1 in
    sync-team | duplicate_syncimages) echo 8 ;;              # "I need at least 8 images"; images 5-7
    issue-488-multi-dim-cobounds) echo 8 true ;;             # "cafrun -np 8 ./a.out true" (false passes too)
    issue-552-send_by_ref-singleton) echo 2 ;;               # "if (nimg /= 2) error stop 1"
    issue-515-mimic-mpi-gatherv) echo 2 ;;                   # "if (gsize /= 6) error stop 1": sizes 2 + 4
    *) echo "$n" ;;
    esac
}
for src in $(find "$dir" \( -name '*.f90' -o -name '*.F90' \) | sort); do
    name=$(basename "$src" | sed 's/\.[fF]90$//')
    # programs only: a file of modules alone is no test
    grep -qi '^ *program ' "$src" || continue
    if ! "$b/bin/dmsg-caf" -ffree-line-length-none -I"$out" -J"$out" "$src" -o "$out/$name" \
            >"$out/$name.cc" 2>&1; then
        echo "compile-fail $name: $(grep -m1 -i 'error' "$out/$name.cc")"
        clear=$((clear + 1))
        continue
    fi
    set -- $(run_args "$name")
    np=$1
    shift
    timeout 60 "$b/bin/dmsg-cafrun" -n "$np" "$out/$name" "$@" >"$out/$name.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -qiE 'fail|error|wrong' "$out/$name.log"; then
        echo "pass $name"
        pass=$((pass + 1))
    elif grep -q 'libcaf_dmsg: ' "$out/$name.log"; then
        echo "clear $name: $(grep -m1 'libcaf_dmsg' "$out/$name.log" | sed 's/.*image [0-9]*: //')"
        clear=$((clear + 1))
    else
        echo "unclear $name (exit $rc): $(grep -v '^dmsgrun' "$out/$name.log" | tail -1 | cut -c1-120)"
        unclear=$((unclear + 1))
    fi
done
echo "external: $pass pass, $clear clear failures, $unclear unclear ($n images, unless run_args says)"
