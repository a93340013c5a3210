#!/usr/bin/env bash
# test_shadow_coverage.sh — the dynamic coverage estimate of --mode shadow (INFO
# shadow.coverage_ppm, docs/shadow.md "Coverage") against the exact coverage: the shadows' events
# over an exhaustive run's calls + blocks on the same input. On two dual-all workloads of
# different event density (shadow_phases: two phases of ~0.7 and ~2.7 events per ns; shadow_sparse:
# ~0.12 per ns), with enough shadows to spread over the run (load 0.5, 20 ms slices), the estimate
# must be within a factor 2 of the exact figure on shadow_sparse, 4 on shadow_phases (the bounds
# below: count mode's cost in its dense phase is known too low; the old estimate from sampled gaps
# between hooks was 5-13x high there). Every shadow calibrated its native event rate (count mode's
# trampolines: shadow.calibrated = shadow.finished) and a density is reported. The same on
# --hooks=all builds, whose shadows count calls + blocks through a stub their hook call sites call
# (shadow_rate_sites.c; the old estimate there was 1.4-36x high), after recording: every shadow
# that reached its sample or slice calibrated. (test_shadow.sh: a program whose shadows end early
# at a write to shared memory keeps their profiles; calibrating first lost all of them.)
# e2e: alone (shadows run in wall-clock slices: another job's load changes what they sample)
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
if [ ! -f "$ROOT/build/lib/hotprof_dual.so" ]; then
    check_fails_cleanly "shadow_coverage: no plugin, one message" "needs the LLVM pass plugin" \
        "$HP" cc --hooks=dual-all -O2 -o ph "$P/shadow_phases.c"
    exit 0
fi
key() { "$HP" info "$1" | awk -v k="$2" '$1 == k {print $2}'; }
total() { "$HP" report --format json --top 1 "$1" | python3 -c "import json,sys; t=json.load(sys.stdin)['totals']; print(t['calls'] + t['blocks'])"; }

# shadow_run PROG ARGS...: a shadow run (sh_PROG.data)
shadow_run() {
    local prog=$1; shift
    nice -n 10 "$HP" run -q --mode shadow --load 0.5 --shadow-slice 20 --sample path --sample value:summary=tnv \
        -o "sh_$prog.data" -- "./$prog" "$@" >/dev/null
}
# ratio PROG TOTAL: the shadow run's coverage estimate over the exact coverage
ratio() {
    local ev est
    ev=$(key "sh_$1.data" shadow.events) est=$(key "sh_$1.data" shadow.coverage_ppm)
    python3 -c "import sys; ev, tot, est = map(float, sys.argv[1:]); print('%.2f' % (est / 1e6 / (ev / tot)) if ev and tot else 'nan')" \
        "${ev:-0}" "${2:-0}" "${est:-0}"
}
within() { python3 -c "import sys; r = float(sys.argv[1]); h = float(sys.argv[2]); sys.exit(0 if 1 / h <= r <= h else 1)" "$1" "$2"; }
# coverage NAME HOOKS BOUND PROG ARGS...: exhaustive reference, then a shadow run; checks that
# the ratio is within a factor BOUND.
# The estimate rests on the shadows' wall-clock rates, and single runs stray: on shadow_phases
# 2.07-2.60 in 8 of ~40 runs at 4e0f73e (two in a row in one clean-clone CI run), 3.38 once in
# 9 at dd94541 (before it), 1.28-1.83 otherwise. A ratio out of the bound gets up to two more
# shadow runs; every ratio is printed.
coverage() {
    local name=$1 hooks=$2 hi=$3 prog=$4; shift 4
    "$HP" cc --hooks="$hooks" -O2 -o "$prog" "$P/$prog.c" >cc.out 2>&1 || { fail "${name}_build" "$(tail -3 cc.out)"; return; }
    "$HP" run -q -o "ex_$prog.data" -- "./$prog" "$@" >/dev/null
    shadow_run "$prog" "$@"
    local tot r first="" retry
    tot=$(total "ex_$prog.data")
    r=$(ratio "$prog" "$tot")
    for retry in 1 2; do
        within "$r" "$hi" && break
        first="${first}run $retry: $r, "
        shadow_run "$prog" "$@"
        r=$(ratio "$prog" "$tot")
    done
    local ev fin cal
    ev=$(key "sh_$prog.data" shadow.events)
    fin=$(key "sh_$prog.data" shadow.finished) cal=$(key "sh_$prog.data" shadow.calibrated)
    check "${name}_shadows_recorded (events ${ev:-none})" test "${ev:-0}" -gt 0
    if [ "${hooks#dual}" != "$hooks" ]; then
        check_eq "${name}_every_shadow_calibrated" "${cal:-none}" "${fin:-0}"
    else # call sites calibrate after recording: shadows that ended otherwise (the program's exit) did not
        local ends=$(( $(key "sh_$prog.data" shadow.end.sample) + $(key "sh_$prog.data" shadow.end.slice) ))
        check "${name}_every_shadow_that_reached_its_sample_or_slice_calibrated ($cal of $ends, $fin finished)" \
            test "${cal:-0}" -ge "$ends" -a "${cal:-0}" -ge 1
    fi
    check "${name}_density_reported" test "$(key "sh_$prog.data" shadow.density_per_ms)" -gt 0
    check "${name}_estimate_within_${hi}x_of_exact (${first}estimate/exact $r)" within "$r" "$hi"
}

# Bounds. Dual code: 2, but 4 on shadow_phases, whose dense phase (~0.7 ns an event natively) runs
# count mode's trampolines ~0.3-1 ns an event in place where the probe loop measures 0.14-0.3, so
# its rate comes out low and the estimate high: 1.60-2.38 on an idle machine at a566551 (session
# 33), 2.57-3.40 in one clean-clone CI run. Call sites: 2.5 (measured 0.88-1.87: the stub's cost
# in dense code is known less well than a trampoline's).
coverage shadow_coverage_phases dual-all 4 shadow_phases 16000000
coverage shadow_coverage_sparse dual-all 2 shadow_sparse 4000000
# without two-version code: the call sites' stub counts (shadow_rate_sites.c)
coverage shadow_coverage_phases_all all 2.5 shadow_phases 16000000
coverage shadow_coverage_sparse_all all 2.5 shadow_sparse 4000000
