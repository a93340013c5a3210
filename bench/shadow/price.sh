#!/usr/bin/env bash
# bench/shadow/price.sh - the parent's price of shadow profiling in parts that repeat on a noisy
# host (docs/shadow.md, "The parent's price"): the dual-all build's switched-off instruction floor
# (callgrind, exact), the copy-on-write faults and forks bench/shadow counted times their costs
# measured here by cow_cost.c, and the model they add up to, beside bench/shadow's measured wall
# slowdown (load 0.25, sample 10M, from its shadow.csv: run bench/shadow/run.sh first).
#
# Usage: bench/shadow/price.sh [--programs "fft heapsort ..."] [--shadow-csv FILE] [--results DIR]
#                              [--selftest]
#   --shadow-csv  bench/shadow's results to price (default bench/results/shadow.csv)
#   --selftest    checks price.py's table on made-up numbers, runs no program
# Needs valgrind, GNU time (/usr/bin/time) and the plugin. Takes ~10 minutes (callgrind at the
# QUICK sizes of bench/shadow). Output: a table on stdout, bench/results/shadow_price.{txt,csv}.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/shadow"
HOTPROF="$ROOT/build/bin/hotprof"
PROGRAMS="" RESULTS="$ROOT/bench/results" SHADOW_CSV="$ROOT/bench/results/shadow.csv"
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --programs) PROGRAMS="$2"; shift ;;
        --shadow-csv) SHADOW_CSV="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        --selftest) exec python3 "$HERE/price.py" --selftest ;;
        -h|--help) usage 0 ;;
        *) echo "price.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
log() { echo "[price $(date +%H:%M:%S)] $*" >&2; }
[ -f "$SHADOW_CSV" ] || { echo "price.sh: no $SHADOW_CSV (run bench/shadow/run.sh first)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "price.sh: needs valgrind" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "price.sh: needs GNU time (/usr/bin/time; Debian package time)" >&2; exit 1; }
[ -x "$HOTPROF" ] || { log "building hotprof"; make -s -C "$ROOT" >&2; }
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { echo "price.sh: the dual-all build needs the plugin (build/lib/hotprof_dual.so)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-price.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log "building cow_cost and the workloads (native clang -O2; hotprof cc --hooks=dual-all -O2)"
cc -O2 -o "$WORK/cow_cost" "$HERE/cow_cost.c"
make -s -C "$ROOT/bench/workloads" CC=clang CFLAGS="-O2" OUT="$WORK/native" >&2
make -s -C "$ROOT/bench/workloads" CC="$HOTPROF cc --hooks=dual-all" CFLAGS="-O2" OUT="$WORK/dual" >&2
mkdir -p "$RESULTS"
SHADOW_RUN=$(sed -n 1p "$(dirname "$SHADOW_CSV")/shadow.txt" 2>/dev/null | sed 's/^# bench\/shadow: //')
HEADER="# bench/shadow/price: tree at commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ); counts and measured slowdowns from $(basename "$SHADOW_CSV") (${SHADOW_RUN:-its run})"
python3 "$HERE/price.py" --native "$WORK/native" --dual "$WORK/dual" --cow "$WORK/cow_cost" --shadow-csv "$SHADOW_CSV" \
    --results "$RESULTS" --header "$HEADER" --programs "$PROGRAMS"
log "wrote $RESULTS/shadow_price.txt and shadow_price.csv"
