#!/usr/bin/env python3
"""bench/overhead/chart.py - grouped bar chart of overhead.csv as a hand-written SVG.

Usage: chart.py overhead.csv overhead.svg

Holds: one group of bars per workload (the "geomean" row last), one bar per
hook set, height = median slowdown (instrumented / native CPU time) on a log2
axis whose baseline is 1x (no overhead), so bars below 1x point down. Each bar
carries its value; a legend names the hook sets. Standard library only.
"""
import csv
import math
import sys
from xml.sax.saxutils import escape

COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1"]
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 50, 70
BAR_W, GAP = 16, 22


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def axis_range(values):
    lo = 2.0 ** math.floor(math.log2(min(1.0, min(values))))
    hi = 2.0 ** math.ceil(math.log2(max(2.0, max(values)) * 1.05))
    return lo, hi


def main():
    rows = read_rows(sys.argv[1])
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    hooks = list(dict.fromkeys(r["hooks"] for r in rows))
    value = {(r["workload"], r["hooks"]): float(r["slowdown"]) for r in rows}
    runs = rows[0]["runs"] if rows else "?"
    lo, hi = axis_range(list(value.values()) or [1.0])
    group_w = len(hooks) * BAR_W + GAP
    width = LEFT + RIGHT + len(workloads) * group_w
    height = 420
    plot_h = height - TOP - BOTTOM

    def y(v):
        return TOP + plot_h * (1 - (math.log2(v) - math.log2(lo)) / (math.log2(hi) - math.log2(lo)))

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14" font-weight="bold">hotprof compiled-hook overhead '
           '(median slowdown, CPU time, %s runs; log scale)</text>' % (LEFT, escape(runs))]
    tick = lo
    while tick <= hi * 1.0001:
        ty = y(tick)
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s"/>'
                   % (LEFT, width - RIGHT, ty, ty, "#333" if tick == 1 else "#ddd"))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%gx</text>' % (LEFT - 6, ty + 4, tick))
        tick *= 2
    for gi, w in enumerate(workloads):
        gx = LEFT + GAP / 2 + gi * group_w
        for hi_, h in enumerate(hooks):
            v = value.get((w, h))
            if v is None:
                continue
            x, top, base = gx + hi_ * BAR_W, min(y(v), y(1)), max(y(v), y(1))
            out.append('<rect x="%.1f" y="%.1f" width="%d" height="%.1f" fill="%s">'
                       '<title>%s %s: %.2fx</title></rect>'
                       % (x, top, BAR_W - 2, max(base - top, 1), COLORS[hi_ % len(COLORS)],
                          escape(w), escape(h), v))
            out.append('<text x="%.1f" y="%.1f" font-size="8" text-anchor="middle">%.1f</text>'
                       % (x + (BAR_W - 2) / 2, top - 3, v))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (gx + len(hooks) * BAR_W / 2, height - BOTTOM + 16, escape(w)))
    for hi_, h in enumerate(hooks):
        lx = LEFT + hi_ * 110
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>'
                   % (lx, height - 30, COLORS[hi_ % len(COLORS)]))
        out.append('<text x="%d" y="%d">%s</text>' % (lx + 16, height - 20, escape(h)))
    out.append('</svg>')
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
