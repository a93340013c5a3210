#!/usr/bin/env bash
# bench/osp/run.sh - online subpath profiling (issue 9; osp-online-subpath-profiling.txt chapter 4,
# Tables 4.1, 4.3, 4.7, 4.8, 4.11) on the bench/workloads programs; see bench/osp/README.md and
# the header of bench/osp/osp.py for what is measured and how.
#
# Builds every workload natively (clang -O2), with `build/bin/hotprof cc --hooks=blocks -O2` and
# with `--hooks=dual-blocks -O2`, then for each: one exact run per hooked build (--mode exhaustive
# --sample subpath:maxlen=32), RUNS interleaved rounds of native / floor / skip-live / skip-patch /
# full-live / full-patch / skip-count / full-count (count: the dual build, --bursts count; CPU time, max RSS,
# every run must print "ok"), the accuracy of every full run against the exact one, and for fft
# and nbody the prefix runs of Table 4.11. Writes bench/results/osp.{txt,csv,svg},
# osp_top10.csv and osp_prefix.csv; the tables go to stdout, progress to stderr.
#
# Usage: bench/osp/run.sh [--quick] [--small] [--runs N] [--workloads "fft lexgen ..."]
#                         [--results DIR] [--no-prefix] [--dual-flags "..."] [--selftest]
#   --quick     fft and lexgen at small sizes, 1 round, no prefix runs: a smoke test.
#   --small     the small sizes of bench/hps_sweep --quick (accuracy meaningful, slowdowns less so).
#   --runs N    rounds of timing (default 5; the medians are over rounds).
#   --dual-flags  more `hotprof cc` flags for the dual-blocks build of the count variants, e.g.
#               "--dual-sites=count" (inline count sites: docs/dual.md); in the results' header.
#   --selftest  only check osp.py's table/CSV/SVG logic on fabricated profiles (runs no workload).
# The full run (8 workloads, default sizes, 5 rounds; the exact runs count every subpath) takes
# a long time on 2 cores: run it on a quiet machine.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/osp"
HOTPROF="$ROOT/build/bin/hotprof"
RUNS=5
SMALL=0
NOPREFIX=""
WORKLOADS="fft heapsort lexgen compress gametree interp nbody mt_work"
RESULTS="$ROOT/bench/results"
NATIVE_CC=${NATIVE_CC:-clang}
DUAL_FLAGS=""

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --quick) SMALL=1; RUNS=1; NOPREFIX=--no-prefix; WORKLOADS="fft lexgen" ;;
        --small) SMALL=1 ;;
        --runs) RUNS="$2"; shift ;;
        --workloads) WORKLOADS="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        --no-prefix) NOPREFIX=--no-prefix ;;
        --dual-flags) DUAL_FLAGS="$2"; shift ;;
        --selftest) exec python3 "$HERE/osp.py" --selftest ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
case "$RUNS" in ''|*[!0-9]*|0) echo "run.sh: --runs needs a positive integer" >&2; exit 2 ;; esac

log() { echo "[osp $(date +%H:%M:%S)] $*" >&2; }

if [ ! -x "$HOTPROF" ] || [ ! -f "$ROOT/build/lib/libhotprof_rt.a" ]; then
    log "building hotprof (make build/bin/hotprof build/lib/libhotprof_rt.a)"
    make -s -C "$ROOT" build/bin/hotprof build/lib/libhotprof_rt.a >&2
fi
help_text=$({ "$HOTPROF" help run; "$HOTPROF" help report; } 2>&1)
if ! grep -q -- 'subpath' <<<"$help_text"; then
    echo "run.sh: this hotprof has no subpath profile type (issue 9); build a tree that has it" >&2
    exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-osp.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

build_variant() {   # name, CC command
    log "building $1 ($2)"
    make -s -C "$ROOT/bench/workloads" CC="$2" CFLAGS=-O2 OUT="$WORK/$1" >&2
}
build_variant native "$NATIVE_CC"
build_variant hooked "$HOTPROF cc --hooks=blocks"
build_variant dual "$HOTPROF cc --hooks=dual-blocks${DUAL_FLAGS:+ $DUAL_FLAGS}"

mkdir -p "$RESULTS"
HEADER="# bench/osp: tree at commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)'), $(nproc) cores, native: $NATIVE_CC -O2, hooked: hotprof cc --hooks=blocks -O2, dual: --hooks=dual-blocks${DUAL_FLAGS:+ $DUAL_FLAGS} -O2, $RUNS rounds$([ "$SMALL" = 1 ] && echo ', small sizes'), $(date -u +%Y-%m-%dT%H:%MZ)"
python3 "$HERE/osp.py" --bin-dir "$WORK" --hotprof "$HOTPROF" --runs "$RUNS" --small "$SMALL" $NOPREFIX \
    --workloads "$WORKLOADS" --results "$RESULTS" --header "$HEADER"
log "wrote $RESULTS/osp.txt, osp.csv, osp_top10.csv, osp_prefix.csv and osp.svg"
