#!/usr/bin/env python3
"""bench/shadow/price.py - the driver of bench/shadow/price.sh: the parent's price of shadow
profiling split into parts that can be measured repeatably on a noisy host, beside the wall-clock
slowdown bench/shadow measured (docs/shadow.md, "The parent's price").

Parts, per workload (the dual-all build, load 0.25, sample 10M):
  floor   instructions of the dual-all build with HOTPROF_MODE=off (the parent runs the clean copies
          and their 5-byte nops; no shadow) over the native build's, both under callgrind at the
          QUICK sizes (instruction counts repeat exactly; a nop counts as a whole instruction, so
          this overstates what nops cost in cycles);
  cow     the parent's extra minor faults (shadow.csv's extra_minflt, median over its rounds) x the
          copy-on-write fault cost cow_cost measured in this run, over the native CPU time;
  fork    shadows started (shadow.csv) x fork time per MB (cow_cost) x the native run's max RSS
          (GNU time, this run), over the native CPU time.
model = floor + cow + fork - 2: what the parent pays that can be attributed; measured = shadow.csv's
median slowdown. Their difference is contention (a shadow on the other core: caches, memory
bandwidth) plus this host's noise.
Standard library only; writes shadow_price.{txt,csv} into --results.
"""
import argparse, csv, os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402  (callgrind_instructions)
from shadow import PROGRAMS, QUICK_SIZES, TARGET, med, read_csv  # noqa: E402


def log(msg):
    print("[price] " + msg, file=sys.stderr, flush=True)


def max_rss_mb(argv):
    res = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, capture_output=True, text=True)
    last = res.stderr.strip().splitlines()[-1] if res.stderr.strip() else ""
    if res.returncode != 0 or not last.isdigit():
        sys.exit("price.py: GNU time failed on %s: %s" % (" ".join(argv), res.stderr[-400:]))
    return int(last) / 1024.0


def cow_cost(binary):
    out = subprocess.run([binary, "64", "15"], capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (kv.split("=") for kv in out.split())}


def shadow_rows(path, build):
    """shadow.csv's rows of the build at the targets' setting, by program."""
    by = {}
    for r in read_csv(path):
        if r["build"] == build and r["size"] == TARGET["size"] and r["load"] == TARGET["load"]:
            by.setdefault(r["program"], []).append(r)
    return by


def price_row(args, prog, cow, rows):
    quick = [QUICK_SIZES[prog]]
    native = os.path.join(args.native, prog)
    off = dict(os.environ, HOTPROF_MODE="off")
    count = benchlib.callgrind_instructions
    floor = count([os.path.join(args.dual, prog)] + quick, off)[0] / count([native] + quick)[0]
    rss = max_rss_mb([native])
    cpu = med(rows, "native_cpu_s")
    cow_s = med(rows, "extra_minflt") * cow["fault_us"] * 1e-6
    fork_s = med(rows, "started") * cow["fork_us"] / cow["mb"] * rss * 1e-6
    return {"program": prog, "floor": floor, "cow": 1 + cow_s / cpu, "fork": 1 + fork_s / cpu, "rss_mb": rss,
            "faults": med(rows, "extra_minflt"), "shadows": med(rows, "started"), "native_cpu_s": cpu,
            "model": floor + (cow_s + fork_s) / cpu, "measured": med(rows, "slowdown")}


def table(rows, cow, header):
    out = [header, "",
           "cow_cost (64 MB, 15 rounds, median): fork %.0f us (%.1f us/MB), copy-on-write fault %.2f us, plain write %.1f ns"
           % (cow["fork_us"], cow["fork_us"] / cow["mb"], cow["fault_us"], cow["write_ns"]), "",
           "program    floor(instr)   cow    fork   model  measured  rss MB  faults  shadows"]
    for r in rows:
        out.append("%-10s %9.4f  %6.4f %6.4f  %6.4f    %6.3f  %6.1f  %6.0f  %7.1f"
                   % (r["program"], r["floor"], r["cow"], r["fork"], r["model"], r["measured"], r["rss_mb"], r["faults"], r["shadows"]))
    m = lambda k: statistics.median(r[k] for r in rows)  # noqa: E731
    out += ["%-10s %9.4f  %6.4f %6.4f  %6.4f    %6.3f" % ("median", m("floor"), m("cow"), m("fork"), m("model"), m("measured")), "",
            "model = floor + cow + fork - 2 (the attributable price); measured = bench/shadow's wall slowdown;",
            "target %.2f: the model %s it, the measurement %s it" % (
                TARGET["slowdown"], "meets" if m("model") <= TARGET["slowdown"] else "misses",
                "meets" if m("measured") <= TARGET["slowdown"] else "misses"), ""]
    return "\n".join(out)


def selftest():
    rows = [{"program": "a", "floor": 1.01, "cow": 1.005, "fork": 1.001, "rss_mb": 8, "faults": 100, "shadows": 2,
             "native_cpu_s": 1, "model": 1.016, "measured": 1.05}]
    text = table(rows, {"mb": 64, "fork_us": 640, "fault_us": 2, "write_ns": 20}, "# t")
    assert "10.0 us/MB" in text and "the model meets it, the measurement misses it" in text, text
    print("price.py selftest: ok")


def main():
    ap = argparse.ArgumentParser()
    for a in ("--native", "--dual", "--cow", "--shadow-csv", "--results", "--header", "--programs"):
        ap.add_argument(a, default="")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    cow = cow_cost(args.cow)
    log("cow_cost: %s" % cow)
    by = shadow_rows(args.shadow_csv, "dual-all")
    progs = [p for p in (args.programs.split() or PROGRAMS) if p in by]
    if not progs:
        sys.exit("price.py: %s has no dual-all rows at load %g, %s" % (args.shadow_csv, TARGET["load"], TARGET["size"]))
    rows = []
    for p in progs:
        log("%s: callgrind (native, dual-all off), max RSS" % p)
        rows.append(price_row(args, p, cow, by[p]))
    text = table(rows, cow, args.header)
    print(text, end="")
    with open(os.path.join(args.results, "shadow_price.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.results, "shadow_price.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) + ["fork_us", "fork_mb", "fault_us"])
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, fork_us=cow["fork_us"], fork_mb=cow["mb"], fault_us=cow["fault_us"]))


if __name__ == "__main__":
    main()
