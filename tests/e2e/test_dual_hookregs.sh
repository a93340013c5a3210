#!/usr/bin/env bash
# test_dual_hookregs.sh — back-edge hooks that keep the registers (plugin/dual_hookcall.h,
# src/runtime/hooks_pm.c, docs/dual.md "Back-edge hooks that keep the registers"). On
# progs/dual_hookregs.c (a loop whose body calls its own function, as lexgen's closure_add):
#   - dual-functions (the wrapper form: F is the optimizer's code with its sites): F pushes as
#     many registers as native; with -hotprof-dual-backedge-cc=c (a plain C call at each site's
#     label) it pushes more (the check can fail, and says so if that ever changes);
#   - dual-functions: F's address is computed only right before the call of the preserve_most
#     hook (with the C convention LICM keeps it in a register across the loop); dual-blocks: the
#     site's label computes it right before the hook call;
#   - same output as native switched off, exhaustive, in count mode and in patched bursts; the
#     exhaustive back-edges equal the plain blocks build's, and count mode samples some;
#   - a -fPIC library keeps the C calls of the hook (its PLT's lazy binding clobbers R10), and runs
#     as native in count mode and patched bursts;
#   - the one-body form's other hooks (-hotprof-dual-hook-cc, -hotprof-dual-block-hook): by
#     default closure's instrumented copy calls the block hook named by its return address
#     (__hotprof_blkra_thunk, plugin/dual_blockra.h), never the guard hook; with
#     -hotprof-dual-block-hook=guard through the module's preserve_most thunk, never directly; with
#     hook-cc c directly, never through a thunk; progs/dual_computed_goto.c's run (computed goto)
#     calls it directly under auto; the guard and c builds are checked as the others (same output
#     in every mode, exhaustive back-edges equal);
#   - a -fPIC dual-blocks library calls no __hotprof_blkra_thunk (the guard hooks stay) and runs as
#     native;
#   - a bad option value is one clear message.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual hookregs: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
SRC="$P/dual_hookregs.c"
ARGS=(300)
clang -O2 -o native "$SRC" && ./native "${ARGS[@]}" >want.out || fail "native build"
"$HP" cc --hooks=blocks -O2 -o blocks "$SRC" && HOTPROF_OUTPUT=blocks.data ./blocks "${ARGS[@]}" >/dev/null ||
    fail "blocks build"

# code_of BINARY: closure's instructions (objdump, no raw bytes)
code_of() { objdump -d --no-show-raw-insn "$1" | awk '/^[0-9a-f]+ <closure>:$/ {on = 1; next} /^$/ {on = 0} on'; }
pushes() { code_of "$1" | grep -c 'push '; }
# addr_loads BINARY: "ALL AT-CALL": leas of closure's own address, and those followed by the hook call
addr_loads() {
    code_of "$1" | awk '{ if (lea) { at += /call.*__hotprof_dual_(clean_)?backedge_pm>/; lea = 0 } }
                        /lea .*<closure>/ {all++; lea = 1} END {print all + 0, at + 0}'
}
backedges() {
    "$HP" report --format json --top 0 "$1" | python3 -c 'import json, sys
print(sum(m["backedges"] for m in json.load(sys.stdin)["methods"] if m["function"] == "closure"))'
}
check_eq "blocks: closure has back-edges" "$([ "$(backedges blocks.data)" -gt 0 ] && echo yes)" yes

# builds HOOKS.FORM: FORM is the back-edge hook's convention (-hotprof-dual-backedge-cc), or
# hookc: the default back-edge hook and the one-body form's other hooks called directly
options_of() {
    case $1 in
        *.hookc) echo "-mllvm -hotprof-dual-hook-cc=c" ;;
        *.guard) echo "-mllvm -hotprof-dual-block-hook=guard" ;;
        *) echo "-mllvm -hotprof-dual-backedge-cc=${1#*.}" ;;
    esac
}
for b in dual-functions.preserve-most dual-functions.c dual-blocks.preserve-most dual-blocks.c dual-blocks.hookc \
    dual-blocks.guard; do
    # shellcheck disable=SC2046 # (the options are words)
    "$HP" cc --hooks="${b%%.*}" -O2 $(options_of "$b") -Wno-unused-command-line-argument -o "$b" "$SRC" ||
        { fail "$b: build"; continue; }
    HOTPROF_MODE=off "./$b" "${ARGS[@]}" >off.out
    check_eq "$b: same output as native switched off" "$(cat off.out)" "$(cat want.out)"
    HOTPROF_OUTPUT=$b.data "./$b" "${ARGS[@]}" >exh.out
    check_eq "$b: same output as native, exhaustive" "$(cat exh.out)" "$(cat want.out)"
    check_eq "$b: exhaustive back-edges of closure = the blocks build's" "$(backedges "$b.data")" "$(backedges blocks.data)"
    for bursts in count patch; do
        "$HP" run -o "$b.$bursts.data" --bursts $bursts --sample methods:period=99,burst=1 -- "./$b" "${ARGS[@]}" \
            >run.out 2>run.err || { fail "$b --bursts $bursts: run" "$(tail -3 run.err)"; continue; }
        check_eq "$b --bursts $bursts: same output as native" "$(cat run.out)" "$(cat want.out)"
        [ $bursts = count ] && check_eq "$b --bursts count: closure's back-edges sampled" \
            "$([ "$(backedges "$b.$bursts.data")" -gt 0 ] && echo yes)" yes
    done
done
# (dual-blocks' one-body form also names closure in its instrumented copy's other hooks)
read -r all at <<<"$(addr_loads dual-functions.preserve-most)"
if [ "$all" -gt 0 ] && [ "$all" = "$at" ]; then ok "dual-functions: closure's address is computed only at the hook call ($all)"
else fail "dual-functions: closure's address is computed only at the hook call" "leas $all, before the call $at"; fi
read -r all at <<<"$(addr_loads dual-functions.c)"
check_eq "dual-functions backedge-cc=c: closure's address is not computed at the hook call" "$at" 0
read -r all at <<<"$(addr_loads dual-blocks.preserve-most)"
check_eq "dual-blocks: the back-edge site's label computes closure's address before the hook call" "$at" 1
np=$(pushes native) pm=$(pushes dual-functions.preserve-most) pc=$(pushes dual-functions.c)
check_eq "dual-functions: closure pushes as many registers as native" "$pm" "$np"
if [ "$pc" -gt "$np" ]; then ok "dual-functions backedge-cc=c: closure pushes more than native ($pc > $np), as documented"
else fail "dual-functions backedge-cc=c: expected more pushes than native (docs/dual.md is out of date?)" "c $pc, native $np"; fi
# the one-body form's void hooks (-hotprof-dual-hook-cc): thunks by default, except computed goto
# guard_calls BINARY FUNCTION: "RA THUNKED DIRECT" calls of the block hook in FUNCTION: named by
# the return address, through the preserve_most thunk, directly
guard_calls() {
    objdump -d --no-show-raw-insn "$1" | awk -v fn="$2" '$0 ~ "^[0-9a-f]+ <" fn ">:$" {on = 1; next} /^$/ {on = 0}
        on && /call.*<__hotprof_blkra_thunk>/ {r++}
        on && /call.*<__hotprof_pm___sanitizer_cov_trace_pc_guard>/ {t++}
        on && /call.*<__sanitizer_cov_trace_pc_guard>/ {d++} END {print r + 0, t + 0, d + 0}'
}
some() { [ "$1" -gt 0 ] && echo some || echo 0; }
# (dual-blocks.preserve-most above is named for its backedge-cc; its hook-cc is the default)
read -r ra thunked direct <<<"$(guard_calls dual-blocks.preserve-most closure)"
check_eq "dual-blocks (the default): closure's block hooks are named by their return address only" \
    "$(some "$ra") $thunked $direct" "some 0 0"
read -r ra thunked direct <<<"$(guard_calls dual-blocks.guard closure)"
check_eq "dual-blocks block-hook=guard: closure's block hooks go through the thunk only" \
    "$ra $(some "$thunked") $direct" "0 some 0"
read -r ra thunked direct <<<"$(guard_calls dual-blocks.hookc closure)"
check_eq "dual-blocks hook-cc=c: closure calls the block hook directly only" \
    "$ra $thunked $(some "$direct")" "0 0 some"
if "$HP" cc --hooks=dual-blocks -O2 -o computed_goto "$P/dual_computed_goto.c"; then
    read -r ra thunked direct <<<"$(guard_calls computed_goto run)"
    check_eq "dual-blocks (auto): run (computed goto) calls the block hook directly, not through a thunk" \
        "$ra $thunked $(some "$direct")" "0 0 some"
else fail "dual-blocks: dual_computed_goto.c build"; fi
check_fails_cleanly "dual: bad -hotprof-dual-block-hook, one message" \
    "hotprof-dual-block-hook=fast is not one of ra\\|guard" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-block-hook=fast -c -o bad.o "$SRC"
check_fails_cleanly "dual: bad -hotprof-dual-hook-cc, one message" \
    "hotprof-dual-hook-cc=fast is not one of auto\\|preserve-most\\|c" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-hook-cc=fast -c -o bad.o "$SRC"
# a -fPIC library keeps the C calls (its PLT's lazy binding clobbers R10, which preserve_most
# callers keep live); its program calls the stubs
cat >lib.c <<'C'
int lib_sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * (i & 3); return s; }
C
cat >uselib.c <<'C'
#include <stdio.h>
int lib_sum(const int *a, int n);
int main(void) { int a[1000], t = 0; for (int i = 0; i < 1000; i++) a[i] = i; for (int r = 0; r < 2000; r++) t += lib_sum(a, 1000) & 7; printf("%d\n", t); return 0; }
C
"$HP" cc --hooks=dual-functions -O2 -fPIC -shared -o libsum.so lib.c &&
    "$HP" cc --hooks=dual-functions -O2 -o uselib uselib.c -L. -lsum -Wl,-rpath,"$PWD" || fail "shared library: build"
# calls BINARY SUFFIX: calls of the back-edge hooks (__hotprof_dual_backedge, ..._clean_backedge) + SUFFIX
calls() { objdump -d "$1" | grep -c "call.*<__hotprof_dual_\(clean_\)\?backedge$2\(@plt\)\?>"; }
check_eq "shared library: its sites call the C hook, not the preserve_most stub" \
    "$(calls libsum.so _pm) $([ "$(calls libsum.so "")" -gt 0 ] && echo c)" "0 c"
clang -O2 -fPIC -shared -o libsum.native.so lib.c && clang -O2 -o uselib.native uselib.c -L. -lsum.native -Wl,-rpath,"$PWD" || fail "shared library: native build"
for bursts in count patch; do
    out=$("$HP" run -o "lib.$bursts.data" --bursts $bursts --sample methods:period=99,burst=1 -- ./uselib 2>/dev/null)
    check_eq "shared library --bursts $bursts: same output as native" "$out" "$(./uselib.native)"
done
# a dual-blocks library: no block hook named by its return address (the runtime is not linked in)
"$HP" cc --hooks=dual-blocks -O2 -fPIC -shared -o libsumb.so lib.c &&
    "$HP" cc --hooks=dual-blocks -O2 -o uselibb uselib.c -L. -lsumb -Wl,-rpath,"$PWD" || fail "dual-blocks library: build"
check_eq "dual-blocks shared library: no call of __hotprof_blkra_thunk" \
    "$(objdump -d libsumb.so | grep -c 'call.*__hotprof_blkra_thunk')" 0
for mode in exhaustive count; do
    out=$("$HP" run -o "libb.$mode.data" $([ $mode = count ] && echo "--bursts count --sample methods:period=99,burst=1") \
        -- ./uselibb 2>/dev/null)
    check_eq "dual-blocks shared library ($mode): same output as native" "$out" "$(./uselib.native)"
done
check_fails_cleanly "dual: bad -hotprof-dual-backedge-cc, one message" \
    "hotprof-dual-backedge-cc=fast is not one of preserve-most\|c" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-backedge-cc=fast -c -o bad.o "$SRC"
