#!/usr/bin/env bash
# test_layering.sh — the dependency rule of docs/architecture.md, checked on the sources and the
# built objects, so that an arrow pointing up fails the test run instead of a review:
#   - src/core includes only core headers and pure C headers (no system headers: no syscalls);
#   - core objects define no writable data (.data/.bss): no globals;
#   - runtime and analysis include core and themselves, never each other, never cli;
#   - nothing but cli includes cli; include/hotprof is the only public header directory;
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
includes_only layering_cli_top src/cli 'cli/|analysis/|core/|hotprof/' '[a-z0-9_/]+\.h'

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
