#!/usr/bin/env bash
# bench/value_sampling/run.sh - timer mode and value sampling of unmodified binaries (issue 10;
# value-sampling-dcpi.txt §3.4 Table 2) against perf and gperftools, side by side in one run.
#
# Programs: the bench/workloads built with plain `gcc -O2 -g` (no hotprof hooks), Debian's
# bzip2 -9, gzip -9 and xz -6 compressing one generated input file, and sqlite3 running a script
# of inserts and queries. For each program RUNS interleaved rounds of every variant (native;
# hotprof --mode timer with PC + stack samples at 1 kHz; values L/2 for L = 4, 8, 16, 32 (Table
# 2(b)); equal interpreted instructions per interrupt: 2/1, 8/4, 16/8 beside 4/2 (Table 2(c));
# the trap-flag engine at 4/2; perf record -e cpu-clock -F 1000 with and without -g; gperftools'
# CPU profiler at 1000 Hz). Slowdown = median over rounds of the paired ratio variant/native, wall
# clock (perf's own process runs on the other core, as a user sees it) and CPU (user+sys of the
# process tree: perf's work included). Accuracy: the hot-function profile (self samples per
# function) of the 1 kHz run against a 20 kHz run of ours, and against perf's 1 kHz profile:
# overlap = sum over functions of min(share a, share b); code without symbols (stripped Debian
# libraries) is compared per address, its offset in the object. See bench/value_sampling/README.md.
#
# Usage: bench/value_sampling/run.sh [--quick] [--runs N] [--programs "fft bzip2 ..."]
#                                    [--variants "pc v4/2 ..."] [--name NAME] [--results DIR] [--selftest]
#   --variants  only these variants (and native); --name NAME: write NAME.{txt,csv,svg}
#   --quick     two programs, small inputs, 1 round: a smoke test.
#   --selftest  checks vs.py's tables on made-up numbers (runs no program), then exits.
# Output: a table on stdout, bench/results/value_sampling.{txt,csv,svg}.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/value_sampling"
HOTPROF="$ROOT/build/bin/hotprof"
RUNS=3 QUICK=0 PROGRAMS="" VARIANTS="" NAME=value_sampling RESULTS="$ROOT/bench/results"

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1; RUNS=1 ;;
        --runs) RUNS="$2"; shift ;;
        --programs) PROGRAMS="$2"; shift ;;
        --variants) VARIANTS="$2"; shift ;;
        --name) NAME="$2"; shift ;;
        --results) RESULTS="$2"; shift ;;
        --selftest) exec python3 "$HERE/vs.py" --selftest ;;
        -h|--help) usage 0 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
case "$RUNS" in ''|*[!0-9]*|0) echo "run.sh: --runs needs a positive integer" >&2; exit 2 ;; esac
log() { echo "[value_sampling $(date +%H:%M:%S)] $*" >&2; }

[ -x "$HOTPROF" ] && [ -f "$ROOT/build/lib/libhotprof_rt.so" ] || { log "building hotprof"; make -s -C "$ROOT" >&2; }
"$HOTPROF" help run 2>&1 | grep -q -- '--values' || { echo "run.sh: this hotprof has no --mode timer --values (issue 10)" >&2; exit 1; }
for tool in perf bzip2 gzip xz sqlite3; do
    command -v "$tool" >/dev/null || { echo "run.sh: '$tool' is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done
PROFILER=$(ls /usr/lib/x86_64-linux-gnu/libprofiler.so* 2>/dev/null | head -1 || true)
[ -n "$PROFILER" ] || { echo "run.sh: gperftools' libprofiler.so is missing (Debian libgoogle-perftools4)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hotprof-vs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log "building the workloads (gcc -O2 -g, no hooks)"
make -s -C "$ROOT/bench/workloads" CC=gcc CFLAGS="-O2 -g" OUT="$WORK/bin" >&2

gcc -O2 -shared -fPIC -Wall -Werror -o "$WORK/floor.so" "$HERE/floor.c" || { echo "run.sh: cannot build floor.c" >&2; exit 1; }
mkdir -p "$RESULTS"
HEADER="# bench/value_sampling: tree at commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)'), $(nproc) cores, $RUNS rounds$([ "$QUICK" = 1 ] && echo ', quick'), $(date -u +%Y-%m-%dT%H:%MZ)"
python3 "$HERE/vs.py" --bin-dir "$WORK/bin" --work "$WORK" --hotprof "$HOTPROF" --profiler "$PROFILER" --floor "$WORK/floor.so" \
    --runs "$RUNS" --quick "$QUICK" --programs "$PROGRAMS" --variants "$VARIANTS" --name "$NAME" --results "$RESULTS" --header "$HEADER"
log "wrote $RESULTS/$NAME.txt, $NAME.csv and $NAME.svg"
