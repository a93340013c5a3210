#!/usr/bin/env bash
# bench/fastpath/budget.sh - count mode's cost per event against the budget a 1.03 total leaves
# (issue 14): per program, native, the switched-off floor (off), count mode whose bursts never
# start (dec: the decrement alone) and count mode at 1/1000, burst 1 (c1000), side by side in
# interleaved rounds; events and bursts from count mode's own INFO. See budget.py's header.
#
# Usage: bench/fastpath/budget.sh [--runs N] [--quick] [--workloads "fft heapsort ..."]
#            [--programs "qjs tcc brotli"] [--hooks dual-functions] [--build-dir DIR]
#            [--results DIR] [--name NAME]
#   --runs N       interleaved rounds (default 7; 1 with --quick)
#   --quick        the real programs' small inputs (a smoke test, not a measurement)
#   --workloads    which of bench/workloads (default all eight; "" for none)
#   --programs     which real programs (default all three; "" for none)
#   --hooks        the dual hook set every program is built with (default dual-functions;
#                  SET+count: with inline count sites, `hotprof cc --dual-sites=count`)
#   --build-dir    the real programs' builds (default build/bench-realprogs)
#   --results      where fastpath_budget.{csv,txt} go (default bench/results)
#   --name NAME    results in fastpath_budget_NAME.{csv,txt} instead
# Output: a table (stdout and the .txt) and the CSV. Needs the dual plugin (build/lib/hotprof_dual.so).
set -euo pipefail
. "$(dirname "$0")/../lib/realprogs.sh"
RP_TAG=fastpath-budget
RP_DEFAULT_RUNS=7
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
WORKLOADS="fft heapsort lexgen compress gametree interp nbody mt_work"; HOOKS=dual-functions
OUT=fastpath_budget
rp_parse "$@"
set -- "${RP_REST[@]+"${RP_REST[@]}"}"
while [ $# -gt 0 ]; do
    case "$1" in
        --workloads) [ $# -ge 2 ] || rp_die "--workloads needs a list" 2; WORKLOADS=$2; shift ;;
        --hooks) [ -n "${2:-}" ] || rp_die "--hooks needs a hook set" 2; HOOKS=$2; shift ;;
        --name) [ -n "${2:-}" ] || rp_die "--name needs a value" 2; OUT=fastpath_budget_$2; shift ;;
        *) echo "budget.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
case "$HOOKS" in dual-*) ;; *) rp_die "--hooks must be a dual hook set (count mode), not '$HOOKS'" 2 ;; esac
rp_ensure_hotprof
rp_has_dual || rp_die "no build/lib/hotprof_dual.so (llvm-14-dev missing when hotprof was built): count mode needs a dual build"
python3 "$RP_ROOT/bench/fastpath/budget.py" --runs "$RP_RUNS" --quick "$RP_QUICK" --workloads "$WORKLOADS" \
    --programs "$RP_PROGRAMS" --hooks "$HOOKS" --build-dir "$RP_BUILD" --csv "$RP_RESULTS/$OUT.csv" \
    | tee "$RP_RESULTS/$OUT.txt"
rp_log "wrote $RP_RESULTS/$OUT.{csv,txt}"
