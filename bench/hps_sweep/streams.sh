#!/usr/bin/env bash
# bench/hps_sweep/streams.sh - the HOT DATA STREAMS part of the HPS accuracy/overhead sweep
# (hps-hybrid-profiling-support.txt §5-6; methods and call pairs: run.sh + sweep.py).
#
# For every workload: build it natively (clang -O2) and with `build/bin/hotprof cc --hooks=memory
# -O2`; run it twice with every load and store given to the data stream detector, the reference:
#     hotprof run --bursts MODE --sample datastream:period=0,burst=100000 -- prog
# (the two side by side; the second against the first is the "max" column); one --mode off run
# (hooks only); then for burst B in {1, 10, 50, 100} and frequency f in {1/100, 1/500, 1/1000,
# 1/5000, 1/10000} (period P = round(B (1/f - 1))), RUNS paired rounds of (native,
#     hotprof run --bursts MODE --sample datastream:period=P,burst=B -- prog)
# order alternating; slowdown = median of sampled/native user+sys CPU time. Each round's profile
# is compared with the reference (`hotprof report --streams --top 0 --format json`): streams keyed
# by their exact address sequence, weighted by heat share (heat / the profile's total); overlap =
# sum of min(shares) over streams in both; top-10 recall; medians over the rounds. Every run must
# print "ok".
# Runs are made address-deterministic: `setarch x86_64 -R` (no ASLR), an environment of constant
# size (same stack), MALLOC_MMAP_THRESHOLD_=32MiB and MALLOC_ARENA_MAX=1 (the program's blocks on
# the brk heap, out of the way of the runtime's mmaps), native runs under the same conditions.
#
# Output: the table on stdout and in bench/results/hps_streams.txt, one row per workload x
# setting in bench/results/hps_streams.csv, overlap and top-10 recall vs overhead (one line per
# burst length) in bench/results/hps_streams.svg. --bursts live writes hps_streams_live.*.
# Progress and failures (command, exit status, output) on stderr.
#
# Usage: bench/hps_sweep/streams.sh [--quick] [--small|--default-sizes] [--runs N]
#                                   [--workloads "fft heapsort ..."] [--bursts patch|live]
#                                   [--ref-jobs N] [--results DIR] [--keep DIR]
#   (default) the 8 workloads at SMALL input sizes (sweep.py's --small sizes: native runs of
#            0.1-0.4 s), 20 settings, 5 rounds: ~20 min on 2 cores, half of it the reference
#            runs (every reference traced costs ~0.3 us: 30-110 s per workload at these sizes).
#   --small  the default; kept for symmetry with run.sh.
#   --default-sizes  the workloads' own default sizes (about 10x the references' cost: hours).
#   --quick  gametree (6 2) and heapsort (50000) at tiny sizes, 3 settings (B=1 f=1/100,
#            B=10 f=1/1000, B=100 f=1/10000), 1 round: a smoke test (~1 min); its slowdowns
#            are meaningless (native runs of 10-20 ms).
#   --runs N paired (native, sampled) rounds per setting (default 5; --quick 1).
#   --bursts how the sampled runs turn hooks on and off (hotprof run --bursts; default patch:
#            call sites rewritten per window, raw counts; live: HPS's counters in every hook).
#            The reference uses the same mode (patch creates a control thread, which moves the
#            heap by a few hundred bytes: a live reference's addresses differ).
#   --ref-jobs N  reference runs side by side (default 2; 1: one after the other).
#   --keep DIR    keep the profiles there (both references, each setting's first round).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/hps_sweep"
HOTPROF="$ROOT/build/bin/hotprof"
RUNS=""
QUICK=0
SMALL=1
WORKLOADS=""
BURSTS=patch
REF_JOBS=2
KEEP=""
RESULTS="$ROOT/bench/results"
NATIVE_CC=${NATIVE_CC:-clang}

usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --small) SMALL=1 ;;
        --default-sizes) SMALL=0 ;;
        --runs) RUNS="${2:-}"; shift ;;
        --workloads) WORKLOADS="${2:-}"; shift ;;
        --results) RESULTS="${2:-}"; shift ;;
        --bursts) BURSTS="${2:-}"; shift ;;
        --ref-jobs) REF_JOBS="${2:-}"; shift ;;
        --keep) KEEP="${2:-}"; shift ;;
        -h|--help) usage 0 ;;
        *) echo "streams.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
case "$BURSTS" in patch) SUFFIX="" ;; live) SUFFIX="_live" ;; *) echo "streams.sh: --bursts is patch or live" >&2; exit 2 ;; esac
[ -n "$RUNS" ] || { [ "$QUICK" = 1 ] && RUNS=1 || RUNS=5; }
case "$RUNS" in ''|*[!0-9]*|0) echo "streams.sh: --runs needs a positive integer" >&2; exit 2 ;; esac
case "$REF_JOBS" in 1|2) ;; *) echo "streams.sh: --ref-jobs is 1 or 2" >&2; exit 2 ;; esac
if [ -z "$WORKLOADS" ]; then
    if [ "$QUICK" = 1 ]; then WORKLOADS="gametree heapsort"
    else WORKLOADS="fft heapsort lexgen compress gametree interp nbody mt_work"; fi
fi
for w in $WORKLOADS; do
    [ -f "$ROOT/bench/workloads/$w.c" ] || { echo "streams.sh: no workload '$w' in bench/workloads" >&2; exit 2; }
done

log() { echo "[hps_streams $(date +%H:%M:%S)] $*" >&2; }

if [ ! -x "$HOTPROF" ] || [ ! -f "$ROOT/build/lib/libhotprof_rt.a" ]; then
    log "building hotprof (make build/bin/hotprof build/lib/libhotprof_rt.a)"
    make -s -C "$ROOT" build/bin/hotprof build/lib/libhotprof_rt.a >&2
fi
if ! "$HOTPROF" run --help 2>&1 | grep -q -- '--bursts'; then
    echo "streams.sh: this hotprof has no 'run --bursts' (patched bursts); build a tree that has it" >&2
    exit 1
fi
if ! setarch x86_64 -R true 2>/dev/null; then
    echo "streams.sh: 'setarch x86_64 -R' does not work here (needed: streams are compared by address)" >&2
    exit 1
fi

if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && KEEP=$(cd "$KEEP" && pwd); fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-hps-streams.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

build_variant() {   # name, CC command
    log "building $1 ($2)"
    local targets=() w
    for w in $WORKLOADS; do targets+=("$WORK/$1/$w"); done
    make -s -C "$ROOT/bench/workloads" CC="$2" CFLAGS=-O2 OUT="$WORK/$1" "${targets[@]}" >&2
}
build_variant native "$NATIVE_CC"
build_variant hooked "$HOTPROF cc --hooks=memory"

mkdir -p "$RESULTS"
HEADER="# tree at commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)'), $(nproc) cores, native: $NATIVE_CC -O2, hooked: hotprof cc --hooks=memory -O2, $(date -u +%Y-%m-%dT%H:%MZ)"
START=$(date +%s)
python3 "$HERE/streams.py" --bin-dir "$WORK" --hotprof "$HOTPROF" --runs "$RUNS" --quick "$QUICK" --small "$SMALL" \
    --workloads "$WORKLOADS" --bursts "$BURSTS" --ref-jobs "$REF_JOBS" --header "$HEADER" --keep "$KEEP" \
    --csv "$RESULTS/hps_streams$SUFFIX.csv" --txt "$RESULTS/hps_streams$SUFFIX.txt" --svg "$RESULTS/hps_streams$SUFFIX.svg"
log "wrote $RESULTS/hps_streams$SUFFIX.{csv,txt,svg} in $(( ($(date +%s) - START) / 60 )) min $(( ($(date +%s) - START) % 60 )) s"
