#!/usr/bin/env bash
# test_dual_count_version.sh — counted loops without a count per iteration (the dual plugin's
# -hotprof-dual-count-version=on, the default with count sites; docs/dual.md *Loops that need no
# count*, plugin/dual_countver.h), on progs/dual_count_version.c, built with dual-functions and
# dual-blocks:
#   - the loops scalar evolution bounds get a copy without their site (match: a constant bound;
#     checksum: a bound computed at run time; countdown: an induction variable counting down; spin:
#     the latch form `top`; under dual-blocks countdown's only); collatz's loop (no bound) does not;
#   - the same output in off, exhaustive and count mode, at 1/1000 and at 1/8 (sites then fire
#     inside the loops' runs, and the copy is often not taken);
#   - count mode counts every event: within one arming of the exhaustive calls + back-edges (a
#     count off by one per run of a loop is off by tens of thousands here), with the recorded
#     share B/(B+S) and each function's heat at 1/8 within 1 point of the exhaustive one;
#   - switched off, the build executes fewer instructions than the same build with
#     -hotprof-dual-count-version=off (callgrind; the decrement and branch per back-edge are gone:
#     5% fewer with dual-functions);
#   - the builds themselves: bounded_copy and sextets once crashed the compiler (a cut label seen
#     as a predecessor by scalar evolution; LLVM's empty-block folding in the copy);
#   - -hotprof-dual-count-version=bad refused.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
C="$ROOT/tests/e2e/check_dual_count.py"
SRC="$P/dual_count_version.c"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "no dual plugin here: nothing to version"; exit 0; }

check_fails_cleanly "cc: -hotprof-dual-count-version=bad refused" "count-version=bad is not one of on|const|off" \
    "$HP" cc --hooks=dual-functions --dual-sites=count -O2 -mllvm -hotprof-dual-count-version=bad -c -o x.o "$SRC"

json() { "$HP" report --format json --top 0 "$1" >"$2"; }
# Versioned loops of function $2 in IR file $1: the copy's test, named hp.nocount.
versioned_in() { awk -v f="@$2(" 'index($0, "define") == 1 && index($0, f) {on = 1} on && /^}/ {on = 0} on' "$1" |
    grep -c 'hp\.nocount = '; }
ARGS="20000 10"
clang -O2 -o native "$SRC" && ./native $ARGS >want || { fail "native build"; exit 0; }
for hs in dual-functions dual-blocks; do
    "$HP" cc --hooks=$hs --dual-sites=count -O2 -o "v.$hs" "$SRC" &&
        "$HP" cc --hooks=$hs --dual-sites=count -O2 -mllvm -hotprof-dual-count-version=off -o "nv.$hs" "$SRC" &&
        "$HP" cc --hooks=$hs --dual-sites=count -O2 -fno-discard-value-names -S -emit-llvm -o "v.$hs.ll" "$SRC" ||
        { fail "$hs: builds"; continue; }
    # (dual-blocks' one-body form enters a loop's preheader from the instrumented copy too: the
    # start of match's, checksum's and spin's counters is a phi there, their bounds may wrap, and
    # such loops keep their sites; countdown's bound is a small constant)
    fns="match checksum countdown spin"; [ $hs = dual-blocks ] && fns=countdown
    for f in $fns; do
        check "$hs: $f's loop has a copy without its site" test "$(versioned_in "v.$hs.ll" $f)" -gt 0
    done
    check_eq "$hs: collatz's loop (no bound) has none" "$(versioned_in "v.$hs.ll" collatz)" 0
    check_eq "$hs: off: same output" "$(HOTPROF_MODE=off "./v.$hs" $ARGS)" "$(cat want)"
    check_eq "$hs: version off: same output" "$(HOTPROF_MODE=off "./nv.$hs" $ARGS)" "$(cat want)"
    HOTPROF_OUTPUT=ex.data "./v.$hs" $ARGS >ex.out && json ex.data ex.json
    check_eq "$hs: exhaustive: same output" "$(cat ex.out)" "$(cat want)"
    for p in 999 7; do
        "$HP" run -q --bursts count --sample methods:period=$p,burst=1 -o c$p.data -- "./v.$hs" $ARGS >c$p.out &&
            json c$p.data c$p.json
        check_eq "$hs: count 1/$((p + 1)): same output" "$(cat c$p.out)" "$(cat want)"
        python3 "$C" share ex.json c$p.json "$hs versioned loops 1/$((p + 1))"
        python3 "$C" events ex.json c$p.json $((2 * (p + 1))) "$hs versioned loops 1/$((p + 1)) (one arming)"
    done
    python3 "$C" shares ex.json c7.json 0.01 "$hs versioned loops 1/8"
    if command -v valgrind >/dev/null; then
        for b in v nv; do
            HOTPROF_MODE=off HOTPROF_OUTPUT=/dev/null valgrind --tool=callgrind --callgrind-out-file="cg.$b" \
                "./$b.$hs" 20000 4 >/dev/null 2>&1
        done
        iv=$(awk '/^summary:/ {print $2}' cg.v) inv=$(awk '/^summary:/ {print $2}' cg.nv)
        want=$(( ${inv:-0} * 95 / 100 )); [ $hs = dual-blocks ] && want=${inv:-0} # (one loop there)
        check "$hs: off: fewer instructions with the copies (${iv:-?} against ${inv:-?})" \
            test "${iv:-1}" -lt "$want"
    fi
done
