#!/usr/bin/env bash
# bench/multihash_real/run.sh — the multi-hash interval profiler on real value and edge streams
# (issue 12): every workload of bench/workloads is built with `hotprof cc --hooks=all`, run once
# per stream with `hotprof run --record-trace` (values, edges; cut at --limit tuples), and each
# trace replayed by `hotprof sim multihash` at both interval settings (L=10^4/t=1%, L=10^6/t=0.1%)
# over 1, 2, 4, 8, 16 tables x C0/C1 x R0/R1 at 2K counters (Figures 10-12, 14), plus the paper's
# design at half the area (1K counters) and with the fast hash. Figure 6 (candidate change between
# intervals) comes from the runtime's own interval profile of the same workload (`report --format
# json`: change_rate); the runtime overhead of interval profiles is timed against the plain
# exhaustive run (CPU seconds, --runs N interleaved). Bursty interval profiles are not
# implemented, so their overhead is not measured. Not measured either: distinct tuples per
# interval (Figure 4; sim does not print it).
#
# Output: a table on stdout, bench/results/multihash_real.csv (one row per workload x stream x
# setting x design), bench/results/multihash_real.txt, bench/results/multihash_real.svg (mean
# error vs tables, C1 R0, per stream and setting). The targets of issue 12: E < 1% with 4 tables,
# C1, R0 at 2K counters; analyze.py marks the rows that miss it.
# Usage: bench/multihash_real/run.sh [--quick] [--runs N] [--limit N] [--results DIR] [--selftest]
#   --quick     smaller inputs, 10^6-tuple traces, one run per overhead measurement
#   --selftest  checks analyze.py on made-up inputs (no program is run), then exits
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/multihash_real"
HP="$ROOT/build/bin/hotprof"
RESULTS="$ROOT/bench/results"
QUICK=0 RUNS="" LIMIT=""

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --runs) RUNS="$2"; shift ;;
        --limit) LIMIT="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        --selftest) exec python3 "$HERE/analyze.py" --selftest ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
[ -n "$RUNS" ] || { [ "$QUICK" = 1 ] && RUNS=1 || RUNS=3; }
[ -n "$LIMIT" ] || { [ "$QUICK" = 1 ] && LIMIT=1000000 || LIMIT=20000000; }
case "$RUNS$LIMIT" in *[!0-9]*) echo "run.sh: --runs and --limit take numbers" >&2; exit 2 ;; esac

log() { echo "[multihash_real $(date +%H:%M:%S)] $*" >&2; }
[ -x "$HP" ] || { log "building hotprof"; make -s -C "$ROOT" >&2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-mhreal.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOTPROF_QUIET=1
mkdir -p "$RESULTS"

# workload and its (smaller with --quick) arguments
WORKLOADS="fft heapsort lexgen compress gametree interp nbody"
args_of() {
    if [ "$QUICK" = 1 ]; then
        case $1 in fft) echo 20 ;; heapsort) echo 100000 ;; lexgen|compress) echo 256 ;; gametree) echo "7 2" ;;
                   interp) echo 3 ;; nbody) echo 100 ;; esac
    else
        case $1 in fft) echo 200 ;; heapsort) echo 400000 ;; lexgen|compress) echo 2048 ;; gametree) echo "9 4" ;;
                   interp) echo 10 ;; nbody) echo 500 ;; esac
    fi
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
            "$HP" sim multihash "$WORK/$w.$kind.trace" --tables 4 --counters 1K,2K --hash paper,fast \
                --interval "$L" --threshold "$t" --seed 1 --csv "$WORK/$tag.area.csv" >"$WORK/$tag.area.out" 2>/dev/null
            log "$tag: runtime interval profile (change rate)"
            "$HP" run -q --seed 1 -o "$WORK/$tag.iv.data" \
                --sample "$stream:summary=multihash,interval=$L,threshold=$t%" -- "$WORK/$w" "$@" >/dev/null
            "$HP" report --type intervals --format json "$WORK/$tag.iv.data" >"$WORK/$tag.iv.json"
        done
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
