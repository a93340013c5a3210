#!/usr/bin/env bash
# test_patch.sh — patched bursts over the compiler's hook call sites (runtime/ctl/sites.c, bursts.c;
# the default bursty mode where hooks are patchable): between bursts every hook call site is
# `mov eax, imm32`, for a window of W units it is a call again (one opcode byte toggled: no trap,
# no signal handler). End to end:
#  (a) a real workload (bench/workloads/gametree.c, hook set blocks) at methods/callpairs S=999
#      B=1: output identical to the native (plain clang -O2) build's, exit 0, INFO mode=patch,
#      >= 5 bursts, sites found, recorded calls + back-edges == patch.sampled_entries;
#  (b) accuracy against an exhaustive run of the same binary: hotprof compare's "methods" overlap
#      >= 0.8 and the same hottest method;
#  (c) selection: HOTPROF_BURSTS=live / --bursts=live give the live HPS mode (mode=bursty),
#      HOTPROF_BURSTS=patch / --bursts=patch patch mode; HOTPROF_WINDOW sets the window; a bad
#      --bursts, or --bursts without bursty mode, is a usage error; a bad HOTPROF_BURSTS says so
#      and falls back to auto;
#  (d) threads: bench/workloads/mt_work.c, 3 runs: exit 0, the native output, a readable profile;
#  (e) SIGTRAP stays the program's (progs/patch_sigtrap.c): its own handler — installed in main
#      or before any constructor — sees exactly its own traps (int3 or raise) and the run goes on;
#      with no handler an int3 still kills it by SIGTRAP; threads with every signal blocked run as
#      unprofiled (the first design, an int3 protocol with a SIGTRAP handler, failed these);
#  (f) fork (progs/patch_fork.c): children run instrumented code while the parent patches;
#  (g) a functions-only build (--hooks=functions): patch mode over the enter/exit hook sites;
#  (g2) a program that exits while a window is open (progs/patch_short.c, HOTPROF_WINDOW huge):
#      the open window's units are counted in patch.sampled_entries like the closed ones;
#  (h) a memory build (--hooks=memory) sampling data streams: load/store hook sites patched, the
#      native output, hotprof report --streams works;
#  (i) run-time control (hotprof.h) from inside the program: disable, re-enable at a new period.
. "$(dirname "$0")/lib.sh"
unset HOTPROF_BURSTS HOTPROF_WINDOW
P="$ROOT/tests/e2e/progs"
W="$ROOT/bench/workloads"
cd "$T"
SAMPLE="--sample methods:period=999,burst=1 --sample callpairs:period=999,burst=1"

if ! command -v clang >/dev/null; then
    ok "patch: skipped (no clang)"
    exit 0
fi

# ival FILE KEY: the value of INFO key KEY in profile FILE (the last one written)
ival() { "$HP" info "$1" 2>/dev/null | awk -v k="$2" '$1 == k {v = $2} END {print v}'; }
# ge NAME VALUE MIN / gt NAME VALUE MIN
ge() { if [ -n "$2" ] && [ "$2" -ge "$3" ]; then ok "$1 ($2 >= $3)"; else fail "$1" "got '$2', want >= $3"; fi; }
gt() { if [ -n "$2" ] && [ "$2" -gt "$3" ]; then ok "$1 ($2 > $3)"; else fail "$1" "got '$2', want > $3"; fi; }
# same_output NAME GOT_FILE WANT_FILE
same_output() { if cmp -s "$2" "$3"; then ok "$1"; else fail "$1" "got '$(head -c 200 "$2" | tr '\n' '|')', want '$(head -c 200 "$3" | tr '\n' '|')'"; fi; }
# sum_is_sampled NAME FILE: recorded calls + back-edges == patch.sampled_entries (> 0)
sum_is_sampled() {
    local c b s
    c=$(ival "$2" total.calls) b=$(ival "$2" total.backedges) s=$(ival "$2" patch.sampled_entries)
    if [ -n "$c" ] && [ -n "$b" ] && [ "${s:-0}" -gt 0 ] && [ $((c + b)) = "$s" ]; then
        ok "$1 ($c calls + $b back-edges = $s)"
    else fail "$1" "calls '$c' + back-edges '$b' vs sampled_entries '$s'"; fi
}
# build NAME SRC [hotprof cc options...]: the hotprof build NAME and the native (clang -O2) NAME.nat
build() {
    local name=$1 src=$2; shift 2
    "$HP" cc "$@" -O2 -o "$name" "$src" -lm -lpthread && clang -O2 -o "$name.nat" "$src" -lm -lpthread
}
# patched_run LABEL PREFIX PROG ARG: PROG ARG in patch mode with $SAMPLE into PREFIX.data: exit 0,
# the native build's output, mode patch, call sites found, >= 5 bursts, units = recorded events.
patched_run() {
    local label=$1 prefix=$2 prog=$3 arg=$4
    "./$prog.nat" "$arg" >"$prefix.nat"
    "$HP" run -q $SAMPLE -o "$prefix.data" -- "./$prog" "$arg" >"$prefix.out"
    check_eq "$label: exit 0" "$?" 0
    same_output "$label: output = native build's" "$prefix.out" "$prefix.nat"
    check_eq "$label: INFO mode=patch" "$(ival "$prefix.data" mode)" patch
    gt "$label: call sites found" "$(ival "$prefix.data" patch.sites)" 0
    ge "$label: bursts" "$(ival "$prefix.data" patch.bursts)" 5
    sum_is_sampled "$label: recorded calls + back-edges = patch.sampled_entries" "$prefix.data"
}
# top1 JSON: the hottest method's name
top1() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["methods"][0]["function"])' "$1" 2>/dev/null; }

# ---- (a) gametree in patch mode
if build gametree "$W/gametree.c"; then
    patched_run gametree g gametree 9
    check_eq "gametree: window = HOTPROF_WINDOW default" "$(ival g.data patch.window)" 100

    # ---- (b) accuracy against the same binary, exhaustive
    HOTPROF_MODE=exhaustive "$HP" run -q -o gx.data -- ./gametree 9 >gx.out
    check_eq "gametree: exhaustive run exits 0" "$?" 0
    "$HP" run -q --sample methods:period=199,burst=1 --sample callpairs:period=199,burst=1 -o ga.data \
        -- ./gametree 9 >ga.out
    check_eq "accuracy: patch run (S=199) exits 0" "$?" 0
    ge "accuracy: bursts" "$(ival ga.data patch.bursts)" 10
    if "$HP" compare --format json ga.data gx.data >cmp.json 2>cmp.err; then
        ov=$(python3 -c 'import json; r=json.load(open("cmp.json"))
print(next(p["overlap"] for p in r["profiles"] if p["type"] == "methods"))' 2>&1)
        if python3 -c "import sys; sys.exit(0 if float('$ov') >= 0.8 else 1)" 2>/dev/null; then
            ok "accuracy: methods overlap $ov >= 0.8"
        else fail "accuracy: methods overlap" "'$ov' < 0.8"; fi
    else
        fail "accuracy: hotprof compare" "$(head -3 cmp.err)"
    fi
    "$HP" report --format json --top 0 ga.data >ga.json && "$HP" report --format json --top 0 gx.data >gx.json
    t1=$(top1 gx.json)
    if [ -n "$t1" ]; then check_eq "accuracy: hottest method = exhaustive's ($t1)" "$(top1 ga.json)" "$t1"
    else fail "accuracy: hottest method" "no method in the exhaustive report"; fi

    # ---- (c) choosing patch or live bursts
    HOTPROF_BURSTS=live "$HP" run -q $SAMPLE -o live1.data -- ./gametree 6 >/dev/null
    check_eq "HOTPROF_BURSTS=live: mode bursty" "$(ival live1.data mode)" bursty
    check_eq "HOTPROF_BURSTS=live: no patch.* keys" "$("$HP" info live1.data | grep -c 'patch\.')" 0
    "$HP" run -q --bursts=live $SAMPLE -o live2.data -- ./gametree 6 >/dev/null
    check_eq "--bursts=live: mode bursty" "$(ival live2.data mode)" bursty
    "$HP" run -q --bursts=patch $SAMPLE -o pat2.data -- ./gametree 6 >/dev/null
    check_eq "--bursts=patch: mode patch" "$(ival pat2.data mode)" patch
    HOTPROF_BURSTS=live "$HP" run -q --bursts=auto $SAMPLE -o auto.data -- ./gametree 6 >/dev/null
    check_eq "--bursts=auto overrides HOTPROF_BURSTS=live: mode patch" "$(ival auto.data mode)" patch
    check_fails_cleanly "--bursts=bogus: usage error" "live, patch, count or auto" \
        "$HP" run -q --bursts=bogus $SAMPLE -o bad.data -- ./gametree 6
    check_fails_cleanly "--bursts=patch with --mode exhaustive: usage error" "needs --mode bursty" \
        "$HP" run -q --bursts=patch --mode exhaustive -o bad.data -- ./gametree 6
    env -u HOTPROF_QUIET HOTPROF_MODE=bursty HOTPROF_SAMPLE="methods:period=999,burst=1" HOTPROF_BURSTS=bogus \
        HOTPROF_OUTPUT="$T/envbad.data" ./gametree 6 >envbad.out 2>envbad.err
    rc=$?
    check_eq "HOTPROF_BURSTS=bogus: the program runs" "$rc:$(cat envbad.out)" "0:$(./gametree.nat 6)"
    check_eq "HOTPROF_BURSTS=bogus: one message" "$(grep -c 'HOTPROF_BURSTS is live, patch, count or auto; using auto' envbad.err)" 1
    check_eq "HOTPROF_BURSTS=bogus: falls back to patch" "$(ival envbad.data mode)" patch
    HOTPROF_WINDOW=500 "$HP" run -q $SAMPLE -o win.data -- ./gametree 8 >/dev/null
    check_eq "HOTPROF_WINDOW=500: patch.window" "$(ival win.data patch.window)" 500
    b=$(ival win.data patch.bursts) s=$(ival win.data patch.sampled_entries)
    if [ "${b:-0}" -ge 1 ] && [ "${s:-0}" -gt $(( (b - 1) * 100 )) ] && [ "$s" -le $((b * 500)) ]; then
        ok "HOTPROF_WINDOW=500: $s units in $b windows of <= 500"
    else fail "HOTPROF_WINDOW=500: units per window" "$s units in $b windows"; fi
    sum_is_sampled "HOTPROF_WINDOW=500: recorded calls + back-edges = patch.sampled_entries" win.data
else
    fail "gametree: build"
fi

# ---- (d) threads
if build mt_work "$W/mt_work.c"; then
    ./mt_work.nat 300000 4 >mt.nat
    for i in 1 2 3; do
        "$HP" run -q $SAMPLE -o mt$i.data -- ./mt_work 300000 4 >mt$i.out 2>mt$i.err
        rc=$?
        if [ $rc = 0 ] && cmp -s mt$i.out mt.nat && "$HP" report mt$i.data >mt$i.rep 2>&1 && [ "$(ival mt$i.data mode)" = patch ]; then
            ok "mt_work run $i: exit 0, native output, profile reads back (mode patch, $(ival mt$i.data patch.bursts) bursts)"
        else
            fail "mt_work run $i" "exit $rc, output '$(head -c 120 mt$i.out | tr '\n' '|')', $(tail -n 2 mt$i.err mt$i.rep 2>/dev/null | tr '\n' ' ')"
        fi
    done
else
    fail "mt_work: build"
fi

# ---- (e) the program's own SIGTRAP
if build sigtrap "$P/patch_sigtrap.c"; then
    # 2 threads (main traps, a helper does not): both run through patched sites
    ./sigtrap.nat plain 15000 20 2 >st.nat
    for mode in siginfo plain raise early; do
        "$HP" run -q --sample methods:period=99,burst=1 -o st-$mode.data -- ./sigtrap $mode 15000 20 2 >st-$mode.out 2>st-$mode.err
        rc=$?
        if [ $rc = 0 ] && cmp -s st-$mode.out st.nat; then
            ok "sigtrap ($mode): the program's handler ran for its 20 traps only, exit 0"
        else
            fail "sigtrap ($mode)" "exit $rc, '$(head -c 120 st-$mode.out | tr '\n' '|')' $(grep -h 'killed' st-$mode.err)"
        fi
    done
    "$HP" run -q --sample methods:period=99,burst=1 -o st-none.data -- ./sigtrap none 15000 20 2 >st-none.out 2>/dev/null
    rc=$?
    if [ $rc = 133 ] && ! grep -q survived st-none.out; then ok "sigtrap (no handler): int3 still kills the program (exit 128+5)"
    else fail "sigtrap (no handler): int3 must kill by SIGTRAP" "exit $rc, output '$(head -c 80 st-none.out | tr '\n' '|')'"; fi
    ./sigtrap.nat masked 10000 0 2 >stm.nat
    for i in 1 2; do
        "$HP" run -q --sample methods:period=9,burst=1 -o st-masked$i.data -- ./sigtrap masked 10000 0 2 >st-masked$i.out 2>st-masked$i.err
        rc=$?
        if [ $rc = 0 ] && cmp -s st-masked$i.out stm.nat; then ok "sigtrap (all signals blocked, 2 threads) run $i: exit 0, native output"
        else fail "sigtrap (all signals blocked, 2 threads) run $i" "exit $rc $(grep -h 'killed' st-masked$i.err)"; fi
    done
else
    fail "sigtrap: build"
fi

# ---- (f) fork
if build fork "$P/patch_fork.c"; then
    ./fork.nat 1000 8 >fk.nat
    "$HP" run -q $SAMPLE -o fk.data -- ./fork 1000 8 >fk.out 2>fk.err
    check_eq "fork: parent exits 0" "$?" 0
    same_output "fork: children exit 0 with the right sums (native output)" fk.out fk.nat
    check "fork: the parent's profile reads back" "$HP" report fk.data
    check_eq "fork: mode patch" "$(ival fk.data mode)" patch
else
    fail "fork: build"
fi

# ---- (g) functions only
if build gametree_fn "$W/gametree.c" --hooks=functions; then
    patched_run "functions build" fn gametree_fn 9
else
    fail "functions build: build"
fi

# ---- (g2) a program that exits while a window is open: that window's units are in the profile
if "$HP" cc -O2 --hooks=functions -o short "$P/patch_short.c"; then
    HOTPROF_WINDOW=1000000000 "$HP" run -q --sample methods:period=999,burst=1 -o short.data -- ./short 10 >/dev/null
    sum_is_sampled "exit inside a window: recorded calls + back-edges = patch.sampled_entries" short.data
else
    fail "exit inside a window: build"
fi

# ---- (h) memory hooks, data streams
if build gametree_mem "$W/gametree.c" --hooks=memory; then
    ./gametree_mem.nat 8 >mem.nat
    "$HP" run -q --sample datastream:period=9900,burst=100 -o mem.data -- ./gametree_mem 8 >mem.out
    check_eq "memory build: exit 0" "$?" 0
    same_output "memory build: output = native build's" mem.out mem.nat
    check_eq "memory build: mode patch" "$(ival mem.data mode)" patch
    gt "memory build: load/store/block sites found" "$(ival mem.data patch.sites)" 0
    if "$HP" report --streams mem.data >mem.rep 2>mem.rerr; then
        ok "memory build: report --streams exits 0"
        n=$(sed -n 's/.* \([0-9][0-9]*\) sampled references in.*/\1/p' mem.rep | head -1)
        gt "memory build: sampled references traced" "${n:-0}" 0
    else
        fail "memory build: report --streams" "$(head -3 mem.rerr)"
    fi
else
    fail "memory build: build"
fi

# ---- (i) run-time control through hotprof.h (progs/bursty_ctl.c): methods at 1/100000, then
# disabled, then 1/10. Patched bursts re-read the configuration before each window, so the
# disabled phase records (almost) nothing and the 1/10 phase many more windows than the first
# (the first phase's off phase is ~100x longer; the 0.2 ms clamp bounds the last one).
if "$HP" cc -O2 -I"$ROOT/include" -o ctl "$P/bursty_ctl.c"; then
    "$HP" run -q --sample methods:period=99999,burst=1 -o ctl.data -- ./ctl 20000000 >ctl.out
    check_eq "api: exit 0, calls succeed" "$(head -1 ctl.out)" "api 0 0 0"
    calls_of() { "$HP" report --format json ctl.data | python3 -c "
import json, sys
m = {f['function']: f['calls'] for f in json.load(sys.stdin)['methods']}
print(m.get('$1', 0))"; }
    a=$(calls_of phase_a) b=$(calls_of phase_b) c=$(calls_of phase_c)
    ge "api: phase at 1/100000 sampled" "$a" 1
    if [ "$b" -le $(( (a + c) / 20 )) ]; then ok "api: disabled phase almost unsampled ($b of $((a + b + c)))";
    else fail "api: disabled phase" "$b sampled calls, a=$a c=$c"; fi
    if [ "$c" -ge $(( 3 * a )) ]; then ok "api: period 99999 -> 9 takes effect (phase_c $c >= 3 x phase_a $a)";
    else fail "api: period change" "phase_a $a, phase_c $c"; fi
else
    fail "api: build"
fi
