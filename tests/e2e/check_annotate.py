#!/usr/bin/env python3
"""check_annotate.py — checks `hotprof annotate` output against `hotprof report --blocks --format
json --top 0` of the same profile (and objdump for --asm). One ok/FAIL line per property.

  check_annotate.py lines ANNOT_JSON ANNOT_TEXT REPORT_JSON LABEL
      the line counts (JSON and the counts printed as text) sum to the function's block counts in
      the report; the hottest line printed is the hottest (file, line) of the report's blocks of
      the function, and the line of the hottest block has at least that block's count.
  check_annotate.py asm ANNOT_JSON ANNOT_TEXT OBJDUMP_TXT REPORT_JSON LABEL
      the instructions are objdump's (same offsets from the function start, same mnemonics for
      the first ones), and the counts of the block-start instructions sum to the same total.
Counts of a bursty report are its "sampled" values (annotate prints the recorded counts).
"""
import json
import re
import sys
from collections import defaultdict

ROW = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+(.*)$")


def recorded(b):
    return b["sampled"] if b.get("estimated") else b["count"]


def report_blocks(path, function):
    return [b for b in json.load(open(path))["blocks"] if b.get("function") == function]


def results(checks, label):
    failed = 0
    for name, good, detail in checks:
        print("%s %s: %s%s" % ("ok" if good else "FAIL", label, name, "" if good else " (%s)" % (detail,)))
        failed += not good
    return failed


def text_rows(path):
    """(count, rest) of every row of annotate's text that carries a count; and the header's file."""
    rows, main_file = [], None
    for line in open(path):
        if line.startswith("  file:   "):
            main_file = line[len("  file:   "):].strip()
        m = ROW.match(line.rstrip("\n"))
        if m:
            rows.append((int(m.group(1)), m.group(2)))
    return rows, main_file


def row_key(rest, main_file):
    """(file, line) of a source-view row: '  112  text', 'file:line' or 'file (no line)'."""
    m = re.match(r"^(\d+)(\s|$)", rest.strip())
    if m:
        return (main_file, int(m.group(1)))
    m = re.match(r"^(.*) \(no line\)$", rest.strip())
    if m:
        return (m.group(1), 0)
    m = re.match(r"^(.*):(\d+)$", rest.strip())
    return (m.group(1), int(m.group(2))) if m else (None, 0)


def lines_mode(annot_json, annot_text, report_json, label):
    a = json.load(open(annot_json))
    blocks = report_blocks(report_json, a["function"])
    want = sum(recorded(b) for b in blocks)
    by_line = defaultdict(int)
    for b in blocks:
        by_line[(b.get("file"), b.get("line") or 0)] += recorded(b)
    rows, main_file = text_rows(annot_text)
    text_sum = sum(c for c, _ in rows)
    best = max(by_line.values()) if by_line else 0
    hottest_rows = [r for r in rows if r[0] == max(c for c, _ in rows)] if rows else []
    hot_key = row_key(hottest_rows[0][1], main_file) if hottest_rows else None
    top_block = max(blocks, key=recorded) if blocks else None
    top_key = (top_block.get("file"), top_block.get("line") or 0) if top_block else None
    top_line = [l for l in a["lines"] if (l["file"], l["line"]) == top_key]
    return results([
        ("function has blocks in the report", want > 0 and len(blocks) > 0, len(blocks)),
        ("JSON total = sum of the report's block counts", a["total"] == want, (a["total"], want)),
        ("JSON line counts sum to the total", sum(l["count"] for l in a["lines"]) == want,
         sum(l["count"] for l in a["lines"])),
        ("text counts sum to the total", text_sum == want, (text_sum, want)),
        ("hottest line printed is the report's hottest line", hot_key in by_line and by_line[hot_key] == best,
         (hot_key, by_line.get(hot_key), best)),
        ("the hottest block's line has at least its count",
         len(top_line) == 1 and top_line[0]["count"] >= recorded(top_block), (top_key, top_line)),
    ], label)


def objdump_insns(path):
    """[(address, mnemonic)] of objdump -d --no-show-raw-insn -M intel output."""
    out = []
    for line in open(path):
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)", line)
        if m and not line.rstrip().endswith(":"):
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def asm_mode(annot_json, annot_text, objdump_txt, report_json, label):
    a = json.load(open(annot_json))
    want = sum(recorded(b) for b in report_blocks(report_json, a["function"]))
    insns = a["instructions"]
    start = int(a["start"], 16)
    ours = [(int(i["addr"], 16) - start, i["text"].split()[0]) for i in insns]
    theirs = objdump_insns(objdump_txt)
    base = theirs[0][0] if theirs else 0
    theirs = [(addr - base, mn) for addr, mn in theirs]
    marked = sum(i["count"] for i in insns if i["block_start"])
    text_marked = 0
    for line in open(annot_text):
        m = re.match(r"^\s*(\d+)\s+[\d.]+%\s+>\s", line)
        if m:
            text_marked += int(m.group(1))
    return results([
        ("instructions at objdump's offsets", [o for o, _ in ours] == [o for o, _ in theirs] and ours,
         (len(ours), len(theirs), ours[:3], theirs[:3])),
        ("first mnemonics are objdump's", [m for _, m in ours[:6]] == [m for _, m in theirs[:6]],
         (ours[:6], theirs[:6])),
        ("block-start counts (JSON) sum to the total", marked == want and a["total"] == want, (marked, want)),
        ("block-start counts (text, '>') sum to the total", text_marked == want, (text_marked, want)),
    ], label)


def main():
    mode = sys.argv[1]
    if mode == "lines":
        return 1 if lines_mode(*sys.argv[2:6]) else 0
    if mode == "asm":
        return 1 if asm_mode(*sys.argv[2:7]) else 0
    print("FAIL check_annotate.py: unknown mode %s" % mode)
    return 1


if __name__ == "__main__":
    sys.exit(main())
