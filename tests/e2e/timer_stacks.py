#!/usr/bin/env python3
"""timer_stacks.py — reads the STACKS sections of a timer-mode profile (docs/format.md: section
framing; format.h: hp_rec_stack) from the last complete group, for tests/e2e/test_timer*.sh.
It does no analysis beyond sums: the reports are `hotprof report --type samples`.

Usage: timer_stacks.py PROFILE BINARY  ->  prints, one per line:
  threads N            STACKS sections (threads with samples) in the last complete group
  tids N               distinct thread ids (THREAD sections followed by STACKS)
  samples N            sum of record counts
  self FUNC N          samples whose pcs[0] lies in FUNC (a symbol of BINARY, built -no-pie)
  total FUNC N         samples with FUNC anywhere on the stack (pcs[0] and return addresses)
  info KEY VALUE       the last group's INFO lines
  tfuncs TID F1,F2..   per STACKS section: its thread id and every function on its samples' stacks
"""
import struct, subprocess, sys, bisect

def sections(data):
    off = 32
    while off + 24 <= len(data):
        magic, typ, length = struct.unpack_from('<IIQ', data, off)
        if magic != 0x43535048 or off + 24 + length > len(data):
            break
        yield typ, data[off + 24: off + 24 + length]
        off += 24 + length

def last_group(data):
    group, done = [], None
    for typ, payload in sections(data):
        group.append((typ, payload))
        if typ == 10:  # GROUP_END
            done, group = group, []
    return done or []

def symbols(binary):
    out = subprocess.run(['nm', '-C', '--defined-only', binary], capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in 'tTwW':
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms

def func_of(syms, addrs, pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i][1] if i >= 0 and pc - syms[i][0] < 1 << 16 else None

def main():
    data = open(sys.argv[1], 'rb').read()
    syms = symbols(sys.argv[2])
    addrs = [a for a, _ in syms]
    threads, samples, tids, tid = 0, 0, set(), None
    self_, total = {}, {}
    for typ, p in last_group(data):
        if typ == 9:
            tid = struct.unpack_from('<Q', p, 0)[0]
        if typ == 1:
            for line in p.decode(errors='replace').splitlines():
                if '=' in line:
                    k, v = line.split('=', 1)
                    print('info', k, v)
        if typ != 13:
            continue
        threads += 1
        tids.add(tid)
        off = 0
        mine = set()
        while off + 24 <= len(p):
            count, tos, df = struct.unpack_from('<QQI', p, off)
            depth = df & 0xffff
            pcs = struct.unpack_from('<%dQ' % depth, p, off + 24)
            off += 24 + 8 * depth
            samples += count
            f = func_of(syms, addrs, pcs[0])
            self_[f] = self_.get(f, 0) + count
            # return addresses point after the call: look up pc - 1
            for g in {f} | {func_of(syms, addrs, pc - 1) for pc in pcs[1:]}:
                total[g] = total.get(g, 0) + count
                mine.add(str(g))
        print('tfuncs', tid, ','.join(sorted(mine)))
    print('threads', threads)
    print('tids', len(tids))
    print('samples', samples)
    for f, n in sorted(self_.items(), key=lambda x: -x[1]):
        print('self', f, n)
    for f, n in sorted(total.items(), key=lambda x: -x[1]):
        print('total', f, n)

main()
