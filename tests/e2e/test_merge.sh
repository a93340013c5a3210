#!/usr/bin/env bash
# test_merge.sh — `hotprof merge`, end to end on progs/merge_phases.c (phase 1, phase 2, or both):
#   - the merge of two processes running phase 1 and phase 2 equals one process running both, for
#     every exact table (methods, call pairs, blocks, edges) outside main (the per-process part:
#     main runs once per process, which the merge also shows: main's calls add up);
#   - a profile merged with itself doubles every count; one input is allowed and changes nothing;
#   - runs of a PIE binary (different load addresses) symbolize to the same names after the merge;
#   - bursty inputs: sampled counts and the events seen / sampled per type add up, so report
#     scales by the pooled frequency; a datastream summary merged with itself sees twice the references;
#   - refusals (one message, exit 1, no output file): a corrupt input, mixed modes, different
#     sampling parameters, an unwritable -o, different builds of one program (allowed with --force);
#     usage errors exit 2.
. "$(dirname "$0")/lib.sh"
cd "$T"
PY="$ROOT/tests/e2e/check_merge.py"

if ! "$HP" cc -O2 -o mp "$ROOT/tests/e2e/progs/merge_phases.c"; then
    fail "merge_phases builds with hotprof cc"
    exit 0
fi
for a in 1 2 12; do "$HP" run -q -o p$a.data -- ./mp $a >/dev/null || fail "run mp $a"; done
rep() { "$HP" report --format json --top 0 --blocks --edges "$1.data" >"$1.json" 2>"$1.rep.err" || fail "report $1" "$(head -n 3 "$1.rep.err")"; }
# info_value FILE KEY: the value of an INFO key as `hotprof info` prints it
info_value() { "$HP" info "$1" | awk -v k="$2" '$1 == k {print $2; exit}'; }
# json_total JSON KEY: report's totals.KEY
json_total() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][sys.argv[2]])' "$1" "$2"; }

# ---- halves equal the whole
check "merge p1 p2 succeeds" "$HP" merge -o halves.data p1.data p2.data
rep halves; rep p12; rep p1; rep p2
python3 "$PY" sum halves.json p12.json "halves = whole" main,__libc_start_call_main
calls_of_main() { python3 -c 'import json,sys; print(sum(r["calls"] for r in json.load(open(sys.argv[1]))["methods"] if r["function"] == "main"))' "$1"; }
check_eq "halves: main's calls add up (one per process)" "$(calls_of_main halves.json)" \
    "$(( $(calls_of_main p1.json) + $(calls_of_main p2.json) ))"
check_eq "halves: total calls add up" "$(json_total halves.json calls)" \
    "$(( $(json_total p1.json calls) + $(json_total p2.json calls) ))"
check_eq "halves: INFO records two inputs" "$(info_value halves.data merge.inputs)" 2
check_eq "halves: INFO names the first input" "$(info_value halves.data merge.input.1)" p1.data
check_eq "halves: INFO keeps the program (equal in both)" "$(info_value halves.data program)" "$(info_value p1.data program)"
check_eq "halves: INFO drops the pid (different)" "$(info_value halves.data pid)" ""

# ---- a profile with itself doubles; one input changes nothing
check "merge p12 p12 succeeds" "$HP" merge -o twice.data p12.data p12.data
rep twice
python3 "$PY" scale twice.json p12.json 2 "self-merge doubles"
check "merge of one input succeeds" "$HP" merge -o one.data p12.data
rep one
python3 "$PY" scale one.json p12.json 1 "merge of one input"
check "a merged profile merges again" "$HP" merge -o again.data halves.data p12.data
rep again
python3 "$PY" sum again.json twice.json "merge (p1+p2)+p12 = p12+p12" main,__libc_start_call_main

# ---- PIE: different load addresses, same names
base_of() { "$HP" info "$1" | awk -v p="$T/mp" '$NF == p && $2 == "base" {print $3; exit}'; }
b1=$(base_of p1.data) b2=$(base_of p2.data)
if [ -n "$b1" ] && [ "$b1" != "$b2" ]; then ok "PIE: the two runs loaded mp at different bases ($b1, $b2)"
else fail "PIE: the two runs loaded mp at different bases" "'$b1' '$b2' (ASLR off?)"; fi
check_eq "PIE: the merge has one module for mp" "$("$HP" info halves.data | awk -v p="$T/mp" '$2 == "base" && $NF == p' | wc -l)" 1
python3 "$PY" names halves.json "PIE merge symbolizes like its inputs" p1.json p2.json

# ---- bursty: sampled counts and events add; the report scales by the pooled frequency
S="--bursts live --sample methods:period=9,burst=1"
"$HP" run -q --seed 1 $S -o b1.data -- ./mp 12 >/dev/null && "$HP" run -q --seed 2 $S -o b2.data -- ./mp 12 >/dev/null
check "bursty: merge succeeds" "$HP" merge -o bm.data b1.data b2.data
for x in b1 b2 bm; do "$HP" report --format json --top 0 $x.data >$x.json; done
sampling() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sampling"]["methods"][sys.argv[2]])' "$1" "$2"; }
for k in events sampled; do
    check_eq "bursty: methods $k add up" "$(sampling bm.json $k)" "$(( $(sampling b1.json $k) + $(sampling b2.json $k) ))"
done
sampled_sum() { python3 -c 'import json,sys; print(sum(r["sampled"] for r in json.load(open(sys.argv[1]))["methods"]))' "$1"; }
check_eq "bursty: sampled counts add up" "$(sampled_sum bm.json)" "$(( $(sampled_sum b1.json) + $(sampled_sum b2.json) ))"
python3 - bm.json <<'EOF' && ok "bursty: estimates = sampled / pooled frequency" || fail "bursty: estimates = sampled / pooled frequency"
import json, sys
r = json.load(open(sys.argv[1])); s = r["sampling"]["methods"]; f = s["sampled"] / s["events"]
rows = [m for m in r["methods"] if m["estimated"]]
assert rows and all(abs(m["calls"] + m["backedges"] - m["sampled"] / f) <= 1 + 1e-6 * m["sampled"] / f for m in rows)
EOF

# ---- datastream summaries: a profile with itself merges its detector (references seen double)
if HOTPROF_BURSTS=live "$HP" cc --hooks=memory -O1 -o streams "$ROOT/tests/e2e/progs/streams.c"; then
    HOTPROF_BURSTS=live "$HP" run -q --seed 7 --sample datastream:period=2000,burst=200 -o s.data -- ./streams 5000 >/dev/null
    check "datastream: self-merge succeeds" "$HP" merge -o ss.data s.data s.data
    ds() { "$HP" report --streams --top 0 --format json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["datastream"]["refs_seen"], len(d["streams"]))'; }
    read -r refs streams <<<"$(ds s.data)"
    read -r refs2 streams2 <<<"$(ds ss.data)"
    check_eq "datastream: references seen double" "$refs2" "$((2 * refs))"
    if [ "$streams" -gt 0 ] && [ "$streams2" -ge "$streams" ]; then ok "datastream: the merged detector keeps the streams ($streams2 >= $streams > 0)"
    else fail "datastream: the merged detector keeps the streams" "$streams2 vs $streams"; fi
else
    fail "streams builds with hotprof cc --hooks=memory"
fi

# ---- refusals
no_output() { if [ -e "$1" ] || ls "$1".tmp.* >/dev/null 2>&1; then fail "$2: no output file" "$1 exists"; else ok "$2: no output file"; fi; }
size=$(stat -c %s p1.data)
cp p1.data corrupt.data; printf '\xff' | dd of=corrupt.data bs=1 seek=$((size - 30)) conv=notrunc 2>/dev/null
check_fails_cleanly "corrupt input: names the file" "corrupt.data.*(checksum|corrupt)" "$HP" merge -o bad1.data p1.data corrupt.data
no_output bad1.data "corrupt input"
check_fails_cleanly "exhaustive + bursty: refused" "different modes.*exhaustive.*bursty" "$HP" merge -o bad2.data p12.data b1.data
no_output bad2.data "mixed modes"
"$HP" run -q --seed 3 --bursts live --sample methods:period=19,burst=1 -o b3.data -- ./mp 12 >/dev/null
check_fails_cleanly "different sampling parameters: refused, naming the key and files" \
    "sampling parameters.*b1.data.*sample.methods=period=9.*b3.data" "$HP" merge -o bad3.data b1.data b3.data
no_output bad3.data "different sampling parameters"
check_fails_cleanly "unwritable -o" "cannot write.*nosuchdir" "$HP" merge -o nosuchdir/out.data p1.data p2.data
check_fails_cleanly "missing input" "cannot open" "$HP" merge -o bad4.data p1.data missing.data
no_output bad4.data "missing input"
"$HP" merge p1.data >/dev/null 2>&1; check_eq "no -o: usage error exits 2" "$?" 2
"$HP" merge -o x.data >/dev/null 2>&1; check_eq "no input: usage error exits 2" "$?" 2
"$HP" merge -o bad1.data p1.data corrupt.data >/dev/null 2>&1; check_eq "corrupt input exits 1" "$?" 1

# ---- different builds of one program (same path, other build-id)
mkdir -p rebuilt && cp mp rebuilt/mp.first
"$HP" cc -O1 -fno-inline -o mp "$ROOT/tests/e2e/progs/merge_phases.c" && "$HP" run -q -o q12.data -- ./mp 12 >/dev/null
check_fails_cleanly "different builds: refused" "different builds of .*/mp \(build-id" "$HP" merge -o bad5.data p12.data q12.data
no_output bad5.data "different builds"
"$HP" merge --force -o forced.data p12.data q12.data 2>forced.err
check_eq "different builds with --force: merged" "$?" 0
check "different builds with --force: a note says the builds are kept apart" grep -q "kept as a module apart" forced.err
check_eq "different builds with --force: two modules for mp" "$("$HP" info forced.data | awk -v p="$T/mp" '$2 == "base" && $NF == p' | wc -l)" 2

# ---- help and manual
check "merge --help lists --force" sh -c "'$HP' merge --help | grep -q -- --force"
check "the manual documents merge" grep -q "hotprof merge" "$ROOT/docs/hotprof.1.md"
