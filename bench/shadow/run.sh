#!/usr/bin/env bash
# bench/shadow/run.sh - shadow profiling (issue 11; shadow-profiling.txt §4, Figures 3-7): the parent's
# slowdown, extra page faults, coverage, path accuracy (Wall's weight matching, top 5%) and value
# Diff-Top of `hotprof run --mode shadow` on the workloads, over sample size x load, beside the cost
# of the same profiles taken in-process (exhaustive hooks).
#
# Each workload is built three times: native (clang -O2, no hooks), `hotprof cc --hooks=all -O2` and,
# when the plugin exists, `hotprof cc --hooks=dual-all -O2` (one table per hooked build). Per
# round, per workload: the native run, the exhaustive in-process run with `--sample path --sample
# value:summary=tnv` (the reference and the in-process cost), then one shadow run per (sample size,
# load) with the same profiles. Slowdown = wall(shadow run)/wall(native) of the same round (the
# shadows run on the spare core: this machine has 2); parent CPU = INFO shadow.parent_cpu_ns over the
# native CPU; page faults = the parent's minor faults from the first fork to the end (INFO
# shadow.minflt - shadow.minflt_before); coverage = events the shadows recorded / the exhaustive
# run's calls + blocks; Wall and Diff-Top from `hotprof compare SHADOW EXHAUSTIVE`.
#
# Usage: bench/shadow/run.sh [--quick] [--runs N] [--programs "fft gametree ..."]
#                            [--sizes "1M 10M 100M"] [--loads "0.0625 ... 2"] [--builds "all dual-all"]
#                            [--dual-flags "FLAGS"] [--results DIR] [--selftest] [--rerender]
#   --builds    which hooked builds to measure: all, dual-all (the loop-entry form, its default),
#               dual-all-onebody (-mllvm -hotprof-dual-loops=inline); default "all dual-all"; the
#               builds run in turn within each round; the exhaustive reference runs once per build
#   --dual-flags  more hotprof cc options for the dual-all build (e.g. "-mllvm -hotprof-dual-loops=osr")
#   --quick     two programs, small sizes, load 0.25 and 1, sample 1M and 10M, 1 round
#   --selftest  checks shadow.py's table on made-up numbers, runs no program
#   --rerender  writes shadow.txt/svg of --results again from its shadow.csv, runs no program
# Output: a table on stdout, bench/results/shadow.{txt,csv,svg}.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/shadow"
HOTPROF="$ROOT/build/bin/hotprof"
RUNS=1 QUICK=0 PROGRAMS="" SIZES="1M 10M 100M" LOADS="0.0625 0.125 0.25 0.5 1 2" RESULTS="$ROOT/bench/results" BUILDS="all dual-all" DUAL_FLAGS=""
usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1; RUNS=1; SIZES="1M 10M"; LOADS="0.25 1" ;;
        --runs) RUNS="$2"; shift ;;
        --programs) PROGRAMS="$2"; shift ;;
        --sizes) SIZES="$2"; shift ;;
        --loads) LOADS="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        --builds) BUILDS="$2"; shift ;;
        --dual-flags) DUAL_FLAGS="$2"; shift ;;
        --selftest) exec python3 "$HERE/shadow.py" --selftest ;;
        --rerender) REREN=1 ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
case "$RUNS" in ''|*[!0-9]*|0) echo "run.sh: --runs needs a positive integer" >&2; exit 2 ;; esac
[ "${REREN:-0}" = 1 ] && exec python3 "$HERE/shadow.py" --rerender --results "$RESULTS"
log() { echo "[shadow $(date +%H:%M:%S)] $*" >&2; }
[ -x "$HOTPROF" ] || { log "building hotprof"; make -s -C "$ROOT" >&2; }
"$HOTPROF" help run 2>&1 | grep -- '--sample-size' >/dev/null || { echo "run.sh: this hotprof has no --mode shadow" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-shadow.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log "building the workloads (native clang -O2, and hotprof cc --hooks=all -O2)"
make -s -C "$ROOT/bench/workloads" CC=clang CFLAGS="-O2" OUT="$WORK/native" >&2
make -s -C "$ROOT/bench/workloads" CC="$ROOT/build/bin/hotprof cc --hooks=all" CFLAGS="-O2" OUT="$WORK/hp" >&2
HP_DUAL=""  # the two-version build (docs/shadow.md), beside: only with the plugin
if [ -f "$ROOT/build/lib/hotprof_dual.so" ]; then
    log "building the workloads with hotprof cc --hooks=dual-all $DUAL_FLAGS -O2"
    make -s -C "$ROOT/bench/workloads" CC="$ROOT/build/bin/hotprof cc --hooks=dual-all $DUAL_FLAGS" CFLAGS="-O2" OUT="$WORK/hpdual" >&2
    HP_DUAL="$WORK/hpdual"
fi
HP_DUAL_ONEBODY=""  # dual-all in the one-body form (the form dual-all had before the loop-entry default)
if [ -n "$HP_DUAL" ] && [[ " $BUILDS " == *" dual-all-onebody "* ]]; then
    log "building the workloads with hotprof cc --hooks=dual-all -mllvm -hotprof-dual-loops=inline $DUAL_FLAGS -O2"
    make -s -C "$ROOT/bench/workloads" CC="$ROOT/build/bin/hotprof cc --hooks=dual-all -mllvm -hotprof-dual-loops=inline $DUAL_FLAGS" \
        CFLAGS="-O2 -Wno-unused-command-line-argument" OUT="$WORK/hpdual1" >&2
    HP_DUAL_ONEBODY="$WORK/hpdual1"
fi
mkdir -p "$RESULTS"
HEADER="# bench/shadow$([ -n "$DUAL_FLAGS" ] && echo " (dual-all with $DUAL_FLAGS)"): tree at commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)'), $(nproc) cores, $RUNS round(s)$([ "$QUICK" = 1 ] && echo ', quick'), $(date -u +%Y-%m-%dT%H:%MZ)"
python3 "$HERE/shadow.py" --native "$WORK/native" --hp "$WORK/hp" --hp-dual "$HP_DUAL" --hp-dual-onebody "$HP_DUAL_ONEBODY" --work "$WORK" --hotprof "$HOTPROF" --runs "$RUNS" \
    --quick "$QUICK" --programs "$PROGRAMS" --sizes "$SIZES" --loads "$LOADS" --builds "$BUILDS" --results "$RESULTS" --header "$HEADER"
log "wrote $RESULTS/shadow.txt, shadow.csv and shadow.svg"
