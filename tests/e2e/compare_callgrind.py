#!/usr/bin/env python3
"""compare_callgrind.py CALLGRIND_OUT HOTPROF_JSON NM_FUNCS NAME — checks that hotprof's exhaustive
per-function call counts and call pairs equal callgrind's for every function defined in the
program (NM_FUNCS: one name per line, from nm). Prints one "ok"/"FAIL" line per property and the
first differences. Exit status 0 iff all equal."""
import json
import sys
from collections import defaultdict

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from callgrind_calls import parse  # noqa: E402


def hotprof_counts(report):
    calls, pairs = defaultdict(int), defaultdict(int)
    for m in report["methods"]:
        calls[m["function"]] += m["calls"]
    for p in report["call_pairs"]:
        pairs[p["caller_function"] + "\t" + p["callee_function"]] += p["count"]
    return calls, pairs


def diff(name, want, got, keys):
    bad = [(k, want.get(k, 0), got.get(k, 0)) for k in sorted(keys) if want.get(k, 0) != got.get(k, 0)]
    if bad:
        print("FAIL %s: %d differ (callgrind vs hotprof): %s" % (name, len(bad), "; ".join(
            "%s %d vs %d" % (k.replace("\t", "->"), w, g) for k, w, g in bad[:6])))
        return False
    print("ok %s (%d compared, %d calls)" % (name, len(keys), sum(want.get(k, 0) for k in keys)))
    return True


def main():
    cg = parse(sys.argv[1])
    with open(sys.argv[2]) as f:
        report = json.load(f)
    own = set(line.strip() for line in open(sys.argv[3]) if line.strip())
    label = sys.argv[4]
    h_calls, h_pairs = hotprof_counts(report)
    fkeys = {k for k in set(cg["calls"]) | set(h_calls) if k in own}
    pkeys = {k for k in set(cg["pairs"]) | set(h_pairs) if all(x in own for x in k.split("\t"))}
    if not fkeys:
        print("FAIL %s: no functions to compare" % label)
        return 1
    ok = diff(label + ": per-function calls equal callgrind", cg["calls"], h_calls, fkeys)
    ok &= diff(label + ": call pairs equal callgrind", cg["pairs"], h_pairs, pkeys)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
