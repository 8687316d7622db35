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

# Periodic CYCLIC(a) -> CYCLIC(b) patterns fold into a few pieces per period
# (docs/compiler.md): the generated code runs and is correct, and its size does
# not grow with the array (4M elements: a few KiB, where one piece per run of
# elements made megabytes).
periodic() { # N
    cat << EOF
grid L(4)
grid G(2, 2)
array A($1) double dist(cyclic(2)) onto L
array B($1) double dist(cyclic(3)) onto L
array C($1) int32 dist(cyclic(16)) onto L
array D($1) int32 dist(cyclic(5)) onto L
array M(300, 200) float dist(cyclic(2), cyclic(3)) onto G
array N(300, 200) float dist(cyclic(3), cyclic(2)) onto G
c23: B = A
c16_5: D = C
c5_16: C(1:$(($1 - 1))) = D(0:$(($1 - 2)))
m2n: N = M
EOF
}
periodic 100003 > "$T/periodic.dgen"
for m in "--mech direct" "--mech pack" "-m t3d"; do
    # shellcheck disable=SC2086
    check_program "$T/periodic.dgen" "periodic.dgen $m" $m
done
# Packed pairs add their period loops (the runs of a period written out, per
# pair and direction: about 15 KiB for these four statements on 4 PEs).
periodic 4194304 > "$T/big.dgen"
for m in "--mech direct:64" "--mech pack:96"; do
    kib=${m#*:}
    m=${m%:*}
    # shellcheck disable=SC2086
    if "$GEN" $m -o "$T/big.c" "$T/big.dgen" 2> "$T/err"; then
        size=$(wc -c < "$T/big.c")
        if [ "$size" -le $((kib * 1024)) ]; then
            echo "PASS periodic statements of 4M elements $m: $size bytes of C"
            passes=$((passes + 1))
        else
            echo "FAIL periodic statements of 4M elements $m: $size bytes of C (over $kib KiB)"
            fails=$((fails + 1))
        fi
    else
        echo "FAIL periodic statements of 4M elements $m: $(cat "$T/err")"
        fails=$((fails + 1))
    fi
done
# Packed, a pair's periodic pieces are gathered and scattered by a loop over
# the periods with the runs of one period written out, not by a loop per
# piece (CYCLIC(16) -> CYCLIC(5) on 4 PEs: 3-4 pieces, 5 runs a period).
if grep -q '^static void c16_5_gather_[0-9]*(char \*buf, const char \*src)$' "$T/big.c" &&
    grep -q '^    for (size_t r = 0; r < [0-9]*; r++, o += 320, buf += 80) {$' "$T/big.c"; then
    echo "PASS periodic statements --mech pack: loops over the periods"
    passes=$((passes + 1))
else
    echo "FAIL periodic statements --mech pack: no loop over the periods for c16_5"
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

# Broken descriptions: the message must name file, line and column, and say
# what is wrong (or not supported).
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

expect_error "$G
B = A + A" "4:7: error: found '+': expressions (operators, constants, parentheses) are not supported"
expect_error "$G
B = 2 * A" "4:5: error: found '2': expressions"
expect_error "$G
B = A(0:15) / A" "4:13: error: found '/': expressions"
expect_error "$G
B = sum(A)" "4:5: error: 'sum' is not an array: function calls are not supported"
expect_error "$G
array I(16) int32 dist(block) onto P
B = A(I)" "5:7: error: A(I): subscripts through an index array (gathers and scatters) are not supported"
expect_error "$G
B(i) = A" "4:3: error: subscript 'i': names in subscripts are not supported"
expect_error "$G
B(0:14) = A(0+1:15)" "4:14: error: '+' in a subscript: arithmetic in subscripts is not supported"
expect_error "grid P(4)
array A(16) double dist(block) onto P halo(1)
array B(16) double dist(cyclic) onto P
B(0:15) = A(-1:14)" "4:13: error: source subscript 1 of A: index -1 is in the declared halo: addressing a halo is not supported"
# The limits of a statement (docs/compiler.md 9), refused before anything is built.
expect_error "grid P(4)
array A(1099511627776) double dist(cyclic(3)) onto P
array B(1099511627776) double dist(block) onto P
B = A" "4:1: error: statement s1: the section of A touches 366503875926 distribution blocks"
expect_error "grid G(2, 2)
array A(3000000, 3000000) int8 dist(cyclic(997), cyclic(997)) onto G
array B(3000000, 3000000) int8 dist(cyclic(1009), cyclic(1009)) onto G
B = A" "4:1: error: statement s1: more than 262144 pieces"

# Inputs and command lines that are not descriptions: the message says why.
expect_fail() { # LABEL EXPECTED-MESSAGE COMMAND...
    label=$1
    want=$2
    shift 2
    if "$@" > "$T/out" 2> "$T/err"; then
        echo "FAIL $label: accepted"
        fails=$((fails + 1))
    elif grep -qF -- "$want" "$T/err"; then
        passes=$((passes + 1))
    else
        echo "FAIL $label: want '$want', got: $(cat "$T/err")"
        fails=$((fails + 1))
    fi
}
printf 'grid P(4)\nar\000ray A(16) double dist(block) onto P\n' > "$T/nul.dgen"
expect_fail "NUL byte" "$T/nul.dgen:2:3: error: a NUL byte" "$GEN" -o "$T/x.c" "$T/nul.dgen"
expect_fail "directory" "dmsg-gen: $T: is a directory" "$GEN" -o "$T/x.c" "$T"
expect_fail "missing file" "$T/none.dgen: No such file or directory" "$GEN" -o "$T/x.c" "$T/none.dgen"
# -m: --help lists the machines that -m accepts, and -m refuses others naming them.
machines=$("$GEN" --help | sed -n 's/.*a built-in (\([^)]*\)).*/\1/p' | tr -d ,)
if [ -z "$machines" ]; then
    echo "FAIL --help lists no built-in machines"
    fails=$((fails + 1))
fi
for m in $machines; do
    if "$GEN" -m "$m" -o "$T/x.c" tests/gen/shift.dgen 2> "$T/err"; then
        passes=$((passes + 1))
    else
        echo "FAIL --help lists machine $m, -m refuses it: $(cat "$T/err")"
        fails=$((fails + 1))
    fi
done
expect_fail "-m t3e" "unknown machine 't3e'" "$GEN" -m t3e -o "$T/x.c" tests/gen/shift.dgen
expect_fail "-m t3e lists the built-ins" "t3e-scap, t3e-vscap" "$GEN" -m t3e -o "$T/x.c" \
    tests/gen/shift.dgen

# A statement of any length: 3000 continued lines and 300 blanks in one
# statement, generated, compiled and run; its comment is the statement.
{
    echo 'grid P(4)'
    echo 'array A(16) double dist(block) onto P'
    echo 'array B(16) double dist(cyclic) onto P'
    printf 'B(0:15'
    i=0
    while [ $i -lt 3000 ]; do
        printf ' \\\n'
        i=$((i + 1))
    done
    printf ') = A(0%300s:15)\n' ''
} > "$T/long.dgen"
check_program "$T/long.dgen" "long statement" --mech direct
if grep -qF '): B(0:15 ) = A(0 :15)' "$T/p.c"; then
    passes=$((passes + 1))
else
    echo "FAIL long statement: its comment is not the statement"
    fails=$((fails + 1))
fi

# Replicated arrays (* in every dimension): a copy on every PE of the grid.
# A statement into one is a broadcast (every PE receives deposits), one from
# one reads each PE's own copy; the driver checks every copy.
cat > "$T/repl.dgen" << 'EOF'
grid P(4)
array A(37) double dist(cyclic(3)) onto P
array R(37) double dist(*) onto P
array S(37) double dist(*) onto P
array M(6, 5) int32 dist(block, *) onto P
array N(6, 5) int32 dist(*, *) onto P
bcast: R = A
back:  A(0:36:2) = R(36:0:-2)
copy:  S = R
b2:    N = M
EOF
for m in "--mech direct" "--mech pack" "--mech direct --store adp"; do
    # shellcheck disable=SC2086
    check_program "$T/repl.dgen" "replicated arrays $m" $m
    for st in bcast b2; do
        if grep -qE "^static const uint64_t ${st}_recv\[GEN_NPES\] = \{[1-9][0-9]*(, [1-9][0-9]*)*\};" \
            "$T/p.c"; then
            passes=$((passes + 1))
        else
            echo "FAIL replicated arrays $m: $st is not a broadcast: $(grep "${st}_recv\[GEN" "$T/p.c")"
            fails=$((fails + 1))
        fi
    done
done

echo "dmsg-gen: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
