/* run_child.h — how `hotprof run` starts the profiled program and waits for it, as `timeout` and
 * `perf record` do: SIGTERM, SIGINT and SIGHUP sent to hotprof are forwarded to the program (its
 * runtime then writes what it counted), and hotprof waits until the program is gone, so a killed
 * `hotprof run` never orphans the program. A signal the terminal sent to the whole foreground
 * process group (the program got it too) is not sent twice. A signal hotprof was started with
 * ignored (SIGHUP under nohup, SIGTERM) stays ignored, in hotprof and in the program; SIGQUIT is
 * ignored by hotprof while it waits, and SIGINT and SIGQUIT start at their defaults in the
 * program, as before.
 */
#ifndef HOTPROF_CLI_RUN_CHILD_H
#define HOTPROF_CLI_RUN_CHILD_H

/* Runs argv (argv[0] searched in PATH) and waits for it: 0 with its wait status in *status, or
 * an errno from fork/exec (nothing ran then). inherit_fd (-1: none) is passed on to the program
 * (its close-on-exec flag is cleared in the child). */
int hp_run_child(char **argv, int *status, int inherit_fd);

/* Starts argv (searched in PATH) without waiting, for `hotprof top`, which owns the terminal
 * while the program runs: the program gets a process group of its own (terminal keys reach
 * hotprof only), stdin from /dev/null, stdout and stderr on out_fd. 0 with its pid in *pid, or an
 * errno from fork/exec (nothing runs then). The caller reaps it (waitpid) and forwards signals. */
int hp_spawn_child(char **argv, int out_fd, int *pid);

#endif
