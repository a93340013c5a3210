#!/usr/bin/env bash
# test_compare.sh — `hotprof compare` on real runs of bench/workloads/gametree (built with
# hotprof cc -O2, run exhaustively with hotprof run): two runs at the same size (different load
# addresses under ASLR) score the metric's maximum on every profile type (overlap == max, the
# paper overlap of B against itself; renormalized overlap 100%; top-k recall 100%); a run at another
# size scores below it. A rebuilt program (build-id differs) is compared by name (test_readable.sh
# checks the overlap). Then the refusals: unreadable file, other program, usage mistakes.
. "$(dirname "$0")/lib.sh"
cd "$T"
W="$ROOT/bench/workloads"
"$HP" cc -O2 -o gametree "$W/gametree.c" || { fail "build gametree"; exit 0; }
"$HP" cc -O2 -o heapsort "$W/heapsort.c" || { fail "build heapsort"; exit 0; }
mkdir -p rebuilt && "$HP" cc -O1 -o rebuilt/gametree "$W/gametree.c" || { fail "build gametree -O1"; exit 0; }
check "run 1 (depth 5)" "$HP" run -q -o same1.data -- ./gametree 5
check "run 2 (depth 5)" "$HP" run -q -o same2.data -- ./gametree 5
check "run 3 (depth 7)" "$HP" run -q -o other.data -- ./gametree 7
check "run of another program" "$HP" run -q -o heap.data -- ./heapsort 20000
check "run of the rebuilt program" "$HP" run -q -o o1.data -- ./rebuilt/gametree 5

base1=$("$HP" info same1.data | awk '/gametree$/ && /base/ {print $3; exit}')
base2=$("$HP" info same2.data | awk '/gametree$/ && /base/ {print $3; exit}')
if [ -n "$base1" ] && [ "$base1" != "$base2" ]; then ok "the two runs were loaded at different addresses (ASLR)"
else echo "ok note: same load address in both runs ($base1): ASLR off?"; fi

# json_check NAME FILE PYTHON-EXPR-over-profiles : EXPR must hold for the parsed JSON object `j`.
json_check() {
    local name=$1 file=$2 expr=$3
    if python3 -c "import json,sys; j=json.load(open('$file')); p={r['type']:r for r in j['profiles']}; sys.exit(0 if ($expr) else 1)" 2>"$T/.pyerr"
    then ok "$name"; else fail "$name" "$(head -c 600 "$file") $(cat "$T/.pyerr")"; fi
}

"$HP" compare --format json same1.data same2.data > same.json 2>same.err
check_eq "identical runs: exit 0" "$?" 0
json_check "identical runs: all five profile types compared" same.json "len(p) == 5 and j['program'] == 'same'"
json_check "identical runs: overlap == its maximum (B against itself) on every type" same.json \
    "all(abs(r['overlap'] - r['overlap_max']) < 1e-9 for r in p.values())"
json_check "identical runs: the maximum is >= 90% (the paper's coverage)" same.json \
    "all(r['overlap_max'] >= 0.9 - 1e-9 for r in p.values())"
json_check "identical runs: renormalized overlap 100%, top-10/100 recall and precision 100%" same.json \
    "all(r['overlap_renormalized'] > 1 - 1e-9 and r['top_k']['recall'] == 1 and r['top_k']['precision'] == 1 and r['top_100']['recall'] == 1 for r in p.values())"
json_check "identical runs: every key matches despite ASLR" same.json \
    "all(r['common'] == r['keys_a'] == r['keys_b'] for r in p.values()) and j['unmapped_a'] == 0"

"$HP" compare --format json same1.data other.data > other.json 2>other.err
check_eq "different input sizes: exit 0" "$?" 0
json_check "different input sizes: overlap below its maximum" other.json \
    "any(r['overlap'] < r['overlap_max'] - 0.01 for r in p.values()) and all(r['overlap'] <= r['overlap_max'] + 1e-9 for r in p.values())"
json_check "different input sizes: renormalized overlap below 100%" other.json \
    "any(r['overlap_renormalized'] < 0.99 for r in p.values())"

check "text table" sh -c "'$HP' compare same1.data same2.data | grep -E '^methods \\(heat\\) .*100\\.00%'"
check "--top 3 sets the recall columns" sh -c "'$HP' compare --top 3 same1.data other.data | grep -q 'rec@3'"

check_fails_cleanly "unreadable file" "nothere.data" "$HP" compare same1.data nothere.data
: > empty.data
check_fails_cleanly "empty file" "empty.data" "$HP" compare empty.data same1.data
check_fails_cleanly "another program" "different programs" "$HP" compare heap.data same1.data
for f in folded html pprof xml; do # compare writes text or JSON only (it printed text for these)
    check_fails_cleanly "compare --format $f: unknown format" "unknown format '$f'" "$HP" compare --format "$f" same1.data same1.data
done
check "rebuilt program (build-id differs): compared by name, with a warning" sh -c \
    "'$HP' compare o1.data same1.data >f.out 2>f.err && grep -q 'matched by: *symbol name' f.out && grep -q 'warning.*build-id' f.err"
check_fails_cleanly "one profile only" "two profiles" "$HP" compare same1.data
check_fails_cleanly "bad format" "format" "$HP" compare --format xml same1.data same2.data
check "help compare" sh -c "'$HP' help compare | grep -q -- '--force'"
