#!/usr/bin/env bash
# test_annotate.sh — `hotprof annotate` on gametree built with `hotprof cc` (blocks hooks): for the
# hottest function and a named one, the counts printed sum to the function's block counts of
# `report --blocks --format json --top 0` and the hottest line is the report's hottest line; --asm
# lists objdump's instructions with counts summing to the same total; a bursty profile says its
# counts are sampled; an unreadable source is one warning; bad input (unknown symbol, no block
# counts, corrupt profile, stripped binary, missing binary) fails with one clear message.
. "$(dirname "$0")/lib.sh"
cd "$T"
PY="$ROOT/tests/e2e/check_annotate.py"

cp "$ROOT/bench/workloads/gametree.c" gt.c
if ! "$HP" cc -O2 -g -o gt gt.c -lm; then
    fail "gametree builds with hotprof cc"
    exit 0
fi
"$HP" run -q -o gt.data -- ./gt 6 >/dev/null
"$HP" report --blocks --format json --top 0 gt.data >gt.json 2>/dev/null

# annotate_checks LABEL [SYMBOL]: the line checks and the asm checks of one function
annotate_checks() {
    local label=$1; shift
    "$HP" annotate --format json "$@" gt.data >"$label.json" 2>"$label.err" || { fail "$label: annotate json" "$(head -n 2 "$label.err")"; return; }
    "$HP" annotate --stdio "$@" gt.data >"$label.txt" 2>>"$label.err" || { fail "$label: annotate text" "$(head -n 2 "$label.err")"; return; }
    python3 "$PY" lines "$label.json" "$label.txt" gt.json "$label"
    local fn
    fn=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["function"])' "$label.json")
    "$HP" annotate --asm --format json "$@" gt.data >"$label.asm.json" 2>>"$label.err" &&
        "$HP" annotate --asm --stdio "$@" gt.data >"$label.asm.txt" 2>>"$label.err" ||
        { fail "$label: annotate --asm" "$(head -n 2 "$label.err")"; return; }
    objdump -d --no-show-raw-insn -M intel --disassemble="$fn" gt >"$label.objdump" 2>/dev/null
    python3 "$PY" asm "$label.asm.json" "$label.asm.txt" "$label.objdump" gt.json "$label asm"
}

annotate_checks hottest
hottest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["function"])' hottest.json)
want=$(python3 -c '
import json, sys
from collections import defaultdict
t = defaultdict(int)
for b in json.load(open(sys.argv[1]))["blocks"]:
    t[b.get("function")] += b["count"]
print(max(t, key=lambda f: (t[f], f is not None)))' gt.json)
check_eq "no SYMBOL: the hottest function of the report's blocks" "$hottest" "$want"
annotate_checks minimax minimax

# text: the header, no colour with --stdio or NO_COLOR, -o writes the same
check "text header names the function and its file" grep -qE '^Annotate: minimax .*' minimax.txt
check "text holds the function's source" grep -q 'minimax' minimax.txt
check_eq "--stdio: no escape sequences" "$(grep -c $'\033' minimax.txt)" 0
NO_COLOR=1 "$HP" annotate minimax gt.data >nocolor.txt 2>/dev/null
check_eq "NO_COLOR: no escape sequences" "$(grep -c $'\033' nocolor.txt)" 0
"$HP" annotate -o out.txt minimax gt.data 2>/dev/null
check "-o FILE: the same text" cmp -s out.txt minimax.txt
"$HP" annotate --context 3 minimax gt.data >ctx.txt 2>/dev/null
check "--context 3 shows more lines" test "$(wc -l <ctx.txt)" -gt "$(wc -l <minimax.txt)"
check "one argument naming a file is the profile" cmp -s <("$HP" annotate --stdio gt.data 2>/dev/null) hottest.txt
check "-i FILE is FILE" cmp -s <("$HP" annotate --stdio -i gt.data minimax 2>/dev/null) minimax.txt

# bursty (live HPS counters): recorded counts, said to be sampled, with the factor
"$HP" run -q --seed 1 --bursts live --sample edges:period=50,burst=10 -o bur.data -- ./gt 6 >/dev/null
"$HP" report --blocks --format json --top 0 bur.data >bur.json 2>/dev/null
"$HP" annotate --format json evaluate bur.data >bur.a.json 2>/dev/null
"$HP" annotate --stdio evaluate bur.data >bur.a.txt 2>/dev/null
check "bursty: the header says the counts are sampled" grep -q 'SAMPLED counts (bursty).*estimate = count x' bur.a.txt
check_eq "bursty: JSON sampled, factor > 1" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["sampled"], d["factor"] > 1)' bur.a.json)" "True True"
python3 "$PY" lines bur.a.json bur.a.txt bur.json "bursty"
# patched bursts: raw sampled counts, no estimate
"$HP" run -q --seed 1 --bursts patch --sample edges:period=50,burst=10 -o pat.data -- ./gt 6 >/dev/null
"$HP" report --blocks --format json --top 0 pat.data >pat.json 2>/dev/null
"$HP" annotate --format json evaluate pat.data >pat.a.json 2>/dev/null
"$HP" annotate --stdio evaluate pat.data >pat.a.txt 2>/dev/null
check "patched bursts: the header says raw sampled counts" grep -q 'SAMPLED counts (patch): raw' pat.a.txt
python3 "$PY" lines pat.a.json pat.a.txt pat.json "patched bursts"

# a source that cannot be read: one warning, line numbers with counts, same total
mv gt.c gt.c.away
"$HP" annotate --stdio --format json minimax gt.data >nosrc.json 2>nosrc.err
"$HP" annotate --stdio minimax gt.data >nosrc.txt 2>>nosrc.err
mv gt.c.away gt.c
check_eq "unreadable source: one warning per run" "$(grep -c 'cannot read .*gt.c' nosrc.err)" 2
python3 "$PY" lines nosrc.json nosrc.txt gt.json "unreadable source"

# bad input
size=$(stat -c %s gt.data)
cp gt.data corrupt.data; printf '\xff' | dd of=corrupt.data bs=1 seek=$((size - 30)) conv=notrunc 2>/dev/null
check_fails_cleanly "unknown symbol: close matches" "no profiled function is called 'minimx'.*minimax" "$HP" annotate minimx gt.data
check_fails_cleanly "corrupt profile" "checksum|corrupt" "$HP" annotate minimax corrupt.data
check_fails_cleanly "missing profile" "cannot open" "$HP" annotate minimax missing.data
check_fails_cleanly "unknown format" "unknown format" "$HP" annotate --format xml minimax gt.data
"$HP" annotate --format xml minimax gt.data >/dev/null 2>&1; check_eq "usage error exits 2" "$?" 2
if "$HP" cc -O2 --hooks=functions -o gtf gt.c -lm && "$HP" run -q -o fn.data -- ./gtf 5 >/dev/null; then
    check_fails_cleanly "profile without block counts" "no basic-block counts.*hotprof cc --hooks=blocks" \
        "$HP" annotate minimax fn.data
else
    fail "gametree builds with --hooks=functions"
fi
cp gt gt.keep
strip gt
check_fails_cleanly "stripped binary" "no symbols|stripped" "$HP" annotate minimax gt.data
rm -f gt
check_fails_cleanly "binary gone, --asm" "cannot" "$HP" annotate --asm minimax gt.data
mv gt.keep gt
echo 'int pad;' >>gt.c
"$HP" cc -O2 -g -o gt gt.c -lm
check_fails_cleanly "rebuilt binary, --asm: build-id" "build-id differs" "$HP" annotate --asm minimax gt.data

# C++: demangled names, an overload set is ambiguous, a unique name needs no parameters, a mangled
# name works, and the counts of an overload sum to the report's
if "$HP" c++ -O2 -g -o ov "$ROOT/tests/e2e/progs/annot_overload.cpp" && "$HP" run -q -o ov.data -- ./ov 2000 >/dev/null; then
    "$HP" report --blocks --format json --top 0 ov.data >ov.json 2>/dev/null
    check_fails_cleanly "C++: an overloaded name is ambiguous, both listed" \
        "ambiguous.*ns::step\(double\).*ns::step\(int\)" "$HP" annotate ns::step ov.data
    "$HP" annotate --format json 'ns::step(int)' ov.data >ov.a.json 2>/dev/null
    "$HP" annotate --stdio 'ns::step(int)' ov.data >ov.a.txt 2>/dev/null
    python3 "$PY" lines ov.a.json ov.a.txt ov.json "C++ ns::step(int)"
    check "C++: a unique name without parameters" grep -q '^Annotate: ns::only(int) ' <("$HP" annotate ns::only ov.data 2>&1)
    check "C++: a mangled name" grep -q '^Annotate: ns::only(int) ' <("$HP" annotate _ZN2ns4onlyEi ov.data 2>&1)
else
    fail "annot_overload.cpp builds and runs with hotprof c++"
fi
