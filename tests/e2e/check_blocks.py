#!/usr/bin/env python3
"""check_blocks.py REPORT_JSON LABEL — block/edge consistency of an exhaustive profile (from
`hotprof report --format json --top 0 --blocks --edges`). Edges join consecutive blocks of one
thread, so every execution of a block has exactly one in-edge except the first block a thread
runs, and one out-edge except the last: for every block 0 <= count - in <= threads and
0 <= count - out <= threads, and summed over blocks both differences equal the number of threads
that ran blocks. One ok/FAIL line per property."""
import json
import sys
from collections import defaultdict


def main():
    rep = json.load(open(sys.argv[1]))
    label = sys.argv[2]
    count = {b["guard"]: b["count"] for b in rep["blocks"]}
    inn, out = defaultdict(int), defaultdict(int)
    for e in rep["edges"]:
        inn[e["to_guard"]] += e["count"]
        out[e["from_guard"]] += e["count"]
    threads = rep["threads"]
    bad_in = [g for g in count if not 0 <= count[g] - inn[g] <= threads]
    bad_out = [g for g in count if not 0 <= count[g] - out[g] <= threads]
    unknown = [g for g in set(inn) | set(out) if g not in count]
    d_in = sum(count[g] - inn[g] for g in count)
    d_out = sum(count[g] - out[g] for g in count)
    results = [
        ("every block: in-edges = count except thread starts", not bad_in, bad_in[:5]),
        ("every block: out-edges = count except thread ends", not bad_out, bad_out[:5]),
        ("edges join known blocks only", not unknown, unknown[:5]),
        ("blocks without an in-edge = threads (%d)" % threads, d_in == threads, d_in),
        ("blocks without an out-edge = threads", d_out == d_in, d_out),
        ("profile has blocks", len(count) > 0 and sum(count.values()) > 0, len(count)),
    ]
    failed = 0
    for name, good, detail in results:
        print("%s %s: %s%s" % ("ok" if good else "FAIL", label, name, "" if good else " (%s)" % (detail,)))
        failed += not good
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
