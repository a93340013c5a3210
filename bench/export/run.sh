#!/usr/bin/env bash
# bench/export/run.sh - what reading a profile costs: `hotprof report` in every format, annotate,
# merge and info, on exhaustive profiles of real programs nobody here wrote (QuickJS running a
# JavaScript file, Brotli compressing text; ../shared/realprogs), side by side with `perf report
# --stdio` on a perf.data of the same program (the peer), and optionally with an older hotprof
# binary (--baseline BIN: the report text before a change, e.g. before inline-scope lookups).
#
# Builds each program with build/bin/hotprof-cc (-O2 -g, hooks `blocks`, the default) and natively
# with clang (-O2 -g, for perf) through bench/lib/realprogs.sh (rp_build), records one exhaustive profile per program (`hotprof run`) and one
# perf.data (`perf record -F 999 -e cpu-clock`), then measure.py times every command N times,
# interleaved (the order rotates each round), as user+sys CPU seconds of the process (wall too),
# and checks the pprof export on the real program: `go tool pprof -top` must list the same top-10
# functions with the same counts as `hotprof report --format json` (when go is installed).
#
# Output: a table on stdout, bench/results/export.csv and bench/results/export.txt.
# Usage: bench/export/run.sh [--quick] [--runs N] [--baseline HOTPROF_BIN] [--results DIR]
#   --quick  smaller inputs and 3 runs unless --runs is given.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/export"
HP="$ROOT/build/bin/hotprof"
REAL=${HOTPROF_REALPROGS:-$ROOT/../shared/realprogs}
RUNS=""
QUICK=0
BASELINE=""
RESULTS="$ROOT/bench/results"

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1 ;;
        --runs) RUNS="$2"; shift ;;
        --baseline) BASELINE="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
[ -n "$RUNS" ] || { [ "$QUICK" = 1 ] && RUNS=3 || RUNS=7; }
case "$RUNS" in ''|*[!0-9]*|0) echo "run.sh: --runs needs a positive integer" >&2; exit 2 ;; esac
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || { echo "run.sh: --baseline '$BASELINE' is not an executable" >&2; exit 2; }
[ -d "$REAL/quickjs" ] && [ -d "$REAL/brotli" ] || { echo "run.sh: no real programs in $REAL (set HOTPROF_REALPROGS)" >&2; exit 2; }

log() { echo "[export $(date +%H:%M:%S)] $*" >&2; }
[ -x "$HP" ] || { log "building hotprof"; make -s -C "$ROOT" >&2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-export.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOTPROF_QUIET=1

# ---- programs (bench/lib/realprogs.sh: built once in build/bench-realprogs, reused until the
# compile command or the runtime change) ----
RP_TAG=export
. "$ROOT/bench/lib/realprogs.sh"
RP_BUILD=${RP_BUILD:-$ROOT/build/bench-realprogs}
mkdir -p "$RP_BUILD" "$WORK/bin"
for prog in brotli qjs; do
    cp "$(rp_build "$prog" blocks)" "$WORK/bin/$prog.hp"
    cp "$(rp_build "$prog" native)" "$WORK/bin/$prog.native"
done

# ---- inputs ----
reps=$([ "$QUICK" = 1 ] && echo 20 || echo 60)
for _ in $(seq "$reps"); do cat /usr/share/common-licenses/* 2>/dev/null; done > "$WORK/text.txt"
scale=$([ "$QUICK" = 1 ] && echo 60000 || echo 200000)
sed "s/@SCALE@/$scale/" "$HERE/work.js" > "$WORK/work.js"

# ---- one exhaustive profile and one perf.data per program ----
profile() { # NAME ARGS...
    local name=$1; shift
    log "profiling $name"
    "$HP" run -o "$WORK/$name.data" -- "$WORK/bin/$name.hp" "$@" > /dev/null
    perf record -q -F 999 -e cpu-clock -o "$WORK/$name.perf" -- "$WORK/bin/$name.native" "$@" > /dev/null 2>"$WORK/perf.log" ||
        { log "perf record failed: $(tail -n 2 "$WORK/perf.log")"; : > "$WORK/$name.perf"; }
}
profile brotli -q 5 -f -c "$WORK/text.txt"
profile qjs "$WORK/work.js"

python3 "$HERE/measure.py" --hotprof "$HP" --work "$WORK" --runs "$RUNS" --results "$RESULTS" \
    ${BASELINE:+--baseline "$BASELINE"} brotli qjs
