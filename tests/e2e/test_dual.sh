#!/usr/bin/env bash
# test_dual.sh — two-version code (hotprof cc --hooks=dual-*, plugin/hotprof_dual.cpp, docs/dual.md)
# in exhaustive mode: every site is switched to the instrumented copy at start, and the counts
# equal a plain --hooks=blocks build's (calls, call pairs, blocks, edges), except back-edges, which
# are loop latches only: progs/dual_loops.c has a loop-free function whose only backward jump goes
# to its shared return block (the address rule counts it, the dual build must not). Also: calls
# equal callgrind's on two workloads; a missing plugin or --calls=source is one clear message.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
W="$ROOT/bench/workloads"
cd "$T" || exit 1
if [ ! -f "$ROOT/build/lib/hotprof_dual.so" ]; then
    check_fails_cleanly "dual: no plugin, one message" "needs the LLVM pass plugin" \
        "$HP" cc --hooks=dual-blocks -O2 -c -o x.o "$P/dual_loops.c"
    exit 0
fi

report() { "$HP" report --format json --top 0 "$1" >"$2"; }
build_run() { # NAME HOOKS SRC ARGS...: build, exhaustive run, JSON report
    local name=$1 hooks=$2 src=$3; shift 3
    "$HP" cc --hooks="$hooks" -O2 -o "$name" "$src" -lm -lpthread || { fail "$name: build"; return 1; }
    HOTPROF_OUTPUT="$name.data" "./$name" "$@" >"$name.out" || { fail "$name: run"; return 1; }
    report "$name.data" "$name.json" || { fail "$name: report"; return 1; }
}

# the loop program: blocks vs dual-blocks, dual-functions, dual-memory
build_run loops.blocks blocks "$P/dual_loops.c" 200 &&
for hs in dual-blocks dual-memory; do
    build_run "loops.$hs" "$hs" "$P/dual_loops.c" 200 &&
        python3 "$ROOT/tests/e2e/check_dual.py" loops.blocks.json "loops.$hs.json" "loops $hs" --blocks --no-backedge shared_ret
    check_eq "loops $hs: same output" "$(cat "loops.$hs.out")" "$(cat loops.blocks.out)"
done
build_run loops.dual-functions dual-functions "$P/dual_loops.c" 200 &&
    python3 "$ROOT/tests/e2e/check_dual.py" loops.blocks.json loops.dual-functions.json "loops dual-functions" --no-backedge shared_ret

# workloads: dual-blocks vs blocks (calls, pairs, blocks, edges; back-edges may differ: printed)
for ws in fft:8 heapsort:20000 gametree:6 interp:2 compress:64; do
    w=${ws%%:*}; size=${ws#*:}
    build_run "$w.blocks" blocks "$W/$w.c" "$size" && build_run "$w.dual" dual-blocks "$W/$w.c" "$size" || continue
    python3 - "$w.blocks.json" "$w.dual.json" "$w" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
w = sys.argv[3]
ca = {r["function"]: r["calls"] for r in a["methods"]}; cb = {r["function"]: r["calls"] for r in b["methods"]}
ta, tb = a["totals"], b["totals"]
same = ca == cb and (ta["blocks"], ta["edges"], ta["calls"]) == (tb["blocks"], tb["edges"], tb["calls"])
print(("ok %s: dual-blocks calls, blocks, edges = blocks build's (back-edges %d address rule, %d latches)"
       if same else "FAIL %s: dual-blocks counts differ (back-edges %d, %d)") % (w, ta["backedges"], tb["backedges"]))
if not same:
    print("  calls", sorted(set(ca.items()) ^ set(cb.items()))[:6], "totals", ta, tb)
PY
    check_eq "$w: dual output = blocks output" "$(cat "$w.dual.out")" "$(cat "$w.blocks.out")"
done

# callgrind: dual-blocks call counts and pairs equal valgrind's on the native build
if command -v valgrind >/dev/null; then
    for ws in heapsort:20000 gametree:6; do
        w=${ws%%:*}; size=${ws#*:}
        clang -O2 -g -o "$w.native" "$W/$w.c" -lm -lpthread || { fail "$w: native build"; continue; }
        valgrind -q --tool=callgrind --callgrind-out-file="$w.cg" --compress-strings=no --compress-pos=no \
            --separate-recs=1 "./$w.native" "$size" >/dev/null 2>"$w.vg" || { fail "$w: callgrind"; continue; }
        nm --defined-only "$w.native" | awk '$2 ~ /^[tTwW]$/ {print $3}' >"$w.funcs"
        python3 "$ROOT/tests/e2e/compare_callgrind.py" "$w.cg" "$w.dual.json" "$w.funcs" "$w dual-blocks"
    done
fi

check_fails_cleanly "dual: --calls=source refused" "calls=source" \
    "$HP" cc --hooks=dual-blocks --calls=source -O2 -c -o x.o "$P/dual_loops.c"
check_fails_cleanly "dual: missing plugin, one message" "needs the LLVM pass plugin" \
    env HOTPROF_LIBDIR="$T" "$HP" cc --hooks=dual-blocks -O2 -c -o x.o "$P/dual_loops.c"

# bursts over dual sites: a loop entered before any burst is reached at its next back-edge
# (dual-functions: spin makes no call, so its latch's nop is the only way in; with
# --dual-latch=branch, the latch's own branch, pointed at the nop only while sites are on)
clang -O2 -o longloop.native "$P/dual_longloop.c"
for latch in branch site; do
    "$HP" cc --hooks=dual-functions --dual-latch=$latch -O2 -o longloop "$P/dual_longloop.c" || fail "longloop $latch: build"
    "$HP" run -q --bursts patch --sample methods:period=999,burst=1 -o ll.data -- ./longloop 200000000 >ll.out || fail "longloop $latch: bursty run"
    check_eq "longloop $latch bursty: same output as native" "$(cat ll.out)" "$(./longloop.native 200000000)"
    "$HP" report --format json --top 0 ll.data >ll.json
    python3 - ll.json "$latch" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
be = {m["function"]: m["backedges"] for m in d["methods"]}
ok = d["mode"] == "patch" and be.get("spin", 0) >= 100 and d["totals"]["backedges"] == be.get("spin", 0)
print(("ok" if ok else "FAIL") + " longloop %s bursty: bursts reached spin's loop at its back-edges (%d sampled, mode %s)"
      % (sys.argv[2], be.get("spin", 0), d["mode"]))
PY
done
HOTPROF_MODE=bursty HOTPROF_BURSTS=live HOTPROF_SAMPLE="methods:period=99,burst=1" HOTPROF_OUTPUT=ll-live.data ./longloop 2000000 >/dev/null
# live HPS counters: every latch execution is a boundary event (the loop may be unrolled: at least
# one per 8 iterations), and 1 in 100 of them is sampled
ev=$("$HP" info ll-live.data | awk '$1 ~ /events.methods$/ {print $2}')
sm=$("$HP" info ll-live.data | awk '$1 ~ /sampled.methods$/ {print $2}')
if [ -n "$ev" ] && [ -n "$sm" ] && [ "$ev" -ge 250000 ] && [ $((sm * 100)) -ge $((ev * 95 / 100)) ] && [ $((sm * 100)) -le $((ev * 105 / 100)) ]; then
    ok "longloop live bursty: latches drive the HPS counters ($sm of $ev back-edges sampled)"
else fail "longloop live bursty" "events '$ev', sampled '$sm'"; fi

# the default bursts of a dual build are count-triggered (--bursts auto, since session 37): the
# recorded share is B/(B+S) (patched windows, placed in time, recorded far less), the profile holds
# estimates (mode bursty), and the trampolines or entry pads were made; a build without
# two-version code keeps patched bursts
profile_mode() { "$HP" report --format json --top 0 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["mode"])'; }
"$HP" run -q --sample methods:period=99,burst=1 -o g-def.data -- ./gametree.dual 6 >g-def.out
check_eq "gametree dual-blocks, default bursts: same output" "$(cat g-def.out)" "$(cat gametree.blocks.out)"
check_eq "gametree dual-blocks, default bursts: count-triggered (mode bursty, trampolines made)" \
    "$(profile_mode g-def.data) $("$HP" info g-def.data |
        awk '$1 == "dual.count.trampolines" || $1 == "dual.count.entry_pads" {n += $2} END {print (n > 0)}')" "bursty 1"
ev=$("$HP" info g-def.data | awk '$1 ~ /^thread\.[0-9]+\.events\.methods$/ {e += $2} END {print e + 0}')
sm=$("$HP" info g-def.data | awk '$1 ~ /^thread\.[0-9]+\.sampled\.methods$/ {s += $2} END {print s + 0}')
if [ "$ev" -ge 100000 ] && [ $((sm * 100 * 10)) -ge $((ev * 9)) ] && [ $((sm * 100 * 10)) -le $((ev * 11)) ]; then
    ok "gametree dual-blocks, default bursts: recorded share $sm/$ev within 10% of 1/100"
else fail "gametree dual-blocks, default bursts: recorded share" "$sm of $ev events"; fi
"$HP" run -q --sample methods:period=99,burst=1 -o g-blk.data -- ./gametree.blocks 6 >/dev/null
check_eq "gametree blocks (no two-version code), default bursts: patched" "$(profile_mode g-blk.data)" patch

# bursts on a whole workload: same output, and the sampled methods look like the exhaustive ones
"$HP" run -q --bursts patch --sample methods:period=99,burst=1 --sample callpairs:period=99,burst=1 -o g-b.data -- ./gametree.dual 6 >g-b.out
check_eq "gametree dual-blocks bursty: same output" "$(cat g-b.out)" "$(cat gametree.blocks.out)"
"$HP" compare gametree.dual.data g-b.data >g-cmp.txt 2>&1
ov=$(awk '$1 == "methods" && $2 == "(heat)" {sub("%", "", $6); print int($6)}' g-cmp.txt)
if [ -n "$ov" ] && [ "$ov" -ge 70 ]; then ok "gametree dual-blocks bursty: methods overlap $ov% with exhaustive"
else fail "gametree dual-blocks bursty: methods overlap" "'$ov' ($(head -8 g-cmp.txt | tail -3))"; fi
# a window closes itself: the hook that takes its last unit switches the dual sites off, so the
# control thread wakes once per window (it woke twice: to open it and at its last unit)
wk=$("$HP" info g-b.data | awk '$1 == "patch.wakeups" {print $2}')
nb=$("$HP" info g-b.data | awk '$1 == "patch.bursts" {print $2}')
lim=$((${nb:-0} * 5 / 4 + 3))
if [ "${nb:-0}" -lt 20 ] || [ "${wk:-0}" -gt "$lim" ]; then # too few windows to judge (a loaded host
    # stretched the off phases: 2 windows in a clean-clone CI run), or more wake-ups than windows (a
    # loaded host: 49 for 33 windows in one clean-clone CI run beside two benchmarks): a second run,
    # on the next size (about twice the windows: 16 in a 2-job CI run at size 6 failed the check)
    "$HP" run -q --bursts patch --sample methods:period=99,burst=1 --sample callpairs:period=99,burst=1 -o g-b2.data -- ./gametree.dual 7 >/dev/null
    wk=$("$HP" info g-b2.data | awk '$1 == "patch.wakeups" {print $2}')
    nb=$("$HP" info g-b2.data | awk '$1 == "patch.bursts" {print $2}')
    lim=$((${nb:-0} * 5 / 4 + 3))
fi
if [ -n "$wk" ] && [ "${nb:-0}" -ge 20 ] && [ "$wk" -le "$lim" ]; then
    ok "gametree dual-blocks bursty: one wake-up per window ($wk for $nb windows)"
else fail "gametree dual-blocks bursty: wake-ups per window" "'$wk' wake-ups for '$nb' windows"; fi
cns=$("$HP" info g-b.data | awk '$1 == "patch.control_ns" {print $2}')
tns=$("$HP" info g-b.data | awk '$1 == "patch.total_ns" {print $2}')
if [ "${cns:-0}" -gt 0 ] && [ "$cns" -lt "${tns:-0}" ]; then ok "gametree dual-blocks bursty: control thread CPU ${cns} ns of ${tns}"
else fail "gametree dual-blocks bursty: patch.control_ns" "'$cns' of '$tns'"; fi
