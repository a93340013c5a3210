#!/usr/bin/env bash
# test_dual_static_allocas.sh — the dual plugin splits a function's entry block past its static
# allocas (the one-body and loop-entry forms: the block both copies share); a static alloca the
# optimizer left after another instruction is moved up to them first (pastStaticAllocas in
# plugin/hotprof_dual.cpp, docs/dual.md *One-body form*). progs/dual_late_alloca.c's run has one.
#   - clang -O2 leaves it late (else this test proves nothing: it says so and fails);
#   - run has no dynamic stack allocation (a register moved into %rsp) in dual-blocks with nop and
#     count sites and in the loop-entry form, as natively (before the fix: one per copy);
#   - the same output as native switched off and exhaustive; exhaustive calls and blocks equal the
#     plain blocks build's.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
SRC="$P/dual_late_alloca.c"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual static allocas: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
ARGS=(2000)
clang -O2 -o native "$SRC" && ./native "${ARGS[@]}" >want.out || { fail "native build"; exit 0; }
# the entry block of run, as clang -O2 leaves it: an alloca after a non-alloca instruction
late=$(clang -O2 -S -emit-llvm -o - "$SRC" | awk '/^define .*@run\(/ {on = 1; next} on && /^$/ {exit}
    on && /= alloca / {if (other) {print "late"; exit}} on && !/= alloca / && /=/ {other = 1}')
check_eq "clang -O2 leaves a static alloca of run after another instruction" "$late" "late"
# dynamic_allocas BINARY: instructions of run that move a register into %rsp
dynamic_allocas() {
    objdump -d --no-show-raw-insn "$1" | awk '/^[0-9a-f]+ <run>:$/ {on = 1; next} /^$/ {on = 0} on' |
        grep -cE 'mov +%r[a-z0-9]+,%rsp'
}
check_eq "native: run allocates nothing on the stack at run time" "$(dynamic_allocas native)" 0
"$HP" cc --hooks=blocks -O2 -o blocks "$SRC" && HOTPROF_OUTPUT=blocks.data ./blocks "${ARGS[@]}" >/dev/null ||
    fail "blocks build"
totals() { "$HP" report --format json --top 0 "$1" | python3 -c 'import json, sys
t = json.load(sys.stdin)["totals"]; print(t["calls"], t["blocks"])'; }
want_totals=$(totals blocks.data)
build() { # NAME OPTIONS...
    local name=$1; shift
    "$HP" cc --hooks=dual-blocks -O2 -Wno-unused-command-line-argument "$@" -o "$name" "$SRC" || { fail "$name: build"; return 1; }
}
for v in nop count entry; do
    case $v in
        nop) build $v ;;
        count) build $v --dual-sites=count ;;
        entry) build $v -mllvm -hotprof-dual-loops=entry ;;
    esac || continue
    check_eq "dual-blocks $v: run allocates nothing on the stack at run time" "$(dynamic_allocas $v)" 0
    check_eq "dual-blocks $v: same output as native switched off" "$(HOTPROF_MODE=off ./$v "${ARGS[@]}")" "$(cat want.out)"
    check_eq "dual-blocks $v: same output as native, exhaustive" \
        "$(HOTPROF_QUIET=1 HOTPROF_OUTPUT=$v.data ./$v "${ARGS[@]}")" "$(cat want.out)"
    check_eq "dual-blocks $v: exhaustive calls and blocks = the blocks build's" "$(totals $v.data)" "$want_totals"
done
