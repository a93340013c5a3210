#!/usr/bin/env python3
"""callgrind_calls.py OUT — reads a callgrind output file written with --compress-strings=no
and prints JSON: {"calls": {callee: total calls}, "pairs": {"caller\\tcallee": calls}}.
Callgrind is the exact oracle: it counts every call instruction executed under valgrind."""
import json
import sys
from collections import defaultdict


def parse(path):
    calls, pairs = defaultdict(int), defaultdict(int)
    fn = cfn = None
    expect_cost_after_calls = False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if expect_cost_after_calls:
                expect_cost_after_calls = False
                continue
            if line.startswith("fn="):
                fn = line[3:]
            elif line.startswith("cfn="):
                cfn = line[4:]
            elif line.startswith("calls="):
                n = int(line[6:].split()[0])
                calls[cfn] += n
                pairs[fn + "\t" + cfn] += n
                expect_cost_after_calls = True
    return {"calls": calls, "pairs": pairs}


if __name__ == "__main__":
    json.dump(parse(sys.argv[1]), sys.stdout, indent=0, sort_keys=True)
