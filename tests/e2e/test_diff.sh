#!/usr/bin/env bash
# test_diff.sh — `hotprof diff A B` on gametree: exhaustive profiles at two sizes (A, B) and of a
# second build with other flags (C: other addresses, same names). A with itself: no change; A and
# B: every share equals report's percent for that name, rows sorted by |delta|; A and C: functions
# match by name (as many common as the two reports share); bad input fails with one clear message.
. "$(dirname "$0")/lib.sh"
cd "$T"
PY="$ROOT/tests/e2e/check_diff.py"

if ! "$HP" cc -O2 -o gt2 "$ROOT/bench/workloads/gametree.c" -lm || \
   ! "$HP" cc -O1 -fno-inline -o gt1 "$ROOT/bench/workloads/gametree.c" -lm; then
    fail "gametree builds with hotprof cc (-O2 and -O1)"
    exit 0
fi
"$HP" run -q -o A.data -- ./gt2 6 >/dev/null
"$HP" run -q -o B.data -- ./gt2 7 >/dev/null
"$HP" run -q -o C.data -- ./gt1 6 >/dev/null
for x in A B C; do "$HP" report --format json --top 0 $x.data > $x.json 2>/dev/null; done

# json X Y: diff X Y as JSON, every row
json() { "$HP" diff --format json --top 0 "$1.data" "$2.data" > "$1$2.diff.json" 2>"$1$2.err"; }

json A A && python3 "$PY" same AA.diff.json A.json A.json "diff A A" || fail "diff A A" "$(head -n 3 AA.err)"
"$HP" diff A.data A.data > AA.txt 2>&1
check_eq "diff A A (text): one 'no change' line per type" "$(grep -c 'no change' AA.txt)" 2
json A B && python3 "$PY" shares AB.diff.json A.json B.json "diff A B" || fail "diff A B" "$(head -n 3 AB.err)"
json A C && python3 "$PY" names AC.diff.json A.json C.json "diff A C" || fail "diff A C" "$(head -n 3 AC.err)"

# options: --top, --type and its synonyms, text output holds the changed names
"$HP" diff --top 2 --type methods A.data B.data > AB.txt 2>&1
check_eq "diff --top 2 --type methods: one table" "$(grep -c '^hot ' AB.txt)" 1
check_eq "diff --top 2: two rows" "$(grep -cE '^ *[-+][0-9.]+%' AB.txt)" 2
"$HP" diff --format json --type calls A.data B.data > syn.json 2>&1
check_eq "diff --type calls (synonym) is methods" \
    "$(python3 -c 'import json,sys; print([t["type"] for t in json.load(open(sys.argv[1]))["types"]])' syn.json)" "['methods']"

# bad input
size=$(stat -c %s A.data)
cp A.data corrupt.data; printf '\xff' | dd of=corrupt.data bs=1 seek=$((size - 30)) conv=notrunc 2>/dev/null
check_fails_cleanly "diff: one profile only" "needs two profiles" "$HP" diff A.data
check_fails_cleanly "diff: unknown option" "unknown option|--bogus" "$HP" diff --bogus A.data B.data
check_fails_cleanly "diff: unknown format" "unknown format" "$HP" diff --format xml A.data B.data
check_fails_cleanly "diff: unknown type" "unknown profile type" "$HP" diff --type nosuch A.data B.data
check_fails_cleanly "diff: a type that cannot be diffed" "edges.*cannot be diffed" "$HP" diff --type edges A.data B.data
check_fails_cleanly "diff: missing file" "cannot open" "$HP" diff A.data missing.data
check_fails_cleanly "diff: corrupt file" "checksum|corrupt" "$HP" diff corrupt.data B.data
"$HP" diff A.data >/dev/null 2>&1; check_eq "diff: usage error exits 2" "$?" 2
"$HP" diff corrupt.data B.data >/dev/null 2>&1; check_eq "diff: bad file exits 1" "$?" 1
