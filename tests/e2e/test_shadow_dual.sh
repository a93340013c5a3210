#!/usr/bin/env bash
# test_shadow_dual.sh — shadow mode on two-version code (hotprof cc --hooks=dual-all, docs/shadow.md
# "Building for shadow mode"): the parent runs the clean copies, each shadow switches every dual
# site on in its own text and records paths and values.
#   - dual-all hooks the instrumented copy's loads, stores and integer compares as --hooks=all
#     does: an exhaustive run counts the same loads, stores, calls and blocks (and the demoted
#     stack slots of the plugin get no hook: a bug that counted ~10x the loads);
#   - in an exhaustive dual build with --sample path, every taken loop back-edge ends a path
#     (the latch hook tells pt/path.c: the address rule is off in cloned functions; a bug made
#     every path run to maxlen);
#   - a --hooks=all build in --mode shadow gets a hint towards dual-all (stderr, not with -q);
#   - --mode shadow accepts a dual-all build: shadows start, the merged profile has paths and
#     compare values of the program's functions, and the program's output is unchanged;
#   - dual-all builds the loop-entry form by default (dual-blocks the one-body form), and the
#     shadows' path keys are the exhaustive run's (>= 99% of their weight).
# e2e: alone (shadows run in wall-clock slices: another job's load changes what they sample)
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
if [ ! -f "$ROOT/build/lib/hotprof_dual.so" ]; then
    check_fails_cleanly "shadow_dual: no plugin, one message" "needs the LLVM pass plugin" \
        "$HP" cc --hooks=dual-all -O2 -o ph "$P/shadow_phases.c"
    exit 0
fi
"$HP" cc --hooks=dual-all -O2 -o ph "$P/shadow_phases.c" >cc.out 2>&1 || { fail shadow_dual_build "$(tail -3 cc.out)"; exit 1; }
"$HP" cc --hooks=all -O2 -o ph_all "$P/shadow_phases.c" >cc.out 2>&1 || { fail shadow_dual_build_all "$(tail -3 cc.out)"; exit 1; }
key() { "$HP" info "$1" | awk -v k="$2" '$1 == k {print $2}'; }

# ---- dual-all hooks what --hooks=all hooks
"$HP" run -q -o ex.data -- ./ph 20000 >ex.out
"$HP" run -q -o ex_all.data -- ./ph_all 20000 >/dev/null
for k in total.loads total.stores total.calls total.blocks; do
    check_eq "shadow_dual_same_${k#total.}_as_hooks_all" "$(key ex.data $k)" "$(key ex_all.data $k)"
done
check shadow_dual_loads_counted test "$(key ex.data total.loads)" -gt 0

# ---- paths end at the latches' back-edges
"$HP" run -q --sample path -o exp.data -- ./ph 20000 >/dev/null
be=$("$HP" report --format json exp.data | python3 -c "import json,sys; print(json.load(sys.stdin)['totals']['backedges'])")
done_paths=$("$HP" report --type path --format json exp.data | python3 -c "import json,sys; print(json.load(sys.stdin)['paths']['completed'])")
check shadow_dual_backedges_counted test "${be:-0}" -gt 100000
check_eq shadow_dual_paths_end_at_backedges "$done_paths" "$be"

# ---- a build without two-version code gets a hint (not with -q or HOTPROF_QUIET, which lib.sh
# sets; not for a dual build)
env -u HOTPROF_QUIET "$HP" run --mode shadow --sample-size 1K -o hint.data -- ./ph_all 1000 >/dev/null 2>hint_all.err
env -u HOTPROF_QUIET "$HP" run --mode shadow --sample-size 1K -o hint.data -- ./ph 1000 >/dev/null 2>hint_dual.err
check shadow_dual_hint_for_hooks_all grep -q "has no two-version code" hint_all.err
check shadow_dual_no_hint_for_dual_all test "$(grep -c 'two-version' hint_dual.err)" -eq 0

# ---- shadows of a dual-all build
HOTPROF_MODE=off ./ph 3000000 >native.out
"$HP" run -q --mode shadow --load 0.5 --sample-size 1M --sample path --sample value:summary=tnv -o sh.data -- ./ph 3000000 >sh.out 2>sh.err
check shadow_dual_output_unchanged cmp native.out sh.out
check shadow_dual_started test "$(key sh.data shadow.started)" -ge 1
check shadow_dual_finished test "$(key sh.data shadow.finished)" -ge 1
"$HP" report --type path --format json sh.data >sh_path.json 2>/dev/null
"$HP" report --type value --format json sh.data >sh_value.json 2>/dev/null
check shadow_dual_has_paths python3 -c "import json,sys; d=json.load(open('sh_path.json')); sys.exit(0 if d['paths']['completed'] > 1000 else 1)"
check shadow_dual_has_compare_values grep -q '"cmp"' sh_value.json

# ---- dual-all takes the loop-entry form without the way back by default (one instrumented copy
# per function, F.hotprof.loop; dual-blocks keeps the one-body form): a shadow's paths are the
# exhaustive run's, key for key (>= 99% of the shadows' path weight on keys the exhaustive run of
# the same build saw)
"$HP" cc --hooks=dual-blocks -O2 -o ph_blocks "$P/shadow_phases.c" >cc.out 2>&1 || fail shadow_dual_build_blocks
check shadow_dual_all_loop_entry_form sh -c "nm ph | grep -q 'hotprof\.loop'"
check shadow_dual_blocks_one_body_form sh -c "! nm ph_blocks | grep -q 'hotprof\.loop'"
"$HP" run -q --sample path -o exl.data -- ./ph 3000000 >/dev/null
"$HP" report --type path --top 0 --format json exl.data >exl.json 2>/dev/null
"$HP" report --type path --top 0 --format json sh.data >shl.json 2>/dev/null
check shadow_dual_paths_are_the_exhaustive_runs python3 -c "
import json, sys
ex = {r['key'] for r in json.load(open('exl.json'))['paths']['rows']}
rows = json.load(open('shl.json'))['paths']['rows']
w = sum(r['count'] for r in rows)
share = sum(r['count'] for r in rows if r['key'] in ex) / w
print(share); sys.exit(0 if share >= 0.99 else 1)"

# ---- shadows spread over the run (--shadow-slice; 20 ms here, phases of ~0.2 s): at load 0.25 and
# the default sample size (10M: one shadow would outlive phase one), shadows start in both phases
# and the merged profile has the hot paths of both; --shadow-slice 0 (no limit): shadows end at
# their sample size, never by a slice (on a busy machine a deadline kill can let a second shadow
# reach phase two, so phase one only is not asserted)
path_functions() { "$HP" report --type path --top 0 --format json "$1" | python3 -c "
import json,sys
d=json.load(sys.stdin); fs=set()
for r in d['paths']['rows']:
    for b in r['blocks']: fs.add(b.get('function'))
print(' '.join(sorted(f for f in fs if f in ('alpha_step','beta_step'))))"; }
"$HP" run -q --mode shadow --load 0.25 --shadow-slice 20 --sample path -o spread.data -- ./ph 8000000 >/dev/null
check_eq shadow_dual_both_phases_hot_paths "$(path_functions spread.data)" "alpha_step beta_step"
check shadow_dual_slices_end_shadows test "$(key spread.data shadow.end.slice)" -ge 1
check shadow_dual_spec_has_slice grep -q 'slice=20' <("$HP" info spread.data)
"$HP" run -q --mode shadow --load 0.25 --shadow-slice 0 --sample path -o one.data -- ./ph 8000000 >/dev/null
check shadow_dual_no_slice_ends_at_sample test "$(key one.data shadow.end.sample)" -ge 1
check_eq shadow_dual_no_slice_no_slice_end "$(key one.data shadow.end.slice)" 0
check_fails_cleanly shadow_dual_bad_slice "shadow slice must be a number of milliseconds" \
    "$HP" run --mode shadow --shadow-slice 70000 -- ./ph 10
check_fails_cleanly shadow_dual_slice_needs_shadow_mode "need --mode shadow" \
    "$HP" run --shadow-slice 10 -- ./ph 10

# ---- the coverage estimate (INFO shadow.coverage_ppm) against the exact coverage (shadow events /
# the exhaustive run's calls + blocks), at the default settings: only ~2 shadows here, placed by
# the run's phases (the first always in phase one), so the check is a factor 4;
# test_shadow_coverage.sh checks the factor 2 with enough shadows on two workloads.
"$HP" run -q -o exfull.data -- ./ph 8000000 >/dev/null
"$HP" run -q --mode shadow --sample path --sample value:summary=tnv -o cov.data -- ./ph 8000000 >/dev/null
total=$("$HP" report --format json --top 1 exfull.data | python3 -c "import json,sys; t=json.load(sys.stdin)['totals']; print(t['calls'] + t['blocks'])")
ratio=$(python3 -c "import sys; ev, tot, est = map(float, sys.argv[1:]); print('%.2f' % (est / 1e6 / (ev / tot)))" \
    "$(key cov.data shadow.events)" "$total" "$(key cov.data shadow.coverage_ppm)")
check shadow_dual_native_ns_reported test "$(key cov.data shadow.native_ns)" -gt 0
check "shadow_dual_coverage_estimate_within_4x_of_exact (ratio $ratio)" \
    python3 -c "import sys; r = float(sys.argv[1]); sys.exit(0 if 1 / 4 <= r <= 4 else 1)" "$ratio"
