#!/usr/bin/env bash
# test_pprof.sh — `hotprof report --format pprof` (docs/pprof.md) read back by `go tool pprof`, on a
# real workload, exhaustive and bursty: the top ten functions (-top) and their counts, and the call
# pairs (-traces), agree with `hotprof report --format json` (check_pprof.py); a PIE program exported
# with --pprof-symbols=none (addresses and build-ids only) is symbolized by pprof from its binary to
# the same names and counts; -o - writes the same bytes as -o FILE; bad input fails with one clear
# message and leaves no output file. go runs offline: HOME, GOCACHE and PPROF_TMPDIR point into $T.
. "$(dirname "$0")/lib.sh"
cd "$T"
PY="$ROOT/tests/e2e/check_pprof.py"
export HOME="$T/home" GOCACHE="$T/gocache" GOFLAGS= PPROF_TMPDIR="$T" GOTOOLCHAIN=local
mkdir -p "$HOME"
if ! command -v go >/dev/null; then fail "go is installed (golang-go, scripts/setup.sh)"; exit 0; fi
PPROF() { go tool pprof "$@" 2>>"$T/pprof.err"; }

# export_all LABEL DATA: JSON report, methods and callpairs exports, checked through pprof.
export_all() {
    local label=$1 data=$2
    "$HP" report --format json --top 0 "$data" > "$label.json" 2>/dev/null
    check "$label: export methods" "$HP" report --format pprof --type methods -o "$label.m.pb.gz" "$data"
    check "$label: export callpairs" "$HP" report --format pprof --type callpairs -o "$label.c.pb.gz" "$data"
    check "$label: the export is gzip" gzip -t "$label.m.pb.gz"
    PPROF -top -nodecount=10 -nodefraction=0 -sample_index=heat "$label.m.pb.gz" > "$label.heat.top"
    python3 "$PY" top "$label.json" "$label.heat.top" methods heat "$label heat"
    if ! grep -q '"estimated": true' "$label.json"; then
        PPROF -top -nodecount=10 -nodefraction=0 -sample_index=calls "$label.m.pb.gz" > "$label.calls.top"
        python3 "$PY" top "$label.json" "$label.calls.top" methods calls "$label calls"
    fi
    PPROF -traces "$label.c.pb.gz" > "$label.traces"
    python3 "$PY" traces "$label.json" "$label.traces" "$label callpairs"
}

if "$HP" cc -O2 -o gametree "$ROOT/bench/workloads/gametree.c" -lm; then
    "$HP" run -q -o exh.data -- ./gametree 7 >/dev/null
    check_eq "gametree: exhaustive run succeeds" "$?" 0
    export_all exhaustive exh.data
    check "default type is callpairs (as --format folded)" sh -c "'$HP' report --format pprof -o - exh.data | cmp -s - exhaustive.c.pb.gz"
    check "-o - writes the same bytes as -o FILE" sh -c "'$HP' report --format pprof --type methods -o - exh.data | cmp -s - exhaustive.m.pb.gz"
    "$HP" report --format pprof --type blocks -o blocks.pb.gz exh.data
    PPROF -top -nodecount=1 blocks.pb.gz > blocks.top
    python3 "$PY" total exhaustive.json blocks.top blocks "exhaustive blocks"
    PPROF -raw exhaustive.m.pb.gz > exhaustive.raw
    check "raw: sample types calls and heat (default)" grep -q 'calls/count heat/count\[dflt\]' exhaustive.raw
    id=$("$HP" info exh.data | grep 'build-id' | grep -m1 'gametree$' | grep -oE 'build-id [0-9a-f]+' | cut -d' ' -f2)
    check "raw: the mapping has the build-id ($id)" grep -q "/gametree ${id:-none}" exhaustive.raw
    check "raw: the collection time is the run's start" grep -q "^Time: $(date -d @"$("$HP" info exh.data | awk '$1 == "start_time" {print int($2)}')" +%Y-%m-%d)" exhaustive.raw
    check "raw: functions carry file and line" grep -qE ' evaluate .*gametree\.c:[0-9]+ s=[0-9]+' exhaustive.raw

    # sampled: HPS counters in every hook (estimates in the report) and patched bursts (raw counts)
    for how in live patch; do
        "$HP" run -q --seed 1 --bursts $how --sample methods:period=99,burst=1 --sample callpairs:period=49,burst=1 \
            -o $how.data -- ./gametree 7 >/dev/null
        check_eq "gametree: bursty ($how) run succeeds" "$?" 0
        export_all "bursty-$how" $how.data
    done
    PPROF -raw bursty-patch.m.pb.gz > patch.raw
    check "patched bursts: a comment says the counts are raw" grep -q 'patched bursts: values are raw sampled counts' patch.raw
    mv bursty-live.json bursty.json; mv bursty-live.m.pb.gz bursty.m.pb.gz
    check "bursty: the report has estimates" grep -q '"estimated": true' bursty.json
    PPROF -raw bursty.m.pb.gz > bursty.raw
    check "bursty: comments give the sampling and the estimate factor" sh -c \
        "grep -q 'sampling methods: bursty (HPS).*period S=99, burst B=1' bursty.raw && grep -q 'RECORDED.*estimate of the true count = value \*' bursty.raw"
    check "bursty: period is the events per recorded one" grep -qE '^Period: [1-9][0-9]+' bursty.raw

    check_fails_cleanly "unknown --type" "unknown profile type 'bogus'.*methods" \
        "$HP" report --format pprof --type bogus -o x.pb.gz exh.data
    check_fails_cleanly "a type that cannot be exported" "edges.*cannot be exported.*callpairs" \
        "$HP" report --format pprof --type edges -o x.pb.gz exh.data
    check_fails_cleanly "unknown --pprof-symbols" "pprof-symbols.*full, none" \
        "$HP" report --format pprof --pprof-symbols some -o x.pb.gz exh.data
    check_fails_cleanly "--pprof-symbols without --format pprof" "goes with --format pprof" \
        "$HP" report --pprof-symbols none exh.data
    check_fails_cleanly "unwritable -o" "no-such-dir" "$HP" report --format pprof -o "$T/no-such-dir/out.pb.gz" exh.data
    size=$(stat -c %s exh.data)
    cp exh.data flipped.data; printf '\xff' | dd of=flipped.data bs=1 seek=$((size - 30)) conv=notrunc 2>/dev/null
    check_fails_cleanly "corrupt profile" "checksum|corrupt" "$HP" report --format pprof -o bad.pb.gz flipped.data
    check "corrupt profile: no output file" test ! -e bad.pb.gz
    cat > tty.py <<'PYEOF'
import os, subprocess, sys
master, slave = os.openpty()  # the command's stdout is a terminal
sys.exit(subprocess.run(sys.argv[1:], stdout=slave).returncode)
PYEOF
    check_fails_cleanly "binary to a terminal is refused" "terminal.*-o FILE" python3 tty.py "$HP" report --format pprof exh.data
    check "help report documents pprof" sh -c "'$HP' help report | grep -q 'format pprof'"
else
    fail "gametree builds with hotprof cc"
fi

# A PIE program, exported with addresses only: pprof symbolizes it from the binary given to it.
if "$HP" cc -O0 -g -fPIE -pie -o pie_game "$ROOT/bench/workloads/gametree.c" -lm; then
    check "pie_game is a PIE (ELF type DYN)" sh -c "readelf -h pie_game | grep -q 'DYN'"
    "$HP" run -q -o pie.data -- ./pie_game 6 >/dev/null
    "$HP" report --format pprof --type methods -o pie.full.pb.gz pie.data
    "$HP" report --format pprof --type methods --pprof-symbols none -o pie.addr.pb.gz pie.data
    PPROF -raw -symbolize=none pie.addr.pb.gz > pie.addr.raw
    check "addresses only: no function names in the export" sh -c "! grep -q evaluate pie.addr.raw"
    mkdir -p bin && mv pie_game bin/
    PPROF -top -nodefraction=0 -symbolize=none pie.full.pb.gz > pie.full.top
    PPROF -top -nodefraction=0 -symbolize=local bin/pie_game pie.addr.pb.gz > pie.addr.top
    python3 "$PY" names pie.full.top pie.addr.top "PIE, --pprof-symbols=none"
else
    fail "pie_game builds with hotprof cc -fPIE -pie"
fi
