#!/usr/bin/env bash
# test_interp_debian.sh — the value-sampling interpreter inside Debian's own binaries (gzip -9,
# bzip2 -9, xz -6 on the same 2 MB input; sqlite3 on a script of inserts and queries), loaded
# with LD_PRELOAD through a shared build of tests/e2e/test_interp_harness.c (standing in for
# --mode timer): the output is byte-identical and the exit status equal with values 16/1 (ool
# engine) and with the check engine, which finds zero mismatches. A binary that is not installed
# is skipped (said on stderr); at least one must be there.
. "$(dirname "$0")/lib.sh"
RT="$ROOT/build/lib"
gcc -std=gnu11 -O2 -shared -fPIC -I"$ROOT/include" -I"$ROOT/src" -o "$T/harness.so" \
    "$ROOT/tests/e2e/test_interp_harness.c" "$RT/libhotprof_rtparts.a" "$RT/libhotprof_core.a" -ldl -lm -lpthread ||
    { fail interp_debian_harness_built; exit 1; }
cat /usr/bin/* 2>/dev/null | head -c 2000000 >"$T/in.bin"
{
    echo "create table t(a integer, b text);"
    seq 1 30000 | awk '{ printf "insert into t values(%d, '"'"'row%d'"'"');\n", $1, $1 * 7919 % 1000 }'
    echo "create index tb on t(b);"
    echo "select count(*) from t x join t y on x.b = y.b where x.a < 3000;"
    echo "select count(*), sum(a), max(b) from t where b like 'row1%';"
    echo "select b, count(*) from t group by b order by 2 desc, 1 limit 5;"
} >"$T/script.sql"

ran=0
run() { # run NAME CMD...: stdin in.bin or the script; compares native, ool and check
    local name=$1; shift
    command -v "$1" >/dev/null || { echo "skip $name: $1 not installed" >&2; return; }
    ran=$((ran + 1))
    local in="$T/in.bin"; [ "$name" = sqlite3 ] && in="$T/script.sql"
    "$@" <"$in" >"$T/$name.native"; local want=$?
    for eng in ool check; do
        HP_INTERP="16/1 $eng 0 1000" HP_INTERP_OUT="$T/$name.$eng.txt" LD_PRELOAD="$T/harness.so" "$@" <"$in" >"$T/$name.$eng"
        local got=$?
        check_eq "interp_${eng}_debian_${name}_status" "$got" "$want"
        check "interp_${eng}_debian_${name}_output_identical" cmp "$T/$name.native" "$T/$name.$eng"
    done
    local mm ci
    mm=$(sed -n 's/^I values.check.mismatch=//p' "$T/$name.check.txt")
    ci=$(sed -n 's/^I values.check.insns=//p' "$T/$name.check.txt")
    check_eq "interp_check_debian_${name}_no_mismatch (${ci:-0} checked)" "${mm:-missing}" 0
}
run gzip gzip -9 -c
run bzip2 bzip2 -9 -c
run xz xz -6 -c
run sqlite3 sqlite3 :memory:
check "interp_debian_some_binary_present" test "$ran" -ge 1
