#!/usr/bin/env bash
# test_bench_instr.sh — bench/fastpath/instr.sh (switched-off floors in instructions) on two
# workloads at small sizes, without committing anything:
#   - it writes a table (each program, geomean, worst) and a CSV row per program and variant;
#   - two builds of the same variant count the same instructions within 1e-5 (the benchmark's
#     premise: fft's counts repeat exactly, mt_work's threads start in varying order: ~200 of 55 M),
#     and each is within [0.9, 2] x native;
#   - with --baseline each variant is measured again as NAME@base, apart from a variant NAME-base;
#   - count mode on lexgen (its main never returns) stays under 1 GB (callgrind: 4.1 GB), and
#     cachegrind's totals are callgrind's;
#   - a malformed variant and an unknown workload are refused with one message, non-zero exit;
#   - bench/fastpath/real_instr.sh: --help, and bad options refused with one message.
. "$(dirname "$0")/lib.sh"
[ -f "$ROOT/build/lib/hotprof_dual.so" ] || { ok "bench instr: no plugin built (llvm-14-dev missing): skipped"; exit 0; }
command -v valgrind >/dev/null || { ok "bench instr: no valgrind: skipped"; exit 0; }
I="$ROOT/bench/fastpath/instr.sh"
"$I" --programs "fft mt_work" --sizes "fft=20 mt_work=20000" --variants "a=dual-functions b=dual-functions" \
    --results "$T/r" >"$T/out" 2>"$T/err" || fail "bench instr: run" "$(tail -3 "$T/err")"
check_eq "bench instr: table rows" "$(awk '$1 ~ /^(fft|mt_work|geomean|worst)$/ {print $1}' "$T/out" | head -4 | tr '\n' ' ')" \
    "fft mt_work geomean worst "
check_eq "bench instr: csv rows (2 programs x 2 variants)" "$(tail -n +2 "$T/r/fastpath_instr.csv" | wc -l)" 4
python3 - "$T/r/fastpath_instr.csv" >"$T/py" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {(r["program"], r["build"]): r for r in rows}
for p in ("fft", "mt_work"):
    a, b = int(by[(p, "a")]["instructions"]), int(by[(p, "b")]["instructions"])
    assert abs(a - b) <= a * 1e-5, "counts differ for %s: %d, %d" % (p, a, b)
    assert 0.9 <= float(by[(p, "a")]["ratio"]) <= 2.0, "ratio %s" % by[(p, "a")]["ratio"]
PY
check_eq "bench instr: the same build twice counts the same (1e-5), within [0.9, 2] x native" "$(cat "$T/py")" ""
# --baseline: each variant again as NAME@base in a directory of its own (it was NAME-base, which a
# variant of that name shared: a-base then measured the @base build, count sites, as its own)
"$I" --programs fft --sizes "fft=20" --variants "a-base=dual-functions a=dual-functions:--dual-sites=count" \
    --baseline "$ROOT" --results "$T/rb" >"$T/outb" 2>"$T/errb" || fail "bench instr: --baseline run" "$(tail -3 "$T/errb")"
python3 - "$T/rb/fastpath_instr.csv" >"$T/pyb" 2>&1 <<'PY'
import csv, sys
by = {r["build"]: int(r["instructions"]) for r in csv.DictReader(open(sys.argv[1]))}
assert set(by) >= {"a-base", "a", "a-base@base", "a@base"}, sorted(by)
assert abs(by["a@base"] - by["a"]) <= by["a"] * 1e-5, "a@base %d, a %d" % (by["a@base"], by["a"])
assert abs(by["a-base@base"] - by["a-base"]) <= by["a-base"] * 1e-5, "a-base@base %d, a-base %d" % (by["a-base@base"], by["a-base"])
assert by["a-base"] != by["a"], "a-base (nop sites) counts as a (count sites): %d" % by["a"]
PY
check_eq "bench instr: --baseline builds NAME@base apart from a variant NAME-base" "$(cat "$T/pyb")" ""
# Count mode in a loop that never returns (lexgen's main): each site jumps to a trampoline on an
# anonymous page and back, which callgrind takes for calls, so its call stack grew per event (4.1 GB
# at size 20, OOM at the quick size). The counts come from cachegrind now: its peak memory stays
# that of a short run, and its total is callgrind's (both count every instruction; a constant few
# thousand apart).
python3 - "$ROOT" "$T" >"$T/mem" 2>&1 <<'PY'
import os, resource, subprocess, sys
root, t = sys.argv[1], sys.argv[2]
res = subprocess.run([os.path.join(root, "bench/fastpath/instr.sh"), "--programs", "lexgen", "--sizes", "lexgen=20",
                      "--variants", "c=dual-functions@count", "--results", os.path.join(t, "rm")],
                     capture_output=True, text=True)
assert res.returncode == 0, res.stderr[-600:]
peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
assert peak_mb < 1024, "count mode on lexgen peaked at %.0f MB" % peak_mb
PY
check_eq "bench instr: count mode in a loop that never returns stays in bounded memory (< 1 GB at lexgen 20)" "$(cat "$T/mem")" ""
check_fails_cleanly "bench instr: malformed variant, one message" "a variant is NAME=HOOKS" \
    "$I" --programs fft --variants "nohooks" --results "$T/r2"
check_fails_cleanly "bench instr: unknown workload, one message" "no workload 'quux'" \
    "$I" --programs quux --results "$T/r2"
# bench/fastpath/real_instr.sh (the real programs in instructions): its usage and bad options
# (the programs themselves are not part of this checkout's tests).
R="$ROOT/bench/fastpath/real_instr.sh"
check "bench real_instr: --help shows the usage" sh -c "'$R' --help | grep -q 'Usage: bench/fastpath/real_instr.sh'"
check_fails_cleanly "bench real_instr: unknown option, one message" "unknown option '--bogus'" "$R" --bogus --results "$T/r3"
check_fails_cleanly "bench real_instr: unknown program, one message" "unknown program 'quux'" "$R" --programs quux --results "$T/r3"
check_fails_cleanly "bench real_instr: --baseline without a built tree" "needs a built hotprof tree" "$R" --baseline "$T" --results "$T/r3"
# bench/fastpath/floor_split.py (the switched-off floor split into the sites' nops and the rest):
#   - on a program whose calls and back-edges are known, the entry and latch nops it reads from
#     the __hotprof_dual records and the callgrind profile are those counts: `work` is called M
#     times (plus main's entry), its loop runs N iterations per call (a peeled loop's site runs
#     once per back-edge, N - 1; an edge site N), main's loop M iterations (neither unrolled), in a
#     --dual-latch=site build; the default build's latch branches go past the latch nops (a loop's
#     entry may still fall into its top site: at most one per entry), and its latch pads' nops
#     run at most once per loop entry (four: the guard's and the pad's);
#   - a workload run writes a row per program and variant, the parts adding up to the ratio, with
#     no padding nop executed (the plugin pads a site with prefixes of its own; fft's padding nops
#     were 0.003 of native before; a nop of the code generator's may still end at a site, 3e-7);
#   - count sites and an unknown workload are refused with one message.
FS="$ROOT/bench/fastpath/floor_split.py"
cat >"$T/fs.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) void work(int n)
{
#pragma clang loop unroll(disable)
    for (int i = 0; i < n; i++) sink += i;
}
int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : 1;
#pragma clang loop unroll(disable)
    for (int j = 0; j < m; j++) work(100);
    printf("%ld\n", sink);
    return 0;
}
C
"$HP" cc --hooks=dual-functions --dual-latch=site -O2 -o "$T/fs" "$T/fs.c" 2>"$T/fs.err" || fail "bench floor_split: build" "$(tail -3 "$T/fs.err")"
"$HP" cc --hooks=dual-functions -O2 -o "$T/fs.br" "$T/fs.c" 2>"$T/fs.err" || fail "bench floor_split: branch build" "$(tail -3 "$T/fs.err")"
python3 - "$ROOT" "$T/fs.c" "$T" >"$T/tools" 2>&1 <<'PY'
import os, subprocess, sys
sys.path.insert(0, os.path.join(sys.argv[1], "bench", "lib"))
import benchlib
exe = os.path.join(sys.argv[3], "fs.native")
subprocess.run(["clang", "-O2", "-o", exe, sys.argv[2]], check=True)
a, out_a = benchlib.instructions([exe, "30000"])
b, out_b = benchlib.callgrind_instructions([exe, "30000"])
assert out_a == out_b and abs(a - b) <= 1e-3 * b, "cachegrind %d, callgrind %d" % (a, b)
PY
check_eq "bench instr: cachegrind's total is callgrind's (within 1e-3 on a 12 M-instruction run)" "$(cat "$T/tools")" ""
# fs_nops BINARY site|branch: nothing, or what is wrong with the nops floor_split reads from its run
fs_nops() {
    python3 - "$FS" "$1" "$T" "$2" 2>&1 <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("floor_split", sys.argv[1])
fs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fs)
M, N = 300, 100
ins, out, sites = fs.run(sys.argv[2], str(M), sys.argv[3])
assert out.strip() == str(M * N * (N - 1) // 2), "output %r" % out
per_entry = 2 if all(f & 2 for _, k, f in fs.site_records(sys.argv[2]) if k == 0) else 1  # a pad: two nops
assert sites[0] == (M + 1) * per_entry, "entry nops %d, want %d" % (sites[0], (M + 1) * per_entry)
lo, hi = M * (N - 1) + M - 1, M * N + M
if sys.argv[4] == "site":
    assert lo <= sites[1] <= hi, "latch nops %d, want %d..%d" % (sites[1], lo, hi)
else:  # the latch's own branch goes past the nop: only a fall-through into a loop's top site runs it
    assert sites[1] <= 2 * (M + 1), "latch nops %d with the latch branch, want at most %d" % (sites[1], 2 * (M + 1))
    # the latch pads' nops (a guard's and the pad's three) run once per loop entry from above, at most
    pads = fs.latch_pads(sys.argv[2])
    assert pads and 0 < sites["lpad"] <= 4 * (M + 1), "latch pad nops %d of %d pads" % (sites["lpad"], len(pads))
assert ins > sites[0] + sites[1], "instructions %d" % ins
PY
}
check_eq "bench floor_split: entry and latch nops are the program's calls and back-edges (--dual-latch=site)" \
    "$(fs_nops "$T/fs" site)" ""
check_eq "bench floor_split: the default latch branch skips the latch nops (at most the loops' entries run them)" \
    "$(fs_nops "$T/fs.br" branch)" ""
python3 "$FS" --programs "fft" --sizes "fft=20" --variants "a=dual-functions" --results "$T/rf" >"$T/fsout" 2>"$T/fserr" ||
    fail "bench floor_split: run" "$(tail -3 "$T/fserr")"
python3 - "$T/rf/fastpath_floor_split.csv" >"$T/fs2" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1 and rows[0]["program"] == "fft" and rows[0]["build"] == "a", rows
r = {k: float(v) for k, v in rows[0].items() if k not in ("program", "build")}
assert abs(1 + sum(r[k] for k in ("entry", "latch", "return", "lpad", "pad", "jmp", "rest")) - r["ratio"]) < 1e-9, r
assert r["latch"] > 0 and r["entry"] > 0, r
assert r["pad"] < 1e-5, "padding nops executed: %r" % r  # (the code generator's own alignment may end at a site)
PY
check_eq "bench floor_split: a row per program and variant, parts adding up, sites seen, no padding nop run" "$(cat "$T/fs2")" ""
check_fails_cleanly "bench floor_split: count sites refused, one message" "nop sites only" \
    python3 "$FS" --programs fft --variants "a=dual-functions:--dual-sites=count" --results "$T/rf2"
check_fails_cleanly "bench floor_split: unknown workload, one message" "no workload 'quux'" \
    python3 "$FS" --programs quux --results "$T/rf2"
