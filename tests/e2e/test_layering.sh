#!/usr/bin/env bash
# test_layering.sh — the dependency rule of docs/architecture.md, checked on the sources and the
# built objects, so that an arrow pointing up fails the test run instead of a review:
#   - src/core includes only core headers and pure C headers (no system headers: no syscalls);
#   - core objects define no writable data (.data/.bss): no globals;
#   - runtime and analysis include core and themselves, never each other, never cli; sim
#     (design-space tools on traces) includes core and itself; cli may include sim;
#   - nothing but cli includes cli; include/hotprof is the only public header directory;
#   - inside the runtime (docs/runtime.md, Sources): a file includes only runtime headers of its
#     own level or below, base < config < tab, thread, blockmap, blockra, modules < ctl/ < pt/ <
#     writer, live < init, api < hooks; the one exception is thread.c -> init.h (hp_rt_ensure_init on a thread's
#     first event); only init.c, api.c and thread.c include init.h; only base.o defines a writable
#     process global (hp_g; thread.o's hp_tls, hp_dual_countdown and hp_dual_synced are per thread, pt/'s descriptors are const tables);
#   - every source and header file opens with a comment saying what it holds.
# A rule that is broken prints each offending line.
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1

# includes NAME DIR ALLOWED_QUOTED_PREFIX_REGEX ALLOWED_SYSTEM_REGEX
includes_only() {
    local name=$1 dir=$2 quoted=$3 system=$4 bad
    bad=$(grep -rnE '^[[:space:]]*#[[:space:]]*include' "$dir" --include='*.c' --include='*.h' |
        grep -vE "#[[:space:]]*include[[:space:]]+\"($quoted)" |
        grep -vE "#[[:space:]]*include[[:space:]]+<($system)>" || true)
    if [ -z "$bad" ]; then ok "$name"; else fail "$name" "$(printf '%s\n' "$bad" | head -n 5)"; fi
}

includes_only layering_core_is_pure src/core 'core/' 'stddef\.h|stdint\.h|string\.h|math\.h|stdio\.h|stdatomic\.h|limits\.h|stdbool\.h'
includes_only layering_runtime_down src/runtime 'runtime/|core/|hotprof/' '[a-z0-9_/]+\.h'
includes_only layering_analysis_down src/analysis 'analysis/|core/|hotprof/' '[a-z0-9_/]+\.h'
includes_only layering_sim_down src/sim 'sim/|core/' '[a-z0-9_/]+\.h'
includes_only layering_cli_top src/cli 'cli/|analysis/|sim/|core/|hotprof/' '[a-z0-9_/]+\.h'

# No global state in core: no symbol in a writable data section of any core object.
core_lib="$ROOT/build/lib/libhotprof_core.a"
if [ -f "$core_lib" ]; then
    writable=$(objdump -t "$core_lib" | awk '/^[0-9a-f]+ / && ($4 == ".data" || $4 == ".bss" || $4 ~ /^\.(data|bss)\.[^r]/) {print $NF}')
    check_eq layering_core_has_no_globals "$writable" ""
else
    fail layering_core_has_no_globals "$core_lib not built"
fi

# Every file says what it holds: the first line is a comment naming the file.
missing=""
for f in $(find src include -name '*.c' -o -name '*.h'); do
    head -n 1 "$f" | grep -qE '^/\* *[A-Za-z0-9_./-]+ +(—|-)' || missing="$missing $f"
done
check_eq layering_every_file_has_a_header_comment "${missing# }" ""

# ---- inside the runtime
cd "$ROOT/src/runtime" || exit 1
level() {
    case $1 in
        base.*) echo 0 ;; config.*) echo 1 ;;
        tab.* | thread.* | blockmap.* | blockra.* | modules.*) echo 2 ;;
        ctl/*) echo 3 ;; pt/*) echo 4 ;; writer.* | live.*) echo 5 ;;
        init.* | api.*) echo 6 ;; hooks*) echo 7 ;;
        *) echo 99 ;;
    esac
}

bad=""
for f in $(find . -name '*.[ch]' | sed 's|^\./||' | sort); do
    lf=$(level "$f")
    [ "$lf" = 99 ] && bad="$bad $f(no level)"
    for inc in $(sed -n 's|^#include "runtime/\(.*\)"|\1|p' "$f"); do
        li=$(level "$inc")
        [ "$f" = thread.c ] && [ "$inc" = init.h ] && continue
        [ "$li" -le "$lf" ] || bad="$bad $f->$inc"
    done
done
check_eq "layers: every runtime include points down (or within a level)" "${bad# }" ""

users=$(grep -rl '#include "runtime/init.h"' . | sed 's|^\./||' | sort | tr '\n' ' ')
check_eq "layers: only init.c, api.c and thread.c include init.h" "$users" "api.c init.c thread.c "

globals=""
for src in $(find . -name '*.c' | sed 's|^\./||' | sort); do
    o="$ROOT/build/src/runtime/${src%.c}.o" # objects of today's sources only (not stale ones)
    [ -f "$o" ] || { globals="$globals $src(not built)"; continue; }
    for s in $(nm "$o" | awk '$2 ~ /^[BDCGSV]$/ {print $3}'); do
        case "$(basename "$o"):$s" in
            base.o:hp_g | thread.o:hp_tls | thread.o:hp_in_runtime | thread.o:hp_dual_countdown | thread.o:hp_dual_synced | registry.o:hp_rt_ptypes | *.o:hp_pt_*) ;;
            *) globals="$globals $(basename "$o"):$s" ;;
        esac
    done
done
check_eq "layers: only base.c defines process globals" "${globals# }" ""
