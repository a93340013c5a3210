#!/usr/bin/env bash
# test_dual_latch_split.sh — shared latches split into a site per incoming block (the dual plugin's
# -hotprof-dual-latch-split=on, the default; plugin/dual_wrapper.h splitSharedLatches; docs/dual.md
# *Shared latches*). progs/dual_switch_loop.c's vm_run is a switch interpreter whose cases all go
# back through one latch block.
#   - the split build has more back-edge sites than -hotprof-dual-latch-split=off (the one latch
#     became one site per case), count sites and nop sites alike;
#   - every build prints the native output in off, exhaustive and count mode (nop sites: patched
#     bursts);
#   - exhaustive: vm_run's back-edges are exactly its loop's (bytecodes executed - calls: each
#     bytecode but the HALT that returns), and the totals (calls, back-edges, blocks) equal the
#     unsplit build's: one site per back-edge taken, whichever case took it;
#   - count mode keeps B/(B+S) and counts every event;
#   - bad input: -hotprof-dual-latch-split=bad.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
C="$ROOT/tests/e2e/check_dual_count.py"
cd "$T" || exit 1
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || exit 0

check_fails_cleanly "cc: -hotprof-dual-latch-split=bad refused" "latch-split=bad is not one of on|off" \
    "$HP" cc --hooks=dual-blocks -O2 -mllvm -hotprof-dual-latch-split=bad -c -o x.o "$P/dual_switch_loop.c"

json() { "$HP" report --format json --top 0 "$1" >"$2"; }
# Back-edge sites of a binary: records of __hotprof_dual {site, target, kind, flags} of kind 1.
backedge_sites_in() {
    objcopy -O binary --only-section=__hotprof_dual "$1" recs.bin 2>/dev/null || { echo 0; return; }
    python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read()
print(sum(struct.unpack_from("<iiII", d, i)[2] == 1 for i in range(0, len(d) - 15, 16)))' recs.bin
}
# "calls back-edges blocks" of a JSON report; "back-edges calls" of one method.
totals() { python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['totals']; print(t['calls'], t['backedges'], t['blocks'])" "$1"; }
method() {
    python3 -c "import json,sys; m=[m for m in json.load(open(sys.argv[1]))['methods'] if m.get('function') == sys.argv[2]]
print(m[0]['backedges'], m[0]['calls']) if m else print('none')" "$1" "$2"
}
M999="--sample methods:period=999,burst=1"
ARGS=20000
clang -O2 -o native "$P/dual_switch_loop.c" && ./native $ARGS >want || { fail "native build"; exit 0; }
read -r _ executed _ calls _ _ <want
for hs in dual-functions dual-blocks; do
    for sites in count nop; do
        b="$hs.$sites"
        "$HP" cc --hooks=$hs --dual-sites=$sites -O2 -o "$b" "$P/dual_switch_loop.c" &&
            "$HP" cc --hooks=$hs --dual-sites=$sites -O2 -mllvm -hotprof-dual-latch-split=off -o "$b.one" \
                "$P/dual_switch_loop.c" || { fail "$b: builds"; continue; }
        s=$(backedge_sites_in "$b") o=$(backedge_sites_in "$b.one")
        check "$b: vm_run's latch split into a site per case ($s back-edge sites, $o unsplit)" test "$s" -ge $((o + 8))
        check_eq "$b: off: same output" "$(HOTPROF_MODE=off "./$b" $ARGS)" "$(cat want)"
        HOTPROF_OUTPUT=ex.data "./$b" $ARGS >ex.out && json ex.data ex.json
        HOTPROF_OUTPUT=ex1.data "./$b.one" $ARGS >/dev/null && json ex1.data ex1.json
        check_eq "$b: exhaustive: same output" "$(cat ex.out)" "$(cat want)"
        check_eq "$b: exhaustive: vm_run's back-edges are its loop's (executed - calls)" \
            "$(method ex.json vm_run)" "$((executed - calls)) $calls"
        check_eq "$b: exhaustive totals = the unsplit build's (calls, back-edges, blocks)" "$(totals ex.json)" "$(totals ex1.json)"
        if [ $sites = nop ]; then
            "$HP" run -q --bursts patch $M999 -o p.data -- "./$b" $ARGS >p.out
            check_eq "$b: patched bursts: same output" "$(cat p.out)" "$(cat want)"
            continue
        fi
        "$HP" run -q --bursts count $M999 -o c.data -- "./$b" $ARGS >c.out && json c.data c.json
        check_eq "$b: count: same output" "$(cat c.out)" "$(cat want)"
        python3 "$C" share ex.json c.json "$b 1/1000"
    done
done
