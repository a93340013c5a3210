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
#   - --mode shadow accepts a dual-all build: shadows start, the merged profile has paths and
#     compare values of the program's functions, and the program's output is unchanged.
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
