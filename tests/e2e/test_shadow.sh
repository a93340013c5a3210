#!/usr/bin/env bash
# test_shadow.sh — shadow profiling (hotprof run --mode shadow, docs/shadow.md):
#   - a workload that writes a file, appends to a log, prints, sends on a socket pair, renames
#     files and reads a file with read() produces byte-identical files, listing, stdout and exit
#     status (3) with and without shadows (several forced: --load 2), its shadows did try output
#     calls (which therefore never reached the world), and a write to a MAP_SHARED page ended them;
#   - the merged profile's hottest method is the exhaustive run's; the report has a shadow line;
#   - a parent killed with SIGKILL leaves no shadow after 1 s;
#   - the program's own fork/wait(NULL) loop and SIGCHLD handler see exactly their own children,
#     exit status 3 and a death by SIGTERM are passed through unchanged;
#   - a program that takes the monitor's signal over gets one warning and no more shadows;
#     --shadow-signal moves it; shadows that reach the program's exit write their profile;
#   - a threaded program: same output, no half-written profile (more in test_shadow_threads.sh);
#   - HOTPROF_MODE=shadow without the CLI leaves <output>.shadows/, which `hotprof merge` reads;
#   - bad input: --load 0, --load 9, --sample-size 0, a program without hotprof's hooks, shadow
#     options without --mode shadow: one message, non-zero exit.
# e2e: alone (shadows run in wall-clock slices: another job's load changes what they sample)
. "$(dirname "$0")/lib.sh"
P="$ROOT/tests/e2e/progs"
"$HP" cc -O2 -o "$T/io" "$P/shadow_io.c" >"$T/cc.out" 2>&1 || { fail shadow_build "$(tail -3 "$T/cc.out")"; exit 1; }
"$HP" cc -O2 -o "$T/forker" "$P/shadow_fork.c" >"$T/cc.out" 2>&1 || { fail shadow_build "$(tail -3 "$T/cc.out")"; exit 1; }
info() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d$2)" "$1"; }
fresh_dir() { rm -rf "$1"; mkdir -p "$1"; seq 1 100 | sed 's/^/input line /' >"$1/input.txt"; }

# ---- the world sees the same thing with and without shadows
fresh_dir "$T/native"; fresh_dir "$T/shadow"
(cd "$T" && HOTPROF_MODE=off ./io "$T/native" 100 >"$T/native.out"); native_rc=$?
(cd "$T" && "$HP" run -q --mode shadow --load 2 --sample-size 2M -o "$T/sh.data" -- ./io "$T/shadow" 100 >"$T/shadow.out" 2>"$T/run.err"); shadow_rc=$?
check_eq shadow_exit_status_passed_through "$shadow_rc" "$native_rc"
check_eq shadow_exit_status_is_3 "$native_rc" 3
check shadow_stdout_identical cmp "$T/native.out" "$T/shadow.out"
check shadow_files_identical diff -r "$T/native" "$T/shadow"
check_eq shadow_listing_identical "$(cd "$T/shadow" && ls -a | tr '\n' ' ')" "$(cd "$T/native" && ls -a | tr '\n' ' ')"
"$HP" report --format json "$T/sh.data" >"$T/sh.json" 2>"$T/report.err"
started=$(info "$T/sh.json" "['shadow']['started']" 2>/dev/null || echo 0)
output=$(python3 -c "import sys; print(float(sys.argv[1]))" "$(info "$T/sh.json" "['shadow']['syscalls']['output']" 2>/dev/null || echo 0)")
check shadow_several_started test "${started:-0}" -ge 2
check shadow_tried_output_calls python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" "$output"
shared_ends=$("$HP" info "$T/sh.data" | awk '$1 == "shadow.end.shared_write" {print $2}')
check shadow_shared_write_ends_shadows test "${shared_ends:-0}" -ge 1
check shadow_dir_removed_after_merge test ! -e "$T/sh.data.shadows"
check shadow_report_has_shadow_line grep -q '^  shadow ' <("$HP" report "$T/sh.data")
check shadow_merged_keeps_exit_status grep -q 'exited with status 3' <("$HP" report "$T/sh.data")

# ---- shadows profile the program: the same most-called function as an exhaustive run, and the
# loop that was running when a shadow started counts its back-edges (an adopted frame)
fresh_dir "$T/ex"
(cd "$T" && "$HP" run -q -o "$T/ex.data" -- ./io "$T/ex" 10 >/dev/null)
"$HP" report --format json "$T/ex.data" >"$T/ex.json"
top_calls() { python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['methods']; print(max(m, key=lambda r: r['calls'])['function'])" "$1"; }
top_ex=$(top_calls "$T/ex.json")
top_sh=$(top_calls "$T/sh.json" 2>/dev/null)
check_eq shadow_top_method_is_exhaustive_top "$top_sh" "$top_ex"
check_eq shadow_top_method_is_hot_inner "$top_ex" hot_inner
outer_be=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['methods']; print(sum(r['backedges'] for r in m if r['function'] == 'hot_outer'))" "$T/sh.json" 2>/dev/null)
check shadow_running_loop_counts_backedges test "${outer_be:-0}" -gt 0
check shadow_no_incomplete_profiles test ! -s "$T/run.err"

# ---- paths and values taken in shadows (--sample path --sample value:summary=tnv): the merged
# profile has both, and its hottest path is one of the exhaustive run's five hottest
"$HP" cc --hooks=all -O2 -o "$T/gta" "$ROOT/bench/workloads/gametree.c" >"$T/cc.out" 2>&1 || fail shadow_build_gametree_all
"$HP" run -q --sample path --sample value:summary=tnv -o "$T/pv_ex.data" -- "$T/gta" 6 >/dev/null 2>&1
"$HP" run -q --mode shadow --load 1 --sample-size 1M --sample path --sample value:summary=tnv -o "$T/pv_sh.data" -- "$T/gta" 6 >/dev/null 2>&1
toppaths() { "$HP" report --type path --format json --top "$2" "$1" | python3 -c '
import json, sys
print(" ".join(r["key"] for r in json.load(sys.stdin)["paths"]["rows"]))'; }
sh_top=$(toppaths "$T/pv_sh.data" 1)
ex_top5=$(toppaths "$T/pv_ex.data" 5)
check shadow_paths_recorded test -n "$sh_top"
check shadow_top_path_in_exhaustive_top5 sh -c "echo ' $ex_top5 ' | grep -q ' $sh_top '"
nval=$("$HP" report --type value --format json --top 100000 "$T/pv_sh.data" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["values"]))')
check shadow_values_recorded test "${nval:-0}" -gt 0

# ---- a parent killed with SIGKILL leaves no shadow
marker="hp-shadow-kill-$$"
fresh_dir "$T/kill"
(cd "$T" && HOTPROF_MODE=shadow HOTPROF_SHADOW=load=2,sample=1G HOTPROF_OUTPUT="$T/kill.data" exec ./io "$T/kill" 1 spin "$marker") &
parent=$!
# shadows live one slice (25-75 ms of CPU) and the next is forked a tick later: "before" is the
# count seen when one was alive, not a second look that may fall between two shadows
before=0
for _ in $(seq 1 200); do before=$(pgrep -f "$marker" | wc -l); [ "$before" -ge 2 ] && break; sleep 0.05; done
kill -KILL "$parent"; wait "$parent" 2>/dev/null
sleep 1
check shadow_kill_had_shadows test "$before" -ge 2
check_eq shadow_kill_leaves_none "$(pgrep -f "$marker" | wc -l)" 0

# ---- the program's own children, SIGCHLD and exit status
(cd "$T" && "$HP" run -q --mode shadow --load 2 --sample-size 50K -o "$T/f.data" -- ./forker 30 >"$T/f.out"); frc=$?
check_eq shadow_fork_exit_status "$frc" 3
check shadow_fork_wait_sees_own_children grep -q '^fork ok 30' "$T/f.out"
(cd "$T" && "$HP" run -q --mode shadow --load 2 --sample-size 50K -o "$T/k.data" -- ./forker 10 kill >"$T/k.out" 2>/dev/null); krc=$?
check_eq shadow_signal_death_passed_through "$krc" 143
check shadow_signal_death_children_ok grep -q '^fork ok 10' "$T/k.out"
check_eq shadow_signal_death_in_report "$("$HP" report --format json "$T/k.data" | python3 -c "import json,sys; r=json.load(sys.stdin)['run']; print(r['state'], r['signal'])")" "crashed 15"

# ---- the program takes the monitor's signal over: one warning, no more shadows; --shadow-signal
"$HP" cc -O2 -o "$T/sig" "$P/shadow_sig.c" >"$T/cc.out" 2>&1
(cd "$T" && env -u HOTPROF_QUIET "$HP" run --mode shadow --load 2 --sample-size 1M -o "$T/sig.data" -- ./sig 40 >"$T/sig.out" 2>"$T/sig.err"); src=$?
check_eq shadow_signal_taken_exit "$src" 0
check shadow_signal_taken_output grep -q '^sig ok' "$T/sig.out"
check_eq shadow_signal_taken_warns_once "$(grep -c 'installed its own handler for the monitor' "$T/sig.err")" 1
check_eq shadow_signal_lost_in_info "$("$HP" info "$T/sig.data" | awk '$1 == "shadow.signal_lost" {print $2}')" 1
(cd "$T" && "$HP" run -q --mode shadow --load 2 --sample-size 1M --shadow-signal USR2 -o "$T/usr2.data" -- ./sig 40 >/dev/null 2>"$T/usr2.err")
check_eq shadow_other_signal_not_lost "$("$HP" info "$T/usr2.data" | awk '$1 == "shadow.signal_lost" {print $2}')" ""
check shadow_other_signal_in_spec grep -q 'signal=12' <("$HP" info "$T/usr2.data")

# ---- shadows still running when the program ends write their profile: the shadow reaches the
# program's exit itself (shadow.end.exit) or the parent exits first and tells it
# (shadow.end.parent_exit); either way nothing is killed (a run may start no shadow on a loaded
# machine: up to 3 tries)
for _ in 1 2 3; do
    (cd "$T" && "$HP" run -q --mode shadow --load 2 --sample-size 1G -o "$T/exit.data" -- ./sig 0 60000000 >/dev/null 2>&1)
    exits=$("$HP" info "$T/exit.data" | awk '$1 == "shadow.end.exit" || $1 == "shadow.end.parent_exit" {n += $2} END {print n + 0}')
    [ "${exits:-0}" -ge 1 ] && break
done
check shadow_program_exit_ends_shadow test "${exits:-0}" -ge 1
check_eq shadow_program_exit_kills_none "$("$HP" info "$T/exit.data" | awk '$1 == "shadow.killed" {print $2}')" 0
check_eq shadow_program_exit_profile_merged "$("$HP" info "$T/exit.data" | awk '$1 == "shadow.killed" {print $2}')" 0

# ---- threads: shadows of worker threads (which outlive their thread: test_shadow_threads.sh)
# leave no half-written profile, and the program's output is unchanged
"$HP" cc -O2 -o "$T/mt" "$ROOT/bench/workloads/mt_work.c" -lpthread >"$T/cc.out" 2>&1
(cd "$T" && HOTPROF_MODE=off ./mt 600000 4 >"$T/mt.native")
(cd "$T" && "$HP" run -q --mode shadow --load 1 --sample-size 1M -o "$T/mt.data" -- ./mt 600000 4 >"$T/mt.out" 2>"$T/mt.err"); mrc=$?
check_eq shadow_threads_exit_status "$mrc" 0
check shadow_threads_output_identical cmp "$T/mt.native" "$T/mt.out"
check shadow_threads_no_partial_profiles test ! -s "$T/mt.err"
check shadow_threads_started test "$("$HP" info "$T/mt.data" | awk '$1 == "shadow.started" {print $2}')" -ge 1

# ---- by hand: the shadows' profiles stay, hotprof merge reads them
fresh_dir "$T/hand"
(cd "$T" && HOTPROF_MODE=shadow HOTPROF_SHADOW=load=2,sample=100K HOTPROF_OUTPUT="$T/hand.data" ./io "$T/hand" 60 >/dev/null)
n=$(ls "$T/hand.data.shadows" 2>/dev/null | wc -l)
check shadow_by_hand_leaves_profiles test "$n" -ge 1
check shadow_by_hand_merge "$HP" merge -o "$T/hand.merged" "$T"/hand.data.shadows/*

# ---- bad input
check_fails_cleanly shadow_load_0 "load must be a number from 0.0625 to 2, not '0'" "$HP" run --mode shadow --load 0 -- "$T/io" "$T" 1
check_fails_cleanly shadow_load_9 "load must be a number from 0.0625 to 2, not '9'" "$HP" run --mode shadow --load 9 -- "$T/io" "$T" 1
check_fails_cleanly shadow_sample_0 "sample size must be a number of events" "$HP" run --mode shadow --sample-size 0 -- "$T/io" "$T" 1
check_fails_cleanly shadow_not_hotprof "was not built with hotprof's hooks" "$HP" run --mode shadow -- /bin/true
check_fails_cleanly shadow_options_need_mode "need --mode shadow" "$HP" run --load 0.5 -- "$T/io" "$T" 1
check_fails_cleanly shadow_bad_env "bad HOTPROF_SHADOW" env HOTPROF_MODE=shadow HOTPROF_SHADOW=load=7 HOTPROF_OUTPUT="$T/bad.data" sh -c "'$T/io' '$T/hand' 1 >/dev/null; exit 1"
