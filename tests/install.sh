#!/bin/sh
# The installed library, used the way docs/running.md tells a user to: the
# hello example is built against `make install`'s result through pkg-config,
# once shared (libdmsg.so.0 found at run time through the run path given at
# link time) and once static (dmsg-static.pc: libdmsg.a, no libdmsg.so
# needed), and each runs on 2 PEs under the installed dmsgrun.
#
#   sh tests/install.sh [BUILD_DIR]      (MAKE: the make to run install with)
#
# Prints one line per check and "N passed, M failed"; exits non-zero if any failed.
BUILD=${1:-build}
MAKE=${MAKE:-make}
prefix=$(pwd)/$BUILD/test-install
passed=0
failed=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

verdict() { # ok(0/1), description
    if [ "$1" = 0 ]; then
        echo "PASS $2"
        passed=$((passed + 1))
    else
        echo "FAIL $2"
        sed 's/^/    | /' "$out" | tail -n 15
        failed=$((failed + 1))
    fi
}
runs_hello() { # program: 2 PEs under the installed dmsgrun, both greet, result OK
    timeout 300 "$prefix/bin/dmsgrun" -n 2 "$1" >"$out" 2>&1 &&
        grep -q "Hello from PE 1 of 2" "$out" && grep -q "hello: OK, 2 PEs" "$out"
}

rm -rf "$prefix"
$MAKE -s --no-print-directory install PREFIX="$prefix" >"$out" 2>&1
verdict $? "make install PREFIX=$BUILD/test-install"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
libdir=$(pkg-config --variable=libdir dmsg)

# Shared, with the run path documented in docs/running.md.
# shellcheck disable=SC2046 # pkg-config's output is split into words on purpose
cc examples/hello.c $(pkg-config --cflags --libs dmsg) -Wl,-rpath,"$libdir" \
    -o "$prefix/hello-shared" >"$out" 2>&1
verdict $? "shared link line compiles"
readelf -d "$prefix/hello-shared" >"$out" 2>&1
grep -q 'NEEDED.*\[libdmsg\.so\.0\]' "$out" && grep -q "PATH.*\[$libdir\]" "$out"
verdict $? "shared: needs libdmsg.so.0, run path $BUILD/test-install/lib"
runs_hello "$prefix/hello-shared"
verdict $? "shared: hello on 2 PEs without LD_LIBRARY_PATH"

# Without the run path the loader cannot find the library: the run path is
# what the line above adds, not an accident of this machine.
cc examples/hello.c $(pkg-config --cflags --libs dmsg) -o "$prefix/hello-norpath" >"$out" 2>&1 &&
    ! "$prefix/hello-norpath" >"$out" 2>&1 && grep -q "libdmsg.so.0" "$out"
verdict $? "shared without run path: the loader names libdmsg.so.0"

# Static.
cc examples/hello.c $(pkg-config --cflags --libs dmsg-static) -o "$prefix/hello-static" \
    >"$out" 2>&1
verdict $? "static link line compiles"
readelf -d "$prefix/hello-static" >"$out" 2>&1
! grep -q 'NEEDED.*libdmsg' "$out" && nm "$prefix/hello-static" | grep -q ' T dmsg_init$'
verdict $? "static: dmsg_init inside the program, no libdmsg.so needed"
runs_hello "$prefix/hello-static"
verdict $? "static: hello on 2 PEs"

# Fortran coarrays (docs/coarrays.md): the installed dmsg-caf and dmsg-cafrun.
if command -v gfortran >/dev/null 2>&1; then
    printf 'program p\n  integer :: x[*]\n  x = this_image()\n  sync all\n' >"$prefix/caf.f90"
    printf '  if (this_image() == 1) print *, "caf", x[num_images()], num_images()\nend program\n' \
        >>"$prefix/caf.f90"
    "$prefix/bin/dmsg-caf" "$prefix/caf.f90" -o "$prefix/caf" >"$out" 2>&1 &&
        timeout 300 "$prefix/bin/dmsg-cafrun" -n 2 "$prefix/caf" >"$out" 2>&1 &&
        grep -q "caf *2 *2" "$out"
    verdict $? "coarrays: installed dmsg-caf builds, dmsg-cafrun runs 2 images"
fi

rm -rf "$prefix"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
