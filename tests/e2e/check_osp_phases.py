#!/usr/bin/env python3
"""check_osp_phases.py — the patched-window bias test (test_osp_run.sh) on progs/osp_phases.c.

Usage: check_osp_phases.py SAMPLED.json EXACT.json NAME   (hotprof report --type subpath
--format json --top 0 of a patched run and of an exhaustive run of the same binary)

For each phase function F (slow_phase, fast_phase) the blocks run in F are the sum of the
counts of the length-2 subpaths that start in F (every block position starts exactly one), in
the exact profile, and the sum of their estimates in the sampled one. Checks, with a statistical
tolerance of 4 standard errors of that sum (from its samples: the relative error of a sum of n
samples of similar weight is about 1/sqrt(n)) and at least 3%:
  - each phase's estimated blocks are within the tolerance of exact (the samples are weighted by
    the blocks their interval stood for);
  - the contrast: the unweighted share of the slow phase (its share of the length-2 samples, what
    time-placed samples give without weights) is off from its exact block share by more than
    the tolerance (by about the ratio of the phases' block rates);
  - the hottest length-2 subpath of each phase: its estimate within tolerance of its exact count.
Prints "ok NAME: ..." or "FAIL NAME: ..." lines (tests/e2e/lib.sh's format).
"""
import json
import math
import sys

PHASES = ("slow_phase", "fast_phase")


def rows(path):
    with open(path) as f:
        return json.load(f)["subpaths"]["rows"]


def phase_of(row):
    blocks = row.get("blocks") or []
    return blocks[0].get("function") if blocks else None


def per_phase(rs):
    out = {p: {"est": 0.0, "count": 0, "rows": []} for p in PHASES}
    for r in rs:
        p = phase_of(r)
        if r["length"] != 2 or p not in out:
            continue
        out[p]["est"] += r["estimate"]
        out[p]["count"] += r["count"]
        out[p]["rows"].append(r)
    return out


def report(ok, name, why):
    print(("ok " if ok else "FAIL ") + name + ": " + why)
    return ok


def main():
    sampled, exact, name = sys.argv[1], sys.argv[2], sys.argv[3]
    s, x = per_phase(rows(sampled)), per_phase(rows(exact))
    good = True
    for p in PHASES:
        n = s[p]["count"]
        if n == 0 or x[p]["est"] == 0:
            good &= report(False, f"{name} {p}", f"no length-2 samples ({n}) or no exact blocks")
            continue
        tol = max(0.03, 4.0 / math.sqrt(n))
        err = s[p]["est"] / x[p]["est"] - 1.0
        good &= report(abs(err) <= tol, f"{name} {p}: weighted blocks within {tol:.1%} of exact",
                       f"estimated {s[p]['est']:.0f}, exact {x[p]['est']:.0f}, error {err:+.1%}, {n} samples")
        hot = max(x[p]["rows"], key=lambda r: r["estimate"])
        got = next((r for r in s[p]["rows"] if r["key"] == hot["key"]), None)
        m = got["count"] if got else 0
        htol = max(0.03, 4.0 / math.sqrt(m)) if m else 1.0
        herr = (got["estimate"] / hot["estimate"] - 1.0) if got else -1.0
        good &= report(got is not None and abs(herr) <= htol,
                       f"{name} {p}: hottest subpath within {htol:.1%} of exact",
                       f"estimate {got['estimate'] if got else 0:.0f}, exact {hot['estimate']:.0f}, error {herr:+.1%}")
    n_all = s["slow_phase"]["count"] + s["fast_phase"]["count"]
    if n_all:
        exact_share = x["slow_phase"]["est"] / (x["slow_phase"]["est"] + x["fast_phase"]["est"])
        unweighted = s["slow_phase"]["count"] / n_all
        weighted = s["slow_phase"]["est"] / (s["slow_phase"]["est"] + s["fast_phase"]["est"])
        tol = max(0.03, 4.0 / math.sqrt(s["slow_phase"]["count"] or 1))
        good &= report(abs(unweighted / exact_share - 1.0) > tol,
                       f"{name}: unweighted time-placed samples would be biased (contrast)",
                       f"slow phase's share of blocks: exact {exact_share:.2%}, weighted {weighted:.2%}, "
                       f"unweighted (sample counts) {unweighted:.2%}")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
