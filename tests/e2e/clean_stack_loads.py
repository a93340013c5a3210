#!/usr/bin/env python3
"""clean_stack_loads.py — for test_dual_loopentry.sh: how many loads from the stack (a memory
source operand based on %rsp or %rbp, not lea) function FN's clean path holds: the instructions
reachable from FN's first byte through fall-through and direct jumps, where a call of
FN.hotprof.loop ends a path (the way back's reload blocks run after it) and a patchable nop is
only a nop (the loop-entry form's cold blocks are reached through its label alone). An indirect
jmp on that path cannot be followed: one message and exit status 2 (a clean switch table would
make the count a guess).
usage: clean_stack_loads.py BINARY FN"""
import re
import subprocess
import sys

binary, fn = sys.argv[1], sys.argv[2]
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True,
                     check=True).stdout
insns = []  # (address, mnemonic, operands)
on = False
for line in dis.splitlines():
    if line.endswith(f"<{fn}>:"):
        on = True
        continue
    if on and not line.strip():
        break
    m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line) if on else None
    if m:
        insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
if not insns:
    sys.exit(f"clean_stack_loads.py: no function {fn} in {binary}")
index = {a: i for i, (a, _m, _o) in enumerate(insns)}
stack_load = re.compile(r"^-?(0x[0-9a-f]+)?\(%r[sb]p[^,]*,")
seen, work, loads = set(), [0], 0
while work:
    i = work.pop()
    while i < len(insns) and i not in seen:
        seen.add(i)
        addr, mn, ops = insns[i]
        if not mn.startswith("lea") and stack_load.match(ops):
            loads += 1
        if mn.startswith("call") and ops.endswith(f"<{fn}.hotprof.loop>"):
            break
        if mn.startswith("ret") or mn.startswith("ud2"):
            break
        if mn.startswith("j"):
            if "*" in ops:
                sys.exit(f"clean_stack_loads.py: {fn}: an indirect jmp at {addr:x} on the clean path")
            t = re.match(r"([0-9a-f]+) <", ops)
            if t and int(t.group(1), 16) in index:
                work.append(index[int(t.group(1), 16)])
            if mn == "jmp":
                break
        i += 1
print(loads)
