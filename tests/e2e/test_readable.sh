#!/usr/bin/env bash
# test_readable.sh — reports people can read (progs/readable.c, built under a long directory path):
# nothing in the text tables is cut (every name and file:line of the JSON appears whole); one
# source call site duplicated by unrolling (objdump: several call instructions of one line) is one
# call-pair row whose count is the sum; two lines stay two rows; inlined code shows as
# `caller → [inlined f] line N`; two builds of one program compare by name with high overlap;
# perf-style terminal conventions on a pseudo-terminal (script): the pager runs and colour codes
# appear, NO_COLOR / --no-pager / --stdio / -o FILE / a pipe turn them off.
. "$(dirname "$0")/lib.sh"
cd "$T"
PY="$ROOT/tests/e2e/check_readable.py"
SRC="$ROOT/tests/e2e/progs/readable.c"
D=a/very/long/directory/name/for/the/generated/sources
F=$D/a_rather_long_source_file_name_for_readable_reports.c
mkdir -p $D && cp "$SRC" $F
line_of() { grep -n "LINE:$1 " "$SRC" | cut -d: -f1; }
N=1000
mkdir -p rebuilt
if ! "$HP" cc -O2 -o r2 $F || ! "$HP" cc -O1 -fno-inline -o rebuilt/r2 $F; then
    fail "readable.c builds with hotprof cc (-O2 and -O1)"
    exit 0
fi
"$HP" run -q -o r2.data -- ./r2 $N >/dev/null
"$HP" run -q -o r1.data -- ./rebuilt/r2 $N >/dev/null
"$HP" report --top 0 --format json r2.data > r2.json
"$HP" report --top 0 r2.data > r2.txt

# 1. nothing cut
check "long names and file:line are whole in the text" python3 "$PY" whole r2.txt r2.json
check_eq "no '..' cut marker in the text" "$(grep -c '\.\.' r2.txt)" 0

# 2. duplicated call sites of one line are merged; distinct lines stay distinct
objdump -d --no-show-raw-insn -l r2 > r2.dump
ncalls=$(python3 "$PY" calls r2.dump "$(line_of unrolled)" leaf)
if [ "${ncalls:-0}" -ge 2 ]; then ok "objdump: $ncalls call instructions of the unrolled line"
else fail "objdump: several call instructions of the unrolled line" "got '$ncalls'"; fi
row=$(python3 "$PY" pairs r2.json unrolled_loop leaf)
check_eq "unrolled call site: one row, every call counted" "${row%:*}" "$(line_of unrolled):$N"
sites=${row##*:}
if [ "${sites:-0}" -ge 2 ] && [ "$sites" -le "$ncalls" ]; then ok "unrolled call site: $sites sites merged"
else fail "unrolled call site: 2..$ncalls sites merged" "got '$row'"; fi
check_eq "two lines of one caller and callee: two rows" "$(python3 "$PY" pairs r2.json two_lines leaf)" \
    "$(line_of first):1:1 $(line_of second):1:1"

# 3. inlined code
want="uses_inline → [inlined inlined_helper] line $(line_of inlined_at)"
check "inlined call: '$want'" grep -qF -- "$want" r2.txt
check_eq "JSON: the call pair's caller_inlined and caller_inlined_at" "$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["call_pairs"]:
    if p["caller_function"] == "uses_inline" and p["callee_function"] == "leaf":
        print(p.get("caller_inlined"), p.get("caller_inlined_at"))' r2.json)" "inlined_helper $(line_of inlined_at)"
check "inlined call site is the line in the inlined function" \
    grep -qE "\[inlined inlined_helper\] line $(line_of inlined_at) +[^ ]*:$(line_of in_helper) +leaf" r2.txt

# 4. a call whose line-table line is 0 (clang merges the two branches' calls) shows the function's
#    declaration line (-g), or without declarations (no -g: line tables only) its first line
base_of() { "$HP" info "$1" | awk -v p="$2" '$2 == "base" && $NF ~ p"$" {print $3; exit}'; }
check "readable.c builds with -O2 -g" "$HP" cc -O2 -g -o r2g $F
"$HP" run -q -o r2g.data -- ./r2g $N >/dev/null
"$HP" report --top 0 --format json r2g.data > r2g.json
for b in r2 r2g; do objdump --dwarf=decodedline $b > $b.lines; done
got=$(python3 "$PY" line0 r2g.lines r2g.json "$(base_of r2g.data /r2g)" branchy leaf)
if [ "${got% *}" = zero ]; then
    check_eq "line 0 (-g): the declaration line of the function" "${got#* }" "$(line_of branchy_decl)"
    entry=$(python3 -c 'import json,sys; print([m["line"] for m in json.load(open(sys.argv[1]))["methods"] if m["function"] == "branchy"][0])' r2.json)
    check_eq "line 0 (line tables only): the function's first line" \
        "$(python3 "$PY" line0 r2.lines r2.json "$(base_of r2.data /r2)" branchy leaf)" "zero $entry"
else
    echo "ok note: the compiler gave the merged call a line ($got): no line-0 pc to check (unit test covers the rule)"
fi

# 5. two builds compare by name
"$HP" compare --format json r1.data r2.data > cmp.json 2>cmp.err
check_eq "compare -O1 vs -O2 build: exit 0" "$?" 0
"$HP" report --top 0 --format json r1.data > r1.json
common=$(python3 -c 'import json,sys; n=lambda f: {m["function"] for m in json.load(open(f))["methods"]}; print(len(n(sys.argv[1]) & n(sys.argv[2])))' r1.json r2.json)
check_eq "compare two builds: keyed by name, every common function matched" \
    "$(python3 -c 'import json; j=json.load(open("cmp.json")); p={r["type"]:r for r in j["profiles"]}; print(j["keyed_by"], p["calls"]["common"])')" "name $common"
check "compare two builds: calls overlap (renormalized) >= 99%" python3 -c \
    'import json,sys; p={r["type"]:r for r in json.load(open("cmp.json"))["profiles"]}; sys.exit(p["calls"]["overlap_renormalized"] < 0.99)'
check "compare two builds: the header says so, with a build-id warning" sh -c \
    "'$HP' compare r1.data r2.data 2>err | grep -q 'matched by: *symbol name' && grep -q build-id err"
check "compare the same build: by address" sh -c "'$HP' compare r2.data r2.data | grep -q 'matched by: *module-relative address'"

# 6. pager and colour on a pseudo-terminal
if ! command -v script >/dev/null; then fail "script (util-linux) is installed"; exit 0; fi
printf '#!/bin/sh\ntouch "%s/pager.ran"\nexec cat -A\n' "$T" > pager.sh && chmod +x pager.sh
# tty NAME ENV... -- ARGS : runs hotprof ARGS on a pseudo-terminal into NAME.out, pager.ran says if the pager ran
tty() {
    local name=$1; shift; local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    rm -f pager.ran
    env -u HOTPROF_PAGER -u NO_COLOR TERM=xterm PAGER="$T/pager.sh" "${envs[@]}" \
        script -qec "$(printf '%q ' "$HP" "$@")" /dev/null > "$name.out" 2>&1
    [ -e pager.ran ] && echo pager || echo nopager
}
esc=$'\033['
check_eq "terminal: the pager runs" "$(tty a -- report r2.data)" pager
check "terminal: colour codes reach the pager (cat -A shows ^[[)" grep -qF '^[[1mHot methods' a.out
check_eq "terminal, NO_COLOR: the pager runs" "$(tty b NO_COLOR=1 -- report r2.data)" pager
check_eq "terminal, NO_COLOR: no colour" "$(grep -cF '^[[' b.out)" 0
check_eq "terminal, --no-pager: no pager" "$(tty c -- report --no-pager r2.data)" nopager
check "terminal, --no-pager: colour still" grep -qF "${esc}1mHot methods" c.out
check_eq "terminal, --stdio: no pager" "$(tty d -- report --stdio r2.data)" nopager
check_eq "terminal, --stdio: no colour" "$(grep -cF "$esc" d.out)" 0
check_eq "terminal, --color=never: no colour" "$(tty e -- report --no-pager --color=never r2.data; grep -cF "$esc" e.out)" "nopager
0"
check_eq "terminal, HOTPROF_PAGER=cat: no pager" "$(tty f HOTPROF_PAGER=cat -- report r2.data)" nopager
check_eq "terminal, -o FILE: no pager" "$(tty g -- report -o g.txt r2.data)" nopager
check_eq "terminal, -o FILE: no colour in the file" "$(grep -cF "$esc" g.txt)" 0
check_eq "terminal, JSON: no pager" "$(tty h -- report --format json r2.data)" nopager
check_eq "terminal: diff is paged" "$(tty i -- diff r1.data r2.data)" pager
check_eq "terminal: compare is paged" "$(tty j -- compare r1.data r2.data)" pager
check_eq "terminal: annotate is paged" "$(tty l -- annotate -i r2.data)" pager
check "terminal: annotate's colour reaches the pager" grep -qF '^[[' l.out
check_eq "terminal, annotate --stdio: no pager" "$(tty m -- annotate --stdio -i r2.data)" nopager
check_eq "terminal, annotate --format json: no pager" "$(tty n -- annotate --format json -i r2.data)" nopager
check_eq "terminal, a missing pager: no pager" "$(tty k PAGER=no-such-pager-here -- report r2.data)" nopager
check "terminal, a missing pager: one warning, then the report" sh -c \
    "grep -q \"warning: pager 'no-such-pager-here' not found\" k.out && grep -q 'Hot methods' k.out"
rm -f pager.ran
PAGER="$T/pager.sh" "$HP" report r2.data > piped.txt
check_eq "piped: no pager" "$([ -e pager.ran ] && echo pager || echo nopager)" nopager
check_eq "piped: no colour" "$(grep -cF "$esc" piped.txt)" 0
check "piped, --color=always: colour" sh -c "'$HP' report --color=always r2.data | grep -qF '${esc}1m'"
check "--stdio accepted by compare and diff" sh -c \
    "'$HP' compare --stdio r1.data r2.data >/dev/null 2>&1 && '$HP' diff --stdio r1.data r2.data >/dev/null"
check_fails_cleanly "report --color=bogus" "unknown --color" "$HP" report --color=bogus r2.data
check_fails_cleanly "diff --color=bogus" "unknown --color" "$HP" diff --color=bogus r1.data r2.data
