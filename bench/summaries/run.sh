#!/bin/sh
# run.sh — build and run the summary and multi-hash benchmarks; write bench/results/summaries.csv,
# multihash.csv and SVG plots (summaries.svg, multihash.svg).
#   bench/summaries/run.sh            10^6 items per Zipf stream (about a minute on 2 cores)
#   bench/summaries/run.sh --large    10^7 items per stream
#   bench/summaries/run.sh --keys F   also a recorded event stream: F holds little-endian uint64 keys
#   bench/summaries/run.sh --summaries-only [...]   skip the multi-hash benchmark (and its outputs)
#   bench/summaries/run.sh --only spacesaving,tnv   only the summaries named (the CSV then holds
#                                                   only those rows)
# Recorded streams: bench/streams/record.sh writes build/streams/interp.calls (call pairs) and
# build/streams/lexgen.values (<pc, value> tuples); when they exist they are added as --keys
# (run record.sh first to include them; without them only the synthetic streams run, with a note).
# Timings are only meaningful on a quiet machine; the bench runs on one core (pinned when taskset
# exists).
set -eu
cd "$(dirname "$0")/../.."
multihash=1
if [ "${1:-}" = "--summaries-only" ]; then multihash=0; shift; fi
make -s build/lib/libhotprof_core.a
make -s -C bench/summaries
mkdir -p bench/results
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
recorded=""
for f in build/streams/interp.calls build/streams/lexgen.values; do
    if [ -s "$f" ]; then recorded="$recorded --keys $f"; fi
done
# shellcheck disable=SC2086 # $recorded is a list of options
$pin build/bench/summaries/bench_summaries --csv bench/results/summaries.csv $recorded "$@"
if [ "$multihash" = 0 ]; then
    python3 bench/summaries/plot.py bench/results/summaries.csv bench/results/summaries.svg
elif [ -x build/bench/summaries/bench_multihash ]; then
    $pin build/bench/summaries/bench_multihash --csv bench/results/multihash.csv "$@"
    python3 bench/summaries/plot.py bench/results/summaries.csv bench/results/summaries.svg \
        bench/results/multihash.csv bench/results/multihash.svg
else
    echo "note: src/core/summary/multihash.h is not in the tree yet: multi-hash benchmark skipped"
    python3 bench/summaries/plot.py bench/results/summaries.csv bench/results/summaries.svg
fi
echo "wrote bench/results/summaries.csv summaries.svg (and multihash.* when built)"
