#!/usr/bin/env python3
"""check_bursty.py EXHAUSTIVE.json BURSTY.json PERIOD BURST LABEL [MIN_SAMPLED]

Compares a bursty profile's method estimates with the exhaustive profile of the same program
(both `hotprof report --format json --top 0`) and prints lib.sh-style lines:
  * the observed methods frequency (sampled / events) equals B/(B+S) within 1%;
  * of the functions with at least MIN_SAMPLED (default 30) sampled events, at least 90% have their
    exhaustive heat inside the report's 95% interval [ci_lower, ci_upper] (the Chernoff bound is
    conservative: usually all of them are);
  * every such function's estimate is within 35% of its exhaustive heat, and the HPS overlap
    (Section 5: the top members covering 90% of each profile, min of relative contributions) >= 0.9.
Also prints an "accuracy" line with the numbers, for the record.
"""
import json
import sys


def main():
    exh_path, bur_path, period, burst, label = sys.argv[1:6]
    min_sampled = int(sys.argv[6]) if len(sys.argv) > 6 else 30
    period, burst = int(period), int(burst)
    exh, bur = json.load(open(exh_path)), json.load(open(bur_path))
    st = bur["sampling"]["methods"]
    want = burst / (burst + period)
    f = st["observed_frequency"]
    ok = abs(f - want) <= 0.01 * want
    print(("ok" if ok else "FAIL") + f" {label}: observed frequency {f:.6f} vs B/(B+S) {want:.6f}"
          f" ({st['sampled']} of {st['events']} events)")
    exact = {m["function"]: m["heat"] for m in exh["methods"]}  # addresses move (ASLR)
    checked = inside = close = 0
    worst = 0.0
    for m in bur["methods"]:
        if not m.get("estimated") or m["sampled"] < min_sampled:
            continue
        true = exact.get(m["function"], 0)
        checked += 1
        hi = m["ci_upper"] if m["ci_upper"] is not None else float("inf")
        inside += m["ci_lower"] <= true <= hi
        rel = abs(m["heat"] - true) / true if true else float("inf")
        worst = max(worst, rel)
        close += rel <= 0.35
    print(("ok" if checked >= 3 and inside >= 0.9 * checked else "FAIL") +
          f" {label}: {inside} of {checked} functions with >= {min_sampled} samples inside the 95% interval")
    print(("ok" if checked and close == checked else "FAIL") +
          f" {label}: every estimate within 35% of the exhaustive heat (worst {100 * worst:.1f}%)")
    ov = overlap(exh["methods"], bur["methods"])
    print(("ok" if ov >= 0.9 else "FAIL") + f" {label}: HPS overlap {ov:.3f} >= 0.9")
    print(f"# accuracy {label}: frequency {f:.6f}, {inside}/{checked} in CI, worst {100 * worst:.1f}%, overlap {ov:.3f}")


def top90(methods):
    """function -> relative contribution, over the members covering 90% of the profile."""
    rows = sorted(((m["heat"], m["function"]) for m in methods), reverse=True)
    total = sum(h for h, _ in rows) or 1
    out, acc = {}, 0
    for h, a in rows:
        if acc >= 0.9 * total:
            break
        out[a] = h
        acc += h
    s = sum(out.values()) or 1
    return {a: h / s for a, h in out.items()}


def overlap(exh, bur):
    a, b = top90(exh), top90(bur)
    return sum(min(a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b))


if __name__ == "__main__":
    main()
