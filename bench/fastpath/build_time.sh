#!/usr/bin/env bash
# bench/fastpath/build_time.sh - what a hook set costs at build time on the real programs: each
# program (qjs, tcc, brotli; bench/lib/realprogs.sh) is built from scratch with native clang -O2
# and with every hook set, in interleaved rounds (round r builds every set once, in the order
# given), and the wall time of each build is taken (make -j2 for qjs and tcc, one compiler command
# for brotli). Builds are not checked here (the other real-program scripts check their output).
# Run it with nothing else on the machine: wall time is all it measures.
#
# Usage: bench/fastpath/build_time.sh [--programs "qjs tcc brotli"] [--runs N]
#            [--hooks "dual-functions dual-functions:--dual-latch=site"] [--name NAME]
#   --runs N     rounds (default 3); --hooks: hook sets as in realprogs.sh (SET[+count][:OPT,...])
#   --name NAME  results in NAME.{txt,csv} (default fastpath_build_time)
# Output: a table (stdout and NAME.txt): per program and hook set the median build seconds and
# their ratio to native's; NAME.csv: program,hooks,round,seconds (one row per build; a hook set's
# options are separated by ';' there).
set -euo pipefail
. "$(dirname "$0")/../lib/realprogs.sh"
RP_TAG=build-time
usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
rp_parse "$@"
HOOKS="dual-functions dual-functions:--dual-latch=site"; NAME=fastpath_build_time
set -- "${RP_REST[@]+"${RP_REST[@]}"}"
while [ $# -gt 0 ]; do
    case "$1" in
        --hooks) [ $# -ge 2 ] || rp_die "--hooks needs a list" 2; HOOKS=$2; shift ;;
        --name) [ $# -ge 2 ] || rp_die "--name needs a value" 2; NAME=$2; shift ;;
        *) rp_die "unknown option '$1' (see --help)" 2 ;;
    esac
    shift
done
rp_ensure_hotprof
HOOKS="native $(rp_hooks_available "$HOOKS")"
WORK=$(mktemp -d /tmp/hotprof-build-time.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CSV="$RP_RESULTS/$NAME.csv" TXT="$RP_RESULTS/$NAME.txt"
echo "program,hooks,round,seconds" >"$CSV"
for round in $(seq 1 "$RP_RUNS"); do
    mkdir -p "$WORK/r$round"
    for prog in $RP_PROGRAMS; do
        for hooks in $HOOKS; do
            rp_log "round $round: $prog ($hooks)"
            t0=$(date +%s.%N)
            RP_BUILD="$WORK/r$round" rp_build "$prog" "$hooks" >/dev/null
            t1=$(date +%s.%N)
            echo "$prog,$(rp_label "$hooks"),$round,$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')" >>"$CSV"
            RP_BUILD="$WORK/r$round" rp_clean "$prog" "$hooks"
        done
    done
done
python3 - "$CSV" "$RP_RUNS" "$(git -C "$RP_ROOT" describe --always --dirty 2>/dev/null || echo '?')" <<'PY' | tee "$TXT"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {}
for r in rows:
    med.setdefault((r["program"], r["hooks"]), []).append(float(r["seconds"]))
print("# tree at commit %s, %s rounds, interleaved; wall seconds of a build from scratch (median)" % (sys.argv[3], sys.argv[2]))
print("%-8s %-40s %9s %9s" % ("program", "hooks", "seconds", "x native"))
for (prog, hooks), secs in med.items():
    m, n = statistics.median(secs), statistics.median(med[(prog, "native")])
    print("%-8s %-40s %9.1f %9.2f" % (prog, hooks, m, m / n))
PY
