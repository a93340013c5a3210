#!/usr/bin/env bash
# test_dual_count_sites.sh — inline count sites (`hotprof cc --dual-sites=count`, the plugin's
# -hotprof-dual-site=count; docs/dual.md *Inline count sites*): count mode's decrement and branch
# compiled into the clean copy instead of a patchable nop and a runtime trampoline.
#   - every latch / one-body entry site is a count site (its record flagged 1 in __hotprof_dual)
#     and INFO dual.count_sites says how many; a -fPIC shared library keeps nop sites;
#   - call-free loops keep the count in a register (-hotprof-dual-count-reg, the default): no
#     `subq $1,%fs:` left in them (one per site with -hotprof-dual-count-reg=off), the same
#     records, the same output, events counted to within one arming of the exhaustive run's;
#   - identical output in every mode (off, exhaustive, count, live, patch);
#   - exhaustive on the count-site build gives exactly the nop build's calls, back-edges, blocks;
#   - count mode records B/(B+S) (+-10%) and counts every event (1%), per thread too;
#   - loops with calls keep the count in memory, but the site's branch is the compiler's
#     (-hotprof-dual-count-branch, the default): inverted where the latch falls through to the
#     header; the same records, output and counts as the asm form;
#   - entry pads: a loop-free function's 16-byte entry pad filled in place in count mode (clang's
#     10+6 and 15+1 nop forms), else a trampoline past it (another form; -hotprof-dual-entry-pad=off);
#   - --bursts patch on such a build: one message, count-triggered bursts instead;
#   - off: a thread leaves the instrumented copy at its first back-edge (callgrind: the hooks run
#     a handful of times, not once per block); the main thread never enters one (its countdown
#     never runs out from before main), with and without -hotprof-dual-rejoin-all=on;
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
# `subq $1,%fs:` (a count site in memory) in function $2 of binary $1.
subq_in() { objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on = 1; next} /^$/ {on = 0} on' | grep -c 'subq *\$0x1,%fs:'; }
# build_both HOOKS SRC OUT OUT2 OPT: SRC with count sites as OUT, and as OUT2 with -mllvm OPT too.
build_both() {
    "$HP" cc --hooks="$1" --dual-sites=count -O2 -o "$3" "$2" &&
        "$HP" cc --hooks="$1" --dual-sites=count -O2 -mllvm "$5" -o "$4" "$2"
}
M999="--sample methods:period=999,burst=1"
ARGS="4000 4000000"
clang -O2 -o ph.native "$P/dual_count_phases.c" -lm
./ph.native $ARGS >want
for hs in dual-blocks dual-functions; do
    "$HP" cc --hooks=$hs -O2 -o "ph.$hs" "$P/dual_count_phases.c" -lm || { fail "$hs: nop build"; continue; }
    "$HP" cc --hooks=$hs --dual-sites=count -O2 -o "ph.$hs.c" "$P/dual_count_phases.c" -lm ||
        { fail "$hs: count-site build"; continue; }
    n=$(dual_count_sites_in "ph.$hs.c")
    check "$hs: the binary has inline count sites" test "$n" -gt 0
    check_eq "$hs: the nop build has none" "$(dual_count_sites_in "ph.$hs")" 0
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

# ---- call-free loops: the count in a register (plugin/dual_countreg.h)
check_fails_cleanly "cc: -hotprof-dual-count-reg=bad refused" "count-reg=bad is not one of on|off" \
    "$HP" cc --hooks=dual-blocks --dual-sites=count -O2 -mllvm -hotprof-dual-count-reg=bad -c -o x.o "$P/dual_count_reg.c"
RA="20000 12"
clang -O2 -o reg.native "$P/dual_count_reg.c" && ./reg.native $RA >reg.want
for hs in dual-blocks dual-functions; do
    build_both $hs "$P/dual_count_reg.c" "reg.$hs" "reg.$hs.mem" -hotprof-dual-count-reg=off ||
        { fail "$hs: count-register builds"; continue; }
    for f in scan outer_calls; do
        r=$(subq_in "reg.$hs" $f) m=$(subq_in "reg.$hs.mem" $f)
        check "$hs: $f's call-free loop counts in a register ($r count sites in memory, $m without)" test "$r" -lt "$m"
    done
    check "$hs: scan: no count site in memory but its entry's" test "$(subq_in "reg.$hs" scan)" -le 1
    check_eq "$hs: count registers keep every record" "$(dual_count_sites_in "reg.$hs")" "$(dual_count_sites_in "reg.$hs.mem")"
    for mode in off exhaustive; do
        check_eq "$hs: count registers, $mode: same output" "$(HOTPROF_MODE=$mode HOTPROF_OUTPUT=reg.$mode.data "./reg.$hs" $RA)" "$(cat reg.want)"
    done
    json reg.exhaustive.data reg.ex.json
    "$HP" run -q --bursts count $M999 -o reg.c.data -- "./reg.$hs" $RA >reg.out && json reg.c.data reg.c.json
    check_eq "$hs: count registers, count: same output" "$(cat reg.out)" "$(cat reg.want)"
    check_eq "$hs: count registers: INFO dual.count_sites" \
        "$("$HP" info reg.c.data | awk '$1 == "dual.count_sites" {print $2}')" "$(dual_count_sites_in "reg.$hs")"
    python3 "$C" share reg.ex.json reg.c.json "$hs count registers 1/1000"
    python3 "$C" events reg.ex.json reg.c.json 2000 "$hs count registers (one arming)"
done

# ---- loops with calls: the site in memory, its branch the compiler's (-hotprof-dual-count-branch,
# the default; plugin/dual_countreg.h branchMemorySites): the asm form's `jle` fixes the site's
# fall-through, so visit's bit loop, whose test comes before its site, took a `jmp` back to the
# header per iteration; the compiler's branch is inverted into `jg <header>`. The same records,
# output and counts as the asm form.
check_fails_cleanly "cc: -hotprof-dual-count-branch=bad refused" "count-branch=bad is not one of on|off" \
    "$HP" cc --hooks=dual-blocks --dual-sites=count -O2 -mllvm -hotprof-dual-count-branch=bad -c -o x.o "$P/dual_count_branch.c"
# Memory count sites of function $2 in binary $1 whose next instruction is `jg` (an inverted branch).
subq_jg_in() {
    objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on = 1; next} /^$/ {on = 0} on {print $2}' |
        awk 'p == "subq" && $1 == "jg" {n++} {p = $1} END {print n + 0}'
}
# A function with computed goto keeps the asm form (plugin/dual_countreg.cpp branchMemorySite: the
# compiler's branch there made qjs's interpreter loop larger and slower): progs/dual_computed_goto.c's
# run is the same code with and without -hotprof-dual-count-branch.
mnemonics() { objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {on = 1; next} /^$/ {on = 0} on {print $2}'; }
build_both dual-blocks "$P/dual_computed_goto.c" cg.br cg.asm -hotprof-dual-count-branch=off ||
    fail "computed goto: count-branch builds"
mnemonics cg.br run >cg.br.run && mnemonics cg.asm run >cg.asm.run
check "computed goto: run keeps the asm form ($(grep -c subq cg.br.run) sites in memory, the same code)" \
    sh -c "grep -q subq cg.br.run && cmp -s cg.br.run cg.asm.run"
BA="64 20000"
clang -O2 -o br.native "$P/dual_count_branch.c" && ./br.native $BA >br.want
for hs in dual-functions dual-blocks; do
    build_both $hs "$P/dual_count_branch.c" "br.$hs" "br.$hs.asm" -hotprof-dual-count-branch=off ||
        { fail "$hs: count-branch builds"; continue; }
    g=$(subq_jg_in "br.$hs" visit) a=$(subq_jg_in "br.$hs.asm" visit)
    check "$hs: visit's sites in memory: the compiler's inverted branch ($g jg; $a in the asm form)" \
        test "$g" -gt 0 -a "$a" -eq 0
    check "$hs: visit keeps its sites in memory ($(subq_in "br.$hs" visit))" test "$(subq_in "br.$hs" visit)" -gt 0
    check_eq "$hs: count-branch keeps every record" "$(dual_count_sites_in "br.$hs")" "$(dual_count_sites_in "br.$hs.asm")"
    check_eq "$hs: count-branch, off: same output" "$(HOTPROF_MODE=off "./br.$hs" $BA)" "$(cat br.want)"
    HOTPROF_OUTPUT=br.ex.data "./br.$hs" $BA >br.ex.out && json br.ex.data br.ex.json
    check_eq "$hs: count-branch, exhaustive: same output" "$(cat br.ex.out)" "$(cat br.want)"
    "$HP" run -q --bursts count $M999 -o br.c.data -- "./br.$hs" $BA >br.out && json br.c.data br.c.json
    check_eq "$hs: count-branch, count: same output" "$(cat br.out)" "$(cat br.want)"
    python3 "$C" share br.ex.json br.c.json "$hs count-branch 1/1000"
    python3 "$C" events br.ex.json br.c.json 2000 "$hs count-branch (one arming)"
done

# ---- entry pads (-hotprof-dual-entry-pad=on, the default; docs/dual.md *Entry pads*): a loop-free
# function's entry (mix) is a 16-byte pad that count mode fills in place, no trampoline, in builds
# with count sites and (since session 37) nop sites alike. clang's pad forms: 10+6 (generic
# tuning), 15+1 (-mtune=skylake); another one (-mtune=silvermont: 7+7+2) gets a trampoline that
# resumes past the pad; -hotprof-dual-entry-pad=off keeps the 5-byte nop and its trampoline, and
# =count pads count-site builds only (nop builds: the 5-byte nop). Each: the same output in off,
# exhaustive and count mode, the recorded share and every event counted, and the wrapper
# (F.hotprof calls F past the pad). A nop build's loops keep their trampolines (its latches are
# nops or branches): its check is the pads alone.
pad_info() { "$HP" info "$1" | awk -v k="dual.count.$2" '$1 == k {print $2}'; }
check_fails_cleanly "cc: -hotprof-dual-entry-pad=bad refused" "entry-pad=bad is not one of on|count|off" \
    "$HP" cc --hooks=dual-functions --dual-sites=count -O2 -mllvm -hotprof-dual-entry-pad=bad -c -o x.o "$P/dual_count_phases.c"
for hs in dual-functions dual-blocks; do
    for v in "generic:" "skylake:-mtune=skylake" "silvermont:-mtune=silvermont" "nopad:-mllvm -hotprof-dual-entry-pad=off" \
        "nop:" "nopcount:-mllvm -hotprof-dual-entry-pad=count"; do
        name=${v%%:*} flags=${v#*:} b="pad.$hs.${v%%:*}" sites=--dual-sites=count
        case $name in nop*) sites=--dual-sites=nop ;; esac
        # shellcheck disable=SC2086
        "$HP" cc --hooks=$hs $sites -O2 $flags -o "$b" "$P/dual_count_phases.c" -lm ||
            { fail "$b: build"; continue; }
        check_eq "$b: off: same output" "$(HOTPROF_MODE=off "./$b" $ARGS)" "$(cat want)"
        HOTPROF_OUTPUT=$b.ex.data "./$b" $ARGS >"$b.ex.out" && json "$b.ex.data" "$b.ex.json"
        check_eq "$b: exhaustive: same output" "$(cat "$b.ex.out")" "$(cat want)"
        "$HP" run -q --bursts count $M999 -o "$b.c.data" -- "./$b" $ARGS >"$b.c.out" && json "$b.c.data" "$b.c.json"
        check_eq "$b: count: same output" "$(cat "$b.c.out")" "$(cat want)"
        python3 "$C" share "$b.ex.json" "$b.c.json" "$b 1/1000"
        pads=$(pad_info "$b.c.data" entry_pads) tramps=$(pad_info "$b.c.data" trampolines)
        case $name in
            generic|skylake) check "$b: the entry pads are filled in place ($pads), no trampoline ($tramps)" \
                test "${pads:-0}" -gt 0 -a "${tramps:-1}" -eq 0 ;;
            nop) check "$b: a nop build's entry pads are filled in place ($pads)" test "${pads:-0}" -gt 0 ;;
            *) check "$b: trampolines ($tramps), no pad filled ($pads)" test "${tramps:-0}" -gt 0 -a "${pads:-1}" -eq 0 ;;
        esac
    done
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
    # the main thread of a program run with the runtime off never enters an instrumented copy: its
    # countdown is set never to run out before main (else its first event entered one, and with a
    # rejoin copy main ran there for the rest of the run)
    "$HP" cc --hooks=dual-blocks --dual-sites=count -O2 -mllvm -hotprof-dual-rejoin-all=on \
        -o loops.ra "$P/dual_count_phases.c" -lm || fail "loops.ra: build"
    for b in loops.c loops.ra; do
        HOTPROF_MODE=off valgrind --tool=callgrind --callgrind-out-file=cg.$b ./$b 200 20000 >/dev/null 2>&1
        hooks=$(callgrind_annotate --inclusive=yes cg.$b 2>/dev/null |
            awk '/__sanitizer_cov_trace_pc_guard|__hotprof_dual_backedge|__cyg_profile_func_enter/ {gsub(",", "", $1); n += $1} END {print n + 0}')
        check "off, $b: the main thread never enters an instrumented copy (hooks: $hooks instructions)" \
            test -s cg.$b -a "$hooks" -eq 0
    done
fi

# ---- a -fPIC shared library keeps nop sites (its countdown would not be at a link-time %fs offset)
"$HP" cc --hooks=dual-blocks --dual-sites=count -O2 -fPIC -shared -o libdl.so "$P/dso_lib.c" &&
    check_eq "shared library: no inline count site" "$(dual_count_sites_in libdl.so)" 0
