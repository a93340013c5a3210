"""bench/lib/realrun.py - the real programs of bench/lib/realprogs.sh from Python: their builds
(the manifest `realprogs.sh prepare` prints; native is always built), one timed run of a build, and small helpers shared
by bench/fastpath/real.py and bench/hps_sweep/real.py (standard library only).

Invariants: a Build's argv has "@OUT" replaced by a file in the caller's work directory, so runs
never write outside it; every run must exit 0 (its output was checked against native's when the
build was prepared, so timed runs check only the exit status); times are user+sys CPU seconds of
the process tree (benchlib.run_once), control threads included.
"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HOTPROF = os.path.join(ROOT, "build", "bin", "hotprof")
REALPROGS = os.path.join(ROOT, "bench", "lib", "realprogs.sh")


class Build:
    """One line of the manifest: PROG, HOOKS, BINARY, TEXT_BYTES, ARGS."""

    def __init__(self, line):
        f = line.rstrip("\n").split("\t")
        self.prog, self.hooks, self.binary, self.text = f[0], f[1], f[2], int(f[3] or 0)
        self.args = f[4].split()
        secs = os.path.join(os.path.dirname(self.binary), ".build_seconds")
        self.build_s = int(open(secs).read()) if os.path.exists(secs) else -1

    def argv(self, work):
        out = os.path.join(work, "out.%s" % self.prog)
        return [self.binary] + [out if a == "@OUT" else a for a in self.args]


def cc_args(hooks):
    """hotprof cc options of a hook set name of realprogs.sh (SET, or SET+count: --dual-sites=count)."""
    if hooks.endswith("+count"):
        return ["--hooks=" + hooks[:-len("+count")], "--dual-sites=count"]
    return ["--hooks=" + hooks]


def log(tag, msg):
    print("[%s %s] %s" % (tag, time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def prepare(programs, hooks, quick, build_dir, root=ROOT):
    """Builds and checks every program with every hook set (realprogs.sh prepare of the tree at
    root: another tree builds with its own hotprof); returns {(prog, hooks): Build}. Hook sets
    the machine lacks (dual without the plugin) are absent."""
    if "native" not in hooks.split():
        hooks = "native " + hooks
    argv = ["bash", os.path.join(root, "bench", "lib", "realprogs.sh"), "prepare", "--programs", programs, "--hooks", hooks, "--build-dir", build_dir]
    if quick:
        argv.append("--quick")
    env = dict(os.environ)  # another tree reads the same sources (its default is relative to itself)
    env.setdefault("HOTPROF_REALPROGS", os.path.join(ROOT, "..", "shared", "realprogs"))
    out = subprocess.run(argv, stdout=subprocess.PIPE, text=True, env=env)
    if out.returncode != 0:
        sys.exit(out.returncode)
    builds = [Build(line) for line in out.stdout.splitlines() if line.strip()]
    return {(b.prog, b.hooks): b for b in builds}


def run_cpu(argv, env=None, timeout=3600):
    """CPU seconds of one run of argv; exits the benchmark if it fails."""
    e = dict(os.environ, HOTPROF_QUIET="1", **(env or {}))
    cpu, _wall, text, rc = benchlib.run_once(argv, timeout, env=e)
    if rc != 0:
        print("FAILED (%d): %s\n%s" % (rc, " ".join(argv), text[-1500:]), file=sys.stderr)
        sys.exit(1)
    return cpu


def paired(runs, variants, one_run):
    """RUNS rounds over VARIANTS (order rotating each round); one_run(variant) -> seconds.
    Returns {variant: [seconds per round]}."""
    times = {v: [] for v in variants}
    for r in range(runs):
        k = r % len(variants)
        for v in variants[k:] + variants[:k]:
            times[v].append(one_run(v))
    return times


def median_ratio(times, variant, base="native"):
    return statistics.median(t / n for t, n in zip(times[variant], times[base]))


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return statistics.geometric_mean(xs) if xs else float("nan")


def write_csv(path, columns, rows):
    with open(path, "w") as f:
        f.write(",".join(columns) + "\n")
        for r in rows:
            f.write(",".join(fmt(r.get(c, "")) for c in columns) + "\n")


def fmt(v):
    return "%.6g" % v if isinstance(v, float) else str(v)


def tree_note():
    """# tree at commit X, N cores, date: the first line of a results table."""
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                         text=True).stdout.strip() or "unknown"
    return "# tree at commit %s, %d cores, %s" % (rev, os.cpu_count() or 0, time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()))
