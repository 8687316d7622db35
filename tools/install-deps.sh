#!/bin/sh
# Installs the Debian packages dmsg needs to build, test and benchmark.
# As root: runs apt-get. Otherwise: prints the exact command and fails.
set -e
PKGS="build-essential pkg-config mpich libmpich-dev libfabric-dev libfabric-bin libcriterion-dev gnuplot-nox iproute2 libfftw3-dev libmetis-dev openmpi-bin libopenmpi-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "install-deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq $missing
else
    echo "install-deps: missing Debian packages:$missing" >&2
    echo "install-deps: run:  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
