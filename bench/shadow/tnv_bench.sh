#!/usr/bin/env bash
# tnv_bench.sh — builds bench/shadow/tnv_bench.c against build/lib/libhotprof_core.a and runs it
# (ns per TNV update on four value streams; a few seconds). Usage: tnv_bench.sh [updates] [sites]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$ROOT/build/lib/libhotprof_core.a" ] || { echo "tnv_bench: run make first" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
${CC:-gcc} -std=gnu11 -O2 -I"$ROOT/src" -o "$OUT/tnv_bench" "$ROOT/bench/shadow/tnv_bench.c" "$ROOT/build/lib/libhotprof_core.a" -lm
nice -n 10 "$OUT/tnv_bench" "$@"
