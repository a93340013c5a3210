#!/usr/bin/env python3
"""check_osp_count.py SAMPLED.json EXACT.json LABEL [TOP] — subpaths placed by count (docs/osp.md,
count mode): a run with --bursts count on a dual build against the exhaustive run of the same
binary, both decoded by osp_decode.py. One "ok NAME" / "FAIL NAME: why" line per property:
  - INFO: summary=sampled, skip=count, samples taken, subpath.cut present;
  - records well-formed (0 < p_length <= 1, weight > 0, the sequence kept);
  - the estimated blocks (each block of a triggered segment stands for S) within 3% of exact;
  - the calibration: subpath.events (counted) within 0.5% (+ 300) of the exact run's calls +
    back-edges, events_est near it, and the written blocks (calibrated by events / events_est)
    within 1% of exact (uncalibrated they were 3%; lexgen: sd 0.58% -> 0.14%);
  - each of the TOP (default 3) hottest exact subpaths of length 2 and of length 4: its estimate
    (weight / p_length) within 5% of its exact count.
"""
import json
import sys


def res(name, good, why=""):
    print(("ok %s" % name) if good else ("FAIL %s: %s" % (name, why)))


def main(argv):
    d, ex = json.load(open(argv[1])), json.load(open(argv[2]))
    label, top = argv[3], int(argv[4]) if len(argv) > 4 else 3
    info, recs = d["info"], d["subpaths"]
    sub = {k: v for k, v in info.items() if k.startswith("subpath")}
    res(label + ": INFO summary=sampled skip=count", info.get("subpath.summary") == "sampled"
        and info.get("subpath.skip") == "count" and "subpath.cut" in info, str(sub))
    res(label + ": samples taken", int(info.get("subpath.samples", 0)) > 0 and recs, info.get("subpath.samples"))
    bad = [r for r in recs if not (0 < r["p_length"] <= 1) or r["weight"] <= 0 or r["count"] < 1
           or len(r["blocks"]) != r["length"]]
    res(label + ": records well-formed (0 < p <= 1, weight > 0, sequence kept)", not bad, str(bad[:2]))
    eb, cb = int(ex["info"]["subpath.blocks"]), int(info.get("subpath.blocks", 0))
    res(label + ": estimated blocks within 3%% of exact (%d vs %d)" % (cb, eb), abs(cb - eb) <= 0.03 * eb)
    xev = int(ex["info"].get("total.calls", 0)) + int(ex["info"].get("total.backedges", 0))
    ev, evest = int(info.get("subpath.events", -1)), int(info.get("subpath.events_est", -1))
    res(label + ": events counted = the exact run's calls + back-edges (%d vs %d)" % (ev, xev),
        abs(ev - xev) <= 0.005 * xev + 300)  # each thread loses its last countdown (70 threads: 0.14%)
    res(label + ": events estimated from the triggers within 10%% (%d)" % evest, abs(evest - xev) <= 0.1 * xev)
    res(label + ": calibrated blocks within 1%% of exact (%d vs %d)" % (cb, eb), abs(cb - eb) <= 0.01 * eb)
    est = {(r["key"], r["length"]): r["weight"] / r["p_length"] for r in recs}
    for L in (2, 4):
        hot = sorted((r for r in ex["subpaths"] if r["length"] == L), key=lambda r: -r["count"])[:top]
        for r in hot:
            e = est.get((r["key"], L), 0)
            res(label + ": length-%d subpath of %d executions estimated within 5%% (%.0f)" % (L, r["count"], e),
                abs(e - r["count"]) <= 0.05 * r["count"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
