#!/usr/bin/env bash
# test_dual_floor.sh — the switched-off floor of two-version code (plugin/hotprof_dual.cpp,
# docs/dual.md "Where the floor comes from"): the clean copy of a one-body function must stay the
# optimized code the code generator would get natively. Checked on progs/dual_floor_lsr.c (a
# strided loop): the code generator's loop strength reduction still reduces the clean loop's
# address arithmetic (clang's -print-after=loop-reduce dump, check_lsr.py: every loop LSR is shown
# has a pointer induction variable, as natively), in dual-functions and dual-blocks. With
# -hotprof-dual-site-exits=shared (the layout before the fix: the nop's label is the instrumented
# back-edge block, a non-dedicated loop exit) the same check sees unreduced loops, so it can fail.
# Also: same output as native, sites well-formed, a bad option value is one clear message.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
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
for hooks in dual-functions dual-blocks; do
    read -r l r <<<"$(lsr "$hooks" "$HP" cc --hooks=$hooks)"
    check_eq "$hooks: LSR reduces every clean loop of walk (loops, reduced)" "$l $r" "$nl $nl"
    read -r l r <<<"$(lsr "$hooks.shared" "$HP" cc --hooks=$hooks -mllvm -hotprof-dual-site-exits=shared)"
    if [ "${l:-0}" -gt 0 ] && [ "${r:-0}" -lt "$l" ]; then
        ok "$hooks site-exits=shared: the check sees unreduced loops ($r of $l reduced)"
    else fail "$hooks site-exits=shared: expected unreduced loops" "loops '$l', reduced '$r'"; fi
    "$HP" cc --hooks=$hooks -O2 -o "$hooks" "$SRC" || { fail "$hooks: build"; continue; }
    python3 "$ROOT/tests/e2e/check_dual_sites.py" "$hooks" "$hooks" --clones "" --loop-clones ""
    for mode in off exhaustive; do
        HOTPROF_MODE=$mode HOTPROF_OUTPUT="$hooks.$mode.data" "./$hooks" 100000 >"$hooks.$mode.out"
        check_eq "$hooks $mode: same output as native" "$(cat "$hooks.$mode.out")" "$(cat want.out)"
    done
done
check_fails_cleanly "dual: bad -hotprof-dual-site-exits, one message" \
    "hotprof-dual-site-exits=maybe is not one of dedicated\|shared" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-site-exits=maybe -c -o bad.o "$SRC"
