#!/usr/bin/env bash
# run_unit.sh DIR — runs every unit-test binary in DIR (build/tests or build-san/tests), shows
# failures in full, and prints one closing line "N passed, N failed" summed over all binaries.
# A binary that crashes or prints no summary line counts as one failed test, and so does one
# that runs longer than 10 minutes (killed: a hung test must not hang CI; exit 124 or 137).
set -u
dir=${1:-build/tests}
passed=0; failed=0
for t in "$dir"/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    out=$(timeout -k 10 600 "$t" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "FAIL $name (exit $rc, no summary line)"
        failed=$((failed + 1)); continue
    fi
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed}
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
        printf '%s\n' "$out" | grep -vE '^ok ' | tail -n 40
        [ "$f" -eq 0 ] && failed=$((failed + 1))
    fi
    printf '%-28s %s\n' "$name" "$line"
done
echo "unit($dir): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
