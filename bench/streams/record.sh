#!/usr/bin/env bash
# record.sh [OUTDIR] — records two real event streams from workloads for bench/summaries:
#   OUTDIR/interp.calls   call pairs (site, callee) of the bytecode interpreter
#   OUTDIR/lexgen.values  <pc, compared value> tuples of the lexer generator
# Each holds up to 4,000,000 little-endian uint64 keys (32 MB). Default OUTDIR: build/streams.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build/streams}
mkdir -p "$out"
cc=${CC:-clang}
W=bench/workloads
$cc -O2 -finstrument-functions-after-inlining -o "$out/interp.rec" $W/interp.c bench/streams/record.c -lm
RECORD_CALLS="$out/interp.calls" "$out/interp.rec" 10 >/dev/null
$cc -O2 -fsanitize-coverage=inline-8bit-counters,trace-cmp -o "$out/lexgen.rec" $W/lexgen.c bench/streams/record.c -lm
RECORD_VALUES="$out/lexgen.values" "$out/lexgen.rec" 200 >/dev/null
for f in "$out/interp.calls" "$out/lexgen.values"; do
    echo "$f: $(( $(stat -c %s "$f") / 8 )) keys" >&2
done
