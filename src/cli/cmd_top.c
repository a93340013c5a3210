/* cmd_top.c — `hotprof top [options] -- PROGRAM [ARGS...]` and `hotprof top -p PID`: a live view
 * of a running hotprof program's hottest members (methods, call pairs, subpaths), like `perf
 * top`, read from the program's live segment (analysis/live.h) without stopping it.
 *
 * With a PROGRAM, top starts it like `hotprof run` does (the same HOTPROF_* settings: output,
 * mode, --sample, validated by core/control/spec), in a process group of its own, with its stdin
 * from /dev/null and its stdout and stderr to /dev/null (or --output-child FILE), so that it
 * never writes on the terminal top draws on. When top quits before the program ends, the program
 * gets SIGTERM (its runtime writes the profile, as on any SIGTERM) and top waits for it.
 * With -p, top attaches to a running program and leaves it alone when it quits.
 * The view: the curses screen (top_screen.c), or with --stdio plain snapshots every delay (a
 * header line "hotprof top TIME pid PID type TYPE", then "RANK VALUE NAME" rows), -n of them.
 * When the program ends: "program exited (status N)" (stdio: printed, then exit 0).
 * Exit status: 0; 1 when the program cannot be watched (no segment, not ours, no terminal); 2 a
 * usage mistake; 126/127 when the program cannot be started.
 */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/sample_spec.h"
#include "cli/pager.h"
#include "cli/run_child.h"
#include "cli/top.h"
#include "core/control/spec.h"
#include "core/ptype/ptype.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const hp_command_desc top_desc = {
    "top", "[options] -- PROGRAM [ARGS...] | -p PID [options]",
    "Watch the hottest methods, call pairs or subpaths of a running program, live.",
    "hotprof top runs PROGRAM (built with 'hotprof cc') under hotprof, as 'hotprof run' does,\n"
    "or with -p attaches to a running hotprof program, and shows its hottest members every\n"
    "delay, read from the program's live segment (/dev/shm/hotprof.PID, readable by its user\n"
    "only) without stopping it. Keys: q quits, t shows the next type, arrows and PgUp/PgDn\n"
    "scroll. VALUE is the type's live count: methods, calls + loop back-edges; call pairs,\n"
    "calls; subpaths, estimated executions (sampled counts in bursty mode).\n"
    "The program's stdin is /dev/null and its stdout and stderr go to /dev/null (or to\n"
    "--output-child FILE), so it never writes on top's screen. Quitting top sends SIGTERM to\n"
    "a program it started (the profile is written as usual) and waits for it; with -p the\n"
    "program is left running. When the program ends, top keeps its last view and says\n"
    "\"program exited (status N)\"; with --stdio it prints that line and exits with 0.\n"
    "A program started with HOTPROF_LIVE=0 publishes no live segment.\n"};

typedef struct top_args {
    uint64_t pid, iterations;
    const char *delay_text, *type, *child_out, *output, *mode_text;
    hp_opt_list samples;
    int stdio;
    double delay;
    int mode;
} top_args;

static void init_options(hp_option *opts, top_args *a)
{
    hp_option table[] = {
        {HP_OPT_UINT, 'p', "pid", &a->pid, "PID", "watch the running hotprof program PID instead of starting one"},
        {HP_OPT_STRING, 'd', "delay", &a->delay_text, "SEC", "seconds between refreshes (default 1; 0.1 at least)"},
        {HP_OPT_STRING, 0, "type", &a->type, "TYPE", "the type shown first: methods (default), callpairs or subpath"},
        {HP_OPT_FLAG, 0, "stdio", &a->stdio, NULL, "print plain snapshots on stdout instead of the screen"},
        {HP_OPT_UINT, 'n', "iterations", &a->iterations, "N", "stop after N refreshes (default: until q or the program ends)"},
        {HP_OPT_STRING, 0, "output-child", &a->child_out, "FILE", "the program's stdout and stderr go to FILE (default /dev/null)"},
        {HP_OPT_STRING, 'o', "output", &a->output, "FILE", "the program's profile (default " HP_SPEC_DEFAULT_OUTPUT ")"},
        {HP_OPT_STRING, 'm', "mode", &a->mode_text, "MODE", "exhaustive|bursty (as 'hotprof run'; bursty with --sample)"},
        {HP_OPT_LIST, 0, "sample", &a->samples, "TYPE:...", "sample TYPE in bursty mode, as 'hotprof run --sample' (repeatable)"},
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_top_usage(FILE *out)
{
    top_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &top_desc, opts);
}

/* ---------------------------------------------------------------- settings */

static int check_type(top_args *a)
{
    if (!a->type) a->type = "methods";
    const hp_ptype *p = hp_ptype_by_name(a->type, strlen(a->type));
    if (p) return a->type = p->name, 0;
    char list[256] = "";
    for (int i = 0; hp_ptypes[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", hp_ptypes[i]->name);
    return hp_usage_error(&top_desc, "unknown --type '%s' (types: %s)", a->type, list);
}

static int check_delay(top_args *a)
{
    char *end;
    a->delay = 1;
    if (!a->delay_text) return 0;
    errno = 0;
    a->delay = strtod(a->delay_text, &end);
    if (errno || end == a->delay_text || *end || !(a->delay >= 0.1 && a->delay <= 3600))
        return hp_usage_error(&top_desc, "option '--delay %s': not a number of seconds from 0.1 to 3600", a->delay_text);
    return 0;
}

/* The program's HOTPROF_* settings, validated with core/control/spec (as `hotprof run`). */
static int program_settings(const top_args *a)
{
    char err[256], spec[1024] = "", out[4096];
    int mode = a->samples.n ? HP_RUN_BURSTY : HP_RUN_EXHAUSTIVE;
    if (a->mode_text && hp_spec_mode(a->mode_text, &mode, err, sizeof err))
        return hp_usage_error(&top_desc, "option '--mode': %s", err);
    if (a->samples.n && mode == HP_RUN_OFF)
        return hp_usage_error(&top_desc, "option '--sample' needs --mode bursty (or exhaustive for subpath), not '%s'",
                              hp_spec_mode_name(mode));
    if ((mode == HP_RUN_BURSTY || (mode == HP_RUN_EXHAUSTIVE && a->samples.n)) &&
        hp_cli_sample_spec(&top_desc, &a->samples, mode == HP_RUN_EXHAUSTIVE, spec, sizeof spec))
        return HP_PARSE_ERROR;
    const char *o = a->output ? a->output : HP_SPEC_DEFAULT_OUTPUT;
    if (o[0] != '/' && getcwd(out, sizeof out - strlen(o) - 2)) snprintf(out + strlen(out), sizeof out - strlen(out), "/%s", o);
    else snprintf(out, sizeof out, "%s", o);
    unsetenv("HOTPROF_CLAIMED"), unsetenv("HOTPROF_RUN_FD"), unsetenv("HOTPROF_SAMPLE");
    setenv("HOTPROF_LIVE", "1", 1), setenv("HOTPROF_QUIET", "1", 1);
    setenv("HOTPROF_MODE", hp_spec_mode_name(mode), 1), setenv("HOTPROF_OUTPUT", out, 1);
    if (spec[0]) setenv("HOTPROF_SAMPLE", spec, 1);
    return 0;
}

/* ---------------------------------------------------------------- the program */

static volatile int g_quit;

static void on_quit(int sig) { g_quit = sig; }

static void catch_quit_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit; /* no SA_RESTART: a wait for a key returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL), sigaction(SIGTERM, &sa, NULL), sigaction(SIGHUP, &sa, NULL);
}

/* Starts the program: 0 with its pid, or the exit status after a message. */
static int start_program(const top_args *a, char **argv, int *pid)
{
    const char *to = a->child_out ? a->child_out : "/dev/null";
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "hotprof top: cannot write %s: %s\n", to, strerror(errno));
        return 1;
    }
    int err = hp_spawn_child(argv, fd, pid);
    close(fd);
    if (!err) return 0;
    fprintf(stderr, "hotprof top: cannot run '%s': %s\n", argv[0], strerror(err));
    return err == ENOENT ? 127 : 126;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits until our program publishes its segment: 0, or 1 after a message (it ended first, or
 * published nothing within 10 s: not a hotprof program). */
static int attach_child(hp_top *t, const char *prog)
{
    char msg[512];
    int status;
    for (int ms = 0; ms <= 10000 && !g_quit; ms += 20) {
        if (hp_live_attach(t->pid, &t->reader, msg, sizeof msg) == HP_LIVE_OK) return 0;
        if (waitpid(t->child, &status, WNOHANG) == t->child) {
            t->child = 0;
            fprintf(stderr, "hotprof top: '%s' ended (status %d) before it published a live view%s\n", prog,
                    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                    " (not built with 'hotprof cc'?)");
            return 1;
        }
        sleep_ms(20);
    }
    if (!g_quit) fprintf(stderr, "hotprof top: '%s' publishes no live view: it was not built with 'hotprof cc'\n", prog);
    return 1;
}

/* The program we started, when top quits first: SIGTERM, then wait. */
static void stop_program(hp_top *t)
{
    if (!t->child) return;
    kill(t->child, SIGTERM);
    while (waitpid(t->child, NULL, 0) < 0 && errno == EINTR) {}
    t->child = 0;
}

/* ---------------------------------------------------------------- --stdio */

static void print_snapshot(hp_top *t)
{
    char when[32], line[4096];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    printf("hotprof top %s pid %llu type %s\n", when, (unsigned long long)t->pid, t->type_name);
    const hp_live_table *tab = hp_top_table(t);
    if (!t->have) printf("(no data yet)\n");
    else if (!tab) printf("(this program has no live view of %s)\n", t->type_name);
    for (size_t i = 0; tab && i < tab->nrows; i++) {
        hp_top_row(t, i, line, sizeof line);
        printf("%s\n", line);
    }
    fflush(stdout);
}

static int stdio_loop(hp_top *t, uint64_t iterations)
{
    for (uint64_t i = 0; !g_quit && (!iterations || i < iterations); i++) {
        hp_top_wait(t, NULL);
        if (g_quit) break;
        hp_top_poll(t);
        if (t->exited) break;
        print_snapshot(t);
    }
    if (t->exited) printf("%s\n", t->status_text), fflush(stdout);
    return 0;
}

/* ---------------------------------------------------------------- the command */

static int watch(top_args *a, hp_top *t)
{
    if (a->stdio) return stdio_loop(t, t->iterations);
    return hp_top_screen(t) ? (fprintf(stderr, "hotprof top: cannot use the terminal (TERM=%s)\n",
                                       getenv("TERM") ? getenv("TERM") : ""), 1) : 0;
}

static int session(top_args *a, char **argv, int npos)
{
    hp_top t = {.pid = a->pid, .type_name = a->type, .delay = a->delay, .iterations = a->iterations, .quit = &g_quit};
    char msg[512];
    int rc;
    t.snap = calloc(1, sizeof *t.snap), t.tmp = calloc(1, sizeof *t.tmp), t.names = hp_live_names_new();
    if (!t.snap || !t.tmp || !t.names) return fprintf(stderr, "hotprof top: out of memory\n"), 1;
    catch_quit_signals();
    if (npos) {
        if ((rc = start_program(a, argv, &t.child))) goto out;
        t.pid = (uint64_t)t.child;
        rc = attach_child(&t, argv[0]);
    } else {
        rc = hp_live_attach(a->pid, &t.reader, msg, sizeof msg) == HP_LIVE_OK ? 0 : 1;
        if (rc) fprintf(stderr, "hotprof top: %s\n", msg);
    }
    if (!rc) rc = watch(a, &t);
    stop_program(&t);
out:
    hp_live_close(t.reader);
    hp_live_names_free(t.names);
    free(t.snap), free(t.tmp);
    return rc;
}

int cmd_top(int argc, char **argv)
{
    top_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    char **pos;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&top_desc, opts, argc, argv, HP_PARSE_STOP_AT_POSITIONAL, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (check_type(&a) || check_delay(&a)) return 2;
    if (!npos && !a.pid) return hp_usage_error(&top_desc, "nothing to watch (hotprof top -- PROGRAM ARGS..., or -p PID)");
    if (npos && a.pid) return hp_usage_error(&top_desc, "-p PID and a PROGRAM exclude each other");
    if (a.pid && (a.child_out || a.output || a.mode_text || a.samples.n))
        return hp_usage_error(&top_desc, "--output-child, --output, --mode and --sample are for a PROGRAM top starts, not -p");
    if (!a.stdio && !hp_term_stdout_is_terminal())
        return fprintf(stderr, "hotprof top: standard output is not a terminal (use --stdio for plain snapshots)\n"), 1;
    if (npos && program_settings(&a)) return 2;
    if (npos) pos[npos] = NULL;
    return session(&a, pos, npos);
}
