#!/usr/bin/env bash
# test_dual_count_sites.sh — inline count sites (`hotprof cc --dual-sites=count`, the plugin's
# -hotprof-dual-site=count; docs/dual.md *Inline count sites*): count mode's decrement and branch
# compiled into the clean copy instead of a patchable nop and a runtime trampoline.
#   - every latch / one-body entry site is `subq $1,%fs:…; jle` in the binary and INFO
#     dual.count_sites says how many; a -fPIC shared library keeps nop sites;
#   - identical output in every mode (off, exhaustive, count, live, patch);
#   - exhaustive on the count-site build gives exactly the nop build's calls, back-edges, blocks;
#   - count mode records B/(B+S) (+-10%) and counts every event (1%), per thread too;
#   - --bursts patch on such a build: one message, count-triggered bursts instead;
#   - off: a thread leaves the instrumented copy at its first back-edge (callgrind: the hooks run
#     a handful of times, not once per block);
#   - bad input: --dual-sites=bad, --dual-sites=count without a dual-* set, HOTPROF_DUAL_SITES=bad.
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
C="$ROOT/tests/e2e/check_dual_count.py"
cd "$T" || exit 1

check_fails_cleanly "cc: --dual-sites=bad refused" "nop or count" \
    "$HP" cc --hooks=dual-blocks --dual-sites=bad -O2 -c -o x.o "$P/dual_loops.c"
check_fails_cleanly "cc: --dual-sites=count needs a dual set" "needs a dual-\* hook set" \
    "$HP" cc --hooks=blocks --dual-sites=count -O2 -c -o x.o "$P/dual_loops.c"
check_fails_cleanly "cc: HOTPROF_DUAL_SITES=bad refused" "HOTPROF_DUAL_SITES" \
    env HOTPROF_DUAL_SITES=bad "$HP" cc --hooks=dual-blocks -O2 -c -o x.o "$P/dual_loops.c"
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || exit 0

json() { "$HP" report --format json --top 0 "$1" >"$2"; }
count_sites_in() { objdump -d "$1" | grep -c 'subq *\$0x1,%fs:'; }
M999="--sample methods:period=999,burst=1"
ARGS="4000 4000000"
clang -O2 -o ph.native "$P/dual_count_phases.c" -lm
./ph.native $ARGS >want
for hs in dual-blocks dual-functions; do
    "$HP" cc --hooks=$hs -O2 -o "ph.$hs" "$P/dual_count_phases.c" -lm || { fail "$hs: nop build"; continue; }
    "$HP" cc --hooks=$hs --dual-sites=count -O2 -o "ph.$hs.c" "$P/dual_count_phases.c" -lm ||
        { fail "$hs: count-site build"; continue; }
    n=$(count_sites_in "ph.$hs.c")
    check "$hs: the binary has inline count sites" test "$n" -gt 0
    check_eq "$hs: the nop build has none" "$(count_sites_in "ph.$hs")" 0
    HOTPROF_MODE=off "./ph.$hs.c" $ARGS >off.out
    check_eq "$hs: off: same output" "$(cat off.out)" "$(cat want)"
    HOTPROF_OUTPUT=ex.c.data "./ph.$hs.c" $ARGS >ex.out && json ex.c.data ex.c.json
    check_eq "$hs: exhaustive: same output" "$(cat ex.out)" "$(cat want)"
    HOTPROF_OUTPUT=ex.n.data "./ph.$hs" $ARGS >/dev/null && json ex.n.data ex.n.json
    tot() { python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['totals']; print(t['calls'], t['backedges'], t['blocks'])" "$1"; }
    check_eq "$hs: exhaustive counts = the nop build's (calls, back-edges, blocks)" "$(tot ex.c.json)" "$(tot ex.n.json)"
    "$HP" run -q --bursts count $M999 -o c.data -- "./ph.$hs.c" $ARGS >c.out && json c.data c.json
    check_eq "$hs: count: same output" "$(cat c.out)" "$(cat want)"
    check_eq "$hs: INFO dual.count_sites = the binary's count sites" \
        "$("$HP" info c.data | awk '$1 == "dual.count_sites" {print $2}')" "$n"
    python3 "$C" share ex.c.json c.json "$hs count sites 1/1000"
    "$HP" run -q --bursts live $M999 -o l.data -- "./ph.$hs.c" $ARGS >l.out && json l.data l.json
    check_eq "$hs: live: same output" "$(cat l.out)" "$(cat want)"
    python3 "$C" share ex.c.json l.json "$hs count sites, live 1/1000"
    env -u HOTPROF_QUIET "$HP" run --bursts patch $M999 -o p.data -- "./ph.$hs.c" $ARGS >p.out 2>p.err
    check_eq "$hs: patch: same output" "$(cat p.out)" "$(cat want)"
    check "$hs: patch: says count-triggered instead" grep -q 'inline count sites.*count-triggered' p.err
    check "$hs: patch: the profile is count-triggered" sh -c "'$HP' report p.data | grep -q 'count-triggered'"
done

# ---- threads: one countdown each
"$HP" cc --hooks=dual-blocks --dual-sites=count -O2 -o th.c "$P/dual_count_threads.c" -lpthread &&
    HOTPROF_OUTPUT=th.ex.data ./th.c 4 200000 >/dev/null &&
    "$HP" run -q --bursts count $M999 -o th.data -- ./th.c 4 200000 >/dev/null &&
    "$HP" info th.data | awk '$1 ~ /^thread\.[0-9]+\.(events|sampled)\.methods$/ {
        split($1, k, "."); v[k[2], k[3]] = $2; t[k[2]] = 1 } END { for (i in t) print v[i, "events"], v[i, "sampled"] }' |
    sort -n | tail -4 >th.got
python3 - th.got <<'PY'
import sys
got = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
f = 1 / 1000.0
ok = len(got) == 4 and all(g[0] and abs(g[1] / float(g[0]) - f) <= 0.1 * f for g in got)
print(("ok" if ok else "FAIL") + " threads: each worker's recorded share is B/(B+S) (+-10%%): %s"
      % ["%.6f" % (g[1] / float(g[0])) for g in got if g[0]])
PY

# ---- off: the instrumented copy is left at the first back-edge (hook calls: a handful, not one per block)
if command -v valgrind >/dev/null; then
    "$HP" cc --hooks=dual-blocks --dual-sites=count -O2 -o loops.c "$P/dual_count_phases.c" -lm &&
        HOTPROF_MODE=off valgrind --tool=callgrind --callgrind-out-file=cg.out ./loops.c 200 20000 >/dev/null 2>&1
    calls=$(callgrind_annotate --inclusive=yes cg.out 2>/dev/null | awk '/__sanitizer_cov_trace_pc_guard/ {gsub(",", "", $1); print $1; exit}')
    blocks=$(HOTPROF_OUTPUT=cg.ex.data ./loops.c 200 20000 >/dev/null && "$HP" info cg.ex.data | awk '$1 == "total.blocks" {print $2}')
    check "off: block hooks ran ${calls:-0} instructions for $blocks blocks (< 1 per 10 blocks)" \
        test "${calls:-0}" -lt $((blocks / 10))
fi

# ---- a -fPIC shared library keeps nop sites (its countdown would not be at a link-time %fs offset)
"$HP" cc --hooks=dual-blocks --dual-sites=count -O2 -fPIC -shared -o libdl.so "$P/dso_lib.c" &&
    check_eq "shared library: no inline count site" "$(count_sites_in libdl.so)" 0
