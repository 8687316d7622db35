#!/bin/sh
# The multi-PE integration suite over the ofi transport, once per provider.
# Usage: sh tests/ofi/integ.sh BUILD PROVIDER...   (e.g. shm 'tcp;ofi_rxm')
set -e
build=$1
shift
for p in "$@"; do
    echo "== integ over ofi, provider $p"
    DMSG_TRANSPORT=ofi DMSG_OFI_PROVIDER="$p" DMSG_BUILD="$build" "$build/tests/integ" --jobs 1
done
