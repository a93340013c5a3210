#!/usr/bin/env bash
# bench/xray/accuracy.sh [PERIOD BURST] — accuracy of the XRay burst mode (hotprof cc --hooks=xray)
# on every workload at its default size: the methods-by-calls HPS overlap (paper definition,
# its maximum for identical profiles, and renormalized) of a bursty run against a run of the same
# binary with every sled patched (period=0), and the sampled fraction of function entries.
# Writes bench/results/xray_accuracy.csv and prints a table. Default PERIOD BURST: 99900 100 (1/1000).
set -eu
cd "$(dirname "$0")/../.."
period=${1:-99900}; burst=${2:-100}
hp=build/bin/hotprof
make -s build/bin/hotprof build/lib/libhotprof_rt.a
work=$(mktemp -d /tmp/hotprof-xray.XXXXXX); trap 'rm -rf "$work"' EXIT
out=bench/results/xray_accuracy.csv
echo "workload,period,burst,entries_all,entries_sampled,fraction,bursts,overlap,overlap_max,overlap_renorm" >"$out"
printf '%-10s %10s %10s %9s %7s %8s %8s %8s\n' workload all sampled fraction bursts overlap max renorm
for w in fft heapsort lexgen compress gametree interp nbody mt_work; do
    "$hp" cc --hooks=xray -O2 -o "$work/$w" "bench/workloads/$w.c" -lm -lpthread
    "$hp" run -q --seed 1 --sample methods:period=0 -o "$work/all.data" -- "$work/$w" >/dev/null
    "$hp" run -q --seed 1 --sample "methods:period=$period,burst=$burst" -o "$work/bur.data" -- "$work/$w" >/dev/null
    "$hp" compare --format json "$work/bur.data" "$work/all.data" >"$work/cmp.json"
    all=$("$hp" report --format json --top 0 "$work/all.data" | python3 -c 'import json,sys; print(sum(m["calls"] for m in json.load(sys.stdin)["methods"]))')
    sampled=$("$hp" info "$work/bur.data" | awk '$1 == "xray.sampled_entries" {v=$2} END {print v+0}')
    bursts=$("$hp" info "$work/bur.data" | awk '$1 == "xray.bursts" {v=$2} END {print v+0}')
    python3 - "$work/cmp.json" "$w" "$period" "$burst" "$all" "$sampled" "$bursts" "$out" <<'PY'
import json, sys
cmp, w, period, burst, alln, sampled, bursts, out = sys.argv[1:]
p = next(x for x in json.load(open(cmp))["profiles"] if x["type"] == "calls")
frac = int(sampled) / int(alln) if int(alln) else 0.0
with open(out, "a") as f:
    f.write("%s,%s,%s,%s,%s,%.6f,%s,%.4f,%.4f,%.4f\n" % (w, period, burst, alln, sampled, frac, bursts,
            p["overlap"], p["overlap_max"], p["overlap_renormalized"]))
print("%-10s %10s %10s %9.5f %7s %8.3f %8.3f %8.3f" % (w, alln, sampled, frac, bursts, p["overlap"],
      p["overlap_max"], p["overlap_renormalized"]))
PY
done
