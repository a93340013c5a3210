#!/usr/bin/env python3
"""bench/hps_sweep/streams.py - the hot data streams part of the HPS sweep (driven by streams.sh;
standard library only; timing through bench/lib/benchlib.py as in sweep.py).

For each workload, built natively (NATIVE/NAME) and with `hotprof cc --hooks=memory -O2`
(HOOKED/NAME):

1. REFERENCE: two runs of `hotprof run --bursts MODE --sample datastream:period=0,burst=100000`
   (period 0: the type samples every event, so the detector is given every load and store; in
   patch mode the sites are switched on once, 1 ms after start, and never off). Run side by side
   (--ref-jobs, default 2; they are not part of the timed comparison). The first is the reference;
   the second against the first gives overlap_max (how deterministic the reference is).
2. hooks only: one (native, `hotprof run --mode off`) pair.
3. For burst B in {1, 10, 50, 100} x frequency f in {1/100 .. 1/10000}, period P = round(B (1/f - 1)):
   RUNS paired rounds of (native, `hotprof run --bursts MODE --sample datastream:period=P,burst=B`),
   order alternating; slowdown = median over rounds of sampled / native CPU time (user+sys of the
   process tree, os.wait4). Every round's profile is compared with the reference and the accuracy
   columns are medians over rounds (patched bursts are scheduled by the clock: the number of
   windows a short run gets varies a lot from run to run; overlap_rounds and windows_rounds list
   each round's value).

Addresses. Streams are keyed by their exact address sequence, so every hooked run must lay out
memory identically:
* ASLR off: every run (native too, for equal conditions) goes through `setarch x86_64 -R`;
* the main thread's stack starts at the same place: the environment's total size is kept constant
  (HOTPROF_OUTPUT and HOTPROF_SAMPLE differ between runs; HPS_STREAMS_PAD makes up the difference);
* the runtime's own mmaps (per-thread detectors, mapped at a thread's first sampled reference, at a
  time that depends on the bursts; patch mode's site tables) must not move the program's blocks:
  MALLOC_MMAP_THRESHOLD_=32 MiB puts every malloc of up to 32 MiB on the brk heap, which only
  the program's own mallocs move, and MALLOC_ARENA_MAX=1 keeps threads on it too (set for native
  runs as well);
* the reference runs in the same --bursts mode as the sampled runs: patch mode creates a control
  thread (its TLS is malloc'd), which shifts the heap by 0x130 bytes against live mode.

Metric (per profile, `hotprof report --streams --top 0 --format json`, at most 256 streams):
share(s) = heat(s) / total heat of the profile's reported streams (so raw sampled counts in patch
mode do not matter); overlap = sum over streams (exact address sequences) in both of
min(share_sampled, share_reference); recall10 = |top-10 sampled & top-10 reference| / |top-10
reference|; ref_heat_found = the reference's share in streams the sampled profile also reports
(the overlap's recall side, ignoring the sampled profile's extra streams); ref_heat_in_longer = the
same, also counting a reference stream that occurs inside a longer sampled stream (diagnostic: the
sampled detector sees far fewer references, its summaries hold more of them and it often chains
a reference stream into a longer one, which the exact keys count as a miss);
sampled_fraction = references the sampled run's detectors saw / the reference's.

A run that fails (no "ok" line, non-zero exit, timeout) is logged with its command and output
and its row gets status FAILED/TIMEOUT and no metrics; the sweep goes on.
"""
import argparse
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402  (run_once, output_ok, on_signal)
import hpsplot  # noqa: E402
from hpsplot import BURSTS, FREQS, geomean, mean, median, num, period_of, write_svg as plot_svg  # noqa: E402

# The grid and the small sizes are sweep.py's (kept in step by hand).
QUICK_SETTINGS = [(1, 100), (10, 1000), (100, 10000)]
SMALL_SIZES = {"fft": ["100"], "heapsort": ["200000"], "lexgen": ["50"], "compress": ["800"],
               "gametree": ["8"], "interp": ["12"], "nbody": ["300"], "mt_work": ["150000"]}
# --quick: references of ~3-5 s (the small sizes' take 30 s and more with every reference traced)
QUICK_SIZES = {"gametree": ["6", "2"], "heapsort": ["50000"]}
REF_BURST = 100000
ENV_TOTAL = 1024       # bytes of HOTPROF_OUTPUT + HOTPROF_SAMPLE + HPS_STREAMS_PAD values
SAMPLED_TIMEOUT = 900
REF_TIMEOUT = 3600
FIXED_ENV = {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_ARENA_MAX": "1"}


def log(msg):
    print("[hps_streams %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def settings(quick):
    return QUICK_SETTINGS if quick else [(b, f) for b in BURSTS for f in FREQS]


class RunFailed(Exception):
    pass


def make_env(output, spec):
    """The environment of one run: FIXED_ENV, and a pad so that the child's environment has the
    same total size whatever the profile path and the sampling spec."""
    env = dict(os.environ)
    env.update(FIXED_ENV)
    pad = ENV_TOTAL - len(output or "") - len(spec or "")
    if pad < 1:
        raise SystemExit("streams.py: profile path too long for ENV_TOTAL")
    env["HPS_STREAMS_PAD"] = "x" * pad
    return env


def describe(argv, env):
    return " ".join(["%s=%s" % (k, env[k]) for k in sorted(FIXED_ENV)] + argv)


def checked_run(argv, env, timeout=SAMPLED_TIMEOUT):
    """Runs argv; returns its CPU seconds, or raises RunFailed (after logging it)."""
    cpu, wall, text, rc = benchlib.run_once(argv, timeout, env)
    if wall > timeout:
        log("TIMEOUT after %.0f s: %s\n%s" % (wall, describe(argv, env), text[-2000:]))
        raise RunFailed("TIMEOUT")
    if not benchlib.output_ok(rc, text):
        log("FAILED (exit %d): %s\n%s" % (rc, describe(argv, env), text[-2000:]))
        raise RunFailed("FAILED exit %d" % rc)
    return cpu


def parallel_runs(jobs, timeout):
    """Runs [(argv, env)] side by side; returns [(cpu, text, rc, timed_out)] in order."""
    import tempfile
    procs = []
    for argv, env in jobs:
        out = tempfile.TemporaryFile()
        procs.append((subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT), out))
    benchlib.CURRENT[:] = [p for p, _ in procs]
    start, results = time.monotonic(), [None] * len(procs)
    while any(r is None for r in results):
        for i, (p, out) in enumerate(procs):
            if results[i] is not None:
                continue
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            late = not pid and time.monotonic() - start > timeout
            if late:
                p.kill()
                pid, status, usage = os.wait4(p.pid, 0)
            if pid:
                p.returncode = os.waitstatus_to_exitcode(status)
                out.seek(0)
                results[i] = (usage.ru_utime + usage.ru_stime, out.read().decode(errors="replace"),
                              p.returncode, late)
                out.close()
        time.sleep(0.05)
    benchlib.CURRENT.clear()
    return results


def load_streams(hotprof, profile):
    """{address tuple: heat share}, [address tuples hottest first], the report's datastream dict."""
    p = subprocess.run([hotprof, "report", "--streams", "--top", "0", "--format", "json", profile],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    if p.returncode != 0:
        log("report failed for %s: %s" % (profile, p.stderr[-500:]))
        raise RunFailed("REPORT FAILED")
    d = json.loads(p.stdout[p.stdout.find("{"):])
    streams = d.get("streams", [])
    total = sum(s["heat"] for s in streams)
    shares, order = {}, []
    for s in streams:
        key = tuple(a.lower() for a in s["addrs"])
        shares[key] = shares.get(key, 0.0) + (s["heat"] / total if total else 0.0)
        if key not in order:
            order.append(key)
    return shares, order, d.get("datastream", {})


def overlap(a, b):
    return sum(min(v, b[k]) for k, v in a.items() if k in b)


WIN = 4


def windows_of(shares):
    """A profile as a distribution over WIN-reference windows: a stream longer than WIN spreads its
    share evenly over its len - WIN + 1 windows; a shorter one is its own key. The same streams cut
    at another point of a cycle (a periodic access pattern is reported as chains of up to 64
    references starting anywhere in the cycle) or shifted by one reference then still match."""
    dist = {}
    for key, share in shares.items():
        n = len(key) - WIN + 1
        if n <= 1:
            dist[key] = dist.get(key, 0.0) + share
            continue
        for i in range(n):
            w = key[i:i + WIN]
            dist[w] = dist.get(w, 0.0) + share / n
    return dist


def recall10(sampled_order, ref_order):
    ref = set(ref_order[:10])
    return len(ref & set(sampled_order[:10])) / len(ref) if ref else float("nan")


def heat_contained(ref, sampled):
    """The reference's share in streams that occur, contiguously, inside some sampled stream (or are
    one): the sampled detector, seeing few references, often chains a reference stream into a longer
    one (its Space-Saving summaries hold more of what they see), which exact keys count as a miss."""
    found = 0.0
    for key, share in ref.items():
        n = len(key)
        if key in sampled or any(len(s) > n and any(s[i:i + n] == key for i in range(len(s) - n + 1))
                                 for s in sampled):
            found += share
    return found


def round_metrics(hotprof, profile, ref, ref_order, ref_ds):
    """One sampled profile against the reference."""
    sam, sam_order, sam_ds = load_streams(hotprof, profile)
    keys = info(hotprof, profile)
    return {"overlap": overlap(sam, ref), "overlap_win": overlap(windows_of(sam), windows_of(ref)),
            "recall10": recall10(sam_order, ref_order),
            "found": sum(v for k, v in ref.items() if k in sam), "in_longer": heat_contained(ref, sam),
            "streams": len(sam), "sampled_refs": sam_ds.get("refs_seen", 0),
            "windows": int(keys.get("patch.bursts", sam_ds.get("bursts", 0)) or 0), "mode": keys.get("mode", "?")}


def info(hotprof, profile):
    return benchlib.info_keys(hotprof, profile)


class Workload:
    def __init__(self, args, name):
        self.args, self.name = args, name
        sizes = QUICK_SIZES if args.quick else SMALL_SIZES if args.small else {}
        self.size = sizes.get(name, SMALL_SIZES.get(name, []) if args.quick else [])
        self.setarch = ["setarch", "x86_64", "-R"]
        self.native = self.setarch + [os.path.join(args.bin_dir, "native", name)] + self.size
        self.hooked = [os.path.join(args.bin_dir, "hooked", name)] + self.size
        self.dir = args.keep or os.path.join(args.bin_dir, "profiles")
        os.makedirs(self.dir, exist_ok=True)

    def path(self, tag):
        return os.path.join(self.dir, "%s-%s.data" % (self.name, tag))

    def sampled_argv(self, profile, spec):
        return self.setarch + [self.args.hotprof, "run", "-q", "--seed", "1", "-o", profile, "--bursts",
                               self.args.bursts, "--sample", spec, "--"] + self.hooked

    def run_native(self):
        return checked_run(self.native, make_env(None, None))

    def references(self):
        """Two reference runs side by side; returns their CPU seconds."""
        spec = "datastream:period=0,burst=%d" % REF_BURST
        jobs = []
        for tag in ("ref1", "ref2"):
            p = self.path(tag)
            jobs.append((self.sampled_argv(p, spec), make_env(p, spec)))
        if self.args.ref_jobs >= 2:
            results = parallel_runs(jobs, REF_TIMEOUT)
        else:
            results = [parallel_runs([j], REF_TIMEOUT)[0] for j in jobs]
        cpus = []
        for (argv, env), (cpu, text, rc, late) in zip(jobs, results):
            if late or not benchlib.output_ok(rc, text):
                log("%s reference: %s: %s\n%s" % ("TIMEOUT" if late else "FAILED (exit %d)" % rc, self.name,
                                                   describe(argv, env), text[-2000:]))
                raise RunFailed("REFERENCE TIMEOUT" if late else "REFERENCE FAILED exit %d" % rc)
            cpus.append(cpu)
        return cpus

    def hooks_only(self):
        native = self.run_native()
        argv = self.setarch + [self.args.hotprof, "run", "-q", "--mode", "off", "--"] + self.hooked
        return checked_run(argv, make_env(None, None)) / native, native

    def timed_pairs(self, spec, tag):
        """RUNS rounds of (native, sampled), order alternating. Returns the medians of the native and
        sampled CPU times and of their ratio, and the rounds' profiles (paths of equal length)."""
        natives, sampled, profiles = [], [], []
        for r in range(self.args.runs):
            out = self.path("%s-r%02d" % (tag, r))
            profiles.append(out)
            run = lambda: checked_run(self.sampled_argv(out, spec), make_env(out, spec))
            if r % 2 == 0:
                natives.append(self.run_native())
                sampled.append(run())
            else:
                sampled.append(run())
                natives.append(self.run_native())
        ratios = [s / n for s, n in zip(sampled, natives)]
        return statistics.median(natives), statistics.median(sampled), statistics.median(ratios), profiles


COLUMNS = ["workload", "size", "burst", "freq", "period", "native_s", "sampled_s", "slowdown",
           "reference_slowdown", "hooks_only_slowdown", "overlap", "overlap_max", "overlap_win", "overlap_win_max",
           "recall10", "recall10_max",
           "ref_heat_found", "ref_heat_in_longer", "streams", "ref_streams", "sampled_refs", "ref_refs", "sampled_fraction",
           "windows", "overlap_rounds", "windows_rounds", "mode", "runs", "status"]


def sweep_workload(args, name, rows, progress):
    w = Workload(args, name)
    base = {"workload": name, "size": " ".join(w.size) or "default", "runs": args.runs}
    grid = settings(args.quick)

    def failed_rows(status, **extra):
        for burst, inv_freq in grid:
            row = dict(base, burst=burst, freq="1/%d" % inv_freq, period=period_of(burst, inv_freq),
                       status=status, **extra)
            rows.append(row)
            progress[0] += 1

    t0 = time.monotonic()
    try:
        ref_cpu = w.references()
        ref, ref_order, ref_ds = load_streams(args.hotprof, w.path("ref1"))
        ref2, ref2_order, _ = load_streams(args.hotprof, w.path("ref2"))
        off_slow, native = w.hooks_only()
    except RunFailed as e:
        failed_rows(str(e))
        return
    base.update(reference_slowdown=round(ref_cpu[0] / native, 2), hooks_only_slowdown=round(off_slow, 4),
                overlap_max=round(overlap(ref2, ref), 6), recall10_max=round(recall10(ref2_order, ref_order), 6),
                overlap_win_max=round(overlap(windows_of(ref2), windows_of(ref)), 6),
                ref_streams=len(ref), ref_refs=ref_ds.get("refs_seen", ""))
    log("%-9s reference: %d streams, %s references, %.0f s CPU (%.0fx native; two side by side in %.0f s); "
        "reference vs itself: overlap %.4f, recall10 %.2f; hooks only (--mode off) %.2fx"
        % (name, len(ref), ref_ds.get("refs_seen"), ref_cpu[0], ref_cpu[0] / native, time.monotonic() - t0,
           base["overlap_max"], base["recall10_max"], off_slow))
    for burst, inv_freq in grid:
        period = period_of(burst, inv_freq)
        spec = "datastream:period=%d,burst=%d" % (period, burst)
        row = dict(base, burst=burst, freq="1/%d" % inv_freq, period=period)
        try:
            native_s, sampled_s, slow, profiles = w.timed_pairs(spec, "b%03d-f%05d" % (burst, inv_freq))
            m = [round_metrics(args.hotprof, p, ref, ref_order, ref_ds) for p in profiles]
        except RunFailed as e:
            row["status"] = str(e)
            rows.append(row)
            progress[0] += 1
            continue
        for p in profiles[1:] if args.keep else profiles:  # --keep keeps the first round's
            os.unlink(p)
        med = lambda k: statistics.median(x[k] for x in m)
        refs = med("sampled_refs")
        row.update(native_s=round(native_s, 4), sampled_s=round(sampled_s, 4), slowdown=round(slow, 4),
                   overlap=round(med("overlap"), 6), overlap_win=round(med("overlap_win"), 6),
                   recall10=round(med("recall10"), 6),
                   ref_heat_found=round(med("found"), 6), ref_heat_in_longer=round(med("in_longer"), 6),
                   streams=med("streams"), sampled_refs=refs,
                   sampled_fraction=round(refs / ref_ds["refs_seen"], 9) if ref_ds.get("refs_seen") else "",
                   windows=med("windows"), overlap_rounds=";".join("%.4f" % x["overlap"] for x in m),
                   windows_rounds=";".join("%d" % x["windows"] for x in m), mode=m[0]["mode"], status="ok")
        rows.append(row)
        progress[0] += 1
        log("%3d/%d %-9s B=%-3d f=1/%-5d P=%-7d slowdown %.3fx  overlap %.3f [%s] (max %.3f) recall10 %.2f  "
            "%g streams from %g refs (%.1e) in %s windows" % (
                progress[0], progress[1], name, burst, inv_freq, period, slow, row["overlap"], row["overlap_rounds"],
                base["overlap_max"], row["recall10"], row["streams"], refs, row["sampled_fraction"] or float("nan"),
                row["windows_rounds"]))


def write_csv(path, rows):
    hpsplot.write_csv(path, rows, COLUMNS)


def summarize(rows):
    out = []
    for key, sel in hpsplot.settings_of(rows, lambda r: r.get("status") == "ok"):
        g = lambda k: [r[k] for r in sel]
        out.append({"burst": key[0], "inv_freq": key[1], "n": len(sel),
                    "slowdown": geomean(g("slowdown")), "slow_med": median(g("slowdown")),
                    "o": mean(g("overlap")), "o_med": median(g("overlap")), "o_max": mean(g("overlap_max")),
                    "w": mean(g("overlap_win")), "w_max": mean(g("overlap_win_max")),
                    "r10": mean(g("recall10")), "found": mean(g("ref_heat_found")), "sub": mean(g("ref_heat_in_longer")),
                    "streams": median(g("streams")), "frac": median(g("sampled_fraction"))})
    return out


def pct(v):
    return "%6.1f%%" % (100 * v) if not math.isnan(v) else "%7s" % "-"


def table(summary, rows, names):
    lines = ["%6s %8s %4s %8s %8s %9s | %7s %7s %7s %7s %7s %7s | %7s %7s | %7s" % (
        "burst", "freq", "wls", "slowdown", "median", "sampled", "overlap", "median", "max", "top10", "found",
        "in-long", "win%d" % WIN, "max", "streams")]
    for s in summary:
        lines.append("%6d %8s %4d %7.3fx %7.3fx %9.2e | %s %s %s %s %s %s | %s %s | %7s" % (
            s["burst"], "1/%d" % s["inv_freq"], s["n"], s["slowdown"], s["slow_med"], s["frac"],
            pct(s["o"]), pct(s["o_med"]), pct(s["o_max"]), pct(s["r10"]), pct(s["found"]), pct(s["sub"]),
            pct(s["w"]), pct(s["w_max"]), "%.0f" % s["streams"] if not math.isnan(s["streams"]) else "-"))
    lines += ["overlap: heat-share overlap with the reference over streams keyed by their exact address sequence",
              "(mean, and median, over workloads); max: the reference against a second reference run (mean);",
              "top10: recall of the reference's 10 hottest streams among the sampled top 10 (mean); found: the",
              "reference's heat in streams the sampled profile also reports (mean); in-long: the same, counting",
              "a reference stream found when it occurs inside a longer sampled stream; win%d: the overlap of the" % WIN,
              "profiles as distributions over %d-reference windows of their streams (insensitive to where a" % WIN,
              "chain of a cyclic pattern starts), and its max; streams: median reported; slowdown: geomean (and",
              "median) of sampled/native CPU time; sampled: median fraction of the reference's references the",
              "sampled run's detectors saw. Per workload and setting: medians over the rounds.", ""]
    settings_ = [(s["burst"], s["inv_freq"]) for s in summary]
    lines.append("overlap / win%d overlap per workload (max = reference vs itself):" % WIN)
    lines.append("%-12s" % "B, f" + "".join("%11s" % n[:10] for n in names))
    first = {n: next((r for r in rows if r["workload"] == n), {}) for n in names}
    cell = lambda a, b: "%11s" % ("%s/%s" % (fmt(a, 2), fmt(b, 2)))
    lines.append("%-12s" % "max" + "".join(cell(first[n].get("overlap_max"), first[n].get("overlap_win_max"))
                                            for n in names))
    for b, f in settings_:
        cells = []
        for n in names:
            r = next((r for r in rows if r["workload"] == n and r["burst"] == b and r["freq"] == "1/%d" % f), {})
            cells.append(cell(r.get("overlap"), r.get("overlap_win")) if r.get("status") == "ok"
                         else "%11s" % (r.get("status") or "-")[:10])
        lines.append("%-12s" % ("%d, 1/%d" % (b, f)) + "".join(cells))
    lines.append("")
    for n in names:
        r = first[n]
        if r.get("overlap_max", "") == "":
            lines.append("%-9s %s" % (n, r.get("status", "no rows")))
            continue
        lines.append("%-9s size %-8s reference: %3s streams from %s references, %sx native CPU; hooks only "
                     "(--mode off) %.2fx;\n          reference vs itself: overlap %.4f, top10 %.2f, win%d %.4f" % (
                         n, r["size"], r["ref_streams"], r["ref_refs"], r["reference_slowdown"],
                         r["hooks_only_slowdown"], r["overlap_max"], r["recall10_max"], WIN, r["overlap_win_max"]))
    return "\n".join(lines)


def fmt(v, digits=3):
    return "%.*f" % (digits, v) if isinstance(v, (int, float)) and not math.isnan(v) else "-"


def write_svg(path, summary, subtitle):
    plot_svg(path, summary, 1280, 395, ["HPS bursty sampling, hot data streams: accuracy vs overhead", subtitle],
             [("o", "overlap, exact streams (mean)", 60, "o_max"),
              ("w", "overlap, %d-reference windows (mean)" % WIN, 480, "w_max"),
              ("r10", "top-10 recall, exact streams (mean)", 900, None)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--hotprof", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("--small", type=int, default=1)
    ap.add_argument("--ref-jobs", type=int, default=2)
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--bursts", default="patch")
    ap.add_argument("--header", default="")
    ap.add_argument("--keep", default="", help="directory for the profiles (references, first rounds), kept")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--txt", required=True)
    ap.add_argument("--svg", required=True)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, benchlib.on_signal)
    signal.signal(signal.SIGINT, benchlib.on_signal)
    names = args.workloads.split()
    rows, progress = [], [0, len(names) * len(settings(args.quick))]
    start = time.monotonic()
    for name in names:
        sweep_workload(args, name, rows, progress)
        write_csv(args.csv, rows)  # partial results survive an interrupted sweep
    summary = summarize(rows)
    elapsed = time.monotonic() - start
    text = table(summary, rows, names)
    head = "%s\nsweep: --bursts %s, %s sizes, %d round%s, %.1f min" % (
        args.header, args.bursts, "quick" if args.quick else "small" if args.small else "default",
        args.runs, "" if args.runs == 1 else "s", elapsed / 60)
    print(head.strip() + "\n" + text)
    with open(args.txt, "w") as f:
        f.write(head.strip() + "\n" + text + "\n")
    write_svg(args.svg, summary, "%s; %s sizes; %d workloads" % (
        "patched bursts" if args.bursts == "patch" else "live HPS counters",
        "quick" if args.quick else "small" if args.small else "default", len(names)))
    bad = [r for r in rows if r.get("status") != "ok"]
    if bad:
        log("%d of %d rows failed: %s" % (len(bad), len(rows), sorted({(r["workload"], r["status"]) for r in bad})))


if __name__ == "__main__":
    main()
