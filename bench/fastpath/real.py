#!/usr/bin/env python3
"""bench/fastpath/real.py - the hook fast path on the real programs (bench/lib/realprogs.sh):
per program, every build runs side by side with native in the same interleaved rounds (paired
CPU-time ratios, median over rounds), and HPS Figure 7's breakdown of the overhead.
Called by bench/fastpath/real.sh, which parses the options.

Variants (per program; H = a hook set of --hooks, F = a hook set of --fig7):
  native       clang -O2
  H:off        hotprof cc --hooks=H, HOTPROF_MODE=off: the switched-off floor (code with its sites,
               nothing switched on, no control thread)
  F:ctl        bursty, patched bursts, methods period 10^9: the control thread runs, sites are
               switched as in a run, but no window ever opens (nothing recorded)
  F:s1000      bursty, patched bursts, methods + call pairs period=999,burst=1 (1/1000); on a
               build with inline count sites (F = SET+count, hotprof cc --dual-sites=count) the
               runtime takes count-triggered bursts instead, so F:ctl and F:s1000 are count mode's
  F:c1000      (dual F without +count) the same with --bursts count: count mode through trampolines
  F:off@base, F:s1000@base, F:c1000@base   (--baseline TREE) F:off, F:s1000 (and a dual F's c1000) of the build TREE's hotprof made
               (a worktree of an older commit), in the same rounds: old and new side by side
Figure 7 (stacked, per program and F): basic = min(F:off, F:ctl) - 1, control = F:ctl - that
floor, sampling = F:s1000 - F:ctl (a negative step, noise, is drawn as 0 and printed as it is);
the table's count@1000 column is F:c1000 where it was run.
The floor is the cheaper of the two because HOTPROF_MODE=off switches nothing: dual builds then
run their clean copies (the real floor), but a plain blocks/functions build keeps its hook calls
live (they return at once; 4.4x on brotli with blocks), and only the control thread of F:ctl
rewrites them to `mov eax, imm32`, so for those builds F:ctl is the floor and control is 0.

Code size: .text of each build minus the runtime's own .text (the .text a `hotprof cc
--hooks=H` build of an empty main adds over a native one), over native's .text.
build_s: seconds the build took when it was made (cached builds keep their first time; the
machine may have been busy).
CSV: program,variant,hooks,mode,native_s,variant_s,slowdown,text_bytes,text_ratio,build_s,runs.
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import benchlib  # noqa: E402
import realrun  # noqa: E402

MODES = {
    "off": {"HOTPROF_MODE": "off"},
    "ctl": {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch",
            "HOTPROF_SAMPLE": "methods:period=1000000000,burst=1"},
    "s1000": {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "patch",
              "HOTPROF_SAMPLE": "methods:period=999,burst=1;callpairs:period=999,burst=1"},
    "c1000": {"HOTPROF_MODE": "bursty", "HOTPROF_BURSTS": "count",
              "HOTPROF_SAMPLE": "methods:period=999,burst=1;callpairs:period=999,burst=1"},
}


def log(msg):
    realrun.log("fastpath-real", msg)


def runtime_text(hooks, work):
    """.text bytes a hotprof cc --hooks=HOOKS build adds to an empty program (the runtime)."""
    src = os.path.join(work, "empty.c")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    sizes = {}
    for h in ("native", hooks):
        exe = os.path.join(work, "empty." + h)
        cc = ["clang"] if h == "native" else [os.path.join(realrun.ROOT, "build", "bin", "hotprof"), "cc"] + \
            realrun.cc_args(h)
        subprocess.run(cc + ["-O2", "-o", exe, src], check=True)
        out = subprocess.run(["size", "-A", exe], stdout=subprocess.PIPE, text=True).stdout
        sizes[h] = next(int(line.split()[1]) for line in out.splitlines() if line.startswith(".text "))
    return sizes[hooks] - sizes["native"]


def has_count_mode(h):
    """Hook set h runs count mode through trampolines (F:c1000): a dual set without inline count sites."""
    return h.startswith("dual-") and not h.endswith("+count")


def variants_of(hooks, fig7, baseline):
    vs = ["native"] + ["%s:off" % h for h in hooks]
    for h in fig7:
        vs += ["%s:off" % h] if h not in hooks else []
        vs += ["%s:ctl" % h, "%s:s1000" % h]
        vs += ["%s:c1000" % h] if has_count_mode(h) else []
    base = [(h, m) for h in fig7 for m in ("off", "s1000", "c1000") if m != "c1000" or has_count_mode(h)]
    return vs + (["%s:%s@base" % hm for hm in base] if baseline else [])


def split_variant(v):
    """(hook set, mode, whether the baseline tree built it) of a variant name."""
    v, at, _ = v.partition("@")
    h, _, mode = v.partition(":")
    return h, mode, bool(at)


def build_of(builds, base_builds, prog, v):
    h, _, base = split_variant(v)
    return (base_builds if base else builds)[(prog, h)]


def measure(builds, base_builds, prog, variants, runs, work):
    def one(v):
        _, mode, _ = split_variant(v)
        b = build_of(builds, base_builds, prog, v)
        env = dict(MODES[mode], HOTPROF_OUTPUT=os.path.join(work, "fp.data")) if mode else {}
        return realrun.run_cpu(b.argv(work), env)
    times = realrun.paired(runs, variants, one)
    log("%s: %d rounds done" % (prog, runs))
    return times


def rows_of(builds, base_builds, prog, variants, times, rt_text, runs):
    native = builds[(prog, "native")]
    rows = []
    for v in variants:
        h, mode, _ = split_variant(v)
        b = build_of(builds, base_builds, prog, v)
        text = b.text - (rt_text.get(h, 0))
        rows.append({"program": prog, "variant": v, "hooks": h, "mode": mode or "native",
                     "native_s": statistics.median(times["native"]), "variant_s": statistics.median(times[v]),
                     "slowdown": realrun.median_ratio(times, v), "text_bytes": text,
                     "text_ratio": text / native.text if native.text else float("nan"),
                     "build_s": b.build_s, "runs": runs})
    return rows


def print_table(rows, progs, variants):
    by = {(r["program"], r["variant"]): r for r in rows}
    print("median slowdown vs native (CPU time, paired, interleaved rounds); code size .text / native's")
    print("%-22s" % "variant" + "".join("%10s" % p for p in progs) + "%10s %10s" % ("geomean", "worst")
          + "  " + "".join("%10s" % ("size:" + p[:4]) for p in progs))
    for v in variants:
        vals = [by[(p, v)]["slowdown"] for p in progs]
        sizes = [by[(p, v)]["text_ratio"] for p in progs]
        print("%-22s" % v + "".join("%10.3f" % x for x in vals) + "%10.3f %10.3f" % (realrun.geomean(vals), max(vals))
              + "  " + "".join("%9.2fx" % s for s in sizes))


def fig7(rows, progs, fig):
    """[(label, basic, control, sampling, total)] per program and hook set."""
    by = {(r["program"], r["variant"]): r["slowdown"] for r in rows}
    out = []
    for p in progs:
        for h in fig:
            off, ctl, s = by[(p, h + ":off")], by[(p, h + ":ctl")], by[(p, h + ":s1000")]
            floor = min(off, ctl)
            out.append(("%s %s" % (p, h), floor - 1, ctl - floor, s - ctl, s, by.get((p, h + ":c1000"))))
    return out


def print_fig7(bars):
    print("\nHPS Figure 7 breakdown (slowdown - 1, stacked): basic = min(off, ctl), control = + control"
          " thread, sampling = + windows at 1/1000")
    print("%-26s %8s %8s %8s %8s %10s" % ("program hooks", "basic", "control", "sampling", "total", "count@1000"))
    for label, b, c, s, t, cnt in bars:
        print("%-26s %+8.3f %+8.3f %+8.3f %8.3f %10s" % (label, b, c, s, t, "%.3f" % cnt if cnt else "-"))


def write_svg(path, bars):
    w, h, left, top, barh = 760, 60 + 28 * len(bars), 200, 40, 18
    top_val = max([0.05] + [max(0, b) + max(0, c) + max(0, s) for _, b, c, s, _, _ in bars])
    scale = (w - left - 40) / top_val
    colors = [("basic (nothing recorded)", "#4c72b0"), ("control thread", "#dd8452"), ("sampling 1/1000", "#55a868")]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (w, h),
           '<text x="10" y="18" font-size="14">HPS Figure 7 on real programs: overhead over native (slowdown - 1)</text>']
    for i, (name, color) in enumerate(colors):
        out.append('<rect x="%d" y="24" width="10" height="10" fill="%s"/><text x="%d" y="33">%s</text>'
                   % (left + 170 * i, color, left + 170 * i + 14, name))
    for i, (label, *parts, total, _) in enumerate(bars):
        y, x = top + 28 * i, left
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 6, y + 13, label))
        for (_, color), v in zip(colors, parts):
            wd = max(0.0, v) * scale
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>' % (x, y, wd, barh, color))
            x += wd
        out.append('<text x="%.1f" y="%d">%.3fx</text>' % (x + 4, y + 13, total))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", type=int, default=0)
    ap.add_argument("--programs", default="qjs tcc brotli")
    ap.add_argument("--hooks", default="functions blocks xray dual-functions dual-blocks")
    ap.add_argument("--fig7", default="blocks dual-blocks")
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--csv", required=True)
    ap.add_argument("--svg", required=True)
    ap.add_argument("--baseline", help="another built hotprof tree: its --fig7 builds run as F:off@base, F:s1000@base (and a dual set's F:c1000@base)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, benchlib.on_signal)
    signal.signal(signal.SIGINT, benchlib.on_signal)
    want = a.hooks.split() + [h for h in a.fig7.split() if h not in a.hooks.split()]
    builds = realrun.prepare(a.programs, " ".join(want), a.quick, a.build_dir)
    progs = a.programs.split()
    have = [h for h in want if all((p, h) in builds for p in progs)]
    hooks = [h for h in a.hooks.split() if h in have]
    fig = [h for h in a.fig7.split() if h in have]
    base_builds = realrun.prepare(a.programs, " ".join(fig), a.quick, a.build_dir + "-base", a.baseline) \
        if a.baseline else {}
    if a.baseline and not all((p, h) in base_builds for p in progs for h in fig):
        sys.exit("real.py: the baseline tree could not build every --fig7 hook set")
    variants = variants_of(hooks, fig, a.baseline)
    rows = []
    with tempfile.TemporaryDirectory(prefix="hotprof-fastpath-real.") as work:
        rt_text = {h: runtime_text(h, work) for h in have}
        for p in progs:
            times = measure(builds, base_builds, p, variants, a.runs, work)
            rows += rows_of(builds, base_builds, p, variants, times, rt_text, a.runs)
            realrun.write_csv(a.csv, COLUMNS, rows)   # partial results survive an interruption
    print(realrun.tree_note() + ", %d rounds%s%s" % (a.runs, ", --quick inputs" if a.quick else "",
                                                    "; V@base: built by " + a.baseline if a.baseline else ""))
    print_table(rows, progs, variants)
    bars = fig7(rows, progs, fig)
    if bars:
        print_fig7(bars)
        write_svg(a.svg, bars)


COLUMNS = ["program", "variant", "hooks", "mode", "native_s", "variant_s", "slowdown", "text_bytes",
           "text_ratio", "build_s", "runs"]

if __name__ == "__main__":
    main()
