#!/usr/bin/env python3
"""bench/overhead/measure.py - timing loop of bench/overhead/run.sh (standard library only).

Holds: for each workload, RUNS rounds; in each round every variant (native,
then one per hook set, the order rotated by one each round so no variant is
always first) runs once, back to back, so native and instrumented runs see the
same machine load; sizes are BENCH_SIZES (QUICK_SIZES with --quick). A run's time is the user+sys CPU time of the process tree
(os.wait4 rusage) and its wall time; instrumented runs go through
`hotprof run -q --seed 1 -o FILE -- prog [size]` and the profile is deleted.

Checks: every run exits 0 and prints a line starting with "ok" (the workloads
verify their own results); otherwise it stops with an error. Running, timing and the
check are bench/lib/benchlib.py's.

Output: the CSV (workload, hooks, native_s, instrumented_s, slowdown, runs,
then wall-clock columns and the workload's arguments) and a table on stdout. slowdown is the median over
rounds of the paired ratio instrumented/native (CPU time); native_s and
instrumented_s are the medians of the times. A "geomean" row per hook set
closes the table.
"""
import argparse
import math
import os
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402  (run_once, output_ok, on_signal)

# Arguments per workload. The overhead budget (< 30 min on 2 cores, 5 runs, 4 hook sets at
# 7-20x) sets BENCH_SIZES a little below the workloads' own defaults (about 1 s native each).
BENCH_SIZES = {"fft": "1000", "heapsort": "1500000", "lexgen": "500", "compress": "8192",
               "gametree": "11 8", "interp": "30", "nbody": "3000", "mt_work": "1500000"}
QUICK_SIZES = {"fft": "200", "heapsort": "400000", "lexgen": "100", "compress": "1600",
               "gametree": "9 8", "interp": "18", "nbody": "600", "mt_work": "300000"}


def log(msg):
    print("[overhead %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def command(args, variant, workload, size, profile):
    prog = os.path.join(args.bin_dir, variant, workload)
    tail = [prog] + size.split()
    if variant == "native":
        return tail
    return [args.hotprof, "run", "-q", "--seed", "1", "-o", profile, "--"] + tail


def measure_one(args, variant, workload, size, profile, timeout):
    argv = command(args, variant, workload, size, profile)
    cpu, wall, text, rc = benchlib.run_once(argv, timeout)
    if os.path.exists(profile):
        os.unlink(profile)
    if not benchlib.output_ok(rc, text):
        log("FAILED: %s (exit %d) output:\n%s" % (" ".join(argv), rc, text[-2000:]))
        sys.exit(1)
    return cpu, wall


def measure_workload(args, workload, variants, done, total, t0):
    size = (QUICK_SIZES if args.quick else BENCH_SIZES).get(workload, "")
    profile = os.path.join(args.bin_dir, "profile-%s.data" % workload)
    times = {v: [] for v in variants}
    native_cpu = None
    for r in range(args.runs):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for v in order:
            limit = 600 if native_cpu is None else max(120, 200 * native_cpu)
            cpu, wall = measure_one(args, v, workload, size, profile, limit)
            if v == "native":
                native_cpu = cpu
            times[v].append((cpu, wall))
            done += 1
            eta = (time.monotonic() - t0) / done * (total - done)
            log("%3d/%d %-9s %-10s round %d: %.2fs cpu %.2fs wall (eta %.0fs)"
                % (done, total, workload, v, r + 1, cpu, wall, eta))
    return times, done


def median_ratio(inst, native, idx):
    return statistics.median(i[idx] / n[idx] for i, n in zip(inst, native))


def rows_for(workload, times, hooks, runs):
    native = times["native"]
    rows = []
    for h in hooks:
        inst = times[h]
        rows.append({
            "workload": workload, "hooks": h,
            "native_s": statistics.median(t[0] for t in native),
            "instrumented_s": statistics.median(t[0] for t in inst),
            "slowdown": median_ratio(inst, native, 0), "runs": runs,
            "native_wall_s": statistics.median(t[1] for t in native),
            "instrumented_wall_s": statistics.median(t[1] for t in inst),
            "wall_slowdown": median_ratio(inst, native, 1)})
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def geomean_rows(rows, hooks, runs):
    out = []
    for h in hooks:
        sel = [r for r in rows if r["hooks"] == h]
        g = {k: geomean([r[k] for r in sel]) for k in
             ("native_s", "instrumented_s", "slowdown", "native_wall_s",
              "instrumented_wall_s", "wall_slowdown")}
        g.update({"workload": "geomean", "hooks": h, "runs": runs, "args": ""})
        out.append(g)
    return out


COLUMNS = ["workload", "hooks", "native_s", "instrumented_s", "slowdown", "runs",
           "native_wall_s", "instrumented_wall_s", "wall_slowdown", "args"]


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write(",".join(COLUMNS) + "\n")
        for r in rows:
            f.write(",".join(("%.4f" % r[c]) if isinstance(r[c], float) else str(r[c])
                             for c in COLUMNS) + "\n")


def print_table(rows, hooks, runs, quick):
    print("hotprof compiled-hook overhead: median slowdown (instrumented / native CPU time), "
          "%d runs each%s; wall-clock slowdown in parentheses" % (runs, ", --quick sizes" if quick else ""))
    print("%-10s %9s" % ("workload", "native_s") + "".join("%20s" % h for h in hooks))
    for w in dict.fromkeys(r["workload"] for r in rows):
        sel = {r["hooks"]: r for r in rows if r["workload"] == w}
        cells = "".join("%20s" % ("%.2fx (%.2fx)" % (sel[h]["slowdown"], sel[h]["wall_slowdown"]))
                        for h in hooks)
        print("%-10s %9.2f" % (w, sel[hooks[0]]["native_s"]) + cells)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--hotprof", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("--hooks", default="functions blocks memory compares")
    ap.add_argument("--workloads", required=True)
    ap.add_argument("--csv", required=True)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, benchlib.on_signal)
    signal.signal(signal.SIGINT, benchlib.on_signal)
    hooks = args.hooks.split()
    workloads = args.workloads.split()
    variants = ["native"] + hooks
    total, done, t0 = len(workloads) * len(variants) * args.runs, 0, time.monotonic()
    rows = []
    for w in workloads:
        times, done = measure_workload(args, w, variants, done, total, t0)
        size = (QUICK_SIZES if args.quick else BENCH_SIZES).get(w, "")
        rows += [dict(r, args=size) for r in rows_for(w, times, hooks, args.runs)]
    rows += geomean_rows(rows, hooks, args.runs)
    write_csv(args.csv, rows)
    print_table(rows, hooks, args.runs, args.quick)
    log("measured in %.0fs" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()
