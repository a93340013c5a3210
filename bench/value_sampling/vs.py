#!/usr/bin/env python3
"""bench/value_sampling/vs.py - the timing and accuracy loop of bench/value_sampling/run.sh
(standard library only).

Holds: for each program, RUNS rounds; in each round every variant runs once, back to back, the
order rotated by one each round, so native and profiled runs see the same machine load. A run's
times are its wall clock and the user+sys CPU time of its process tree (os.wait4 rusage); stdout
goes to a file, stdin comes from the program's input (sqlite3's script). Every run must exit like
the native run (status 0) and a workload must print its "ok" line; otherwise the bench stops.
slowdown = median over rounds of the paired ratio variant/native.

Accuracy (after timing): the per-function self-sample shares of our 1 kHz PC-sample run against a
20 kHz run of ours and against perf's 1 kHz run; overlap = sum_f min(a_f, b_f) in percent.

Output: bench/results/value_sampling.csv (program, variant, native wall/cpu, variant wall/cpu,
slowdowns, runs), value_sampling.txt (the tables), value_sampling.svg (median wall slowdown per
variant over programs, with perf and gperftools beside ours).
"""
import argparse
import json
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

CURRENT = []

# Workload arguments (bench/overhead's BENCH_SIZES: about 1 s native each).
WORKLOAD_ARGS = {"fft": "1000", "heapsort": "1500000", "lexgen": "500", "compress": "8192",
                 "gametree": "11 8", "interp": "30", "nbody": "3000", "mt_work": "1500000"}
QUICK_ARGS = {"fft": "200", "heapsort": "400000", "lexgen": "100", "compress": "1600",
              "gametree": "9 8", "interp": "18", "nbody": "600", "mt_work": "300000"}
DEBIAN = ["bzip2", "gzip", "xz", "sqlite3"]
INPUT_MB, QUICK_INPUT_MB = 5, 1
SQL_ROWS, QUICK_SQL_ROWS = 400000, 40000

# (name, kind, arguments): kind "hp" = hotprof --mode timer, "perf", "gperf", "native".
VARIANTS = [
    ("native", "native", []),
    ("floor", "floor", ["perf"]),
    ("floor-posix", "floor", ["posix"]),
    ("pc", "hp", []),
    ("pc-posix", "hp", ["--clock", "posix"]),
    ("v2/1", "hp", ["--values", "2/1"]),
    ("v4/2", "hp", ["--values", "4/2"]),
    ("v8/2", "hp", ["--values", "8/2"]),
    ("v16/2", "hp", ["--values", "16/2"]),
    ("v32/2", "hp", ["--values", "32/2"]),
    ("v8/4", "hp", ["--values", "8/4"]),
    ("v16/8", "hp", ["--values", "16/8"]),
    ("v4/2-tf", "hp", ["--values", "4/2", "--engine", "tf"]),
    ("perf", "perf", []),
    ("perf-g", "perf", ["-g"]),
    ("gperf", "gperf", []),
]
TARGETS = {"pc": 1.01, "v4/2": 1.03}


def log(msg):
    print("[value_sampling %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def on_signal(signum, frame):
    for p in CURRENT:
        p.kill()
    sys.exit(128 + signum)


def run_once(argv, stdin_path, env=None):
    """(cpu s, wall s, stdout text head, exit status) of argv."""
    with tempfile.TemporaryFile() as out, open(stdin_path or os.devnull, "rb") as inp:
        start = time.monotonic()
        proc = subprocess.Popen(argv, env=env, stdin=inp, stdout=out, stderr=subprocess.STDOUT)
        CURRENT[:] = [proc]
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        CURRENT.clear()
        out.seek(0)
        head = out.read(1 << 16).decode(errors="replace")
    return usage.ru_utime + usage.ru_stime, wall, head, os.waitstatus_to_exitcode(status)


# ---------------------------------------------------------------- inputs and programs

def make_input(path, megabytes):
    """Deterministic text with Zipf-like word frequencies (compressible like real text)."""
    rng = random.Random(12345)
    words = ["".join(rng.choice("etaoinshrdlucmfwypvbgkjqxz") for _ in range(rng.randint(2, 11)))
             for _ in range(5000)]
    weights = [1.0 / (i + 1) for i in range(len(words))]
    with open(path, "w") as f:
        written = 0
        while written < megabytes << 20:
            line = " ".join(rng.choices(words, weights, k=12)) + "\n"
            f.write(line)
            written += len(line)


def make_sql(path, rows):
    with open(path, "w") as f:
        f.write("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL);\n")
        f.write("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < %d)\n" % rows)
        f.write("INSERT INTO t SELECT i, (i*7919) %% 1000, printf('n%%08d', (i*104729) %% %d), i*0.5 FROM c;\n" % rows)
        f.write("CREATE INDEX tk ON t(k);\n")
        f.write("SELECT k, count(*), sum(v) FROM t GROUP BY k ORDER BY k LIMIT 5;\n")
        f.write("SELECT count(*) FROM t a JOIN t b ON a.k = b.k WHERE a.id < 2000 AND b.id < 20000;\n")
        f.write("SELECT name FROM t WHERE name LIKE 'n0001%' ORDER BY name LIMIT 3;\n")
        f.write("UPDATE t SET v = v + 1 WHERE k < 100;\nSELECT sum(v) FROM t;\n")


def programs(args):
    """name -> (argv, stdin path or None, is_workload)."""
    sizes = QUICK_ARGS if args.quick else WORKLOAD_ARGS
    text = os.path.join(args.work, "input.txt")
    sql = os.path.join(args.work, "script.sql")
    make_input(text, QUICK_INPUT_MB if args.quick else INPUT_MB)
    make_sql(sql, QUICK_SQL_ROWS if args.quick else SQL_ROWS)
    progs = {w: ([os.path.join(args.bin_dir, w)] + a.split(), None, True) for w, a in sizes.items()}
    progs["bzip2"] = (["bzip2", "-9", "-c", text], None, False)
    progs["gzip"] = (["gzip", "-9", "-c", text], None, False)
    progs["xz"] = (["xz", "-6", "-c", "-T1", text], None, False)
    progs["sqlite3"] = (["sqlite3", "-batch", ":memory:"], sql, False)
    want = args.programs.split() or (["fft", "bzip2"] if args.quick else list(progs))
    unknown = [p for p in want if p not in progs]
    if unknown:
        sys.exit("vs.py: unknown program(s) %s; known: %s" % (" ".join(unknown), " ".join(progs)))
    return {p: progs[p] for p in want}


def variant_argv(args, variant, prog_argv, out):
    name, kind, extra = variant
    if kind == "native":
        return prog_argv, None
    if kind == "hp":
        return [args.hotprof, "run", "-q", "--seed", "1", "--mode", "timer", "--freq", "1000", "-o", out] + \
            extra + ["--"] + prog_argv, None
    if kind == "floor":  # floor.c: the same interrupt with an empty handler
        return prog_argv, dict(os.environ, LD_PRELOAD=args.floor, FLOOR_CLOCK=extra[0], FLOOR_HZ="1000")
    if kind == "perf":
        return ["perf", "record", "-q", "-e", "cpu-clock", "-F", "1000", "-o", out] + extra + \
            ["--"] + prog_argv, None
    env = dict(os.environ, LD_PRELOAD=args.profiler, CPUPROFILE=out, CPUPROFILE_FREQUENCY="1000")
    return prog_argv, env


# ---------------------------------------------------------------- timing

def time_program(args, name, prog, writer):
    argv, stdin, workload = prog
    rounds = {v[0]: [] for v in VARIANTS}
    for r in range(args.runs):
        order = VARIANTS[r % len(VARIANTS):] + VARIANTS[:r % len(VARIANTS)]
        for v in order:
            out = os.path.join(args.work, "prof.%s.%s" % (name, v[0].replace("/", "_")))
            full, env = variant_argv(args, v, argv, out)
            cpu, wall, head, rc = run_once(full, stdin, env)
            if rc != 0 or (workload and not any(l.startswith("ok") for l in head.splitlines())):
                log("FAILED: %s %s (exit %d):\n%s" % (name, v[0], rc, head[-2000:]))
                sys.exit(1)
            rounds[v[0]].append((cpu, wall))
            if r + 1 < args.runs and os.path.exists(out) and v[0] not in ("pc", "perf"):
                os.unlink(out)
    rows = []
    for v in VARIANTS[1:]:
        wall = statistics.median(rounds[v[0]][i][1] / rounds["native"][i][1] for i in range(args.runs))
        cpu = statistics.median(rounds[v[0]][i][0] / rounds["native"][i][0] for i in range(args.runs))
        row = {"program": name, "variant": v[0],
               "native_wall_s": statistics.median(x[1] for x in rounds["native"]),
               "native_cpu_s": statistics.median(x[0] for x in rounds["native"]),
               "wall_s": statistics.median(x[1] for x in rounds[v[0]]),
               "cpu_s": statistics.median(x[0] for x in rounds[v[0]]),
               "slowdown_wall": wall, "slowdown_cpu": cpu, "runs": args.runs}
        rows.append(row)
        writer(row)
    return rows


# ---------------------------------------------------------------- accuracy

def hp_shares(args, profile):
    """{function: self share} from `hotprof report --type samples --format json`."""
    res = subprocess.run([args.hotprof, "report", "--type", "samples", "--format", "json", "--top", "100000",
                          profile], capture_output=True, text=True)
    if res.returncode != 0:
        log("report failed on %s: %s" % (profile, res.stderr.strip()))
        return {}
    return shares_from_json(json.loads(res.stdout))


def shares_from_json(doc):
    rows = doc.get("samples", {})
    if isinstance(rows, dict):
        rows = rows.get("functions", [])
    total = sum(r.get("self", 0) for r in rows) or 1
    out = {}
    for r in rows:
        out[r.get("function") or r.get("name") or "?"] = out.get(r.get("function") or r.get("name") or "?", 0) + \
            r.get("self", 0) / total
    return out


PERF_LINE = re.compile(r"^\s*([0-9.]+)%\s+\[[^\]]*\]\s+(\S+)")


def perf_shares(perf_data):
    res = subprocess.run(["perf", "report", "-i", perf_data, "--stdio", "--no-children", "--sort", "sym",
                          "-q"], capture_output=True, text=True)
    out = {}
    for line in res.stdout.splitlines():
        m = PERF_LINE.match(line)
        if m:
            out[m.group(2)] = out.get(m.group(2), 0) + float(m.group(1)) / 100
    return out


ADDR = re.compile(r"^(?:\S+\+)?0x0*([0-9a-f]+)$")


def norm(name):
    """A function name, or for code without symbols (stripped Debian libraries) its offset in the
    object: ours print "libbz2.so.1.0+0x4ac3", perf "0x0000000000004ac3"; both become "0x4ac3"."""
    m = ADDR.match(name)
    return "0x" + m.group(1) if m else name


def normalized(shares):
    out = {}
    for k, v in shares.items():
        out[norm(k)] = out.get(norm(k), 0) + v
    return out


def overlap(a, b):
    a, b = normalized(a), normalized(b)
    return 100 * sum(min(a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b))


def accuracy(args, name, prog):
    argv, stdin, _ = prog
    fast = os.path.join(args.work, "prof.%s.20k" % name)
    run_once([args.hotprof, "run", "-q", "--seed", "2", "--mode", "timer", "--freq", "20000", "-o", fast,
              "--"] + argv, stdin)
    ours = hp_shares(args, os.path.join(args.work, "prof.%s.pc" % name))
    ref = hp_shares(args, fast)
    perf = perf_shares(os.path.join(args.work, "prof.%s.perf" % name))
    return {"program": name, "vs_20khz": overlap(ours, ref), "vs_perf": overlap(ours, perf),
            "perf_vs_20khz": overlap(perf, ref), "functions": len(ours)}


# ---------------------------------------------------------------- output

def table(rows, acc, header):
    lines = [header, "", "Slowdown vs native (median of paired ratios; wall clock, CPU of the process tree in ())", ""]
    progs = list(dict.fromkeys(r["program"] for r in rows))
    names = [v[0] for v in VARIANTS[1:]]
    lines.append("%-10s" % "program" + "".join("%15s" % n for n in names))
    for p in progs:
        cells = {r["variant"]: r for r in rows if r["program"] == p}
        lines.append("%-10s" % p + "".join("%15s" % ("%.3f (%.3f)" % (cells[n]["slowdown_wall"], cells[n]["slowdown_cpu"]))
                                           for n in names))
    lines.append("%-10s" % "median" + "".join("%15s" % ("%.3f (%.3f)" % medians(rows, n)) for n in names))
    lines.append("")
    for n, target in TARGETS.items():
        med = medians(rows, n)[0]
        perf = medians(rows, "perf")[0]
        lines.append("target %-6s median wall %.3f <= %.2f: %s; below perf record's %.3f: %s" %
                     (n, med, target, "met" if med <= target else "MISSED", perf, "yes" if med < perf else "no"))
    fl, flp = medians(rows, "floor")[0], medians(rows, "floor-posix")[0]
    if not math.isnan(fl):
        lines.append("machine floor (floor.c: the same interrupt, an EMPTY handler, 1 kHz): perf clock %.3f, posix %.3f;"
                     % (fl, flp))
        for n, f in (("pc", fl), ("v4/2", fl), ("pc-posix", flp)):
            m = medians(rows, n)[0]
            if not math.isnan(m) and not math.isnan(f):
                lines.append("  %-8s %.3f = floor %.3f + hotprof's own work %.3f" % (n, m, f, m - f))
    if acc:
        lines += ["", "Hot-function accuracy of the 1 kHz PC samples (overlap of self shares, %)", "",
                  "%-10s %10s %10s %14s %10s" % ("program", "vs 20 kHz", "vs perf", "perf vs 20kHz", "functions")]
        for a in acc:
            lines.append("%-10s %10.1f %10.1f %14.1f %10d" % (a["program"], a["vs_20khz"], a["vs_perf"],
                                                              a["perf_vs_20khz"], a["functions"]))
    return "\n".join(lines) + "\n"


def medians(rows, variant):
    sel = [r for r in rows if r["variant"] == variant]
    if not sel:
        return (float("nan"), float("nan"))
    return statistics.median(r["slowdown_wall"] for r in sel), statistics.median(r["slowdown_cpu"] for r in sel)


def svg(rows, path):
    names = [v[0] for v in VARIANTS[1:]]
    meds = [medians(rows, n)[0] for n in names]
    top = max([m for m in meds if not math.isnan(m)] + [1.1]) * 1.1
    w, h, left, bottom = 760, 360, 60, 60
    bw = (w - left - 20) / len(names)
    y = lambda v: h - bottom - (v / top) * (h - bottom - 30)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (w, h),
           '<text x="%d" y="16" font-size="13">median wall-clock slowdown over programs (1.0 = native)</text>' % left]
    for t in range(0, int(top * 10) + 1, 2):
        v = t / 10
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%.1f</text>'
                   % (left, w - 20, y(v), y(v), left - 4, y(v) + 4, v))
    for i, (n, m) in enumerate(zip(names, meds)):
        if math.isnan(m):
            continue
        colour = "#4477aa" if n.startswith(("pc", "v")) else "#cc6677"
        x = left + i * bw + 4
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>' % (x, y(m), bw - 8, y(0) - y(m), colour))
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%.3f</text>' % (x + (bw - 8) / 2, y(m) - 3, m))
        out.append('<text x="%.1f" y="%d" text-anchor="end" transform="rotate(-40 %.1f %d)">%s</text>'
                   % (x + (bw - 8) / 2, h - bottom + 14, x + (bw - 8) / 2, h - bottom + 14, n))
    out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#000"/>' % (left, w - 20, y(1), y(1)))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def selftest():
    rows = []
    for p in ("a", "b", "c"):
        for i, v in enumerate(VARIANTS[1:]):
            rows.append({"program": p, "variant": v[0], "slowdown_wall": 1 + i / 100, "slowdown_cpu": 1 + i / 50,
                         "native_wall_s": 1, "native_cpu_s": 1, "wall_s": 1, "cpu_s": 1, "runs": 1})
    pos = [v[0] for v in VARIANTS[1:]].index("v2/1")
    assert abs(medians(rows, "v2/1")[0] - (1 + pos / 100)) < 1e-12
    assert overlap({"f": 0.5, "g": 0.5}, {"f": 0.25, "h": 0.75}) == 25
    assert shares_from_json({"samples": {"functions": [{"function": "f", "self": 3}, {"function": "g", "self": 1}]}}) \
        == {"f": 0.75, "g": 0.25}
    assert PERF_LINE.match("    41.20%  [.] main").group(2) == "main"
    assert norm("libbz2.so.1.0+0x4ac3") == norm("0x0000000000004ac3") == "0x4ac3" and norm("main") == "main"
    text = table(rows, [{"program": "a", "vs_20khz": 95.0, "vs_perf": 90.0, "perf_vs_20khz": 93.0, "functions": 4}], "# t")
    assert "pc-posix" in [v[0] for v in VARIANTS]
    pc_val = 1 + [v[0] for v in VARIANTS[1:]].index("pc") / 100
    assert "target pc" in text and ("MISSED" in text.split("target pc")[1].split("\n")[0]) == (pc_val > 1.01)
    assert "machine floor" in text and "hotprof's own work" in text
    with tempfile.TemporaryDirectory() as d:
        svg(rows, os.path.join(d, "x.svg"))
        assert open(os.path.join(d, "x.svg")).read().count("<rect") == len(VARIANTS) - 1
    print("vs.py selftest: ok")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest", action="store_true")
    for a in ("--bin-dir", "--work", "--hotprof", "--profiler", "--floor", "--programs", "--results", "--header"):
        ap.add_argument(a, default="")
    ap.add_argument("--name", default="value_sampling", help="output files NAME.{txt,csv,svg}")
    ap.add_argument("--variants", default="", help="only these variants (space-separated names), native always")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", type=int, default=0)
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    if args.variants:
        keep = set(args.variants.split())
        unknown = keep - {v[0] for v in VARIANTS}
        if unknown:
            sys.exit("vs.py: unknown variant(s) %s; known: %s" % (" ".join(sorted(unknown)), " ".join(v[0] for v in VARIANTS)))
        VARIANTS[:] = [v for v in VARIANTS if v[0] == "native" or v[0] in keep]
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    progs = programs(args)
    csv_path = os.path.join(args.results, args.name + ".csv")
    fields = ["program", "variant", "native_wall_s", "native_cpu_s", "wall_s", "cpu_s", "slowdown_wall",
              "slowdown_cpu", "runs"]
    rows, acc = [], []
    with open(csv_path, "w") as csv:
        csv.write(args.header + "\n" + ",".join(fields) + "\n")
        def writer(row):
            csv.write(",".join(("%.4f" % row[f]) if isinstance(row[f], float) else str(row[f]) for f in fields) + "\n")
            csv.flush()
        for name, prog in progs.items():
            log("timing %s (%d rounds x %d variants)" % (name, args.runs, len(VARIANTS)))
            rows += time_program(args, name, prog, writer)
            if {"pc", "perf"} <= {v[0] for v in VARIANTS}:
                acc.append(accuracy(args, name, prog))
    with open(os.path.join(args.results, args.name + "_accuracy.csv"), "w") as f:
        f.write(args.header + "\nprogram,vs_20khz,vs_perf,perf_vs_20khz,functions\n")
        for a in acc:
            f.write("%s,%.2f,%.2f,%.2f,%d\n" % (a["program"], a["vs_20khz"], a["vs_perf"], a["perf_vs_20khz"], a["functions"]))
    text = table(rows, acc, args.header)
    with open(os.path.join(args.results, args.name + ".txt"), "w") as f:
        f.write(text)
    svg(rows, os.path.join(args.results, args.name + ".svg"))
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
