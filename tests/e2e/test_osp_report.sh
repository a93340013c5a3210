#!/usr/bin/env bash
# test_osp_report.sh — the analysis side of subpath profiling (issue 9) over synthetic profiles:
# a real run of a small program (real modules and block map, so blocks symbolize) with a SUBPATHS
# section and subpath.* INFO inserted by osp_profile.py (an exact and a sampled list whose records
# it also writes as JSON, so every expected figure is computed here from them):
# report --type subpath (text, JSON: estimates = weight / p_length, order, bounds, collapsed path
# text), --threshold, compare's subpath section (text, JSON), bad records, --type unknown / absent.
. "$(dirname "$0")/lib.sh"
cd "$T"
W="$ROOT/tests/e2e/osp_profile.py"
cat > work.c <<'C'
__attribute__((noinline)) int leaf(int x)
{
    if (x % 3) x += 2;
    else x -= 1;
    return x + 1;
}
int main(void)
{
    int s = 0;
    for (int i = 0; i < 1000; i++) { s = leaf(s); if (s > 100) s -= 50; }
    return s < 0;
}
C
"$HP" cc -O1 -o work work.c && "$HP" run -q -o good.data -- ./work || { fail "build and run"; exit 0; }
for k in exact sampled counting exactenc bad-length bad-nblocks bad-plen bad-weight bad-cut; do
    python3 "$W" good.data "$k.data" "$k" "$k.truth.json" || fail "write $k"
done

# report --type subpath --format json: every record, estimate = weight / p_length, in order.
"$HP" report --type subpath --format json --top 0 sampled.data > sampled.json
check "json: only the subpath member, every record with its estimate, bounds and path" python3 - sampled.json sampled.truth.json <<'PY'
import json, math, sys
rep, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert not any(k in rep for k in ("methods", "call_pairs", "blocks", "edges")), list(rep)
sp = rep["subpaths"]
assert sp["summary"] == "sampled" and sp["blocks"] == truth["blocks"], sp["blocks"]
want = sorted(((r["weight"] / r["p_length"], r["key"]) for r in truth["records"]), key=lambda t: (-t[0], t[1]))
got = [(r["estimate"], int(r["key"], 16)) for r in sp["rows"]]
assert len(got) == len(want), (len(got), len(want))
for (ge, gk), (we, wk) in zip(got, want):
    assert gk == wk and abs(ge - we) < 1e-6 * we, (ge, gk, we, wk)
for r in sp["rows"]:
    eps = math.sqrt(6 * math.log(20) / r["count"])
    lo, hi = r["bounds"]["two_sided_95"]
    assert abs(lo - max(0, r["estimate"] * (1 - eps))) < 1e-6 * r["estimate"] + 1e-9, (lo, r)
    assert abs(hi - r["estimate"] * (1 + eps)) < 1e-6 * r["estimate"], (hi, r)
    assert r["bounds"]["one_sided_95"] >= lo
    assert len(r["blocks"]) == r["length"]
    # the text is the blocks collapsed: a new step when function or line changes
    parts, prev = [], None
    for b in r["blocks"]:
        where = (b["function"], b["line"])
        if where == prev:
            continue
        step = "%s:%d" % (b["file"].split("/")[-1], b["line"])
        parts.append((b["function"] + " " if not prev or prev[0] != b["function"] else "") + step)
        prev = where
    text = " → ".join(parts)
    got_text = " → ".join(s.split("/")[-1] if " " not in s else s.split(" ")[0] + " " + s.split("/")[-1]
                          for s in r["text"].split(" → "))
    assert got_text == text, (got_text, text)
PY
"$HP" report --type subpath --top 0 sampled.data > sampled.txt
rows=$(python3 -c "import json; print(len(json.load(open('sampled.truth.json'))['records']))")
check_eq "text: one row per subpath" "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+–' sampled.txt)" "$rows"
check "text: the hottest row shows its function and file:line" grep -qE '^ +1 .*(leaf|main) [^ ]*work\.c:[0-9]+' sampled.txt
check "text: only the subpath table" sh -c "! grep -q 'Hot methods' sampled.txt"
check "the default report also lists subpaths (the profile holds them)" sh -c "'$HP' report sampled.data | grep -q 'Hot subpaths'"
check "a profile without subpaths reports as before" sh -c "! '$HP' report good.data | grep -q 'Hot subpaths'"

# --threshold: rows whose one-sided 95% lower bound >= PCT% of subpath.blocks (computed from the JSON).
for pct in 1 2.5 5; do
    want=$(python3 -c "import json; d=json.load(open('sampled.json'))['subpaths']; print(sum(r['bounds']['one_sided_95'] >= $pct/100*d['blocks'] for r in d['rows']))")
    got=$("$HP" report --type subpath --format json --top 0 --threshold $pct sampled.data | python3 -c "import json,sys; print(len(json.load(sys.stdin)['subpaths']['rows']))")
    check_eq "--threshold $pct keeps the rows above it" "$got" "$want"
done
check_fails_cleanly "--threshold must be a percentage" "percentage" "$HP" report --threshold abc sampled.data

# compare: the figures computed from the two truth files.
"$HP" compare --format json sampled.data exact.data > cmp.json
check "compare json: the subpath section's figures" python3 - cmp.json sampled.truth.json exact.truth.json <<'PY'
import json, math, sys
cmp, s, e = (json.load(open(f)) for f in sys.argv[1:4])
est = {r["key"]: r["weight"] / r["p_length"] for r in s["records"]}
cnt = {r["key"]: r["count"] for r in s["records"]}
ex = {r["key"]: r["weight"] / r["p_length"] for r in e["records"]}
so = sorted(est, key=lambda k: (-est[k], k)); eo = sorted(ex, key=lambda k: (-ex[k], k))
sp = cmp["subpath"]
for k in (5, 10):
    assert abs(sp["recall_%d" % k] - len(set(so[:k]) & set(eo[:k])) / min(k, len(eo))) < 1e-6, sp
assert sp["ranks"] == [eo.index(k) + 1 if k in ex else 0 for k in so[:10]], sp["ranks"]
err = lambda k: abs(est.get(k, 0) - ex[k]) / ex[k] * 100
assert abs(sp["hottest_error"] - err(eo[0])) < 1e-4
assert abs(sp["mean_error_10"] - sum(err(k) for k in eo[:10]) / len(eo[:10])) < 1e-4
def hit(k):
    if k not in est: return 0
    eps = math.sqrt(6 * math.log(20) / cnt[k])
    return est[k] * (1 - eps) <= ex[k] <= est[k] * (1 + eps)
assert abs(sp["bounds_hit_5"] - sum(hit(k) for k in eo[:5]) / 5) < 1e-6, sp
PY
"$HP" compare sampled.data exact.data > cmp.txt
check "compare text: the subpath section" grep -q "exact rank of sampled top 10" cmp.txt
check_eq "compare text: the ranks as in JSON" "$(grep 'exact rank of sampled top 10' cmp.txt | awk '{for(i=7;i<=NF;i++) printf "%s%s", $i, (i<NF?",":"")}')" \
    "$(python3 -c "import json; print(','.join(map(str, json.load(open('cmp.json'))['subpath']['ranks'])))")"
check_fails_cleanly "compare: two encodings are refused" "enc=exact.*enc=xor" "$HP" compare exactenc.data exact.data

# counting samples (list=counting, tau 64): rows ranked by estimate x c / (c + tau - 1), so the
# subpath held on 1 sample with the highest estimate comes after every one counted 30 times or
# more; bounds carry the admission term.
"$HP" report --type subpath --format json --top 0 counting.data > counting.json
check "counting: ranked by the counted share, bounds with the admission term" python3 - counting.json counting.truth.json <<'PY'
import json, math, sys
rep, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sp, tau = rep["subpaths"], 64.0
assert sp["tau"] == tau and "list=counting" in sp["params"], (sp["tau"], sp["params"])
rank = lambda r: r["weight"] / r["p_length"] * r["count"] / (r["count"] + tau - 1)
want = [k for _, k in sorted(((rank(r), r["key"]) for r in truth["records"]), key=lambda t: (-t[0], t[1]))]
got = [int(r["key"], 16) for r in sp["rows"]]
assert got == want, (got, want)
top = max(truth["records"], key=lambda r: r["weight"] / r["p_length"])
counted = [r["key"] for r in truth["records"] if r["count"] >= 30]
assert top["count"] == 1 and all(got.index(top["key"]) > got.index(k) for k in counted), "the 1-sample subpath should rank below the counted ones"
for r in sp["rows"]:
    eps = math.sqrt(6 * math.log(20) / r["count"]) + (-math.log(0.025) - 1) * tau / r["count"]
    assert abs(r["bounds"]["error_95"] - eps) < 1e-6 * eps, (r["bounds"]["error_95"], eps)
PY
"$HP" compare --format json counting.data exact.data > cmp_counting.json
check "counting: compare ranks in the same order (its top 5 are the exact top 5)" python3 - cmp_counting.json <<'PY'
import json, sys
ranks = json.load(open(sys.argv[1]))["subpath"]["ranks"]
assert ranks[:5] == [1, 2, 3, 4, 5], ranks
PY

# bad input: one message, exit 1, no crash.
for k in bad-length bad-nblocks bad-plen bad-weight bad-cut; do
    check_fails_cleanly "report refuses $k" "corrupt subpath record" "$HP" report "$k.data"
done
check_fails_cleanly "--type unknown lists the types" "unknown profile type 'bogus'.*subpath" "$HP" report --type bogus sampled.data
check_fails_cleanly "--type subpath on a profile without subpaths" "holds no subpath" "$HP" report --type subpath good.data
check_fails_cleanly "--type with html" "goes with" "$HP" report --type subpath --format html -o x.html sampled.data
check "--type methods prints only the methods" sh -c "'$HP' report --type methods sampled.data | grep -q 'Hot methods' && ! '$HP' report --type methods sampled.data | grep -q 'Hot subpaths'"
check "--type edges (json) prints only the edges" sh -c "'$HP' report --type edges --format json good.data | python3 -c 'import json,sys; d=json.load(sys.stdin); assert \"edges\" in d and \"methods\" not in d'"

# merge: one list added to itself doubles every count, weight and estimate; two kinds are refused.
check "merge of a subpath list with itself" "$HP" merge -o twice.data sampled.data sampled.data
"$HP" report --type subpath --format json --top 0 twice.data > twice.json
check "merge: counts, weights and estimates doubled, blocks kept" python3 - sampled.json twice.json <<'PY'
import json, sys
a, b = (json.load(open(f))["subpaths"]["rows"] for f in sys.argv[1:3])
assert len(a) == len(b) and a, (len(a), len(b))
for x, y in zip(a, b):
    assert x["key"] == y["key"] and y["count"] == 2 * x["count"] and abs(y["estimate"] - 2 * x["estimate"]) < 1e-6 * y["estimate"]
    assert [(k["function"], k["line"]) for k in x["blocks"]] == [(k["function"], k["line"]) for k in y["blocks"]]
PY
check_fails_cleanly "merge: a sampled and an exact list are refused" "different settings" "$HP" merge -o bad.data sampled.data exact.data
check "... and nothing is written" test ! -e bad.data
