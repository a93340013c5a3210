#!/usr/bin/env bash
# test_top.sh — `hotprof top`, the live view (src/cli/cmd_top.c, the runtime's live segment):
#  (a) `top --stdio -n 3 -- prog`: the first snapshot (1 s in) already ranks first the function
#      the program's own profile (written when top ends it) ranks first, the run takes about 3 s,
#      and the program's stdout/stderr never reach top's output (--output-child gets them);
#      --type callpairs ranks first the pair the profile ranks first; so does a bursty run;
#  (b) the program's end: "program exited (status N)", exit 0; its segment is removed; after an
#      exec (same pid, a new image) top shows the new image's segment;
#  (c) `top -p PID --stdio -n 2` on a running hotprof program leaves it running; a fork child
#      publishes its own segment with HOTPROF_FOLLOW_FORK=1, none without;
#  (d) the screen, in tmux: the hot method within 3 s of the start, `t` switches the type, `q`
#      quits, the terminal is restored (stty modes back), the program's output never on screen;
#  (e) bad input: a pid that does not exist / has exited / is no hotprof program (or runs with
#      HOTPROF_LIVE=0), an unknown --type, a bad --delay or --sample, nothing to watch, no terminal.
# e2e: alone (its timings: the run takes about 3 s, the screen within 3 s)
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 1

if ! "$HP" cc -O1 -o top_spin "$ROOT/tests/e2e/progs/top_spin.c" >cc.log 2>&1; then
    fail top_build "$(tail -n 3 cc.log)"
    exit 0
fi

# hottest_method FILE / hottest_pair FILE: rank 1 of the profile's own report (JSON)
hottest_method() { "$HP" report --format json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["methods"][0]["function"])'; }
hottest_pair() {
    "$HP" report --format json "$1" |
        python3 -c 'import json,sys; p=json.load(sys.stdin)["call_pairs"][0]; print(p["caller_function"] + " → " + p["callee_function"])'
}
# rank1 FILE [N]: the name in the rank-1 row of the N-th snapshot (default 1) of a --stdio output
rank1() { awk -v want="${2:-1}" '/^hotprof top /{n++} n==want && $1=="1" {$1=""; $2=""; sub(/^ +/, ""); print; exit}' "$1"; }

# ---- (a) top --stdio -n 3 -- prog
start=$(date +%s.%N)
"$HP" top --stdio -n 3 -o a.data --output-child child.out -- ./top_spin 30 >a.out 2>a.err
rc=$?
elapsed=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
check_eq top_stdio_exit_status "$rc" 0
check_eq top_stdio_three_snapshots "$(grep -c '^hotprof top .* pid [0-9]* type methods$' a.out)" 3
check_eq top_stdio_first_snapshot_ranks_the_hot_method "$(rank1 a.out 1)" "$(hottest_method a.data)"
check top_stdio_takes_about_three_seconds python3 -c "import sys; sys.exit(not 2.5 <= float('$elapsed') <= 8)"
check_eq top_stdio_no_child_output "$(grep -c CHILD- a.out a.err | awk -F: '{s += $2} END {print s}')" 0
check top_output_child_gets_the_program_output grep -q CHILD-STDOUT child.out

"$HP" top --stdio -n 1 --type callpairs -o c.data -- ./top_spin 30 >c.out 2>&1
check_eq top_stdio_callpairs "$(rank1 c.out 1)" "$(hottest_pair c.data)"

"$HP" top --stdio -n 1 --sample methods:period=99,burst=1 -o s.data -- ./top_spin 30 >s.out 2>&1
check_eq top_stdio_bursty_mode "$("$HP" report --format json s.data | python3 -c 'import json,sys; print(json.load(sys.stdin)["mode"] != "exhaustive")')" True
check_eq top_stdio_bursty_ranks_the_hot_method "$(rank1 s.out 1)" "$(hottest_method s.data)"

# ---- (b) the program ends first
"$HP" top --stdio -d 0.5 -o b.data -- ./top_spin 1.2 3 >b.out 2>&1
rc=$?
check_eq top_program_exit_status_zero "$rc" 0
check_eq top_program_exited_line "$(tail -n 1 b.out)" "program exited (status 3)"
check top_program_exit_showed_data grep -q '^   1 ' b.out

# ---- (b2) the program exec()s a new image (same pid): top follows it to the new image's segment
"$HP" top --stdio -d 0.5 -o e.data -- ./top_spin 1.5 0 exec >e.out 2>&1
eimage=$(ls e.data.* 2>/dev/null | head -n 1)
check top_exec_new_image_profile test -n "$eimage"
check_eq top_exec_first_image "$(rank1 e.out 1)" "$(hottest_method e.data)"
check_eq top_exec_follows_the_new_image "$(rank1 e.out "$(grep -c '^hotprof top ' e.out)")" "$(hottest_method "$eimage")"

# ---- (c) top -p PID
HOTPROF_OUTPUT="$T/p.data" ./top_spin 30 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -e "/dev/shm/hotprof.$pid" ] && break; sleep 0.1; done
check top_segment_exists test -e "/dev/shm/hotprof.$pid"
check_eq top_segment_mode "$(stat -c %a "/dev/shm/hotprof.$pid" 2>/dev/null)" 600
"$HP" top -p "$pid" --stdio -n 2 >p.out 2>&1
check_eq top_pid_exit_status $? 0
check_eq top_pid_two_snapshots "$(grep -c "^hotprof top .* pid $pid type methods$" p.out)" 2
check top_pid_leaves_the_program_running kill -0 "$pid"
kill -TERM "$pid"
wait "$pid" 2>/dev/null
check_eq top_pid_ranks_the_hot_method "$(rank1 p.out 2)" "$(hottest_method p.data)"
check_eq top_segment_removed_at_exit "$(ls /dev/shm/hotprof.$pid 2>/dev/null)" ""

# ---- (c2) fork: a child that follows the fork publishes its own segment; one that does not, none
# child_of OUT: the pid the forked child printed ("child PID"), waiting up to 5 s for it
child_of() { for _ in $(seq 50); do grep -q '^child ' "$1" && break; sleep 0.1; done; awk '/^child /{print $2}' "$1"; }
HOTPROF_FOLLOW_FORK=1 HOTPROF_OUTPUT="$T/f.data" ./top_spin 4 0 fork >fork1.out 2>/dev/null &
fparent=$!
fchild=$(child_of fork1.out)
for _ in $(seq 50); do [ -e "/dev/shm/hotprof.$fchild" ] && break; sleep 0.1; done
check top_fork_follow_child_has_its_own_segment test -e "/dev/shm/hotprof.$fchild"
check top_fork_follow_parent_keeps_its_segment test -e "/dev/shm/hotprof.$fparent"
"$HP" top -p "$fchild" --stdio -n 1 >f.out 2>&1
check_eq top_fork_follow_child_watched "$(rank1 f.out 1)" "$(hottest_method a.data)"
wait "$fparent"
HOTPROF_OUTPUT="$T/g.data" ./top_spin 2 0 fork >fork2.out 2>/dev/null &
gparent=$!
gchild=$(child_of fork2.out)
sleep 0.5
check top_fork_default_parent_has_a_segment test -e "/dev/shm/hotprof.$gparent"
check_fails_cleanly top_fork_default_child_has_none "not a hotprof program" "$HP" top -p "$gchild" --stdio -n 1
wait "$gparent"
check_eq top_fork_segments_removed "$(ls /dev/shm | grep -cE "^hotprof\.($fparent|$fchild|$gparent|$gchild)$")" 0

# ---- (d) the screen, in tmux
if command -v tmux >/dev/null; then
    sock="$T/tmux.sock" sess=hptop$$
    hot=$(hottest_method a.data) pair=$(hottest_pair c.data) # what (a) found in this program's profiles
    tm() { tmux -S "$sock" "$@"; }
    tm new-session -d -s "$sess" -x 120 -y 30 \
        "cd '$T' && LANG=C.UTF-8 '$HP' top -o d.data -- ./top_spin 60; echo TOP-EXIT=\$?; stty -a > stty.txt; sleep 60"
    t0=$(date +%s.%N) seen=""
    for _ in $(seq 60); do
        tm capture-pane -p -t "$sess" >screen1.txt
        if [ "$(awk '$1 == "1" {$1 = ""; $2 = ""; sub(/^ +/, ""); print}' screen1.txt)" = "$hot" ]; then seen=$(date +%s.%N); break; fi
        sleep 0.1
    done
    check top_screen_shows_the_hot_method_within_3s python3 -c "import sys; sys.exit(not ('$seen' and float('$seen') - float('$t0') <= 3.0))"
    check top_screen_title_names_the_type grep -q 'type methods' screen1.txt
    tm send-keys -t "$sess" t
    for _ in $(seq 30); do tm capture-pane -p -t "$sess" >screen2.txt; grep -q 'type callpairs' screen2.txt && break; sleep 0.1; done
    check top_screen_t_switches_the_type grep -q 'type callpairs' screen2.txt
    check_eq top_screen_callpairs_rows "$(awk '$1 == "1" {$1 = ""; $2 = ""; sub(/^ +/, ""); print}' screen2.txt)" "$pair"
    check_eq top_screen_no_child_output "$(cat screen1.txt screen2.txt | grep -c CHILD-)" 0
    tm send-keys -t "$sess" q
    for _ in $(seq 50); do tm capture-pane -p -t "$sess" >screen3.txt; grep -q TOP-EXIT screen3.txt && [ -s stty.txt ] && break; sleep 0.1; done
    check_eq top_screen_q_quits "$(grep -o 'TOP-EXIT=[0-9]*' screen3.txt)" TOP-EXIT=0
    check_eq top_screen_restores_the_screen "$(grep -c 'RANK' screen3.txt)" 0
    check top_screen_restores_the_terminal_modes grep -qE '(^| )icanon( |$)' stty.txt
    check top_screen_restores_echo grep -qE '(^| )echo( |$)' stty.txt
    check top_screen_program_ended_with_profile test -s d.data
    tm kill-server 2>/dev/null
else
    fail top_screen "tmux is not installed (scripts/setup.sh installs it)"
fi

# ---- (e) bad input
./top_spin 0.1 >/dev/null 2>&1 &
gone=$!
wait "$gone"
check_fails_cleanly top_pid_exited "no process $gone" "$HP" top -p "$gone" --stdio -n 1
: >"/dev/shm/hotprof.$gone" # as a process killed by SIGKILL leaves it
HOTPROF_OUTPUT="$T/sw.data" ./top_spin 0.1 >/dev/null 2>&1
check_eq top_stale_segment_swept_by_the_next_program "$(ls "/dev/shm/hotprof.$gone" 2>/dev/null)" ""
check_fails_cleanly top_pid_not_hotprof "not a hotprof program" "$HP" top -p $$ --stdio -n 1
HOTPROF_LIVE=0 HOTPROF_OUTPUT="$T/off.data" ./top_spin 5 >/dev/null 2>&1 &
off=$!
sleep 0.5
check_fails_cleanly top_pid_live_off "not a hotprof program" "$HP" top -p "$off" --stdio -n 1
kill -TERM "$off"; wait "$off" 2>/dev/null
check_fails_cleanly top_unknown_type "unknown --type 'nosuch' \(types: methods, callpairs" "$HP" top --type nosuch -p 1 --stdio
check_fails_cleanly top_bad_delay "delay" "$HP" top -d 0 -p 1 --stdio
check_fails_cleanly top_bad_sample "option '--sample" "$HP" top --stdio --sample nosuch:period=1 -- ./top_spin 1
check_fails_cleanly top_nothing_to_watch "nothing to watch" "$HP" top --stdio
check_fails_cleanly top_not_a_terminal "not a terminal" "$HP" top -p 1
check_fails_cleanly top_program_not_hotprof "live view" "$HP" top --stdio -n 1 -- /bin/sleep 0.3
check_fails_cleanly top_program_missing "cannot run" "$HP" top --stdio -n 1 -- ./no_such_program
check_eq top_no_stale_segments "$(ls /dev/shm | grep -cE "^hotprof\.($gone|$off)$")" 0
