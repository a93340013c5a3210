#!/usr/bin/env bash
# bench/hps_sweep/real.sh - HPS bursty sampling on the real programs (QuickJS qjs, TinyCC tcc,
# Brotli; bench/lib/realprogs.sh builds them and writes their inputs): for each hook set and
# burst mode (--bursts patch, live, and count when this hotprof accepts it), and each setting
# `--sample methods:period=S,burst=B --sample callpairs:period=S,burst=B` (default 999:1 and 99:1):
# methods and call-pair overlap against the same build's exhaustive profile, the recorded share of
# calls + back-edges against the configured B/(B+S), the bias check (bench/hps_sweep/bias.c: two
# call sites with equal counts) and the slowdown against native (paired rounds). See real.py.
#
# Usage: bench/hps_sweep/real.sh [--runs N] [--quick] [--programs "qjs tcc brotli"]
#            [--hooks "dual-blocks blocks"] [--modes "patch live count"] [--settings "999:1 99:1"]
#            [--build-dir DIR] [--results DIR] [--name NAME]
#   --runs N     paired rounds per setting (default 3; 1 with --quick)
#   --quick      small inputs (~0.1-0.3 s native): a smoke test of the pipeline, not a measurement
#   --programs   which real programs (default all three)
#   --hooks      hook sets (hotprof cc --hooks=; SET+count: with --dual-sites=count; dual-* only when
#                build/lib/hotprof_dual.so exists;
#                xray builds run in their own XRay mode whatever --modes says)
#   --modes      burst modes (hotprof run --bursts); count is skipped with a message when absent
#   --settings   "S:B ..." period:burst pairs
#   --build-dir  scratch directory for the builds and inputs (default build/bench-realprogs)
#   --results    where NAME.{csv,txt} go (default bench/results)
#   --name       results' base name (default hps_real)
set -euo pipefail
. "$(dirname "$0")/../lib/realprogs.sh"
RP_TAG=hps-real
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
rp_parse "$@"
HOOKS="dual-blocks blocks"; MODES="patch live count"; SETTINGS="999:1 99:1"; NAME=hps_real
set -- "${RP_REST[@]+"${RP_REST[@]}"}"
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "real.sh: $1 needs a value" >&2; usage 2 >&2; }
    case "$1" in
        --hooks) HOOKS=$2 ;;
        --modes) MODES=$2 ;;
        --settings) SETTINGS=$2 ;;
        --name) NAME=$2 ;;
        *) echo "real.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift 2
done
for m in $MODES; do
    case "$m" in patch|live|count) ;; *) rp_die "--modes: '$m' is not patch, live or count" 2 ;; esac
done
for s in $SETTINGS; do
    case "$s" in [0-9]*:[1-9]*) ;; *) rp_die "--settings: '$s' is not PERIOD:BURST" 2 ;; esac
done
rp_ensure_hotprof
HOOKS=$(rp_hooks_available "$HOOKS")
[ -n "$HOOKS" ] || rp_die "no hook set left to measure"
python3 "$RP_ROOT/bench/hps_sweep/real.py" --runs "$RP_RUNS" --quick "$RP_QUICK" --programs "$RP_PROGRAMS" \
    --hooks "$HOOKS" --modes "$MODES" --settings "$SETTINGS" --build-dir "$RP_BUILD" \
    --csv "$RP_RESULTS/$NAME.csv" | tee "$RP_RESULTS/$NAME.txt"
rp_log "wrote $RP_RESULTS/$NAME.{csv,txt}"
