#!/usr/bin/env bash
# run_all.sh — the whole test suite, as `make check` runs it: unit tests (normal build), unit
# tests again under ASan+UBSan (build-san/), then end-to-end tests. Prints the grand total as the
# last line, "N passed, N failed", and exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
total_p=0; total_f=0
tally() { # parse the last "N passed, N failed" in $1
    local line; line=$(printf '%s\n' "$1" | grep -oE '[0-9]+ passed, [0-9]+ failed' | tail -n1)
    if [ -z "$line" ]; then total_f=$((total_f + 1)); return; fi
    total_p=$((total_p + ${line%% passed*})); local f=${line#*, }; total_f=$((total_f + ${f%% failed}))
}
echo "== unit tests"
out=$(tests/run_unit.sh build/tests); rc=$?; echo "$out"; tally "$out"; [ $rc -ne 0 ] && [ -z "$(printf '%s' "$out" | grep -E '[1-9][0-9]* failed')" ] && total_f=$((total_f+1))
if [ "${HOTPROF_SKIP_SAN:-0}" != 1 ]; then
    echo "== unit tests under ASan+UBSan"
    jobs=-j$(nproc 2>/dev/null || echo 1) # (under `make check`, its job slots instead)
    case "${MAKEFLAGS:-}" in *jobserver*) jobs= ;; esac
    if make -s $jobs SAN=1 B=build-san unit-bins >/dev/null; then
        out=$(ASAN_OPTIONS=detect_leaks=1 tests/run_unit.sh build-san/tests); echo "$out"; tally "$out"
    else
        echo "FAIL sanitizer build"; total_f=$((total_f + 1))
    fi
fi
echo "== end-to-end tests"
out=$(tests/run_e2e.sh); echo "$out"; tally "$out"
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
