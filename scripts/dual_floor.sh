#!/usr/bin/env bash
# dual_floor.sh — the switched-off floor and code size of two-version code (docs/dual.md,
# "Measured"): a quick sanity table, not a benchmark. For each workload of bench/workloads it
# builds native (clang -O2) and each dual variant, runs every binary ROUNDS times interleaved
# (HOTPROF_MODE=off: no site is ever switched, the program runs its clean code only), and prints
# the best CPU time (user + sys) and its ratio to native, plus code size from the program's own
# object file (the runtime excluded): all text (.text + .text.unlikely) and the hot part (.text).
#
# usage: scripts/dual_floor.sh [-r ROUNDS] [-w "gametree compress heapsort"] [VARIANT...]
#   VARIANT is NAME=HOOKS[:MLLVM-OPTION,...], e.g. outer=dual-blocks:-hotprof-dual-latch-sites=outer
#   (default: dual-blocks and dual-functions with the plugin's defaults).
# Runs under nice; uses build/bin/hotprof of this checkout; writes only into a temporary directory.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HP="$ROOT/build/bin/hotprof"
# the floor of nop sites, which switch off (count sites, hotprof cc's default for dual-functions and
# dual-blocks since session 39, keep their decrement switched off: HOTPROF_DUAL_SITES=count for those)
export HOTPROF_DUAL_SITES=${HOTPROF_DUAL_SITES:-nop}
ROUNDS=5
WORKLOADS="gametree compress heapsort"
while getopts "r:w:" o; do
    case $o in
    r) ROUNDS=$OPTARG ;;
    w) WORKLOADS=$OPTARG ;;
    *) echo "usage: $0 [-r ROUNDS] [-w WORKLOADS] [NAME=HOOKS[:OPT,...]]..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=(dual-blocks=dual-blocks dual-functions=dual-functions)
[ -x "$HP" ] || { echo "dual_floor.sh: build hotprof first (make): no $HP" >&2; exit 1; }
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { echo "dual_floor.sh: no plugin build/lib/hotprof_dual.so" >&2; exit 1; }
case $ROUNDS in '' | *[!0-9]* | 0) echo "dual_floor.sh: -r needs a positive number" >&2; exit 2 ;; esac
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# build NAME SRC HOOKS OPTS: NAME.o (for sizes) and the program NAME
build() {
    local name=$1 src=$2 hooks=$3 opts=$4 cc=(clang) m=()
    if [ "$hooks" != native ]; then
        cc=("$HP" cc --hooks="$hooks")
        local IFS=,
        for x in $opts; do m+=(-mllvm "$x"); done
    fi
    "${cc[@]}" "${m[@]}" -O2 -c -o "$T/$name.o" "$src" && "${cc[@]}" -O2 -o "$T/$name" "$T/$name.o" -Wno-unused-command-line-argument -lm -lpthread
}

# text_kb OBJ: "all hot" in KB (sections .text* of the object)
text_kb() {
    size -A "$1" | awk '$1 ~ /^\.text/ {all += $2; if ($1 == ".text") hot += $2}
                        END {printf "%.1f %.1f", all / 1024, hot / 1024}'
}

cpu() { # cpu PROG: user + sys seconds of one run
    local TIMEFORMAT=%U+%S t
    t=$( { time HOTPROF_MODE=off HOTPROF_OUTPUT=/dev/null "$1" >/dev/null 2>&1; } 2>&1 )
    echo "$t" | awk -F+ '{printf "%.3f", $1 + $2}'
}

printf "%-10s %-16s %8s %7s %9s %9s %7s\n" program build "cpu s" "x" "text KB" "hot KB" "text x"
for w in $WORKLOADS; do
    src="$ROOT/bench/workloads/$w.c"
    [ -f "$src" ] || { echo "dual_floor.sh: no workload $w" >&2; exit 1; }
    names=(native)
    build native "$src" native "" || exit 1
    for v in "${VARIANTS[@]}"; do
        name=${v%%=*}; spec=${v#*=}; hooks=${spec%%:*}; opts=""
        [ "$spec" != "$hooks" ] && opts=${spec#*:}
        build "$name" "$src" "$hooks" "$opts" || { echo "dual_floor.sh: build of $name failed" >&2; exit 1; }
        names+=("$name")
    done
    declare -A best=()
    for ((r = 0; r < ROUNDS; r++)); do
        for n in "${names[@]}"; do
            t=$(nice -n 10 bash -c "$(declare -f cpu); cpu '$T/$n'")
            if [ -z "${best[$n]:-}" ] || awk -v a="$t" -v b="${best[$n]}" 'BEGIN {exit !(a < b)}'; then best[$n]=$t; fi
        done
    done
    read -r nat_all _ <<<"$(text_kb "$T/native.o")"
    for n in "${names[@]}"; do
        read -r all hot <<<"$(text_kb "$T/$n.o")"
        awk -v w="$w" -v n="$n" -v t="${best[$n]}" -v t0="${best[native]}" -v a="$all" -v h="$hot" -v a0="$nat_all" \
            'BEGIN {printf "%-10s %-16s %8.3f %6.3fx %9.1f %9.1f %6.2fx\n", w, n, t, t / t0, a, h, a / a0}'
    done
    unset best
done
