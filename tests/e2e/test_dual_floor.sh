#!/usr/bin/env bash
# test_dual_floor.sh — the switched-off floor of two-version code (plugin/hotprof_dual.cpp,
# docs/dual.md "Where the floor comes from"). On progs/dual_floor_lsr.c (a strided loop), from
# clang's -print-after=loop-reduce dump (check_lsr.py: loops shown, loops with a pointer induction
# variable): natively the code generator's loop strength reduction reduces every loop of walk;
# with -hotprof-dual-site-exits=dedicated it does so in the clean copy of a one-body function too
# (dual-functions and dual-blocks); with the default (shared: the latch nop's label is the
# instrumented back-edge block, a non-dedicated loop exit) it does not (the check can fail, and
# says so if that ever changes). The nop of a one-block loop sits at the loop's top (default
# -hotprof-dual-latch-form=top, check_site_jmp.py): it falls through into the body, where the edge
# form's site block ends in a jmp back to the header. Also: same output as native in every layout
# (shared, dedicated and kept site exits, the edge form, the rejoin copy for every function:
# -hotprof-dual-rejoin-all=on; switched off and exhaustive), the same back-edge count as the edge form, sites well-formed, a
# bad option value is one clear message. Both sets are checked in their one-body forms
# (-hotprof-dual-loops=inline, dual-blocks' default; dual-functions also with
# -hotprof-dual-functions-form=clone) above; the loop-entry form (-hotprof-dual-loops=entry) has
# LSR reduce every loop of walk; dual-functions' default, the wrapper form (F keeps the optimizer's
# code, its latches get clean sites, F.hotprof is a wrapper): LSR reduces every loop of walk, the
# one-block loops' nops sit at the top (peeled), and in the edge form (unpeeled, as a multi-block
# loop: the nop's fall-through is a landing block before the header, so the loop keeps LoopSimplify
# form), the edge form's back-edge count, every function a wrapper clone, the same output, smaller
# code than the one-body form.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
# the layouts checked here are the plugin's own: the latch sites as it lays them out (the default
# --dual-latch=branch moves the branches around them in the assembly: test_dual_latch_branch.sh)
export HOTPROF_DUAL_LATCH=site
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual floor: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
SRC="$P/dual_floor_lsr.c"
DUMP=(-mllvm -print-after=loop-reduce -mllvm -filter-print-funcs=walk)

# lsr NAME CC-ARGS...: "LOOPS REDUCED" of walk when compiled with CC-ARGS
lsr() {
    local name=$1; shift
    "$@" -O2 -S -o /dev/null "${DUMP[@]}" "$SRC" 2>"$name.ir" || { echo "compile-error"; return; }
    python3 "$ROOT/tests/e2e/check_lsr.py" "$name.ir"
}

read -r nl nr <<<"$(lsr native clang)"
if [ "${nl:-0}" -gt 0 ] && [ "$nl" = "$nr" ]; then ok "native: LSR reduces all $nl loops of walk"
else fail "native: LSR dump" "loops '$nl', reduced '$nr' (clang 14 dump format changed?)"; fi

clang -O2 -o native "$SRC" && ./native 100000 >want.out || fail "native build"

# build_check NAME CLONES CC-ARGS...: build NAME, check its sites (CLONES: the functions with a
# separate clone), and its output switched off and exhaustive
build_check() {
    local name=$1 clones=$2; shift 2
    "$HP" cc "$@" -O2 -o "$name" "$SRC" -Wno-unused-command-line-argument || { fail "$name: build"; return; }
    python3 "$ROOT/tests/e2e/check_dual_sites.py" "$name" "$name" --clones "$clones" --loop-clones ""
    for mode in off exhaustive; do
        HOTPROF_MODE=$mode HOTPROF_OUTPUT="$name.$mode.data" "./$name" 100000 >"$name.$mode.out"
        check_eq "$name $mode: same output as native" "$(cat "$name.$mode.out")" "$(cat want.out)"
    done
}
for hooks in dual-functions dual-blocks; do
    # (the one-body form: dual-blocks' default, and dual-functions' with -hotprof-dual-functions-form=clone)
    form=(-mllvm -hotprof-dual-loops=inline -Wno-unused-command-line-argument)
    [ $hooks = dual-functions ] && form+=(-mllvm -hotprof-dual-functions-form=clone)
    read -r l r <<<"$(lsr "$hooks.dedicated" "$HP" cc --hooks=$hooks "${form[@]}" -mllvm -hotprof-dual-site-exits=dedicated)"
    check_eq "$hooks site-exits=dedicated: LSR reduces every clean loop of walk (loops, reduced)" "$l $r" "$nl $nl"
    read -r l r <<<"$(lsr "$hooks.default" "$HP" cc --hooks=$hooks "${form[@]}")"
    if [ "${l:-0}" -gt 0 ] && [ "${r:-0}" -lt "$l" ]; then
        ok "$hooks default (site-exits=shared): LSR skips the clean loops ($r of $l reduced), as documented"
    else fail "$hooks default: expected loops LSR skips (docs/dual.md is out of date?)" "loops '$l', reduced '$r'"; fi
    for variant in shared dedicated kept edge rejoin; do
        name=$hooks-$variant
        case $variant in
            edge) opt=-hotprof-dual-latch-form=edge ;;
            rejoin) opt=-hotprof-dual-rejoin-all=on ;; # (a third copy that a finished burst leaves to)
            *) opt=-hotprof-dual-site-exits=$variant ;;
        esac
        build_check "$name" "" --hooks=$hooks "${form[@]}" -mllvm $opt
    done
    read -r j f <<<"$(python3 "$ROOT/tests/e2e/check_site_jmp.py" "$hooks-shared" walk)"
    check_eq "$hooks default: walk's one-block loops have their nop at the top (sites followed by jmp, by the body)" \
        "$j $f" "0 $nl"
    read -r j f <<<"$(python3 "$ROOT/tests/e2e/check_site_jmp.py" "$hooks-edge" walk)"
    check_eq "$hooks latch-form=edge: the check sees the jmp after each site" "$j $f" "$nl 0"
    be() { "$HP" report --format json --top 0 "$1" | python3 -c 'import json, sys
print(sum(m["backedges"] for m in json.load(sys.stdin)["methods"]))'; }
    check_eq "$hooks: exhaustive back-edges, top form = edge form" "$(be "$hooks-shared.exhaustive.data")" \
        "$(be "$hooks-edge.exhaustive.data")"
done
# the loop-entry form (-hotprof-dual-loops=entry): F keeps the optimizer's code, so LSR reduces every loop
read -r l r <<<"$(lsr entry "$HP" cc --hooks=dual-blocks -mllvm -hotprof-dual-loops=entry)"
check_eq "dual-blocks loop-entry form: LSR reduces every loop of walk (loops, reduced)" "$l $r" "$nl $nl"
# the wrapper form, dual-functions' default
read -r l r <<<"$(lsr wrapper "$HP" cc --hooks=dual-functions)"
check_eq "dual-functions wrapper form: LSR reduces every loop of walk (loops, reduced)" "$l $r" "$nl $nl"
# the edge form keeps walk's loops unpeeled: its latch nops end blocks that go to the headers, the
# case of every multi-block loop (a callbr there spoiled LoopSimplify form until the landing block)
read -r l r <<<"$(lsr wrapper-edge "$HP" cc --hooks=dual-functions -mllvm -hotprof-dual-latch-form=edge)"
check_eq "wrapper form latch-form=edge: LSR reduces every loop of walk (loops, reduced)" "$l $r" "$nl $nl"
for variant in top edge; do
    name=wrapper-$variant
    build_check "$name" "main,walk" --hooks=dual-functions -mllvm -hotprof-dual-latch-form=$variant
done
read -r j f <<<"$(python3 "$ROOT/tests/e2e/check_site_jmp.py" wrapper-top walk)"
check_eq "wrapper form: walk's one-block loops have their nop at the top (sites followed by jmp, by the body)" "$j $f" "0 $nl"
read -r j f <<<"$(python3 "$ROOT/tests/e2e/check_site_jmp.py" wrapper-edge walk)"
check_eq "wrapper form latch-form=edge: the check sees the jmp after each site" "$j $f" "$nl 0"
check_eq "wrapper form: exhaustive back-edges, top form = edge form" "$(be wrapper-top.exhaustive.data)" \
    "$(be wrapper-edge.exhaustive.data)"
check_eq "wrapper form: exhaustive back-edges = the one-body form's" "$(be wrapper-top.exhaustive.data)" \
    "$(be dual-functions-shared.exhaustive.data)"
wt=$(size -A wrapper-top | awk '$1 == ".text" {print $2}') ct=$(size -A dual-functions-shared | awk '$1 == ".text" {print $2}')
if [ -n "$wt" ] && [ -n "$ct" ] && [ "$wt" -lt "$ct" ]; then ok "wrapper form: less code than the one-body form ($wt < $ct bytes of .text)"
else fail "wrapper form: less code than the one-body form" "wrapper '$wt', one-body '$ct'"; fi
check_fails_cleanly "dual: bad -hotprof-dual-functions-form, one message" \
    "hotprof-dual-functions-form=both is not one of wrapper\|clone" \
    "$HP" cc --hooks=dual-functions -O2 -mllvm -hotprof-dual-functions-form=both -c -o bad.o "$SRC"
check_fails_cleanly "dual: bad -hotprof-dual-latch-form, one message" "hotprof-dual-latch-form=up is not one of top\|edge" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-latch-form=up -c -o bad.o "$SRC"
check_fails_cleanly "dual: bad -hotprof-dual-site-exits, one message" \
    "hotprof-dual-site-exits=maybe is not one of shared\|dedicated" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-site-exits=maybe -c -o bad.o "$SRC"
check_fails_cleanly "dual: bad -hotprof-dual-rejoin-all, one message" \
    "hotprof-dual-rejoin-all=maybe is not one of off\|on" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-rejoin-all=maybe -c -o bad.o "$SRC"
