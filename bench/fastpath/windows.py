#!/usr/bin/env python3
"""bench/fastpath/windows.py - what a patched window costs besides the hooks, on the real programs
(bench/lib/realprogs.sh builds them): per program and dual hook set, one patched run at
methods + call pairs period=999,burst=1 (1/1000), read from the profile's INFO (docs/format.md):
  windows        patch.bursts
  units          patch.sampled_entries (units recorded)
  on_ms          patch.patched_ns: time with the sites on (switching included), and its share of
                 patch.total_ns
  per_window_us  on_ms / windows
  wakeups        patch.wakeups, the control thread's wake-ups (one per window where the hook that
                 takes a window's last unit switches the sites off)
  control_ms     patch.control_ns, the control thread's CPU time
  cpu_s          the whole run's user + system CPU seconds
With --baseline TREE the same builds made by TREE's hotprof (a worktree of an older commit) run
too, alternating with ours, as rows "HOOKS@base". Counts, not ratios: the mechanism behind a
slowdown (bench/fastpath/real.sh measures the slowdown itself). Median over --runs runs.

Usage: bench/fastpath/windows.py [--runs N] [--programs "qjs tcc brotli"]
           [--hooks "dual-functions dual-blocks"] [--baseline TREE] [--build-dir DIR] [--name NAME]
Writes bench/results/fastpath_windows[_NAME].{txt,csv}.
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402
import realrun  # noqa: E402

ENV = {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch",
       "HOTPROF_SAMPLE": "methods:period=999,burst=1;callpairs:period=999,burst=1"}
KEYS = {"windows": "patch.bursts", "units": "patch.sampled_entries", "on_ns": "patch.patched_ns",
        "total_ns": "patch.total_ns", "wakeups": "patch.wakeups", "control_ns": "patch.control_ns"}
COLUMNS = ["program", "build", "windows", "units", "on_ms", "on_share", "per_window_us", "wakeups",
           "control_ms", "cpu_s", "runs"]


def info(data):
    vals = benchlib.info_keys(realrun.HOTPROF, data)
    return {k: float(vals.get(key, "nan")) for k, key in KEYS.items()}


def one_run(build, work):
    data = os.path.join(work, "w.data")
    cpu = realrun.run_cpu(build.argv(work), dict(ENV, HOTPROF_OUTPUT=data))
    return dict(info(data), cpu_s=cpu)


def row(prog, name, runs):
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    w = med["windows"] or float("nan")
    return {"program": prog, "build": name, "windows": med["windows"], "units": med["units"],
            "on_ms": med["on_ns"] / 1e6, "on_share": med["on_ns"] / med["total_ns"],
            "per_window_us": med["on_ns"] / 1e3 / w, "wakeups": med["wakeups"],
            "control_ms": med["control_ns"] / 1e6, "cpu_s": med["cpu_s"], "runs": len(runs)}


def table(rows):
    lines = ["%-8s %-22s %8s %9s %9s %7s %10s %8s %11s %7s" % ("program", "build", "windows", "units", "on_ms",
                                                                "on_%", "us/window", "wakeups", "control_ms",
                                                                "cpu_s")]
    for r in rows:
        lines.append("%-8s %-22s %8.0f %9.0f %9.1f %6.2f%% %10.1f %8.0f %11.1f %7.2f" % (
            r["program"], r["build"], r["windows"], r["units"], r["on_ms"], 100 * r["on_share"],
            r["per_window_us"], r["wakeups"], r["control_ms"], r["cpu_s"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--programs", default="qjs tcc brotli")
    ap.add_argument("--hooks", default="dual-functions dual-blocks")
    ap.add_argument("--baseline", help="another built hotprof tree: the same builds made by it, as HOOKS@base")
    ap.add_argument("--build-dir", default=os.path.join(realrun.ROOT, "build", "bench-realprogs"))
    ap.add_argument("--name", default="")
    a = ap.parse_args()
    if a.runs < 1:
        sys.exit("windows.py: --runs must be at least 1")
    if a.baseline and not os.access(os.path.join(a.baseline, "build", "bin", "hotprof"), os.X_OK):
        sys.exit("windows.py: --baseline needs a built hotprof tree")
    builds = {"": realrun.prepare(a.programs, a.hooks, 0, a.build_dir)}
    if a.baseline:
        builds["@base"] = realrun.prepare(a.programs, a.hooks, 0, a.build_dir + "-base", os.path.abspath(a.baseline))
    rows = []
    with tempfile.TemporaryDirectory(prefix="hotprof-windows.") as work:
        for p in a.programs.split():
            for h in a.hooks.split():
                names = [(tag, b[(p, h)]) for tag, b in builds.items() if (p, h) in b]
                runs = {tag: [] for tag, _ in names}
                for _ in range(a.runs):  # alternating: old and new see the same machine
                    for tag, b in names:
                        runs[tag].append(one_run(b, work))
                rows += [row(p, h + tag, runs[tag]) for tag, _ in names]
                realrun.log("windows", "%s %s: %d runs each" % (p, h, a.runs))
    base = os.path.join(realrun.ROOT, "bench", "results", "fastpath_windows" + ("_" + a.name if a.name else ""))
    text = "%s, median of %d runs%s\n%s\n" % (realrun.tree_note(), a.runs,
                                               "; @base: built by " + a.baseline if a.baseline else "", table(rows))
    print(text, end="")
    with open(base + ".txt", "w") as f:
        f.write(text)
    realrun.write_csv(base + ".csv", COLUMNS, rows)


if __name__ == "__main__":
    main()
