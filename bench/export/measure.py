#!/usr/bin/env python3
"""bench/export/measure.py - times reading the profiles run.sh recorded (see run.sh's header).

For each program NAME (NAME.data: an exhaustive hotprof profile; NAME.perf: perf.data of a native
run) every command below runs --runs times, interleaved: each round runs every command once, in an
order rotated by one per round, so drift of the machine hits all of them alike. Reported per
command: median user+sys CPU seconds and wall seconds of the process, the output's size, and the
ratio of its CPU time to `report` (text, top 20) of the same profile. The pprof export is also
checked against the JSON report with `go tool pprof -top` (same top-10 names and counts).
Writes RESULTS/export.csv and RESULTS/export.txt (the table printed).
"""
import argparse
import csv
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402


def commands(hp, base, work, name):
    """(label, argv, output file or None for stdout) of every timed command of one program."""
    d = os.path.join(work, name + ".data")
    out = lambda ext: os.path.join(work, "%s.out.%s" % (name, ext))  # noqa: E731
    cmds = [
        ("report text (top 20)", [hp, "report", "--stdio", d], None),
        ("report text (all rows)", [hp, "report", "--stdio", "--top", "0", d], None),
        ("report json (all rows)", [hp, "report", "--format", "json", "--top", "0", d], None),
        ("report --blocks --edges", [hp, "report", "--stdio", "--blocks", "--edges", d], None),
        ("folded", [hp, "report", "--format", "folded", d], None),
        ("pprof", [hp, "report", "--format", "pprof", "-o", out("pb.gz"), d], out("pb.gz")),
        ("html", [hp, "report", "--format", "html", "-o", out("html"), d], out("html")),
        ("annotate (hottest)", [hp, "annotate", "--stdio", "-i", d], None),
        ("annotate --asm (hottest)", [hp, "annotate", "--asm", "--stdio", "-i", d], None),
        ("merge (profile + itself)", [hp, "merge", "-o", out("merged"), d, d], out("merged")),
        ("info", [hp, "info", d], None),
    ]
    if base:
        cmds.append(("baseline report text (top 20)", [base, "report", d], None))
    perf = os.path.join(work, name + ".perf")
    if shutil.which("perf") and os.path.getsize(perf) > 0:
        cmds.append(("peer: perf report --stdio", ["perf", "report", "--stdio", "-i", perf], None))
    return cmds


def output_size(text, path):
    return os.path.getsize(path) if path else len(text.encode())


def time_all(cmds, runs):
    cpu = {c[0]: [] for c in cmds}
    wall = {c[0]: [] for c in cmds}
    size = {}
    for r in range(runs):
        order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
        for label, argv, path in order:
            c, w, text, rc = benchlib.run_once(argv, timeout=600)
            if rc != 0:
                sys.exit("measure.py: %s failed (exit %d): %s" % (" ".join(argv), rc, text[-400:]))
            cpu[label].append(c)
            wall[label].append(w)
            size[label] = output_size(text, path)
        print("[export] round %d/%d done" % (r + 1, runs), file=sys.stderr)
    return cpu, wall, size


def pprof_agrees(hp, work, name):
    """'yes' if go tool pprof -top lists the JSON report's top-10 methods with the same heat."""
    if not shutil.which("go"):
        return "no go"
    d = os.path.join(work, name + ".data")
    pb = os.path.join(work, name + ".methods.pb.gz")
    subprocess.run([hp, "report", "--format", "pprof", "--type", "methods", "-o", pb, d], check=True)
    rep = json.loads(subprocess.run([hp, "report", "--format", "json", "--top", "0", d], check=True,
                                    capture_output=True, text=True).stdout)
    want = sorted(((m["heat"], m["function"]) for m in rep["methods"]), reverse=True)[:10]
    env = dict(os.environ, HOME=work, GOCACHE=os.path.join(work, "gocache"), PPROF_TMPDIR=work, GOTOOLCHAIN="local")
    top = subprocess.run(["go", "tool", "pprof", "-top", "-nodecount=10", "-nodefraction=0", "-sample_index=heat", pb],
                         capture_output=True, text=True, env=env).stdout
    got = []
    for line in top.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].isdigit() and f[1].endswith("%"):
            got.append((int(f[0]), " ".join(f[5:])))
    return "yes" if [c for c, _ in got[:10]] == [c for c, _ in want] and \
        {n for _, n in got[:10]} == {n for _, n in want} else "NO"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hotprof", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--results", required=True)
    ap.add_argument("programs", nargs="+")
    a = ap.parse_args()
    rows = []
    for name in a.programs:
        cmds = commands(a.hotprof, a.baseline, a.work, name)
        cpu, wall, size = time_all(cmds, a.runs)
        ref = statistics.median(cpu[cmds[0][0]])
        agree = pprof_agrees(a.hotprof, a.work, name)
        for label, _, _ in cmds:
            c = statistics.median(cpu[label])
            rows.append({"program": name, "command": label, "runs": a.runs, "cpu_ms": round(c * 1000, 1),
                         "wall_ms": round(statistics.median(wall[label]) * 1000, 1),
                         "vs_report": round(c / ref, 2) if ref > 0 else "", "output_bytes": size[label],
                         "check": agree if label == "pprof" else ""})
    os.makedirs(a.results, exist_ok=True)
    with open(os.path.join(a.results, "export.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    lines = ["%-8s %-31s %9s %9s %9s %12s  %s" % ("program", "command", "cpu ms", "wall ms", "x report", "output B",
                                                  "pprof top-10 = report")]
    for r in rows:
        lines.append("%-8s %-31s %9.1f %9.1f %9s %12d  %s" % (r["program"], r["command"], r["cpu_ms"], r["wall_ms"],
                                                              r["vs_report"], r["output_bytes"], r["check"]))
    lines.append("(medians of %d interleaved runs; cpu = user+sys of the process; bench/export/run.sh)" % a.runs)
    text = "\n".join(lines) + "\n"
    open(os.path.join(a.results, "export.txt"), "w").write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, benchlib.on_signal)
    signal.signal(signal.SIGINT, benchlib.on_signal)
    main()
