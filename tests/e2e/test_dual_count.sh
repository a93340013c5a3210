#!/usr/bin/env bash
# test_dual_count.sh — count-triggered bursts on two-version code (`hotprof run --bursts count`,
# runtime/ctl/dual.c + dual_tramp.c, hooks_dual.h; docs/dual.md *Count-triggered bursts*):
#   - the recorded share of calls + loop back-edges is B/(B+S) within +-10% at period 999 burst 1
#     and at 99/1 (dual-blocks and dual-functions builds), and the events the trampolines and
#     hooks count equal the exhaustive run's within 1%;
#   - the same in one long loop entered before any burst (progs/dual_longloop.c: only its latch
#     trampoline sees it);
#   - two call sites with exactly equal call counts are sampled equally (4 sigma, binomial);
#   - a two-phase program (floating-point smoothing, tight integer loop: different event rates)
#     keeps its exhaustive method shares within 3 points; patched (time) bursts are printed beside;
#   - every thread keeps its own countdown: per thread, the events counted equal the exhaustive
#     run's (1%) and its recorded share is B/(B+S) (+-10%);
#   - identical program output (native vs count mode), fork children included (progs/patch_fork.c:
#     each child checks its own sum), with and without --follow-fork;
#   - INFO dual.count.*: trampolines made, events = the threads' sum; the report's sampling line
#     says count-triggered;
#   - `hotprof compare` of a count-mode profile with its exhaustive reference matches call pairs by
#     caller function (a call site has one address per copy): overlap near its maximum, where
#     --match address finds the clean copy's sites nowhere in the reference (printed);
#   - --bursts count on a program without two-version code: one clear error, non-zero exit.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
C="$ROOT/tests/e2e/check_dual_count.py"
cd "$T" || exit 1
if [ ! -f "$ROOT/build/lib/hotprof_dual.so" ]; then
    "$HP" cc --hooks=blocks -O2 -o plain "$P/dual_count_sites.c"
    check_fails_cleanly "count: non-dual build refused" "needs a program built with" \
        "$HP" run --bursts count --sample methods -o x.data -- ./plain 1000
    exit 0
fi

build() { # NAME HOOKS SRC: NAME.HOOKS and NAME.native
    "$HP" cc --hooks="$2" -O2 -o "$1.$2" "$3" -lm -lpthread || { fail "$1 $2: build"; return 1; }
    [ -x "$1.native" ] || clang -O2 -o "$1.native" "$3" -lm -lpthread || { fail "$1: native build"; return 1; }
}
json() { "$HP" report --format json --top 0 "$1" >"$2"; }
exhaustive() { # NAME HOOKS ARGS...: NAME.HOOKS.ex.json
    local name=$1 hs=$2; shift 2
    HOTPROF_OUTPUT="$name.$hs.ex.data" "./$name.$hs" "$@" >/dev/null && json "$name.$hs.ex.data" "$name.$hs.ex.json"
}
count() { # NAME HOOKS TAG SAMPLE ARGS...: NAME.HOOKS.TAG.{data,json,out}, output checked against native
    local name=$1 hs=$2 tag=$3 sample=$4; shift 4
    "$HP" run -q --bursts count $sample -o "$name.$hs.$tag.data" -- "./$name.$hs" "$@" >"$name.$hs.$tag.out" ||
        { fail "$name $hs $tag: run"; return 1; }
    "./$name.native" "$@" >"$name.want"
    check_eq "$name $hs $tag: same output as native" "$(cat "$name.$hs.$tag.out")" "$(cat "$name.want")"
    json "$name.$hs.$tag.data" "$name.$hs.$tag.json"
}

# ---- the recorded share and the event count, two rates, two hook sets
M999="--sample methods:period=999,burst=1"
M99="--sample methods:period=99,burst=1"
if build phases dual-blocks "$P/dual_count_phases.c" && build phases dual-functions "$P/dual_count_phases.c"; then
    for hs in dual-blocks dual-functions; do
        exhaustive phases "$hs" 4000 4000000 || { fail "phases $hs: exhaustive run"; continue; }
        count phases "$hs" c999 "$M999" 4000 4000000 && python3 "$C" share "phases.$hs.ex.json" "phases.$hs.c999.json" "phases $hs 1/1000"
        count phases "$hs" c99 "$M99" 4000 4000000 && python3 "$C" share "phases.$hs.ex.json" "phases.$hs.c99.json" "phases $hs 1/100"
    done
    # ---- the two phases keep their shares; patched (time-placed) bursts printed, not checked
    "$HP" run -q --bursts patch $M999 -o phases.patch.data -- ./phases.dual-blocks 4000 4000000 >/dev/null &&
        json phases.patch.data phases.patch.json
    python3 "$C" shares phases.dual-blocks.ex.json phases.dual-blocks.c999.json 0.03 "phases dual-blocks 1/1000" \
        phases.patch.json "patched"
    info=$("$HP" info phases.dual-blocks.c999.data)
    tr=$(printf '%s\n' "$info" | awk '$1 == "dual.count.trampolines" {print $2}')
    check "phases: INFO dual.count.trampolines > 0" test "${tr:-0}" -gt 0
    ev=$(printf '%s\n' "$info" | awk '$1 == "dual.count.events" {print $2}')
    sum=$(printf '%s\n' "$info" | awk '$1 ~ /^thread\.[0-9]+\.events\.methods$/ {s += $2} END {print s + 0}')
    check_eq "phases: INFO dual.count.events = the threads' events" "$ev" "$sum"
    check "phases: the report says count-triggered" sh -c "'$HP' report phases.dual-blocks.c999.data | grep -q 'sampling bursty (HPS, count-triggered)'"
    check "phases: patched report does not" sh -c "! '$HP' report phases.patch.data | grep -q 'count-triggered'"
fi

# ---- a call reached by a clean copy's tail call is keyed by the tail-calling function: relay's
# clean copy jumps to work, so the sampled call's return address is drive's; the pair must still
# be relay -> work, with the exhaustive share (each of the three pairs a third)
if build tailcall dual-functions "$P/dual_tailcall.c" && exhaustive tailcall dual-functions 400000; then
    count tailcall dual-functions c "--sample callpairs:period=99,burst=1" 400000 &&
        python3 - tailcall.dual-functions.ex.json tailcall.dual-functions.c.json <<'PY' || fail "tailcall: no profiles to read"
import json, sys
def shares(f):
    d = {}
    for r in json.load(open(f))["call_pairs"]:
        k = (r.get("caller_function"), r.get("callee_function"))
        d[k] = d.get(k, 0) + r["count"]
    t = sum(d.values()) or 1
    return {k: v / t for k, v in d.items()}
ex, c = shares(sys.argv[1]), shares(sys.argv[2])
for pair in (("relay", "work"), ("drive", "work"), ("drive", "relay")):
    a, b = ex.get(pair, 0), c.get(pair, 0)
    print(("ok" if abs(a - b) <= 0.03 else "FAIL") + " tailcall: pair %s -> %s share %.3f (exhaustive %.3f)" % (pair + (b, a)))
PY
fi

# ---- one long loop entered before any burst: its latch trampoline counts it, bursts reach it there
if build longloop dual-functions "$P/dual_longloop.c" && exhaustive longloop dual-functions 3000000; then
    count longloop dual-functions c "$M999" 3000000 &&
        python3 "$C" share longloop.dual-functions.ex.json longloop.dual-functions.c.json "longloop dual-functions 1/1000"
fi

# ---- two call sites with equal counts
if build sites dual-blocks "$P/dual_count_sites.c"; then
    count sites dual-blocks c "--sample callpairs:period=999,burst=1" 1000000 &&
        python3 "$C" sites sites.dual-blocks.c.json leaf "sites count 1/1000"
    "$HP" run -q --bursts patch --sample callpairs:period=999,burst=1 -o sites.patch.data -- ./sites.dual-blocks 1000000 \
        >/dev/null && json sites.patch.data sites.patch.json &&
        python3 "$C" sites sites.patch.json leaf "sites patched (printed only)" | sed 's/^\(ok\|FAIL\) /  patched: /'
    # compare: call pairs of the clean copy's sites are matched by caller function
    if HOTPROF_OUTPUT=sites.ex.data ./sites.dual-blocks 1000000 >/dev/null; then
        "$HP" compare --format json sites.dual-blocks.c.data sites.ex.data >cmp.auto.json 2>/dev/null
        "$HP" compare --format json --force --match address sites.dual-blocks.c.data sites.ex.data >cmp.addr.json 2>/dev/null
        python3 - cmp.auto.json cmp.addr.json <<'PY' || fail "compare count vs exhaustive: no comparison to read"
import json, sys
def pairs(f):
    j = json.loads(open(f).read())
    return j, {r["type"]: r for r in j["profiles"]}.get("call_pairs", {})
ja, a = pairs(sys.argv[1])
jb, b = pairs(sys.argv[2])
ok = ja.get("call_pairs_keyed_by") == "caller function" and "call_pairs_keyed_by" not in jb
print(("ok" if ok else "FAIL") + " compare count vs exhaustive: call pairs keyed by caller function (auto), by site (--match address)")
ov, mx = a.get("overlap", 0), a.get("overlap_max", 1)
print(("ok" if ov >= 0.95 * mx else "FAIL") + " compare count vs exhaustive: call-pair overlap %.3f >= 0.95 x max %.3f"
      " (by site address: %.3f)" % (ov, mx, b.get("overlap", 0)))
PY
    else fail "sites: exhaustive run"; fi
fi

# ---- threads: one countdown each
if build threads dual-functions "$P/dual_count_threads.c" && exhaustive threads dual-functions 4 200000; then
    count threads dual-functions c "$M999" 4 200000
    "$HP" info threads.dual-functions.ex.data | awk '$1 ~ /^thread\.[0-9]+$/ {print $2 + $4}' | sort -n >th.want
    "$HP" info threads.dual-functions.c.data | awk '$1 ~ /^thread\.[0-9]+\.(events|sampled)\.methods$/ {
        split($1, k, "."); v[k[2], k[3]] = $2; t[k[2]] = 1 } END { for (i in t) print v[i, "events"], v[i, "sampled"] }' |
        sort -n >th.got
    python3 - th.want th.got <<'PY'
import sys
want = [int(l) for l in open(sys.argv[1]) if l.strip()]
got = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if l.strip()]
big_w, big_g = want[-4:], got[-4:]  # the four workers (the main thread makes a handful of events)
ok = len(big_g) == 4 and all(abs(g[0] - w) <= 0.01 * w for g, w in zip(big_g, big_w))
print(("ok" if ok else "FAIL") + " threads: each thread's counted events = its exhaustive events (1%%): %s vs %s"
      % ([g[0] for g in big_g], big_w))
f = 1 / 1000.0
ok = len(big_g) == 4 and all(abs(g[1] / float(g[0]) - f) <= 0.1 * f for g in big_g if g[0])
print(("ok" if ok else "FAIL") + " threads: each thread's recorded share is B/(B+S) (+-10%%): %s"
      % ["%.6f" % (g[1] / float(g[0])) for g in big_g if g[0]])
PY
fi

# ---- fork children (each checks its own sum: exit status), with and without --follow-fork
if build fork dual-functions "$P/patch_fork.c"; then
    count fork dual-functions c "$M99" 500 3
    count fork dual-functions ff "--follow-fork $M99" 500 3
fi

# ---- a build without two-version code
"$HP" cc --hooks=blocks -O2 -o plain "$P/dual_count_sites.c"
check_fails_cleanly "count: non-dual build refused" "needs a program built with" \
    "$HP" run --bursts count --sample methods -o x.data -- ./plain 1000
lines=$("$HP" run --bursts count --sample methods -o x.data -- ./plain 1000 2>&1 >/dev/null | grep -vc '^hotprof: seed\|^hotprof: bursty sampling')
check_eq "count: non-dual build: one message" "$lines" 1
