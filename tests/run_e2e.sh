#!/usr/bin/env bash
# run_e2e.sh — runs every end-to-end script tests/e2e/test_*.sh. Each script prints "ok NAME" or
# "FAIL NAME" per check (tests/e2e/lib.sh). A script that exits non-zero without printing a FAIL,
# or prints no check at all, counts as one failure. Closing line: "e2e: N passed, N failed".
#
# Scripts run HOTPROF_E2E_JOBS at a time (default: the number of CPUs; 1 runs them one by one in
# name order). Each has its own temp dir (lib.sh), so they share nothing but the built tree. A
# script whose checks depend on having the CPU to itself (wall-clock limits, timer samples per
# second, a terminal UI's timing) or that runs make in the tree says so with a line
# `# e2e: alone`; those run after the others, one at a time. A script's line is printed when it
# ends (its output too if it failed), so with several jobs the lines are in the order they end.
set -u
cd "$(dirname "$0")/.."
jobs=${HOTPROF_E2E_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) echo "run_e2e.sh: HOTPROF_E2E_JOBS must be a positive number" >&2; exit 2 ;; esac
out_dir=$(mktemp -d /tmp/hotprof-e2e-run.XXXXXX)
trap 'rm -rf "$out_dir"' EXIT
passed=0; failed=0
declare -A running=() # pid -> script

start_script() {
    local t=$1 name
    name=$(basename "$t" .sh)
    (
        start=$(date +%s)
        bash "$t" >"$out_dir/$name.out" 2>&1
        echo "$? $(($(date +%s) - start))" >"$out_dir/$name.status"
    ) &
    running[$!]=$t
}

# Tallies a finished script and prints its line.
finish_script() {
    local t=$1 name out p f rc secs
    name=$(basename "$t" .sh)
    out=$(cat "$out_dir/$name.out" 2>/dev/null)
    read -r rc secs <"$out_dir/$name.status" || { rc=255 secs=0; }
    p=$(printf '%s\n' "$out" | grep -c '^ok ')
    f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL $t exited $rc"; fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL $t checked nothing"; fi
    [ "$f" -ne 0 ] && printf '%s\n' "$out" | tail -n 60
    printf '%-40s %d passed, %d failed (%ds)\n' "$(basename "$t")" "$p" "$f" "$secs"
    passed=$((passed + p)); failed=$((failed + f))
}

# Waits for one running script to end and tallies it.
reap_one() {
    local pid=
    wait -n -p pid
    if [ -n "$pid" ] && [ -n "${running[$pid]:-}" ]; then
        finish_script "${running[$pid]}"
        unset "running[$pid]"
        return 0
    fi
    for pid in "${!running[@]}"; do # (wait named no script of ours: tally those that ended)
        kill -0 "$pid" 2>/dev/null && continue
        finish_script "${running[$pid]}"
        unset "running[$pid]"
    done
}

alone=()
for t in tests/e2e/test_*.sh; do
    [ -f "$t" ] || continue
    if grep -q '^# e2e: alone' "$t"; then alone+=("$t"); continue; fi
    while [ "${#running[@]}" -ge "$jobs" ]; do reap_one; done
    start_script "$t"
done
while [ "${#running[@]}" -gt 0 ]; do reap_one; done
for t in "${alone[@]}"; do
    start_script "$t"
    reap_one
done
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
