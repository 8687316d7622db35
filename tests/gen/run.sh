#!/bin/sh
# dmsg-gen end to end: every description of tests/gen/*.dgen and random ones
# (tests/gen/randgen.c) generated with each mechanism, compiled with the
# project's warnings as errors, run under dmsgrun and checked by the
# generated program against its serial evaluation; then the error messages
# (file:line:column) for broken descriptions.
#
#   sh tests/gen/run.sh [BUILD]
set -u
B=${1:-build}
GEN=$B/bin/dmsg-gen
RUN=$B/bin/dmsgrun
CC=${CC:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
passes=0

compile() { # SRC OUT
    $CC -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Iinclude -o "$2" "$1" \
        "$B/lib/libdmsg.a" -pthread -lm -ldl
}

# DESCRIPTION LABEL GEN-OPTIONS...: generate, compile, run, check.
check_program() {
    d=$1
    label=$2
    shift 2
    if ! "$GEN" "$@" -o "$T/p.c" "$d" 2> "$T/err"; then
        echo "FAIL $label: dmsg-gen: $(cat "$T/err")"
        fails=$((fails + 1))
        return
    fi
    if ! compile "$T/p.c" "$T/p" 2> "$T/err"; then
        echo "FAIL $label: the generated code does not compile:"
        head -20 "$T/err"
        fails=$((fails + 1))
        return
    fi
    n=$(sed -n 's/^#define GEN_NPES //p' "$T/p.c")
    if DMSG_TIMEOUT=20 "$RUN" -n "$n" "$T/p" 2 > "$T/out" 2>&1 && grep -q '^OK$' "$T/out"; then
        echo "PASS $label ($n PEs)"
        passes=$((passes + 1))
    else
        echo "FAIL $label ($n PEs):"
        tail -5 "$T/out"
        fails=$((fails + 1))
    fi
}

for d in tests/gen/*.dgen; do
    for m in "--mech direct" "--mech pack" "-m t3d" "-m paragon" "--mech direct --store adp"; do
        # shellcheck disable=SC2086
        check_program "$d" "$(basename "$d") $m" $m
    done
done

# Random statements of the plan property tests, on 1 to 8 PEs.
if compile_rand=$($CC -O1 -std=c11 -Wall -Wextra -Werror -Iinclude -I. -o "$T/randgen" \
    tests/gen/randgen.c 2>&1); then
    for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
        npes=$((seed % 8 + 1))
        "$T/randgen" "$seed" "$npes" > "$T/r$seed.dgen"
        case $((seed % 3)) in
        0) mech="--mech direct" ;;
        1) mech="--mech pack" ;;
        *) mech="-m t3d" ;;
        esac
        # shellcheck disable=SC2086
        check_program "$T/r$seed.dgen" "random seed $seed $mech" $mech
    done
else
    echo "FAIL randgen does not compile: $compile_rand"
    fails=$((fails + 1))
fi

# Every statement of the corpus is also in the plan API's model check on sim
# (tests/pe/plan_corpus.c names each as "FILE: LABEL ..."): a new statement
# must be added there too.
for d in tests/gen/*.dgen; do
    k=0
    for label in $(grep -vE '^[[:space:]]*(#|$|pes |grid |array )' "$d" |
        sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\):.*/\1/p;t;s/.*/-/p'); do
        k=$((k + 1))
        [ "$label" = - ] && label=s$k
        if grep -qF "\"$(basename "$d"): $label " tests/pe/plan_corpus.c; then
            passes=$((passes + 1))
        else
            echo "FAIL $(basename "$d"): statement $label is not in tests/pe/plan_corpus.c"
            fails=$((fails + 1))
        fi
    done
done

# Broken descriptions: the message must name file, line and column.
expect_error() { # TEXT EXPECTED-MESSAGE
    printf '%s\n' "$1" > "$T/bad.dgen"
    if "$GEN" -o "$T/bad.c" "$T/bad.dgen" 2> "$T/err"; then
        echo "FAIL error case accepted: $1"
        fails=$((fails + 1))
    elif grep -qF "$T/bad.dgen:$2" "$T/err"; then
        passes=$((passes + 1))
    else
        echo "FAIL error case: want '$2', got: $(cat "$T/err")"
        fails=$((fails + 1))
    fi
}
G='grid P(4)
array A(16) double dist(block) onto P
array B(16) double dist(cyclic) onto P'
expect_error "$G
B = C" "4:5: error: unknown array 'C'"
expect_error "$G
B(0:15) = A(1:15)" "4:11: error: range 1: 16 elements on the left, 15 on the right"
expect_error "$G
B(0:16) = A" "4:3: error: destination subscript 1 of B: index 16 outside 0..15"
expect_error "$G
B(0:15:0) = A" "4:8: error: step 0"
expect_error "$G
B = A(0:15, 1)" "4:13: error: A has 1 dimensions"
expect_error "$G
A = A" "4:5: error: A on both sides"
expect_error "grid P(4)
array A(16) double dist(blok) onto P" "2:25: error: expected '*', 'block' or 'cyclic', found 'blok'"
expect_error "grid P(4)
array A(16) real dist(block) onto P" "2:13: error: unknown element type 'real'"
expect_error "grid P(4)
array A(16) double dist(block) onto Q" "2:37: error: unknown grid 'Q'"
expect_error "grid P(4)
array A(16) double dist(block(2)) onto P" "2:7: error: array A: a BLOCK(k) too small"
expect_error "grid P(2, 2)
array A(4, 4) double dist(block@1, block@1) onto P" "2:36: error: grid dimension 1 of P used twice"
expect_error "$G
B = transpose(A)" "4:15: error: transpose of a section with 1 ranges, not 2"
expect_error "$G
B = A perm(1)" "4:7: error: perm is not a permutation of 0..0"
expect_error "$G
B = A ;" "4:7: error: unexpected character ';'"
expect_error "grid P(4)
grid P(2)" "2:6: error: 'P' is already declared"
expect_error "pes 2
grid P(4)
array A(16) double dist(block) onto P
array B(16) double dist(block) onto P
B = A" "1:1: error: pes 2 is smaller than a grid of 4 PEs"
expect_error "$G" "4:1: error: no statements"

echo "dmsg-gen: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
