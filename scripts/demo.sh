#!/usr/bin/env bash
# demo.sh — the bundled demo (`make demo`): builds the bytecode-interpreter workload with
# `hotprof cc`, profiles it exhaustively with `hotprof run`, prints `hotprof report`, then samples
# it in bursts (patched call sites, 1/1000) and compares the sampled profile with the exhaustive one.
set -eu
cd "$(dirname "$0")/.."
hp=build/bin/hotprof
out=build/demo
mkdir -p "$out"
workload=${DEMO_WORKLOAD:-interp}
echo "== building bench/workloads/$workload.c with: hotprof cc -O2" >&2
"$hp" cc -O2 -o "$out/$workload" "bench/workloads/$workload.c" -lm -lpthread
echo "== profiling: hotprof run -o $out/hotprof.data -- $out/$workload" >&2
"$hp" run -o "$out/hotprof.data" -- "$out/$workload" ${DEMO_SIZE:-}
echo "== hotprof report $out/hotprof.data --top 15" >&2
"$hp" report --top 15 "$out/hotprof.data"
echo "== bursty sampling (HPS, 1/1000; hook call sites patched in only for bursts):" >&2
echo "   hotprof run --sample methods:period=999,burst=1 --sample callpairs:period=999,burst=1 -o $out/sampled.data -- $out/$workload" >&2
"$hp" run --sample methods:period=999,burst=1 --sample callpairs:period=999,burst=1 -o "$out/sampled.data" -- "$out/$workload" ${DEMO_SIZE:-}
echo "== hotprof compare $out/sampled.data $out/hotprof.data (sampled vs exhaustive)" >&2
"$hp" compare "$out/sampled.data" "$out/hotprof.data"
