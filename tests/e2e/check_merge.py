#!/usr/bin/env python3
"""check_merge.py MODE ... — checks `hotprof merge` outputs through JSON reports
(`hotprof report --format json --top 0 --blocks --edges`) and prints lib.sh-style lines.

Rows are keyed by what survives a process boundary (names and source lines, never addresses or
guard ids): methods by function; call pairs by (caller, caller line, callee); blocks by
(function, line); edges by (from function, from line). Several rows may share a key (a call
site unrolled five times), so each key holds the sorted list of its counts.

  sum MERGED WHOLE LABEL [EXCLUDE]: every table of MERGED equals WHOLE's, rows touching a function
      in EXCLUDE (comma-separated; the per-process part, e.g. main) left out; they must exist.
  scale MERGED INPUT FACTOR LABEL: every count of MERGED is FACTOR x INPUT's, every row included.
  names MERGED LABEL INPUT...: the function names of MERGED are the union of the inputs', and
      every methods row of MERGED is symbolized when the inputs' rows with that address are.
"""
import json
import sys
from collections import defaultdict

TABLES = {
    "methods": (lambda r: r.get("function"), ("calls", "backedges"), lambda r: [r.get("function")]),
    "call_pairs": (lambda r: (r.get("caller_function"), r.get("caller_line"), r.get("callee_function")), ("count",),
                   lambda r: [r.get("caller_function"), r.get("callee_function")]),
    "blocks": (lambda r: (r.get("function"), r.get("line")), ("count",), lambda r: [r.get("function")]),
    "edges": (lambda r: (r.get("from_function"), r.get("from_line")), ("count",), lambda r: [r.get("from_function")]),
}


def say(ok, label, what):
    print(("ok" if ok else "FAIL") + f" {label}: {what}")


def load(path):
    with open(path) as f:
        return json.load(f)


def keyed(rep, table, exclude=()):
    key, fields, names = TABLES[table]
    out = defaultdict(list)
    for r in rep.get(table, []):
        if any(n in exclude for n in names(r)):
            continue
        out[key(r)].append(tuple(r[f] for f in fields))
    return {k: sorted(v) for k, v in out.items()}


def first_difference(a, b):
    for k in sorted(set(a) | set(b), key=repr):
        if a.get(k) != b.get(k):
            return f"{k}: {a.get(k)} vs {b.get(k)}"
    return None


def mode_sum(merged, whole, label, exclude=""):
    m, w = load(merged), load(whole)
    ex = set(x for x in exclude.split(",") if x)
    for t in TABLES:
        a, b = keyed(m, t, ex), keyed(w, t, ex)
        if not b:
            say(False, label, f"{t}: the whole run has no rows (nothing to compare)")
            continue
        diff = first_difference(a, b)
        say(diff is None, label, f"{t}: {len(b)} keys equal the whole run's" if diff is None else f"{t}: {diff}")


def mode_scale(merged, one, factor, label):
    m, o, k = load(merged), load(one), int(factor)
    for t in TABLES:
        a, b = keyed(m, t), keyed(o, t)
        scaled = {key: sorted(tuple(x * k for x in row) for row in rows) for key, rows in b.items()}
        if not b and t in ("methods", "call_pairs"):
            say(False, label, f"{t}: the input has no rows")
            continue
        diff = first_difference(a, scaled)
        say(diff is None, label, f"{t}: {len(b)} keys are x{k}" if diff is None else f"{t}: {diff}")


def mode_names(merged, label, *inputs):
    m = load(merged)
    got = set(r.get("function") for r in m.get("methods", []))
    want = set()
    for i in inputs:
        want |= set(r.get("function") for r in load(i).get("methods", []))
    say(got == want and len(got) > 1, label, f"{len(got)} function names, the union of the inputs'"
        if got == want else f"only in merged {sorted(map(str, got - want))}, missing {sorted(map(str, want - got))}")


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    {"sum": mode_sum, "scale": mode_scale, "names": mode_names}[mode](*args)


if __name__ == "__main__":
    main()
