#!/usr/bin/env python3
"""check_pprof.py MODE ... — checks `go tool pprof` output of a `hotprof report --format pprof` export
against the JSON report of the same profile (`hotprof report --format json --top 0 --blocks`), and
prints lib.sh-style lines ("ok LABEL: what" / "FAIL LABEL: what").

  top REPORT.json TOP.txt KIND FIELD LABEL
      TOP.txt is `go tool pprof -top -nodecount=10 -nodefraction=0 -sample_index=FIELD`. KIND
      methods: the JSON rows summed by function, FIELD heat or calls (recorded counts: "sampled" of
      an estimated row, which the JSON gives for heat and a call pair's count only). The total pprof reports equals the
      JSON sum; every one of the ten rows has the flat count of its name; the ten counts are the
      ten largest of the JSON.
  traces REPORT.json TRACES.txt LABEL
      TRACES.txt is `go tool pprof -traces` of a callpairs export: every trace is callee (leaf),
      caller; summed by (caller, callee) they equal the JSON call pairs (recorded counts).
  total REPORT.json TOP.txt TOTALS_KEY LABEL
      the total of a -top output equals the JSON "totals" member TOTALS_KEY (blocks: every block).
  names TOP_FULL.txt TOP_ADDR.txt LABEL
      two -top outputs (full symbols; addresses only, symbolized by pprof): same names, same counts.
"""
import json
import re
import sys
from collections import Counter

TOP = re.compile(r"^\s*(\d+)\s+[\d.e+-]+%\s+[\d.e+-]+%\s+(\d+)\s+[\d.e+-]+%\s+(.+?)\s*$")
TOTAL = re.compile(r"of (\d+) total")


def report(ok, label, what):
    print(("ok" if ok else "FAIL") + f" {label}: {what}")


def recorded(row, field):
    return row["sampled"] if row.get("estimated") and field in ("heat", "count") else row[field]


def parse_top(path):
    text = open(path).read()
    rows = [(m.group(3), int(m.group(1))) for m in map(TOP.match, text.splitlines()) if m]
    total = TOTAL.search(text)
    return rows, int(total.group(1)) if total else None


def check_top(json_path, top_path, kind, field, label):
    rep = json.load(open(json_path))
    if kind != "methods":
        raise SystemExit(f"unknown kind {kind}")
    if any(r.get("estimated") for r in rep["methods"]) and field != "heat":
        raise SystemExit("an estimated profile's JSON has recorded counts for heat only")
    want = Counter()
    for r in rep["methods"]:
        want[r["function"]] += recorded(r, field)
    rows, total = parse_top(top_path)
    report(total == sum(want.values()) and total > 0, label, f"pprof total {total} = JSON {field} sum {sum(want.values())}")
    bad = [(n, c, want[n]) for n, c in rows if want[n] != c]
    report(len(rows) == min(10, len(+want)) and not bad, label,
           f"{len(rows)} top rows, each with its JSON count" + (f"; differ: {bad[:3]}" if bad else ""))
    ten = sorted((c for c in want.values() if c), reverse=True)[:10]
    report(sorted((c for _, c in rows), reverse=True) == ten, label, f"the top counts are the JSON's largest {ten[:3]}...")


def check_traces(json_path, traces_path, label):
    rep = json.load(open(json_path))
    want = Counter()
    for r in rep["call_pairs"]:
        want[(r["caller_function"], r["callee_function"])] += recorded(r, "count")
    got, bad = Counter(), []
    for block in open(traces_path).read().split("-----------+")[1:]:
        lines = [l for l in block.splitlines()[1:] if l.strip()]
        if not lines:
            continue
        m = re.match(r"^\s*(\d+)\s+(.+?)\s*$", lines[0])
        if not m or len(lines) != 2:
            bad.append(block.strip()[:60])
            continue
        got[(lines[1].strip(), m.group(2))] += int(m.group(1))
    report(not bad and got, label, f"{sum(1 for _ in got)} traces of two frames (callee, caller)" + (f"; bad: {bad[:2]}" if bad else ""))
    diff = [(k, want[k], got[k]) for k in set(want) | set(got) if want[k] != got[k]]
    report(not diff and want, label, f"traces summed by (caller, callee) equal the JSON call pairs ({len(want)})"
           + (f"; differ: {diff[:3]}" if diff else ""))


def check_total(json_path, top_path, key, label):
    want = json.load(open(json_path))["totals"][key]
    _, total = parse_top(top_path)
    report(total == want and want > 0, label, f"pprof total {total} = JSON totals.{key} {want}")


def check_names(full_path, addr_path, label):
    full, tf = parse_top(full_path)
    addr, ta = parse_top(addr_path)
    report(full and full == addr and tf == ta, label, f"pprof symbolized the same {len(full)} names and counts"
           + ("" if full == addr else f"; full {full[:3]} vs {addr[:3]}"))


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "top":
        check_top(*args)
    elif mode == "traces":
        check_traces(*args)
    elif mode == "total":
        check_total(*args)
    elif mode == "names":
        check_names(*args)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
