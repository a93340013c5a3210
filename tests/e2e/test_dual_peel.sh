#!/usr/bin/env bash
# test_dual_peel.sh — which one-block loops the top form peels (plugin/dual_peel.cpp,
# -hotprof-dual-peel-max=N; docs/dual.md "Which loops are peeled"). On progs/dual_peel.c (a
# one-block loop of a few instructions, short_sum, and one of about 40, long_mix), in each form
# that peels (dual-blocks' one-body form, dual-functions' wrapper form, the loop-entry form):
#   - by default both loops are peeled (their back-edge nops fall through into the body:
#     check_site_jmp.py); -hotprof-dual-peel-max=0 peels neither (each site block jumps back to
#     the header), 24 the short one only, a large N both;
#   - the same output as native switched off and exhaustive, and the exhaustive back-edges of
#     each loop are its iterations less one, whichever loops were peeled;
#   - long_mix's code is smaller unpeeled (N = 24) than peeled (a large N);
#   - a bad value is one message from clang's option parser (no crash report, no object).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1
# the plugin's own layout is checked (the default --dual-latch=branch moves the branches around the
# sites in the assembly: test_dual_latch_branch.sh)
export HOTPROF_DUAL_LATCH=site
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual peel: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
SRC="$ROOT/tests/e2e/progs/dual_peel.c"
N=20000
clang -O2 -o native "$SRC" && ./native $N >want.out || fail "native build"

# sites BINARY FN: "JMP FALLTHROUGH" of FN's back-edge sites
sites() { python3 "$ROOT/tests/e2e/check_site_jmp.py" "$1" "$2"; }
# backedges DATA FN: FN's exhaustive back-edges
backedges() {
    "$HP" report --format json --top 0 "$1" | python3 -c 'import json, sys
print(sum(m["backedges"] for m in json.load(sys.stdin)["methods"] if m["function"] == sys.argv[1]))' "$2"
}
# fn_size BINARY FN: FN's size in bytes (its symbol's)
fn_size() { local hex; hex=$(nm -S --defined-only "$1" | awk -v f="$2" '$4 == f {print $2}'); [ -n "$hex" ] && echo $((16#$hex)); }

# form NAME CC-ARGS...: the peel settings of one form
form() {
    local name=$1; shift
    local b
    for peel in default 0 24 100000; do
        b=$name.$peel
        local opt=()
        [ $peel != default ] && opt=(-mllvm -hotprof-dual-peel-max=$peel)
        if ! "$HP" cc "$@" "${opt[@]}" -O2 -o "$b" "$SRC"; then fail "$b: build"; continue; fi
        for mode in off exhaustive; do
            HOTPROF_MODE=$mode HOTPROF_OUTPUT="$b.$mode.data" "./$b" $N >"$b.$mode.out" 2>/dev/null
            check_eq "$b $mode: same output as native" "$(cat "$b.$mode.out")" "$(cat want.out)"
        done
        for fn in short_sum long_mix; do
            check_eq "$b: $fn's exhaustive back-edges = its iterations less one" \
                "$(backedges "$b.exhaustive.data" $fn)" $((N - 1))
        done
    done
    check_eq "$name default: short_sum peeled (sites followed by jmp, by the body)" "$(sites "$name.default" short_sum)" "0 1"
    check_eq "$name default: long_mix peeled" "$(sites "$name.default" long_mix)" "0 1"
    check_eq "$name peel-max=0: short_sum not peeled" "$(sites "$name.0" short_sum)" "1 0"
    check_eq "$name peel-max=0: long_mix not peeled" "$(sites "$name.0" long_mix)" "1 0"
    check_eq "$name peel-max=24: short_sum peeled" "$(sites "$name.24" short_sum)" "0 1"
    check_eq "$name peel-max=24: long_mix not peeled" "$(sites "$name.24" long_mix)" "1 0"
    check_eq "$name peel-max=100000: short_sum peeled" "$(sites "$name.100000" short_sum)" "0 1"
    check_eq "$name peel-max=100000: long_mix peeled" "$(sites "$name.100000" long_mix)" "0 1"
    local small big
    small=$(fn_size "$name.24" long_mix) big=$(fn_size "$name.100000" long_mix)
    if [ -n "$small" ] && [ -n "$big" ] && [ "$small" -lt "$big" ]; then
        ok "$name: long_mix unpeeled is smaller ($small < $big bytes)"
    else fail "$name: long_mix unpeeled is smaller" "default '$small', peeled '$big'"; fi
}
form one-body --hooks=dual-blocks
form wrapper --hooks=dual-functions
form entry --hooks=dual-blocks -mllvm -hotprof-dual-loops=entry

check_fails_cleanly "dual: bad -hotprof-dual-peel-max, one message" "hotprof-dual-peel-max.*invalid" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-peel-max=many -c -o bad.o "$SRC"
check_eq "dual: bad -hotprof-dual-peel-max leaves no object" "$([ -e bad.o ] && echo yes || echo no)" no
