#!/bin/sh
# The layering of dmsg/ (docs/running.md, "Layers"): a file may include
# headers of its own folder and of lower layers only, and folders of one
# layer (the transports) must not include each other both ways.
# Usage: sh tests/layers.sh [SRCDIR]   (prints every violation; exit 1 if any)
cd "${1:-.}" || exit 2

# Layer of a folder under dmsg/ (first path component; transports by their
# own folder). Higher numbers may include lower ones.
rank() {
    case $1 in
    base) echo 0 ;;
    xfer | model | boot) echo 1 ;;
    transport | transport/*) echo 2 ;;
    core) echo 3 ;;
    coll) echo 4 ;;
    postal | plan) echo 5 ;;
    front | front/*) echo 6 ;;
    *) echo unknown ;;
    esac
}

# Folder of a path under dmsg/: transport/NAME for a transport, else the top folder.
folder() {
    case $1 in
    dmsg/transport/*/*) echo "$1" | cut -d/ -f2,3 ;;
    *) echo "$1" | cut -d/ -f2 ;;
    esac
}

bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in $(find dmsg -name '*.[ch]' | sort); do
    from=$(folder "$f")
    rf=$(rank "$from")
    if [ "$rf" = unknown ]; then
        echo "layers: $f: folder dmsg/$from has no layer (add it to tests/layers.sh and docs/running.md)"
        bad=1
        continue
    fi
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(dmsg\/[^"]*\)".*/\1/p' "$f"); do
        to=$(folder "$inc")
        [ "$to" = "$from" ] && continue
        rt=$(rank "$to")
        if [ "$rt" = unknown ] || [ "$rt" -gt "$rf" ]; then
            echo "layers: $f includes $inc: dmsg/$from (layer $rf) may not include dmsg/$to (layer $rt)"
            bad=1
        elif [ "$rt" -eq "$rf" ] && [ "$to" != transport ]; then
            echo "$from $to" >>"$edges"
        fi
    done
done
# Same-layer includes (one transport built on another) must not form a circle.
sort -u "$edges" | while read -r a b; do
    if grep -qx "$b $a" "$edges"; then
        echo "layers: dmsg/$a and dmsg/$b include each other"
        exit 1
    fi
done || bad=1
[ $bad -eq 0 ] && echo "layers: OK ($(find dmsg -name '*.[ch]' | wc -l) files)"
exit $bad
