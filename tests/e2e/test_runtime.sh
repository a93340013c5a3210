#!/usr/bin/env bash
# test_runtime.sh — the exhaustive runtime on programs that know what they did
# (tests/e2e/progs/*.c print "expect ..." lines): threads lose no event (4 long + 2 early-exiting
# threads), loop back-edges at -O0 and -O2, shared libraries (linked and dlopen'ed), and
# programs that die (SIGSEGV, SIGFPE, SIGABRT) still leave a readable profile with the counts
# recorded up to the crash; the exit status is propagated.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T"

# run_expect LABEL EXPECTED_STATUS PROG ARGS... : profile PROG, check status and its expectations
run_expect() {
    local label=$1 want_status=$2; shift 2
    "$HP" run -o "$label.data" -- "$@" >"$label.expect" 2>"$label.err"
    check_eq "$label: exit status propagated" "$?" "$want_status"
    if "$HP" report --format json --top 0 "$label.data" >"$label.json" 2>"$label.rerr"; then
        ok "$label: profile reads back"
        python3 "$ROOT/tests/e2e/check_expect.py" "$label.expect" "$label.json" "$label"
    else
        fail "$label: profile reads back" "$(head -3 "$label.rerr")"
    fi
}

"$HP" cc -O2 -o mt_calls "$P/mt_calls.c" -lpthread && run_expect threads 0 ./mt_calls 200000
# loops.c states back-edges for loops that are not unrolled (an unrolled loop takes fewer)
for o in -O0 -O2; do
    "$HP" cc $o -fno-unroll-loops -o loops$o "$P/loops.c" && run_expect "loops$o" 0 ./loops$o
done
"$HP" cc -O2 -o crash "$P/crash.c" && run_expect segv 139 ./crash
run_expect sigfpe 136 ./crash fpe
"$HP" cc -O2 -o abort_prog "$P/abort_prog.c" && run_expect abort 134 ./abort_prog
check "segv: report says the run crashed" grep -q '"signal": 11' segv.json

# shared libraries: dso_lib.c linked at build time and dlopen'ed as a plugin
if "$HP" cc -O2 -shared -fPIC -o libdso_lib.so "$P/dso_lib.c" &&
   "$HP" cc -O2 -shared -fPIC -DDSO_PLUGIN -o plugin.so "$P/dso_lib.c" &&
   "$HP" cc -O2 -o dso_main "$P/dso_main.c" -L. -ldso_lib -Wl,-rpath,"$T" -ldl; then
    run_expect dso 0 ./dso_main ./plugin.so
else
    fail "dso: build"
fi

# HOTPROF_SEED is parsed with the grammar of `run --seed` (issue 8, defect 8): a seed that is not
# a 64-bit unsigned number (text, a sign, an overflow) is one clear message on stderr, even when
# quiet, and no profile (the program runs normally), like a bad HOTPROF_SAMPLE; 0x hex still works.
if [ -x ./loops-O2 ]; then
    for s in abc -5 18446744073709551616 12abc; do
        rm -f seed.data
        HOTPROF_SEED=$s HOTPROF_OUTPUT=seed.data ./loops-O2 >seed.out 2>seed.err
        check_eq "seed '$s': the program runs normally" "$?" 0
        check_eq "seed '$s': one message on stderr" "$(grep -c "hotprof: bad HOTPROF_SEED: .*'$s'.*(not profiling)" seed.err)" 1
        check "seed '$s': no profile written" test ! -e seed.data
    done
    HOTPROF_SEED=0x10 HOTPROF_OUTPUT=seed.data ./loops-O2 >seed.out 2>seed.err
    check_eq "seed 0x10: accepted (INFO seed=16)" "$("$HP" info seed.data | awk '$1 == "seed" {print $2}' | head -1)" 16
else
    fail "seed: loops-O2 build"
fi
