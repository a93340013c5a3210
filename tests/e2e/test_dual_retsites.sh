#!/usr/bin/env bash
# test_dual_retsites.sh — return sites (`hotprof cc --dual-return-sites=on`, the plugin's
# -hotprof-dual-return-sites=on; docs/dual.md "Return sites"): a site after each call in the clean
# copies, which count mode's subpaths use so that a burst returning into a clean caller is not cut.
# On progs/dual_retsites.c (main's hot loop calls inner(), whose own loop is where pre-arming
# starts, so main runs clean when a burst begins), built --hooks=dual-blocks with and without:
#   - the build with return sites has more dual sites; the output equals native's in every mode
#     (off, exhaustive, live, patch, count with methods, count with subpaths; also dual-functions
#     and --dual-sites=count builds with return sites);
#   - exhaustive counts are the build without return sites' (calls, call pairs, back-edges,
#     blocks, edges);
#   - count mode with subpaths: subpath.cut 0 with return sites (> 0 without), and the subpaths
#     that cross inner()'s return into main estimated within 5% of the exhaustive count
#     (check_retsites.py; without return sites they come out far too low: < 50%);
#   - subpath.prearm 0 with return sites (the crossing check above then holds without
#     pre-arming), 4 without; the report says the blocks are estimated, and without return sites
#     how many subpaths were cut and that --dual-return-sites=on follows returns;
#   - a return out of every module of ours is not a cut (ctl/dual_text.c): progs/osp_loop.c with
#     200 short threads in turn (each thread's start routine returns into libc, often with a burst
#     on), built with return sites: subpath.cut 0 in two runs (4-13 before, one per such end);
#   - dual.count.events (calls + back-edges counted) equal with and without return sites, with
#     methods alone and with methods and subpaths (return sites are not events).
# Without the feature (return sites off or not honoured by the runtime) the cut and crossing
# checks fail.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
P="$ROOT/tests/e2e/progs"
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || exit 0

M999="--sample methods:period=999,burst=1"
N=300000
json() { "$HP" report --format json --top 0 "$1" >"$2"; }
sjson() { "$HP" report --type subpath --format json --top 0 "$1" >"$2"; }
info() { "$HP" info "$1" | awk -v k="$2" '$1 == k {print $2}'; }
tot() { python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['totals']; print(t['calls'], t['call_pairs'], t['backedges'], t['blocks'], t['edges'])" "$1"; }

clang -O1 -o native "$P/dual_retsites.c" && ./native $N >want
# (r0 pinned to the one-body form, as r1: return sites belong to that form)
"$HP" cc --hooks=dual-blocks -mllvm -hotprof-dual-loops=inline -O1 -o r0 "$P/dual_retsites.c" || { fail "build without return sites"; exit 0; }
"$HP" cc --hooks=dual-blocks --dual-return-sites=on -O1 -o r1 "$P/dual_retsites.c" || { fail "build with return sites"; exit 0; }
"$HP" cc --hooks=dual-functions --dual-return-sites=on -O2 -o r1f "$P/dual_retsites.c" || fail "dual-functions build"
"$HP" cc --hooks=dual-blocks --dual-sites=count --dual-return-sites=on -O2 -o r1c "$P/dual_retsites.c" ||
    fail "count-site build"
check_fails_cleanly "cc: --dual-return-sites=bad refused" "off or on" \
    "$HP" cc --hooks=dual-blocks --dual-return-sites=bad -O1 -c -o x.o "$P/dual_retsites.c"
check_fails_cleanly "cc: --dual-return-sites=on needs a dual set" "needs a dual-\* hook set" \
    "$HP" cc --hooks=blocks --dual-return-sites=on -O1 -c -o x.o "$P/dual_retsites.c"

# output in every mode
for b in r0 r1 r1f r1c; do
    [ -x "$b" ] || continue
    check_eq "$b: off: same output" "$(HOTPROF_MODE=off ./$b $N)" "$(cat want)"
    check_eq "$b: exhaustive: same output" "$("$HP" run -q -o ex.$b.data -- ./$b $N)" "$(cat want)"
    check_eq "$b: live: same output" "$("$HP" run -q --bursts live $M999 -o l.$b.data -- ./$b $N)" "$(cat want)"
    [ $b != r1c ] && check_eq "$b: patch: same output" "$("$HP" run -q --bursts patch $M999 -o p.$b.data -- ./$b $N)" "$(cat want)"
    check_eq "$b: count: same output" "$("$HP" run -q --seed 3 --bursts count $M999 -o c.$b.data -- ./$b $N)" "$(cat want)"
    [ $b != r1f ] && check_eq "$b: count subpaths: same output" \
        "$("$HP" run -q --seed 5 --bursts count --sample subpath:maxlen=4 -o s.$b.data -- ./$b $N)" "$(cat want)"
done
check "r1 has more dual sites than r0 (return sites)" test "$(info c.r1.data dual.sites)" -gt "$(info c.r0.data dual.sites)"

# exhaustive counts unchanged
json ex.r0.data ex.r0.json && json ex.r1.data ex.r1.json &&
    check_eq "exhaustive counts = the build without return sites' (calls, pairs, back-edges, blocks, edges)" \
        "$(tot ex.r1.json)" "$(tot ex.r0.json)"

# subpaths in count mode
check_eq "r1: count subpaths: subpath.cut 0" "$(info s.r1.data subpath.cut)" 0
check_eq "r1c: count subpaths: subpath.cut 0" "$(info s.r1c.data subpath.cut)" 0
check "r0: count subpaths: subpath.cut > 0 (no return sites)" test "$(info s.r0.data subpath.cut)" -gt 0
check_eq "r1: count subpaths: no pre-arming with return sites (subpath.prearm)" "$(info s.r1.data subpath.prearm)" 0
check_eq "r0: count subpaths: pre-arming without return sites (subpath.prearm)" "$(info s.r0.data subpath.prearm)" 4
# the report says what count mode without return sites cannot see, and that its blocks are estimated
# (it said "counted", and nothing about returns)
"$HP" report --type subpath s.r0.data >rep.r0 2>&1
"$HP" report --type subpath s.r1.data >rep.r1 2>&1
check "r0: report: blocks estimated, the cuts and --dual-return-sites=on named" \
    sh -c "grep -q '(estimated)' rep.r0 && grep -q \"$(info s.r0.data subpath.cut) subpaths cut at returns\" rep.r0 && grep -q -- '--dual-return-sites=on' rep.r0"
check "r1: report: blocks estimated, no return-site advice" sh -c "grep -q '(estimated)' rep.r1 && ! grep -q 'cut at returns' rep.r1"
if "$HP" cc --hooks=dual-blocks --dual-return-sites=on -O1 -I"$ROOT/include" -o ol "$P/osp_loop.c" -lpthread; then
    for s in 1 2; do
        "$HP" run -q --seed $s --bursts count --sample subpath:maxlen=32 -o ol$s.data -- ./ol 20000 - 200 >/dev/null
        check_eq "osp_loop, 200 threads (seed $s): thread ends are not cuts: subpath.cut 0" "$(info ol$s.data subpath.cut)" 0
    done
else
    fail "osp_loop: build with return sites"
fi
for b in r0 r1; do
    "$HP" run -q --mode exhaustive --sample subpath:maxlen=4 -o x.$b.data -- ./$b $N >/dev/null && sjson x.$b.data x.$b.json
    sjson s.$b.data s.$b.json
done
python3 "$ROOT/tests/e2e/check_retsites.py" x.r1.json s.r1.json "r1: subpaths across the return within 5%" 0.95 1.05
python3 "$ROOT/tests/e2e/check_retsites.py" x.r0.json s.r0.json "r0: subpaths across the return far too low" 0 0.5

# return sites are not events
check_eq "count (methods): dual.count.events equal with and without return sites" \
    "$(info c.r1.data dual.count.events)" "$(info c.r0.data dual.count.events)"
for b in r0 r1; do
    "$HP" run -q --seed 7 --bursts count $M999 --sample subpath -o cs.$b.data -- ./$b $N >/dev/null
done
check_eq "count (methods + subpaths): dual.count.events equal with and without return sites" \
    "$(info cs.r1.data dual.count.events)" "$(info cs.r0.data dual.count.events)"
check "count (methods): dual.count.events > 0" test "$(info c.r1.data dual.count.events)" -gt 0
