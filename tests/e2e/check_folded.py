#!/usr/bin/env python3
"""check_folded.py FOLDED REPORT.json TYPE LABEL

Checks one `hotprof report --format folded --type TYPE` output against the JSON report of the same
profile (`hotprof report --format json --top 0 --blocks`) and prints lib.sh-style lines:
  * shape: every line is `frame;frame... count` (frames without ';', one space, an integer count),
    callpairs lines have two frames, methods one, blocks two; no stack appears twice;
  * order: counts descending, ties by text (bytewise), so the output is deterministic;
  * sum: the counts add up to the profile's totals (JSON "totals"): call_pairs for callpairs,
    calls + backedges for methods, blocks for blocks;
  * content: the JSON rows summed by name (callpairs: caller;callee, methods: function, blocks:
    function) equal the folded lines summed the same way (recorded counts: "sampled" of an
    estimated bursty row);
  * hottest: the first folded line is the hottest name (the JSON sums' maximum), and report's top
    row (its first JSON entry) is that name, or ties with it.
"""
import json
import re
import sys
from collections import Counter

LINE = re.compile(r"^([^ ]+(?: [^ ]+)*) ([0-9]+)$")
SPEC = {  # type: (JSON member, frames per line, JSON row -> name key (its first frames), count field)
    "callpairs": ("call_pairs", 2, lambda r: (r["caller_function"], r["callee_function"]), "count"),
    "methods": ("methods", 1, lambda r: (r["function"],), "heat"),
    "blocks": ("blocks", 2, lambda r: (r.get("function", "[unmapped]"),), "count"),
}
KEYLEN = {"callpairs": 2, "methods": 1, "blocks": 1}


def clean(name):
    return "".join("_" if c == ";" or ord(c) < 0x20 or c == "\x7f" else c for c in name) or "?"


def total_of(kind, totals):
    if kind == "callpairs":
        return totals["call_pairs"]
    if kind == "methods":
        return totals["calls"] + totals["backedges"]
    return totals["blocks"]


def recorded(row, field):
    return row["sampled"] if row.get("estimated") else row[field]


def report(ok, label, what):
    print(("ok" if ok else "FAIL") + f" {label}: {what}")


def main():
    folded_path, json_path, kind, label = sys.argv[1:5]
    member, nframes, key_of, field = SPEC[kind]
    keylen = KEYLEN[kind]
    rep = json.load(open(json_path))
    lines = open(folded_path).read().splitlines()
    parsed, bad = [], []
    for line in lines:
        m = LINE.match(line)
        frames = m.group(1).split(";") if m else []
        if not m or len(frames) != nframes or "" in frames:
            bad.append(line)
        else:
            parsed.append((m.group(1), frames, int(m.group(2))))
    report(lines and not bad, label, f"{len(lines)} lines of {nframes} frame(s) and a count"
           + (f"; bad: {bad[:3]}" if bad else ""))
    stacks = [p[0] for p in parsed]
    report(len(set(stacks)) == len(stacks), label, "every stack once")
    order = [(-c, s.encode()) for s, _, c in parsed]
    report(order == sorted(order), label, "sorted by count descending, then text")
    got, want = sum(c for _, _, c in parsed), total_of(kind, rep["totals"])
    report(got == want and want > 0, label, f"counts sum to the totals ({got} vs {want})")
    exp = Counter()
    for row in rep[member]:
        exp[tuple(clean(n) for n in key_of(row))] += recorded(row, field)
    fold = Counter()
    for _, frames, c in parsed:
        fold[tuple(frames[:keylen])] += c
    diff = [(k, exp[k], fold[k]) for k in set(exp) | set(fold) if exp[k] != fold[k] and exp[k] + fold[k] > 0]
    report(not diff, label, f"the JSON rows summed by name equal the folded lines ({len(exp)} names)"
           + (f"; differ: {diff[:3]}" if diff else ""))
    top = tuple(parsed[0][1][:keylen]) if parsed else None
    first = tuple(clean(n) for n in key_of(rep[member][0])) if rep[member] else None
    hottest = max(exp.values()) if exp else 0
    report(top is not None and exp[top] == hottest and exp[first] == hottest, label,
           f"hottest folded {top} ({fold[top]}) is report's top {first}")


if __name__ == "__main__":
    main()
