#!/usr/bin/env bash
# test_html.sh — `hotprof report --format html [--compare REF]` on real workloads, checked in
# headless Chromium (3 launches): a bursty gametree profile compared with an exhaustive one loads
# without console errors, its DOM holds the top method and call-pair names of the JSON report and
# every row of `hotprof compare`'s table, and its screenshot is not blank (check_html.py decodes
# the PNG with zlib); a C++ program whose names hold < > & and whose arguments hold " shows them
# exactly, escaped. The file is self-contained (no http(s)://, src=, script) and deterministic.
# Bad input (corrupt profile, corrupt REF, unwritable -o, --compare without html) fails with one
# message and leaves no partial file, nor clobbers an older report.
. "$(dirname "$0")/lib.sh"
cd "$T"
PY="$ROOT/tests/e2e/check_html.py"
export HOME="$T" # chromium's profile and caches go here

# chrome LABEL ARGS... : headless Chromium on a file; stderr (its log) into LABEL.log.
chrome() {
    local label=$1; shift
    timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --user-data-dir="$T/chrome-$label" "$@" 2>"$T/$label.log"
}

# no_console_errors LABEL: the page logged nothing to the console and threw nothing.
no_console_errors() {
    local bad
    bad=$(grep -E 'CONSOLE|Uncaught' "$T/$1.log" | head -n 3)
    check_eq "$1: no console messages or uncaught errors" "$bad" ""
}

if ! command -v chromium >/dev/null; then
    fail "chromium is installed (scripts/setup.sh)"
    exit 0
fi

if "$HP" cc -O2 -o gametree "$ROOT/bench/workloads/gametree.c" -lm; then
    "$HP" run -q -o exh.data -- ./gametree 7 >/dev/null
    check_eq "gametree: exhaustive run succeeds" "$?" 0
    "$HP" run -q --seed 1 --bursts live --sample methods:period=99,burst=1 --sample callpairs:period=49,burst=1 \
        -o bursty.data -- ./gametree 7 >/dev/null
    check_eq "gametree: bursty run succeeds" "$?" 0
    "$HP" report --format json bursty.data > bursty.json 2>/dev/null
    "$HP" compare bursty.data exh.data > compare.txt 2>/dev/null

    check "report --format html --compare writes the page" \
        "$HP" report --format html -o report.html --compare exh.data bursty.data
    check "deterministic: a second page is byte for byte the same" sh -c \
        "'$HP' report --format html --compare exh.data bursty.data | cmp -s - report.html"
    python3 "$PY" selfcontained report.html "gametree"
    python3 "$PY" compare report.html compare.txt "gametree --compare"
    check "the page has an icicle, bar charts, the accuracy plot and the share scatter" sh -c \
        "grep -q '<svg class=\"flame\"' report.html && grep -q '<svg class=\"bars\"' report.html && grep -q '<svg class=\"cmp\"' report.html && grep -q '<svg class=\"scatter\"' report.html"

    chrome gametree-dom --dump-dom "file://$T/report.html" > dom.html
    check_eq "gametree: chromium loads the page" "$?" 0
    no_console_errors gametree-dom
    python3 "$PY" names dom.html bursty.json 5 "gametree"
    chrome gametree-shot --screenshot="$T/shot.png" --window-size=1200,900 "file://$T/report.html" >/dev/null
    check "gametree: chromium takes a screenshot" test -s shot.png
    no_console_errors gametree-shot
    python3 "$PY" png shot.png "gametree"

    # bad input: one message, exit 1, no partial file, an older report left as it was
    size=$(stat -c %s exh.data)
    cp exh.data flipped.data; printf '\xff' | dd of=flipped.data bs=1 seek=$((size - 30)) conv=notrunc 2>/dev/null
    cp report.html before.html
    check_fails_cleanly "corrupt profile" "checksum|corrupt" "$HP" report --format html -o report.html flipped.data
    check_fails_cleanly "corrupt --compare REF" "flipped.data.*(checksum|corrupt)" \
        "$HP" report --format html -o report.html --compare flipped.data bursty.data
    check "failed reports left the older page as it was" cmp -s report.html before.html
    check_fails_cleanly "missing --compare REF" "nothing.data" \
        "$HP" report --format html -o new.html --compare nothing.data bursty.data
    : > notadir
    check_fails_cleanly "unwritable -o" "notadir/r.html" "$HP" report --format html -o notadir/r.html bursty.data
    check "no partial output file is left" sh -c "! ls new.html notadir/r.html report.html.tmp.* 2>/dev/null | grep -q ."
    check_fails_cleanly "--compare without --format html" "compare goes with --format html" \
        "$HP" report --compare exh.data bursty.data
    check "help report documents html and --compare" sh -c "'$HP' help report | grep -q 'html' && '$HP' help report | grep -q -- '--compare'"
else
    fail "gametree builds with hotprof cc"
fi

# Names with HTML's special characters: C++ operators and templates, and an argument with quotes.
if "$HP" c++ -O2 -o names "$ROOT/tests/e2e/progs/html_names.cpp"; then
    arg='<a href="x">&amp;'
    "$HP" run -q -o names.data -- ./names 3000 "$arg" >/dev/null
    check_eq "html_names: run succeeds" "$?" 0
    "$HP" report --format json names.data > names.json 2>/dev/null
    "$HP" report --format html -o names.html names.data
    check_eq "html_names: report --format html succeeds" "$?" 0
    mapfile -t special < <(python3 -c 'import json,sys; print("\n".join(m["function"] for m in json.load(open(sys.argv[1]))["methods"] if any(c in m["function"] for c in "<>&")))' names.json)
    check "html_names: the JSON report has names with < > &" test "${#special[@]}" -ge 2
    python3 "$PY" text names.html "html_names" "${special[@]}" "./names 3000 $arg"
    python3 "$PY" selfcontained names.html "html_names"
    chrome names-dom --dump-dom "file://$T/names.html" > names-dom.html
    no_console_errors names-dom
    python3 "$PY" names names-dom.html names.json 4 "html_names"
    python3 "$PY" text names-dom.html "html_names DOM" "${special[@]}"
else
    fail "html_names.cpp builds with hotprof c++"
fi
