#!/usr/bin/env python3
"""check_dual_indirect.py — checks that a function with computed goto got two copies in a
two-version binary (plugin/dual_indirect.cpp, docs/dual.md "Computed goto").

usage: check_dual_indirect.py BINARY FUNCTION LABEL [--sites-only | --separate | --loop-entry | --wrapper
                                                    | --tables N]
Prints "ok LABEL: ..." / "FAIL LABEL: ..." lines (tests/e2e/lib.sh's format). Checked: FUNCTION has
an entry site and at least one back-edge site of its own (__hotprof_dual records {int32 site - &,
int32 target - &, u32 kind, u32 0} whose site and target both lie in FUNCTION: the one-body form);
and its code refers to exactly N (default 3) dispatch tables (arrays of pointers into FUNCTION,
read from the R_X86_64_RELATIVE relocations of a PIE or the data of a non-PIE) whose targets are
pairwise disjoint: the clean copy's table, the instrumented copy's and the rejoin copy's (N = 2
with -hotprof-dual-indirect-rejoin=clean: no rejoin copy; not with --sites-only: a
direct-threaded function builds its addresses in code, it has no table). With --separate (the separate form,
-hotprof-dual-indirect=separate): FUNCTION has one entry site, the nop at its first byte, whose
target is FUNCTION.hotprof, and back-edge sites whose targets lie in FUNCTION itself (the cold
blocks that count a clean back-edge and go on in the clean copy); FUNCTION's tables name only FUNCTION's blocks
and FUNCTION.hotprof's tables (at least one) only FUNCTION.hotprof's. With --loop-entry (the loop-entry
form, -hotprof-dual-loops=entry): the same, but the tables checked are FUNCTION.hotprof.loop's (the code;
FUNCTION.hotprof is a wrapper of it). With --wrapper: see wrapper(). Reads the ELF with readelf,
nm and objdump."""
import re
import struct
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def sections(path):
    out = {}
    for line in run("readelf", "-SW", path).splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 6 and parts[0].startswith("[") and parts[0] != "[Nr]":
            out[parts[1]] = (int(parts[3], 16), int(parts[4], 16), int(parts[5], 16))
    return out


def words(path, data, secs):
    """address -> pointer value, for every 8-byte pointer the loader or the file provides."""
    relative = {}
    for line in run("readelf", "-rW", path).splitlines():
        p = line.split()
        if len(p) >= 4 and p[2] == "R_X86_64_RELATIVE":
            relative[int(p[0], 16)] = int(p[3], 16)

    def at(addr):
        if addr in relative:
            return relative[addr]
        for a, off, size in secs.values():
            if a and a <= addr < a + size - 7:
                return struct.unpack_from("<Q", data, off + addr - a)[0]
        return None
    return at


def records(data, secs):
    """(site, target, kind) of every __hotprof_dual record."""
    a0, off, size = secs["__hotprof_dual"]
    out = []
    for i in range(0, size, 16):
        srel, trel, kind, _ = struct.unpack_from("<iiII", data, off + i)
        out.append((a0 + i + srel, a0 + i + 4 + trel, kind))
    return out


def refs(path, lo, hi):
    """the addresses that the code in [lo, hi) refers to (objdump's `# addr <sym>` comments)."""
    dis = run("objdump", "-d", "--no-show-raw-insn", "--start-address=%#x" % lo, "--stop-address=%#x" % hi, path)
    return {int(m.group(1), 16) for m in re.finditer(r"#\s*([0-9a-f]+) <", dis)}


def tables_of(path, at, lo, hi, inside, stops=()):
    """address -> set of targets of each table the code in [lo, hi) refers to (entries for which
    inside(target) holds, read until the first that does not, or the next address in stops or
    referred to)."""
    tables = {}
    mine = refs(path, lo, hi)
    starts = sorted(mine | set(stops))
    for k, addr in enumerate(starts):
        if addr not in mine:
            continue
        end = starts[k + 1] if k + 1 < len(starts) else None  # adjacent tables: stop at the next one
        targets, a = [], addr
        while a != end:
            w = at(a)
            if w is None or not inside(w):
                break
            targets.append(w)
            a += 8
        if targets:
            tables[addr] = set(targets)
    return tables


def separate(path, data, secs, syms, fn, report, tables_in=".hotprof"):
    lo, hi = syms[fn]
    clo, chi = syms.get(fn + ".hotprof", (None, None))
    wlo = clo  # the entry nop's target
    loop_entry = tables_in != ".hotprof"  # the loop-entry form: no F.hotprof, the code is F.hotprof.loop
    if loop_entry:
        if wlo is not None:
            report("%s: no %s.hotprof in the loop-entry form" % (fn, fn), False, "present")
        clo, chi = syms.get(fn + tables_in, (None, None))
    if clo is None or (wlo is None and not loop_entry):
        report("%s.hotprof%s present" % (fn, "" if not loop_entry else tables_in), False, "missing")
        return 1
    in_f = lambda x: lo <= x < hi
    in_c = lambda x: clo <= x < chi
    mine = [r for r in records(data, secs) if in_f(r[0])]
    entry = [r for r in mine if r[2] == 0]
    latch = [r for r in mine if r[2] == 1]
    if loop_entry:  # past F's static allocas, to a cold block of F that calls the clone
        report("%s has one entry site, inside it, jumping to a block of its own (%d entry sites)" % (fn, len(entry)),
               len(entry) == 1 and entry[0][0] != lo and in_f(entry[0][1]), repr(mine))
    else:
        report("%s has one entry site, the nop at its first byte jumping to %s.hotprof (%d entry sites)"
               % (fn, fn, len(entry)), len(entry) == 1 and entry[0][0] == lo and entry[0][1] == wlo, repr(mine))
    report("%s's back-edge sites go to its own blocks (%d back-edge sites, %d other)"
           % (fn, len(latch), len(mine) - len(entry) - len(latch)),
           len(latch) >= 1 and len(entry) + len(latch) == len(mine) and all(in_f(r[1]) for r in latch), repr(mine))
    at = words(path, data, secs)
    either = lambda x: in_f(x) or in_c(x)
    stops = refs(path, lo, hi) | refs(path, clo, chi)
    ft = tables_of(path, at, lo, hi, either, stops)
    ct = tables_of(path, at, clo, chi, either, stops)
    report("%s's tables name only its own blocks (%d tables)" % (fn, len(ft)),
           all(all(in_f(t) for t in ts) for ts in ft.values()), repr(ft))
    report("%s%s's tables name only its own blocks (%d tables)" % (fn, tables_in, len(ct)),
           len(ct) >= 1 and all(all(in_c(t) for t in ts) for ts in ct.values()), repr(ct))
    return 0


def wrapper(data, secs, syms, fn, report):
    """The wrapper form (dual-functions' default): FUNCTION's entry nop jumps to FUNCTION.hotprof, a
    wrapper much smaller than FUNCTION (it holds no copy of the code, no table), and every other
    site of FUNCTION goes to a block of FUNCTION itself (its clean latch sites)."""
    lo, hi = syms[fn]
    clo, chi = syms.get(fn + ".hotprof", (None, None))
    if clo is None:
        report("%s.hotprof present" % fn, False, "missing")
        return 1
    mine = [r for r in records(data, secs) if lo <= r[0] < hi]
    entry = [r for r in mine if r[2] == 0]
    report("%s has one entry site, the nop at its first byte jumping to its wrapper (%d entry sites)"
           % (fn, len(entry)), len(entry) == 1 and entry[0][0] == lo and entry[0][1] == clo, repr(mine))
    report("%s's other sites go to its own blocks (%d)" % (fn, len(mine) - len(entry)),
           all(r[2] == 1 and lo <= r[1] < hi for r in mine if r not in entry), repr(mine))
    report("%s.hotprof is a wrapper (%d bytes, %s has %d)" % (fn, chi - clo, fn, hi - lo),
           chi - clo < 160 and chi - clo < hi - lo, "")
    return 0


def main():
    path, fn, label = sys.argv[1:4]
    data = open(path, "rb").read()
    secs = sections(path)
    syms = {}
    for line in run("nm", "-S", "--defined-only", path).splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tT":
            syms[p[3]] = (int(p[0], 16), int(p[0], 16) + int(p[1], 16))
    lo, hi = syms.get(fn, (None, None))
    ok = True

    def report(name, good, why=""):
        nonlocal ok
        ok = ok and good
        print(("ok %s: %s" % (label, name)) if good else ("FAIL %s: %s: %s" % (label, name, why)))

    if lo is None or "__hotprof_dual" not in secs:
        report("%s and __hotprof_dual present" % fn, False, "missing")
        return 1
    if "--separate" in sys.argv:
        return separate(path, data, secs, syms, fn, report)
    if "--loop-entry" in sys.argv:
        return separate(path, data, secs, syms, fn, report, ".hotprof.loop")
    if "--wrapper" in sys.argv:
        return wrapper(data, secs, syms, fn, report)
    inside = lambda x: lo <= x < hi
    a0, off, size = secs["__hotprof_dual"]
    kinds = []
    for i in range(0, size, 16):
        srel, trel, kind, _ = struct.unpack_from("<iiII", data, off + i)
        s, t = a0 + i + srel, a0 + i + 4 + trel
        if inside(s) and inside(t):
            kinds.append(kind)
    report("%s has its own entry site and back-edge sites (%d entry, %d back-edge)"
           % (fn, kinds.count(0), kinds.count(1)), kinds.count(0) == 1 and kinds.count(1) >= 1)

    if "--sites-only" in sys.argv:
        return 0 if ok else 1
    want = int(sys.argv[sys.argv.index("--tables") + 1]) if "--tables" in sys.argv else 3
    tables = tables_of(path, words(path, data, secs), lo, hi, inside)
    sets = list(tables.values())
    disjoint = len(sets) == want and all(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1:])
    report("%s uses %d dispatch tables with disjoint targets (%s)"
           % (fn, want, ", ".join("%#x: %d" % (a, len(t)) for a, t in sorted(tables.items()))), disjoint)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
