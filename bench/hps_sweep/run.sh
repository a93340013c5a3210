#!/usr/bin/env bash
# bench/hps_sweep/run.sh - the HPS accuracy/overhead sweep (hps-hybrid-profiling-support.txt §5-6,
# Figures 8-10) on the bench/workloads programs.
#
# For every workload: build it natively (clang -O2) and with `build/bin/hotprof cc -O2`; run it
# once exhaustively (`hotprof run`), the reference; then for burst B in {1, 10, 50, 100} and
# sampling frequency f in {1/100, 1/500, 1/1000, 1/5000, 1/10000} (period P = B (1/f - 1), so
# that f = B / (B + P) as in HPS §5), run
#     hotprof run --sample methods:period=P,burst=B --sample callpairs:period=P,burst=B -- prog
# side by side with the native build (paired rounds, order alternating), and compare the sampled
# profile with the exhaustive one with `hotprof compare --format json` (HPS overlap, paper
# definition and renormalized; top-10 recall). Every run must print "ok" (self-checking
# workloads). Times are user+sys CPU seconds (the machine is shared; CPU time is the less noisy
# clock); slowdown = median over rounds of sampled / native.
#
# Output: a table on stdout (per setting: mean overlap over workloads, geomean slowdown),
# bench/results/hps_sweep.csv (one row per workload x setting) and bench/results/hps_sweep.svg
# (accuracy vs overhead, one line per burst length, as HPS Figure 8). Progress on stderr.
#
# Usage: bench/hps_sweep/run.sh [--quick] [--small] [--runs N] [--workloads "fft heapsort ..."]
#                               [--results DIR] [--bursts patch|live] [--hooks SET] [--only B:F,...]
#   --hooks  the hook set compiled in (hotprof cc --hooks=SET; default blocks); results get the
#            suffix _SET unless it is blocks.
#   --only   only these settings, e.g. "1:1000,10:1000" (burst:inverse frequency).
#   --bursts how the sampled runs turn hooks on and off (hotprof run --bursts; default patch:
#            call sites rewritten per window; live: HPS's counters inside every live hook).
#   --quick  2 workloads (gametree, heapsort), 3 settings (B=1 f=1/100, B=10 f=1/1000,
#            B=100 f=1/10000), small sizes, 1 round: a smoke test of the whole pipeline
#            (~20 s). The full sweep (8 workloads x 20 settings x 3 rounds at default sizes)
#            takes hours on 2 cores: run it on a quiet machine.
#   --small  the small input sizes of --quick, with every setting (accuracy is meaningful,
#            slowdowns less so: fixed start-up costs weigh more in short runs).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/hps_sweep"
HOTPROF="$ROOT/build/bin/hotprof"
RUNS=""
QUICK=0
SMALL=0
WORKLOADS=""
BURSTS=patch
HOOKS=blocks
ONLY=""
RESULTS="$ROOT/bench/results"
NATIVE_CC=${NATIVE_CC:-clang}

usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1; SMALL=1 ;;
        --small) SMALL=1 ;;
        --runs) RUNS="$2"; shift ;;
        --workloads) WORKLOADS="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        --bursts) BURSTS="$2"; shift ;;
        --hooks) HOOKS="$2"; shift ;;
        --only) ONLY="$2"; shift ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
case "$BURSTS" in patch) SUFFIX="" ;; live) SUFFIX="_live" ;; *) echo "run.sh: --bursts is patch or live" >&2; exit 2 ;; esac
[ "$HOOKS" = blocks ] || SUFFIX="${SUFFIX}_$HOOKS"
[ -n "$RUNS" ] || { [ "$QUICK" = 1 ] && RUNS=1 || RUNS=3; }
case "$RUNS" in ''|*[!0-9]*|0) echo "run.sh: --runs needs a positive integer" >&2; exit 2 ;; esac
if [ -z "$WORKLOADS" ]; then
    if [ "$QUICK" = 1 ]; then WORKLOADS="gametree heapsort"
    else WORKLOADS="fft heapsort lexgen compress gametree interp nbody mt_work"; fi
fi

log() { echo "[hps_sweep $(date +%H:%M:%S)] $*" >&2; }

if [ ! -x "$HOTPROF" ] || [ ! -f "$ROOT/build/lib/libhotprof_rt.a" ]; then
    log "building hotprof (make build/bin/hotprof build/lib/libhotprof_rt.a)"
    make -s -C "$ROOT" build/bin/hotprof build/lib/libhotprof_rt.a >&2
fi
if ! "$HOTPROF" run --help 2>&1 | grep -q -- '--sample'; then
    echo "run.sh: this hotprof has no 'run --sample' (bursty sampling); build a tree that has it" >&2
    exit 1
fi
if ! "$HOTPROF" help compare >/dev/null 2>&1; then
    echo "run.sh: this hotprof has no 'compare' command" >&2
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-hps-sweep.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

build_variant() {   # name, CC command
    log "building $1 ($2)"
    make -s -C "$ROOT/bench/workloads" CC="$2" CFLAGS=-O2 OUT="$WORK/$1" >&2
}
build_variant native "$NATIVE_CC"
build_variant hooked "$HOTPROF cc --hooks=$HOOKS"

mkdir -p "$RESULTS"
echo "# tree at commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)'), $(nproc) cores, native: $NATIVE_CC -O2, hooked: hotprof cc --hooks=$HOOKS -O2, --bursts $BURSTS, $(date -u +%Y-%m-%dT%H:%MZ)"
python3 "$HERE/sweep.py" --bin-dir "$WORK" --hotprof "$HOTPROF" --runs "$RUNS" --quick "$QUICK" --small "$SMALL" \
    --workloads "$WORKLOADS" --bursts "$BURSTS" --only "$ONLY" --csv "$RESULTS/hps_sweep$SUFFIX.csv" --svg "$RESULTS/hps_sweep$SUFFIX.svg"
log "wrote $RESULTS/hps_sweep$SUFFIX.csv and $RESULTS/hps_sweep$SUFFIX.svg"
