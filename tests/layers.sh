#!/bin/sh
# The layering of dmsg/ (docs/running.md, "Layers"): a file may include
# headers of its own folder and of lower layers only, and folders of one
# layer (the transports) must not include each other both ways; and the
# capability rule: no transport's name is compared outside dmsg/transport/.
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
# The capability rule (docs/running.md, "Adding a transport"): above the
# transports, and in the tools where they decide what to do, code asks what
# the running transport can do (dmsg/core/caps.h), never its name: no C
# source outside dmsg/transport/ compares a transport's name (a string of a
# transport folder's name, or dmsg_transport_name()). Printing it is fine.
tps=$(find dmsg/transport -mindepth 1 -maxdepth 1 -type d | sed 's|.*/||' | sort | paste -sd'|' -)
if [ -n "$tps" ]; then
    named="(\"($tps)\"|dmsg_transport_name[[:space:]]*\()"
    cmp="(str(n|case|ncase)?cmp|strstr|memcmp)[[:space:]]*\([^;]*$named|[!=]=[[:space:]]*\"($tps)\""
    for f in $(find dmsg tools examples -name '*.[ch]' ! -path 'dmsg/transport/*' 2>/dev/null | sort); do
        grep -nE "$cmp" "$f" | while IFS= read -r hit; do
            echo "layers: $f:${hit%%:*}: compares a transport's name; ask its capabilities (dmsg/core/caps.h)"
        done | grep . && bad=1
    done
fi
[ $bad -eq 0 ] && echo "layers: OK ($(find dmsg -name '*.[ch]' | wc -l) files)"
exit $bad
