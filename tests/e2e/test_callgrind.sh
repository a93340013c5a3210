#!/usr/bin/env bash
# test_callgrind.sh — exhaustive call counts are exact: for every workload, at a small input,
# hotprof's per-function call counts and (caller, callee) call pairs equal valgrind callgrind's
# counts on the native build of the same source with the same flags (clang -O2).
. "$(dirname "$0")/lib.sh"
W="$ROOT/bench/workloads"
# workload and a small size (callgrind runs ~50x slower than native)
sizes="fft:8 heapsort:20000 lexgen:20 compress:64 gametree:6 interp:2 nbody:20 mt_work:3000"
for ws in $sizes; do
    w=${ws%%:*}; size=${ws#*:}
    clang -O2 -g -o "$T/$w.native" "$W/$w.c" -lm -lpthread || { fail "$w: native build"; continue; }
    "$HP" cc -O2 -o "$T/$w.hp" "$W/$w.c" -lm -lpthread || { fail "$w: hotprof cc build"; continue; }
    valgrind -q --tool=callgrind --callgrind-out-file="$T/$w.cg" --compress-strings=no --compress-pos=no \
        --separate-recs=1 "$T/$w.native" "$size" >/dev/null 2>"$T/$w.vg" || { fail "$w: callgrind run" "$(tail -3 "$T/$w.vg")"; continue; }
    "$HP" run -o "$T/$w.data" -- "$T/$w.hp" "$size" >/dev/null || { fail "$w: hotprof run"; continue; }
    "$HP" report --format json --top 0 "$T/$w.data" >"$T/$w.json" || { fail "$w: report"; continue; }
    nm --defined-only "$T/$w.native" | awk '$2 ~ /^[tTwW]$/ {print $3}' >"$T/$w.funcs"
    python3 "$ROOT/tests/e2e/compare_callgrind.py" "$T/$w.cg" "$T/$w.json" "$T/$w.funcs" "$w"
done
