#!/usr/bin/env bash
# test_blocks.sh — block and edge counts are consistent (sum of in-edges = block count, except a
# thread's first block) on workloads single- and multi-threaded, at -O0 and -O2.
. "$(dirname "$0")/lib.sh"
cd "$T"
for spec in gametree:-O2:6 compress:-O0:64 interp:-O2:2 mt_work:-O2:20000; do
    IFS=: read -r w opt size <<<"$spec"
    "$HP" cc $opt -o "$w" "$ROOT/bench/workloads/$w.c" -lm -lpthread || { fail "$w$opt: build"; continue; }
    "$HP" run -o "$w.data" -- "./$w" "$size" >/dev/null 2>&1 || { fail "$w$opt: run"; continue; }
    "$HP" report --format json --top 0 --blocks --edges "$w.data" >"$w.json" || { fail "$w$opt: report"; continue; }
    python3 "$ROOT/tests/e2e/check_blocks.py" "$w.json" "$w$opt"
done
