#!/usr/bin/env python3
"""check_site_jmp.py — for test_dual_floor.sh: how many back-edge sites of function FN are followed
by an unconditional jmp before any other branch (the site block laid out after the latch, jumping
back to the header) and how many fall through into the loop body (whose next branch is its own). Sites come from the binary's __hotprof_dual records
{int32 site - &, int32 target - &, u32 kind, u32 0} (kind 1: back-edge); only sites whose target
lies inside FN's clean copy count (the one-body form). A site may carry segment-override prefixes
in front (the plugin's `.p2align 3,0x2e,4`): the instruction holding a site is the one whose bytes
span its address. Prints "JMP FALLTHROUGH".
usage: check_site_jmp.py BINARY FN"""
import re
import struct
import subprocess
import sys

binary, fn = sys.argv[1], sys.argv[2]
secs = {}
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    p = line.replace("[ ", "[").split()
    if len(p) > 6 and p[0].startswith("[") and p[0] != "[Nr]":
        secs[p[1]] = (int(p[3], 16), int(p[4], 16), int(p[5], 16))
addr, off, size = secs["__hotprof_dual"]
data = open(binary, "rb").read()[off:off + size]
sites = set()
for i in range(0, len(data) - 15, 16):
    s, _t, kind, _z = struct.unpack_from("<iiII", data, i)
    if kind == 1:
        sites.add(addr + i + s)
lo = hi = None
for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    p = line.split()
    if len(p) == 4 and p[3] == fn:
        lo, hi = int(p[0], 16), int(p[0], 16) + int(p[1], 16)
ins = []
for line in subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--start-address=%#x" % lo, "--stop-address=%#x" % hi, binary],
                           capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"\s+([0-9a-f]+):\t(\S+)", line)
    if m:
        ins.append((int(m.group(1), 16), m.group(2)))
jmp = fall = 0
for k, (a, _mn) in enumerate(ins[:-1]):
    if any(a <= s < ins[k + 1][0] for s in sites):
        # the first branch after the site: a jmp (back to the header, maybe after the induction
        # variables' steps the code generator put in the landing block) or the body's own branch
        nxt = next((mn for _a, mn in ins[k + 1:] if mn.startswith("j")), "")
        if nxt == "jmp":
            jmp += 1
        else:
            fall += 1
print(jmp, fall)
