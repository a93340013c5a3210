#!/usr/bin/env bash
# test_dual_indirect.sh — two-version code for functions with computed goto (indirectbr and
# blockaddress users: plugin/dual_indirect.cpp, docs/dual.md "Computed goto"). progs/
# dual_computed_goto.c has a table-dispatched interpreter `run` (goto *table[op]) and a
# direct-threaded `run_threaded` (label addresses stored to memory). For each dual hook set:
# both functions have their own entry and back-edge sites (two copies in one body, not one copy
# with live hooks), `run` dispatches from two tables with disjoint targets (each copy's gotos
# stay in that copy), the output equals native's in modes exhaustive, off, patch, live and count;
# exhaustive counts equal the plain --hooks=blocks build's (calls, call pairs, blocks, edges,
# back-edges); and count mode records samples in `run` (its heat estimate near the exhaustive
# count). With -mllvm -hotprof-dual-indirect=separate (every dual hook set): `run` has only its
# entry nop, jumping to run.hotprof, and each function's tables name only its own blocks;
# run_threaded keeps the one-body form; the same outputs and exhaustive counts, and count mode's
# estimate of a callee's heat (run's back-edges are not counted there: docs/dual.md).
# -mllvm -hotprof-dual-indirect=single keeps the former single copy; a bad value is one clear
# message.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual indirect: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
SRC="$P/dual_computed_goto.c"
N=3000
LONG=200000 # patch mode: bursts are placed in time, so a longer run

clang -O2 -o native "$SRC" && ./native $N >want.out && ./native $LONG >want_long.out || fail "native build"
"$HP" cc --hooks=blocks -O2 -o blocks "$SRC" && HOTPROF_OUTPUT=blocks.data ./blocks $N >/dev/null &&
    "$HP" report --format json --top 0 blocks.data >blocks.json || fail "blocks build"

# FIELD of FUNCTION's methods row in a JSON report (0 when absent)
field_of() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(m.get(sys.argv[3], 0) for m in d["methods"] if m["function"] == sys.argv[2]))' "$1" "$2" "$3"
}

# check_build NAME HOOKS [separate]: build NAME with HOOKS (with "separate":
# -hotprof-dual-indirect=separate) and check its sites and tables, its output in every mode and its
# exhaustive counts
check_build() {
    local h=$1 hooks=$2 form=${3:-clone}
    "$HP" cc --hooks=$hooks -O2 -mllvm -hotprof-dual-indirect=$form -Wno-unused-command-line-argument \
        -o $h "$SRC" || { fail "$h: build"; return; }
    if [ $form = separate ]; then
        python3 "$ROOT/tests/e2e/check_dual_indirect.py" $h run "$h run" --separate
    else python3 "$ROOT/tests/e2e/check_dual_indirect.py" $h run "$h run"; fi
    # run_threaded stores its label addresses: never the separate form (a stored address could
    # reach the other function), the one-body form with both copies' destinations
    python3 "$ROOT/tests/e2e/check_dual_indirect.py" $h run_threaded "$h run_threaded" --sites-only
    # gen's resume address outlives its frame: never a separate clone (it would reach the other function)
    if nm $h | grep -q ' gen$' && ! nm $h | grep -q ' gen\.hotprof$'; then ok "$h gen: one function, no separate clone"
    else fail "$h gen: one function, no separate clone" "$(nm $h | grep ' gen')"; fi

    HOTPROF_OUTPUT=$h.data ./$h $N >$h.exh.out
    check_eq "$h exhaustive: same output as native" "$(cat $h.exh.out)" "$(cat want.out)"
    "$HP" report --format json --top 0 $h.data >$h.json
    blocks=--blocks; [ $hooks = dual-functions ] && blocks=
    python3 "$ROOT/tests/e2e/check_dual.py" blocks.json $h.json "$h exhaustive vs blocks" $blocks

    check_eq "$h off: same output as native" "$(HOTPROF_MODE=off ./$h $N)" "$(cat want.out)"
    "$HP" run --bursts patch -o $h.patch.data --sample methods:period=99,burst=1 -- ./$h $LONG >$h.patch.out
    check_eq "$h patch: same output as native" "$(cat $h.patch.out)" "$(cat want_long.out)"
    "$HP" run --bursts live -o $h.live.data --sample methods:period=99,burst=1 -- ./$h $N >$h.live.out
    check_eq "$h live: same output as native" "$(cat $h.live.out)" "$(cat want.out)"
    "$HP" run --bursts count -o $h.count.data --sample methods:period=99,burst=1 \
        --sample callpairs:period=99,burst=1 -- ./$h $N >$h.count.out
    check_eq "$h count: same output as native" "$(cat $h.count.out)" "$(cat want.out)"
    "$HP" report --format json --top 0 $h.count.data >$h.count.json
    # the separate form's clean run has no back-edge site: count mode sees only its calls, so
    # check the heat of mix (calls only, ~840 samples) there; else run's (calls + back-edges)
    local fn=run; [ $form = separate ] && fn=mix
    sampled=$(field_of $h.count.json $fn sampled) est=$(field_of $h.count.json $fn heat) exh=$(field_of $h.json $fn heat)
    # 1 event in 100 recorded, ~1700 samples in run: the estimate of its heat (calls +
    # back-edges) is within a few % of the exhaustive count; 25% is > 8 standard deviations
    if [ "$sampled" -gt 0 ] && python3 -c "import sys; sys.exit(abs($est / $exh - 1) > 0.25)"; then
        ok "$h count: samples in $fn ($sampled sampled; heat estimate $est, exhaustive $exh)"
    else fail "$h count: samples in $fn" "sampled '$sampled', heat estimate '$est', exhaustive '$exh'"; fi
}

for h in dual-functions dual-blocks dual-memory dual-all; do check_build $h $h; done
for h in dual-functions dual-blocks dual-memory dual-all; do check_build $h-separate $h separate; done

# -hotprof-dual-indirect=single: the former one copy with live hooks (no site of run's own)
"$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-indirect=single -o single "$SRC" -Wno-unused-command-line-argument &&
    HOTPROF_OUTPUT=single.data ./single $N >single.out || fail "single: build and run"
check_eq "single: same output as native" "$(cat single.out)" "$(cat want.out)"
if python3 "$ROOT/tests/e2e/check_dual_indirect.py" single run single --sites-only | grep -q '(0 entry, 0 back-edge)'; then
    ok "single: run has one copy (no site of its own)"
else fail "single: run has one copy" "$(python3 "$ROOT/tests/e2e/check_dual_indirect.py" single run single --sites-only)"; fi
check_fails_cleanly "bad -hotprof-dual-indirect value" "hotprof-dual-indirect=bogus is not one of clone\|separate\|single" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-indirect=bogus -o bogus "$SRC"
