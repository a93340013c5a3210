#!/usr/bin/env python3
"""check_osp_run.py WHAT ARGS... — the run side of subpaths (OSP), from profiles decoded by
osp_decode.py (JSON files). One "ok NAME" / "FAIL NAME: why" line per property.
  exact EXACT.json EDGES_REPORT.json N     exact counter: per length the counts add up to the
        windows of the block stream; length-2 counts equal the edge counts of the same run; the
        loop's hottest length-2 subpath ran N times; records are exact (weight = count, p = 1)
  live LIVE.json EXACT.json LABEL         sampled: INFO, well-formed records, and the hottest exact
        length-2 and length-4 subpaths estimated within 10% (estimate = weight / p_length)
  patch P.json EXACT.json LABEL TOL       patched windows: skip=patch, records well-formed, the hottest
                                          length-2 subpath's share of the estimated blocks within 4
                                          standard errors of exact; estimated blocks within TOL of
                                          exact (TOL 0: not checked: blocks faster than the rate
                                          measurement resolves, docs/osp.md)
  small LIVE.json MEM                     a small budget: thinned (tau > 1), bytes within MEM
  skiponly LIVE.json                      skips only: blocks counted, no sample, no record
  cost LIVE.json                          weight=cost: rejections, p_length below the length law's
"""
import json
import sys
from collections import defaultdict


def res(name, good, why=""):
    print(("ok %s" % name) if good else ("FAIL %s: %s" % (name, why)))


def load(path):
    return json.load(open(path))


def exact(path, edges_path, n):
    d, rep = load(path), load(edges_path)
    info, recs = d["info"], d["subpaths"]
    res("exact: INFO summary=exact skip=exact", info.get("subpath.summary") == "exact" and info.get("subpath.skip") == "exact",
        str({k: v for k, v in info.items() if k.startswith("subpath")}))
    blocks = int(info.get("subpath.blocks", -1))
    res("exact: subpath.blocks = total.blocks", blocks == int(info.get("total.blocks", -2)), "%s vs %s" % (blocks, info.get("total.blocks")))
    by_len = defaultdict(int)
    for r in recs:
        by_len[r["length"]] += r["count"]
    want = {L: blocks - (L - 1) for L in (2, 4, 8, 16, 32)}
    res("exact: per length, counts add up to the windows of the stream", dict(by_len) == want, "%s vs %s" % (dict(by_len), want))
    bad = [r for r in recs if r["weight"] != r["count"] or r["p_length"] != 1 or len(r["blocks"]) != r["length"]]
    res("exact: records exact with their sequence", recs and not bad, str(bad[:2]))
    edge = defaultdict(int)
    for e in rep["edges"]:
        edge[(e["from_guard"], e["to_guard"])] += e["count"]
    # xor and exact keys are rotation-blind: (a,b) and (b,a) are one subpath of length 2
    wrong = []
    for r in recs:
        if r["length"] != 2:
            continue
        a, b = r["blocks"]
        want2 = edge[(a, b)] + (edge[(b, a)] if a != b else 0)
        if r["count"] != want2:
            wrong.append((a, b, r["count"], want2))
    res("exact: length-2 counts equal the run's edge counts", not wrong and sum(1 for r in recs if r["length"] == 2) > 3, str(wrong[:3]))
    top2 = max(r["count"] for r in recs if r["length"] == 2)
    res("exact: the loop's hottest length-2 subpath ran N times", top2 == n, "%d vs %d" % (top2, n))


def live(path, exact_path, label):
    d, ex = load(path), load(exact_path)
    info, recs = d["info"], d["subpaths"]
    res(label + ": INFO summary=sampled skip=live", info.get("subpath.summary") == "sampled" and info.get("subpath.skip") == "live",
        str({k: v for k, v in info.items() if k.startswith("subpath")}))
    eb, lb = int(ex["info"]["subpath.blocks"]), int(info.get("subpath.blocks", 0))
    res(label + ": blocks seen within 1% of the exact run's", abs(lb - eb) <= 0.01 * eb, "%d vs %d" % (lb, eb))
    res(label + ": samples taken", int(info.get("subpath.samples", 0)) > 0 and recs, info.get("subpath.samples"))
    bad = [r for r in recs if not (0 < r["p_length"] <= 1) or r["weight"] <= 0 or r["count"] < 1 or len(r["blocks"]) != r["length"]]
    res(label + ": records well-formed (0 < p <= 1, weight > 0, sequence kept)", not bad, str(bad[:2]))
    est = {(r["key"], r["length"]): r["weight"] / r["p_length"] for r in recs}
    for L in (2, 4):
        hot = max((r for r in ex["subpaths"] if r["length"] == L), key=lambda r: r["count"])
        e = est.get((hot["key"], L), 0)
        res("%s: hottest length-%d subpath estimated within 10%%" % (label, L), abs(e - hot["count"]) <= 0.10 * hot["count"],
            "estimate %.0f, exact %d" % (e, hot["count"]))


def patch(path, exact_path, label, sys_tol):
    """Patched windows: estimates, not counts (see the usage above)."""
    d, ex = load(path), load(exact_path)
    info, recs = d["info"], d["subpaths"]
    res(label + ": INFO summary=sampled skip=patch", info.get("subpath.summary") == "sampled" and info.get("subpath.skip") == "patch",
        str({k: v for k, v in info.items() if k.startswith("subpath")}))
    n = int(info.get("subpath.samples", 0))
    res(label + ": samples taken", n > 0 and recs, info.get("subpath.samples"))
    bad = [r for r in recs if not (0 < r["p_length"] <= 1) or r["weight"] <= 0 or r["count"] < 1 or len(r["blocks"]) != r["length"]]
    res(label + ": records well-formed (0 < p <= 1, weight > 0, sequence kept)", not bad, str(bad[:2]))
    # the share of the hottest length-2 subpath among all blocks: independent of the absolute
    # native rate (which the windows measure with a systematic error on sub-ns blocks, docs/osp.md)
    eb, lb = int(ex["info"]["subpath.blocks"]), int(info.get("subpath.blocks", 0))
    hot = max((r for r in ex["subpaths"] if r["length"] == 2), key=lambda r: r["count"])
    got = [r for r in recs if r["key"] == hot["key"] and r["length"] == 2]
    c = got[0]["count"] if got else 0
    share = got[0]["weight"] / got[0]["p_length"] / lb if got and lb else 0
    want = hot["count"] / eb
    tol = 4 * max(want * (1 - want) / max(c, 1), 0) ** 0.5 + 4 * want / max(c, 1) ** 0.5
    res("%s: hottest length-2 subpath's share of the estimated blocks within 4 standard errors" % label,
        got and abs(share - want) <= tol, "%.4f vs exact %.4f (+-%.4f, %d samples; blocks %d vs exact %d)" % (share, want, tol, c, lb, eb))
    if sys_tol > 0:
        res("%s: estimated blocks within %.0f%% of the exact run's" % (label, 100 * sys_tol), abs(lb - eb) <= sys_tol * eb,
            "%d vs %d" % (lb, eb))


def small(path, mem):
    d = load(path)
    info = d["info"]
    tau, used = float(info.get("subpath.tau", 0)), int(info.get("subpath.bytes", 1 << 30))
    res("small budget: the list thinned (tau > 1)", tau > 1, info.get("subpath.tau"))
    res("small budget: bytes in use within mem", 0 < used <= mem, "%d > %d" % (used, mem))
    res("small budget: entries kept = records", int(info.get("subpath.entries", -1)) == len(d["subpaths"]) > 0,
        "%s vs %d" % (info.get("subpath.entries"), len(d["subpaths"])))


def skiponly(path):
    d = load(path)
    info = d["info"]
    res("skiponly: blocks counted, nothing sampled or kept",
        int(info.get("subpath.blocks", 0)) > 0 and info.get("subpath.samples") == "0" and not d["subpaths"],
        str({k: v for k, v in info.items() if k.startswith("subpath")}))


def p_law(info):
    """P(L) of the default pow2 law (maxlen 32), or P(length >= L) when the run offered prefixes."""
    law = {L: 2.0 ** -i / (1 - 1 / 32) for i, L in enumerate((2, 4, 8, 16, 32), 1)}
    if "prefixes=on" in info.get("subpath.params", ""):
        return {L: sum(p for M, p in law.items() if M >= L) for L in law}
    return law


def prefixes(path, on):
    d = load(path)
    info, recs = d["info"], d["subpaths"]
    res("prefixes=%s: the params say so" % on, "prefixes=" + on in info.get("subpath.params", ""), info.get("subpath.params"))
    law = p_law(info)
    bad = [r for r in recs if abs(r["p_length"] - law[r["length"]]) > 1e-9]
    res("prefixes=%s: each record's p_length is P(%s)" % (on, "L >= l" if on == "on" else "L = l"), recs and not bad,
        str(bad[:2]))
    if on == "on":
        res("prefixes=on: length-2 records are counted on every sample (p_length 1)",
            any(r["length"] == 2 and r["p_length"] == 1 for r in recs), "")


def cost(path):
    d = load(path)
    info, recs = d["info"], d["subpaths"]
    law = p_law(info)
    res("weight=cost: some samples rejected", int(info.get("subpath.rejected", 0)) > 0, info.get("subpath.rejected"))
    bad = [r for r in recs if not (0 < r["p_length"] <= law[r["length"]] + 1e-12)]
    res("weight=cost: p_length includes the acceptance", recs and not bad, str(bad[:2]))


what = sys.argv[1]
if what == "exact":
    exact(sys.argv[2], sys.argv[3], int(sys.argv[4]))
elif what == "live":
    live(sys.argv[2], sys.argv[3], sys.argv[4])
elif what == "patch":
    patch(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]))
elif what == "small":
    small(sys.argv[2], int(sys.argv[3]))
elif what == "skiponly":
    skiponly(sys.argv[2])
elif what == "prefixes":
    prefixes(sys.argv[2], sys.argv[3])
elif what == "cost":
    cost(sys.argv[2])
