#!/usr/bin/env bash
# bench/overhead/run.sh - slowdown of hotprof's compiled hooks on the bench/workloads programs.
#
# Builds every workload natively (clang -O2) and once per hook set with
# `build/bin/hotprof cc --hooks=SET` (-O2), then runs each workload N times per
# variant, interleaving native and instrumented runs side by side (the order of
# variants rotates every round), instrumented ones under
# `hotprof run -q --seed 1 -o FILE -- prog size`. Every run must print "ok"
# (the workloads check their own results), so a hook that breaks a program is
# an error, not a number. Times are user+sys CPU seconds of the run (wall time
# is recorded too): the machine is shared, and CPU time is the less noisy clock.
#
# Output: a table of median slowdowns (instrumented / native) on stdout,
# bench/results/overhead.csv and bench/results/overhead.svg. Progress on stderr.
#
# Sizes: measure.py BENCH_SIZES (a little below the workload defaults, for the budget).
# Usage: bench/overhead/run.sh [--quick] [--runs N] [--hooks "functions blocks ..."]
#                              [--workloads "fft heapsort ..."] [--results DIR]
#   --quick  smaller sizes (about 1/5 of the default work) and 3 runs unless --runs is given.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/overhead"
HOTPROF="$ROOT/build/bin/hotprof"
RUNS=""
QUICK=0
HOOKS="functions blocks memory compares"
WORKLOADS="fft heapsort lexgen compress gametree interp nbody mt_work"
RESULTS="$ROOT/bench/results"
NATIVE_CC=${NATIVE_CC:-clang}

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --runs) RUNS="$2"; shift ;;
        --hooks) HOOKS="$2"; shift ;;
        --workloads) WORKLOADS="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
[ -n "$RUNS" ] || { [ "$QUICK" = 1 ] && RUNS=3 || RUNS=5; }
case "$RUNS" in ''|*[!0-9]*|0) echo "run.sh: --runs needs a positive integer" >&2; exit 2 ;; esac

log() { echo "[overhead $(date +%H:%M:%S)] $*" >&2; }

if [ ! -x "$HOTPROF" ] || [ ! -f "$ROOT/build/lib/libhotprof_rt.a" ]; then
    log "building hotprof (make build/bin/hotprof build/lib/libhotprof_rt.a)"
    make -s -C "$ROOT" build/bin/hotprof build/lib/libhotprof_rt.a >&2
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-overhead.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

build_variant() {   # name, CC command
    log "building $1 ($2)"
    make -s -C "$ROOT/bench/workloads" CC="$2" CFLAGS=-O2 OUT="$WORK/$1" >&2
}

build_variant native "$NATIVE_CC"
for h in $HOOKS; do
    build_variant "$h" "$HOTPROF cc --hooks=$h"
done

mkdir -p "$RESULTS"
echo "# tree at commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)'), $(nproc) cores, native: $NATIVE_CC -O2, $(date -u +%Y-%m-%dT%H:%MZ)"
python3 "$HERE/measure.py" --bin-dir "$WORK" --hotprof "$HOTPROF" --runs "$RUNS" \
    --quick "$QUICK" --hooks "$HOOKS" --workloads "$WORKLOADS" \
    --csv "$RESULTS/overhead.csv"
python3 "$HERE/chart.py" "$RESULTS/overhead.csv" "$RESULTS/overhead.svg"
log "wrote $RESULTS/overhead.csv and $RESULTS/overhead.svg"
