#!/usr/bin/env bash
# test_cli_defects.sh — CLI defects of issue 8, each checked as a careless user would meet it:
#   4   `hotprof cc -static` (and -static-pie) builds a program that starts and is profiled;
#   14  `kill -TERM|-INT|-HUP` of `hotprof run` reaches the program, which is not orphaned, and
#       its profile (a CRASH group) is written before `run` exits with 128+N;
#   17  `report -i FILE`, `--sample calls:...` (synonym of methods), and `help run` indents the
#       continuation lines of an option's help under the description column.
. "$(dirname "$0")/lib.sh"
cd "$T"
cat > work.c <<'C'
__attribute__((noinline)) int leaf(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s = leaf(s); return s == 1000 ? 0 : 1; }
C
cat > sleeper.c <<'C'
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 1000; i++) s = leaf(s); sleep(60); return s == 1000 ? 0 : 1; }
C
"$HP" cc -O2 -o work work.c
"$HP" cc -O2 -o sleeper sleeper.c

# ---- 4: -static
for how in -static -static-pie; do
    rm -f st st.data
    if "$HP" cc $how -O2 -o st work.c 2>st.err; then
        check "defect 4: cc $how program starts (HOTPROF_MODE=off)" env HOTPROF_MODE=off ./st
        check "defect 4: cc $how program is profiled" sh -c "'$HP' run -o st.data -- ./st && '$HP' report st.data | grep -q leaf"
    else
        rc=$?
        check_eq "defect 4: cc $how refused with exit status 1" "$rc" 1
        check "defect 4: ... and one clear message" grep -qi static st.err
    fi
done

# ---- 14: signals to `hotprof run`
# run_and_signal SIG: starts `hotprof run` on the sleeper, signals hotprof once the program runs,
# and sets rc (hotprof's status), child (the program's pid) and data (the profile).
signals_default='import os, signal, sys
for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM): signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])'
run_and_signal() {
    local sig=$1
    data=sig-$sig.data
    rm -f "$data"
    # (with the signals at their defaults: a shell started under nohup, or a background job's
    # SIGINT, would otherwise hand hotprof an ignored signal, which run leaves ignored by design)
    HOTPROF_QUIET=0 python3 -c "$signals_default" "$HP" run -o "$data" -- ./sleeper 2>"sig-$sig.err" &
    local hp=$! i
    child=
    for i in $(seq 100); do
        child=$(pgrep -P "$hp" sleeper || true)
        [ -n "$child" ] && break
        sleep 0.05
    done
    sleep 0.2 # let the program's runtime install its handlers
    kill -"$sig" "$hp"
    wait "$hp"; rc=$?
}
child_gone() { # the program is gone (or a zombie no longer running)
    local i
    for i in $(seq 20); do
        [ -z "$1" ] && return 0
        kill -0 "$1" 2>/dev/null || return 0
        [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ] && return 0
        sleep 0.1
    done
    return 1
}
for sig in TERM INT HUP; do
    run_and_signal $sig
    num=$(kill -l "$sig")
    check "defect 14: SIG$sig of hotprof run: the program is not orphaned" child_gone "$child"
    [ -n "$child" ] && kill -KILL "$child" 2>/dev/null
    check_eq "defect 14: ... hotprof exits with 128+SIG$sig" "$rc" $((128 + num))
    check "defect 14: ... the profile is written" sh -c "'$HP' report $data | grep -q leaf"
    check "defect 14: ... and hotprof says the program was killed" grep -q "killed by signal $num" "sig-$sig.err"
done

# ---- 17: perf-style -i, the calls synonym, help wrapping
"$HP" run -q -o good.data -- ./work
check "defect 17: report -i FILE" sh -c "'$HP' report -i good.data | grep -q leaf"
check "defect 17: report --input=FILE" sh -c "'$HP' report --input=good.data | grep -q leaf"
check_fails_cleanly "defect 17: report -i FILE and FILE" "one profile" "$HP" report -i good.data good.data
check "defect 17: run --sample calls:... (synonym of methods)" \
    sh -c "'$HP' run -o calls.data --bursts live --sample calls:period=10,burst=1 -- ./work && '$HP' report calls.data | grep -q leaf"
# Every line of the options list starts an option or continues under the description column.
"$HP" help run > help.txt
bad=$(awk '/^options:/ {on=1; next} on && /^$/ {on=0} on && !/^  -/ && !/^      --/ && !/^                               [^ ]/' help.txt)
check_eq "defect 17: help run indents continuation lines" "$bad" ""
wide=$(awk 'length($0) > 100' help.txt)
check_eq "defect 17: help run lines fit in 100 columns" "$wide" ""

# ---- run parses --sample once and hands the runtime the validated settings, written in full
"$HP" run -q -o env.data --sample calls:burst=2 --sample=edges:period=50 --sample methods:period=7 \
    -- sh -c 'printf "%s\n" "$HOTPROF_SAMPLE" > sample.env' 2>/dev/null
check_eq "run: HOTPROF_SAMPLE is the canonical spec (later clause of a type wins)" "$(cat sample.env)" \
    "methods:period=7,burst=1,jitter=50;edges:period=50,burst=1,jitter=50"
"$HP" run -q -o env.data --mode bursty -- sh -c 'printf "%s\n" "$HOTPROF_SAMPLE" > sample.env' 2>/dev/null
check_eq "run: --mode bursty alone gives spec.h's default types" "$(cat sample.env)" \
    "methods:period=1000,burst=1,jitter=50;callpairs:period=1000,burst=1,jitter=50"
check_fails_cleanly "run: a bad --mode gets the runtime's message" "the mode wants exhaustive, bursty, timer, shadow or off" \
    "$HP" run --mode fast -- ./work
check_fails_cleanly "run: a bad --seed gets the runtime's message" "the seed wants a number" "$HP" run --seed -5 -- ./work
