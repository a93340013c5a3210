#!/usr/bin/env python3
"""bench/fastpath/floor_split.py — where a dual build's switched-off floor goes, in instructions.
For each workload it builds native (clang -O2) and every variant (as bench/fastpath/instr.py:
NAME=HOOKS[:OPT,...]), runs each under callgrind --dump-instr=yes with HOTPROF_MODE=off at the
QUICK sizes of bench/shadow, checks the output equals native's, and splits the variant's
instructions over native's into
  entry    the entry sites' nops executed (function entries, whole-call entries; a 16-byte
           entry pad's two nops)
  latch    the back-edge sites' nops executed (loop latches)
  return   the return sites' nops executed
  lpad     the latch pads' nops executed (--dual-latch=branch builds since session 38: a guard's
           2-byte nop and the pad's three, run by what falls into a loop's header from above: a
           loop entry; docs/dual.md "Latch pads")
  pad      the alignment nop executed right before a site (one 1-4-byte nop: not the tail of a
           longer run, which is the code generator's loop alignment): the 5-byte nop must not cross an
           aligned 8-byte word, so the runtime can switch it with one store. The plugin pads with
           segment-override prefixes of the site itself (`.p2align 3,0x2e,4`), which execute as
           part of it, so this is 0 for its builds; builds padded with nops (`.p2align 3,,4`, the
           plugin before session 30) show them here
  jmp      the unconditional jumps executed right after a site (a site on a latch edge, laid
           out below the loop: a jmp back to the header per back-edge)
  rest     everything else: the code generator's work around the sites and the two copies
           (spills, lost folds), the runtime's start-up, peeled copies
each as a fraction of native's instructions: ratio = 1 + entry + latch + return + lpad + pad + jmp + rest.
The sites are read from the binary's __hotprof_dual records (docs/dual.md): each record's site
is one 5-byte nop. So entry + latch is what any design with a check per entry and per back-edge
pays in instructions (HPS's checking code; a nop counts as a whole instruction here, though in
time it is nearly free), and lpad + pad + jmp + rest is what this design pays on top.
Nop sites only: a variant built with count sites (--dual-sites=count) is refused (its site is a
decrement and a branch, or a register's, and the record does not say which).
Usage: floor_split.py [--variants "NAME=HOOKS[:OPT,...] ..."] [--programs "..."] [--sizes "P=N ..."]
                      [--jobs N] [--results DIR] [--name NAME]
Output: a table (stdout and NAME.txt) and NAME.csv:
  program,build,native,instructions,ratio,entry,latch,return,lpad,pad,jmp,rest"""
import argparse
import concurrent.futures
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import instr  # noqa: E402  (build, parse_variant, write_results, benchlib, QUICK_SIZES, ROOT)

DEFAULT_VARIANTS = "dfn=dual-functions dblk=dual-blocks"
KINDS = {0: "entry", 1: "latch", 2: "return"}
PARTS = ("entry", "latch", "return", "lpad", "pad", "jmp", "rest")
PAD_NOPS = (b"\x90", b"\x66\x90", b"\x0f\x1f\x00", b"\x0f\x1f\x40\x00")  # what .p2align pads with (1-4 bytes)


def executed(cg_file):
    """{address: executions} of a callgrind --dump-instr=yes profile (Ir per instruction address)."""
    counts, last, after_call = {}, 0, False
    pat = re.compile(r"^(0x[0-9a-f]+|\+[0-9]+|-[0-9]+|\*)\s+\S+\s+(\d+)")
    with open(cg_file) as f:
        for line in f:
            if line.startswith("calls="):
                after_call = True  # (the next line is the call's inclusive cost, not the instruction's)
                continue
            m = pat.match(line)
            if not m:
                continue
            a = m.group(1)
            last = int(a, 16) if a.startswith("0x") else last if a == "*" else last + int(a)
            if after_call:
                after_call = False
                continue
            counts[last] = counts.get(last, 0) + int(m.group(2))
    return counts


def section(binary, name):
    """(address, bytes) of the binary's section `name`, or (0, b"")."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split("]", 1)[1].split() if "]" in line else []
        if f and f[0] == name:
            addr, off, size = int(f[2], 16), int(f[3], 16), int(f[4], 16)
            with open(binary, "rb") as fh:
                fh.seek(off)
                return addr, fh.read(size)
    return 0, b""


def site_records(binary):
    """[(site address, kind, flags)] of the binary's __hotprof_dual section."""
    addr, data = section(binary, "__hotprof_dual")
    recs = []
    for i in range(0, len(data) - len(data) % 16, 16):
        site_rel, _target_rel, kind, flags = struct.unpack("<iiII", data[i:i + 16])
        recs.append((addr + i + site_rel, kind, flags))
    return recs


def latch_pads(binary):
    """{pad address: guard address or None} of the latch pads the binary's __hotprof_dualbr records
    name (--dual-latch=branch; the record's last field is the guard, or the pad itself when it has
    none; the pad ends at the record's continuation C)."""
    addr, data = section(binary, "__hotprof_dualbr")
    pads = {}
    for i in range(0, len(data) - len(data) % 16, 16):
        _field, _on, off, pad = struct.unpack("<iiii", data[i:i + 16])
        if pad:
            p, x = addr + i + 8 + off - 16, addr + i + 12 + pad
            pads[p] = None if x == p else x
    return pads


def code_reader(binary):
    """A function (vaddr, n) -> the n bytes the binary's loadable segments hold there."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    segs = [(int(f[2], 16), int(f[1], 16), int(f[4], 16)) for f in (l.split() for l in out.splitlines())
            if f and f[0] == "LOAD"]  # (vaddr, offset, file size)
    data = open(binary, "rb").read()

    def read(vaddr, n):
        for va, off, size in segs:
            if va <= vaddr and vaddr + n <= va + size:
                return data[off + vaddr - va:off + vaddr - va + n]
        return b""
    return read


def site_start(read, addr, counts):
    """The address of the instruction holding the site at addr: addr itself, or up to 4 bytes
    before it when the site carries segment-override prefixes (0x2e) in front."""
    if addr in counts:
        return addr
    for k in range(1, 5):
        if addr - k in counts and read(addr - k, k) == b"\x2e" * k:
            return addr - k
    return addr


def after_long_nop(read, counts, at):
    """An executed long nop ends at at: the nop there is the tail of the code generator's own loop
    alignment (up to 15 bytes to a 16-byte boundary), not a site's 1-4-byte fill."""
    return any(counts.get(at - k) and instr.benchlib.nop_lengths(read(at - k, k)) == [k] for k in range(5, 16))


def around_sites(read, starts, counts, entry_pads=()):
    """(pad, jmp): executions of the alignment nops ending at a site, and of the jmp after it;
    starts: [(site, the address of its instruction)]; entry_pads: the 16-byte entry and latch pads'
    addresses (their nops are counted as theirs: a site right after a pad is not padded by it)."""
    pad, jmp = 0, 0
    in_pad = lambda a: any(p <= a < p + 16 for p in entry_pads)  # noqa: E731
    for site, addr in starts:
        for nop in PAD_NOPS:
            at = addr - len(nop)
            if counts.get(at) and read(at, len(nop)) == nop and not in_pad(at) and not after_long_nop(read, counts, at):
                pad += counts[addr - len(nop)]
                break
        if counts.get(site + 5) and read(site + 5, 1) in (b"\xe9", b"\xeb"):
            jmp += counts[site + 5]
    return pad, jmp


def run(binary, size, work):
    """(instructions, stdout, {kind: site nops executed, "pad": ..., "jmp": ...}) of one switched-off
    run."""
    out_file = os.path.join(work, "cg.%s.%x" % (os.path.basename(binary), abs(hash(binary))))
    env = dict(os.environ, HOTPROF_OUTPUT="/dev/null", **instr.MODES["off"])
    ins, stdout = instr.benchlib.callgrind_instructions([binary, size], env, out_file, ["--dump-instr=yes"])
    counts = executed(out_file)
    os.unlink(out_file)
    sites = {k: 0 for k in KINDS}
    read, starts, entry_pads = code_reader(binary), [], []
    for site, kind, flags in site_records(binary):
        if flags & 1:
            sys.exit("floor_split.py: %s has count sites: only nop sites can be split" % binary)
        starts.append((site, site_start(read, site, counts)))
        sites[kind] = sites.get(kind, 0) + counts.get(starts[-1][1], 0)
        if flags & 2:  # a 16-byte entry pad: its second nop too (clang's 10+6 or 15+1)
            sites[kind] += counts.get(site + 10, 0) or counts.get(site + 15, 0)
            entry_pads.append(site)
    pads = latch_pads(binary)
    sites["lpad"] = sum(counts.get(p, 0) + counts.get(p + 9, 0) + counts.get(p + 15, 0) + counts.get(x, 0)
                        for p, x in pads.items())
    sites["pad"], sites["jmp"] = around_sites(read, starts, counts, entry_pads + list(pads))
    return ins, stdout, sites


def table(rows, header):
    lines = [header, "switched-off instructions x native, split (fractions of native's instructions; "
             "ratio = 1 + entry + latch + return + lpad + pad + jmp + rest)",
             "%-9s %-8s %7s" % ("program", "build", "ratio") + "".join(" %7s" % k for k in PARTS)]
    for r in rows:
        lines.append("%-9s %-8s %7.3f" % (r["program"], r["build"], r["ratio"]) +
                     "".join(" %7.3f" % r[k] for k in PARTS))
    for b in dict.fromkeys(r["build"] for r in rows):
        mine = [r for r in rows if r["build"] == b]
        gm = statistics.geometric_mean([r["ratio"] for r in mine])
        means = ["%7.3f" % statistics.mean(r[k] for r in mine) for k in PARTS]
        lines.append("%-9s %-8s %7.3f %s" % ("mean", b, gm, " ".join(means)) + "   (ratio: geomean; parts: means)")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default=DEFAULT_VARIANTS)
    ap.add_argument("--programs", default=" ".join(instr.QUICK_SIZES))
    ap.add_argument("--sizes", default="", help="PROGRAM=SIZE ... instead of the QUICK sizes")
    ap.add_argument("--jobs", type=int, default=2, help="callgrind runs at once (counts do not depend on load)")
    ap.add_argument("--results", default=os.path.join(instr.ROOT, "bench", "results"))
    ap.add_argument("--name", default="fastpath_floor_split", help="results file name (NAME.txt, NAME.csv)")
    a = ap.parse_args()
    variants = [instr.parse_variant(v) for v in a.variants.split()]
    for n, _, opts, mode in variants:
        if mode != "off" or any(o.startswith("--dual-sites=count") for o in opts):
            sys.exit("floor_split.py: variant %s: switched off with nop sites only" % n)
    programs = a.programs.split()
    for p in programs:
        if p not in instr.QUICK_SIZES:
            sys.exit("floor_split.py: no workload '%s' (have: %s)" % (p, " ".join(instr.QUICK_SIZES)))
    sizes = dict(instr.QUICK_SIZES, **dict(s.split("=", 1) for s in a.sizes.split()))
    with tempfile.TemporaryDirectory(prefix="hotprof-floor.") as work:
        dirs = {"native": instr.build(work, "native", "native", [])[0]}
        for n, hooks, opts, _ in variants:
            print("[floor] building %s" % n, file=sys.stderr, flush=True)
            dirs[n] = instr.build(work, n, hooks, opts)[0]
        jobs = [(p, n) for p in programs for n in dirs]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            got = dict(zip(jobs, ex.map(lambda j: run(os.path.join(dirs[j[1]], j[0]), sizes[j[0]], work), jobs)))
    rows = []
    for p in programs:
        base, want, _ = got[(p, "native")]
        for n, _, _, _ in variants:
            ins, out, sites = got[(p, n)]
            if out != want:
                sys.exit("floor_split.py: %s's %s printed something else than native" % (n, p))
            part = {KINDS[k]: sites.get(k, 0) / base for k in KINDS}
            part.update(lpad=sites["lpad"] / base, pad=sites["pad"] / base, jmp=sites["jmp"] / base)
            rest = ins / base - 1 - sum(part.values())
            rows.append(dict({"program": p, "build": n, "native": base, "instructions": ins, "ratio": ins / base},
                             **part, rest=rest))
    header = "# bench/fastpath/floor_split.py --variants \"%s\"" % a.variants
    instr.write_results(a.results, a.name, table(rows, header), rows)


if __name__ == "__main__":
    main()
