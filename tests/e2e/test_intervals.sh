#!/usr/bin/env bash
# test_intervals.sh — interval multi-hash profiles of a real run (docs/intervals.md) on
# progs/sim_phases.c (planted phases: compared value V1 = 111 hot in the first half of the run,
# V2 = 222 in the second; an edge taken only in every third block of 3000 rounds):
#   - the value report finds both phases: 111 is a candidate in the first-half intervals and in
#     none of the second half, 222 the reverse, and a phase boundary falls at the switch;
#   - the edges report has an edge that is a candidate in about 1 interval in 3 and comes and goes
#     (many separate runs of intervals);
#   - one engine, two drivers: the runtime's interval profile (exact=1) and `hotprof sim multihash`
#     on a trace recorded in the same run give the same error E and FP/FN/NP/NN (values and edges,
#     a small design with large errors so that the numbers say something), for every variant
#     (variant=paper|rebalanced|half against sim --variant of the same name: variant=paper is the
#     design as given, exactly as before variants existed, and writes no variant trailer);
#   - the default variant is rebalanced: INFO, the report (text and JSON) and compare say so;
#   - patched bursts (--bursts patch): the value hooks feed intervals in windows only; the hot
#     tuples are the exhaustive run's top tuples (shares >= 90% there), 111's intervals come
#     before 222's; the edges stream holds exactly the sampled edges; report and JSON say
#     "patch"; too few intervals for phases: the run and the report warn;
#   - the report's numbers agree with each other (shares = hits / intervals; the intervals times L
#     plus the incomplete tail = the stream's events = the trace's events);
#   - bad input, one message each: unknown key, interval=0, a threshold the counters cannot hold,
#     tables not dividing counters, an unknown variant, a variant with no room for the counters,
#     interval clauses in timer mode, a bad HOTPROF_INTERVALS, a corrupt INTERVALS section (valid
#     checksums, bad content: stream, slot counts, a variant trailer whose sizes are not its design's).
. "$(dirname "$0")/lib.sh"
cd "$T"
cp "$ROOT/tests/e2e/progs/sim_phases.c" .
if ! "$HP" cc -O2 --hooks=all -o ph sim_phases.c; then
    fail "sim_phases builds with hotprof cc"
    exit 0
fi
SMALL="tables=2,counters=64,conservative=0,retain=0,interval=2000,threshold=2%,exact=1"
SIMSMALL="--tables 2 --counters 64 --conservative 0 --reset 0 --retain 0 --interval 2000 --threshold 2"

# ---- the planted phases, default (paper's best) configuration
check "run with value and edges interval profiles" "$HP" run -q --seed 3 -o d.data \
    --sample value:summary=multihash --sample edges:summary=multihash -- ./ph
"$HP" report --format json d.data >d.json 2>d.err
check_eq "report --format json exits 0" "$?" 0
check "report text has both interval tables" bash -c '"$0" report "$1" | grep -c "^Interval profile: \(value\|edges\)" | grep -qx 2' "$HP" d.data
check "report --type intervals shows only the interval tables" bash -c '"$0" report --type intervals --format json "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); assert \"intervals\" in d and \"methods\" not in d and \"callpairs\" not in d"' "$HP" d.data
check_fails_cleanly "report --type of no profile type" "unknown profile type" "$HP" report --type bogus d.data
check "INFO holds the configuration" bash -c '"$0" info "$1" | grep -q "intervals.value.*summary=multihash,tables=4,counters=2048"' "$HP" d.data
check "the default variant is rebalanced: INFO, text and JSON say so, with the structure in use" python3 - "$HP" d.data d.json <<'PY'
import json, subprocess, sys
hp, data, rep = sys.argv[1:]
info = subprocess.run([hp, "info", data], capture_output=True, text=True, check=True).stdout
assert "variant=rebalanced" in info, info
for x in json.load(open(rep))["intervals"]:
    assert x["variant"] == "rebalanced" and x["counters"] == 2048, x["variant"]
    assert x["acc_entries"] == 50 and x["counters_used"] > 2048, (x["acc_entries"], x["counters_used"])  # 1/t / 2, the saved bits as counters
text = subprocess.run([hp, "report", "--type", "intervals", data], capture_output=True, text=True, check=True).stdout
assert "variant rebalanced of the Z=2048 design: Z=%d A=50" % x["counters_used"] in text, text[:600]
PY
check "value phases: 111 hot in the first half only, 222 in the second half only, a boundary between" python3 - d.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["intervals"] if x["stream"] == "value"][0]
slots = v["slots"]
assert v["span"] == 1 and len(slots) == v["intervals"] > 20, (v["span"], len(slots))
named = {h["key"]: h["b"] for h in v["hot"]}
k1 = [k for k, b in named.items() if b == 111]
k2 = [k for k, b in named.items() if b == 222]
assert k1 and k2, "111 or 222 not among the hot tuples"
half = v["events"] / 2
def hot_in(key):
    return [s["first"] for s in slots if key in s["hot"]]
end_of = lambda i: (i + 1) * v["interval"]
a = hot_in(k1[0]); b = hot_in(k2[0])
first = [s["first"] for s in slots if end_of(s["first"]) <= half]
second = [s["first"] for s in slots if s["first"] * v["interval"] >= half]
assert set(first) <= set(a) and not set(a) & set(second), ("111", a)
assert set(second) <= set(b) and not set(b) & set(first), ("222", b)
assert v["phases"] >= 2
# a phase boundary at the switch: the hot sets of the last first-half and first second-half slot differ
sl = {s["first"]: set(s["hot"]) for s in slots}
assert sl[first[-1]] != sl[second[0]]
PY
check "an edge is hot in about 1 interval in 3, coming and going" python3 - d.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = [x for x in d["intervals"] if x["stream"] == "edges"][0]
slots = e["slots"]
third = [h for h in e["hot"] if 0.25 <= h["share"] <= 0.42]
assert third, [h["share"] for h in e["hot"]]
for h in third:
    assert abs(h["share"] - h["hits"] / e["intervals"]) < 1e-6
    on = [1 if h["key"] in s["hot"] else 0 for s in slots]
    runs = sum(1 for i in range(len(on)) if on[i] and (i == 0 or not on[i - 1]))
    assert runs >= len(on) // 12, (runs, len(on))  # a period of about 7 intervals at L = 10000
PY
check "intervals x L + tail = the stream's events" python3 - d.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["intervals"]:
    assert x["intervals"] * x["interval"] + x["tail_events"] == x["events"], x["stream"]
    assert sum(s["events"] for s in x["slots"]) == x["intervals"] * x["interval"]
PY

# ---- one engine, two drivers: runtime intervals vs sim multihash on a trace of the same run
same_error() { # JSON STREAM CSV
    python3 - "$@" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
x = [i for i in d["intervals"] if i["stream"] == sys.argv[2]][0]
r = list(csv.DictReader(open(sys.argv[3])))
assert len(r) == 1 and int(r[0]["intervals"]) == x["intervals"] == x["error"]["slots"], (r, x["intervals"])
for k, c in (("e", "error_pct"), ("fp", "fp_pct"), ("fn", "fn_pct"), ("np", "np_pct"), ("nn", "nn_pct")):
    assert abs(x["error"][k] * 100 - float(r[0][c])) < 2e-6 * max(1, float(r[0][c])), (k, x["error"][k] * 100, r[0][c])
assert x["error"]["e"] > 0.001 or x["variant"] != "paper", "a design this small should err"
assert x["variant"] == r[0]["variant"] and x["acc_entries"] == int(r[0]["acc_entries"]) and x["counters_used"] == int(r[0]["counters"]), (x, r[0])
PY
}
# An edge's key holds its addresses, which ASLR moves: the edges runs go without it, so that
# their error (checked to be large enough to say something) is the same in every run. With ASLR
# it ranged over 0.0027-0.081 for variant=paper in 10 runs, and CI once saw it at or below 0.001.
NOASLR=""
setarch -R true 2>/dev/null && NOASLR="setarch -R"
for v in paper rebalanced half; do
    "$HP" run -q --seed 11 -o v-$v.data --sample "value:summary=multihash,$SMALL,variant=$v" --record-trace v-$v.trace --trace-kind values -- ./ph >/dev/null
    "$HP" report --format json v-$v.data >v-$v.json 2>/dev/null
    # shellcheck disable=SC2086
    "$HP" sim multihash v-$v.trace $SIMSMALL --variant $v --seed 11 --csv v-$v.csv >/dev/null 2>&1
    check "values, variant $v: runtime E, FP, FN, NP, NN = sim's on the same run" same_error v-$v.json value v-$v.csv
    $NOASLR "$HP" run -q --seed 12 -o e-$v.data --sample "edges:summary=multihash,$SMALL,variant=$v" --record-trace e-$v.trace --trace-kind edges -- ./ph >/dev/null
    "$HP" report --format json e-$v.data >e-$v.json 2>/dev/null
    # shellcheck disable=SC2086
    "$HP" sim multihash e-$v.trace $SIMSMALL --variant $v --seed 12 --csv e-$v.csv >/dev/null 2>&1
    check "edges, variant $v: runtime E, FP, FN, NP, NN = sim's on the same run" same_error e-$v.json edges e-$v.csv
done
cp v-rebalanced.data v.data && cp v-rebalanced.json v.json
check "the variants are different designs here (their errors differ)" python3 - v-paper.json v-rebalanced.json v-half.json <<'PY'
import json, sys
e = [[x for x in json.load(open(f))["intervals"] if x["stream"] == "value"][0]["error"]["e"] for f in sys.argv[1:]]
assert len(set(e)) == 3, e
PY
check "variant=paper writes the section as before variants (no trailer flag); the others flag a trailer" python3 - v-paper.data v-half.data <<'PY'
import struct, sys
def flags(path):
    data = open(path, "rb").read(); off = 32; out = []
    while off + 24 <= len(data):
        _, typ, length, _, _ = struct.unpack_from("<IIQII", data, off)
        if typ == 12: out.append(struct.unpack_from("<I", data, off + 24 + 4)[0])
        off += 24 + length
    return out
p, h = flags(sys.argv[1]), flags(sys.argv[2])
assert p and all(f & 4 == 0 for f in p), p
assert h and all(f & 4 for f in h), h
PY
check "the text report prints the error" bash -c '"$0" report "$1" | grep -q "error E [0-9.]*% (FP"' "$HP" v.data

# ---- bursty mode (live hooks): intervals count sampled tuples
"$HP" run -q --seed 2 -o b.data --sample edges:period=100,burst=100 --bursts live \
    --sample value:summary=multihash,interval=1000 --sample edges:summary=multihash,interval=1000 -- ./ph >/dev/null
check "bursty: the edges stream holds exactly the sampled edges, and says it is sampled" python3 - "$HP" b.data <<'PY'
import json, subprocess, sys
d = json.loads(subprocess.run([sys.argv[1], "report", "--format", "json", sys.argv[2]], capture_output=True, text=True, check=True).stdout)
assert d["mode"] == "bursty"
e = [x for x in d["intervals"] if x["stream"] == "edges"][0]
v = [x for x in d["intervals"] if x["stream"] == "value"][0]
assert e["mode"] == v["mode"] == "bursty"
assert e["events"] == d["totals"]["edges"] > 0, (e["events"], d["totals"]["edges"])
assert e["intervals"] * 1000 + e["tail_events"] == e["events"]
assert 0 < v["events"], v["events"]
named = {h["b"]: h["key"] for h in v["hot"]}
assert 111 in named and 222 in named, "the planted values are found from sampled tuples too"
PY
check "bursty: the text says intervals count sampled events" bash -c '"$0" report --type intervals "$1" | grep -q "bursty: intervals count the sampled events"' "$HP" b.data

# ---- patched bursts: the value hooks feed intervals inside windows only
# (N = 4M and windows of 1000 units: windows come from the control thread, and on a loaded
# machine it opened 14 in a 4M run, each recording its window's ~100 units: 5 intervals where 8
# are needed; a 1M run with 100-unit windows got 1-3)
N=4000000
"$HP" run -q --seed 2 -o x.data --sample value:summary=multihash -- ./ph $N >/dev/null
HOTPROF_WINDOW=1000 "$HP" run -q --seed 2 -o p.data --bursts patch --sample edges:period=100,burst=100 \
    --sample value:summary=multihash,interval=1000 --sample edges:summary=multihash,interval=1000 -- ./ph $N >/dev/null
check "patched bursts: the hot tuples are the exhaustive run's top tuples, 111 before 222" python3 - "$HP" x.data p.data <<'PY'
import json, subprocess, sys
hp, xd, pd = sys.argv[1:]
def load(f):
    d = json.loads(subprocess.run([hp, "report", "--format", "json", f], capture_output=True, text=True, check=True).stdout)
    return d, {x["stream"]: x for x in d["intervals"]}
_, x = load(xd)
d, p = load(pd)
assert d["mode"] == "patch", d["mode"]
v = p["value"]
assert v["mode"] == p["edges"]["mode"] == "patch" and v["intervals"] >= 8, (v["mode"], v["intervals"])
name = lambda h: (h["function"], h["location"], h["b"])
top = [name(h) for h in x["value"]["hot"] if h["share"] >= 0.9]
got = {name(h): h for h in v["hot"]}
assert len(top) >= 5, top
# one of the eleven may fall short: windows are placed by a control thread, and on a loaded
# 2-core CI machine ('step', line 32, 0), the rarest of them (a third of the rounds), once
# stayed under the 1% threshold in half the intervals (not reproduced in 16 runs beside 3 busy loops)
missing = [k for k in top if k not in got or got[k]["share"] < 0.5]
assert len(missing) <= 1 and len(top) - len(missing) >= 5, missing
first = {}
for b in (111, 222):
    keys = {h["key"] for h in v["hot"] if h["b"] == b}
    slots = [s["first"] for s in v["slots"] if keys & set(s["hot"])]
    assert slots, b
    first[b] = (slots[0], slots[-1])
assert first[111][0] < first[222][0] and first[111][1] < first[222][1], first
e = p["edges"]
assert e["events"] == d["totals"]["edges"] > 0, (e["events"], d["totals"]["edges"])
PY
check "patched bursts: the text says intervals count events seen in windows" bash -c '"$0" report --type intervals "$1" | grep -q "bursty (patched windows): intervals count the sampled events"' "$HP" p.data
env -u HOTPROF_QUIET "$HP" run --seed 2 -o pw.data --bursts patch --sample edges:period=100,burst=100 --sample value:summary=multihash -- ./ph 100000 >/dev/null 2>pw.err
check "patched bursts with too few events per interval: the run warns" grep -q "warning: the value interval profile has only [0-3] complete intervals of 10000 events seen in patched windows" pw.err
check "... and so does the report" bash -c '"$0" report --type intervals "$1" | grep -q "warning: only [0-3] complete intervals of sampled events"' "$HP" pw.data

# ---- hotprof compare: A's candidates against B's exact sets
check "compare A A: E is the report's (its own exact sets), text and JSON" python3 - "$HP" v.data v.json <<'PY'
import json, subprocess, sys
hp, data, rep = sys.argv[1:]
c = json.loads(subprocess.run([hp, "compare", "--format", "json", data, data], capture_output=True, text=True, check=True).stdout)
r = [x for x in json.load(open(rep))["intervals"] if x["stream"] == "value"][0]
assert c["intervals"][0]["error"] == r["error"], (c["intervals"][0]["error"], r["error"])
assert len(c["intervals"][0]["per_slot"]) == r["intervals"]
assert abs(sum(c["intervals"][0]["per_slot"]) / r["intervals"] - r["error"]["e"]) < 1e-5
t = subprocess.run([hp, "compare", data, data], capture_output=True, text=True, check=True).stdout
assert "value, thread" in t and "E %.4f%%" % (r["error"]["e"] * 100) in t, t
assert "A's variant rebalanced" in t and c["intervals"][0]["variant_a"] == c["intervals"][0]["variant_b"] == "rebalanced", t
PY
if [ -n "$NOASLR" ]; then # two runs: the same keys only without address randomization
    $NOASLR "$HP" run -q --seed 4 -o ra.data --sample value:summary=multihash,tables=1,counters=64,conservative=0 -- ./ph >/dev/null
    $NOASLR "$HP" run -q --seed 4 -o rb.data --sample value:summary=multihash,tables=1,counters=64,conservative=0,exact=1 -- ./ph >/dev/null
    check "compare run A against run B's exact sets (same design, same seed): B's own E" python3 -c '
import json, subprocess, sys
hp = sys.argv[1]
c = json.loads(subprocess.run([hp, "compare", "--format", "json", "ra.data", "rb.data"], capture_output=True, text=True).stdout)
r = json.loads(subprocess.run([hp, "report", "--format", "json", "rb.data"], capture_output=True, text=True).stdout)
assert c["intervals"][0]["error"] == r["intervals"][0]["error"], (c["intervals"][0], r["intervals"][0]["error"])
assert r["intervals"][0]["error"]["e"] > 0.01' "$HP"
else
    ok "compare two runs (skipped: no setarch -R)"
fi
check "compare against a reference without exact sets says why" bash -c '"$0" compare "$1" "$1" | grep -q "not compared: the reference holds no exact sets"' "$HP" d.data

# ---- bad input
check_fails_cleanly "unknown key" "unknown key 'colour'" "$HP" run --sample value:summary=multihash,colour=1 -- ./ph
check_fails_cleanly "interval=0" "interval must be" "$HP" run --sample value:summary=multihash,interval=0 -- ./ph
check_fails_cleanly "threshold the counters cannot hold" "cannot hold the threshold" "$HP" run --sample value:summary=multihash,bits=4 -- ./ph
check_fails_cleanly "tables not dividing counters" "not divisible" "$HP" run --sample edges:summary=multihash,tables=3 -- ./ph
check_fails_cleanly "an unknown variant" "paper, rebalanced or half" "$HP" run --sample value:summary=multihash,variant=quarter -- ./ph
check_fails_cleanly "a variant with no room for the counters" "no room for 64 counters" "$HP" run --sample value:summary=multihash,tables=64,counters=64,interval=1,threshold=100%,variant=half -- ./ph
check_fails_cleanly "interval profiles in timer mode" "need --mode exhaustive or bursty" "$HP" run --mode timer --sample value:summary=multihash -- ./ph
HOTPROF_INTERVALS="value:summary=multihash,interval=0" HOTPROF_OUTPUT=env.data ./ph >/dev/null 2>env.err
check "a bad HOTPROF_INTERVALS: one message, not profiling" grep -q "bad HOTPROF_INTERVALS" env.err
check_eq "a bad HOTPROF_INTERVALS writes no profile" "$(ls env.data 2>/dev/null | wc -l)" 0
corrupt() { # IN OUT HOW: rewrite the first INTERVALS section's payload, fixing both CRCs
    python3 - "$@" <<'PY'
import struct, sys, zlib
data = bytearray(open(sys.argv[1], "rb").read())
off = 32
while off + 24 <= len(data):
    magic, typ, length, pcrc, hcrc = struct.unpack_from("<IIQII", data, off)
    if typ == 12:
        p = off + 24
        head = 128 + (16 if struct.unpack_from("<I", data, p + 4)[0] & 4 else 0)  # the variant trailer
        if sys.argv[3] == "stream":
            struct.pack_into("<I", data, p, 9)
        elif sys.argv[3] == "trailer":  # counters in use that the design does not give
            assert head == 144
            struct.pack_into("<I", data, p + 128 + 8, struct.unpack_from("<I", data, p + 128 + 8)[0] + 4)
        else:  # a slot claiming more entries than there are
            struct.pack_into("<I", data, p + head + 24, 1 << 20)
        struct.pack_into("<I", data, off + 16, zlib.crc32(bytes(data[p:p + length])))
        struct.pack_into("<I", data, off + 20, zlib.crc32(bytes(data[off:off + 20])))
        open(sys.argv[2], "wb").write(data)
        sys.exit(0)
    off += 24 + length
sys.exit("no INTERVALS section")
PY
}
corrupt d.data bad1.data stream
check_fails_cleanly "corrupt INTERVALS section (stream)" "corrupt interval profile \(bad stream" "$HP" report bad1.data
corrupt d.data bad2.data count
check_fails_cleanly "corrupt INTERVALS section (slot counts)" "corrupt interval profile" "$HP" report --format json bad2.data
corrupt d.data bad3.data trailer
check_fails_cleanly "corrupt INTERVALS section (variant trailer)" "corrupt interval profile \(the variant's sizes do not match" "$HP" report bad3.data
