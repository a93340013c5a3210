#!/usr/bin/env bash
# test_dual_latch_branch.sh — `hotprof cc --dual-latch=branch`, the default of dual-* nop builds
# (docs/dual.md "The latch's branch as the site"; src/analysis/latch_asm.c, src/cli/cmd_as.c,
# src/runtime/ctl/dual_branch.c): a build without --dual-latch has the assembler front rewrite
# branches on every workload; the builds print what native prints in
# every mode (switched off, patched bursts, count mode, exhaustive); exhaustive counts equal the
# plain dual build's exactly (the rewrite changes which instructions run, never which blocks);
# patched runs write every latch branch (none unwritable); count mode gives every latch branch a
# trampoline of its own, and all go to their latch pads instead (count mode's decrement in the
# clean code; a detached pad for a site whose target is not its continuation's pad's), each call
# and back-edge counted once; a build without pads counts with trampolines;
# bad option values are one clear message. (A burst reaching a long loop through its latch's branch: test_dual.sh; C++ comdat
# groups: test_dual_comdat.sh; exceptions, setjmp, signals, threads, shared libraries:
# test_dual_progs.sh's dual-blocks-lb.)
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
# the default (branch) assembles through the front; --dual-latch=site and HOTPROF_DUAL_LATCH=site do not
uses_front() { "$@" --print-command -O2 -c x.c | grep -q -- '-fno-integrated-as .*hotprof-as/' && echo front || echo own; }
check_eq "latch branch: the default build assembles through the front" \
    "$(uses_front "$HP" cc --hooks=dual-functions)" front
check_eq "latch branch: --dual-latch=site assembles with clang's own" \
    "$(uses_front "$HP" cc --hooks=dual-blocks --dual-latch=site)" own
check_eq "latch branch: HOTPROF_DUAL_LATCH=site assembles with clang's own" \
    "$(uses_front env HOTPROF_DUAL_LATCH=site "$HP" cc --hooks=dual-blocks)" own
check_eq "latch branch: count sites assemble with clang's own" \
    "$(uses_front "$HP" cc --hooks=dual-blocks --dual-sites=count)" own
# the front finds the real `as` on PATH past its own directory, also through a link to it
ln -s "$ROOT/build/lib/hotprof-as" front-link
check "latch branch: the front skips itself on PATH" \
    env PATH="$ROOT/build/lib/hotprof-as:$T/front-link:$PATH" "$HP" cc --hooks=dual-functions --dual-latch=branch -O2 -c -o x.o "$P/dual_loops.c"
# (the front exited 127 for it, which clang takes for an assembler it could not run: a crash report)
HOTPROF_AS=/nonexistent/as check_fails_cleanly "latch branch: a missing HOTPROF_AS is one message" "HOTPROF_AS=/nonexistent/as is not an executable" \
    "$HP" cc --hooks=dual-functions --dual-latch=branch -O2 -c -o x.o "$P/dual_loops.c"

json() { "$HP" report --format json --top 0 "$1" >"$2"; }
M999="--sample methods:period=999,burst=1 --sample callpairs:period=999,burst=1"
for ws in lexgen:40 compress:64 interp:1 gametree:6 fft:8; do
    w=${ws%%:*}; size=${ws#*:}
    clang -O2 -o "$w.native" "$W/$w.c" -lm -lpthread || { fail "$w: native build"; continue; }
    want=$("./$w.native" "$size")
    "$HP" cc --hooks=dual-blocks --dual-latch=site -O2 -o "$w.site" "$W/$w.c" -lm -lpthread || { fail "$w: site build"; continue; }
    # (the branch build is the default one: no --dual-latch)
    HOTPROF_AS_STATS=1 "$HP" cc --hooks=dual-blocks -O2 -o "$w.br" "$W/$w.c" -lm -lpthread \
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
    "$HP" info "$w.count.data" >"$w.cinfo"
    python3 - "$w.cinfo" "$w.br.json" "$w" <<'PY'
import json, sys
info = dict(l.split()[:2] for l in open(sys.argv[1]) if len(l.split()) >= 2)
tot = json.load(open(sys.argv[2]))["totals"]
w, n = sys.argv[3], int(info.get("dual.latch_branches", 0))
tr, ev = int(info.get("dual.count.branch_trampolines", -1)), int(info.get("dual.count.events", -1))
pads, padded = int(info.get("dual.count.latch_pads", -1)), int(info.get("dual.count.padded_branches", -1))
exact = tot["calls"] + tot["backedges"]
# every latch branch has a trampoline of its own and goes to a latch pad instead (interp's split
# switch latch: 42 of 51 before sites of other targets got detached pads); each event is counted
# once (up to the thread's last controller slow path: less than one jittered period, at most
# 1.5 x 999, short)
ok = n > 0 and tr == n and 0 < pads <= padded == n and 0 <= exact - ev < 1500
print(("ok" if ok else "FAIL") + " %s: count mode, %d of %d latch branches to %d pads, %d events of %d counted"
      % (w, padded, n, pads, ev, exact))
PY
done

# a build without latch pads (HOTPROF_AS_LATCH_PADS=off): count mode takes trampolines only, the same output
HOTPROF_AS_LATCH_PADS=off "$HP" cc --hooks=dual-blocks -O2 -o lexgen.nopad "$W/lexgen.c" -lm -lpthread ||
    fail "lexgen: build without pads"
check_eq "lexgen: no pads, count mode, native's output" \
    "$("$HP" run -q --bursts count $M999 -o nopad.data -- ./lexgen.nopad 40)" "$(./lexgen.native 40)"
check_eq "lexgen: no pads, no branch sent to one" \
    "$("$HP" info nopad.data | awk '$1 == "dual.count.padded_branches" {print $2}')" 0

