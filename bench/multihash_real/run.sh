#!/usr/bin/env bash
# bench/multihash_real/run.sh — the multi-hash interval profiler on real value and edge streams
# (issue 12): every workload of bench/workloads is built with `hotprof cc --hooks=all`, run once
# per stream with `hotprof run --record-trace` (values, edges; cut at --limit tuples), and each
# trace replayed by `hotprof sim multihash` at both interval settings (L=10^4/t=1%, L=10^6/t=0.1%)
# over 1, 2, 4, 8, 16 tables x C0/C1 x R0/R1 at 2K counters (Figures 10-12, 14), plus 4 tables at
# 1K and 2K counters, with the fast hash, and the `rebalanced` (same area, half the accumulator,
# more counters) and `half` (half the area, a quarter of the accumulator) variants of both
# (docs/intervals.md). Figures 4-6 (distinct tuples, exact
# candidates per interval, candidate change between intervals) come from the same sim runs (the
# exact interval sets). The runtime overhead of interval profiles is timed against the plain
# exhaustive run (CPU seconds, --runs N interleaved). Bursty interval profiles are not
# implemented, so their overhead is not measured.
#
# Sizes: workload inputs are chosen so every trace reaches the limit (>= 12M tuples: 12 intervals
# at L=10^6, 1200 at L=10^4) while each instrumented run stays short; about 10 minutes in all on
# 2 quiet cores (README.md). --quick: 2M-tuple traces (2 intervals at L=10^6), one overhead run.
# Output: a table on stdout, bench/results/multihash_real.csv (one row per workload x stream x
# setting x design), bench/results/multihash_real.txt, bench/results/multihash_real.svg (mean
# error vs tables, C1 R0, per stream and setting). The targets of issue 12: E < 1% with 4 tables,
# C1, R0 at 2K counters; analyze.py marks the rows that miss it.
# Usage: bench/multihash_real/run.sh [--quick] [--runs N] [--limit N] [--workloads "W .."] [--results DIR] [--selftest]
#   --quick      2M-tuple traces, one run per overhead measurement
#   --workloads  a subset of: fft heapsort lexgen compress gametree interp nbody (timing one)
#   --selftest   checks analyze.py on made-up inputs (no program is run), then exits
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/multihash_real"
HP="$ROOT/build/bin/hotprof"
RESULTS="$ROOT/bench/results"
QUICK=0 RUNS="" LIMIT="" WORKLOADS="fft heapsort lexgen compress gametree interp nbody"

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --runs) RUNS="$2"; shift ;;
        --limit) LIMIT="$2"; shift ;;
        --workloads) WORKLOADS="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        --selftest) exec python3 "$HERE/analyze.py" --selftest ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
[ -n "$RUNS" ] || { [ "$QUICK" = 1 ] && RUNS=1 || RUNS=3; }
[ -n "$LIMIT" ] || { [ "$QUICK" = 1 ] && LIMIT=2000000 || LIMIT=12000000; }
case "$RUNS$LIMIT" in *[!0-9]*) echo "run.sh: --runs and --limit take numbers" >&2; exit 2 ;; esac

log() { echo "[multihash_real $(date +%H:%M:%S)] $*" >&2; }
[ -x "$HP" ] || { log "building hotprof"; make -s -C "$ROOT" >&2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-mhreal.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOTPROF_QUIET=1
mkdir -p "$RESULTS"

# workload and its arguments: the smallest inputs that still give >= 12M value and edge tuples
# (measured: recording a 12M trace takes 0.5-11 s per stream; interp takes sizes 5..40 only)
for w in $WORKLOADS; do
    case $w in fft|heapsort|lexgen|compress|gametree|interp|nbody) ;; *) echo "run.sh: unknown workload '$w'" >&2; exit 2 ;; esac
done
args_of() {
    case $1 in fft) echo 20 ;; heapsort) echo 100000 ;; lexgen) echo 32 ;; compress) echo 256 ;; gametree) echo "7 2" ;;
               interp) echo 5 ;; nbody) echo 100 ;; esac
}

SETTINGS="10000:1 1000000:0.1"
for w in $WORKLOADS; do
    log "$w: build"
    "$HP" cc -O2 --hooks=all -o "$WORK/$w" "$ROOT/bench/workloads/$w.c" -lm
    # shellcheck disable=SC2046
    set -- $(args_of "$w")
    for kind in values edges; do
        stream=$([ $kind = values ] && echo value || echo edges)
        log "$w: record the $kind trace (at most $LIMIT tuples)"
        "$HP" run -q --seed 1 -o "$WORK/$w.$kind.data" --record-trace "$WORK/$w.$kind.trace" --trace-kind $kind \
            --trace-limit "$LIMIT" -- "$WORK/$w" "$@" >/dev/null
        for s in $SETTINGS; do
            L=${s%%:*} t=${s##*:}
            tag="$w.$kind.$L"
            log "$tag: sim grid"
            "$HP" sim multihash "$WORK/$w.$kind.trace" --tables 1,2,4,8,16 --conservative 0,1 --reset 0,1 \
                --interval "$L" --threshold "$t" --seed 1 --csv "$WORK/$tag.grid.csv" >"$WORK/$tag.grid.out" 2>/dev/null
            "$HP" sim multihash "$WORK/$w.$kind.trace" --tables 4 --counters 1K,2K --hash paper,fast --variant paper,rebalanced,half \
                --interval "$L" --threshold "$t" --seed 1 --csv "$WORK/$tag.area.csv" >"$WORK/$tag.area.out" 2>/dev/null
        done
        rm -f "$WORK/$w.$kind.trace"
        log "$w: overhead of $stream interval profiles ($RUNS runs)"
        for r in $(seq "$RUNS"); do
            for mode in plain intervals; do
                extra=()
                [ $mode = intervals ] && extra=(--sample "$stream:summary=multihash")
                /usr/bin/time -f "%U %S" -o "$WORK/t" "$HP" run -q -o "$WORK/ov.data" "${extra[@]}" -- "$WORK/$w" "$@" >/dev/null
                echo "$w,$stream,$mode,$r,$(awk '{print $1 + $2}' "$WORK/t")" >>"$WORK/overhead.csv"
            done
        done
    done
done
python3 "$HERE/analyze.py" --work "$WORK" --results "$RESULTS"
