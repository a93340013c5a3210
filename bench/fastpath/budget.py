#!/usr/bin/env python3
"""bench/fastpath/budget.py - what count mode may spend per event, and what it spends (issue 14's
"total at 1/1000, burst 1 <= 1.03"). Called by bench/fastpath/budget.sh, which parses the options.

Per program (the eight workloads and the real programs, each built with one dual hook set; SET+count
is SET with inline count sites, realprogs.sh's naming), four
variants run side by side in interleaved rounds (paired CPU-time ratios to native, median):
  native   clang -O2
  off      HOTPROF_MODE=off: the switched-off floor
  dec      count mode with both types at period 10^9: every event decrements the countdown, no
           burst ever starts (the decrement alone)
  c1000    count mode, methods + call pairs at period=999, burst=1 (the issue's setting)
Events E and bursts are the c1000 runs' own INFO (`dual.count.events`, `dual.count.bursts`; each
variant writes a profile of its own, so the last round's order does not matter): count mode counts
every call and loop back-edge of the clean code.

Derived (ns from the medians of the rounds; cycles at the clock /proc/cpuinfo reports):
  native/ev   native CPU time per event: how dense the events are
  budget/ev   0.03 x native/ev: all that a total of 1.03 leaves per event for count, bursts and floor
  dec/ev      (dec - off) x native time / E: what the decrement costs per event (a difference of two
              medians: noisy where it is small)
  spent/ev    (c1000 - 1) x native time / E: what count mode at 1/1000 costs per event, all in
  burst       (c1000 - dec) x native time / bursts: what one burst costs (entry, hooks, way back)
Invariant: a variant whose run fails stops the benchmark (exit 1); no number is filled in.
CSV: program,hooks,events,bursts,native_s,off,dec,c1000,native_ns_per_event,budget_ns_per_event,
dec_ns_per_event,spent_ns_per_event,burst_ns,ghz,runs.
"""
import argparse
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import benchlib  # noqa: E402
import fastpath  # noqa: E402  (the workloads' builds and sizes)
import realrun  # noqa: E402

NEVER = "methods:period=1000000000,burst=1;callpairs:period=1000000000,burst=1"
MODES = {
    "off": {"HOTPROF_MODE": "off"},
    "dec": {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "count", "HOTPROF_SAMPLE": NEVER},
    "c1000": {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "count", "HOTPROF_SAMPLE": fastpath.HPS_1000},
}
VARIANTS = ["native", "off", "dec", "c1000"]
COLUMNS = ["program", "hooks", "events", "bursts", "native_s", "off", "dec", "c1000", "native_ns_per_event",
           "budget_ns_per_event", "dec_ns_per_event", "spent_ns_per_event", "burst_ns", "ghz", "runs"]


def log(msg):
    realrun.log("fastpath-budget", msg)


def clock_ghz():
    """The clock /proc/cpuinfo reports (nominal in a VM), GHz; nan when it says none."""
    try:
        with open("/proc/cpuinfo") as f:
            mhz = [float(line.split(":")[1]) for line in f if line.startswith("cpu MHz")]
        return mhz[0] / 1000.0 if mhz else float("nan")
    except OSError:
        return float("nan")


class Subject:
    """One program: a native argv, a hooked argv, a work directory for its profiles (one per
    variant), and how one run is timed (runner(argv, env) -> CPU seconds; it stops the benchmark on
    a failed run)."""

    def __init__(self, name, hooks, native_argv, hooked_argv, work, runner):
        self.name, self.hooks, self.native, self.hooked = name, hooks, native_argv, hooked_argv
        self.work, self.runner = work, runner

    def profile(self, variant):
        return os.path.join(self.work, "budget.%s.%s.data" % (self.name, variant))

    def run(self, variant):
        if variant == "native":
            return self.runner(self.native, {})
        return self.runner(self.hooked, dict(MODES[variant], HOTPROF_OUTPUT=self.profile(variant)))


def workload_runner(work):
    """A workload's run (fastpath.run_once: it must print its "ok" line)."""
    def run(argv, env):
        try:
            return fastpath.run_once(argv[0], argv[1], env, work)
        except RuntimeError as e:
            sys.exit("budget.py: %s" % e)
    return run


def workload_subjects(names, hooks, work):
    subjects = []
    for name in names:
        exe = {v: os.path.join(work, "%s.%s" % (name, v)) for v in ("native", "hooked")}
        fastpath.build(work, name, "native", exe["native"])
        fastpath.build_hooked(fastpath.HOTPROF, name, realrun.cc_args(hooks), exe["hooked"])
        size = fastpath.SIZES[name]
        subjects.append(Subject(name, hooks, [exe["native"], size], [exe["hooked"], size], work,
                                workload_runner(work)))
    return subjects


def real_subjects(programs, hooks, quick, build_dir, work):
    if not programs:
        return []
    builds = realrun.prepare(" ".join(programs), hooks, quick, build_dir)
    missing = [p for p in programs if (p, hooks) not in builds]
    if missing:
        sys.exit("budget.py: no %s build of %s" % (hooks, " ".join(missing)))
    return [Subject(p, hooks, builds[(p, "native")].argv(work), builds[(p, hooks)].argv(work), work,
                    realrun.run_cpu) for p in programs]


def measure(subject, runs, ghz):
    times = realrun.paired(runs, VARIANTS, subject.run)
    keys = benchlib.info_keys(fastpath.HOTPROF, subject.profile("c1000"))   # the last c1000 run
    events, bursts = float(keys.get("dual.count.events", 0)), float(keys.get("dual.count.bursts", 0))
    if events <= 0:
        sys.exit("budget.py: %s's count-mode profile has no dual.count.events" % subject.name)
    native_ns = statistics.median(times["native"]) * 1e9
    ratio = {v: realrun.median_ratio(times, v) for v in VARIANTS[1:]}
    row = {"program": subject.name, "hooks": subject.hooks, "events": int(events), "bursts": int(bursts),
           "native_s": native_ns / 1e9, "native_ns_per_event": native_ns / events,
           "budget_ns_per_event": 0.03 * native_ns / events,
           "dec_ns_per_event": (ratio["dec"] - ratio["off"]) * native_ns / events,
           "spent_ns_per_event": (ratio["c1000"] - 1) * native_ns / events,
           "burst_ns": (ratio["c1000"] - ratio["dec"]) * native_ns / bursts if bursts else float("nan"),
           "ghz": ghz, "runs": runs}
    row.update(ratio)
    log("%s: %d rounds done" % (subject.name, runs))
    return row


def print_table(rows, ghz):
    print("%-9s %9s %8s %6s %6s %6s %10s %10s %10s %10s %9s" % (
        "program", "events/s", "native", "off", "dec", "c1000", "native/ev", "budget/ev", "dec/ev", "spent/ev",
        "burst"))
    for r in rows:
        print("%-9s %8.0fM %7.3fs %6.3f %6.3f %6.3f %9.2fc %9.2fc %9.2fc %9.2fc %7.0fns" % (
            r["program"], r["events"] / r["native_s"] / 1e6, r["native_s"], r["off"], r["dec"], r["c1000"],
            r["native_ns_per_event"] * ghz, r["budget_ns_per_event"] * ghz, r["dec_ns_per_event"] * ghz,
            r["spent_ns_per_event"] * ghz, r["burst_ns"]))
    print("events/s: calls + loop back-edges per second of native CPU time; off, dec, c1000: CPU time x native\n"
          "(median of paired rounds); per event, in cycles at %.2f GHz: native/ev native's time, budget/ev\n"
          "0.03 x native/ev (all a 1.03 total leaves), dec/ev (dec - off): the decrement's, spent/ev (c1000 - 1):\n"
          "count mode's at 1/1000 in all; burst: (c1000 - dec) per burst, ns (the CSV has every time in ns)" % ghz)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("--workloads", default=" ".join(fastpath.SIZES))
    ap.add_argument("--programs", default="qjs tcc brotli")
    ap.add_argument("--hooks", default="dual-functions")
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--csv", required=True)
    a = ap.parse_args()
    benchlib.handle_signals()
    unknown = [w for w in a.workloads.split() if w not in fastpath.SIZES]
    if unknown:
        sys.exit("budget.py: unknown workload %s (known: %s)" % (" ".join(unknown), " ".join(fastpath.SIZES)))
    ghz, rows = clock_ghz(), []
    with tempfile.TemporaryDirectory(prefix="hotprof-fastpath-budget.") as work:
        subjects = workload_subjects(a.workloads.split(), a.hooks, work) + \
            real_subjects(a.programs.split(), a.hooks, a.quick, a.build_dir, work)
        for s in subjects:
            rows.append(measure(s, a.runs, ghz))
            realrun.write_csv(a.csv, COLUMNS, rows)   # partial results survive an interruption
    print(realrun.tree_note() + ", %d rounds, --hooks=%s%s" % (a.runs, a.hooks, ", --quick inputs" if a.quick else ""))
    print_table(rows, ghz)


if __name__ == "__main__":
    main()
