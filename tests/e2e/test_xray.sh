#!/usr/bin/env bash
# test_xray.sh — time-driven bursts over XRay sleds (hotprof cc --hooks=xray, runtime/ctl/xray.c):
#  (a) build: the xray hook set compiles sleds and links the static runtime plus XRay's; gcc is
#      refused with one clear message; the set is retired (issue 14): each build says so in one
#      line pointing to --hooks=dual-functions, and still builds;
#  (b) accuracy: gametree (bench/workloads/gametree.c) in bursty mode (methods S=19800, B=200)
#      against the same binary with methods S=0 (sleds patched for good: every entry recorded):
#      hotprof compare's "methods (calls)" overlap >= 0.8, the same top-3 methods as an exhaustive
#      --hooks=functions build, program output still "ok", the profile's INFO and report mark the
#      counts as raw sampled counts with their exposure;
#  (c) a program without sleds, XRay required (HOTPROF_XRAY=1): one clear message, the run goes on.
#  (d) an exhaustive run of an XRay build patches every sled and records every call (issue 8,
#      defect 13): FUNCS with the same calls per function as the --hooks=functions build, and
#      compare finds methods in common with a bursty run;
#  (e) a bursty run of an XRay build does not say "XRay sleds record only in bursty mode"
#      (defect 16), nor anything else about XRay, when not quiet.
# Speed is not checked here (bench/fastpath: variant hp-xray-bursty).
. "$(dirname "$0")/lib.sh"
cd "$T"
W="$ROOT/bench/workloads/gametree.c"
SPEC=methods:period=19800,burst=200

if ! command -v clang >/dev/null; then
    ok "xray: skipped (no clang)"
    exit 0
fi

# ---- (a) build
check "xray: print-command has the sled and link flags" \
    sh -c "'$HP' cc --hooks=xray --print-command -O2 -o g '$W' -lm | grep -q -- '-fxray-instruction-threshold=1 .*libhotprof_rt.a.* -fxray-instrument'"
check_fails_cleanly "xray: gcc refused" "gcc lacks -fxray-instrument" "$HP" cc --hooks=xray --compiler=gcc -O2 -o gg "$W" -lm
# retired (issue 14): every build says so once and points to dual-functions, and still builds
"$HP" cc --hooks=xray -O2 -o retired "$W" -lm 2>retired.err
check_eq "xray: retired, still builds" "$?" 0
check_eq "xray: retired: one line pointing to dual-functions" \
    "$(grep -c 'hooks=xray is retired.*use --hooks=dual-functions' retired.err)" 1

# top3 JSON: the names of the three hottest methods, sorted
top3() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(" ".join(sorted(m["function"] for m in r["methods"][:3])))' "$1"; }

if "$HP" cc --hooks=xray -O2 -o gametree "$W" -lm && "$HP" cc --hooks=functions -O2 -o gametree_fn "$W" -lm; then
    ok "xray: gametree builds with sleds and the static runtime"
    check "xray: the binary has sleds" sh -c "readelf -S gametree | grep -q xray_instr_map"
    # ---- (b) accuracy
    "$HP" run -q -o exh.data -- ./gametree_fn 10 >exh.out
    "$HP" run -q --sample methods:period=0 -o all.data -- ./gametree 10 >all.out
    "$HP" run -q --seed 1 --sample "$SPEC" -o bur.data -- ./gametree 10 >bur.out
    check_eq "xray: bursty run succeeds" "$?" 0
    check_eq "xray: program output unchanged" "$(cut -c1-2 bur.out)" "ok"
    check_eq "xray: same output as the functions build" "$(cat bur.out)" "$(cat exh.out)"
    check "xray: INFO mode=xray" sh -c "'$HP' info bur.data | grep -qE '^  mode +xray'"
    bursts=$("$HP" info bur.data | awk '$1 == "xray.bursts" {print $2}' | tail -1)
    sampled=$("$HP" info bur.data | awk '$1 == "xray.sampled_entries" {print $2}' | tail -1)
    calls=$("$HP" info bur.data | awk '$1 == "total.calls" {print $2}' | tail -1)
    if [ "${bursts:-0}" -ge 3 ]; then ok "xray: $bursts bursts"; else fail "xray: bursts" "got '$bursts'"; fi
    check_eq "xray: sampled entries = recorded calls" "$sampled" "$calls"
    allc=$("$HP" info all.data | awk '$1 == "total.calls" {print $2}' | tail -1)
    if [ "${calls:-0}" -gt 0 ] && [ "${calls:-0}" -lt "${allc:-0}" ]; then ok "xray: sampled $calls of $allc entries"
    else fail "xray: sampled fewer than all" "$calls vs $allc"; fi
    "$HP" compare --format json bur.data all.data >cmp.json
    ov=$(python3 -c 'import json; r=json.load(open("cmp.json"))
print(next(p["overlap"] for p in r["profiles"] if p["type"] == "calls"))')
    if python3 -c "import sys; sys.exit(0 if $ov >= 0.8 else 1)"; then ok "xray: methods-by-calls overlap $ov >= 0.8"
    else fail "xray: overlap" "$ov < 0.8"; fi
    "$HP" report --format json --top 0 bur.data >bur.json && "$HP" report --format json --top 0 exh.data >exh.json
    check_eq "xray: top-3 methods = exhaustive (functions build)" "$(top3 bur.json)" "$(top3 exh.json)"
    check "xray: JSON marks raw sampled counts" grep -q '"raw_sampled_counts": true' bur.json
    check "xray: text report marks raw sampled counts" sh -c "'$HP' report bur.data | grep -q 'RAW SAMPLED counts, not estimates'"
else
    fail "xray: gametree build"
fi

# ---- (d) exhaustive on an XRay build: every sled patched, every call recorded
if [ -x gametree ]; then
    "$HP" run -q -o xexh.data -- ./gametree 10 >xexh.out
    check_eq "xray exhaustive: run succeeds" "$?" 0
    check "xray exhaustive: INFO mode=exhaustive" sh -c "'$HP' info xexh.data | grep -qE '^  mode +exhaustive'"
    xcalls=$("$HP" info xexh.data | awk '$1 == "total.calls" {print $2}' | tail -1)
    fcalls=$("$HP" info exh.data | awk '$1 == "total.calls" {print $2}' | tail -1)
    check_eq "xray exhaustive: every call recorded (= the functions build)" "${xcalls:-0}" "${fcalls:-unset}"
    "$HP" report --format json --top 0 xexh.data >xexh.json 2>xexh.err
    calls_by_fn() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (m["function"], m["calls"]) for m in sorted(r["methods"], key=lambda m: m["function"])))' "$1" 2>/dev/null; }
    check_eq "xray exhaustive: calls of every function = the functions build" "$(calls_by_fn xexh.json)" "$(calls_by_fn exh.json)"
    check_eq "xray exhaustive: top-3 methods = exhaustive (functions build)" "$(top3 xexh.json 2>/dev/null)" "$(top3 exh.json)"
    "$HP" compare --format json bur.data xexh.data >xcmp.json 2>xcmp.err
    check_eq "xray exhaustive: compare with the bursty run succeeds" "$?" 0
    xov=$(python3 -c 'import json; r=json.load(open("xcmp.json"))
print(next(p["overlap"] for p in r["profiles"] if p["type"] == "calls"))' 2>/dev/null)
    if python3 -c "import sys; sys.exit(0 if ${xov:-0} >= 0.8 else 1)"; then ok "xray exhaustive: bursty vs exhaustive overlap $xov >= 0.8"
    else fail "xray exhaustive: overlap" "'$xov' ($(head -c 200 xcmp.err))"; fi
    # ---- (e) bursty, not quiet: no word about XRay being unusable
    HOTPROF_QUIET=0 "$HP" run --seed 1 --sample "$SPEC" -o loud.data -- ./gametree 6 >loud.out 2>loud.err
    check_eq "xray bursty (not quiet): run succeeds" "$?" 0
    check "xray bursty (not quiet): no 'record only in bursty mode'" sh -c "! grep -q 'only in bursty mode' loud.err"
    check "xray bursty (not quiet): says it wrote the profile" grep -q 'hotprof: wrote' loud.err
fi

# ---- (c) no sleds, XRay required
if "$HP" cc --hooks=functions -O2 -o plain "$W" -lm; then
    HOTPROF_XRAY=1 "$HP" run -q --sample "$SPEC" -o plain.data -- ./plain 6 >plain.out 2>plain.err
    check_eq "xray: no sleds: the program runs on" "$(cut -c1-2 plain.out)" "ok"
    check "xray: no sleds: one clear message" grep -q 'xray: unavailable: the program has no XRay sleds' plain.err
else
    fail "xray: plain build"
fi
