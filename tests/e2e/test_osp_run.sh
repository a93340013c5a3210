#!/usr/bin/env bash
# test_osp_run.sh — the run side of online subpath profiling (issue 9), without the analysis side:
# progs/osp_loop.c (a loop of known trip count) built with --hooks=blocks and run
#   - exact (--mode exhaustive --sample subpath): the SUBPATHS counts per length add up to the
#     windows of the block stream, length-2 counts equal the same run's edge counts (report
#     --edges), the loop's hottest length-2 subpath ran N times (check_osp_run.py exact);
#   - live (--sample subpath, enc=xor and exact): estimates of the hottest length-2 and -4
#     subpaths within 10% of the exact counts; a 2K budget thins within its bytes; skiponly
#     records nothing; weight=cost rejects and folds the acceptance into p_length;
#   - without --bursts a --hooks=blocks build takes live skips and says so in one line naming the
#     dual-blocks build (not with an explicit --bursts live, nor with -q);
#   - patched windows (--bursts patch; its report warns that the counts are not calibrated): INFO
#     skip=patch, methods sampled beside, the program's output unchanged, estimated blocks and the
#     hottest subpath near exact (one loop; and threads); the two-phase bias test on
#     progs/osp_phases.c (check_osp_phases.py: each phase's weighted estimate near exact, where
#     the unweighted sample counts are off by the phases' rate ratio);
#   - hotprof_snapshot_topk(HOTPROF_SAMPLE_SUBPATH) from inside, in both modes;
#   - the program's output is the same profiled or not; bad settings fail with one message.
# Profiles are decoded by osp_decode.py (docs/format.md, SUBPATHS).
. "$(dirname "$0")/lib.sh"
cd "$T"
P="$ROOT/tests/e2e/progs"
N=300000
dec() { python3 "$ROOT/tests/e2e/osp_decode.py" "$1" >"$2"; }
if ! "$HP" cc --hooks=blocks -O0 -I"$ROOT/include" -o osp_loop "$P/osp_loop.c" -lpthread; then fail "osp: build"; exit 0; fi
want=$(HOTPROF_MODE=off ./osp_loop $N)

# exact
"$HP" run -q --mode exhaustive --sample subpath -o ex.data -- ./osp_loop $N topk >ex.out 2>ex.err
check_eq "exact: program output unchanged" "$(cat ex.out)" "$want"
dec ex.data ex.json || fail "exact: decode"
"$HP" report --format json --top 0 --edges ex.data >edges.json || fail "exact: report --edges"
python3 "$ROOT/tests/e2e/check_osp_run.py" exact ex.json edges.json $N
top=$(awk '/^topk/ {print $4; exit}' ex.err)
check_eq "exact: snapshot_topk's hottest subpath ran N times" "$top" "$N"

# live, both encodings
for enc in xor exact; do
    "$HP" run -q --mode exhaustive --sample subpath:enc=$enc -o ex_$enc.data -- ./osp_loop $N >/dev/null 2>&1
    dec ex_$enc.data ex_$enc.json
    "$HP" run -q --seed 7 --bursts live --sample subpath:enc=$enc -o live_$enc.data -- ./osp_loop $N topk >live.out 2>live.err
    check_eq "live enc=$enc: program output unchanged" "$(cat live.out)" "$want"
    dec live_$enc.data live_$enc.json || fail "live enc=$enc: decode"
    python3 "$ROOT/tests/e2e/check_osp_run.py" live live_$enc.json ex_$enc.json "live enc=$enc"
    n=$(grep -c '^topk [0-9]' live.err)
    check_eq "live enc=$enc: snapshot_topk gives 3 subpaths" "$n" 3
done

"$HP" run -q --seed 3 --bursts live --sample subpath:mem=2K,enc=exact -o small.data -- ./osp_loop $N >/dev/null 2>&1
dec small.data small.json && python3 "$ROOT/tests/e2e/check_osp_run.py" small small.json 2048
# a counting list that thinned (2K): snapshot_topk picks and orders its rows as the report ranks
# them (the counted share of each estimate), with the same estimates
"$HP" run -q --seed 5 --bursts live --sample subpath:mem=2K -o smallk.data -- ./osp_loop $N topk >/dev/null 2>smallk.err
"$HP" report --type subpath --format json --top 3 smallk.data >smallk.json 2>/dev/null
check_eq "counting list: snapshot_topk's 3 subpaths are the report's top 3, in its order" \
    "$(awk '/^topk [0-9]/ {print $2}' smallk.err | tr '\n' ' ')" \
    "$(python3 -c 'import json,sys; print(" ".join(str(int(r["key"], 16)) for r in json.load(open(sys.argv[1]))["subpaths"]["rows"]) + " ")' smallk.json)"
check "counting list: the list thinned (tau > 1)" python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["subpaths"]; assert d["tau"] > 1 and "list=counting" in d["params"], d["tau"]' smallk.json
"$HP" run -q --bursts live --sample subpath:skiponly=1 -o skip.data -- ./osp_loop $N >/dev/null 2>&1
dec skip.data skip.json && python3 "$ROOT/tests/e2e/check_osp_run.py" skiponly skip.json
# prefixes (the default): every prefix of a sample the law draws, with p_length P(L >= l)
dec live_xor.data live_xor.json && python3 "$ROOT/tests/e2e/check_osp_run.py" prefixes live_xor.json on
"$HP" run -q --seed 7 --bursts live --sample subpath:prefixes=off -o nopre.data -- ./osp_loop $N >/dev/null 2>&1
dec nopre.data nopre.json && python3 "$ROOT/tests/e2e/check_osp_run.py" prefixes nopre.json off
python3 "$ROOT/tests/e2e/check_osp_run.py" live nopre.json ex_xor.json "live prefixes=off"
"$HP" run -q --bursts live --sample subpath:weight=cost -o cost.data -- ./osp_loop $N >/dev/null 2>&1
dec cost.data cost.json && python3 "$ROOT/tests/e2e/check_osp_run.py" cost cost.json

# the default on a build without two-version code: live skips, said in one line
env -u HOTPROF_QUIET "$HP" run --seed 7 --sample subpath -o dflt.data -- ./osp_loop 1000 >/dev/null 2>dflt.err
check_eq "default: subpath.skip live" "$("$HP" info dflt.data | awk '$1 == "subpath.skip" {print $2}')" live
check "default: one line says live hooks and names the dual-blocks build" \
    test "$(grep -c 'subpaths: live hooks count every block.*--hooks=dual-blocks' dflt.err)" = 1
env -u HOTPROF_QUIET "$HP" run --seed 7 --bursts live --sample subpath -o dflt.data -- ./osp_loop 1000 >/dev/null 2>dflt.err
check "--bursts live: no such line" sh -c "! grep -q 'subpaths: live hooks' dflt.err"
env -u HOTPROF_QUIET "$HP" run -q --seed 7 --sample subpath -o dflt.data -- ./osp_loop 1000 >/dev/null 2>dflt.err
check "-q: no such line" sh -c "! grep -q 'subpaths: live hooks' dflt.err"

# patched windows (--bursts patch): one sample per thread per window, weighted by the blocks its
# interval stood for.
PN=30000000
"$HP" run -q --mode exhaustive --sample subpath -o exbig.data -- ./osp_loop $PN >/dev/null 2>&1
dec exbig.data exbig.json
"$HP" run -q --seed 7 --bursts patch --sample subpath -o patch.data -- ./osp_loop $PN >patch.out 2>&1
check_eq "patch: program output unchanged" "$(head -n 1 patch.out)" "$(HOTPROF_MODE=off ./osp_loop $PN)"
# osp_loop's blocks take < 1 ns: the absolute rate is not resolved (TOL 0), the shares are.
# A window's weight comes from that rate too: when the gap floor was a median of TSC readings that
# advance in steps (42 or 63 ticks run to run), one window could weigh hundreds of times the
# others (CI, session 32: the hottest subpath's share 0.73 against 0.20). The floor is now a mean
# (hp_osp_gap_floor, docs/osp.md), and one seed must do.
dec patch.data patch.json && python3 "$ROOT/tests/e2e/check_osp_run.py" patch patch.json exbig.json "patch" 0
# its report says the counts are not to be read (they were printed as estimates, no word of it)
"$HP" report --type subpath patch.data >patch.rep 2>&1
check "patch: report warns that the counts are not calibrated" grep -q 'patched windows: .*rank within a phase, do not read counts' <(tr -d '\n' <patch.rep | sed 's/    / /g')
"$HP" report --type subpath live_xor.data >live.rep 2>&1
check "live: no such warning" sh -c "! grep -q 'patched windows:' live.rep"
# with an HPS type: subpaths record in its windows (its schedule: fewer windows), methods beside
"$HP" run -q --seed 7 --bursts patch --sample methods --sample subpath -o patchm.data -- ./osp_loop $PN >/dev/null 2>&1
check_eq "patch + methods: subpath.skip" "$("$HP" info patchm.data | awk '$1 == "subpath.skip" {print $2}')" patch
n=$("$HP" info patchm.data | awk '$1 == "subpath.samples" {print $2}')
check "patch + methods: subpath samples taken (${n:-none})" test "${n:-0}" -gt 0
check "patch + methods: the methods table beside" sh -c "'$HP' report --top 3 patchm.data | grep -q work"
"$HP" run -q --seed 7 --bursts live --sample subpath -o forced.data -- ./osp_loop 1000 >/dev/null 2>&1
check_eq "--bursts live keeps live skips" "$("$HP" info forced.data | awk '$1 == "subpath.skip" {print $2}')" live

# the time bias: two phases of very different block rates (check_osp_phases.py)
if "$HP" cc --hooks=blocks -O0 -o osp_phases "$P/osp_phases.c"; then
    PS=${OSP_PHASES_SCALE:-4}
    "$HP" run -q --mode exhaustive --sample subpath -o phx.data -- ./osp_phases "$PS" >phx.out 2>&1
    "$HP" run -q --seed 11 --sample subpath -o phl.data -- ./osp_phases "$PS" >phl.out 2>&1
    "$HP" run -q --seed 11 --bursts patch --sample subpath -o php.data -- ./osp_phases "$PS" >php.out 2>&1
    check_eq "phases: program output unchanged (live)" "$(cat phl.out)" "$(HOTPROF_MODE=off ./osp_phases "$PS")"
    check_eq "phases: program output unchanged (patch)" "$(cat php.out)" "$(HOTPROF_MODE=off ./osp_phases "$PS")"
    "$HP" report --type subpath --format json --top 0 phx.data >phx.json
    "$HP" report --type subpath --format json --top 0 phl.data >phl.json
    "$HP" report --type subpath --format json --top 0 php.data >php.json
    # live skips (the default): each phase's blocks and the slow phase's share near exact, within
    # the statistics of the samples (no systematic allowance)
    python3 "$ROOT/tests/e2e/check_osp_phases.py" phl.json phx.json "phases live" 0 0 live
    # patched windows: their weights are not calibrated (docs/osp.md, "Where the skipping runs"):
    # measured -80..-93% and +300% on the workloads; printed, not checked, until they are
    python3 "$ROOT/tests/e2e/check_osp_phases.py" php.json phx.json "phases patch" 0.5 0.75 measure
    check "phases patch: both phases sampled" python3 -c "import json,sys; d=json.load(open('php.json')); sys.exit(0 if len(d['subpaths']['rows']) >= 2 else 1)"
else
    fail "phases: build"
fi

# threads: 70 in turn (past 64 exited threads their states are recycled): the exact counts of
# every thread add up in one section; the live estimate follows
TN=20000 TT=70
want_t=$(HOTPROF_MODE=off ./osp_loop $TN - $TT)
"$HP" run -q --mode exhaustive --sample subpath -o ext.data -- ./osp_loop $TN - $TT >ext.out 2>&1
check_eq "threads exact: program output unchanged" "$(head -n 1 ext.out)" "$want_t"
dec ext.data ext.json
top=$(python3 -c "import json; print(max(r['count'] for r in json.load(open('ext.json'))['subpaths'] if r['length'] == 2))")
check_eq "threads exact: the hottest length-2 subpath ran T x N times" "$top" $((TN * TT))
"$HP" run -q --seed 5 --bursts live --sample subpath -o livet.data -- ./osp_loop $TN - $TT >/dev/null 2>&1
dec livet.data livet.json && python3 "$ROOT/tests/e2e/check_osp_run.py" live livet.json ext.json "threads live"
# patched windows with threads: 4 in turn, each long enough for many windows
PTN=8000000 PTT=4
"$HP" run -q --mode exhaustive --sample subpath -o expt.data -- ./osp_loop $PTN - $PTT >/dev/null 2>&1
"$HP" run -q --seed 5 --bursts patch --sample subpath -o patcht.data -- ./osp_loop $PTN - $PTT >patcht.out 2>&1
check_eq "threads patch: program output unchanged" "$(head -n 1 patcht.out)" "$(HOTPROF_MODE=off ./osp_loop $PTN - $PTT)"
dec expt.data expt.json
dec patcht.data patcht.json && python3 "$ROOT/tests/e2e/check_osp_run.py" patch patcht.json expt.json "threads patch" 0

# bad settings: one message, non-zero exit, no profile
check_fails_cleanly "mem=1 is too small" "subpath:mem=1: too small: at least 1K" "$HP" run --sample subpath:mem=1 -o bad.data -- ./osp_loop 10
check_fails_cleanly "unknown enc" "subpath: unknown enc 'foo' \(xor or exact\)" "$HP" run --sample subpath:enc=foo -o bad.data -- ./osp_loop 10
check_fails_cleanly "maxlen=3 with len=pow2" "subpath:maxlen=3: not a power of two" "$HP" run --sample subpath:maxlen=3,len=pow2 -o bad.data -- ./osp_loop 10
check_fails_cleanly "exhaustive names only subpath" "needs --mode bursty" "$HP" run --mode exhaustive --sample methods -o bad.data -- ./osp_loop 10
check_eq "no profile left by bad settings" "$(ls bad.data 2>/dev/null)" ""
# the same through the environment: the runtime says it once and the program runs unprofiled
out=$(HOTPROF_QUIET= HOTPROF_MODE=exhaustive HOTPROF_SAMPLE=subpath:enc=foo HOTPROF_OUTPUT=env.data ./osp_loop 1000 2>env.err)
check_eq "HOTPROF_SAMPLE bad subpath: program runs" "$out" "$(HOTPROF_MODE=off ./osp_loop 1000)"
check "HOTPROF_SAMPLE bad subpath: one message" grep -q "bad HOTPROF_SAMPLE: subpath: unknown enc 'foo'" env.err
check_eq "HOTPROF_SAMPLE bad subpath: no profile" "$(ls env.data 2>/dev/null)" ""
