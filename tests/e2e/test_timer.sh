#!/usr/bin/env bash
# test_timer.sh — `hotprof run --mode timer` on unmodified programs (docs/timer.md): the
# tests/workloads/vs_*.c programs built with plain gcc (-no-pie, so timer_stacks.py can name pcs
# with nm), and Debian's gzip, bzip2, xz and sqlite3.
#   - stacks: the hottest function by self samples is the one burning CPU; a 2:1 CPU split gives
#     2:1 samples within 4 standard deviations of the binomial (from the sample count) + 2%;
#     stacks unwind through middle() and main();
#   - transparency: stdout, stderr and exit status byte-identical with and without timer mode
#     (workloads; gzip/bzip2/xz on a generated file; sqlite3 on a script), descriptors below 900
#     the same as without;
#   - signals: the program's own SIGPROF + setitimer still work; a program that takes our signal
#     gets it (we move: timer.signal_moves=1) and never one of our interrupts;
#   - threads (16 created and joined, 10 times): samples from many threads, no crash;
#   - fork without/with --follow-fork, exec, a SIGSEGV (exit status as without hotprof, profile kept);
#   - bad input: a static binary (exit 2), a missing program, bad option values, options of
#     another mode.
#   - the unwind-step cache: HOTPROF_UNWIND_CACHE=check (libunwind and the cache both) finds no
#     stack that differs on vs_split, vs_threads, gzip, xz and python3; it is used by default;
#   - clocks: with --clock perf (skipped, with the reason, when a probe shows perf_event_open is
#     not permitted here) a CPU-bound run gets 1000 +- 15% samples per CPU second and INFO
#     timer.clock=perf; --clock posix says timer.clock=posix; the signal, thread, fork, exec and
#     crash checks run once per clock (names suffixed _perf / _posix).
. "$(dirname "$0")/lib.sh"
W="$ROOT/tests/workloads"
PY="$ROOT/tests/e2e/timer_stacks.py"
CLOCK=auto
run_timer() { "$HP" run --mode timer --clock "$CLOCK" -q "$@"; }

for p in vs_split vs_sigprof vs_sigown vs_threads vs_fork vs_exec vs_crash; do
    if ! gcc -O2 -g -no-pie -pthread -o "$T/$p" "$W/$p.c" 2>"$T/cc.err"; then fail "timer_build_$p" "$(head -3 "$T/cc.err")"; exit 0; fi
done
cd "$T"
stacks() { python3 "$PY" "$1" "$2"; }
get() { awk -v k="$1" -v f="$2" '$1==k && $2==f {print $3; exit}' "$3"; }
getinfo() { awk -v k="$1" '$1=="info" && $2==k {v=$3} END {print v}' "$2"; }

# ---- stacks and the 2:1 split
run_timer -o split.data -- ./vs_split 300 >split.out 2>split.err
stacks split.data vs_split >split.txt
top=$(awk '$1=="self" {print $2; exit}' split.txt)
check_eq "timer_hottest_function_is_heavy" "$top" "heavy"
h=$(get self heavy split.txt); l=$(get self light split.txt); n=$(awk '$1=="samples"{print $2}' split.txt)
check "timer_two_to_one_split_within_binomial_tolerance ($h:$l of $n)" python3 -c "
import math,sys
h,l=int('${h:-0}'),int('${l:-0}'); m=h+l
p=2/3; f=h/m if m else 0; tol=4*math.sqrt(p*(1-p)/m)+0.02 if m else 0
sys.exit(0 if m>=100 and abs(f-p)<=tol else 1)"
mid=$(get total middle split.txt); mainn=$(get total main split.txt)
check "timer_stacks_unwind_through_middle_and_main" test "${mid:-0}" -ge $((n * 9 / 10)) -a "${mainn:-0}" -ge $((n * 9 / 10))
check_eq "timer_info_mode" "$(getinfo mode split.txt)" "timer"
check "timer_info_samples_match_stacks" test "$(getinfo timer.samples split.txt)" -eq "$n"
check "timer_info_cpu_and_handler_ns" test "$(getinfo timer.cpu_ns split.txt)" -gt 0 -a "$(getinfo timer.handler_ns split.txt)" -gt 0

# ---- the summary line on hotprof's stderr
"$HP" run --mode timer -o sum.data -- ./vs_split 20 >sum.out 2>sum.err
check "timer_run_prints_samples_and_overhead" grep -qE "wrote .*sum.data: [0-9]+ samples .*overhead [0-9.]+%" sum.err

# ---- transparency: same stdout, stderr, status; our descriptors out of the program's range
same() { # NAME CMD...: native vs timer mode
    local name=$1; shift
    "$@" >nat.out 2>nat.err; local a=$?
    run_timer -o same.data -- "$@" >tim.out 2>tim.err; local b=$?
    if [ $a = $b ] && cmp -s nat.out tim.out && cmp -s nat.err tim.err; then ok "$name"
    else fail "$name" "status $a/$b, $(cmp nat.out tim.out 2>&1 | head -1) $(head -2 tim.err)"; fi
}
head -c 3000000 /dev/urandom | base64 >input.txt
same "timer_identical_vs_split" ./vs_split 30
same "timer_identical_vs_threads" ./vs_threads 2
same "timer_identical_vs_fork" ./vs_fork
same "timer_identical_vs_exec" ./vs_exec
same "timer_identical_gzip" gzip -9 -c input.txt
same "timer_identical_bzip2" bzip2 -9 -c input.txt
same "timer_identical_xz" xz -6 -c input.txt
printf 'create table t(a,b);\nwith recursive c(x) as (select 1 union all select x+1 from c where x<20000) insert into t select x, x*x%%977 from c;\nselect count(*), sum(b) from t where b > 400;\nselect b, count(*) from t group by b order by 2 desc, 1 limit 3;\n' >script.sql
same "timer_identical_sqlite3" sqlite3 :memory: ".read script.sql"
same "timer_identical_exit_status_and_stderr" sh -c 'echo to-stderr >&2; exit 7'
low_fds() { ls -1 /proc/self/fd | awk '$1 < 900' | sort -n | tr '\n' ' '; }
nat=$(ls -1 /proc/self/fd | awk '$1 < 900' | sort -n | tr '\n' ' ')
tim=$(run_timer -o fd.data -- ls -1 /proc/self/fd | awk '$1 < 900' | sort -n | tr '\n' ' ')
check_eq "timer_no_descriptor_below_900" "$tim" "$nat"

per_clock() {
    # ---- signals
    ./vs_sigprof >n.out; a=$?
    run_timer -o prof.data -- ./vs_sigprof >t.out; b=$?
    check_eq "timer_program_sigprof_setitimer_still_work_$CLOCK" "$(cat t.out) $b" "$(cat n.out) $a"
    run_timer -o own.data -- ./vs_sigown >own.out; b=$?
    check_eq "timer_program_takes_our_signal_$CLOCK" "$(tr '\n' ' ' <own.out)$b" "old dfl received 100 0"
    stacks own.data vs_sigown >own.txt
    check_eq "timer_signal_moved_once_$CLOCK" "$(getinfo timer.signal_moves own.txt)" "1"
    check "timer_moved_signal_is_another_$CLOCK" test "$(getinfo timer.signal own.txt)" != 39 -a "$(getinfo timer.samples own.txt)" -gt 0
    run_timer --signal PROF -o sp.data -- ./vs_sigprof >t.out; b=$?
    stacks sp.data vs_sigprof >sp.txt
    check_eq "timer_signal_prof_moves_for_the_program_$CLOCK" "$(cat t.out) $b $(getinfo timer.signal_moves sp.txt)" "sigprof ok 0 1"

    # ---- threads
    run_timer -o thr.data -- ./vs_threads 10 >thr.out; b=$?
    stacks thr.data vs_threads >thr.txt
    check_eq "timer_threads_run_$CLOCK" "$b $(cat thr.out)" "0 $(./vs_threads 1 | sed 's/.*/&/;q' >/dev/null; ./vs_threads 10)"
    check "timer_threads_sampled_in_many_threads_$CLOCK ($(awk '$1=="tids"{print $2}' thr.txt) tids)" test "$(awk '$1=="tids"{print $2}' thr.txt)" -ge 40
    check "timer_threads_samples_in_work_$CLOCK" test "$(get self work thr.txt)" -gt 0

    # ---- fork
    rm -f fk.data*
    run_timer -o fk.data -- ./vs_fork >/dev/null
    stacks fk.data vs_fork >fk.txt
    check "timer_fork_parent_profiled_child_not_$CLOCK" test "$(get self parent_work fk.txt)" -gt 0 -a -z "$(get self child_work fk.txt)" -a "$(ls fk.data* | wc -l)" = 1
    rm -f ff.data*
    run_timer --follow-fork -o ff.data -- ./vs_fork >/dev/null
    child=$(ls ff.data.* 2>/dev/null | head -1)
    if [ -n "$child" ]; then
        stacks "$child" vs_fork >ffc.txt
        check "timer_follow_fork_child_profiled_$CLOCK" test "$(get self child_work ffc.txt)" -gt 0 -a "$(getinfo forked_from ffc.txt)" -gt 0
    else fail "timer_follow_fork_child_profiled_$CLOCK" "no ff.data.<pid>"; fi

    # ---- exec
    rm -f ex.data*
    run_timer -o ex.data -- ./vs_exec >/dev/null
    stacks ex.data vs_exec >ex.txt
    second=$(ls ex.data.* 2>/dev/null | head -1)
    check "timer_exec_first_image_profiled_$CLOCK" test "$(get self before_exec ex.txt)" -gt 0
    if [ -n "$second" ]; then
        stacks "$second" vs_exec >ex2.txt
        check "timer_exec_new_image_profiled_apart_$CLOCK" test "$(get self after_exec ex2.txt)" -gt 0 -a -z "$(get self before_exec ex2.txt)"
    else fail "timer_exec_new_image_profiled_apart_$CLOCK" "no ex.data.<pid>"; fi

    # ---- a crash
    sh -c ./vs_crash 2>/dev/null; a=$?
    run_timer -o cr.data -- ./vs_crash 2>/dev/null; b=$?
    check_eq "timer_crash_exit_status_as_without_$CLOCK" "$b" "$a"
    stacks cr.data vs_crash >cr.txt
    check "timer_crash_profile_kept_with_samples_$CLOCK" test "$(get self spin cr.txt)" -gt 0 -a "$(getinfo group_flags cr.txt)" != 1
}

# ---- the unwind-step cache: the same stacks as libunwind (HOTPROF_UNWIND_CACHE=check runs both)
# (one more run when the first compared too few stacks to mean anything: in one CI run gzip's
# compared 0 where it compares ~200 on an idle machine; a mismatch is never retried)
ucheck() { # NAME CMD...
    local name=$1; shift
    local c m try
    for try in 1 2; do
        HOTPROF_UNWIND_CACHE=check "$HP" run --mode timer -q -o uc.data -- "$@" >/dev/null 2>&1
        python3 "$PY" uc.data x >uc.txt
        c=$(getinfo timer.unwind_cached uc.txt); m=$(getinfo timer.unwind_mismatches uc.txt)
        [ "${c:-0}" -gt 50 ] || [ "${m:-1}" != 0 ] && break
    done
    check "timer_unwind_cache_same_stacks_as_libunwind_$name (${c:-?} compared, ${m:-?} differ)" test "${c:-0}" -gt 50 -a "${m:-1}" = 0
}
ucheck vs_split ./vs_split 100
ucheck vs_threads ./vs_threads 2
ucheck gzip gzip -9 -c input.txt
ucheck xz xz -6 -c input.txt
# Debian's python3 itself (a python3 found first in PATH may be a wrapper script that execs it)
if [ -x /usr/bin/python3 ]; then ucheck python3 /usr/bin/python3 -c 'print(sum(i * i for i in range(3000000)))'; fi
check "timer_unwind_cache_used_by_default" test "$(getinfo timer.unwind_cached split.txt)" -gt 0
HOTPROF_UNWIND_CACHE=off run_timer -o ucoff.data -- ./vs_split 20 >/dev/null
stacks ucoff.data vs_split >ucoff.txt
check_eq "timer_unwind_cache_off" "$(getinfo timer.unwind_cached ucoff.txt)" "0"

# ---- clocks: is perf_event_open permitted here? (a task-clock of this thread, user time only)
cat >perfprobe.c <<'EOF'
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a, a.type = PERF_TYPE_SOFTWARE, a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 1000000, a.exclude_kernel = 1, a.exclude_hv = 1, a.disabled = 1;
    if (syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0) { perror("perf_event_open"); return 1; }
    return 0;
}
EOF
CLOCKS=posix
if gcc -o perfprobe perfprobe.c 2>/dev/null && ./perfprobe 2>perfprobe.err; then
    CLOCKS="perf posix"
    CLOCK=perf
    run_timer -o rate.data -- ./vs_split 150 >/dev/null
    stacks rate.data vs_split >rate.txt
    rate=$(awk '$1=="info" && $2=="timer.samples" {s=$3} $1=="info" && $2=="timer.cpu_ns" {c=$3} END {if (c > 0) printf "%.0f", s * 1e9 / c}' rate.txt)
    # the perf clock gives the full rate, far above the ~250/s of the kernel tick. Its period is
    # drawn from 0.5..1.5 of 1/freq and redrawn only every 16..48th interrupt (timer_perf.c), so a
    # run this short (~150 samples) averages a handful of draws: its rate lies anywhere in
    # 1000/1.5..1000/0.5 (mean 1000 x ln 3 = 1099). The band is that range: 667..2000 (the former
    # 700..1150 failed 2 of 7 runs, 1169 and 1218; seen 770-1218)
    check "timer_perf_clock_rate_1000_per_cpu_second (${rate:-none})" test "${rate:-0}" -ge 667 -a "${rate:-0}" -le 2000
    check_eq "timer_perf_clock_info" "$(getinfo timer.clock rate.txt)" "perf"
    check "timer_perf_clock_report_header" sh -c "'$HP' report --type samples rate.data | grep -q 'clock perf'"
else
    echo "skip timer_perf_clock_rate: perf_event_open not permitted here ($(cat perfprobe.err 2>/dev/null); kernel.perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
    CLOCK=auto
    run_timer -o fb.data -- ./vs_split 20 >/dev/null
    stacks fb.data vs_split >fb.txt
    check "timer_auto_falls_back_to_posix_with_reason" test "$(getinfo timer.clock fb.txt)" = posix -a -n "$(getinfo timer.clock_fallback fb.txt)"
    check_fails_cleanly "timer_clock_perf_refused_when_not_permitted" "perf_event_open" "$HP" run --mode timer --clock perf -- ./vs_split 1
fi
CLOCK=posix
run_timer -o px.data -- ./vs_split 20 >/dev/null
stacks px.data vs_split >px.txt
check_eq "timer_posix_clock_info" "$(getinfo timer.clock px.txt)" "posix"
for CLOCK in $CLOCKS; do per_clock; done
CLOCK=auto

# ---- bad input
if gcc -static -O2 -o st_static "$W/vs_split.c" 2>/dev/null; then
    "$HP" run --mode timer -- ./st_static 1 >/dev/null 2>st.err; b=$?
    check_eq "timer_static_binary_refused_exit_2" "$b" "2"
    check "timer_static_binary_message" grep -q "statically linked: --mode timer needs a dynamically linked program (LD_PRELOAD)" st.err
fi
check_fails_cleanly "timer_missing_program" "cannot run './no-such-prog'" "$HP" run --mode timer -- ./no-such-prog
check_fails_cleanly "timer_values_0_0" "values wants L/K" "$HP" run --mode timer --values 0/0 -- ./vs_split 1
check_fails_cleanly "timer_values_L_too_big" "values wants L/K" "$HP" run --mode timer --values 65/1 -- ./vs_split 1
check_fails_cleanly "timer_freq_0" "freq wants" "$HP" run --mode timer --freq 0 -- ./vs_split 1
check_fails_cleanly "timer_freq_too_high" "freq wants" "$HP" run --mode timer --freq 100001 -- ./vs_split 1
check_fails_cleanly "timer_depth_0" "depth wants" "$HP" run --mode timer --depth 0 -- ./vs_split 1
check_fails_cleanly "timer_clock_bad" "clock wants auto, perf or posix" "$HP" run --mode timer --clock tsc -- ./vs_split 1
check_fails_cleanly "timer_clock_needs_timer_mode" "'--clock' needs --mode timer" "$HP" run --clock perf -- ./vs_split 1
check_fails_cleanly "timer_signal_segv" "signal wants" "$HP" run --mode timer --signal SEGV -- ./vs_split 1
check_fails_cleanly "timer_engine_bad" "engine wants ool, tf or check" "$HP" run --mode timer --values 4/2 --engine jit -- ./vs_split 1
check_fails_cleanly "timer_engine_needs_values" "need --values" "$HP" run --mode timer --engine tf -- ./vs_split 1
check_fails_cleanly "timer_freq_needs_timer_mode" "'--freq' needs --mode timer" "$HP" run --freq 100 -- ./vs_split 1
check_fails_cleanly "timer_sample_refused_in_timer_mode" "'--sample' needs --mode bursty" "$HP" run --mode timer --sample methods -- ./vs_split 1
check_fails_cleanly "timer_bursts_refused_in_timer_mode" "'--bursts' needs --mode bursty" "$HP" run --mode timer --bursts live -- ./vs_split 1

# ---- a program built with hotprof cc: its static runtime stays off, the preloaded one profiles it
if "$HP" cc -O2 -g -o split_cc "$W/vs_split.c" >/dev/null 2>&1; then
    run_timer -o cc.data -- ./split_cc 30 >cc.out; b=$?
    stacks cc.data split_cc >cc.txt
    check "timer_hotprof_cc_program_profiled_by_the_preload" test "$b" = 0 -a "$(getinfo mode cc.txt)" = timer -a "$(getinfo timer.samples cc.txt)" -gt 0
fi

# A recycled thread state (thread.c reuses exited threads' states past HP_KEEP_EXITED = 64 exits)
# must not carry the old thread's stack samples into the new thread: 66 threads in turn run work_a,
# then 4 run work_b; no thread's samples may mix both (before the fix, the first work_b thread
# took over a work_a thread's state, stacks included).
cat > "$T/recyc.c" <<'C'
#include <pthread.h>
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink = sink * 3 + i; }
__attribute__((noinline)) static void *work_a(void *a) { (void)a; spin(4000000); return NULL; }
__attribute__((noinline)) static void *work_b(void *a) { (void)a; spin(4000000); return NULL; }
int main(void)
{
    for (int i = 0; i < 70; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, i < 66 ? work_a : work_b, NULL)) return 1;
        pthread_join(t, NULL);
    }
    printf("done\n");
    return 0;
}
C
if gcc -O1 -g -no-pie -pthread -fno-inline -o "$T/recyc" "$T/recyc.c"; then
    "$HP" run -q --mode timer --freq 2000 -o "$T/recyc.data" -- "$T/recyc" >/dev/null 2>&1
    mixed=$(python3 "$PY" "$T/recyc.data" "$T/recyc" | awk '$1 == "tfuncs" && $3 ~ /work_a/ && $3 ~ /work_b/' | wc -l)
    bsamp=$(python3 "$PY" "$T/recyc.data" "$T/recyc" | awk '$1 == "tfuncs" && $3 ~ /work_b/' | wc -l)
    check_eq timer_recycled_state_starts_empty "$mixed" 0
    check "timer_recycled_threads_sampled" test "$bsamp" -ge 1
else
    fail timer_build_recyc
fi
