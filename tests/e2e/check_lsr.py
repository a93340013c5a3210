#!/usr/bin/env python3
"""check_lsr.py — reads clang's `-mllvm -print-after=loop-reduce` dump (stderr of a compile) and
prints "LOOPS REDUCED": how many loops LoopStrengthReduce was shown, and how many of them have a
pointer-typed phi in their body (LSR's pointer induction variable; a loop LSR skipped, e.g. one not
in LoopSimplify form, keeps its integer index and recomputes the address). For test_dual_floor.sh.
usage: check_lsr.py DUMP"""
import re
import sys

text = open(sys.argv[1]).read()
loops = reduced = 0
for dump in text.split("*** IR Dump After Loop Strength Reduction")[1:]:
    if "; Loop:" not in dump:
        continue
    body = dump.split("; Loop:", 1)[1].split("; Exit blocks", 1)[0]
    loops += 1
    if re.search(r"= phi \S+\* ", body):
        reduced += 1
print(loops, reduced)
