#!/usr/bin/env python3
"""check_expect.py EXPECT REPORT_JSON LABEL — compares what a test program says it did (its
stdout: "expect FN CALLS", "expect_backedges FN N", "expect_threads N", "expect_signal N") with
`hotprof report --format json --top 0`. One ok/FAIL line per expectation."""
import json
import sys


def main():
    with open(sys.argv[2]) as f:
        rep = json.load(f)
    label = sys.argv[3]
    calls = {m["function"]: m["calls"] for m in rep["methods"]}
    backedges = {m["function"]: m["backedges"] for m in rep["methods"]}
    failed = checked = 0
    for line in open(sys.argv[1]):
        parts = line.split()
        if not parts or not parts[0].startswith("expect"):
            continue
        kind = parts[0]
        if kind == "expect":
            name, want, got = "calls of " + parts[1], int(parts[2]), calls.get(parts[1], 0)
        elif kind == "expect_backedges":
            name, want, got = "back-edges of " + parts[1], int(parts[2]), backedges.get(parts[1], 0)
        elif kind == "expect_threads":
            name, want, got = "threads", int(parts[1]), rep["threads"]
        elif kind == "expect_signal":
            name, want, got = "signal recorded", int(parts[1]), rep["run"]["signal"]
        else:
            continue
        checked += 1
        if want == got:
            print("ok %s: %s = %d" % (label, name, want))
        else:
            failed += 1
            print("FAIL %s: %s: want %d, profile has %d" % (label, name, want, got))
    if checked == 0:
        print("FAIL %s: program printed no expectations" % label)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
