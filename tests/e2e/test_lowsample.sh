#!/usr/bin/env bash
# test_lowsample.sh — the low-sample warning (analysis/lowsample.c, issue 14): a sampled run
# (patched bursts, live HPS counters, XRay) that recorded fewer than 1000 samples (calls +
# back-edges) gets one warning line at the end of `hotprof run` (not with -q), a WARNING line in
# the report header and an entry in the JSON report's "warnings"; a sampled run with plenty of
# samples and an exhaustive run get none. The warning's sample count is the profile's INFO
# total.calls + total.backedges.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
if ! command -v clang >/dev/null; then
    ok "lowsample: skipped (no clang)"
    exit 0
fi
cat >calls.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) void leaf(long i) { sink += i; }
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    for (long i = 0; i < n; i++) leaf(i);
    printf("ok %ld\n", n);
    return 0;
}
C
samples() { "$HP" info "$1" | awk '$1 == "total.calls" || $1 == "total.backedges" {s += $2} END {print s + 0}'; }
warned_run() { grep -c 'hotprof: warning: .*samples.*not meaningful' "$1"; }
warned_report() { "$HP" report --top 3 "$1" | grep -c '^  WARNING  only .* samples'; }
warned_json() { "$HP" report --format json --top 3 "$1" | python3 -c 'import json,sys
print(sum("not meaningful" in w for w in json.load(sys.stdin)["warnings"]))'; }

# expect NAME PROFILE RUN_STDERR WANT(0|1): the three places agree with WANT
expect() {
    check_eq "lowsample $1: run's last lines" "$(warned_run "$3")" "$4"
    check_eq "lowsample $1: report header" "$(warned_report "$2")" "$4"
    check_eq "lowsample $1: json warnings" "$(warned_json "$2")" "$4"
}

if "$HP" cc --hooks=functions -O2 -o calls calls.c; then
    "$HP" run --seed 1 --bursts patch --sample methods:period=999999,burst=1 -o few.data -- ./calls >few.out 2>few.err
    n=$(samples few.data)
    check "lowsample patch: few samples recorded ($n)" test "$n" -lt 1000
    expect "patch, $n samples" few.data few.err 1
    check "lowsample patch: the run line names the profile" grep -q "warning: $T/few.data: only $n samples" few.err

    "$HP" run --seed 1 --bursts live --sample methods:period=9,burst=1 -o many.data -- ./calls >many.out 2>many.err
    n=$(samples many.data)
    check "lowsample live: many samples recorded ($n)" test "$n" -ge 1000
    expect "live, $n samples" many.data many.err 0

    "$HP" run --seed 1 --bursts live --sample methods:period=99999,burst=1 -o livefew.data -- ./calls 20000 >lf.out 2>lf.err
    n=$(samples livefew.data)
    check "lowsample live: few samples recorded ($n)" test "$n" -lt 1000
    expect "live, $n samples" livefew.data lf.err 1

    "$HP" run -o exh.data -- ./calls 500 >exh.out 2>exh.err
    expect "exhaustive (500 calls)" exh.data exh.err 0

    "$HP" run -q --seed 1 --bursts patch --sample methods:period=999999,burst=1 -o quiet.data -- ./calls >q.out 2>q.err
    check_eq "lowsample -q: nothing on stderr" "$(cat q.err)" ""
    check_eq "lowsample -q: the report still warns" "$(warned_report quiet.data)" 1
else
    fail "lowsample: hotprof cc --hooks=functions calls.c"
fi

if "$HP" cc --hooks=xray -O2 -o calls_xray calls.c 2>xray_cc.err; then
    "$HP" run --seed 1 --sample methods:period=99900,burst=100 -o xray.data -- ./calls_xray >x.out 2>x.err
    n=$(samples xray.data)
    if [ "$n" -lt 1000 ]; then expect "xray, $n samples" xray.data x.err 1
    else check_eq "lowsample xray: $n samples, no warning" "$(warned_report xray.data)" 0; fi
else
    ok "lowsample xray: skipped (no XRay: $(head -n 1 xray_cc.err))"
fi
