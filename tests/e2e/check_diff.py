#!/usr/bin/env python3
"""check_diff.py MODE DIFF.json REPORT_A.json REPORT_B.json LABEL

Checks one `hotprof diff --format json --top 0 A B` against the JSON reports of A and B
(`hotprof report --format json --top 0`) and prints lib.sh-style lines.
  MODE same:   A is B: every type says no_change, every delta is 0, counts equal on both sides;
  MODE shares: for each type, share_a / share_b of every row equal the report's percent summed
               by name (methods: function; call pairs: caller;callee) within rounding, and rows
               are sorted by |delta| descending (ties by name);
  MODE names:  methods: n_common equals the number of function names present in both reports,
               and a row is one-sided exactly when its name is missing from one report.
"""
import json
import sys
from collections import defaultdict

SPEC = {"methods": ("methods", lambda r: r["function"]),
        "callpairs": ("call_pairs", lambda r: r["caller_function"] + ";" + r["callee_function"])}


def report(ok, label, what):
    print(("ok" if ok else "FAIL") + f" {label}: {what}")


def percent_by_name(rep, kind):
    member, name = SPEC[kind]
    out = defaultdict(float)
    for r in rep.get(member, []):
        out[name(r)] += r["percent"]
    return out


def check_same(diff, label):
    types = diff["types"]
    report(len(types) >= 2, label, f"methods and call pairs are diffed ({len(types)} types)")
    for t in types:
        zero = all(r["delta"] == 0 and r["count_a"] == r["count_b"] for r in t["rows"])
        report(t["no_change"] and zero and t["rows"], label, f"{t['type']}: no change, all deltas 0")


def check_sorted(t, label):
    keys = [(-abs(r["delta"]), r["name"]) for r in t["rows"]]
    report(keys == sorted(keys), label, f"{t['type']}: rows sorted by |delta| descending")


def check_shares(diff, ra, rb, label):
    for t in diff["types"]:
        pa, pb = percent_by_name(ra, t["type"]), percent_by_name(rb, t["type"])
        bad = [r["name"] for r in t["rows"]
               if abs(r["share_a"] - pa.get(r["name"], 0)) > 0.02
               or abs(r["share_b"] - pb.get(r["name"], 0)) > 0.02]
        report(t["rows"] and not bad, label, f"{t['type']}: shares equal the reports' percents {bad[:3]}")
        report(len(t["rows"]) == len(set(pa) | set(pb)), label, f"{t['type']}: one row per name of A or B")
        check_sorted(t, label)


def check_names(diff, ra, rb, label):
    t = next(t for t in diff["types"] if t["type"] == "methods")
    na = {r["function"] for r in ra["methods"]}
    nb = {r["function"] for r in rb["methods"]}
    report(t["n_common"] == len(na & nb) and len(na & nb) > 0, label,
           f"methods matched by name: {t['n_common']} common, reports share {len(na & nb)}")
    one_sided = {r["name"] for r in t["rows"] if r["count_a"] == 0 or r["count_b"] == 0}
    report(one_sided == na ^ nb, label, "one-sided rows are the names missing from one report")


def main():
    mode, dpath, apath, bpath, label = sys.argv[1:6]
    diff = json.load(open(dpath))
    ra, rb = json.load(open(apath)), json.load(open(bpath))
    {"same": lambda: check_same(diff, label),
     "shares": lambda: check_shares(diff, ra, rb, label),
     "names": lambda: check_names(diff, ra, rb, label)}[mode]()


main()
