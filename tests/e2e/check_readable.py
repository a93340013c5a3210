#!/usr/bin/env python3
"""check_readable.py — checks of test_readable.sh over `hotprof report` output (readable reports).

  whole REPORT.txt REPORT.json   every function name and file:line of the JSON (methods, call-pair
                                 callers) appears whole in the text table (nothing cut)
  calls OBJDUMP.txt LINE CALLEE  how many `call <CALLEE>` instructions objdump -l attributes to LINE
  pairs REPORT.json CALLER CALLEE  the call-pair rows of CALLER -> CALLEE as "line:count:sites ..."
  line0 DECODEDLINE REPORT.json BASE CALLER CALLEE  for the first row of CALLER -> CALLEE: "zero" if
                                 the line table (objdump --dwarf=decodedline) says line 0 at its
                                 caller address (minus the load bias BASE), else "nonzero"; then
                                 the line the report shows
Exit status 0 when a check holds (whole), and prints the value asked for (calls, pairs).
"""
import json
import re
import sys


def short_where(r, prefix=""):
    f, line = r[prefix + "file"], r[prefix + "line"]
    if not f:
        return ""
    parts = f.split("/")
    short = "/".join(parts[-2:]) if len(parts) > 2 or (len(parts) == 2 and parts[0]) else f
    return "%s:%d" % (short, line) if line > 0 else short


def whole(txt, js):
    text = open(txt).read()
    rep = json.load(open(js))
    missing = []
    for m in rep["methods"]:
        for want in (m["function"], short_where(m)):
            if want and want not in text:
                missing.append(want)
    for p in rep["call_pairs"]:
        for want in (p["caller_function"], p["callee_function"], short_where(p, "caller_")):
            if want and want not in text:
                missing.append(want)
    if missing:
        print("not whole in the text: %s" % missing[:5])
        return 1
    print("%d methods, %d call pairs, all whole" % (len(rep["methods"]), len(rep["call_pairs"])))
    return 0


def calls(dump, line, callee):
    n, cur = 0, None
    for l in open(dump):
        m = re.match(r"^/.*:(\d+)( \(discriminator \d+\))?$", l.strip())
        if m:
            cur = int(m.group(1))
        elif cur == int(line) and re.search(r"\bcall\s+[0-9a-f]+ <%s>" % re.escape(callee), l):
            n += 1
    print(n)
    return 0


def pairs(js, caller, callee):
    rep = json.load(open(js))
    rows = ["%d:%d:%d" % (p["caller_line"], p["count"], p["sites"]) for p in rep["call_pairs"]
            if p["caller_function"] == caller and p["callee_function"] == callee]
    print(" ".join(sorted(rows)))
    return 0


def table_line(dump, pc):
    rows = []
    for l in open(dump):
        f = l.split()
        if len(f) >= 3 and re.match(r"^0x[0-9a-f]+$", f[2]) and (f[1].isdigit() or f[1] == "-"):
            rows.append((int(f[2], 16), f[1]))
    found = None
    for (a, line), (b, _) in zip(rows, rows[1:]):
        if line != "-" and a <= pc < b:
            found = int(line)
    return found


def line0(dump, js, base, caller, callee):
    rep = json.load(open(js))
    row = [p for p in rep["call_pairs"] if p["caller_function"] == caller and p["callee_function"] == callee][0]
    pc = int(row["caller_addr"], 16) - int(base, 16)
    print("%s %d" % ("zero" if table_line(dump, pc) == 0 else "nonzero", row["caller_line"]))
    return 0


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    sys.exit({"whole": whole, "calls": calls, "pairs": pairs, "line0": line0}[cmd](*args))
