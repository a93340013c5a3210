#!/usr/bin/env python3
"""bench/shadow/shadow.py - the driver of bench/shadow/run.sh (see its header for what is measured).
Standard library only; timing through bench/lib/benchlib.py (run_once: CPU of the process tree and
wall clock). Prints the table, writes shadow.csv, shadow.txt and shadow.svg into --results.
"""
import argparse, csv, json, math, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402

PROGRAMS = ["fft", "heapsort", "lexgen", "compress", "gametree", "interp", "nbody", "mt_work"]
QUICK_SIZES = {"fft": "300", "heapsort": "600000", "lexgen": "150", "compress": "2400",
               "gametree": "10", "interp": "24", "nbody": "1000", "mt_work": "600000"}
PROFILES = ["--sample", "path", "--sample", "value:summary=tnv"]
TARGET = {"load": 0.25, "size": "10M", "slowdown": 1.02, "wall": 0.93, "difftop": 0.06}


def log(msg):
    print("[shadow] " + msg, file=sys.stderr, flush=True)


def totals(hotprof, path):
    res = subprocess.run([hotprof, "report", "--format", "json", "--top", "1", path], capture_output=True, text=True)
    t = json.loads(res.stdout)["totals"]
    return t["calls"] + t["blocks"]


def compare(hotprof, est, ref):
    res = subprocess.run([hotprof, "compare", "--format", "json", est, ref], capture_output=True, text=True)
    if res.returncode != 0:
        log("compare failed: " + res.stderr.strip())
        return float("nan"), float("nan")
    d = json.loads(res.stdout)
    return d.get("path", {}).get("wall_accuracy", float("nan")), d.get("value", {}).get("diff_top", float("nan"))


def run(argv, what):
    cpu, wall, text, rc = benchlib.run_once(argv)
    if not benchlib.output_ok(rc, text):
        log("FAILED: %s (exit %d):\n%s" % (what, rc, text[-1500:]))
        sys.exit(1)
    return cpu, wall


def measure_round(args, prog, size_arg, writer, r, build, hpdir, refs):
    """Round r (0-based) of one program on one build: its native run, then one shadow run per
    (sample size, load). The exhaustive in-process reference is run in round 0 only (refs keeps
    its file, events and cost; the workloads are deterministic): later rounds' rows carry NaN as
    their in-process cost."""
    native = [os.path.join(args.native, prog)] + size_arg
    hp = [os.path.join(hpdir, prog)] + size_arg
    n_cpu, n_wall = run(native, prog + " native")
    if (prog, build) not in refs:
        ref = os.path.join(args.work, "ref.%s.%s" % (build, prog))
        _e_cpu, e_wall = run([args.hotprof, "run", "-q", "-o", ref] + PROFILES + ["--"] + hp, prog + " exhaustive")
        refs[(prog, build)] = (ref, totals(args.hotprof, ref), e_wall / n_wall)
    ref, events, inprocess = refs[(prog, build)]
    inprocess = inprocess if r == 0 else float("nan")
    rows = []
    for size in args.sizes:
        for load in args.loads:
            out = os.path.join(args.work, "sh.%s.%s" % (build, prog))
            s_cpu, s_wall = run([args.hotprof, "run", "-q", "--mode", "shadow", "--load", load, "--sample-size", size,
                                 "-o", out] + PROFILES + ["--"] + hp, "%s shadow %s %s" % (prog, size, load))
            i = benchlib.info_keys(args.hotprof, out)
            wall_acc, difftop = compare(args.hotprof, out, ref)
            g = lambda k: float(i.get(k, "nan"))
            row = {"build": build, "program": prog, "round": r + 1, "size": size, "load": float(load),
                   "native_wall_s": n_wall, "native_cpu_s": n_cpu,
                   "inprocess_slowdown": inprocess, "shadow_wall_s": s_wall,
                   "slowdown": s_wall / n_wall, "parent_cpu_ratio": g("shadow.parent_cpu_ns") / 1e9 / n_cpu,
                   "started": g("shadow.started"), "finished": g("shadow.finished"), "killed": g("shadow.killed"),
                   "extra_minflt": g("shadow.minflt") - g("shadow.minflt_before"),
                   "coverage": g("shadow.events") / events if events else float("nan"),
                   "coverage_estimate": g("shadow.coverage_ppm") / 1e6,
                   "wall_accuracy": wall_acc, "difftop": difftop}
            rows.append(row)
            writer(row)
            log("%-8s %-9s %4s load %-6s slowdown %.3f  wall %.1f%%  difftop %.1f%%  coverage %.1f%%  shadows %d" %
                (build, prog, size, load, row["slowdown"], 100 * wall_acc, 100 * difftop, 100 * row["coverage"], row["started"]))
    return rows


def values(rows, key, **sel):
    """r[key] of the rows whose fields equal sel's, NaN left out."""
    return [r[key] for r in rows if all(r[k] == x for k, x in sel.items()) and not math.isnan(r[key])]


def med(rows, key, **sel):
    v = values(rows, key, **sel)
    return statistics.median(v) if v else float("nan")


def best_ratio(rows, **sel):
    """min shadow wall / min native wall over the rows (rounds) selected: on a host whose noise only
    slows runs down (other tenants), the fastest run of each is the least disturbed one."""
    sh, nat = values(rows, "shadow_wall_s", **sel), values(rows, "native_wall_s", **sel)
    return min(sh) / min(nat) if sh and nat else float("nan")


def table(rows, header):
    progs = list(dict.fromkeys(r["program"] for r in rows))
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    loads = sorted(set(r["load"] for r in rows))
    lines = [header, "", "Medians over programs (and rounds). slowdown = wall / native wall of the same round; parent CPU = the",
             "parent's CPU / native CPU; faults = the parent's extra minor faults; coverage = shadow events / the",
             "exhaustive run's calls + blocks (estimate: what the run itself reported, INFO shadow.coverage_ppm);",
             "Wall = path accuracy (top 5%); Diff-Top = value invariance error.", "",
             "%6s %7s %9s %8s %8s %9s %8s %8s %9s %8s" % ("size", "load", "slowdown", "parentCPU", "faults", "coverage",
                                                           "Wall", "DiffTop", "shadows", "killed")]
    for s in sizes:
        for l in loads:
            sel = dict(size=s, load=l)
            if not any(r["size"] == s and r["load"] == l for r in rows):
                continue
            lines.append("%6s %7g %9.3f %9.3f %8.0f %8.1f%% %7.1f%% %7.1f%% %9.1f %8.1f" % (
                s, l, med(rows, "slowdown", **sel), med(rows, "parent_cpu_ratio", **sel), med(rows, "extra_minflt", **sel),
                100 * med(rows, "coverage", **sel), 100 * med(rows, "wall_accuracy", **sel),
                100 * med(rows, "difftop", **sel), med(rows, "started", **sel), med(rows, "killed", **sel)))
    lines += ["", "Per program at load %g, sample %s (the targets' setting):" % (TARGET["load"], TARGET["size"]), "",
              "%-10s %9s %6s %11s %9s %9s %8s %8s %9s" % ("program", "slowdown", "best", "in-process", "coverage", "estimate",
                                                          "Wall", "DiffTop", "shadows")]
    for p in progs:
        sel = dict(program=p, size=TARGET["size"], load=TARGET["load"])
        if not any(all(r[k] == v for k, v in sel.items()) for r in rows):
            continue
        lines.append("%-10s %9.3f %6.3f %10.2fx %8.1f%% %8.1f%% %7.1f%% %7.1f%% %9.1f" % (
            p, med(rows, "slowdown", **sel), best_ratio(rows, **sel), med(rows, "inprocess_slowdown", program=p),
            100 * med(rows, "coverage", **sel),
            100 * med(rows, "coverage_estimate", **sel), 100 * med(rows, "wall_accuracy", **sel), 100 * med(rows, "difftop", **sel), med(rows, "started", **sel)))
    sel = dict(size=TARGET["size"], load=TARGET["load"])
    sd, wa, dt = med(rows, "slowdown", **sel), med(rows, "wall_accuracy", **sel), med(rows, "difftop", **sel)
    if not math.isnan(sd):
        lines += ["", "targets at load %g, %s (medians): slowdown %.3f <= %.2f: %s; Wall %.1f%% >= %.0f%%: %s; Diff-Top %.1f%% <= %.0f%%: %s" % (
            TARGET["load"], TARGET["size"], sd, TARGET["slowdown"], "met" if sd <= TARGET["slowdown"] else "MISSED",
            100 * wa, 100 * TARGET["wall"], "met" if wa >= TARGET["wall"] else "MISSED",
            100 * dt, 100 * TARGET["difftop"], "met" if dt <= TARGET["difftop"] else "MISSED"),
            "best (fastest shadow run / fastest native run over the rounds), median over programs: %.3f" %
            statistics.median([b for b in (best_ratio(rows, program=p, **sel) for p in progs) if not math.isnan(b)] or [float("nan")]),
            "in-process (exhaustive hooks, the same profiles): median %.2fx native" % med(rows, "inprocess_slowdown")]
    return "\n".join(lines) + "\n"


def svg(rows, path):
    sizes = list(dict.fromkeys(r["size"] for r in rows))
    loads = sorted(set(r["load"] for r in rows))
    w, h, left, bottom = 720, 360, 60, 50
    ymax = max([med(rows, "slowdown", size=s, load=l) for s in sizes for l in loads if not math.isnan(med(rows, "slowdown", size=s, load=l))] + [1.1]) * 1.05
    x = lambda i: left + i * (w - left - 30) / max(1, len(loads) - 1)
    y = lambda v: h - bottom - (v - 0.9) / (ymax - 0.9) * (h - bottom - 30)
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (w, h),
           '<text x="%d" y="16" font-size="13">parent slowdown (median wall / native) by load, one line per sample size</text>' % left]
    for i, l in enumerate(loads):
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (x(i), h - bottom + 16, l))
    for t in range(9, int(ymax * 10) + 1):
        out.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (left - 6, y(t / 10) + 4, t / 10))
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, w - 30, y(t / 10), y(t / 10)))
    for k, s in enumerate(sizes):
        pts = [(x(i), y(med(rows, "slowdown", size=s, load=l))) for i, l in enumerate(loads)
               if not math.isnan(med(rows, "slowdown", size=s, load=l))]
        c = colors[k % len(colors)]
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (c, " ".join("%.1f,%.1f" % p for p in pts)))
        out.append('<text x="%d" y="%d" fill="%s">sample %s</text>' % (w - 130, 40 + 14 * k, c, s))
    out.append('<text x="%d" y="%d" text-anchor="middle">load (average shadows alive)</text>' % ((w + left) // 2, h - 10))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def selftest():
    rows = []
    for p in ("a", "b", "c"):
        for s in ("1M", "10M"):
            for l in (0.25, 1.0):
                rows.append({"program": p, "round": 1, "size": s, "load": l, "native_wall_s": 1, "native_cpu_s": 1,
                             "inprocess_slowdown": 5.0, "shadow_wall_s": 1.01, "slowdown": 1.0 + l / 100,
                             "parent_cpu_ratio": 1.0, "started": 3, "finished": 3, "killed": 0, "extra_minflt": 100,
                             "coverage": 0.1, "coverage_estimate": 0.1, "wall_accuracy": 0.95, "difftop": 0.05})
    text = table(rows, "# t")
    assert "slowdown 1.002 <= 1.02: met" in text, text
    assert "Wall 95.0% >= 93%: met" in text and "Diff-Top 5.0% <= 6%: met" in text
    assert abs(med(rows, "slowdown", size="1M", load=1.0) - 1.01) < 1e-12
    two = [dict(rows[0], round=1, native_wall_s=2.0, shadow_wall_s=2.5), dict(rows[0], round=2, native_wall_s=1.6, shadow_wall_s=1.7)]
    assert abs(best_ratio(two, program="a") - 1.7 / 1.6) < 1e-12
    with tempfile.TemporaryDirectory() as d:
        svg(rows, os.path.join(d, "x.svg"))
        assert open(os.path.join(d, "x.svg")).read().count("<polyline") == 2
    print("shadow.py selftest: ok")


def write_results(results, rows, builds, header):
    """One table per build on stdout and in shadow.txt; shadow.svg of the default shadow build
    (dual-all) when it ran, else of the last."""
    text = "\n".join(table([r for r in rows if r["build"] == b], "%s\n# build: hotprof cc --hooks=%s" % (header, b))
                     for b in builds)
    print(text, end="")
    with open(os.path.join(results, "shadow.txt"), "w") as f:
        f.write(text)
    plotted = "dual-all" if "dual-all" in builds else builds[-1]
    svg([r for r in rows if r["build"] == plotted], os.path.join(results, "shadow.svg"))


def read_csv(path):
    """shadow.csv's rows as measure_round wrote them: build, program and size text, the rest floats."""
    with open(path) as f:
        return [{k: (v if k in ("build", "program", "size") else float(v)) for k, v in r.items()} for r in csv.DictReader(f)]


def rerender(results, header):
    """shadow.txt and shadow.svg again from shadow.csv (header: the first line of the old shadow.txt
    unless given)."""
    rows = read_csv(os.path.join(results, "shadow.csv"))
    if not header:
        with open(os.path.join(results, "shadow.txt")) as f:
            header = f.readline().rstrip("\n")
    write_results(results, rows, list(dict.fromkeys(r["build"] for r in rows)), header)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--selftest", action="store_true")
    for a in ("--native", "--hp", "--hp-dual", "--hp-dual-onebody", "--work", "--hotprof", "--programs", "--sizes", "--loads",
              "--results", "--header"):
        ap.add_argument(a, default="")
    ap.add_argument("--builds", default="all dual-all")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("--rerender", action="store_true", help="the tables again from --results' shadow.csv (no run)")
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    if args.rerender:
        return rerender(args.results, args.header)
    args.sizes, args.loads = args.sizes.split(), args.loads.split()
    progs = args.programs.split() or (["fft", "gametree"] if args.quick else PROGRAMS)
    rows = []
    fields = ["build", "program", "round", "size", "load", "native_wall_s", "native_cpu_s", "inprocess_slowdown", "shadow_wall_s",
              "slowdown", "parent_cpu_ratio", "started", "finished", "killed", "extra_minflt", "coverage",
              "coverage_estimate", "wall_accuracy", "difftop"]
    with open(os.path.join(args.results, "shadow.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        # the builds: --hooks=all (the parent runs patched-off hooked code) and, when the plugin
        # exists, --hooks=dual-all (the parent runs clean copies; docs/shadow.md) and dual-all in the
        # one-body form (dual-all-onebody); in each round every build runs in turn (side by side)
        builds = [("all", args.hp)] + ([("dual-all", args.hp_dual)] if args.hp_dual else []) + \
                 ([("dual-all-onebody", args.hp_dual_onebody)] if args.hp_dual_onebody else [])
        builds = [(b, d) for b, d in builds if b in args.builds.split()]
        if not builds:
            sys.exit("shadow.py: no build left of --builds '%s' (dual-all needs the plugin)" % args.builds)
        refs = {}
        for p in progs:
            log("%s (%s): %d round(s) x %d configurations" % (p, " ".join(b for b, _ in builds), args.runs,
                                                             len(args.sizes) * len(args.loads)))
            for r in range(args.runs):
                for b, d in builds:
                    rows += measure_round(args, p, [QUICK_SIZES[p]] if args.quick else [],
                                          lambda row: (w.writerow(row), f.flush()), r, b, d, refs)
    write_results(args.results, rows, [b for b, _ in builds], args.header)


if __name__ == "__main__":
    main()
