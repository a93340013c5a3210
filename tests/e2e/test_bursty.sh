#!/usr/bin/env bash
# test_bursty.sh — bursty (HPS) sampling in the runtime, end to end:
#  (a) accuracy: a workload (bench/workloads/gametree.c) profiled exhaustively and at
#      methods period 99 / burst 1: observed frequency = B/(B+S), scaled method counts inside the
#      report's 95% intervals and close to the exhaustive counts (check_bursty.py); edges too;
#  (b) online control: a program that disables methods halfway and re-enables them at another
#      period (progs/bursty_ctl.c) has sampled counts for its first and last phases only;
#  (c) hotprof_snapshot_topk from a running multithreaded program returns the hottest function
#      and call pair (progs/bursty_topk.c), in bursty and exhaustive mode;
#  (d) a bad HOTPROF_SAMPLE disables the runtime with one message and the program runs on;
#      a bad --sample is a usage error.
. "$(dirname "$0")/lib.sh"
# These checks test the live HPS counters (exact Figure 4 patterns, scaled estimates); patched
# bursts (the default where hooks are patchable) have their own tests in test_patch.sh.
export HOTPROF_BURSTS=live
P="$ROOT/tests/e2e/progs"
cd "$T"

# sampled NAME JSON: the raw sampled heat of function NAME in a bursty report (0 if absent)
sampled() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[2]))
print(sum(m["sampled"] for m in r["methods"] if m["function"] == sys.argv[1]))' "$1" "$2"
}
# in_range NAME VALUE LO HI
in_range() { if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1 ($2 in [$3, $4])"; else fail "$1" "$2 not in [$3, $4]"; fi; }

# ---- (a) accuracy against the exhaustive run
if "$HP" cc -O2 -o gametree "$ROOT/bench/workloads/gametree.c" -lm; then
    "$HP" run -q -o exh.data -- ./gametree 8 >/dev/null
    "$HP" run -q --seed 1 --sample methods:period=99,burst=1,jitter=0 --sample edges:period=50,burst=10,jitter=0 -o bur.data \
        -- ./gametree 8 >/dev/null
    check_eq "gametree: bursty run succeeds" "$?" 0
    "$HP" report --format json --top 0 exh.data >exh.json && "$HP" report --format json --top 0 --edges bur.data >bur.json
    python3 "$ROOT/tests/e2e/check_bursty.py" exh.json bur.json 99 1 "gametree methods 1/100"
    f=$(python3 -c 'import json; s=json.load(open("bur.json"))["sampling"]["edges"]; print(round(s["observed_frequency"]*60, 3))')
    check_eq "gametree: edges observed frequency = 10/60" "$f" 10.0
    check "gametree: edge rows are estimates" grep -q '"estimated": true, "sampled"' bur.json
    "$HP" report --edges bur.data >bur.txt
    check "gametree: text report marks estimates" grep -q 'est.heat' bur.txt
    check "gametree: text report lists the sampling parameters" grep -qE 'methods    on  S=99 B=1 jitter=0%  sampled [0-9]+/[0-9]+ = 0\.0100.. \(B/\(B\+S\) 0\.010000\)' bur.txt
    # names are never cut (rtable.h): only a table naming inlined code (wider names) may be wider
    check_eq "gametree: text rows fit 100 columns (but in tables naming inlined code)" \
        "$(awk -v RS= '/inlined/ {next} {n = split($0, l, "\n"); for (i = 1; i <= n; i++) if (length(l[i]) > 100) w++}
                       END {print w + 0}' bur.txt)" 0
else
    fail "gametree: build"
fi

# ---- (b) sampling changed from inside the program
if "$HP" cc -O2 -I"$ROOT/include" -o bursty_ctl "$P/bursty_ctl.c"; then
    "$HP" run -q --sample methods:period=99,burst=1,jitter=20 -o ctl.data -- ./bursty_ctl 200000 >ctl.out
    check_eq "ctl: API calls succeed in bursty mode" "$(head -1 ctl.out)" "api 0 0 0"
    "$HP" report --format json --top 0 ctl.data >ctl.json
    # 200000 calls each; phase a at 1/100 of 2 events per call, half of them calls: ~2000
    in_range "ctl: phase_a sampled at 1/100" "$(sampled phase_a ctl.json)" 1600 2400
    # disabled: only the controller's first poll window (<= 4096 boundary events) may still sample
    in_range "ctl: phase_b not sampled while disabled" "$(sampled phase_b ctl.json)" 0 60
    in_range "ctl: phase_c sampled at the new period 1/10" "$(sampled phase_c ctl.json)" 17000 23000
    ev=$(python3 -c 'import json; print(json.load(open("ctl.json"))["sampling"]["methods"]["events"])')
    in_range "ctl: disabled phase not in the events" "$ev" 790000 810000
    "$HP" run -q -o ctlx.data -- ./bursty_ctl 1000 >ctlx.out
    check_eq "ctl: API refuses in exhaustive mode" "$(head -1 ctlx.out)" "api -1 -1 -1"
else
    fail "ctl: build"
fi

# ---- (c) top-k snapshots while threads run
if "$HP" cc -O2 -I"$ROOT/include" -o bursty_topk "$P/bursty_topk.c" -lpthread; then
    "$HP" run -q --sample methods:period=99,burst=1,jitter=20 --sample callpairs:period=49,jitter=30 \
        -o topk.data -- ./bursty_topk 20 >topk.out
    check "topk (bursty): hottest method" grep -q '^topk methods ok' topk.out
    check "topk (bursty): hottest call pair" grep -q '^topk callpairs ok' topk.out
    "$HP" run -q -o topkx.data -- ./bursty_topk 5 >topkx.out
    check "topk (exhaustive): hottest method" grep -q '^topk methods ok' topkx.out
    check "topk (exhaustive): hottest call pair" grep -q '^topk callpairs ok' topkx.out
else
    fail "topk: build"
fi

# ---- (d) bad settings
if [ -x ./bursty_ctl ]; then
    for spec in 'bogus' 'methods:period=x' 'methods:burst=0' 'methods:jitter=100' 'methods:perio=3' \
                'methods:period=99,' 'methods;;edges' 'methods:period=2000000000'; do
        rm -f bad.data
        HOTPROF_MODE=bursty HOTPROF_SAMPLE="$spec" HOTPROF_OUTPUT=bad.data ./bursty_ctl 1000 >bad.out 2>bad.err
        rc=$?
        if [ $rc -eq 0 ] && grep -q '^api -1 -1 -1' bad.out && [ "$(grep -c 'bad HOTPROF_SAMPLE' bad.err)" = 1 ] &&
           [ ! -e bad.data ]; then
            ok "bad HOTPROF_SAMPLE '$spec': one message, runtime off, program runs"
        else
            fail "bad HOTPROF_SAMPLE '$spec'" "rc $rc, $(head -2 bad.err)"
        fi
    done
    check_fails_cleanly "bad --sample type" "unknown sample type 'bogus'" "$HP" run --sample bogus -- ./bursty_ctl
    check_fails_cleanly "bad --sample burst" "burst must be" "$HP" run --sample methods:burst=0 -- ./bursty_ctl
    check_fails_cleanly "bad --sample jitter" "jitter must be" "$HP" run --sample edges:jitter=120 -- ./bursty_ctl
    check_fails_cleanly "--sample without a value" "needs a value" "$HP" run --sample
    check_fails_cleanly "--sample with --mode exhaustive" "needs --mode bursty" \
        "$HP" run --mode exhaustive --sample methods -- ./bursty_ctl
    "$HP" run -q --mode bursty -o dflt.data -- ./bursty_ctl 1000 >/dev/null
    check "--mode bursty alone: methods and callpairs at period 1000" \
        sh -c "'$HP' info dflt.data | grep -q 'sample.callpairs  *period=1000,burst=1,jitter=50'"
fi
