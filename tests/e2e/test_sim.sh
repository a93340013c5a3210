#!/usr/bin/env bash
# test_sim.sh — `hotprof run --record-trace` and `hotprof sim` on real workloads built with
# `hotprof cc`: an edges trace (default kind) and a values trace of progs/sim_phases.c (planted
# phases), a calls trace of bench/workloads/mt_work (4 threads; and of its dual-functions build,
# whose back-edges come from the dual back-edge hook). The calls trace holds exactly the run's calls + back-edges and edges trace
# exactly its edges (both from `report --format json`); sim multihash prints every grid row with
# errors in [0, 100], its CSV parses with one row per configuration, its SVG is well-formed XML;
# sim hps with period 0 scores 100% (renormalized) and period 99 samples ~1%; a cut trace says so;
# a run that dies of SIGSEGV still leaves a complete trace up to the crash; a program that execs
# itself leaves one trace of both images (every call and back-edge of both profiles, <output>
# and <output>.<pid>; one thread: the main thread keeps its tid; not lost; the kind chosen by
# the first image), cut at --trace-limit over both images. Figures 4-6 lines
# and CSV columns are consistent (min <= mean <= max); --variant rebalanced rows have half the
# accumulator, more counters and no more area; --acc shrinks the area.
# Bad input, one message each: truncated trace, corrupt header, corrupt chunk, wrong kind for
# each subcommand, --tables 0, --counters not divisible, a threshold the bits cannot hold,
# --acc above 1/t, --acc with --variant rebalanced, a bad --variant,
# unknown options, --record-trace in bursty mode, a bad --trace-kind, a missing trace.
. "$(dirname "$0")/lib.sh"
cd "$T"
cp "$ROOT/tests/e2e/progs/sim_phases.c" "$ROOT/bench/workloads/mt_work.c" .
if ! "$HP" cc -O2 --hooks=all -o ph sim_phases.c || ! "$HP" cc -O2 -o mt mt_work.c -lpthread; then
    fail "workloads build with hotprof cc"
    exit 0
fi
json_total() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][sys.argv[2]])' "$1" "$2"; }
trace_events() { sed -n 's/^trace .* \([0-9][0-9]*\) events.*/\1/p' "$1" | head -n 1; }

# ---- recording
check "record an edges trace (default kind)" "$HP" run -q -o e.data --record-trace e.trace -- ./ph
check "record a values trace" "$HP" run -q -o v.data --record-trace v.trace --trace-kind values -- ./ph
check "record a calls trace of 4 threads" "$HP" run -q -o c.data --record-trace c.trace --trace-kind calls -- ./mt 20000 4
"$HP" report --format json e.data >e.json 2>/dev/null
"$HP" report --format json c.data >c.json 2>/dev/null

# ---- sim multihash
"$HP" sim multihash e.trace --conservative 0,1 --csv e.csv --svg e.svg >e.out 2>e.err
check_eq "sim multihash on edges exits 0" "$?" 0
check_eq "edges trace holds every edge of the run" "$(trace_events e.out)" "$(json_total e.json edges)"
check_eq "edges trace names its kind" "$(sed -n '1s/^trace [^:]*: \([a-z]*\) of.*/\1/p' e.out)" edges
check "edges CSV: one row per configuration, numbers in range" python3 - e.csv 10 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == int(sys.argv[2]), len(rows)
assert sorted({int(r["tables"]) for r in rows}) == [1, 2, 4, 8, 16]
for r in rows:
    for k in ("error_pct", "fp_pct", "fn_pct", "np_pct", "nn_pct", "fp_rate_pct", "fp_bound_pct"):
        assert 0 <= float(r[k]) <= 100, (k, r[k])
    parts = sum(float(r[k]) for k in ("fp_pct", "fn_pct", "np_pct", "nn_pct"))
    assert abs(parts - float(r["error_pct"])) < 1e-3, r
    assert int(r["area_bytes"]) > 0 and int(r["intervals"]) > 0
PY
check_eq "the text table has the CSV's rows" "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+  C[01] R[01]' e.out)" 10
check "edges SVG is well-formed XML with one line per C setting" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg")
assert len([e for e in root.iter() if e.tag.endswith("polyline")]) == 2' e.svg
"$HP" sim multihash v.trace --tables 1,4 --counters 2K,512 --csv v.csv >v.out 2>/dev/null
check_eq "sim multihash on values exits 0" "$?" 0
check "values CSV parses with one row per configuration" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4 and all(0 <= float(r["error_pct"]) <= 100 for r in rows), rows' v.csv

# ---- Figures 4-6 statistics and the rebalanced variant
"$HP" sim multihash v.trace --tables 4 --counters 1K,2K --variant paper,rebalanced --csv vr.csv >vr.out 2>/dev/null
check_eq "sim multihash --variant paper,rebalanced exits 0" "$?" 0
check "Figure 4-5 line printed" grep -qE '^per interval \(Figures 4-5\): distinct tuples mean [0-9.]+ min [0-9]+ max [0-9]+; candidates mean [0-9.]+ min [0-9]+ max [0-9]+$' vr.out
check "Figure 6 line printed" grep -qE '^candidate change between consecutive intervals \(Figure 6, exact sets\): [0-9.]+%$' vr.out
check "variant CSV: rebalanced rows have half the accumulator, more counters, no more area; statistics consistent" python3 - vr.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
by = {(r["variant"], i // 2): r for i, r in enumerate(rows)}
for k in (0, 1):
    p, v = by[("paper", k)], by[("rebalanced", k)]
    assert int(v["acc_entries"]) * 2 == int(p["acc_entries"]) == 100, (p, v)
    assert int(v["counters"]) > int(p["counters"]) and int(v["counters"]) % 4 == 0, (p, v)
    assert int(v["area_bytes"]) <= int(p["area_bytes"]), (p, v)
for r in rows:
    assert int(r["distinct_min"]) <= float(r["distinct_mean"]) <= int(r["distinct_max"]), r
    assert int(r["cand_min"]) <= float(r["cand_mean"]) <= int(r["cand_max"]) <= int(r["distinct_max"]), r
    assert 0 <= float(r["change_pct"]) <= 100 and float(r["cand_mean"]) > 0, r
PY
"$HP" sim multihash v.trace --tables 4 --acc 10,100 --csv va.csv >/dev/null 2>&1
check "--acc sets the accumulator and the area shrinks with it" python3 -c '
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert [x["acc_entries"] for x in r] == ["10", "100"] and int(r[0]["area_bytes"]) < int(r[1]["area_bytes"]), r' va.csv

# ---- sim hps
"$HP" sim hps c.trace --period 0,99 --burst 1,10 --csv c.csv >c.out 2>/dev/null
check_eq "sim hps exits 0" "$?" 0
want=$(( $(json_total c.json calls) + $(json_total c.json backedges) ))
check_eq "calls trace holds every call and back-edge of the run" "$(trace_events c.out)" "$want"
# a dual build's back-edges are its LoopInfo latches, counted by the dual back-edge hook, not by
# the address rule: its calls trace held the calls alone (mt_work: 80 004 of 160 008 events)
if [ -f "$ROOT/build/lib/hotprof_dual.so" ]; then
    "$HP" cc -O2 --hooks=dual-functions -o mtd mt_work.c -lpthread
    "$HP" run -q -o cd.data --record-trace cd.trace --trace-kind calls -- ./mtd 20000 4 >/dev/null 2>&1
    "$HP" report --format json cd.data >cd.json 2>/dev/null
    "$HP" sim hps cd.trace --period 0 --burst 1 >cd.out 2>/dev/null
    check "dual build: the run has back-edges" test "$(json_total cd.json backedges)" -gt 0
    check_eq "dual build: calls trace holds every call and back-edge of the run" "$(trace_events cd.out)" \
        "$(( $(json_total cd.json calls) + $(json_total cd.json backedges) ))"
else
    ok "dual build's calls trace: no plugin built: skipped"
fi
check "sim hps: period 0 is 100%, period 99 samples ~1%" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    p, b = int(r["period"]), int(r["burst"])
    if p == 0:
        assert float(r["methods_renorm_pct"]) == 100 and float(r["pairs_renorm_pct"]) == 100, r
        assert float(r["frequency_pct"]) == 100, r
    else:
        want = 100.0 * b / (b + p)
        assert abs(float(r["frequency_pct"]) - want) < 0.05 * want, r
        assert 50 <= float(r["methods_renorm_pct"]) <= 100, r' c.csv
check "calls trace has the 4 worker threads and the main thread" grep -qE 'calls of \./mt, 5 threads' c.out

# ---- a cut trace
"$HP" run -q -o cut.data --record-trace cut.trace --trace-limit 5000 -- ./ph >/dev/null 2>&1
"$HP" sim multihash cut.trace --interval 1000 --tables 4 >cut.out 2>cut.err
check_eq "a cut trace holds exactly the limit" "$(trace_events cut.out)" 5000
check "a cut trace says so" grep -q "cut at" cut.err

# ---- exec: the exec'd image appends to the same trace
cp "$ROOT/tests/e2e/progs/rt_exec.c" .
if "$HP" cc -O2 -o rx rt_exec.c; then
    env -u HOTPROF_QUIET "$HP" run -o ex.data --record-trace ex.trace --trace-kind calls -- ./rx 1000 >/dev/null 2>ex.err
    "$HP" sim hps ex.trace --period 0 --burst 1 >ex.out 2>ex2.err
    both=0
    for f in ex.data ex.data.*; do
        "$HP" report --format json "$f" >exr.json 2>/dev/null
        both=$(( both + $(json_total exr.json calls) + $(json_total exr.json backedges) ))
    done
    check_eq "two profiles: the image before and after exec" "$(ls ex.data ex.data.* 2>/dev/null | wc -l)" 2
    check_eq "an exec'ing run's trace holds every call and back-edge of both images" "$(trace_events ex.out)" "$both"
    check "... in one thread, not marked lost, and the run says the exec'd image appended" bash -c \
        'grep -q "calls of ./rx, 1 threads" "$0" && ! grep -q "lost\|incomplete" "$1" "$2" && grep -q "exec.d images appended" "$1"' ex.out ex.err ex2.err
    "$HP" run -q -o exd.data --record-trace exd.trace --trace-limit 2500 -- ./rx 1000 >/dev/null 2>&1
    "$HP" sim multihash exd.trace --interval 100 --tables 4 >exd.out 2>exd.err
    check_eq "the exec'd image traces the first image's automatic kind (edges), cut at the limit over both" \
        "$(sed -n '1s/^trace [^:]*: \([a-z]*\) of.*/\1/p' exd.out) $(trace_events exd.out)" "edges 2500"
    check "... and says it is cut" grep -q "cut at" exd.err
else
    fail "rt_exec.c builds with hotprof cc"
fi

# ---- a crash: the runtime's fatal-signal handler flushes the trace (not marked lost)
cp "$ROOT/tests/e2e/progs/crash.c" .
if "$HP" cc -O2 -o crash crash.c; then
    "$HP" run -q -o cr.data --record-trace cr.trace --trace-kind calls -- ./crash >/dev/null 2>cr.err
    "$HP" report --format json cr.data >cr.json 2>/dev/null
    "$HP" sim hps cr.trace --period 0 --burst 1 >cr.out 2>cr2.err
    check_eq "a crashed run's trace holds every call and back-edge up to the crash" "$(trace_events cr.out)" \
        "$(( $(json_total cr.json calls) + $(json_total cr.json backedges) ))"
    check "a crashed run's trace is not marked lost" bash -c '! grep -q "lost\|incomplete" "$0" "$1"' cr.err cr2.err
else
    fail "crash.c builds with hotprof cc"
fi

# ---- bad input
head -c $(( $(stat -c %s e.trace) - 7 )) e.trace >trunc.trace
check_fails_cleanly "truncated trace" "truncated" "$HP" sim multihash trunc.trace
cp e.trace hdr.trace; printf '\x7f' | dd of=hdr.trace bs=1 seek=20 conv=notrunc status=none
check_fails_cleanly "corrupt header" "corrupt trace header" "$HP" sim multihash hdr.trace
cp e.trace chunk.trace; printf '\x55\x55' | dd of=chunk.trace bs=1 seek=$(( $(stat -c %s e.trace) / 2 )) conv=notrunc status=none
check_fails_cleanly "corrupt chunk (checksum)" "corrupt trace chunk" "$HP" sim multihash chunk.trace
check_fails_cleanly "not a trace" "not a hotprof trace" "$HP" sim multihash e.data
check_fails_cleanly "missing trace" "cannot open trace" "$HP" sim multihash nosuch.trace
check_fails_cleanly "sim hps on an edges trace" "needs a calls trace" "$HP" sim hps e.trace --period 9 --burst 1
check_fails_cleanly "sim multihash on a calls trace" "calls trace" "$HP" sim multihash c.trace
check_fails_cleanly "--tables 0" "tables 0" "$HP" sim multihash e.trace --tables 0
check_fails_cleanly "--counters not divisible" "not divisible" "$HP" sim multihash e.trace --tables 3 --counters 2K
check_fails_cleanly "threshold the counters cannot hold" "cannot hold the threshold" "$HP" sim multihash e.trace --bits 6 --interval 10000 --threshold 1%
check_fails_cleanly "unknown option" "unknown option|not an option|unrecognized" "$HP" sim multihash e.trace --bogus 1
check_fails_cleanly "--acc larger than 1/threshold" "at most ceil" "$HP" sim multihash e.trace --acc 101
check_fails_cleanly "--acc with --variant rebalanced" "leave --acc at 0" "$HP" sim multihash e.trace --acc 10 --variant rebalanced
check_fails_cleanly "a bad --variant" "not paper, rebalanced or half" "$HP" sim multihash e.trace --variant bogus
check_fails_cleanly "an hps option to multihash" "not an option of 'sim multihash'" "$HP" sim multihash e.trace --period 5
check_fails_cleanly "unknown simulation" "not a simulation" "$HP" sim bogus e.trace
check_fails_cleanly "--record-trace in bursty mode" "needs --mode exhaustive" "$HP" run --mode bursty --record-trace x.trace -- ./ph
check_fails_cleanly "bad --trace-kind" "not values, edges or calls" "$HP" run --record-trace x.trace --trace-kind blocks -- ./ph
check_eq "no trace left behind by refused runs" "$(ls x.trace* 2>/dev/null | wc -l)" 0
check "sim --csv into an unwritable place fails cleanly, no partial file" bash -c '! "$0" sim multihash "$1" --tables 4 --csv /nonexistent/dir/x.csv 2>/dev/null' "$HP" e.trace
