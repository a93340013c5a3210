#!/usr/bin/env bash
# test_bench_shadow.sh — bench/shadow's table code and its cost probe, without running a benchmark:
#   - shadow.py and price.py pass their selftests (made-up numbers through the real table code);
#   - cow_cost.c builds -Werror clean and measures a fork and a copy-on-write fault on 4 MB: a
#     fault costs more than a plain write of the same page, and the fork takes some time;
#   - price.sh refuses an unknown option and a missing shadow.csv with one message, non-zero exit.
. "$(dirname "$0")/lib.sh"
B="$ROOT/bench/shadow"
check bench_shadow_selftest "$B/run.sh" --selftest
check bench_price_selftest "$B/price.sh" --selftest
check bench_cow_cost_builds cc -O2 -Wall -Wextra -Werror -o "$T/cow_cost" "$B/cow_cost.c"
line=$("$T/cow_cost" 4 3 2>&1)
val() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$line"; }
check bench_cow_fault_dearer_than_write python3 -c "import sys; sys.exit(not float('$(val fault_us)') * 1000 > float('$(val write_ns)') > 0)"
check bench_cow_fork_timed python3 -c "import sys; sys.exit(not float('$(val fork_us)') > 0)"
check bench_cow_cost_bad_args bash -c "! '$T/cow_cost' 0 2>/dev/null"
"$B/price.sh" --nope >"$T/p.out" 2>&1; rc=$?
check bench_price_unknown_option bash -c "[ $rc -ne 0 ] && grep -q \"unknown argument '--nope'\" '$T/p.out'"
"$B/price.sh" --shadow-csv "$T/none.csv" >"$T/p.out" 2>&1; rc=$?
check bench_price_no_csv bash -c "[ $rc -ne 0 ] && [ \$(wc -l <'$T/p.out') -eq 1 ] && grep -q 'run bench/shadow/run.sh first' '$T/p.out'"
