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
# count). -mllvm -hotprof-dual-indirect=single keeps the former single copy; a bad value is one
# clear message.
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

for h in dual-functions dual-blocks dual-memory dual-all; do
    "$HP" cc --hooks=$h -O2 -o $h "$SRC" || { fail "$h: build"; continue; }
    python3 "$ROOT/tests/e2e/check_dual_indirect.py" $h run "$h run"
    python3 "$ROOT/tests/e2e/check_dual_indirect.py" $h run_threaded "$h run_threaded" --sites-only

    HOTPROF_OUTPUT=$h.data ./$h $N >$h.exh.out
    check_eq "$h exhaustive: same output as native" "$(cat $h.exh.out)" "$(cat want.out)"
    "$HP" report --format json --top 0 $h.data >$h.json
    blocks=--blocks; [ $h = dual-functions ] && blocks=
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
    sampled=$(field_of $h.count.json run sampled) est=$(field_of $h.count.json run heat) exh=$(field_of $h.json run heat)
    # 1 event in 100 recorded, ~1700 samples: the estimate of run's heat (calls + back-edges) is
    # within a few % of the exhaustive count; 25% is > 8 standard deviations
    if [ "$sampled" -gt 0 ] && python3 -c "import sys; sys.exit(abs($est / $exh - 1) > 0.25)"; then
        ok "$h count: samples in run ($sampled sampled; heat estimate $est, exhaustive $exh)"
    else fail "$h count: samples in run" "sampled '$sampled', heat estimate '$est', exhaustive '$exh'"; fi
done

# -hotprof-dual-indirect=single: the former one copy with live hooks (no site of run's own)
"$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-indirect=single -o single "$SRC" -Wno-unused-command-line-argument &&
    HOTPROF_OUTPUT=single.data ./single $N >single.out || fail "single: build and run"
check_eq "single: same output as native" "$(cat single.out)" "$(cat want.out)"
if python3 "$ROOT/tests/e2e/check_dual_indirect.py" single run single --sites-only | grep -q '(0 entry, 0 back-edge)'; then
    ok "single: run has one copy (no site of its own)"
else fail "single: run has one copy" "$(python3 "$ROOT/tests/e2e/check_dual_indirect.py" single run single --sites-only)"; fi
check_fails_cleanly "bad -hotprof-dual-indirect value" "hotprof-dual-indirect=bogus is not one of clone\|single" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-indirect=bogus -o bogus "$SRC"
