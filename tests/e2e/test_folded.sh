#!/usr/bin/env bash
# test_folded.sh — `hotprof report --format folded` (flame-graph folded stacks) on a real workload,
# exhaustive and bursty: for callpairs, methods and blocks the lines are `frames count`, sorted,
# sum to the profile's totals and agree with the JSON report (check_folded.py); the default type
# is callpairs; -i FILE and FILE give the same output; bad input fails with one clear message.
. "$(dirname "$0")/lib.sh"
cd "$T"
PY="$ROOT/tests/e2e/check_folded.py"

# fold_all LABEL DATA: check every foldable type of DATA against its JSON report.
fold_all() {
    local label=$1 data=$2
    "$HP" report --format json --top 0 --blocks "$data" > "$label.json" 2>/dev/null
    for t in callpairs methods blocks; do
        if "$HP" report --format folded --type "$t" "$data" > "$label.$t.folded" 2>"$label.$t.err"; then
            python3 "$PY" "$label.$t.folded" "$label.json" "$t" "$label $t"
        else
            fail "$label $t: report --format folded" "$(head -n 3 "$label.$t.err")"
        fi
    done
}

if "$HP" cc -O2 -o gametree "$ROOT/bench/workloads/gametree.c" -lm; then
    "$HP" run -q -o exh.data -- ./gametree 7 >/dev/null
    check_eq "gametree: exhaustive run succeeds" "$?" 0
    fold_all exhaustive exh.data
    "$HP" report --format folded exh.data > default.folded
    check "default type is callpairs (the profile has call pairs)" cmp -s default.folded exhaustive.callpairs.folded
    check "-i FILE gives the same as FILE" sh -c "'$HP' report --format folded -i exh.data | cmp -s - default.folded"
    check "synonym: --type calls folds methods" sh -c \
        "'$HP' report --format folded --type calls exh.data | cmp -s - exhaustive.methods.folded"
    check "deterministic: a second report is byte for byte the same" sh -c \
        "'$HP' report --format folded --type blocks exh.data | cmp -s - exhaustive.blocks.folded"

    # sampled profiles: HPS counters in every hook (estimates in the report) and patched bursts
    for how in live patch; do
        "$HP" run -q --seed 1 --bursts $how --sample methods:period=99,burst=1 --sample callpairs:period=49,burst=1 \
            --sample edges:period=50,burst=10 -o $how.data -- ./gametree 7 >/dev/null
        check_eq "gametree: bursty ($how) run succeeds" "$?" 0
        fold_all "bursty-$how" $how.data
    done
    check "bursty (live) profile has estimates" grep -q '"estimated": true' bursty-live.json
    check "bursty (patch) profile is a patched one" grep -q '"mode": "patch"' bursty-patch.json

    check_fails_cleanly "unknown --type" "unknown profile type 'bogus'.*methods" \
        "$HP" report --format folded --type bogus exh.data
    "$HP" report --format folded --type bogus exh.data >/dev/null 2>&1
    check_eq "unknown --type is a usage error (exit 2)" "$?" 2
    check_fails_cleanly "a type that cannot be folded" "edges.*cannot be folded.*callpairs" \
        "$HP" report --format folded --type edges exh.data
    check_fails_cleanly "--type with --format html" "format folded" "$HP" report --type methods --format html exh.data
    check_fails_cleanly "unknown format" "unknown format.*folded" "$HP" report --format flame exh.data
    size=$(stat -c %s exh.data)
    cp exh.data flipped.data; printf '\xff' | dd of=flipped.data bs=1 seek=$((size - 30)) conv=notrunc 2>/dev/null
    check_fails_cleanly "corrupt profile" "checksum|corrupt" "$HP" report --format folded flipped.data
    check "help report documents folded" sh -c "'$HP' help report | grep -q folded"
else
    fail "gametree builds with hotprof cc"
fi
