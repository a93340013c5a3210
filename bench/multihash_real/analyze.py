#!/usr/bin/env python3
"""bench/multihash_real/analyze.py - tables, CSV and SVG of bench/multihash_real/run.sh
(standard library only).

Inputs in --work: <workload>.<kind>.<L>.grid.csv and .area.csv (`hotprof sim multihash --csv`:
error rows plus the trace's Figure 4-6 statistics: distinct tuples and exact candidates per
interval, candidate change rate), overhead.csv (workload, stream, plain|intervals, run, cpu
seconds). Outputs in --results: multihash_real.csv (one row per workload x stream x L x design),
multihash_real.txt (the printed table and the variant summary), multihash_real.svg (mean error
vs number of tables, C1 R0 at 2K counters, one line per stream and setting, averaged over
workloads). Target (issue 12): E < 1% at 4 tables, C1, R0, 2K counters; rows missing it are
marked. The variants (hotprof sim --variant; docs/intervals.md): `rebalanced` of the 2K design
(same area) and of the 1K design (about 2/3 of the area), `half` of the 2K design (half the
area), against the paper's 4 x 2K design.
--selftest runs the whole analysis on made-up inputs and checks the outputs.
"""
import argparse
import csv
import glob
import os
import re
import sys
import tempfile
import xml.dom.minidom

FIELDS = ["workload", "stream", "interval", "tables", "counters", "bits", "conservative", "reset", "retain",
          "shield", "hash", "variant", "acc_entries", "area_bytes", "error_pct", "fp_pct", "fn_pct", "np_pct", "nn_pct",
          "fp_rate_pct", "fp_bound_pct", "intervals", "distinct_mean", "distinct_min", "distinct_max", "cand_mean",
          "cand_min", "cand_max", "change_pct"]


def load(work):
    rows = []
    for path in sorted(glob.glob(os.path.join(work, "*.csv"))):
        m = re.match(r"(\w+)\.(values|edges)\.(\d+)\.(grid|area)\.csv$", os.path.basename(path))
        if not m:
            continue
        w, kind, L, _ = m.groups()
        for r in csv.DictReader(open(path)):
            r.update(workload=w, stream="value" if kind == "values" else "edges", interval=L)
            rows.append({k: r.get(k, "") for k in FIELDS})
    return rows


def design(r, counters, variant="paper", hash_="paper"):
    return (r["tables"], r["conservative"], r["reset"], r["hash"], r["variant"]) == ("4", "1", "0", hash_, variant) and \
        (counters is None or r["counters"] == counters)


def pick(sub, counters, variant="paper", hash_="paper", area=None):
    """The 4-table C1 R0 row of that design; variant rows are found by their area (a share of the design they came from)."""
    for r in sub:
        if variant != "paper" and design(r, None, variant) and area is not None and int(r["area_bytes"]) <= area \
                and int(r["area_bytes"]) > area * 0.99:
            return r
        if variant == "paper" and design(r, counters, "paper", hash_):
            return r
    return None


def overhead(work):
    path = os.path.join(work, "overhead.csv")
    if not os.path.exists(path):
        return {}
    t = {}
    for w, s, mode, _, cpu in csv.reader(open(path)):
        t.setdefault((w, s), {}).setdefault(mode, []).append(float(cpu))
    return {k: min(v["intervals"]) / min(v["plain"]) for k, v in t.items() if v.get("plain") and v.get("intervals")}


def fmt(r):
    return "%.3f" % float(r["error_pct"]) if r else "-"


def table(rows, ovh):
    lines = ["%-9s %-6s %8s %8s %11s %6s | %7s %7s %7s %7s %7s | %8s %8s %8s | %8s %s" % (
        "workload", "stream", "L", "dist/L", "cand/L(max)", "chg%", "E%4x2K", "E%4x1K", "E%fast", "E%rebal", "E%half",
        "area_2K", "area_rb", "area_hf", "overhead", "target")]
    keys = sorted({(r["workload"], r["stream"], r["interval"]) for r in rows})
    summary = {}
    for w, s, L in keys:
        sub = [r for r in rows if (r["workload"], r["stream"], r["interval"]) == (w, s, L)]
        head = pick(sub, "2048")
        if not head:
            continue
        half, fast = pick(sub, "1024"), pick(sub, "2048", hash_="fast")
        rb2 = pick(sub, None, "rebalanced", area=int(head["area_bytes"]))
        rb1 = pick(sub, None, "rebalanced", area=int(half["area_bytes"])) if half else None
        hf = pick(sub, None, "half", area=int(head["area_bytes"]) // 2 + 1)
        e = float(head["error_pct"])
        o = ovh.get((w, s))
        for name, r in (("paper 4x2K", head), ("rebalanced 4x2K", rb2), ("paper 4x1K", half), ("rebalanced 4x1K", rb1),
                        ("half 4x2K", hf)):
            if r:
                summary.setdefault((s, L, name), []).append((float(r["error_pct"]), int(r["area_bytes"])))
        lines.append("%-9s %-6s %8s %8.0f %11s %6.2f | %7.3f %7s %7s %7s %7s | %8s %8s %8s | %8s %s" % (
            w, s, L, float(head["distinct_mean"] or 0), "%.1f(%s)" % (float(head["cand_mean"] or 0), head["cand_max"]),
            float(head["change_pct"] or 0), e, fmt(half), fmt(fast), fmt(rb2), fmt(hf), head["area_bytes"],
            rb2["area_bytes"] if rb2 else "-", hf["area_bytes"] if hf else "-", "%.2fx" % o if o else "-",
            "ok" if e < 1 else "MISSED (>= 1%)"))
    lines.append("")
    lines.append("variant summary (mean E over workloads, max E, area in bytes; 4 tables, C1, R0):")
    for (s, L, name), v in sorted(summary.items()):
        lines.append("  %-6s L=%-8s %-16s mean E %7.3f%%  max E %7.3f%%  area %s" % (
            s, L, name, sum(x[0] for x in v) / len(v), max(x[0] for x in v), "/".join(sorted({str(x[1]) for x in v}))))
    return "\n".join(lines) + "\n"


def svg(rows):
    series = {}
    for r in rows:
        if r["counters"] == "2048" and r["conservative"] == "1" and r["reset"] == "0" and r["hash"] == "paper":
            series.setdefault((r["stream"], r["interval"]), {}).setdefault(int(r["tables"]), []).append(float(r["error_pct"]))
    W, H, M = 640, 400, 50
    ymax = max([sum(v) / len(v) for s in series.values() for v in s.values()] + [1.0])
    tx = [1, 2, 4, 8, 16]
    x = lambda n: M + (W - 2 * M) * tx.index(n) / (len(tx) - 1)
    y = lambda e: H - M - (H - 2 * M) * e / ymax
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
           '<text x="%d" y="20">mean multi-hash error (C1 R0, 2K counters) vs tables, real streams</text>' % M,
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (M, H - M, W - M, H - M),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (M, M, M, H - M)]
    for n in tx:
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(n), H - M + 15, n))
    out.append('<text x="5" y="%d">%.2f%%</text>' % (M, ymax))
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for i, ((stream, L), pts) in enumerate(sorted(series.items())):
        xs = [n for n in tx if n in pts]
        path = " ".join("%s%.1f,%.1f" % ("M" if j == 0 else "L", x(n), y(sum(pts[n]) / len(pts[n]))) for j, n in enumerate(xs))
        c = colours[i % len(colours)]
        out.append('<path d="%s" fill="none" stroke="%s" stroke-width="2"/>' % (path, c))
        out.append('<text x="%d" y="%d" fill="%s">%s L=%s</text>' % (W - M - 150, M + 15 * (i + 1), c, stream, L))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write(rows, ovh, results):
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "multihash_real.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, FIELDS)
        wr.writeheader()
        wr.writerows(rows)
    text = table(rows, ovh)
    open(os.path.join(results, "multihash_real.txt"), "w").write(text)
    open(os.path.join(results, "multihash_real.svg"), "w").write(svg(rows))
    return text


def selftest():
    head = ("tables,counters,bits,conservative,reset,retain,shield,area_bytes,error_pct,fp_pct,fn_pct,np_pct,nn_pct,"
            "fp_rate_pct,fp_bound_pct,intervals,hash,acc_entries,variant,distinct_mean,distinct_min,distinct_max,"
            "cand_mean,cand_min,cand_max,change_pct\n")
    stats = "1500.5,1000,2000,12.5,3,20,25.000"
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as res:
        for w, e4 in (("fft", 0.5), ("nbody", 2.5)):
            for L in ("10000", "1000000"):
                with open(os.path.join(work, "%s.values.%s.grid.csv" % (w, L)), "w") as f:
                    f.write(head)
                    for n in (1, 2, 4, 8, 16):
                        for c in (0, 1):
                            for r in (0, 1):
                                e = e4 * 4 / n if (c, r) == (1, 0) else e4 * 4 / n + c + r
                                f.write("%d,2048,7,%d,%d,1,1,2792,%.6f,%.6f,0,0,0,0.1,0.2,100,paper,100,paper,%s\n" % (n, c, r, e, e / 2, stats))
                with open(os.path.join(work, "%s.values.%s.area.csv" % (w, L)), "w") as f:
                    f.write(head)
                    f.write("4,1024,7,1,0,1,1,1896,%.6f,0,0,0,0,0,0,100,paper,100,paper,%s\n" % (2 * e4, stats))
                    f.write("4,1592,7,1,0,1,1,1893,%.6f,0,0,0,0,0,0,100,paper,50,rebalanced,%s\n" % (e4, stats))
                    f.write("4,2048,7,1,0,1,1,2792,%.6f,0,0,0,0,0,0,100,fast,100,paper,%s\n" % (e4, stats))
                    f.write("4,2616,7,1,0,1,1,2789,%.6f,0,0,0,0,0,0,100,paper,50,rebalanced,%s\n" % (e4 / 2, stats))
                    f.write("4,1308,7,1,0,1,1,1395,%.6f,0,0,0,0,0,0,100,paper,25,half,%s\n" % (e4 * 3, stats))
        with open(os.path.join(work, "overhead.csv"), "w") as f:
            f.write("fft,value,plain,1,1.0\nfft,value,intervals,1,3.0\nfft,value,plain,2,1.1\n")
        rows = load(work)
        assert len(rows) == 2 * 2 * (20 + 5), len(rows)
        text = write(rows, overhead(work), res)
        lines = text.strip().split("\n")
        body = [l for l in lines if l.startswith(("fft", "nbody"))]
        assert len(body) == 4, text
        fft = [l for l in body if l.startswith("fft")]
        assert all(" ok" in l and "3.00x" in l and "12.5(20)" in l and "25.00" in l and "2789" in l and "1395" in l for l in fft), fft
        assert all(l.split("|")[1].split()[3:5] == ["0.250", "1.500"] for l in fft), fft  # rebalanced 2K, half
        rb1 = [l for l in lines if "rebalanced 4x1K" in l and "L=10000 " in l]
        assert len(rb1) == 1 and "mean E   1.500%" in rb1[0] and "area 1893" in rb1[0], rb1  # (0.5 + 2.5) / 2
        assert all("MISSED" in l for l in body if l.startswith("nbody")), body
        summ = [l for l in lines if "rebalanced 4x2K" in l and "L=10000 " in l]
        assert len(summ) == 1 and "mean E   0.750%" in summ[0] and "max E   1.250%" in summ[0], summ
        got = list(csv.DictReader(open(os.path.join(res, "multihash_real.csv"))))
        assert len(got) == len(rows) and set(got[0]) == set(FIELDS)
        doc = xml.dom.minidom.parse(os.path.join(res, "multihash_real.svg"))
        assert len(doc.getElementsByTagName("path")) == 2  # value at two settings
    print("analyze.py selftest: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work")
    ap.add_argument("--results")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    if not a.work or not a.results:
        ap.error("--work and --results are required")
    rows = load(a.work)
    if not rows:
        sys.exit("analyze.py: no sim results in %s" % a.work)
    sys.stdout.write(write(rows, overhead(a.work), a.results))


if __name__ == "__main__":
    main()
