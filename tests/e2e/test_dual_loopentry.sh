#!/usr/bin/env bash
# test_dual_loopentry.sh — the loop-entry form with one clone per function (-hotprof-dual-loops=
# entry: plugin/dual_loops.cpp, docs/dual.md "Loop-entry form"). On progs/dual_loopentry.c (nested
# loops with values defined between them, loops in sequence, a long inner loop without calls),
# for dual-blocks and dual-functions:
#   - sites well-formed, nest/seq/deep each get exactly one loop-entry clone (check_dual_sites.py),
#     their only instrumented copy: whole calls enter it through an entry site inside F (no
#     F.hotprof), and its copy of F's entry block has the entry hook;
#   - with -hotprof-dual-latch-form=edge the clean functions load nothing from the stack on their
#     clean path that the native ones do not (clean_stack_loads.py), but one reload in nest (LSR's
#     choice: see there);
#   - same output as native switched off, exhaustive, in bursts and in count mode;
#   - exhaustive counts equal the plain blocks build's (calls, pairs, blocks, edges, back-edges);
#   - a burst started while the thread is deep in deep's inner loop reaches it at that loop's next
#     back-edge (deep runs once: back-edges are sampled, not only its 3 outer iterations);
#   - count mode (--bursts count, every latch a site): the recorded share is B/(B+S) within 10%,
#     also with inline count sites (--dual-sites=count);
#   - recomputed live-ins (-hotprof-dual-loop-recompute): fewer cold-block stores, same results;
#   - the way back (-hotprof-dual-loop-leave): the clone returns to F when a burst is over, also
#     when it was entered as a whole call (progs/dual_wayback.c counts its call site's changes),
#     but not into memory the clone allocated (alloca) or copied (byval); outputs as native; bad
#     values refused.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual loopentry: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
SRC="$P/dual_loopentry.c"
LOOPS=nest,seq,deep
ARGS=(300 1000)
ENTRY=(-mllvm -hotprof-dual-loops=entry -Wno-unused-command-line-argument)

clang -O2 -o native "$SRC" && ./native "${ARGS[@]}" >want.out || fail "native build"
"$HP" cc --hooks=blocks -O2 -o blocks "$SRC" && HOTPROF_OUTPUT=blocks.data ./blocks "${ARGS[@]}" >/dev/null &&
    "$HP" report --format json --top 0 blocks.data >blocks.json || fail "blocks build"

# stack_loads BINARY FUNCTION: loads from the stack (a %rsp/%rbp memory source operand, not lea)
# on FUNCTION's clean path (clean_stack_loads.py: the cold blocks, the way back's reload blocks and
# the clone are not on it)
stack_loads() { python3 "$ROOT/tests/e2e/clean_stack_loads.py" "$1" "$2"; }

json() { "$HP" report --format json --top 0 "$1" >"$2"; }
for hs in dual-blocks dual-functions; do
    b=entry.$hs
    # (dual-functions: its one-body form; its default, the wrapper form, has no loop clones)
    form=(); [ $hs = dual-functions ] && form=(-mllvm -hotprof-dual-functions-form=clone)
    "$HP" cc --hooks=$hs -O2 "${ENTRY[@]}" "${form[@]}" -o "$b" "$SRC" || { fail "$b: build"; continue; }
    python3 "$ROOT/tests/e2e/check_dual_sites.py" "$b" "$b" --loop-clones "$LOOPS" --one-clone
    n=$(nm "$b" | grep -c '\.hotprof\.loop')
    check_eq "$b: one loop-entry clone per function with loops" "$n" 3
    # ... and it is the only instrumented copy: whole calls enter it through an entry site in F
    # (check_dual_sites.py), and its copy of F's entry block calls the entry hook once
    for f in nest seq deep; do
        ent=$(objdump -d --no-show-raw-insn "$b" | awk -v c="<$f.hotprof.loop>:" '
            $2 == c {on = 1; next} /^$/ {on = 0}
            on && /call.*<__cyg_profile_func_enter/ {ent++}
            END {print ent + 0}')
        check_eq "$b: $f.hotprof.loop has the entry hook" "$ent" 1
    done
    # (the edge form: the top form's peeled first iterations of one-block loops can cost a reload
    # outside the inner loops, docs/dual.md; nest: one per outer iteration)
    "$HP" cc --hooks=$hs -O2 "${ENTRY[@]}" "${form[@]}" -mllvm -hotprof-dual-latch-form=edge -o "$b.edge" "$SRC" ||
        fail "$b.edge: build"
    for f in seq deep; do
        check_eq "$b latch-form=edge: clean $f loads from the stack no more than native" \
            "$(stack_loads "$b.edge" $f)" "$(stack_loads native $f)"
    done
    # nest: since the latch nops' landing blocks (the loops keep LoopSimplify form) the code
    # generator's LSR runs on its loops and, with the inner call loop's exit test in a block before
    # the latch, keeps one more induction variable than natively: t is reloaded there (no time
    # difference measured); more than that one reload is a regression
    ln=$(stack_loads "$b.edge" nest) nn=$(stack_loads native nest)
    if [ -n "$ln" ] && [ -n "$nn" ] && [ "$ln" -le $((nn + 1)) ]; then
        ok "$b latch-form=edge: clean nest loads from the stack at most once more than native ($ln, $nn)"
    else fail "$b latch-form=edge: clean nest stack loads" "got '$ln', native '$nn'"; fi
    HOTPROF_MODE=exhaustive HOTPROF_OUTPUT="$b.edge.data" "./$b.edge" "${ARGS[@]}" >"$b.edge.out"
    check_eq "$b latch-form=edge exhaustive: same output as native" "$(cat "$b.edge.out")" "$(cat want.out)"
    for mode in off exhaustive; do
        HOTPROF_MODE=$mode HOTPROF_OUTPUT="$b.$mode.data" "./$b" "${ARGS[@]}" >"$b.$mode.out"
        check_eq "$b $mode: same output as native" "$(cat "$b.$mode.out")" "$(cat want.out)"
    done
    if [ $hs = dual-blocks ]; then
        json "$b.exhaustive.data" "$b.ex.json" && python3 "$ROOT/tests/e2e/check_dual.py" blocks.json "$b.ex.json" "$b" --blocks
    fi

    # a burst reaches the long inner loop of deep (entered once, before any burst) at its back-edge
    HOTPROF_MODE=bursty HOTPROF_SAMPLE="methods:period=999,burst=1;callpairs:period=999,burst=1" \
        HOTPROF_OUTPUT="$b.deep.data" "./$b" 1 100000000 >"$b.deep.out"
    check_eq "$b deep bursty: same output as native" "$(cat "$b.deep.out")" "$(./native 1 100000000)"
    json "$b.deep.data" "$b.deep.json"
    python3 - "$b.deep.json" "$b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
be = {m["function"]: m["backedges"] for m in d["methods"]}
names = [m["function"] for m in d["methods"]] + [p["caller_function"] for p in d["call_pairs"]]
ok = be.get("deep", 0) >= 100 and not [n for n in names if ".hotprof" in n]
print(("ok" if ok else "FAIL") + " %s deep bursty: the inner loop reached through the loop-entry clone (%d back-edges sampled; names %s)"
      % (sys.argv[2], be.get("deep", 0), sorted(set(names))))
PY

    # count mode: every latch is a site, so the recorded share is the configured one
    HOTPROF_OUTPUT="$b.cex.data" "./$b" 3000 3000000 >/dev/null && json "$b.cex.data" "$b.cex.json"
    for sites in nop count; do
        c=$b.$sites
        if [ $sites = count ]; then
            "$HP" cc --hooks=$hs --dual-sites=count -O2 "${ENTRY[@]}" -o "$c" "$SRC" || { fail "$c: build"; continue; }
        else cp "$b" "$c"; fi
        "$HP" run -q --bursts count --sample methods:period=999,burst=1 -o "$c.c.data" -- "./$c" 3000 3000000 >"$c.c.out" ||
            { fail "$c count: run"; continue; }
        check_eq "$c count: same output as native" "$(cat "$c.c.out")" "$(./native 3000 3000000)"
        json "$c.c.data" "$c.c.json" && python3 "$ROOT/tests/e2e/check_dual_count.py" share "$b.cex.json" "$c.c.json" "$c 1/1000"
    done
done

# values the trampoline recomputes (address computations and casts of arguments, constants and
# crossing values) do not cross: fewer stores in the cold blocks than with
# -hotprof-dual-loop-recompute=off (without the way back, whose SSA repair in F makes the stored
# values merges), the same output and exhaustive counts as the blocks build
for r in on off; do
    "$HP" cc --hooks=dual-blocks -O2 "${ENTRY[@]}" -mllvm -hotprof-dual-loop-recompute=$r \
        -mllvm -hotprof-dual-loop-leave=off -S -emit-llvm \
        -fno-discard-value-names -o "rc.$r.ll" "$SRC" || fail "recompute=$r: IR build"
done
read -r ron aon <<<"$(awk -f "$ROOT/tests/e2e/dual_cold_stores.awk" rc.on.ll)"
read -r roff aoff <<<"$(awk -f "$ROOT/tests/e2e/dual_cold_stores.awk" rc.off.ll)"
if [ "${roff:-0}" -gt 0 ] && [ "${ron:-0}" -lt "$roff" ] && [ "${aon:-0}" -lt "${aoff:-0}" ]; then
    ok "recompute: the cold blocks store fewer values ($aon, of them $ron addresses/casts; off: $aoff, $roff)"
else fail "recompute: fewer cold-block stores" "on '$ron of $aon', off '$roff of $aoff'"; fi
"$HP" cc --hooks=dual-blocks -O2 "${ENTRY[@]}" -mllvm -hotprof-dual-loop-recompute=off -o rcoff "$SRC" ||
    fail "recompute=off: build"
check_eq "recompute=off exhaustive: same output as native" \
    "$(HOTPROF_MODE=exhaustive HOTPROF_OUTPUT=rcoff.data ./rcoff "${ARGS[@]}")" "$(cat want.out)"
json rcoff.data rcoff.json && python3 "$ROOT/tests/e2e/check_dual.py" blocks.json rcoff.json "recompute=off" --blocks
check_fails_cleanly "dual: bad -hotprof-dual-loop-recompute, one message" \
    "hotprof-dual-loop-recompute=maybe is not one of on\\|off" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-loop-recompute=maybe -c -o bad.o "$SRC"

# the way back (-hotprof-dual-loop-leave=on, the default): when a burst is over at a latch of the
# clone, it stores the header's values and returns to F, which reloads them and goes on at that
# header. progs/dual_wayback.c's probe counts the changes of its call site (clean run vs the
# clone): in count mode (7 800 000 events at 1/1000: ~7 800 bursts) two for a burst that runs
# probe from the clone, fewer since a burst is over at its own event (folded bursts,
# core/control/bursty.h; about two per burst before): 5 918-6 154 measured, at most one without
# the way back; outputs as native in both, and in patch mode
W="$P/dual_wayback.c"
clang -O2 -o wb.native "$W" && ./wb.native 3000000 >wb.want 2>/dev/null || fail "wayback: native build"
for lv in on off; do
    "$HP" cc --hooks=dual-blocks -O2 "${ENTRY[@]}" -mllvm -hotprof-dual-loop-leave=$lv -o "wb.$lv" "$W" ||
        { fail "wayback $lv: build"; continue; }
    for m in count patch; do
        "$HP" run -q --bursts $m --sample methods:period=999,burst=1 -o "wb.$lv.$m.data" -- "./wb.$lv" 3000000 \
            >"wb.$lv.$m.out" 2>"wb.$lv.$m.err" || { fail "wayback $lv $m: run"; continue; }
        check_eq "wayback $lv $m: same output as native" "$(cat "wb.$lv.$m.out")" "$(cat wb.want)"
    done
done
son=$(awk '$1 == "switches" {print $2}' wb.on.count.err) soff=$(awk '$1 == "switches" {print $2}' wb.off.count.err)
if [ "${son:-0}" -ge 3000 ] && [ "${soff:-9}" -le 1 ]; then
    ok "wayback count: the clone goes back to run at bursts' ends ($son call-site switches; without the way back $soff)"
else fail "wayback count: switches" "on '$son' (want >= 3000), off '$soff' (want <= 1)"; fi
# ... and from a whole call: with "main" the loop is main's, entered in the clone at the thread's
# first event (count mode's countdown is armed there), so it goes back through the whole-call entry
for lv in on off; do
    [ -x "wb.$lv" ] || continue
    "$HP" run -q --bursts count --sample methods:period=999,burst=1 -o "wbm.$lv.data" -- "./wb.$lv" 3000000 main \
        >"wbm.$lv.out" 2>"wbm.$lv.err" || { fail "wayback main $lv: run"; continue; }
    check_eq "wayback main $lv: same output as native" "$(cat "wbm.$lv.out")" "$(cat wb.want)"
done
son=$(awk '$1 == "switches" {print $2}' wbm.on.err) soff=$(awk '$1 == "switches" {print $2}' wbm.off.err)
if [ "${son:-0}" -ge 3000 ] && [ "${soff:-9}" -le 1 ]; then
    ok "wayback main: a whole call goes back to main's clean loop ($son call-site switches; without the way back $soff)"
else fail "wayback main: switches" "on '$son' (want >= 6000), off '$soff' (want <= 1)"; fi
# ... but never into memory that is gone or was a copy: a function whose alloca the clone made (a
# whole call) does not go back from it, and a byval argument is F's own memory in the clone (both
# lost sums before: qjs's JS_CallInternal, which allocas its frame, failed its own checks)
for w in alloca byval; do
    ./wb.native 300000 $w >"wb.$w.want" 2>/dev/null
    for m in count patch; do
        "$HP" run -q --bursts $m --sample methods:period=999,burst=1 -o "wb.$w.$m.data" -- ./wb.on 300000 $w \
            >"wb.$w.$m.out" 2>/dev/null || { fail "wayback $w $m: run"; continue; }
        check_eq "wayback $w $m: same output as native" "$(cat "wb.$w.$m.out")" "$(cat "wb.$w.want")"
    done
done
HOTPROF_MODE=exhaustive HOTPROF_OUTPUT=wb.ex.data ./wb.on 3000000 >wb.ex.out 2>/dev/null
check_eq "wayback exhaustive: same output as native" "$(cat wb.ex.out)" "$(cat wb.want)"
check_fails_cleanly "dual: bad -hotprof-dual-loop-leave, one message" \
    "hotprof-dual-loop-leave=maybe is not one of on\\|off" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-loop-leave=maybe -c -o bad.o "$SRC"
