#!/usr/bin/env python3
"""check_dual_sites.py — checks the patchable sites of a two-version binary (plugin/hotprof_dual.cpp,
docs/dual.md) from its __hotprof_dual records {int32 site - &, int32 target - &, u32 kind, u32 0}.

usage: check_dual_sites.py BINARY LABEL [--clones F,G,...] [--loop-clones F,G,...] [--one-clone]
Prints "ok LABEL: ..." / "FAIL LABEL: ..." lines (tests/e2e/lib.sh's format). Checked: there are
records; every site lies inside one aligned 8-byte word (offset 0..3) and holds a 5-byte nop
(0f 1f 44 00 xx), or is an entry pad (the record's flags 2: an entry site of 16 16-aligned bytes
of nops, docs/dual.md *Entry pads*); an entry site (kind 0) whose target is a separate clone "F.hotprof" is F's very
first byte; every other site jumps inside its own function (the one-body form). With --clones, the
functions that got a separate clone are exactly F, G, ... ("" for none); with --loop-clones, those
with loop-entry clones "F.hotprof.loop[.N]" (called from F's latch nops); with --one-clone (the
loop-entry form of -hotprof-dual-loops=entry) each of those has one entry site (kind 0) inside F
and no separate clone "F.hotprof". With return sites
(-hotprof-dual-return-sites=on) a return site (kind 2, its call's distance in the last word's upper
half) is checked as a back-edge site, and call-range records (kind 3) are no sites: skipped. Reads the ELF with readelf
and nm (binutils): section addresses and file offsets, function symbols."""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "lib"))
from benchlib import nop_lengths  # noqa: E402


def sections(path):
    out = {}
    for line in subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 6 and parts[0].startswith("[") and parts[0] != "[Nr]":
            out[parts[1]] = (int(parts[3], 16), int(parts[4], 16), int(parts[5], 16))
    return out


def functions(path):
    syms = []
    for line in subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True, check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW":
            syms.append((int(p[0], 16), int(p[1], 16), p[3]))
    return syms


PAD = 2  # a record's flags: the site is a 16-byte entry pad (ctl/dual.h HP_DUAL_REC_PAD)


def main():
    path, label = sys.argv[1], sys.argv[2]
    def listed(opt):
        if opt not in sys.argv:
            return None
        return set(x for x in sys.argv[sys.argv.index(opt) + 1].split(",") if x)

    want, want_loops = listed("--clones"), listed("--loop-clones")
    data = open(path, "rb").read()
    secs, syms = sections(path), functions(path)
    by_addr = {a: n for a, _, n in syms}

    def func_of(addr):
        for a, s, n in syms:
            if a <= addr < a + max(s, 1):
                return n
        return None

    def file_bytes(addr, n):
        for a, off, size in secs.values():
            if a and a <= addr < a + size:
                return data[off + addr - a: off + addr - a + n]
        return b""

    ok = True

    def report(name, good, why=""):
        nonlocal ok
        ok = ok and good
        print(("ok %s: %s" % (label, name)) if good else ("FAIL %s: %s: %s" % (label, name, why)))

    if "__hotprof_dual" not in secs:
        report("has a __hotprof_dual section", False, "none")
        return 1
    a0, off, size = secs["__hotprof_dual"]
    recs = []
    for i in range(0, size, 16):
        srel, trel, kind, zero = struct.unpack_from("<iiII", data, off + i)
        if kind == 3:  # a call range of an instrumented copy (return sites on): no site
            continue
        if kind == 2 and zero & 0xFFFF == 0 and zero >> 16:  # a return site: its call's distance
            kind, zero = 1, 0  # checked as a back-edge site: a nop in its function
        recs.append((a0 + i + srel, a0 + i + 4 + trel, kind, zero))
    report("%d site records" % len(recs), len(recs) > 0)
    bad_align = [hex(s) for s, _, _, _ in recs if s & 7 > 3]
    report("every site in one aligned 8-byte word", not bad_align, str(bad_align[:4]))
    pads = [(s, k) for s, _, k, z in recs if z == PAD]
    bad_nop = [hex(s) for s, _, _, z in recs if z != PAD and file_bytes(s, 4) != b"\x0f\x1f\x44\x00"]
    report("every site is a 5-byte nop or an entry pad", not bad_nop, str(bad_nop[:4]))
    bad_pad = [hex(s) for s, k in pads if k != 0 or s & 15 or nop_lengths(file_bytes(s, 16)) is None]
    report("every entry pad (%d) is an entry site of 16 aligned bytes of nops" % len(pads), not bad_pad, str(bad_pad[:4]))
    bad_rec = [hex(s) for s, _, k, z in recs if k not in (0, 1) or z not in (0, PAD)]
    report("kinds 0/1, last word 0 (or the pad flag)", not bad_rec, str(bad_rec[:4]))
    clones, bad_entry, bad_inline = set(), [], []
    for s, t, k, _ in recs:
        tname = by_addr.get(t, "")
        if k == 0 and tname.endswith(".hotprof"):
            f = tname[: -len(".hotprof")]
            clones.add(f)
            if by_addr.get(s) != f:
                bad_entry.append((hex(s), tname))
        elif func_of(t) != func_of(s) or func_of(s) is None:
            bad_inline.append((hex(s), func_of(s), func_of(t)))
    report("separate clones entered at their function's first byte (%d)" % len(clones), not bad_entry, str(bad_entry[:4]))
    report("one-body sites jump inside their function", not bad_inline, str(bad_inline[:4]))
    if want is not None:
        report("functions with a separate clone: %s" % (",".join(sorted(want)) or "none"), clones == want,
               "got %s" % sorted(clones))
    if want_loops is not None:
        loops = {n.split(".hotprof.loop")[0] for _, _, n in syms if ".hotprof.loop" in n}
        report("functions with loop-entry clones: %s" % (",".join(sorted(want_loops)) or "none"), loops == want_loops,
               "got %s" % sorted(loops))
    if want_loops is not None and "--one-clone" in sys.argv:
        entries = {f: sum(1 for s, _, k, _ in recs if k == 0 and func_of(s) == f) for f in sorted(loops)}
        report("one entry site inside each function with a loop-entry clone, no F.hotprof",
               all(n == 1 for n in entries.values()) and not any(f + ".hotprof" in by_addr.values() for f in loops),
               str(entries))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
