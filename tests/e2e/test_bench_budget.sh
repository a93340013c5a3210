#!/usr/bin/env bash
# test_bench_budget.sh — bench/fastpath/budget.sh (count mode's cost per event against what a 1.03
# total leaves) on one workload, one round, without committing anything:
#   - a table row and a CSV row for the workload, with the columns the header names, without the
#     real programs' sources (none asked for);
#   - the events and bursts come from count mode's INFO: bursts / events is the configured 1/1000
#     (within 10%), and the per-event columns are the times over those events (to the CSV's six
#     digits; budget = 0.03 x native's time per event);
#   - a hook set without count mode, an unknown workload and an unknown option are refused with one
#     message and a non-zero exit.
. "$(dirname "$0")/lib.sh"
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "bench budget: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
B="$ROOT/bench/fastpath/budget.sh"
# (no real program asked for: it needs no real-program sources, which a clean clone may lack; it
# stopped with "no real programs in ..." before. 4 rounds: the last round's order ends with `dec`,
# whose profile the bursts were read from before each variant wrote its own: 0 bursts)
HOTPROF_REALPROGS="$T/none" "$B" --runs 4 --workloads lexgen --programs "" --results "$T/r" >"$T/out" 2>"$T/err" \
    || fail "bench budget: run without real-program sources" "$(tail -3 "$T/err")"
check_eq "bench budget: one table row" "$(awk '$1 == "lexgen"' "$T/out" | wc -l)" 1
python3 - "$T/r/fastpath_budget.csv" >"$T/py" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["program"] for r in rows] == ["lexgen"], [r["program"] for r in rows]
r = {k: float(v) for k, v in rows[0].items() if k not in ("program", "hooks")}
assert r["events"] > 1e6, "events %g" % r["events"]
rate = r["bursts"] / r["events"]
assert 0.9e-3 <= rate <= 1.1e-3, "bursts / events %g for a configured 1/1000" % rate
per_event = r["native_s"] * 1e9 / r["events"]
assert abs(r["native_ns_per_event"] - per_event) <= 1e-4 * per_event, (r["native_ns_per_event"], per_event)
assert abs(r["budget_ns_per_event"] - 0.03 * per_event) <= 1e-4 * per_event, r["budget_ns_per_event"]
dec = (r["dec"] - r["off"]) * per_event
assert abs(r["dec_ns_per_event"] - dec) <= 1e-4 * per_event, (r["dec_ns_per_event"], dec)
spent = (r["c1000"] - 1) * per_event
assert abs(r["spent_ns_per_event"] - spent) <= 1e-4 * per_event, (r["spent_ns_per_event"], spent)
for k in ("off", "dec", "c1000"):
    assert 0.5 < r[k] < 5, "%s %g" % (k, r[k])
PY
check_eq "bench budget: events and bursts from INFO at the configured rate, per-event columns from them" "$(cat "$T/py")" ""
check_fails_cleanly "bench budget: a hook set without count mode refused" "dual hook set" \
    "$B" --hooks functions --workloads lexgen --programs "" --results "$T/r2"
check_fails_cleanly "bench budget: an unknown workload refused" "unknown workload nosuch" \
    "$B" --workloads nosuch --programs "" --results "$T/r3"
check_fails_cleanly "bench budget: an unknown option refused" "unknown argument '--frob'" \
    "$B" --frob --results "$T/r4"
