#!/usr/bin/env python3
"""check_retsites.py EXACT.json SAMPLED.json LABEL LO HI — return sites (docs/dual.md "Return
sites"): the subpaths of progs/dual_retsites.c that cross inner()'s return into main (a block of
`inner` followed by one of `main`), as `hotprof report --type subpath --format json --top 0`
gives them. Prints "ok LABEL ..." if the sum of their estimates over the sum of their exact
counts lies in [LO, HI], else "FAIL LABEL: ...". Reads only the rows of both reports.
"""
import json
import sys


def rows(path):
    return json.load(open(path))["subpaths"]["rows"]


def crosses(r):
    f = [b.get("function") for b in r["blocks"]]
    return any(a == "inner" and b == "main" for a, b in zip(f, f[1:]))


def main(argv):
    exact, sampled, label, lo, hi = argv[1], argv[2], argv[3], float(argv[4]), float(argv[5])
    est = {(r["key"], r["length"]): r["estimate"] for r in rows(sampled)}
    cross = [r for r in rows(exact) if crosses(r)]
    n = sum(r["count"] for r in cross)
    e = sum(est.get((r["key"], r["length"]), 0) for r in cross)
    ratio = e / n if n else 0
    good = bool(cross) and lo <= ratio <= hi
    what = "%d crossing subpaths: estimate %.0f / exact %d = %.3f (want %.2f..%.2f)" % (len(cross), e, n, ratio, lo, hi)
    print(("ok %s: %s" % (label, what)) if good else ("FAIL %s: %s" % (label, what)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
