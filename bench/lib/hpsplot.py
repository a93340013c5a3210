"""bench/lib/hpsplot.py - what the HPS sweeps (bench/hps_sweep/sweep.py for methods and call
pairs, streams.py for hot data streams) share: the burst x frequency grid, period from frequency,
CSV writing, rows grouped by setting, NaN-tolerant mean/median/geomean, and the SVG panels of accuracy vs overhead (HPS Figures 8 and
10: one line per burst length). Standard library only.

A summary row (one per setting) has "burst", "inv_freq", "slowdown" and the accuracy keys the
caller plots, as fractions in [0, 1].
"""
import csv
import math
import statistics

BURSTS = [1, 10, 50, 100]
FREQS = [100, 500, 1000, 5000, 10000]            # f = 1/x
COLORS = {1: "#1b9e77", 10: "#d95f02", 50: "#7570b3", 100: "#e7298a"}


def period_of(burst, inv_freq):
    """HPS Section 5: frequency = burst / (burst + period), so period = burst (1/f - 1)."""
    return max(1, round(burst * (inv_freq - 1)))


def write_csv(path, rows, columns):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)


def settings_of(rows, key):
    """The rows of each (burst, inverse frequency) setting, in order: [((b, f), [rows])]."""
    keys = sorted({(r["burst"], int(r["freq"][2:])) for r in rows})
    return [(k, [r for r in rows if (r["burst"], int(r["freq"][2:])) == k and key(r)]) for k in keys]


def num(values):
    return [v for v in values if v not in ("", None) and not (isinstance(v, float) and math.isnan(v))]


def mean(values):
    values = num(values)
    return sum(values) / len(values) if values else float("nan")


def median(values):
    values = num(values)
    return statistics.median(values) if values else float("nan")


def geomean(values):
    values = num(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def svg_panel(summary, key, title, x0, y0, w, h, max_key=None):
    """One panel: summary[key] (%) against overhead (slowdown - 1, %), a line per burst; with
    max_key, a dashed line at the mean of summary[max_key] (the reference against itself)."""
    pts_all = [s for s in summary if not math.isnan(s["slowdown"]) and not math.isnan(s[key])]
    xs = [100 * (s["slowdown"] - 1) for s in pts_all]
    xmin, xmax = min(xs + [0]), max(xs + [1])
    xmax += 0.05 * (xmax - xmin or 1)  # overhead starts at 0: no negative padding
    sx = lambda x: x0 + (x - xmin) / (xmax - xmin) * w
    sy = lambda y: y0 + h - y / 100 * h
    parts = ['<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#888"/>' % (x0, y0, w, h),
             '<text x="%g" y="%g" font-size="13" text-anchor="middle">%s</text>' % (x0 + w / 2, y0 - 8, title)]
    for yv in range(0, 101, 20):
        parts.append('<text x="%g" y="%g" font-size="10" text-anchor="end">%d%%</text>' % (x0 - 4, sy(yv) + 3, yv))
        parts.append('<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#eee"/>' % (x0, sy(yv), x0 + w, sy(yv)))
    for i in range(5):
        xv = xmin + i * (xmax - xmin) / 4
        parts.append('<text x="%g" y="%g" font-size="10" text-anchor="middle">%.0f%%</text>' % (sx(xv), y0 + h + 14, xv))
    parts.append('<text x="%g" y="%g" font-size="11" text-anchor="middle">overhead (CPU time vs native)</text>'
                 % (x0 + w / 2, y0 + h + 30))
    if max_key:
        maxes = num([s[max_key] for s in pts_all])
        if maxes:
            y = sy(100 * sum(maxes) / len(maxes))
            parts.append('<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#999" stroke-dasharray="4,3"/>'
                         '<text x="%g" y="%.1f" font-size="9" fill="#666" text-anchor="end">reference vs itself'
                         '</text>' % (x0, y, x0 + w, y, x0 + w - 3, y - 3))
    for b in sorted({s["burst"] for s in pts_all}):
        pts = [(sx(100 * (s["slowdown"] - 1)), sy(100 * s[key]), s["inv_freq"]) for s in pts_all if s["burst"] == b]
        if len(pts) > 1:
            parts.append('<polyline fill="none" stroke="%s" points="%s"/>' % (
                COLORS.get(b, "#333"), " ".join("%.1f,%.1f" % (x, y) for x, y, _ in pts)))
        for x, y, f in pts:
            parts.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>burst %d, f=1/%d</title></circle>'
                         % (x, y, COLORS.get(b, "#333"), b, f))
    return parts


def write_svg(path, summary, width, height, titles, panels):
    """A figure: title lines (first bold), panels [(key, title, x0, max_key)] of 330 x 260 at
    y0 = 50 + 15 per extra title line, and a legend of burst lengths. Writes path."""
    top = 50 + 15 * (len(titles) - 1)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (width, height),
             '<rect width="100%" height="100%" fill="white"/>']
    for i, text in enumerate(titles):
        parts.append('<text x="%d" y="%d" font-size="%d" fill="%s" text-anchor="middle">%s</text>'
                     % (width // 2, 20 + 16 * i, 15 if i == 0 else 11, "#000" if i == 0 else "#555", text))
    for key, title, x0, max_key in panels:
        parts += svg_panel(summary, key, title, x0, top, 330, 260, max_key)
    for i, b in enumerate(sorted({s["burst"] for s in summary})):
        parts.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="11">'
                     'burst %d</text>' % (60 + 110 * i, height - 22, COLORS.get(b, "#333"), 76 + 110 * i, height - 12, b))
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")
