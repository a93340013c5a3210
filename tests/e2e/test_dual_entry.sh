#!/usr/bin/env bash
# test_dual_entry.sh — the forms of two-version code (plugin/hotprof_dual.cpp, docs/dual.md):
# loop-free functions get a separate instrumented clone F.hotprof entered from a patchable nop at
# F's first byte, functions with loops both copies in one body (defaults); with
# -hotprof-dual-loops=entry a loop-entry clone, whole calls entering it from a site inside F (no
# F.hotprof); with
# -hotprof-dual-loops=osr a function with loops gets F.hotprof too and a loop-entry clone per
# outermost loop, called from the nop on that loop's latch; -hotprof-dual-entry=inline gives every
# function the one-body form, and so does -fcf-protection (a separate clone's nop cannot be F's
# first byte) but to the loop-entry form's functions (its entry site is inside F).
# For progs/dual_loops.c (loop-free: main, rare, shared_ret; loops: inner, outer) under each
# plugin option: the sites (check_dual_sites.py: aligned 5-byte nops, clone entries at the first
# byte, which functions got which clone), same output as native, and exhaustive counts equal to
# the plain blocks build (check_dual.py: calls, call pairs, blocks, edges, latch back-edges).
# Also: clones are named after their function in reports, bursts reach loop-free functions
# through their clones and a long loop through its loop-entry clone, osr keeps the behaviour of
# programs with C++ exceptions and threads, and a bad option value is one clear message.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "dual entry: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
SRC="$P/dual_loops.c"
N=200
LOOPFREE=main,rare,shared_ret

clang -O2 -o native "$SRC" && ./native $N >want.out || fail "native build"
"$HP" cc --hooks=blocks -O2 -o blocks "$SRC" && HOTPROF_OUTPUT=blocks.data ./blocks $N >/dev/null &&
    "$HP" report --format json --top 0 blocks.data >blocks.json || fail "blocks build"

# variant NAME CLONES LOOP-CLONES FLAGS...: build dual-blocks with FLAGS, check sites, output, counts
variant() {
    local name=$1 clones=$2 loops=$3; shift 3
    "$HP" cc --hooks=dual-blocks -O2 "$@" -o "$name" "$SRC" -Wno-unused-command-line-argument ||
        { fail "$name: build"; return 1; }
    local one=(); [ "$name" = entry ] || [ "$name" = cet-entry ] && one=(--one-clone)
    python3 "$ROOT/tests/e2e/check_dual_sites.py" "$name" "$name" --clones "$clones" --loop-clones "$loops" "${one[@]}"
    HOTPROF_OUTPUT="$name.data" "./$name" $N >"$name.out" || { fail "$name: run"; return 1; }
    check_eq "$name: same output as native" "$(cat "$name.out")" "$(cat want.out)"
    "$HP" report --format json --top 0 "$name.data" >"$name.json" &&
        python3 "$ROOT/tests/e2e/check_dual.py" blocks.json "$name.json" "$name" --blocks --no-backedge shared_ret
}

variant default "$LOOPFREE" ""
variant entry "$LOOPFREE" inner,outer -mllvm -hotprof-dual-loops=entry
variant osr "$LOOPFREE,inner,outer" inner,outer -mllvm -hotprof-dual-loops=osr
variant inline "" "" -mllvm -hotprof-dual-entry=inline
variant none "$LOOPFREE,inner,outer" "" -mllvm -hotprof-dual-latch-sites=none
variant speed "$LOOPFREE,inner,outer" inner,outer -mllvm -hotprof-dual-loops=osr -mllvm -hotprof-dual-clone-opt=speed
variant pm "$LOOPFREE" "" -mllvm -hotprof-dual-loops=inline -mllvm -hotprof-dual-hook-cc=preserve-most -mllvm -hotprof-dual-latch-sites=all
variant cet "" "" -fcf-protection=full
variant cet-entry "" inner,outer -fcf-protection=full -mllvm -hotprof-dual-loops=entry

# the clone is a local function in .text.unlikely (minsize): the hot text keeps the clean code only
"$HP" cc --hooks=dual-blocks -O2 -c -o default.o "$SRC"
unlikely=$(size -A default.o | awk '$1 ~ /^\.text\.unlikely/ {s += $2} END {print s + 0}')
hot=$(size -A default.o | awk '$1 == ".text" {print $2}')
if [ "$unlikely" -gt 0 ] && nm default.o | grep -q ' t shared_ret\.hotprof$'; then
    ok "default: clones are local, in .text.unlikely ($unlikely bytes; .text $hot)"
else fail "default: clones in .text.unlikely" "unlikely '$unlikely', symbols: $(nm default.o | grep -c hotprof$)"; fi

# reports name a clone's code after its function (callers of rare: shared_ret, not shared_ret.hotprof)
python3 - default.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [m["function"] for m in d["methods"]] + [p["caller_function"] for p in d["call_pairs"]]
bad = [n for n in names if n.endswith(".hotprof")]
callers = {p["caller_function"] for p in d["call_pairs"] if p["callee_function"] == "rare"}
ok = not bad and callers == {"shared_ret"}
print(("ok" if ok else "FAIL") + " default: clones named after their function (callers of rare: %s; clone names %s)"
      % (sorted(callers), bad[:3]))
PY

# bursts reach loop-free functions only through the clone's entry site
HOTPROF_MODE=bursty HOTPROF_SAMPLE="methods:period=9,burst=1;callpairs:period=9,burst=1" HOTPROF_OUTPUT=burst.data \
    ./default 2000 >burst.out
check_eq "default bursty: same output as native" "$(cat burst.out)" "$(./native 2000)"
"$HP" report --format json --top 0 burst.data >burst.json
python3 - burst.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
calls = {m["function"]: m["calls"] for m in d["methods"]}
ok = calls.get("shared_ret", 0) > 0 and calls.get("rare", 0) > 0
print(("ok" if ok else "FAIL") + " default bursty: loop-free functions sampled through their clones (shared_ret %d, rare %d calls)"
      % (calls.get("shared_ret", 0), calls.get("rare", 0)))
PY

# -hotprof-dual-loops=osr: a long loop without calls, entered before any burst, is reached
# through its loop-entry clone (test_dual.sh checks the same for the one-body default)
"$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-loops=osr -o longloop "$P/dual_longloop.c" \
    -Wno-unused-command-line-argument &&
    python3 "$ROOT/tests/e2e/check_dual_sites.py" longloop longloop --loop-clones spin || fail "longloop: build"
HOTPROF_MODE=bursty HOTPROF_SAMPLE="methods:period=999,burst=1;callpairs:period=999,burst=1" HOTPROF_OUTPUT=ll.data \
    ./longloop 200000000 >ll.out
clang -O2 -o longloop.native "$P/dual_longloop.c"
check_eq "longloop bursty: same output as native" "$(cat ll.out)" "$(./longloop.native 200000000)"
"$HP" report --format json --top 0 ll.data >ll.json
python3 - ll.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
be = {m["function"]: m["backedges"] for m in d["methods"]}
names = [m["function"] for m in d["methods"]] + [p["caller_function"] for p in d["call_pairs"]]
ok = be.get("spin", 0) >= 100 and not [n for n in names if ".hotprof" in n]
print(("ok" if ok else "FAIL") + " longloop bursty: spin's loop reached through its loop-entry clone (%d back-edges sampled; names %s)"
      % (be.get("spin", 0), sorted(set(names))))
PY

# -hotprof-dual-loops=osr keeps behaviour: C++ exceptions and threads (whose loops get loop-entry
# clones), same output as native in every mode, and the programs' expected counts when exhaustive
for spec in "rt_throw c++ rt_throw.cpp 1000" "rt_threads cc rt_threads.c 200"; do
    set -- $spec; l=$1 comp=$2 src=$3; shift 3
    $comp -O2 -o "$l.native" "$P/$src" -lpthread && "$HP" "$comp" --hooks=dual-blocks -mllvm -hotprof-dual-loops=osr \
        -O2 -o "$l.osr" "$P/$src" -lpthread -Wno-unused-command-line-argument || { fail "$l osr: build"; continue; }
    nm "$l.osr" | grep -q '\.hotprof\.loop' || fail "$l osr: no loop-entry clone"
    "./$l.native" "$@" 2>&1 | grep -v '^rss_kb' >"$l.want"
    for mode in exhaustive off bursty; do
        HOTPROF_SAMPLE="methods:period=99,burst=1;callpairs:period=99,burst=1" HOTPROF_MODE=$mode \
            HOTPROF_OUTPUT="$l.$mode.data" "./$l.osr" "$@" 2>&1 | grep -v '^rss_kb' >"$l.$mode.got"
        check_eq "$l osr $mode: same output as native" "$(cat "$l.$mode.got")" "$(cat "$l.want")"
    done
    "$HP" report --format json --top 0 "$l.exhaustive.data" >"$l.json" &&
        python3 "$ROOT/tests/e2e/check_expect.py" "$l.want" "$l.json" "$l osr"
done

# a shared library: exported (interposable) functions keep the one-body form; sites still aligned
printf 'static int twice(int x) { return 2 * x; }\nint lib_entry(int x) { return twice(x) + 1; }\n' >lib.c
"$HP" cc --hooks=dual-blocks -O2 -shared -fPIC -fno-inline -o lib.so lib.c -Wno-unused-command-line-argument &&
    python3 "$ROOT/tests/e2e/check_dual_sites.py" lib.so "lib.so" --clones twice --loop-clones "" || fail "lib.so: build"

# an extern always_inline function gets a separate clone that is not always_inline (was broken IR)
if "$HP" cc --hooks=dual-blocks -O2 -o always_inline "$P/dual_always_inline.c" 2>ai.err && ./always_inline; then
    ok "dual: an extern always_inline function builds and runs"
else
    fail "dual: extern always_inline function: $(head -2 ai.err)"
fi
check_fails_cleanly "dual: bad plugin option, one message" "hotprof-dual-entry=sideways is not one of clone\|inline" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-entry=sideways -c -o bad.o "$SRC"
