#!/usr/bin/env bash
# test_dual_default_sites.sh — the sites `hotprof cc` gives a dual build when not told (session 39;
# docs/dual.md *Which sites by default*), with HOTPROF_DUAL_SITES unset as a user has it (the other
# tests set it to nop, tests/e2e/lib.sh):
#   - dual-functions and dual-blocks get inline count sites; dual-memory and dual-all nop sites; an
#     explicit --dual-latch=branch (it switches nops) nop sites with latch branches;
#   - HOTPROF_DUAL_SITES=nop|count is the default of every dual set and ignored by the others;
#     --dual-sites and --dual-latch=branch override it;
#   - the default build under the default run (`hotprof run --sample ...`, count mode) prints native's
#     output and records B/(B+S) (+-10%) of its events; `--bursts patch` on it says once that it takes
#     count-triggered bursts.
. "$(dirname "$0")/lib.sh"
unset HOTPROF_DUAL_SITES
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual default sites: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
P="$ROOT/tests/e2e/progs"
C="$ROOT/tests/e2e/check_dual_count.py"
cd "$T" || exit 1

# Latch branch records (__hotprof_dualbr, 16 bytes each: the --dual-latch=branch form) of a binary.
latch_branches_in() {
    objcopy -O binary --only-section=__hotprof_dualbr "$1" br.bin 2>/dev/null || { echo 0; return; }
    echo $(($(stat -c %s br.bin) / 16))
}
# build NAME [hotprof cc options...]: dual_count_phases.c as NAME
build() { local out=$1; shift; "$HP" cc "$@" -O2 -o "$out" "$P/dual_count_phases.c" -lm; }

for hs in dual-functions dual-blocks; do
    build "d.$hs" --hooks=$hs || { fail "$hs: default build"; continue; }
    check "$hs: count sites by default" test "$(dual_count_sites_in "d.$hs")" -gt 0
    check_eq "$hs: no latch branches by default" "$(latch_branches_in "d.$hs")" 0
    HOTPROF_DUAL_SITES=nop build "n.$hs" --hooks=$hs || { fail "$hs: HOTPROF_DUAL_SITES=nop build"; continue; }
    check_eq "$hs: HOTPROF_DUAL_SITES=nop: nop sites" "$(dual_count_sites_in "n.$hs")" 0
    check "$hs: HOTPROF_DUAL_SITES=nop: latch branches" test "$(latch_branches_in "n.$hs")" -gt 0
    build "b.$hs" --hooks=$hs --dual-latch=branch || { fail "$hs: --dual-latch=branch build"; continue; }
    check_eq "$hs: --dual-latch=branch: nop sites" "$(dual_count_sites_in "b.$hs")" 0
    check "$hs: --dual-latch=branch: latch branches" test "$(latch_branches_in "b.$hs")" -gt 0
    HOTPROF_DUAL_SITES=nop build "o.$hs" --hooks=$hs --dual-sites=count || { fail "$hs: option over env"; continue; }
    check "$hs: --dual-sites=count over HOTPROF_DUAL_SITES=nop" test "$(dual_count_sites_in "o.$hs")" -gt 0
    HOTPROF_DUAL_SITES=count build "l.$hs" --hooks=$hs --dual-latch=branch || { fail "$hs: latch option over env"; continue; }
    check_eq "$hs: --dual-latch=branch over HOTPROF_DUAL_SITES=count: nop sites" "$(dual_count_sites_in "l.$hs")" 0
done
for hs in dual-memory dual-all; do
    build "d.$hs" --hooks=$hs || { fail "$hs: default build"; continue; }
    check_eq "$hs: nop sites by default" "$(dual_count_sites_in "d.$hs")" 0
    HOTPROF_DUAL_SITES=count build "c.$hs" --hooks=$hs || { fail "$hs: HOTPROF_DUAL_SITES=count build"; continue; }
    check "$hs: HOTPROF_DUAL_SITES=count: count sites" test "$(dual_count_sites_in "c.$hs")" -gt 0
done
check "HOTPROF_DUAL_SITES=count is ignored by --hooks=blocks" env HOTPROF_DUAL_SITES=count "$HP" cc --hooks=blocks \
    -O2 -o blk "$P/dual_count_phases.c" -lm

# the default build, the default run
ARGS="400 400000"
clang -O2 -o ph.native "$P/dual_count_phases.c" -lm && ./ph.native $ARGS >want
M999="--sample methods:period=999,burst=1"
json() { "$HP" report --format json --top 0 "$1" >"$2"; }
for hs in dual-functions dual-blocks; do
    [ -x "d.$hs" ] || continue
    HOTPROF_OUTPUT=ex.data "./d.$hs" $ARGS >ex.out && json ex.data ex.json
    check_eq "$hs default build: exhaustive: native's output" "$(cat ex.out)" "$(cat want)"
    "$HP" run -q $M999 -o s.data -- "./d.$hs" $ARGS >s.out && json s.data s.json
    check_eq "$hs default build, default run: native's output" "$(cat s.out)" "$(cat want)"
    check_eq "$hs default build, default run: INFO dual.count_sites" \
        "$("$HP" info s.data | awk '$1 == "dual.count_sites" {print $2}')" "$(dual_count_sites_in "d.$hs")"
    python3 "$C" share ex.json s.json "$hs default build, default run 1/1000"
    env -u HOTPROF_QUIET "$HP" run --bursts patch $M999 -o p.data -- "./d.$hs" $ARGS >p.out 2>p.err
    check_eq "$hs default build: --bursts patch: native's output" "$(cat p.out)" "$(cat want)"
    check_eq "$hs default build: --bursts patch: says count-triggered instead, once" \
        "$(grep -c 'inline count sites.*count-triggered' p.err)" 1
done
