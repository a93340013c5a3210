#!/usr/bin/env bash
# run_e2e.sh — runs every end-to-end script tests/e2e/test_*.sh. Each script prints "ok NAME" or
# "FAIL NAME" per check (tests/e2e/lib.sh). A script that exits non-zero without printing a FAIL,
# or prints no check at all, counts as one failure. Closing line: "e2e: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
passed=0; failed=0
for t in tests/e2e/test_*.sh; do
    [ -f "$t" ] || continue
    start=$(date +%s)
    out=$(bash "$t" 2>&1); rc=$?
    p=$(printf '%s\n' "$out" | grep -c '^ok ')
    f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL $t exited $rc"; fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL $t checked nothing"; fi
    [ "$f" -ne 0 ] && printf '%s\n' "$out" | tail -n 60
    printf '%-40s %d passed, %d failed (%ds)\n' "$(basename "$t")" "$p" "$f" $(( $(date +%s) - start ))
    passed=$((passed + p)); failed=$((failed + f))
done
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
