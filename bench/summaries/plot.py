#!/usr/bin/env python3
"""plot.py — SVG plots of bench/results/summaries.csv (and multihash.csv), standard library only.

summaries.svg: one column per stream; row 1 = recall of the items with >= 0.1% of events, row 2 =
top-100 recall, row 3 = mean relative count error of reported items (log scale); x = budget
(4, 16, 64 KB, log scale); one line per summary.
multihash.svg: average weighted error E per configuration (bars), one panel per interval setting.
usage: plot.py SUMMARIES_CSV SUMMARIES_SVG [MULTIHASH_CSV MULTIHASH_SVG]
"""
import csv
import math
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf", "#000000"]
PW, PH, ML, MT, GAP = 220, 150, 60, 40, 50


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(x, y, s, size=11, anchor="middle", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-family="sans-serif" {extra}>{esc(s)}</text>')


def panel(x0, y0, title, series, budgets, ylog, ylabel):
    """series: {name: [(budget, value)]}; returns SVG elements."""
    out = [f'<rect x="{x0}" y="{y0}" width="{PW}" height="{PH}" fill="none" stroke="#888"/>',
           text(x0 + PW / 2, y0 - 6, title, 12)]
    values = [v for pts in series.values() for _, v in pts if v is not None]
    if ylog:
        lo = min([v for v in values if v > 0] or [1e-4])
        lo = 10 ** math.floor(math.log10(max(lo, 1e-6)))
        hi = 10 ** math.ceil(math.log10(max(max(values or [1]), lo * 10)))
        fy = lambda v: y0 + PH - (math.log10(max(v, lo)) - math.log10(lo)) / (
            math.log10(hi) - math.log10(lo)) * PH
        ticks = [10 ** e for e in range(int(math.log10(lo)), int(math.log10(hi)) + 1)]
        tick_label = lambda t: f"{t:g}"
    else:
        fy = lambda v: y0 + PH - v * PH
        ticks = [0, 0.25, 0.5, 0.75, 1.0]
        tick_label = lambda t: f"{t:g}"
    bl = [math.log2(b) for b in budgets]
    fx = lambda b: x0 + 15 + (math.log2(b) - bl[0]) / max(bl[-1] - bl[0], 1) * (PW - 30)
    for t in ticks:
        y = fy(t)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + PW}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(text(x0 - 4, y + 4, tick_label(t), 9, "end"))
    for b in budgets:
        out.append(text(fx(b), y0 + PH + 13, f"{b // 1024}K", 9))
    out.append(text(x0 - 40, y0 + PH / 2, ylabel, 10, "middle",
                    f'transform="rotate(-90 {x0 - 40} {y0 + PH / 2})"'))
    for i, (name, pts) in enumerate(sorted(series.items())):
        pts = [(b, v) for b, v in sorted(pts) if v is not None]
        if not pts:
            continue
        c = COLORS[i % len(COLORS)]
        path = " ".join(f"{fx(b):.1f},{fy(v):.1f}" for b, v in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="1.5"/>')
        for b, v in pts:
            out.append(f'<circle cx="{fx(b):.1f}" cy="{fy(v):.1f}" r="2.5" fill="{c}"/>')
    return out


def plot_summaries(rows, path):
    # "distinct" has no hot item (accuracy is trivially 1): its rows are rates only, not plotted
    streams = sorted({r["stream"] for r in rows if r["stream"] != "distinct"},
                     key=lambda s: (not s.startswith("zipf"), s))
    names = sorted({r["summary"] for r in rows})
    budgets = sorted({int(r["budget"]) for r in rows})
    metrics = [("hh_recall", False, "recall >= 0.1%"), ("top100_recall", False, "top-100 recall"),
               ("hh_mean_rel_error", True, "mean rel. error")]
    width = ML + len(streams) * (PW + GAP) + 150
    height = MT + len(metrics) * (PH + GAP) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           text(width / 2, 18, "hotprof summaries: accuracy vs budget (preliminary)", 14)]
    for mi, (col, ylog, label) in enumerate(metrics):
        for si, s in enumerate(streams):
            series = {}
            for r in rows:
                if r["stream"] != s or r["ok"] != "1":
                    continue
                v = float(r[col])
                if ylog:
                    v = max(v, 1e-5)
                series.setdefault(r["summary"], []).append((int(r["budget"]), v))
            x0, y0 = ML + si * (PW + GAP), MT + mi * (PH + GAP)
            out += panel(x0, y0, f"{s}", series, budgets, ylog, label)
    lx = ML + len(streams) * (PW + GAP)
    for i, n in enumerate(names):
        c = COLORS[i % len(COLORS)]
        out.append(f'<rect x="{lx}" y="{MT + i * 16}" width="10" height="10" fill="{c}"/>')
        out.append(text(lx + 14, MT + i * 16 + 9, n, 10, "start"))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def plot_multihash(rows, path):
    settings = sorted({r["setting"] for r in rows})
    configs = sorted({r["config"] for r in rows}, key=lambda c: (int(c.split("T")[0]), c))
    bw, ph = 14, 220
    width = ML + len(settings) * (len(configs) * bw + GAP) + 40
    height = 80 + ph + 90
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           text(width / 2, 18, "multi-hash: average weighted error E (mean over streams; "
                "preliminary)", 13)]
    for si, s in enumerate(settings):
        vals = {}
        for r in rows:
            if r["setting"] == s:
                vals.setdefault(r["config"], []).append(float(r["avg_error"]))
        means = {c: sum(v) / len(v) for c, v in vals.items()}
        top = max(max(means.values() or [0.01]), 0.01) * 1.1
        x0, y0 = ML + si * (len(configs) * bw + GAP), 60
        out.append(text(x0 + len(configs) * bw / 2, y0 - 8, s, 12))
        out.append(f'<line x1="{x0}" y1="{y0 + ph}" x2="{x0 + len(configs) * bw}" '
                   f'y2="{y0 + ph}" stroke="#888"/>')
        for t in range(5):
            v = top * t / 4
            y = y0 + ph - v / top * ph
            out.append(text(x0 - 4, y + 4, f"{100 * v:.2g}%", 9, "end"))
        for ci, c in enumerate(configs):
            if c not in means:
                continue
            h = means[c] / top * ph
            x = x0 + ci * bw
            color = "#2ca02c" if means[c] < 0.01 else "#d62728"
            out.append(f'<rect x="{x + 1}" y="{y0 + ph - h:.1f}" width="{bw - 2}" '
                       f'height="{h:.1f}" fill="{color}"/>')
            out.append(text(x + bw / 2, y0 + ph + 8, c, 8, "end",
                            f'transform="rotate(-60 {x + bw / 2} {y0 + ph + 8})"'))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    if len(argv) not in (3, 5):
        print(__doc__)
        return 2
    with open(argv[1]) as f:
        plot_summaries(list(csv.DictReader(f)), argv[2])
    if len(argv) == 5:
        with open(argv[3]) as f:
            plot_multihash(list(csv.DictReader(f)), argv[4])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
