#!/usr/bin/env bash
# bench/fastpath/real_instr.sh - the real programs' dual builds in instructions: cachegrind counts
# every instruction a run executes, the same number in every run, where CPU time on this host
# moves by +-10% (bench/fastpath/real.sh). Per program (qjs, tcc, brotli; bench/lib/realprogs.sh
# builds them, checks their output and writes the --quick inputs: valgrind runs ~50x slower) and
# per hook set, instructions over native's:
#   off     HOTPROF_MODE=off: the switched-off floor
#   count   count-triggered bursts, methods and call pairs at period=999,burst=1, seed 1
# each beside the same build made by a baseline tree (another built hotprof, e.g. a git worktree
# of an older commit) when --baseline is given.
#
# Usage: bench/fastpath/real_instr.sh [--programs "qjs tcc brotli"]
#            [--hooks "dual-functions+count dual-blocks+count"] [--build-dir DIR]
#            [--baseline TREE] [--results DIR] [--name NAME]
#   --build-dir  scratch directory for the builds (default build/bench-realprogs; TREE's go to
#                DIR-base)
#   --name NAME  results in NAME.{txt,csv} (default fastpath_real_instr)
# Output: a table (stdout and NAME.txt) and NAME.csv:
#   program,hooks,mode,native_instr,instr,ratio,base_instr,base_ratio,text_ratio,base_text_ratio
# (a hook set's options are separated by ';' there: SET:OPT;OPT)
# (text: the binary's .text* over native's, the runtime included; the same in both modes)
set -euo pipefail
. "$(dirname "$0")/../lib/realprogs.sh"
RP_TAG=real-instr
usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
rp_parse "$@"
HOOKS="dual-functions+count dual-blocks+count"; BASELINE=""; NAME=fastpath_real_instr
set -- "${RP_REST[@]+"${RP_REST[@]}"}"
while [ $# -gt 0 ]; do
    case "$1" in
        --hooks) [ $# -ge 2 ] || rp_die "--hooks needs a list" 2; HOOKS=$2; shift ;;
        --baseline) [ -x "${2:-}/build/bin/hotprof" ] || rp_die "--baseline needs a built hotprof tree" 2
            BASELINE=$(cd "$2" && pwd); shift ;;
        --name) [ $# -ge 2 ] || rp_die "--name needs a value" 2; NAME=$2; shift ;;
        *) rp_die "unknown option '$1' (see --help)" 2 ;;
    esac
    shift
done
command -v valgrind >/dev/null || rp_die "valgrind is needed (apt-get install valgrind)"
rp_ensure_hotprof
rp_has_dual || rp_die "the dual plugin is not built (llvm-14-dev): nothing to measure"
WORK=$(mktemp -d /tmp/hotprof-real-instr.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
COUNT_ENV="HOTPROF_MODE=bursty HOTPROF_BURSTS=count HOTPROF_SEED=1"
COUNT_SAMPLE="methods:period=999,burst=1;callpairs:period=999,burst=1"

# manifest TREE DIR: the tree's builds of every program and hook set (quick inputs), one line each.
manifest() {
    HOTPROF_REALPROGS=$RP_SRC bash "$1/bench/lib/realprogs.sh" prepare --quick --programs "$RP_PROGRAMS" \
        --hooks "native $HOOKS" --build-dir "$2"
}

# instructions BINARY MODE ARGS: cachegrind's count for one run (ARGS: the manifest's argument
# string; @OUT: a scratch file).
instructions() {
    local bin=$1 mode=$2 args envs=(HOTPROF_QUIET=1 HOTPROF_OUTPUT=/dev/null)
    read -r -a args <<<"${3//@OUT/$WORK/out}"
    # a copy without debug info: valgrind 3.19 cannot read clang 14's for qjs (the code is the same)
    local copy; copy="$WORK/bin.$(printf '%s' "$bin" | md5sum | cut -c1-12)"
    [ -x "$copy" ] || strip -g -o "$copy" "$bin" || rp_die "cannot copy $bin"
    # shellcheck disable=SC2206
    if [ "$mode" = count ]; then envs+=($COUNT_ENV "HOTPROF_SAMPLE=$COUNT_SAMPLE"); else envs+=(HOTPROF_MODE=off); fi
    # cachegrind, not callgrind: callgrind's call stack grows per count-mode trampoline jump in a
    # loop that never returns (bench/lib/benchlib.py says why)
    env "${envs[@]}" valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$copy" "${args[@]}" \
        >/dev/null 2>"$WORK/cg.err" || rp_die "cachegrind failed on $bin: $(tail -3 "$WORK/cg.err")"
    awk '/I +refs:/ {gsub(",", "", $NF); print $NF}' "$WORK/cg.err"
}
# text_bytes BINARY: its .text* sections' bytes
text_bytes() { size -A "$1" | awk '$1 ~ /^\.text/ {s += $2} END {print s + 0}'; }

rp_log "builds of this tree"
manifest "$RP_ROOT" "$RP_BUILD" >"$WORK/new"
if [ -n "$BASELINE" ]; then rp_log "builds of $BASELINE"; manifest "$BASELINE" "$RP_BUILD-base" >"$WORK/base"; fi
CSV="$RP_RESULTS/$NAME.csv" TXT="$RP_RESULTS/$NAME.txt"
echo "program,hooks,mode,native_instr,instr,ratio,base_instr,base_ratio,text_ratio,base_text_ratio" >"$CSV"
for prog in $RP_PROGRAMS; do
    IFS=$'\t' read -r -a nat <<<"$(awk -F'\t' -v p="$prog" '$1 == p && $2 == "native"' "$WORK/new")"
    native=$(instructions "${nat[2]}" off "${nat[4]}") native_text=$(text_bytes "${nat[2]}")
    for hooks in $HOOKS; do
        IFS=$'\t' read -r -a row <<<"$(awk -F'\t' -v p="$prog" -v h="$hooks" '$1 == p && $2 == h' "$WORK/new")"
        base_row=()
        [ -z "$BASELINE" ] || IFS=$'\t' read -r -a base_row <<<"$(awk -F'\t' -v p="$prog" -v h="$hooks" '$1 == p && $2 == h' "$WORK/base")"
        text=$(text_bytes "${row[2]}") base_text=""
        [ ${#base_row[@]} -eq 0 ] || base_text=$(text_bytes "${base_row[2]}")
        for mode in off count; do
            rp_log "$prog $hooks $mode"
            n=$(instructions "${row[2]}" $mode "${row[4]}") b=""
            [ ${#base_row[@]} -eq 0 ] || b=$(instructions "${base_row[2]}" $mode "${base_row[4]}")
            awk -v p="$prog" -v h="$(rp_label "$hooks")" -v m="$mode" -v nat="$native" -v n="$n" -v b="$b" -v nt="$native_text" \
                -v t="$text" -v bt="$base_text" 'BEGIN {
                printf "%s,%s,%s,%d,%d,%.4f,%s,%s,%.3f,%s\n", p, h, m, nat, n, n / nat, b, (b == "" ? "" : sprintf("%.4f", b / nat)),
                    t / nt, (bt == "" ? "" : sprintf("%.3f", bt / nt)) }' >>"$CSV"
        done
    done
done
{
    echo "# tree at commit $(git -C "$RP_ROOT" describe --always --dirty 2>/dev/null || echo '?'), $(date -u +%Y-%m-%dT%H:%MZ)${BASELINE:+; base: $(git -C "$BASELINE" rev-parse --short HEAD 2>/dev/null || echo "$BASELINE")}"
    echo "instructions x native (cachegrind, --quick inputs); count: methods + call pairs at 999:1, seed 1"
    printf '%-8s %-40s %-6s %12s %8s %8s %8s %8s\n' program hooks mode native "x nat" "base" "text" "base"
    tail -n +2 "$CSV" | awk -F, '{ printf "%-8s %-40s %-6s %12d %8.3f %8s %8.2f %8s\n", $1, $2, $3, $4, $6,
        ($8 == "" ? "-" : sprintf("%.3f", $8)), $9, ($10 == "" ? "-" : sprintf("%.2f", $10)) }'
} | tee "$TXT"
