#!/usr/bin/env bash
# test_defects_rt.sh — the runtime's output and bookkeeping defects of issue 8 (each check failed
# before its fix): two runs on one output (2), a full disk or file size limit (3), exec() keeping
# the pre-exec counts (5), outputs that cannot be written or are special files (6), long command
# lines in INFO (7), memory of short-lived threads (9), back-edges after longjmp and a caught C++
# exception (12), several instrumented images under one `hotprof run` (15).
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
cd "$T"

# calls_in FILE FN: calls of FN in the profile FILE (0 if absent or unreadable)
calls_in() {
    "$HP" report --format json --top 0 "$1" 2>/dev/null |
        python3 -c "import json,sys
try: r=json.load(sys.stdin)
except Exception: print(0); sys.exit()
print(sum(m['calls'] for m in r['methods'] if m['function']==sys.argv[1]))" "$2"
}
# info_key FILE KEY: the value of INFO key KEY as `hotprof info` prints it (empty if absent)
info_key() { "$HP" info "$1" 2>/dev/null | awk -v k="$2" '$1==k {print $2; exit}'; }
no_hooks_msg="not built with hotprof"
# the runtime's own stderr lines ("wrote ...") are part of what is checked here
LOUD="env -u HOTPROF_QUIET"

"$HP" cc -O1 -o work "$P/rt_work.c" || fail "build rt_work"

# ---- 2: two runs on one output at once: one wins, the other says so and exits 1
$LOUD "$HP" run -o same.data -- ./work 1000 1500 >a.out 2>a.err & apid=$!
sleep 0.4
$LOUD "$HP" run -o same.data -- ./work 2000 1500 >b.out 2>b.err; brc=$?
wait $apid; arc=$?
check_eq "2: the first run on an output succeeds" "$arc" 0
check_eq "2: a second run on the same output at once exits 1" "$brc" 1
check "2: ... and says the output is in use" grep -qiE "in use|locked|another" b.err
check "2: ... and does not claim it wrote it" sh -c "! grep -q 'wrote' b.err"
check_eq "2: the profile is the first run's, intact" "$(calls_in same.data work)" 1000

# ---- 3: a full disk or a file size limit is reported and fails the run
"$HP" run -o /dev/full -- ./work 10 >/dev/null 2>full.err; rc=$?
check_eq "3: -o /dev/full exits 1" "$rc" 1
check "3: ... and says the disk is full" grep -qi "no space left" full.err
(trap '' XFSZ; ulimit -f 2; $LOUD "$HP" run -o big.data -- ./work 100 >/dev/null 2>big.err; echo $? > big.rc)
check_eq "3: a profile cut by a file size limit fails the run" "$(cat big.rc)" 1
check "3: ... and says why" grep -qi "file too large" big.err
check "3: ... and says the profile is incomplete" grep -qi "incomplete" big.err
check "3: ... and does not claim it wrote it" sh -c "! grep -q 'hotprof: wrote' big.err"

# ---- 6: outputs that cannot be written: the real reason, never "not built with hooks"
"$HP" run -o /dev/null -- ./work 10 >/dev/null 2>null.err; rc=$?
check_eq "6: -o /dev/null works (profile discarded)" "$rc" 0
check "6: ... without an error" sh -c "! grep -qiE 'cannot|$no_hooks_msg' null.err"
check "6: -o /dev/full names the real error, not the hooks" sh -c "grep -qi 'no space' full.err && ! grep -qi '$no_hooks_msg' full.err"
mkdir adir
"$HP" run -o adir -- ./work 10 >/dev/null 2>dir.err; rc=$?
check_eq "6: -o DIRECTORY exits 1" "$rc" 1
check "6: ... and says it is a directory, not the hooks" sh -c "grep -qi 'is a directory' dir.err && ! grep -qi '$no_hooks_msg' dir.err"
"$HP" run -o nodir/x.data -- ./work 10 >/dev/null 2>nodir.err; rc=$?
check_eq "6: -o in a missing directory exits 1" "$rc" 1
check "6: ... and says so" sh -c "grep -qi 'no such file' nodir.err && ! grep -qi '$no_hooks_msg' nodir.err"
cp work busy && { ./busy 1 3000 >/dev/null & bpid=$!; }
sleep 0.3
"$HP" run -o busy -- ./work 10 >/dev/null 2>busy.err; rc=$?
kill $bpid 2>/dev/null; wait $bpid 2>/dev/null
check_eq "6: -o a running executable (ETXTBSY) exits 1" "$rc" 1
check "6: ... and says the text file is busy, not the hooks" sh -c "grep -qi 'text file busy' busy.err && ! grep -qi '$no_hooks_msg' busy.err"

# ---- 7: long command lines: the true argc, and a cut is marked
"$HP" run -q -o args.data -- ./work 10 0 $(seq 1 12000) >/dev/null
check_eq "7: argc of a 12003-word command line" "$(info_key args.data argc)" 12003
check_eq "7: a cut command line is marked args_truncated=1" "$(info_key args.data args_truncated)" 1
"$HP" run -q -o args2.data -- ./work 10 0 x >/dev/null
check_eq "7: argc of a short command line" "$(info_key args2.data argc)" 4
check_eq "7: ... which is not marked cut" "$(info_key args2.data args_truncated)" ""
check_eq "7: ... args as given" "$("$HP" info args2.data | awk '$1=="args" {$1=""; print substr($0,2); exit}')" "./work 10 0 x"

# ---- 9: memory of short-lived threads is bounded by the live ones; no count is lost
"$HP" cc -O1 -o threads "$P/rt_threads.c" -lpthread
"$HP" run -q -o t100.data -- ./threads 100 >t100.out
"$HP" run -q -o t10k.data -- ./threads 10000 >t10k.out
rss100=$(awk '$1=="rss_kb" {print $2}' t100.out); rss10k=$(awk '$1=="rss_kb" {print $2}' t10k.out)
echo "# rss: 100 threads ${rss100} KiB, 10000 threads ${rss10k} KiB"
check "9: 10000 short threads use about the memory of 100 (${rss10k} vs ${rss100} KiB)" test "${rss10k:-999999999}" -le $(( ${rss100:-0} + 16384 ))
check_eq "9: every exited thread's calls are kept" "$(calls_in t10k.data tick)" 100000
check_eq "9: ... also with 100 threads" "$(calls_in t100.data tick)" 1000

# ---- 12: back-edges after longjmp / a caught exception (exact builds: no-prune)
cov=-fsanitize-coverage=trace-pc-guard,pc-table,no-prune
# expect_run LABEL PROG ARGS...: the program's "expect" lines against its profile
expect_run() {
    local label=$1; shift
    if "$HP" run -q -o "$label.data" -- "$@" >"$label.expect" 2>"$label.err" &&
        "$HP" report --format json --top 0 "$label.data" >"$label.json"; then
        python3 "$ROOT/tests/e2e/check_expect.py" "$label.expect" "$label.json" "12: $label"
    else
        fail "12: $label runs" "$(head -3 "$label.err")"
    fi
}
for o in -O0 -O1 -O2; do
    "$HP" cc $o $cov -o longjmp$o "$P/rt_longjmp.c" && expect_run "longjmp$o" ./longjmp$o 10000
    if "$HP" c++ $o $cov -o throw$o "$P/rt_throw.cpp"; then expect_run "throw$o" ./throw$o 10000
    else fail "12: c++ build $o"; fi
done

# ---- 5: exec() keeps the pre-exec counts (each image has its own file)
for how in execv execvp execl; do
    def=; [ $how = execvp ] && def=-DUSE_EXECVP; [ $how = execl ] && def=-DUSE_EXECL
    "$HP" cc -O1 $def -o ex_$how "$P/rt_exec.c"
    rm -f ex_$how.data*
    "$HP" run -o ex_$how.data -- ./ex_$how 1000 >ex_$how.out 2>ex_$how.err; rc=$?
    check_eq "5 ($how): exit status" "$rc" 0
    before=0; after=0
    for f in ex_$how.data*; do
        before=$((before + $(calls_in "$f" before_exec))); after=$((after + $(calls_in "$f" after_exec)))
    done
    check_eq "5 ($how): the pre-exec image's calls are kept" "$before" 1000
    check_eq "5 ($how): the post-exec image's calls are kept" "$after" 500
    "$HP" report ex_$how.data >ex_$how.rep 2>ex_$how.warn
    check "5 ($how): the pre-exec profile says it was replaced by exec()" grep -q "replaced by exec" ex_$how.rep
    check_eq "5 ($how): ... and reads without a warning" "$(cat ex_$how.warn)" ""
done

# ---- 15: two instrumented programs under one run: each keeps its profile, and says where
rm -f ab.data*
$LOUD "$HP" run -o ab.data -- sh -c "./work 100 && ./work 200" >/dev/null 2>ab.err; rc=$?
check_eq "15: exit status" "$rc" 0
counts=$(for f in ab.data*; do calls_in "$f" work; done | sort -n | tr '\n' ' ')
check_eq "15: each image's profile is kept in its own file" "$counts" "100 200 "
check_eq "15: stderr names both files" "$(grep -c 'wrote .*ab\.data' ab.err)" 2
check "15: ... the second one beside the first as ab.data.<pid>" grep -qE "wrote .*ab\.data\.[0-9]+" ab.err
rm -f ab.data*
$LOUD "$HP" run -o ab.data -- sh -c "./work 100 1000 & ./work 200 1000; wait" >/dev/null 2>ab2.err; rc=$?
check_eq "15: two images at once under one run: exit status" "$rc" 0
counts=$(for f in ab.data*; do calls_in "$f" work; done | sort -n | tr '\n' ' ')
check_eq "15: ... each keeps its profile" "$counts" "100 200 "
