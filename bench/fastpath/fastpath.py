#!/usr/bin/env python3
"""bench/fastpath/fastpath.py — what a compiled hook costs, piece by piece, on the workloads
(HPS Figure 7's breakdown, for the mechanisms clang offers today). For each workload it builds
every variant below, then runs all of them RUNS times, interleaved round by round (the order
rotates), and reports the median of paired CPU-time ratios variant/native. Every run must print
"ok" (the workloads check themselves). Writes bench/results/fastpath.csv and a table.

Variants (compile flags of the workload; stub = bench/fastpath/stubs.c built with -DSTUB):
  xray-sleds       XRay nop sleds at every function entry/exit, never patched
  xray-patched     the same sleds, all patched at start-up to call an empty handler
  pfe-nops         -fpatchable-function-entry=5: five nop bytes at each entry
  fn-empty         -finstrument-functions-after-inlining, hooks return at once (call cost)
  fn-count         ... hooks increment a TLS counter (basic counter cost)
  fn-countdown     ... enter hook runs hotprof's bursty countdown (core/control/bursty.h)
  blk-empty        trace-pc-guard,pc-table,no-prune, hook returns at once
  blk-count        ... hook increments a TLS counter
  inline-8bit      inline-8bit-counters: a counter increment per block, no call
  hp-fn-off        hotprof cc --hooks=functions, HOTPROF_MODE=off (runtime's inactive path)
  hp-fn            hotprof cc --hooks=functions, exhaustive
  hp-blk           hotprof cc --hooks=blocks, exhaustive
  hp-blk-bursty    hotprof cc --hooks=blocks, HOTPROF_MODE=bursty, methods+callpairs 1/1000,
                   burst 1 (only if the runtime accepts the mode)
  hp-xray-bursty   hotprof cc --hooks=xray, bursty: sleds patched only during time-driven
                   bursts of 100 entries, methods 1/1000 (runtime/ctl/xray.c)
  hp-fn-patch      hotprof cc --hooks=functions, bursty over patched call sites (runtime/ctl/sites.c):
                   methods+callpairs 1/1000, burst 1 (windows of 100 units)
  hp-blk-patch     the same with --hooks=blocks (function + block hooks compiled in)
  hp-fn-idle       --hooks=functions, patched, period 10^9: every site off (the compiled-in floor)
  hp-blk-idle      --hooks=blocks, patched, period 10^9: every site off (the compiled-in floor)
  hp-mem-patch     --hooks=memory, patched: methods+callpairs 1/1000 and datastream 1/100, burst 100
  hp-dfn-off       --hooks=dual-functions (two-version code, docs/dual.md: its default wrapper form),
                   HOTPROF_MODE=off: the switched-off floor
  hp-dfn-clone-off the same with -hotprof-dual-functions-form=clone (the one-body and separate forms)
  hp-dfn-patch     --hooks=dual-functions, patched bursts, methods+callpairs 1/1000, burst 1
  hp-dfn-count     --hooks=dual-functions, count-triggered bursts (--bursts count), the same setting
  hp-dblk-off / hp-dblk-patch / hp-dblk-count   the same three with --hooks=dual-blocks
  hp-dblk-onebody-off / hp-dblk-onebody-patch / hp-dblk-onebody-count   the same three with
                   --hooks=dual-blocks -mllvm -hotprof-dual-loops=inline (the one-body form, the
                   default: these name it whatever the default is)
  hp-dblk-entry-off / hp-dblk-entry-patch / hp-dblk-entry-count   the same three with
                   --hooks=dual-blocks -mllvm -hotprof-dual-loops=entry (the loop-entry form)
  hp-dfn-cs-off / hp-dfn-cs-count   --hooks=dual-functions --dual-sites=count (inline count sites,
                   docs/dual.md): switched off, and count mode at 1/1000, burst 1
  hp-dfn-csmem-count   the same count mode with -hotprof-dual-count-reg=off (every site's count a
                   read-modify-write of the thread's countdown in memory, as before call-free loops
                   kept it in a register)
  hp-dfn-csnopad-off / hp-dfn-csnopad-count   the same with -hotprof-dual-entry-pad=off (a
                   loop-free function's entry a 5-byte nop, a trampoline in count mode, as before
                   entry pads)
  hp-dfn-csnover-off / hp-dfn-csnover-count   the same with -hotprof-dual-count-version=off (a
                   count site on every back-edge of a counted call-free loop, as before the copies
                   without one)
  hp-dblk-cs-off / hp-dblk-cs-count / hp-dblk-csmem-count / hp-dblk-csnopad-off /
                   hp-dblk-csnopad-count / hp-dblk-csnover-off / hp-dblk-csnover-count   the same
                   with --hooks=dual-blocks
  hp-dblk-rejoin-off / hp-dblk-rejoin-patch / hp-dblk-cs-rejoin-off / hp-dblk-cs-rejoin-count
                   --hooks=dual-blocks with -hotprof-dual-rejoin-all=on (the rejoin copy for every
                   one-body function): nop sites switched off and patched, count sites switched
                   off and in count mode
  hp-dfn-lb-off / hp-dfn-lb-patch / hp-dblk-lb-off / hp-dblk-lb-patch / hp-dblk-rejoin-lb-off /
  hp-dblk-rejoin-lb-patch   the same builds with hotprof cc --dual-latch=branch (the latch's own
                   branch is the switch: a switched-off back-edge runs no nop and no jmp); since
                   session 36 that is hotprof cc's default, so the plain dual variants of nop
                   sites build the same
  hp-dfn-ls-off / hp-dfn-ls-patch / hp-dblk-ls-off / hp-dblk-ls-patch   with --dual-latch=site
                   (the plugin's latch sites as they are: the default before session 36)
  (the dual variants only where build/lib/hotprof_dual.so exists; else skipped with a message)

--baseline DIR (another built hotprof tree, e.g. a git worktree of an older commit): every hotprof
variant V also runs as V@base, built with DIR/build/bin/hotprof, in the same interleaved rounds,
so that a change of the runtime is measured side by side with the code before it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402  (run_once, output_ok, on_signal)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HOTPROF = os.path.join(ROOT, "build", "bin", "hotprof")
SIZES = {"fft": "200", "heapsort": "400000", "lexgen": "100", "compress": "1600",
         "gametree": "9", "interp": "18", "nbody": "600", "mt_work": "300000"}
XRAY = ["-fxray-instrument", "-fxray-instruction-threshold=1"]
FN = ["-finstrument-functions-after-inlining"]
BLK = ["-fsanitize-coverage=trace-pc-guard,pc-table,no-prune"]
HPS_1000 = "methods:period=999,burst=1;callpairs:period=999,burst=1"
# name: (workload compile flags, stub define or None, extra link flags, env, hotprof hook set)
VARIANTS = {
    "native": ([], None, [], {}, None),
    "xray-sleds": (XRAY, None, XRAY, {}, None),
    "xray-patched": (XRAY, "FP_XRAY", XRAY, {}, None),
    "pfe-nops": (["-fpatchable-function-entry=5"], None, [], {}, None),
    "fn-empty": (FN, "FP_EMPTY", [], {}, None),
    "fn-count": (FN, "FP_COUNT", [], {}, None),
    "fn-countdown": (FN, "FP_COUNTDOWN", [], {}, None),
    "blk-empty": (BLK, "FP_EMPTY", [], {}, None),
    "blk-count": (BLK, "FP_COUNT", [], {}, None),
    "inline-8bit": (["-fsanitize-coverage=inline-8bit-counters,pc-table"], "FP_8BIT", [], {}, None),
    "hp-fn-off": ([], None, [], {"HOTPROF_MODE": "off"}, "functions"),
    "hp-fn": ([], None, [], {"HOTPROF_MODE": "exhaustive"}, "functions"),
    "hp-blk": ([], None, [], {"HOTPROF_MODE": "exhaustive"}, "blocks"),
    "hp-blk-bursty": ([], None, [], {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "live",
                                     "HOTPROF_SAMPLE": "methods:period=999,burst=1;callpairs:period=999,burst=1"},
                      "blocks"),
    "hp-xray-bursty": ([], None, [], {"HOTPROF_MODE": "bursty",
                                      "HOTPROF_SAMPLE": "methods:period=99900,burst=100"}, "xray"),
    "hp-fn-patch": ([], None, [], {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch", "HOTPROF_SAMPLE": HPS_1000},
                    "functions"),
    "hp-blk-patch": ([], None, [], {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch", "HOTPROF_SAMPLE": HPS_1000},
                     "blocks"),
    "hp-fn-idle": ([], None, [], {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch",
                                  "HOTPROF_SAMPLE": "methods:period=1000000000,burst=1"}, "functions"),
    "hp-blk-idle": ([], None, [], {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch",
                                   "HOTPROF_SAMPLE": "methods:period=1000000000,burst=1"}, "blocks"),
    "hp-mem-patch": ([], None, [], {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch",
                                    "HOTPROF_SAMPLE": HPS_1000 + ";datastream:period=9900,burst=100"}, "memory"),
}
PATCH = {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch", "HOTPROF_SAMPLE": HPS_1000}
COUNT = {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "count", "HOTPROF_SAMPLE": HPS_1000}
CLONE = ["-mllvm", "-hotprof-dual-functions-form=clone", "-Wno-unused-command-line-argument"]
ONEBODY = ["-mllvm", "-hotprof-dual-loops=inline", "-Wno-unused-command-line-argument"]
ENTRY = ["-mllvm", "-hotprof-dual-loops=entry", "-Wno-unused-command-line-argument"]
VARIANTS.update({
    "hp-dfn-off": ([], None, [], {"HOTPROF_MODE": "off"}, "dual-functions"),
    "hp-dfn-clone-off": (CLONE, None, [], {"HOTPROF_MODE": "off"}, "dual-functions"),
    "hp-dfn-patch": ([], None, [], PATCH, "dual-functions"),
    "hp-dfn-count": ([], None, [], COUNT, "dual-functions"),
    "hp-dblk-off": ([], None, [], {"HOTPROF_MODE": "off"}, "dual-blocks"),
    "hp-dblk-patch": ([], None, [], PATCH, "dual-blocks"),
    "hp-dblk-count": ([], None, [], COUNT, "dual-blocks"),
    "hp-dblk-onebody-off": (ONEBODY, None, [], {"HOTPROF_MODE": "off"}, "dual-blocks"),
    "hp-dblk-onebody-patch": (ONEBODY, None, [], PATCH, "dual-blocks"),
    "hp-dblk-onebody-count": (ONEBODY, None, [], COUNT, "dual-blocks"),
    "hp-dblk-entry-off": (ENTRY, None, [], {"HOTPROF_MODE": "off"}, "dual-blocks"),
    "hp-dblk-entry-patch": (ENTRY, None, [], PATCH, "dual-blocks"),
    "hp-dblk-entry-count": (ENTRY, None, [], COUNT, "dual-blocks"),
})
CS = ["--dual-sites=count"]
CSMEM = CS + ["-mllvm", "-hotprof-dual-count-reg=off", "-Wno-unused-command-line-argument"]
CSNOPAD = CS + ["-mllvm", "-hotprof-dual-entry-pad=off", "-Wno-unused-command-line-argument"]
CSNOVER = CS + ["-mllvm", "-hotprof-dual-count-version=off", "-Wno-unused-command-line-argument"]
for _set, _tag in (("dual-functions", "dfn"), ("dual-blocks", "dblk")):
    VARIANTS["hp-%s-cs-off" % _tag] = (CS, None, [], {"HOTPROF_MODE": "off"}, _set)
    VARIANTS["hp-%s-cs-count" % _tag] = (CS, None, [], COUNT, _set)
    VARIANTS["hp-%s-csmem-count" % _tag] = (CSMEM, None, [], COUNT, _set)
    VARIANTS["hp-%s-csnopad-off" % _tag] = (CSNOPAD, None, [], {"HOTPROF_MODE": "off"}, _set)
    VARIANTS["hp-%s-csnopad-count" % _tag] = (CSNOPAD, None, [], COUNT, _set)
    VARIANTS["hp-%s-csnover-off" % _tag] = (CSNOVER, None, [], {"HOTPROF_MODE": "off"}, _set)
    VARIANTS["hp-%s-csnover-count" % _tag] = (CSNOVER, None, [], COUNT, _set)
REJOIN = ["-mllvm", "-hotprof-dual-rejoin-all=on", "-Wno-unused-command-line-argument"]
VARIANTS.update({
    "hp-dblk-rejoin-off": (REJOIN, None, [], {"HOTPROF_MODE": "off"}, "dual-blocks"),
    "hp-dblk-rejoin-patch": (REJOIN, None, [], PATCH, "dual-blocks"),
    "hp-dblk-cs-rejoin-off": (CS + REJOIN, None, [], {"HOTPROF_MODE": "off"}, "dual-blocks"),
    "hp-dblk-cs-rejoin-count": (CS + REJOIN, None, [], COUNT, "dual-blocks"),
})
# the latch forms (hotprof cc --dual-latch=): lb = branch (the default since session 36), ls = site
for _form, _opt in (("lb", "--dual-latch=branch"), ("ls", "--dual-latch=site")):
    for _tag, _set in (("dfn", "dual-functions"), ("dblk", "dual-blocks")):
        VARIANTS["hp-%s-%s-off" % (_tag, _form)] = ([_opt], None, [], {"HOTPROF_MODE": "off"}, _set)
        VARIANTS["hp-%s-%s-patch" % (_tag, _form)] = ([_opt], None, [], PATCH, _set)
VARIANTS["hp-dblk-rejoin-lb-off"] = (REJOIN + ["--dual-latch=branch"], None, [], {"HOTPROF_MODE": "off"}, "dual-blocks")
VARIANTS["hp-dblk-rejoin-lb-patch"] = (REJOIN + ["--dual-latch=branch"], None, [], PATCH, "dual-blocks")
DUAL_PLUGIN = os.path.join(ROOT, "build", "lib", "hotprof_dual.so")


def log(msg):
    print("[fastpath %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def sh(argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


BASE_SUFFIX = "@base"
BASE_HOTPROF = None  # --baseline DIR: DIR/build/bin/hotprof


def spec(variant):
    """The VARIANTS entry of a variant name (V@base is V built by the baseline tree)."""
    return VARIANTS[variant[:-len(BASE_SUFFIX)] if variant.endswith(BASE_SUFFIX) else variant]


def build_hooked(hp, name, cc_args, dest):
    """Workload NAME built by `HP cc CC_ARGS -O2` as DEST."""
    src = os.path.join(ROOT, "bench", "workloads", name + ".c")
    sh([hp, "cc"] + cc_args + ["-O2", "-o", dest, src, "-lm", "-lpthread"])


def build(work, name, variant, dest):
    flags, stub, link, _, hookset = spec(variant)
    src = os.path.join(ROOT, "bench", "workloads", name + ".c")
    if hookset:
        build_hooked(BASE_HOTPROF if variant.endswith(BASE_SUFFIX) else HOTPROF, name, ["--hooks=" + hookset] + flags, dest)
        return
    obj = os.path.join(work, "%s.%s.o" % (name, variant))
    sh(["clang", "-O2", "-c", "-o", obj] + flags + [src])
    objs = [obj]
    if stub:
        sobj = os.path.join(work, "stub.%s.o" % stub)
        if not os.path.exists(sobj):
            sh(["clang", "-O2", "-D" + stub, "-I" + os.path.join(ROOT, "src"), "-c", "-o", sobj,
                os.path.join(ROOT, "bench", "fastpath", "stubs.c")])
        objs.append(sobj)
    core = [os.path.join(ROOT, "build", "lib", "libhotprof_core.a")] if stub == "FP_COUNTDOWN" else []
    sh(["clang", "-O2", "-o", dest] + objs + core + link + ["-lm", "-lpthread"])


def run_once(binary, size, env, work):
    """User+system CPU seconds of one run (os.wait4's rusage: microsecond resolution); the profile
    goes to WORK/fp.data unless env names HOTPROF_OUTPUT."""
    e = dict(os.environ, HOTPROF_QUIET="1", HOTPROF_OUTPUT=os.path.join(work, "fp.data"))
    e.update(env)
    cpu, _wall, text, rc = benchlib.run_once([binary, size], env=e)
    if not benchlib.output_ok(rc, text):
        raise RuntimeError("%s failed (%d): %s" % (binary, rc, text[-300:]))
    return cpu


def bursty_supported(work):
    probe = os.path.join(work, "probe.c")
    with open(probe, "w") as f:
        f.write("int main(void){return 0;}\n")
    exe = os.path.join(work, "probe")
    sh([HOTPROF, "cc", "-o", exe, probe])
    e = dict(os.environ, HOTPROF_MODE="bursty", HOTPROF_BURSTS="live", HOTPROF_OUTPUT=os.path.join(work, "probe.data"),
             HOTPROF_SAMPLE=VARIANTS["hp-blk-bursty"][3]["HOTPROF_SAMPLE"])
    p = subprocess.run([exe], env=e, stderr=subprocess.PIPE, text=True)
    return p.returncode == 0 and "bursty" in subprocess.run(
        [HOTPROF, "info", os.path.join(work, "probe.data")], stdout=subprocess.PIPE, text=True).stdout


def measure(names, variants, runs, work):
    rows = []
    for name in names:
        bins = {}
        for v in variants:
            bins[v] = os.path.join(work, "%s.%s" % (name, v))
            build(work, name, v, bins[v])
        times = {v: [] for v in variants}
        for r in range(runs):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for v in order:
                times[v].append(run_once(bins[v], SIZES[name], spec(v)[3], work))
            log("%s round %d/%d done" % (name, r + 1, runs))
        for v in variants:
            ratios = [t / n for t, n in zip(times[v], times["native"])]
            rows.append((name, v, statistics.median(times["native"]), statistics.median(times[v]),
                         statistics.median(ratios)))
    return rows


def report(rows, variants, names, csv_path):
    with open(csv_path, "w") as f:
        f.write("workload,variant,native_s,variant_s,slowdown\n")
        for r in rows:
            f.write("%s,%s,%.4f,%.4f,%.4f\n" % r)
    table = {(r[0], r[1]): r[4] for r in rows}
    print("median slowdown vs native (CPU time, paired, interleaved runs)")
    print("%-17s" % "variant" + "".join("%10s" % n[:9] for n in names) + "%10s%10s" % ("geomean", "worst"))
    for v in variants:
        vals = [table[(n, v)] for n in names]
        geo = statistics.geometric_mean(vals)
        print("%-17s" % v + "".join("%10.3f" % x for x in vals) + "%10.3f%10.3f" % (geo, max(vals)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workloads", default=" ".join(SIZES))
    ap.add_argument("--variants", default=" ".join(VARIANTS))
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench", "results", "fastpath.csv"))
    ap.add_argument("--baseline", help="another built hotprof tree: its hotprof variants run as V@base")
    a = ap.parse_args()
    global BASE_HOTPROF
    names = a.workloads.split()
    with tempfile.TemporaryDirectory(prefix="hotprof-fastpath.") as work:
        variants = [v for v in a.variants.split() if v in VARIANTS]
        if "native" not in variants:
            variants.insert(0, "native")
        if not os.path.exists(DUAL_PLUGIN) and any(VARIANTS[v][4] and VARIANTS[v][4].startswith("dual") for v in variants):
            log("no %s (llvm-14-dev missing when hotprof was built): skipping the dual variants" % DUAL_PLUGIN)
            variants = [v for v in variants if not (VARIANTS[v][4] or "").startswith("dual")]
        if "hp-blk-bursty" in variants and not bursty_supported(work):
            log("runtime has no bursty mode yet: skipping hp-blk-bursty")
            variants.remove("hp-blk-bursty")
        if a.baseline:
            BASE_HOTPROF = os.path.join(os.path.abspath(a.baseline), "build", "bin", "hotprof")
            variants += [v + BASE_SUFFIX for v in list(variants) if VARIANTS[v][4]]
        rows = measure(names, variants, a.runs, work)
    os.makedirs(os.path.dirname(a.csv), exist_ok=True)
    report(rows, variants, names, a.csv)


if __name__ == "__main__":
    main()
