#!/bin/sh
# The application kernels in every variant at a small size, checked against
# their serial references (tools/dmsg-ab --check; docs/kernels.md):
#   shm: every dmsg, postal, RRMSG, MPI and OpenSHMEM variant on 2 and 4 PEs
#   sim: the dmsg-based variants on a simulated T3D and iWarp, 4 PEs
#   ofi: the dmsg-based variants over libfabric (automatic provider), 2 PEs
# A cell passes when its program verified the result; timings are not judged.
#
#   sh tests/kernels/run.sh [BUILD_DIR]
BUILD=${1:-build}
AB="sh tools/dmsg-ab --check -B $BUILD -T 600"  # a hang catcher, not a speed bound
rc=0
echo "== kernels on shm (2, 4 PEs)"
$AB -t shm -p 2,4 -o "$BUILD/ab-check/shm" || rc=1
echo "== kernels on sim (T3D, iWarp; 4 PEs)"
$AB -t sim -m t3d,iwarp -p 4 -V dmsg,postal,rr -o "$BUILD/ab-check/sim" || rc=1
echo "== kernels on ofi (2 PEs)"
$AB -t ofi -p 2 -V dmsg,postal,rr -o "$BUILD/ab-check/ofi" || rc=1
[ $rc -eq 0 ] && echo "kernels: all cells verified" || echo "kernels: FAILED cells above"
exit $rc
