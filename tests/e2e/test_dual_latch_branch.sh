#!/usr/bin/env bash
# test_dual_latch_branch.sh — `hotprof cc --dual-latch=branch` (docs/dual.md "The latch's branch as
# the site"; src/analysis/latch_asm.c, src/cli/cmd_as.c, src/runtime/ctl/dual_branch.c): the
# assembler front rewrites branches on every workload; the builds print what native prints in
# every mode (switched off, patched bursts, count mode, exhaustive); exhaustive counts equal the
# plain dual build's exactly (the rewrite changes which instructions run, never which blocks);
# patched runs write every latch branch (none unwritable); a burst reaches a long loop entered
# before it at the loop's next back-edge; bad option values are one clear message.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
W="$ROOT/bench/workloads"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "latch branch: no plugin here, nothing to test"; exit 0; }

check_fails_cleanly "latch branch: bad value" "dual-latch takes site or branch" \
    "$HP" cc --hooks=dual-functions --dual-latch=jump -O2 -c -o x.o "$P/dual_loops.c"
check_fails_cleanly "latch branch: needs a dual set" "needs a dual-\* hook set" \
    "$HP" cc --hooks=blocks --dual-latch=branch -O2 -c -o x.o "$P/dual_loops.c"
check_fails_cleanly "latch branch: not with count sites" "with nop sites" \
    "$HP" cc --hooks=dual-blocks --dual-sites=count --dual-latch=branch -O2 -c -o x.o "$P/dual_loops.c"
HOTPROF_DUAL_LATCH=sometimes check_fails_cleanly "latch branch: bad environment value" "HOTPROF_DUAL_LATCH takes" \
    "$HP" cc --hooks=dual-functions -O2 -c -o x.o "$P/dual_loops.c"
# the environment's value is a default: builds it does not apply to ignore it
check "latch branch: environment ignored by a blocks build" \
    env HOTPROF_DUAL_LATCH=branch "$HP" cc --hooks=blocks -O2 -c -o x.o "$P/dual_loops.c"
check "latch branch: environment ignored by a count-sites build" \
    env HOTPROF_DUAL_LATCH=branch "$HP" cc --hooks=dual-functions --dual-sites=count -O2 -c -o x.o "$P/dual_loops.c"

json() { "$HP" report --format json --top 0 "$1" >"$2"; }
M999="--sample methods:period=999,burst=1 --sample callpairs:period=999,burst=1"
for ws in lexgen:40 compress:64 interp:1 gametree:6 fft:8; do
    w=${ws%%:*}; size=${ws#*:}
    clang -O2 -o "$w.native" "$W/$w.c" -lm -lpthread || { fail "$w: native build"; continue; }
    want=$("./$w.native" "$size")
    "$HP" cc --hooks=dual-blocks -O2 -o "$w.site" "$W/$w.c" -lm -lpthread || { fail "$w: site build"; continue; }
    HOTPROF_AS_STATS=1 "$HP" cc --hooks=dual-blocks --dual-latch=branch -O2 -o "$w.br" "$W/$w.c" -lm -lpthread \
        2>"$w.as" || { fail "$w: branch build" "$(tail -n 3 "$w.as")"; continue; }
    rewritten=$(sed -n 's/.* by \([0-9]*\) rewritten branches.*/\1/p' "$w.as" | head -n 1)
    [ "${rewritten:-0}" -gt 0 ] && ok "$w: branches rewritten ($rewritten)" || fail "$w: no branch rewritten" "$(cat "$w.as")"
    check_eq "$w: switched off, native's output" "$(HOTPROF_MODE=off "./$w.br" "$size")" "$want"
    check_eq "$w: patched bursts, native's output" "$("$HP" run -q $M999 -o "$w.patch.data" -- "./$w.br" "$size")" "$want"
    check_eq "$w: count mode, native's output" \
        "$("$HP" run -q --bursts count $M999 -o "$w.count.data" -- "./$w.br" "$size")" "$want"
    HOTPROF_OUTPUT="$w.site.data" "./$w.site" "$size" >/dev/null && json "$w.site.data" "$w.site.json"
    check_eq "$w: exhaustive, native's output" "$(HOTPROF_OUTPUT="$w.br.data" "./$w.br" "$size")" "$want"
    json "$w.br.data" "$w.br.json"
    python3 - "$w.site.json" "$w.br.json" "$w" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
w = sys.argv[3]
keys = ("calls", "blocks", "edges", "backedges")
ta, tb = ({k: d["totals"][k] for k in keys} for d in (a, b))
ma, mb = ({m["function"]: (m["calls"], m["backedges"]) for m in d["methods"]} for d in (a, b))
ok = ta == tb and ma == mb and ta["backedges"] > 0
print(("ok" if ok else "FAIL") + " %s: exhaustive counts equal the site build's (%s)" % (w, ta if ok else (ta, tb)))
PY
    "$HP" info "$w.patch.data" >"$w.info"
    n=$(awk '$1 == "patch.dual.latch_branches" || $1 == "dual.latch_branches" {print $2}' "$w.info" | head -n 1)
    bad=$(awk '$1 ~ /latch_branches_unwritable$/ {print $2}' "$w.info" | head -n 1)
    [ "${n:-0}" -ge "$rewritten" ] && [ "${bad:-x}" = 0 ] && ok "$w: patched run switched $n latch branches, none unwritable" ||
        fail "$w: latch branches in INFO" "$(grep latch "$w.info")"
done

# a burst reaches a loop entered before it at its next back-edge (dual-functions: spin makes no
# call, so its latch's branch is the only way in)
"$HP" cc --hooks=dual-functions --dual-latch=branch -O2 -o longloop "$P/dual_longloop.c" || fail "longloop: build"
clang -O2 -o longloop.native "$P/dual_longloop.c"
"$HP" run -q --sample methods:period=999,burst=1 -o ll.data -- ./longloop 200000000 >ll.out || fail "longloop: run"
check_eq "longloop branch build: native's output" "$(cat ll.out)" "$(./longloop.native 200000000)"
"$HP" report --format json --top 0 ll.data >ll.json
python3 - ll.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
be = {m["function"]: m["backedges"] for m in d["methods"]}
ok = d["mode"] == "patch" and be.get("spin", 0) >= 100
print(("ok" if ok else "FAIL") + " longloop branch build: bursts reached spin's loop at its back-edges (%d sampled, mode %s)"
      % (be.get("spin", 0), d["mode"]))
PY

# C++: an inline function kept out of line in two objects (a comdat group: GNU as wants the group's
# link-order section __patchable_function_entries written in its own field order, latch_asm.c),
# with a loop, and an exception thrown through it
cat >work.hpp <<'CPP'
#include <cstddef>
#include <stdexcept>
#include <vector>
__attribute__((noinline)) inline long work(const std::vector<int> &v)
{
    long s = 0;
    for (std::size_t i = 0; i < v.size(); i++) {
        if (v[i] < 0) throw std::runtime_error("negative");
        s += (v[i] & 1) ? v[i] : -v[i] / 3;
    }
    return s;
}
long first();
CPP
cat >a.cpp <<'CPP'
#include "work.hpp"
long first() { std::vector<int> v(1000); for (int i = 0; i < 1000; i++) v[i] = i * 7; return work(v); }
CPP
cat >b.cpp <<'CPP'
#include "work.hpp"
#include <cstdio>
static long second() { std::vector<int> v(500); for (int i = 0; i < 500; i++) v[i] = 250 - i; return work(v); }
int main()
{
    long t = 0, caught = 0;
    for (int r = 0; r < 300; r++) {
        t += first();
        try { t += second(); } catch (const std::exception &) { caught++; }
    }
    std::printf("%ld %ld\n", t, caught);
}
CPP
clang++ -O2 -o cxx.native a.cpp b.cpp && want=$(./cxx.native) || fail "c++: native build"
if "$HP" c++ --hooks=dual-blocks --dual-latch=branch -O2 -o cxx.br a.cpp b.cpp 2>cxx.err; then
    check_eq "c++ comdat + exceptions: switched off, native's output" "$(HOTPROF_MODE=off ./cxx.br)" "$want"
    check_eq "c++ comdat + exceptions: patched bursts, native's output" "$("$HP" run -q $M999 -o cxx.data -- ./cxx.br)" "$want"
    check_eq "c++ comdat + exceptions: exhaustive, native's output" "$(HOTPROF_OUTPUT=cxx.ex.data ./cxx.br)" "$want"
else
    fail "c++ comdat + exceptions: branch build" "$(tail -n 3 cxx.err)"
fi
