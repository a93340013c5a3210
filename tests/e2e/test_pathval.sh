#!/usr/bin/env bash
# test_pathval.sh — path and value profiles of exhaustive runs (docs/paths.md, docs/value-reports.md)
# on progs/pathval.c (a loop whose body has four paths, A7 A- B7 B-, taken in a known pattern, and
# a compare against a value that is 7 in 90% of the iterations; the program prints its own counts):
#   - the two hottest paths and their counts are those the program's counts give (the first and
#     the last iteration are not completed loop paths: the test subtracts them), the A paths pass
#     through small(), the B paths do not;
#   - the value profile (TNV, and Gibbons-Matias) holds a compare site whose top value is 7 with
#     the share the program counted, and the report says which summary was used;
#   - `hotprof compare` of two runs: Wall accuracy 100%, Diff-Top 0; `hotprof merge` adds paths;
#   - an exhaustive run without the clauses writes no paths and no values;
#   - a --follow-fork child's profile holds its own paths and values only, not its parent's;
#   - bad clauses and a bad HOTPROF_PATHVAL: one clear message each.
. "$(dirname "$0")/lib.sh"
cd "$T"
cp "$ROOT/tests/e2e/progs/pathval.c" .
if ! "$HP" cc -O1 --hooks=all -o pv pathval.c; then
    fail "pathval builds with hotprof cc --hooks=all"
    exit 0
fi
N=40000

check "run with paths and TNV values" bash -c '"$0" run -q -o a.data --sample path --sample value:summary=tnv -- ./pv '$N' >a.out' "$HP"
"$HP" report --format json --type path a.data >a_path.json 2>a.err
check_eq "report --type path --format json exits 0" "$?" 0
"$HP" report --format json --type value a.data >a_val.json 2>>a.err
check_eq "report --type value --format json exits 0" "$?" 0
check "text report has the Hot paths table" bash -c '"$0" report --type path "$1" | grep -q "^Hot paths: "' "$HP" a.data

check "the two hottest paths are the program's two most frequent iterations" python3 - a.out a_path.json <<'PY'
import json, re, sys
out = open(sys.argv[1]).read()
c = {k: int(v) for k, v in re.findall(r"(A7|A-|B7|B-)=(\d+)", out)}
first, last = (int(x) for x in re.search(r"first=(\d) last=(\d)", out).groups())
names = ["A7", "A-", "B7", "B-"]
want = {k: c[k] - (names.index(k) == first) - (names.index(k) == last) for k in names}
top = sorted(names, key=lambda k: -want[k])[:2]
rows = json.load(open(sys.argv[2]))["paths"]["rows"]
got = [r["count"] for r in rows[:2]]
assert got == [want[k] for k in top], (got, want, top)
for r, k in zip(rows[:2], top):
    through_small = any(b["function"] == "small" for b in r["blocks"])
    assert through_small == k.startswith("A"), (k, r["text"])
    assert (" rare " in r["text"]) == k.endswith("-"), (k, r["text"])
total = sum(r["count"] for r in rows)
assert total == json.load(open(sys.argv[2]))["paths"]["completed"], total
PY

check_value() { # NAME SUMMARY JSON: a cmp site with top value 7 at the program's share, summary named
    check "$1" python3 - a.out "$3" "$2" <<'PY'
import json, re, sys
out = open(sys.argv[1]).read()
n, sevens = int(re.search(r"n=(\d+)", out).group(1)), int(re.search(r"sevens=(\d+)", out).group(1))
d = json.load(open(sys.argv[2]))
assert d["values_summary"] == sys.argv[3], d["values_summary"]
sites = [l for i in d["values"] for l in i["lists"] if l["kind"] == "cmp" and l["values"] and l["values"][0]["value"] == "0x7"]
assert sites, "no compare site with top value 7"
best = max(sites, key=lambda l: l["captures"])
assert best["captures"] == n, best
assert abs(best["values"][0]["share"] - sevens / n) < 0.005, (best["values"][0], sevens / n)
PY
}
check_value "TNV: a compare's top value is 7 with the program's share" tnv a_val.json
check "text report names the summary" bash -c '"$0" report --type value "$1" | grep -q "summary tnv"' "$HP" a.data

check "run with Gibbons-Matias values" bash -c '"$0" run -q -o g.data --sample value:summary=gm,sites=64 -- ./pv '$N' >/dev/null' "$HP"
"$HP" report --format json --type value g.data >g_val.json 2>>a.err
check_value "GM: a compare's top value is 7 with the program's share" gm g_val.json
check "GM run without paths writes no paths" bash -c '! "$0" report --format json "$1" | grep -q "\"paths\": {"' "$HP" g.data

check "second identical run" bash -c '"$0" run -q -o b.data --sample path --sample value:summary=tnv -- ./pv '$N' >/dev/null' "$HP"
"$HP" compare --format json b.data a.data >cmp.json 2>>a.err
check_eq "compare exits 0" "$?" 0
check "compare of identical runs: Wall 100%, Diff-Top 0" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["path"]["wall_accuracy"] == 1.0, d["path"]
assert d["value"]["diff_top"] == 0.0, d["value"]' cmp.json
check "compare text has both sections" bash -c '"$0" compare "$1" "$2" | grep -q "Wall accuracy, top 5%" && "$0" compare "$1" "$2" | grep -q "Diff-Top"' "$HP" b.data a.data

check "merge of two runs" "$HP" merge -o m.data a.data b.data
check "merge adds the paths" python3 - a_path.json m.data "$HP" <<'PY'
import json, subprocess, sys
a = json.load(open(sys.argv[1]))["paths"]
m = json.loads(subprocess.run([sys.argv[3], "report", "--format", "json", "--type", "path", sys.argv[2]],
                              capture_output=True, text=True, check=True).stdout)["paths"]
assert m["completed"] == 2 * a["completed"], (m["completed"], a["completed"])
assert m["rows"][0]["count"] == 2 * a["rows"][0]["count"]
PY

check "exhaustive run without the clauses: no paths, no values" bash -c '"$0" run -q -o e.data -- ./pv 1000 >/dev/null &&
    "$0" report --format json "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); assert \"paths\" not in d and \"values\" not in d and d[\"totals\"][\"blocks\"] > 0, list(d)"' "$HP" e.data

check "run with --follow-fork, a child running its own loop" bash -c '"$0" run -q --follow-fork -o f.data --sample path --sample value:summary=gm -- ./pv 3000 500 >f.out' "$HP"
check "the child's profile holds only the child's paths and values" python3 - f.data "$HP" <<'PY'
import glob, json, subprocess, sys
kids = [f for f in glob.glob(sys.argv[1] + ".*")]
assert len(kids) == 1, kids
def rep(f, t):
    return json.loads(subprocess.run([sys.argv[2], "report", "--format", "json", "--type", t, f],
                                     capture_output=True, text=True, check=True).stdout)
kid, parent = rep(kids[0], "path")["paths"], rep(sys.argv[1], "path")["paths"]
assert kid["completed"] <= 500 and parent["completed"] >= 2999, (kid["completed"], parent["completed"])
caps = max(l["captures"] for i in rep(kids[0], "value")["values"] for l in i["lists"])
assert caps <= 500 + 1, caps
PY

check_fails_cleanly "path:maxlen=1 refused" "maxlen must be 2..1024" "$HP" run -o x.data --sample path:maxlen=1 -- ./pv 10
check_fails_cleanly "unknown path key refused" "unknown path key" "$HP" run -o x.data --sample path:len=4 -- ./pv 10
check_fails_cleanly "tnv entries=99 refused" "entries must be 2..64" "$HP" run -o x.data --sample value:summary=tnv,entries=99 -- ./pv 10
check_fails_cleanly "gm with clear= refused" "summary=tnv only" "$HP" run -o x.data --sample value:summary=gm,clear=5 -- ./pv 10
check_fails_cleanly "paths in bursty mode refused" "need --mode exhaustive" "$HP" run -o x.data --mode bursty --sample path -- ./pv 10
check_fails_cleanly "paths with --record-trace refused" "cannot be combined" "$HP" run -o x.data --sample path --record-trace t.trace -- ./pv 10
HOTPROF_QUIET=0 HOTPROF_OUTPUT=y.data HOTPROF_PATHVAL=path:maxlen=0 ./pv 10 >/dev/null 2>y.err
check "a bad HOTPROF_PATHVAL: one message, no profile" bash -c 'grep -q "bad HOTPROF_PATHVAL: path maxlen must be 2..1024" y.err && [ "$(wc -l <y.err)" = 1 ] && [ ! -e y.data ]'
