#!/usr/bin/env bash
# bench/fastpath/real.sh - the hook fast path and HPS Figure 7's overhead breakdown on the real
# programs (QuickJS qjs, TinyCC tcc, Brotli; bench/lib/realprogs.sh builds them and writes their
# inputs). Per program, native and every build run side by side in the same interleaved rounds:
#   H:off    hotprof cc --hooks=H with HOTPROF_MODE=off: the switched-off floor, per hook set
#   F:ctl    + the control thread of patched bursts (period 10^9: no window ever opens)
#   F:s1000  + sampling: methods and call pairs at period=999,burst=1
# and each build's code size (.text without the runtime, over native's). See real.py's header.
#
# Usage: bench/fastpath/real.sh [--runs N] [--quick] [--programs "qjs tcc brotli"]
#            [--hooks "functions blocks xray dual-functions dual-blocks"] [--fig7 "blocks dual-blocks"]
#            [--build-dir DIR] [--results DIR] [--baseline TREE] [--name NAME]
#   --runs N     interleaved rounds (default 5; 1 with --quick)
#   --quick      small inputs (~0.1-0.3 s native): a smoke test of the pipeline, not a measurement
#   --programs   which real programs (default all three)
#   --hooks      hook sets whose switched-off floor and size are measured (dual-* only when
#                build/lib/hotprof_dual.so exists)
#   --fig7       hook sets broken down as HPS Figure 7
#   --build-dir  scratch directory for the builds and inputs (default build/bench-realprogs; builds
#                are reused until hotprof, its runtime or the plugin change)
#   --results    where fastpath_real.{csv,txt,svg} go (default bench/results)
#   --baseline TREE  another built hotprof tree (a git worktree of an older commit): each --fig7
#                hook set is also built by it (its own realprogs.sh, in BUILD-DIR-base) and runs
#                as F:off@base, F:s1000@base (a dual set also F:c1000@base) in the same rounds (side by side, old against new)
#   --name NAME  results in fastpath_real_NAME.{csv,txt,svg} instead
# Output: a table (stdout and fastpath_real.txt), fastpath_real.csv, fastpath_real.svg (Figure 7).
set -euo pipefail
. "$(dirname "$0")/../lib/realprogs.sh"
RP_TAG=fastpath-real
RP_DEFAULT_RUNS=5
usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
rp_parse "$@"
HOOKS="functions blocks xray dual-functions dual-blocks"; FIG7="blocks dual-blocks"; BASELINE=""; OUT=fastpath_real
set -- "${RP_REST[@]+"${RP_REST[@]}"}"
while [ $# -gt 0 ]; do
    case "$1" in
        --hooks) HOOKS=$2; shift ;;
        --fig7) FIG7=$2; shift ;;
        --baseline) [ -x "${2:-}/build/bin/hotprof" ] || rp_die "--baseline needs a built hotprof tree" 2
            BASELINE=$(cd "$2" && pwd); shift ;;
        --name) [ -n "${2:-}" ] || rp_die "--name needs a value" 2; OUT=fastpath_real_$2; shift ;;
        *) echo "real.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
    esac
    shift
done
rp_ensure_hotprof
python3 "$RP_ROOT/bench/fastpath/real.py" --runs "$RP_RUNS" --quick "$RP_QUICK" --programs "$RP_PROGRAMS" \
    --hooks "$(rp_hooks_available "$HOOKS")" --fig7 "$(rp_hooks_available "$FIG7")" --build-dir "$RP_BUILD" \
    ${BASELINE:+--baseline "$BASELINE"} \
    --csv "$RP_RESULTS/$OUT.csv" --svg "$RP_RESULTS/$OUT.svg" | tee "$RP_RESULTS/$OUT.txt"
rp_log "wrote $RP_RESULTS/$OUT.{csv,txt,svg}"
