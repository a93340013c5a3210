#!/usr/bin/env python3
"""check_dual.py — compares two exhaustive JSON reports (hotprof report --format json --top 0):
a plain --hooks=blocks build (A) and a two-version --hooks=dual-* build (B) of the same source.

usage: check_dual.py A.json B.json LABEL [--blocks] [--no-backedge FN]...
Prints "ok LABEL: ..." / "FAIL LABEL: ..." lines (tests/e2e/lib.sh's format). Checked: calls per
function and call pairs per (caller, callee) equal; with --blocks, total blocks and edges equal;
back-edges per function equal except the --no-backedge functions, whose back-edges must be 0 in B
and more than 0 in A (the address rule counted a backward jump that is no loop back-edge)."""
import json, sys


def load(path):
    with open(path) as f:
        return json.load(f)


def per(rows, key, val):
    out = {}
    for r in rows:
        k = key(r)
        out[k] = out.get(k, 0) + r[val]
    return out


def main():
    a, b, label = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
    blocks = "--blocks" in sys.argv
    nob = [sys.argv[i + 1] for i, x in enumerate(sys.argv) if x == "--no-backedge"]
    ok = True

    def report(name, good, why=""):
        nonlocal ok
        ok = ok and good
        print(("ok %s: %s" % (label, name)) if good else ("FAIL %s: %s: %s" % (label, name, why)))

    fa = per(a["methods"], lambda r: r["function"], "calls")
    fb = per(b["methods"], lambda r: r["function"], "calls")
    report("calls per function equal", fa == fb and len(fa) > 0,
           str(sorted(set(fa.items()) ^ set(fb.items()))[:6]))
    pk = lambda r: (r["caller_function"], r["callee_function"])
    pa, pb = per(a["call_pairs"], pk, "count"), per(b["call_pairs"], pk, "count")
    report("call pairs equal", pa == pb and len(pa) > 0, str(sorted(set(pa.items()) ^ set(pb.items()))[:6]))
    if blocks:
        ta, tb = a["totals"], b["totals"]
        report("blocks and edges equal", (ta["blocks"], ta["edges"]) == (tb["blocks"], tb["edges"]) and ta["blocks"] > 0,
               "A %s/%s, B %s/%s" % (ta["blocks"], ta["edges"], tb["blocks"], tb["edges"]))
    ba = per(a["methods"], lambda r: r["function"], "backedges")
    bb = per(b["methods"], lambda r: r["function"], "backedges")
    for fn in nob:
        report("%s: no back-edges (address rule: %d)" % (fn, ba.get(fn, 0)), bb.get(fn, -1) == 0 and ba.get(fn, 0) > 0,
               "A %s, B %s" % (ba.get(fn), bb.get(fn)))
    rest_a = {k: v for k, v in ba.items() if k not in nob}
    rest_b = {k: v for k, v in bb.items() if k not in nob}
    report("loop back-edges equal", rest_a == rest_b, str(sorted(set(rest_a.items()) ^ set(rest_b.items()))[:6]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
