#!/usr/bin/env python3
"""check_dual_count.py — checks of count-triggered bursts (`--bursts count`, test_dual_count.sh) on
JSON reports (hotprof report --format json --top 0). Prints "ok LABEL: ..." / "FAIL LABEL: ..."
lines (tests/e2e/lib.sh's format); the exit status is 0 either way (the lines are the result).

usage:
  check_dual_count.py share EXH.json COUNT.json LABEL
      recorded units (calls + back-edges recorded) / the exhaustive run's calls + back-edges is
      within +-10% of the configured B/(B+S) of methods, and the controllers' event count is
      within 1% of the exhaustive one (the trampolines and hooks count every event)
  check_dual_count.py sites COUNT.json CALLEE LABEL
      the two call sites of CALLEE from one caller (equal exhaustive counts by construction) were
      sampled equally: |a - b| <= 4 sqrt(a + b) (4 sigma of a fair binomial split)
  check_dual_count.py shares EXH.json COUNT.json TOL LABEL [OTHER.json OTHER_LABEL]
      every function's share of the heat (calls + back-edges) is within TOL (absolute) of its
      exhaustive share; OTHER (e.g. patched bursts) is printed beside it, not checked
"""
import json, math, sys


def load(path):
    with open(path) as f:
        return json.load(f)


def say(label, name, good, why=""):
    print(("ok %s: %s" % (label, name)) if good else ("FAIL %s: %s: %s" % (label, name, why)))


def exhaustive_events(exh):
    """The exhaustive run's calls + back-edges: the events count mode counts."""
    return exh["totals"]["calls"] + exh["totals"]["backedges"]


def share(exh, cnt, label):
    c = cnt["totals"]
    events = exhaustive_events(exh)
    recorded = c["calls"] + c["backedges"]
    m = cnt["sampling"]["methods"]
    want = m["burst"] / float(m["burst"] + m["period"])
    got = recorded / float(events) if events else 0.0
    say(label, "recorded share %.6f within 10%% of B/(B+S) %.6f (%d of %d)" % (got, want, recorded, events),
        events > 0 and abs(got - want) <= 0.1 * want, "off by %.1f%%" % (100 * (got / want - 1) if want else 0))
    events_counted(exh, cnt, 0.01 * events, label, "1%")


def events_counted(exh, cnt, bound, label, what):
    """The count run's methods events against the exhaustive calls + back-edges, within bound."""
    events = exhaustive_events(exh)
    counted = cnt["sampling"]["methods"]["events"]
    say(label, "events counted %d within %s of the exhaustive %d" % (counted, what, events),
        events > 0 and abs(counted - events) <= bound)


def sites(cnt, callee, label):
    rows = [r for r in cnt["call_pairs"] if r.get("callee_function") == callee]
    counts = sorted((r.get("sampled", r.get("count", 0)) for r in rows), reverse=True)
    if len(counts) < 2:
        say(label, "two call sites of %s sampled" % callee, False, "rows: %s" % rows[:3])
        return
    a, b = counts[0], counts[1]
    bound = 4 * math.sqrt(a + b)
    say(label, "two equal call sites sampled %d : %d (|a-b| %d <= 4 sigma %.0f)" % (a, b, abs(a - b), bound),
        a + b > 0 and abs(a - b) <= bound)


def heat_shares(rep):
    h = {}
    for r in rep["methods"]:
        h[r["function"]] = h.get(r["function"], 0) + r["heat"]
    total = float(sum(h.values())) or 1.0
    return {k: v / total for k, v in h.items()}


def shares(exh, cnt, tol, label, other=None, other_label=""):
    se, sc = heat_shares(exh), heat_shares(cnt)
    so = heat_shares(other) if other else {}
    worst = 0.0
    for fn in sorted(se, key=lambda k: -se[k]):
        d = abs(sc.get(fn, 0.0) - se[fn])
        worst = max(worst, d)
        extra = ("  %s %.1f%%" % (other_label, 100 * so.get(fn, 0.0))) if other else ""
        print("  %-12s exhaustive %5.1f%%  count %5.1f%%%s" % (fn, 100 * se[fn], 100 * sc.get(fn, 0.0), extra))
    say(label, "every method's heat share within %.0f points of the exhaustive one (worst %.2f)" % (100 * tol, 100 * worst),
        len(se) > 0 and worst <= tol)


def main():
    what = sys.argv[1]
    if what == "share":
        share(load(sys.argv[2]), load(sys.argv[3]), sys.argv[4])
    elif what == "events":  # events EXH CNT MAXDIFF LABEL
        events_counted(load(sys.argv[2]), load(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[4])
    elif what == "sites":
        sites(load(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif what == "shares":
        other = load(sys.argv[6]) if len(sys.argv) > 7 else None
        shares(load(sys.argv[2]), load(sys.argv[3]), float(sys.argv[4]), sys.argv[5], other,
               sys.argv[7] if len(sys.argv) > 7 else "")
    else:
        print("FAIL check_dual_count.py: unknown check %s" % what)


main()
