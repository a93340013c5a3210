#!/usr/bin/env bash
# test_shadow_coverage.sh — the dynamic coverage estimate of --mode shadow (INFO
# shadow.coverage_ppm, docs/shadow.md "Coverage") against the exact coverage: the shadows' events
# over an exhaustive run's calls + blocks on the same input. On two dual-all workloads of
# different event density (shadow_phases: two phases of ~0.7 and ~2.7 events per ns; shadow_sparse:
# ~0.12 per ns), with enough shadows to spread over the run (load 0.5, 20 ms slices), the estimate
# must be within a factor 2 of the exact figure (the old estimate from sampled gaps between hooks
# was 5-13x high on shadow_phases). Every shadow calibrated its native event rate (count mode's
# trampolines: shadow.calibrated = shadow.finished) and a density is reported.
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

# coverage NAME PROG ARGS...: exhaustive reference, then a shadow run; checks the ratio
coverage() {
    local name=$1 prog=$2; shift 2
    "$HP" cc --hooks=dual-all -O2 -o "$prog" "$P/$prog.c" >cc.out 2>&1 || { fail "${name}_build" "$(tail -3 cc.out)"; return; }
    "$HP" run -q -o "ex_$prog.data" -- "./$prog" "$@" >/dev/null
    nice -n 10 "$HP" run -q --mode shadow --load 0.5 --shadow-slice 20 --sample path --sample value:summary=tnv \
        -o "sh_$prog.data" -- "./$prog" "$@" >/dev/null
    local ev tot est fin cal
    ev=$(key "sh_$prog.data" shadow.events) tot=$(total "ex_$prog.data") est=$(key "sh_$prog.data" shadow.coverage_ppm)
    fin=$(key "sh_$prog.data" shadow.finished) cal=$(key "sh_$prog.data" shadow.calibrated)
    check "${name}_shadows_recorded (events ${ev:-none})" test "${ev:-0}" -gt 0
    check_eq "${name}_every_shadow_calibrated" "${cal:-none}" "${fin:-0}"
    check "${name}_density_reported" test "$(key "sh_$prog.data" shadow.density_per_ms)" -gt 0
    local ratio
    ratio=$(python3 -c "import sys; ev, tot, est = map(float, sys.argv[1:]); print('%.2f' % (est / 1e6 / (ev / tot)) if ev and tot else 'nan')" \
        "${ev:-0}" "${tot:-0}" "${est:-0}")
    check "${name}_estimate_within_2x_of_exact (estimate/exact $ratio)" \
        python3 -c "import sys; r = float(sys.argv[1]); sys.exit(0 if 0.5 <= r <= 2 else 1)" "$ratio"
}

coverage shadow_coverage_phases shadow_phases 16000000
coverage shadow_coverage_sparse shadow_sparse 4000000
