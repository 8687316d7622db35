#!/bin/sh
# Installs the Debian packages dmsg needs to build, test and benchmark, on a
# machine as bare as a fresh minimal Debian 12 (no make, no compiler).
# As root: apt-get. Otherwise through sudo where it exists; else it prints
# the exact command and fails. apt's own output (about a thousand lines on a
# fresh machine) goes to build/install-deps.log; the terminal gets one line
# saying what is being installed, and the log's end if it fails.
# --check: installs nothing; names the missing packages and the command that
# installs them, and fails (make runs this before it builds anything).
set -e
check=0
[ "${1:-}" = --check ] && check=1
# libfftw3-dev, libmetis-dev, libopenmpi-dev: the kernels (2D-FFT, FEM mesh
# partitioning, OpenSHMEM variants). openmpi-bin and libpmix-dev: dmsg joins
# jobs started by Open MPI's mpirun (and Slurm's srun) through PMIx; the tests
# start it that way too. OFI=0 (make OFI=0): the build without the libfabric
# transport needs no libfabric.
PKGS="build-essential pkg-config mpich libmpich-dev libcriterion-dev gnuplot-nox iproute2
libfftw3-dev libmetis-dev openmpi-bin libopenmpi-dev libpmix-dev time
gfortran libcoarrays-mpich-dev libcoarrays-openmpi-dev pvm pvm-dev pvm-examples"
[ "${OFI:-1}" = 0 ] || PKGS="$PKGS libfabric-dev libfabric-bin"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ $check = 1 ]; then
    echo "install-deps: missing Debian packages:$missing" >&2
    echo "install-deps: install them first:  sh tools/install-deps.sh   (make installs nothing)" >&2
    exit 1
fi

if [ "$(id -u)" = 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "install-deps: missing Debian packages:$missing" >&2
    echo "install-deps: run as root:  apt-get update && apt-get install -y$missing" >&2
    exit 1
fi
log=build/install-deps.log
mkdir -p build
echo "install-deps: installing$missing (apt-get; log: $log)"
export DEBIAN_FRONTEND=noninteractive
if ! { $as_root apt-get update && $as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y $missing; } >"$log" 2>&1; then
    tail -n 20 "$log" | sed 's/^/    | /' >&2
    echo "install-deps: apt-get failed (whole output: $log); to retry by hand:" >&2
    echo "install-deps:   ${as_root:+$as_root }apt-get update && ${as_root:+$as_root }apt-get install -y$missing" >&2
    exit 1
fi
echo "install-deps: done"
