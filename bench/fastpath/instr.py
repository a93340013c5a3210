#!/usr/bin/env python3
"""bench/fastpath/instr.py — the switched-off floor of hotprof builds in instructions: cachegrind
(--cache-sim=no; callgrind until session 37: benchlib.instructions says why) counts every
instruction a run executes, the same number in every run (mt_work's threads start in varying
order: its counts move by ~1e-5), so floors that differ by 1-2% show although this host's
wall-clock noise is +-10% (docs/dual.md "Back-edge hooks that keep the registers"). For each workload it builds native (clang -O2) and every variant (hotprof cc
--hooks=HOOKS -O2, each OPT as -mllvm OPT), runs each under cachegrind with HOTPROF_MODE=off at the
QUICK sizes of bench/shadow, checks the output equals native's, and reports instructions x native,
the geomean and the worst, and the program text (.text*) x native.
Variant: NAME=HOOKS[:OPT,...][@MODE], e.g. dfn-c=dual-functions:-hotprof-dual-backedge-cc=c. An OPT
that starts with "--" is a hotprof cc option (--dual-sites=count), any other one goes to -mllvm.
MODE is off (the default), or count: count-triggered bursts (--bursts count) of methods and call
pairs at 1/1000, burst 1, seed 1, so a run's counts repeat and the sampling cost shows in
instructions. --baseline TREE builds every variant a second time with TREE's hotprof (a worktree
of another commit, built), named NAME@base, measured in the same run.
A nop counts as a whole instruction here: a ratio in instructions is not a ratio in time."""
import argparse
import concurrent.futures
import csv
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "shadow"))
sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
import benchlib  # noqa: E402  (instructions)
from shadow import QUICK_SIZES  # noqa: E402

HOTPROF = os.path.join(ROOT, "build", "bin", "hotprof")
DEFAULT_VARIANTS = ("dfn=dual-functions dfn-c=dual-functions:-hotprof-dual-backedge-cc=c "
                    "dblk=dual-blocks dblk-c=dual-blocks:-hotprof-dual-backedge-cc=c blk=blocks")


MODES = {"off": {"HOTPROF_MODE": "off"},
         "count": {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "count", "HOTPROF_SEED": "1",
                   "HOTPROF_SAMPLE": "methods:period=999,burst=1;callpairs:period=999,burst=1"}}


def parse_variant(text):
    """(name, hooks, opts, mode) of NAME=HOOKS[:OPT,...][@MODE]."""
    name, _, spec = text.partition("=")
    spec, _, mode = spec.partition("@")
    hooks, _, opts = spec.partition(":")
    mode = mode or "off"
    if not name or not hooks or "@" in name:
        sys.exit("instr.py: a variant is NAME=HOOKS[:OPT,...][@MODE], not '%s'" % text)
    if mode not in MODES:
        sys.exit("instr.py: variant %s: the mode is one of %s, not '%s'" % (name, " ".join(MODES), mode))
    return name, hooks, [o for o in opts.split(",") if o], mode


def build(work, name, hooks, opts, hotprof=HOTPROF):
    out = os.path.join(work, name)
    if hooks == "native":
        cc = "clang"
    else:
        cc = " ".join([hotprof, "cc", "--hooks=" + hooks] +
                      [o if o.startswith("--") else "-mllvm " + o for o in opts])
    res = subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "bench", "workloads"), "CC=" + cc,
                          "CFLAGS=-O2 -Wno-unused-command-line-argument", "OUT=" + out],
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("instr.py: building %s failed: %s" % (name, res.stderr[-800:]))
    return out, cc


def text_of_object(cc, prog, out):
    """The program's own text (.text*) in bytes: its object file, without the runtime the link adds."""
    obj = os.path.join(out, prog + ".o")
    src = os.path.join(ROOT, "bench", "workloads", prog + ".c")
    res = subprocess.run(cc.split() + ["-O2", "-Wno-unused-command-line-argument", "-c", "-o", obj, src],
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("instr.py: compiling %s failed: %s" % (obj, res.stderr[-800:]))
    return text_bytes(obj)


def text_bytes(binary):
    out = subprocess.run(["size", "-A", binary], capture_output=True, text=True, check=True).stdout
    return sum(int(f[1]) for f in (l.split() for l in out.splitlines()) if len(f) > 1 and f[0].startswith(".text"))


def count(binary, size, mode):
    """(instructions, stdout) of one cachegrind run in MODE (MODES)."""
    env = dict(os.environ, HOTPROF_OUTPUT="/dev/null", **MODES[mode])
    return benchlib.instructions([binary, size], env)


def table(rows, names, header):
    progs = list(dict.fromkeys(r["program"] for r in rows))
    ratio = {(r["program"], r["build"]): r["ratio"] for r in rows}
    widths = [(n, max(10, len(n) + 2)) for n in names]
    sizes = " ".join("%s=%s" % (p, next(r["size"] for r in rows if r["program"] == p)) for p in progs)
    lines = [header, "instructions x native (cachegrind; the mode after @, off if none; sizes %s)" % sizes,
             "%-9s" % "program" + "".join("%*s" % (w, n) for n, w in widths)]
    for p in progs:
        lines.append("%-9s" % p + "".join("%*.3f" % (w, ratio[(p, n)]) for n, w in widths))
    for label, f in (("geomean", statistics.geometric_mean), ("worst", max)):
        lines.append("%-9s" % label + "".join("%*.3f" % (w, f([ratio[(p, n)] for p in progs])) for n, w in widths))
    lines.append("program text x native (.text* of the workload's object file; the runtime excluded)")
    tx = {(r["program"], r["build"]): r["text_ratio"] for r in rows}
    lines.append("%-9s" % "geomean" + "".join("%*.2f" % (w, statistics.geometric_mean([tx[(p, n)] for p in progs]))
                                              for n, w in widths))
    return "\n".join(lines) + "\n"


def write_results(results, name, text, rows):
    """The table on stdout and in RESULTS/NAME.txt, the rows in RESULTS/NAME.csv."""
    sys.stdout.write(text)
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, name + ".txt"), "w") as f:
        f.write(text)
    with open(os.path.join(results, name + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default=DEFAULT_VARIANTS)
    ap.add_argument("--programs", default=" ".join(QUICK_SIZES))
    ap.add_argument("--sizes", default="", help="PROGRAM=SIZE ... instead of the QUICK sizes")
    ap.add_argument("--jobs", type=int, default=2, help="cachegrind runs at once (counts do not depend on load)")
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--name", default="fastpath_instr", help="results file name (NAME.txt, NAME.csv)")
    ap.add_argument("--header", default="")
    ap.add_argument("--baseline", default="", help="a built tree: every variant also with its hotprof (NAME@base)")
    a = ap.parse_args()
    variants = [parse_variant(v) for v in a.variants.split()]
    base_hp = os.path.join(os.path.abspath(a.baseline), "build", "bin", "hotprof") if a.baseline else ""
    if a.baseline:
        if not os.access(base_hp, os.X_OK):
            sys.exit("instr.py: --baseline %s has no build/bin/hotprof (build it first)" % a.baseline)
        variants += [(n + "@base", h, o, m) for n, h, o, m in variants]
    sizes = dict(QUICK_SIZES, **dict(s.split("=", 1) for s in a.sizes.split()))
    programs = a.programs.split()
    for p in programs:
        if p not in sizes:
            sys.exit("instr.py: no workload '%s' (have: %s)" % (p, " ".join(QUICK_SIZES)))
    names = [n for n, _, _, _ in variants]
    modes = dict({"native": "off"}, **{n: m for n, _, _, m in variants})
    with tempfile.TemporaryDirectory(prefix="hotprof-instr.") as work:
        dirs = {"native": build(work, "native", "native", [])}  # name: (directory, cc)
        for n, hooks, opts, _ in variants:
            print("[instr] building %s" % n, file=sys.stderr, flush=True)
            dirs[n] = build(work, n, hooks, opts, base_hp if n.endswith("@base") else HOTPROF)  # (no NAME has an @)
        jobs = [(p, n) for p in programs for n in ["native"] + names]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            got = dict(zip(jobs, ex.map(lambda j: count(os.path.join(dirs[j[1]][0], j[0]), sizes[j[0]], modes[j[1]]),
                                        jobs)))
        rows = []
        for p in programs:
            base, want = got[(p, "native")]
            base_text = text_of_object(dirs["native"][1], p, dirs["native"][0])
            for n in names:
                ins, out = got[(p, n)]
                if out != want:
                    sys.exit("instr.py: %s's %s printed something else than native" % (n, p))
                rows.append({"program": p, "build": n, "size": sizes[p], "instructions": ins, "native": base,
                             "ratio": ins / base, "text_ratio": text_of_object(dirs[n][1], p, dirs[n][0]) / base_text})
    header = a.header or "# bench/fastpath/instr.py --variants \"%s\"" % a.variants
    if a.baseline:
        rev = subprocess.run(["git", "-C", a.baseline, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        header += "\n# @base: the tree %s at commit %s" % (a.baseline, rev.stdout.strip() or "unknown")
    write_results(a.results, a.name, table(rows, names, header), rows)


if __name__ == "__main__":
    main()
