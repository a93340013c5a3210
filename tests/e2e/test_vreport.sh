#!/usr/bin/env bash
# test_vreport.sh — the value-sampling reports on synthetic timer profiles: a tiny generator
# (tests/e2e/vreport_gen.c, built here against build/lib) writes the documented STACKS / VALUES /
# INFO format with known counts, its MODULES record pointing at a real binary compiled here
# (tests/e2e/progs/vs_report_prog.c, addresses from nm), so that symbols, lines and disassembly
# resolve. Checked: `report --type samples` (self/total and percentages, text and JSON), the timer
# header (overhead, values, stop reasons), `report --type value` (Figure 1 blocks: disassembly as
# objdump's, shares), folded stacks, pprof read by `go tool pprof -top`, `compare` of a 1 kHz and
# a 20x twin, `annotate` with samples and values, `invariants` (share, --by-callsite, JSON), and bad
# input (corrupt file, no value hot-lists, a bad --min-share) failing with one clear message.
. "$(dirname "$0")/lib.sh"
cd "$T"

cc -O1 -g -no-pie -fno-pie -o prog "$ROOT/tests/e2e/progs/vs_report_prog.c" || { fail "test program builds"; exit 0; }
GEN_LIBS="$ROOT/build/lib/libhotprof_analysis.a $ROOT/build/lib/libhotprof_core.a -ldw -lelf -lz -lcapstone -lprotobuf-c -lzstd -lpthread -ldl -lm"
gen_cc() { cc -std=gnu11 -I"$ROOT/src" -I"$ROOT/include" -I"$ROOT/tests/unit" "$@" -o gen "$ROOT/tests/e2e/vreport_gen.c" $GEN_LIBS; }
gen_cc 2>/dev/null || gen_cc -fsanitize=address,undefined || { fail "generator builds"; exit 0; }
addr() { nm prog | awk -v f="$1" '$3 == f { print $1 }'; }
LEAF=$(addr vr_leaf) HOT=$(addr vr_hot) MAIN=$(addr main)
ARGS="prog 400000 500000 $LEAF $HOT $MAIN"
./gen p.data $ARGS && ./gen q.data $ARGS 20 && ./gen nv.data $ARGS 1 novalues || { fail "generator writes profiles"; exit 0; }
leaf=$(printf '0x%x' "0x$LEAF") hot=$(printf '0x%x' "0x$HOT")

# ---- report --type samples ----
"$HP" report --type samples p.data >s.txt 2>s.err
check "samples: report exits 0" test -s s.txt
row() { awk -v f="$1" '$6 == f { print $2, $3, $4, $5 }' s.txt; }
check_eq "samples: vr_leaf self 850 (68%), total 850" "$(row vr_leaf)" "850 68.0% 850 68.0%"
check_eq "samples: vr_hot self 300, total 1150 (92%)" "$(row vr_hot)" "300 24.0% 1150 92.0%"
check_eq "samples: main self 100, total 1250 (100%)" "$(row main)" "100 8.0% 1250 100.0%"
check "samples: file:line of vr_leaf" grep -qE 'vr_leaf +progs/vs_report_prog.c:7' s.txt
check "header: totals line" grep -q '1250 samples, 2 sampled threads, 2 dropped' s.txt
check "header: the timer line" grep -q 'sampling timer: 1000 Hz per thread (CPU time), clock perf, signal 34 (moved 1 times), unwinder libunwind, depth 64' s.txt
check "header: overhead (3 ms + 2 ms) / 1 s = 0.50%" grep -q 'overhead 0.50% of the run' s.txt
check "header: values 4/2, engine, interpretations" grep -q 'values 4/2 (L instructions every K-th interrupt), engine ool, debias 0: 600 interpretations, 2300 instructions' s.txt
check "header: stop reasons" grep -q 'stopped early: syscall=3 fault=1' s.txt
"$HP" report --type samples --format json p.data >s.json 2>/dev/null
check_eq "samples JSON: rows, self, total, percentages, overhead" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["function"]: (x["self"], x["total"], x["self_percent"], x["total_percent"]) for x in d["samples"]}
print(r["vr_leaf"], r["vr_hot"], r["main"], d["totals"]["samples"], round(d["timer"]["overhead_percent"], 2), d["timer"]["stops"])' s.json)" \
    "(850, 850, 68.0, 68.0) (300, 1150, 24.0, 92.0) (100, 1250, 8.0, 100.0) 1250 0.5 {'syscall': 3, 'fault': 1}"

# ---- report --type value ----
"$HP" report --type value p.data >v.txt 2>/dev/null
first=$(objdump -d --no-show-raw-insn -M intel --disassemble=vr_leaf prog | awk -F'\t' '/^ +[0-9a-f]+:/ { print $2; exit }' | sed 's/ *$//')
check "value: vr_leaf's block has objdump's first instruction ($first)" grep -qF "$leaf  $(echo "$first" | awk '{print $1}')" v.txt
check "value: rax 7 at 90.0%, 3 at 8.3%, 9 at 1.7% (threads merged, tau 1 and 2)" grep -qE 'reg +rax +captures 600 +tau 2 +len 3 +0x7 \(7\) 90.0% 0x3 \(3\) 8.3% 0x9 \(9\) 1.7%' v.txt
check "value: xmm0 always 1.0 as a double" grep -qE 'xmm +xmm0 .* \(double 1\) 100.0%' v.txt
check "value: the address strides by 64, 25% each" grep -qE 'addr +mem0 .* 0x1000 25.0% 0x1040 25.0% 0x1080 25.0% 0x10c0 25.0%' v.txt
check "value: hottest instruction first, with its samples" grep -qE "^$leaf .*vr_leaf" <(grep -m1 '^0x' v.txt)
"$HP" report --type value --top 1 --format json p.data >v.json 2>/dev/null
check_eq "value JSON: --top 1, shares" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["values"]
l = {x["kind"]: x for x in d[0]["lists"]}
print(len(d), d[0]["function"], d[0]["samples"], [v["share"] for v in l["reg"]["values"]])' v.json)" \
    "1 vr_leaf 850 [0.9, 0.0833, 0.0167]"

# ---- folded, pprof, compare ----
"$HP" report --format folded --type samples p.data >f.txt 2>/dev/null
check_eq "folded: counts sum to the samples" "$(awk '{ s += $NF } END { print s }' f.txt)" 1250
check "folded: outermost frame first" grep -qx 'main;vr_hot;vr_leaf 800' f.txt
"$HP" report --format pprof --type samples -o p.pb.gz p.data 2>/dev/null
if command -v go >/dev/null && go tool pprof -top p.pb.gz >pp.txt 2>pp.err; then
    check "pprof: go tool pprof -top reads it (vr_leaf 68% flat, vr_hot 92% cum)" \
        grep -qE '850ms +68\.00% .* vr_leaf$' pp.txt
    check "pprof: cumulative of vr_hot" grep -qE '300ms +24\.00% .* 1150ms +92\.00% +vr_hot$' pp.txt
else
    fail "pprof: go tool pprof -top reads it" "$(head -n 3 pp.err 2>/dev/null)"
fi
"$HP" compare --format json p.data q.data >c.json 2>/dev/null
check_eq "compare: the samples view of a 1 kHz profile and its 20x twin overlaps perfectly" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["profiles"] if x["type"] == "samples"][0]
print(r["common"], round(r["overlap"], 6) == round(r["overlap_max"], 6), round(r["overlap_renormalized"], 6))' c.json 2>&1)" "3 True 1.0"

"$HP" report --format html -o r.html p.data 2>/dev/null
check "html: the page names the sampled functions" grep -q 'vr_hot' r.html
check "value: a return-address context names its caller" grep -qE 'retaddr .*\(vr_hot\) 66.7% .*\(main\) 33.3%' v.txt

# ---- annotate ----
"$HP" annotate --stdio --asm vr_leaf p.data >a.txt 2>/dev/null
check "annotate: samples and top value at the instruction" grep -qE "850 +100\.00% > ${leaf#0x}: .*; reg rax=0x7 \(7\) 90%" a.txt
check "annotate: the header says timer samples" grep -q 'total:  850 timer samples' a.txt
"$HP" annotate --stdio vr_hot p.data >a2.txt 2>/dev/null
check "annotate: the source view counts samples per line" grep -qE '^ +300 +100\.00% +10 ' a2.txt

# ---- invariants ----
"$HP" invariants p.data >i.txt 2>/dev/null
check_eq "invariants: two rows at 90%" "$(grep -cE '^ +[0-9]+ ' i.txt)" 2
check "invariants: rax = 7 at vr_leaf, weighted first" grep -qE '^ +1 +850 +68\.0% +reg +rax +0x7 \(7\) +90\.0% +'"$leaf"' +vr_leaf' i.txt
check "invariants: xmm0 = 1.0 at vr_hot" grep -qE '^ +2 +300 .*xmm +xmm0 .*100\.0% +'"$hot"' +vr_hot' i.txt
"$HP" invariants --min-share 20 --by-callsite p.data >ic.txt 2>/dev/null
check_eq "invariants --min-share 20: the strided address too" "$(grep -cE '^ +[0-9]+ ' ic.txt)" 3
check "invariants --by-callsite: vr_leaf's samples from vr_hot and vr_leaf" grep -qE 'from vr_hot +800 samples' ic.txt
"$HP" invariants --format json --by-callsite p.data >i.json 2>/dev/null
check_eq "invariants JSON" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["invariants"]
print(len(d), d[0]["value"], d[0]["share"], [c["samples"] for c in d[0]["callsites"]])' i.json)" "2 0x7 0.9 [800, 50]"

# ---- merge ----
"$HP" merge -o m.data p.data q.data 2>m.err
"$HP" report --type samples --format json m.data >m.json 2>/dev/null
check_eq "merge: stacks of both inputs, self and total add" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print({x["function"]: (x["self"], x["total"]) for x in d["samples"]}["vr_hot"], d["totals"]["samples"])' m.json)" "(6300, 24150) 26250"
"$HP" report --type value m.data >mv.txt 2>/dev/null
check "merge: value shares survive (rax 7 at 90%)" grep -qE 'reg +rax +captures 1200 .* 0x7 \(7\) 90.0% 0x3 \(3\) 8.3% 0x9 \(9\) 1.7%' mv.txt

# ---- bad input ----
check_fails_cleanly "invariants: a profile without values says how to get them" 'no value hot-lists.*--values' "$HP" invariants nv.data
check_fails_cleanly "invariants: a missing profile" 'cannot open' "$HP" invariants missing.data
check_fails_cleanly "invariants: --min-share out of range" 'min-share takes a percentage' "$HP" invariants --min-share 120 p.data
head -c $(( $(stat -c %s p.data) - 40 )) p.data >cut.data
"$HP" report --type samples cut.data >cut.txt 2>cut.err; rc=$?
check "a cut profile (no group end) is read without a crash" test $rc -le 1
cp p.data bad.data
printf '\xff' | dd of=bad.data bs=1 seek=$(( $(stat -c %s p.data) - 200 )) conv=notrunc 2>/dev/null
check_fails_cleanly "report: a corrupt profile is one message" 'checksum|corrupt|bad section' "$HP" report --type value bad.data
