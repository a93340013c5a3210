#!/usr/bin/env python3
"""bench/hps_sweep/sweep.py - timing, comparison, CSV, table and SVG of bench/hps_sweep/run.sh
(standard library only).

Holds: for each workload, one exhaustive run under `hotprof run` (the reference profile, also
timed against one native run); then for each (burst, frequency) setting, RUNS paired rounds of
(native, sampled) with the order alternating each round; the sampled profile of the first round
is compared with the reference by `hotprof compare --format json`. A run's time is the user+sys
CPU time of the process tree (os.wait4). Every run must exit 0 and print a line starting "ok"
(both checked by bench/lib/benchlib.py).

Sampling runs use `hotprof run --bursts BURSTS` (default patch: hook call sites rewritten per
window, runtime/ctl/sites.c; live: HPS's counters in every live hook). sampled_fraction = recorded
calls + back-edges / the reference's (the frequency patched bursts really reach).

Period from frequency (HPS Section 5: frequency = burst / (burst + sparsity)):
period = round(burst * (1/f - 1)).

CSV columns: workload, burst, freq, period, native_s, sampled_s, slowdown, exhaustive_slowdown,
hooks_only_slowdown (the hooked build under --mode off: the cost of the hooks' checks alone, which
HPS's hardware removes and a software sampler pays at every frequency), methods_overlap, methods_overlap_max, methods_overlap_renorm, methods_recall10,
callpairs_overlap, callpairs_overlap_max, callpairs_overlap_renorm, callpairs_recall10, runs.
overlap is HPS's (shares of the whole profile; an identical profile scores overlap_max, not 1),
overlap_renorm the renormalized variant (identical = 1); see docs/metrics.md.
"""
import argparse
import json
import math
import os
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402  (run_once, output_ok, on_signal)
import hpsplot  # noqa: E402
from hpsplot import BURSTS, FREQS, geomean, mean, period_of, write_svg as plot_svg  # noqa: E402

QUICK_SETTINGS = [(1, 100), (10, 1000), (100, 10000)]
QUICK_SIZES = {"fft": "100", "heapsort": "200000", "lexgen": "50", "compress": "800",
               "gametree": "8", "interp": "12", "nbody": "300", "mt_work": "150000"}


def log(msg):
    print("[hps_sweep %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def run_once(argv, timeout=3600):
    """Runs argv; returns (cpu seconds, stdout+stderr text, exit status)."""
    cpu, _wall, text, rc = benchlib.run_once(argv, timeout)
    return cpu, text, rc


def checked_run(argv):
    cpu, text, rc = run_once(argv)
    if not benchlib.output_ok(rc, text):
        log("FAILED: %s (exit %d):\n%s" % (" ".join(argv), rc, text[-2000:]))
        sys.exit(1)
    return cpu


def sample_args(burst, period):
    spec = "period=%d,burst=%d" % (period, burst)
    return ["--sample", "methods:" + spec, "--sample", "callpairs:" + spec]


class Workload:
    def __init__(self, args, name):
        self.args, self.name = args, name
        self.size = [QUICK_SIZES[name]] if args.small and name in QUICK_SIZES else []
        self.native = [os.path.join(args.bin_dir, "native", name)] + self.size
        self.hooked = [os.path.join(args.bin_dir, "hooked", name)] + self.size
        self.reference = os.path.join(args.bin_dir, name + "-exhaustive.data")

    def run_hooked(self, extra, profile):
        bursts = ["--bursts", self.args.bursts] if "--sample" in extra else []
        return checked_run([self.args.hotprof, "run", "-q", "--seed", "1", "-o", profile]
                           + bursts + extra + ["--"] + self.hooked)

    def info(self, profile):
        return benchlib.info_keys(self.args.hotprof, profile)

    def sampled_fraction(self, profile):
        """Recorded boundary events (calls + back-edges) / the reference's: the fraction really
        sampled (patched bursts cannot observe it themselves)."""
        a, b = self.info(profile), self.info(self.reference)
        num = lambda d, k: float(d.get(k, "0").split()[0] or 0)
        total = num(b, "total.calls") + num(b, "total.backedges")
        return (num(a, "total.calls") + num(a, "total.backedges")) / total if total else float("nan")

    def exhaustive(self):
        native = checked_run(self.native)
        return self.run_hooked([], self.reference) / native

    def hooks_only(self):
        """Slowdown of the hooks with nothing recorded (--mode off): HPS's "basic overhead" plus
        the instrumentation checks, which a sampled run pays whatever its frequency."""
        native = checked_run(self.native)
        return checked_run([self.args.hotprof, "run", "-q", "--mode", "off", "--"] + self.hooked) / native

    def timed_pairs(self, extra, profile):
        """RUNS rounds of (native, sampled), order alternating; the first sampled profile is kept."""
        natives, sampled = [], []
        for r in range(self.args.runs):
            out = profile if r == 0 else profile + ".tmp"
            if r % 2 == 0:
                natives.append(checked_run(self.native))
                sampled.append(self.run_hooked(extra, out))
            else:
                sampled.append(self.run_hooked(extra, out))
                natives.append(checked_run(self.native))
            if r and os.path.exists(out):
                os.unlink(out)
        ratios = [s / n for s, n in zip(sampled, natives)]
        return statistics.median(natives), statistics.median(sampled), statistics.median(ratios)

    def compare(self, profile):
        cpu, text, rc = run_once([self.args.hotprof, "compare", "--format", "json", profile,
                                  self.reference])
        if rc != 0:
            log("compare failed for %s: %s" % (profile, text[-500:]))
            return {}
        start = text.find("{")
        profiles = json.loads(text[start:])["profiles"]
        return {p["type"]: p for p in profiles}


def metrics_of(cmp, kind, prefix):
    p = cmp.get(kind)
    if not p:
        return {prefix + k: "" for k in ("_overlap", "_overlap_max", "_overlap_renorm", "_recall10")}
    return {prefix + "_overlap": round(p["overlap"], 6), prefix + "_overlap_max": round(p["overlap_max"], 6),
            prefix + "_overlap_renorm": round(p["overlap_renormalized"], 6),
            prefix + "_recall10": round(p["top_k"]["recall"], 6)}


def settings(quick, only=""):
    if only:
        return [tuple(int(x) for x in item.split(":")) for item in only.split(",") if item]
    if quick:
        return QUICK_SETTINGS
    return [(b, f) for b in BURSTS for f in FREQS]


def sweep_workload(args, name, rows, progress):
    w = Workload(args, name)
    ex_slow, off_slow = w.exhaustive(), w.hooks_only()
    log("%-9s exhaustive: slowdown %.2fx, hooks only (--mode off): %.2fx" % (name, ex_slow, off_slow))
    for burst, inv_freq in settings(args.quick, args.only):
        period = period_of(burst, inv_freq)
        profile = os.path.join(args.bin_dir, "%s-b%d-f%d.data" % (name, burst, inv_freq))
        native_s, sampled_s, slow = w.timed_pairs(sample_args(burst, period), profile)
        cmp = w.compare(profile)
        row = {"workload": name, "burst": burst, "freq": "1/%d" % inv_freq, "period": period,
               "native_s": round(native_s, 4), "sampled_s": round(sampled_s, 4),
               "slowdown": round(slow, 4), "exhaustive_slowdown": round(ex_slow, 4),
               "hooks_only_slowdown": round(off_slow, 4)}
        row["sampled_fraction"] = round(w.sampled_fraction(profile), 8)
        row["mode"] = w.info(profile).get("mode", "?")
        row.update(metrics_of(cmp, "methods", "methods"))
        row.update(metrics_of(cmp, "call_pairs", "callpairs"))
        row["runs"] = args.runs
        rows.append(row)
        progress[0] += 1
        log("%3d/%d %-9s B=%-3d f=1/%-5d P=%-7d slowdown %.3fx  overlap methods %s call pairs %s"
            % (progress[0], progress[1], name, burst, inv_freq, period, slow,
               row["methods_overlap"], row["callpairs_overlap"]))


COLUMNS = ["workload", "burst", "freq", "period", "native_s", "sampled_s", "slowdown",
           "exhaustive_slowdown", "hooks_only_slowdown", "methods_overlap", "methods_overlap_max", "methods_overlap_renorm",
           "methods_recall10", "callpairs_overlap", "callpairs_overlap_max",
           "callpairs_overlap_renorm", "callpairs_recall10", "sampled_fraction", "mode", "runs"]


def write_csv(path, rows):
    hpsplot.write_csv(path, rows, COLUMNS)


def summarize(rows):
    """Per setting: mean overlaps over workloads and geomean slowdown."""
    out = []
    for key, sel in hpsplot.settings_of(rows, lambda r: True):
        out.append({"burst": key[0], "inv_freq": key[1], "n": len(sel),
                    "slowdown": geomean([r["slowdown"] for r in sel]),
                    "slow_med": statistics.median([r["slowdown"] for r in sel]),
                    "m_med": statistics.median([r["methods_overlap"] for r in sel if r["methods_overlap"] != ""] or [float("nan")]),
                    "c_med": statistics.median([r["callpairs_overlap"] for r in sel if r["callpairs_overlap"] != ""] or [float("nan")]),
                    "frac": statistics.median([r["sampled_fraction"] for r in sel]),
                    "m": mean([r["methods_overlap"] for r in sel]),
                    "m_max": mean([r["methods_overlap_max"] for r in sel]),
                    "m_ren": mean([r["methods_overlap_renorm"] for r in sel]),
                    "c": mean([r["callpairs_overlap"] for r in sel]),
                    "c_max": mean([r["callpairs_overlap_max"] for r in sel]),
                    "c_ren": mean([r["callpairs_overlap_renorm"] for r in sel])})
    return out


def print_table(summary):
    print("%6s %8s %4s %8s %8s %9s | %7s %7s %7s %7s | %7s %7s %7s %7s" % (
        "burst", "freq", "wls", "slowdown", "median", "sampled", "methods", "median", "max", "renorm",
        "pairs", "median", "max", "renorm"))
    for s in summary:
        print("%6d %8s %4d %7.3fx %7.3fx %9.2e | %6.1f%% %6.1f%% %6.1f%% %6.1f%% | %6.1f%% %6.1f%% %6.1f%% %6.1f%%" % (
            s["burst"], "1/%d" % s["inv_freq"], s["n"], s["slowdown"], s["slow_med"], s["frac"],
            100 * s["m"], 100 * s["m_med"], 100 * s["m_max"], 100 * s["m_ren"],
            100 * s["c"], 100 * s["c_med"], 100 * s["c_max"], 100 * s["c_ren"]))
    print("overlap: HPS section 5 (mean, and median, over workloads); max: the exhaustive profile against itself;"
          " renorm: renormalized overlap (mean);\nslowdown: geomean (and median) of sampled/native CPU time;"
          " sampled: median fraction of the reference's calls + back-edges recorded.")


def write_svg(path, summary):
    plot_svg(path, summary, 860, 380, ["HPS bursty sampling: accuracy (overlap) vs overhead"],
             [("m", "hot methods (heat)", 60, None), ("c", "hot call pairs", 480, None)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--hotprof", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("--small", type=int, default=0)
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--bursts", default="patch", help="hotprof run --bursts: patch, live or auto")
    ap.add_argument("--only", default="", help='settings "B:F,..." (burst:inverse frequency)')
    ap.add_argument("--csv", required=True)
    ap.add_argument("--svg", required=True)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, benchlib.on_signal)
    signal.signal(signal.SIGINT, benchlib.on_signal)
    names = args.workloads.split()
    rows, progress = [], [0, len(names) * len(settings(args.quick, args.only))]
    for name in names:
        sweep_workload(args, name, rows, progress)
        write_csv(args.csv, rows)  # partial results survive an interrupted sweep
    summary = summarize(rows)
    print_table(summary)
    for name in names:
        r = next(r for r in rows if r["workload"] == name)
        print("%-9s exhaustive %.2fx, hooks only (--mode off) %.2fx" % (
            name, r["exhaustive_slowdown"], r["hooks_only_slowdown"]))
    write_svg(args.svg, summary)


if __name__ == "__main__":
    main()
