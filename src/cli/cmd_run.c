/* cmd_run.c — `hotprof run [options] -- PROG ARGS...`: runs a program built with `hotprof cc`
 * and tells its runtime where and how to profile through the environment:
 *   HOTPROF_OUTPUT (absolute path), HOTPROF_MODE, HOTPROF_SEED, HOTPROF_QUIET, HOTPROF_BURSTS, and in
 *   bursty mode HOTPROF_SAMPLE; with --record-trace HOTPROF_TRACE(_KIND, _LIMIT) (run_trace.c); HOTPROF_CLAIMED is removed so the program's runtime claims the
 *   output afresh.
 * Every setting is parsed once, here, with core/control/spec (the runtime's own grammar, so the
 * messages are the runtime's): --sample (repeatable) clauses into hp_bursty_params, and the
 * runtime gets them back as one canonical spec (hp_sample_params_format), exactly what was
 * validated; defaults come from spec.h. The program is started and waited for by run_child.c
 * (SIGTERM, SIGINT, SIGHUP forwarded to it).
 * HOTPROF_RUN_FD is a datagram socket the program inherits: it holds one token (the first image
 * to take it owns the output, others write <output>.<pid>) and brings back each image's "wrote"
 * or "error".
 * The program's exit status passes through (128+N when killed by signal N). A runtime that
 * reported an error (cannot open, locked by another run, disk full) makes the run exit 1 (or the
 * program's non-zero status). A program that
 * finished without writing a profile (not built with `hotprof cc`) is an error, and a profile
 * already in place from an earlier run is never deleted: "written" means the file changed.
 * The seed is random unless given, and printed, so a run can be repeated.
 */
#define _GNU_SOURCE
#include "cli/commands.h"
#include "cli/run_child.h"
#include "cli/sample_spec.h"
#include "core/control/pathval_spec.h"
#include "cli/run_trace.h"
#include "cli/run_lowsample.h"
#include "cli/run_timer.h"
#include "cli/run_shadow.h"
#include "core/control/spec.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const hp_command_desc run_desc = {
    "run", "[options] [--] PROGRAM [ARGS...]",
    "Run PROGRAM (built with 'hotprof cc', or unmodified with --mode timer) and write its profile.",
    "The program's exit status is passed through; if it is killed by signal N, hotprof exits\n"
    "with 128+N and keeps the profile it wrote up to then. If the program wrote no profile,\n"
    "hotprof says so and exits with 1 (or the program's non-zero status); so it does if a\n"
    "profile could not be written (the runtime says why). SIGTERM, SIGINT and SIGHUP sent to\n"
    "hotprof are passed on to the program, and hotprof waits for it.\n"
    "Bursty mode (HPS) samples each profile type in bursts: after every S calls and loop\n"
    "back-edges (period), B of them (burst) are recorded, so the frequency is B/(B+S); jitter J\n"
    "varies each period by up to J percent (default 50). TYPE is methods (or calls), callpairs, edges or\n"
    "datastream; types not named are off. --mode bursty alone samples methods and callpairs with\n"
    "period=1000,burst=1. Example: --sample methods:period=99,burst=1 --sample edges:period=5000,burst=10\n"
    "Subpaths (online subpath profiling, docs/osp.md): --sample subpath[:KEY=VALUE,...] (defaults:\n"
    "mem=64K, len=pow2, maxlen=32, enc=xor, minf=64, weight=count, list=counting, prefixes=on)\n"
    "samples hot block sequences: each thread skips a random number of blocks (mean f >= minf),\n"
    "records the next L blocks (len: pow2, uniform, any, pow2+3+5; L <= maxlen) into one hot-list\n"
    "of mem bytes (K, M), keyed by enc (xor or exact: rotations are one subpath); list: counting\n"
    "(a held subpath counts every sample; f grows as blocks/65536) or concise (the paper's:\n"
    "admitted at 1/tau, f grows with tau); prefixes=on: a sample also counts its shorter prefixes\n"
    "(off by default with len=any); weight: count, length or cost; skiponly=1 skips but never\n"
    "records. It may be combined with other types and needs a program built with --hooks=blocks.\n"
    "Subpaths use live hooks that count every skipped block (--bursts auto or live); --bursts patch\n"
    "(experimental: weights not calibrated yet, docs/osp.md) records one subpath per patched\n"
    "window, weighted by the blocks it stood for. On a --hooks=dual-blocks build they default to\n"
    "--bursts count: each call or back-edge triggers with probability 1/S and the blocks after it\n"
    "start one subpath each (unbiased, cheaper than live). With --mode exhaustive, --sample subpath\n"
    "counts every subpath of length 2^n <= maxlen exactly (the ground truth of 'hotprof compare');\n"
    "other types cannot be named then.\n"
    "Paths and values (docs/paths.md, docs/value-reports.md), exhaustive mode: --sample path[:maxlen=64]\n"
    "counts interprocedural paths (the blocks between two taken back-edges, across calls and returns,\n"
    "at most maxlen 2..1024 blocks; needs --hooks=blocks); --sample value:summary=tnv[,entries=50,\n"
    "clear=2000,sites=4096] keeps per compare/load instruction a TNV table of its values (entries\n"
    "2..64, lower half cleared every `clear` updates), value:summary=gm a Gibbons-Matias list of 16\n"
    "(needs --hooks=compares, memory or all).\n"
    "Example: hotprof run --sample path --sample value:summary=tnv -- ./prog\n"
    "Timer mode (--mode timer, docs/timer.md) profiles an UNMODIFIED dynamically linked program\n"
    "(no hotprof cc): libhotprof_rt.so is preloaded (LD_PRELOAD), every thread gets a CPU-time\n"
    "timer (--freq interrupts per CPU second, randomized intervals; --clock perf|posix|auto: a\n"
    "perf_event task-clock gives the full rate, a POSIX CPU timer at most the kernel tick, auto\n"
    "takes perf when perf_event_paranoid permits) whose interrupts record the pc\n"
    "and the stack (libunwind, --depth frames), and with --values L/K the next L instructions are\n"
    "interpreted at every K-th interrupt (--engine ool|tf|check, --debias N; docs/value-sampling.md).\n"
    "The program sees nothing of it on its stdout/stderr; the timer's signal (--signal, default\n"
    "RTMIN+5) moves elsewhere if the program installs a handler for it. A statically linked\n"
    "program is refused (exit 2). After the run hotprof prints the samples taken and the overhead.\n"
    "Example: hotprof run --mode timer --values 4/2 -- gzip -9 -k file\n"
    "Shadow mode (--mode shadow, docs/shadow.md) runs a 'hotprof cc' program at full speed with its\n"
    "hooks patched out; a CPU-time timer (every 5 ms of CPU; --shadow-signal, default RTMIN+6) forks\n"
    "copy-on-write shadows while fewer than --load are alive on average, each records --sample-size\n"
    "events (or --shadow-slice ms of its CPU, default 50, whichever comes first) exhaustively\n"
    "under a seccomp filter (its writes, renames, sends change nothing; a read\n"
    "from a pipe, socket or tty ends it) and writes OUTPUT.shadows/shadow.N; after the run they are\n"
    "merged into OUTPUT (INFO shadow.*). Shadows need a spare core. A program without hotprof's\n"
    "hooks is refused (exit 2). Example: hotprof run --mode shadow --load 0.5 --sample-size 1M -- ./prog\n"
    "Environment given to the program: HOTPROF_OUTPUT, HOTPROF_MODE, HOTPROF_SEED,\n"
    "HOTPROF_SAMPLE (bursty, or a subpath clause), HOTPROF_INTERVALS (interval profiles),\n"
    "HOTPROF_PATHVAL (path and value clauses),\n"
    "HOTPROF_BURSTS (with --bursts), HOTPROF_QUIET (with --quiet), HOTPROF_FOLLOW_FORK (with\n"
    "--follow-fork), in timer mode HOTPROF_TIMER and LD_PRELOAD (the runtime prepended), in shadow\n"
    "mode HOTPROF_SHADOW;\n"
    "HOTPROF_CLAIMED is removed.\n"};

/* A canonical spec: every type "name:period=N,burst=M,jitter=J", joined by ';'. */
#define SPEC_MAX (HP_BURSTY_NTYPES * 64 + 128)

typedef struct run_args {
    const char *output, *mode_text, *seed_text, *bursts_text; /* as given, NULL if not */
    hp_opt_list samples;
    int quiet;
    const char *mode, *bursts; /* canonical names (hp_spec_*_name); bursts NULL if not given */
    uint64_t seed;
    char sample_spec[SPEC_MAX]; /* HOTPROF_SAMPLE; "" unless bursty */
    char iv_spec[2 * 320];      /* HOTPROF_INTERVALS: the --sample clauses with summary= (docs/intervals.md) */
    char pv_spec[160];          /* HOTPROF_PATHVAL: the path and value:summary=tnv|gm clauses (docs/paths.md) */
    hp_run_trace trace;         /* --record-trace (run_trace.h) */
    hp_run_timer timer;         /* --mode timer's options and HOTPROF_TIMER (run_timer.h) */
    hp_run_shadow shadow;       /* --mode shadow's options and HOTPROF_SHADOW (run_shadow.h) */
    int shadow_mode;
    int follow_fork;            /* --follow-fork: HOTPROF_FOLLOW_FORK=1 */
    int timer_mode;
} run_args;

static void init_options(hp_option *opts, run_args *a)
{
    hp_option table[] = {
        {HP_OPT_STRING, 'o', "output", &a->output, "FILE", "write the profile to FILE (default " HP_SPEC_DEFAULT_OUTPUT ")"},
        {HP_OPT_STRING, 'm', "mode", &a->mode_text, "MODE", "exhaustive|bursty|timer|shadow|off (default exhaustive; bursty with --sample; timer: an unmodified program, docs/timer.md; shadow: exhaustive profiles taken in forked shadows, docs/shadow.md)"},
        {HP_OPT_LIST, 0, "sample", &a->samples, "TYPE:period=N,burst=M[,jitter=J]",
         "sample TYPE in bursty mode (repeatable; implies --mode bursty); TYPE subpath[:KEY=V,...] "
         "samples hot subpaths (keys below; with --mode exhaustive: exact counts); or "
         "STREAM:summary=multihash[,KEY=V...]: an interval profile of the value or edges stream (exhaustive, or bursty: sampled events) "
         "(keys tables, counters, bits, conservative, reset, retain, shield, interval, threshold, exact, "
         "budget, hash, variant=paper|rebalanced|half (default rebalanced); docs/intervals.md); or path[:maxlen=N] / "
         "value:summary=tnv|gm[,KEY=V...]: path and value profiles in exhaustive mode (docs/paths.md)"},
        {HP_OPT_STRING, 0, "bursts", &a->bursts_text, "HOW",
         "bursty mode: patch (hooks cost nothing between bursts: call sites or XRay sleds "
         "rewritten per burst; raw counts), live (HPS counters in every hook; estimates), "
         "count (two-version code, hotprof cc --hooks=dual-*: bursts triggered by a per-thread count of "
         "calls and loop back-edges kept by trampolines in the clean code; estimates), or "
         "auto (default: count for two-version code, else patch when possible)"},
        {HP_OPT_STRING, 0, "seed", &a->seed_text, "N", "seed of every random choice (default: random, printed)"},
        {HP_OPT_FLAG, 'q', "quiet", &a->quiet, NULL, "print nothing but errors (hotprof and its runtime)"},
        {HP_OPT_FLAG, 0, "follow-fork", &a->follow_fork, NULL,
         "a fork()ed child (without exec) is profiled too, into OUTPUT.<pid>"},
        {HP_OPT_STRING, 0, "load", &a->shadow.load, "X",
         "shadow mode: the average number of shadows alive to aim at, 0.0625..2 (default 0.25)"},
        {HP_OPT_STRING, 0, "sample-size", &a->shadow.sample_size, "N",
         "shadow mode: events (calls + blocks) each shadow records, suffix K, M or G (x1000...; default 10M)"},
        {HP_OPT_STRING, 0, "shadow-signal", &a->shadow.signal, "SIG",
         "shadow mode: the monitor's CPU-timer signal, a name or number: USR1, USR2, ALRM, VTALRM, PROF, RTMIN+N (default RTMIN+6)"},
        {HP_OPT_STRING, 0, "shadow-slice", &a->shadow.slice, "MS",
         "shadow mode: a shadow also ends after MS ms of its CPU time, so that shadows spread over the run (0..60000, 0: no limit; default 50)"},
        {HP_OPT_STRING, 0, "freq", &a->timer.freq, "HZ", "timer mode: interrupts per second of each thread's CPU time, 1..100000 (default 1000)"},
        {HP_OPT_STRING, 0, "values", &a->timer.values, "L/K",
         "timer mode: interpret L instructions (1..64) at every K-th interrupt (default: off; 4/2 is DCPI's)"},
        {HP_OPT_STRING, 0, "engine", &a->timer.engine, "E", "with --values: ool (out-of-line execution, default), tf (trap flag) or check (test-only: tf, each step compared with ool)"},
        {HP_OPT_STRING, 0, "debias", &a->timer.debias, "N", "with --values: step a random 0..N-1 instructions before capturing (0..64, default 0)"},
        {HP_OPT_STRING, 0, "signal", &a->timer.signal, "SIG",
         "timer mode: the timer's signal, a name or number: USR1, USR2, ALRM, VTALRM, PROF, RTMIN+N (default RTMIN+5)"},
        {HP_OPT_STRING, 0, "depth", &a->timer.depth, "N", "timer mode: stack frames kept per sample, 1..256 (default 64)"},
        {HP_OPT_STRING, 0, "module", &a->timer.module, "FILE.so",
         "with --values: a customization module (include/hotprof/module.h, docs/value-modules.md): what to capture, "
         "how one interpretation's values become (pc, value) pairs"},
        {HP_OPT_STRING, 0, "clock", &a->timer.clock, "C",
         "timer mode: the interrupt source: perf (perf_event task-clock: the full rate), posix (timer_create: "
         "at most the kernel tick, e.g. 250 per CPU second) or auto (default: perf if permitted, else posix)"},
        {HP_OPT_STRING, 0, "record-trace", &a->trace.file, "FILE",
         "also record an event trace into FILE for 'hotprof sim' (exhaustive mode; docs/trace.md)"},
        {HP_OPT_STRING, 0, "trace-kind", &a->trace.kind, "KIND",
         "values (compare operands, loaded values), edges or calls (default: edges if blocks are compiled in, else calls)"},
        {HP_OPT_UINT, 0, "trace-limit", &a->trace.limit, "N", "record at most N events (default 100000000; the trace says it was cut)"},
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    HP_OPTIONS_COPY(opts, table);
}

void cmd_run_usage(FILE *out)
{
    run_args a = {0};
    hp_option opts[HP_OPTIONS_MAX];
    init_options(opts, &a);
    hp_print_usage(out, &run_desc, opts);
}

static uint64_t random_seed(void)
{
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed) seed = 0;
        close(fd);
    }
    if (!seed) seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return seed;
}

/* The output as an absolute path, so a program that changes directory still writes it here. */
static char *absolute_output(const char *output)
{
    char *abs = NULL, cwd[4096];
    if (output[0] == '/') return strdup(output);
    if (!getcwd(cwd, sizeof cwd)) return strdup(output);
    return asprintf(&abs, "%s/%s", cwd, output) < 0 ? NULL : abs;
}

/* 0 if a file can be created or replaced at path; otherwise prints why and returns -1. */
static int check_writable(const char *path)
{
    char *dir = strdup(path);
    if (!dir) return -1;
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = 0;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* /dev/null, a directory: the runtime says */
        free(dir);
        return 0;
    }
    int ok = access(slash ? dir : ".", W_OK | X_OK) == 0 && (access(path, F_OK) != 0 || access(path, W_OK) == 0);
    if (!ok) fprintf(stderr, "hotprof: cannot write the profile %s: %s\n", path, strerror(errno));
    free(dir);
    return ok ? 0 : -1;
}

/* ---------------------------------------------------------------- settings (core/control/spec) */

/* Moves the interval clauses (STREAM:summary=...) out of --sample into a->iv_spec (canonical
 * form, core/control/spec.h). 0, or HP_PARSE_ERROR after the parser's message. */
static int split_interval_clauses(run_args *a)
{
    hp_iv_params iv[HP_IV_NSTREAMS];
    char err[256];
    int kept = 0;
    size_t len = 0;
    hp_iv_defaults(iv);
    for (int i = 0; i < a->samples.n; i++) {
        const char *clause = a->samples.items[i];
        if (!hp_iv_clause_is(clause, strlen(clause))) { a->samples.items[kept++] = clause; continue; }
        if (hp_iv_clause_parse(clause, strlen(clause), iv, err, sizeof err))
            return hp_usage_error(&run_desc, "option '--sample %s': %s", clause, err);
    }
    a->samples.n = kept;
    a->iv_spec[0] = 0;
    for (int s = 0; s < HP_IV_NSTREAMS; s++) {
        if (!iv[s].enabled) continue;
        if (len) a->iv_spec[len++] = ';';
        len += hp_iv_params_format(a->iv_spec + len, sizeof a->iv_spec - len, s, &iv[s]);
    }
    return 0;
}

/* Moves the path and value clauses (path[:...], value:summary=tnv|gm...) out of --sample into
 * a->pv_spec (canonical form, core/control/pathval_spec.h). 0, or HP_PARSE_ERROR after a message. */
static int split_pathval_clauses(run_args *a)
{
    hp_pv_params pv;
    char err[256];
    int kept = 0;
    hp_pv_defaults(&pv);
    for (int i = 0; i < a->samples.n; i++) {
        const char *clause = a->samples.items[i];
        if (!hp_pv_clause_is(clause, strlen(clause))) { a->samples.items[kept++] = clause; continue; }
        if (hp_pv_clause_parse(clause, strlen(clause), &pv, err, sizeof err))
            return hp_usage_error(&run_desc, "option '--sample %s': %s", clause, err);
    }
    a->samples.n = kept;
    hp_pv_format(a->pv_spec, sizeof a->pv_spec, &pv);
    return 0;
}

/* --mode (default: bursty with --sample, else exhaustive) and --bursts, checked together. */
static int resolve_mode(run_args *a)
{
    char err[256];
    int mode = a->samples.n ? HP_RUN_BURSTY : HP_RUN_EXHAUSTIVE, bursts;
    if (a->mode_text && hp_spec_mode(a->mode_text, &mode, err, sizeof err))
        return hp_usage_error(&run_desc, "option '--mode': %s", err);
    a->mode = hp_spec_mode_name(mode);
    a->timer_mode = mode == HP_RUN_TIMER;
    a->shadow_mode = mode == HP_RUN_SHADOW;
    if (a->samples.n && (mode == HP_RUN_OFF || mode == HP_RUN_TIMER || mode == HP_RUN_SHADOW))
        return hp_usage_error(&run_desc, "option '--sample' needs --mode bursty (or exhaustive for subpath), not '%s'",
                              a->mode);
    if (a->bursts_text && hp_spec_bursts(a->bursts_text, &bursts, err, sizeof err))
        return hp_usage_error(&run_desc, "option '--bursts': %s", err);
    if (a->bursts_text && mode != HP_RUN_BURSTY)
        return hp_usage_error(&run_desc, "option '--bursts' needs --mode bursty, not '%s'", a->mode);
    a->bursts = a->bursts_text ? hp_spec_bursts_name(bursts) : NULL;
    return 0;
}

/* Every setting, validated once. 0, or HP_PARSE_ERROR after a message. */
static int resolve_settings(run_args *a)
{
    char err[256];
    if (split_interval_clauses(a) || split_pathval_clauses(a) || resolve_mode(a) ||
        hp_run_timer_resolve(&run_desc, &a->timer, a->timer_mode) || hp_run_shadow_resolve(&run_desc, &a->shadow, a->shadow_mode))
        return HP_PARSE_ERROR;
    if (a->iv_spec[0] && strcmp(a->mode, hp_spec_mode_name(HP_RUN_EXHAUSTIVE)) != 0 && strcmp(a->mode, hp_spec_mode_name(HP_RUN_BURSTY)) != 0)
        return hp_usage_error(&run_desc, "interval profiles (--sample STREAM:summary=multihash) need --mode exhaustive or bursty, not '%s'", a->mode);
    int exhaustive = strcmp(a->mode, hp_spec_mode_name(HP_RUN_EXHAUSTIVE)) == 0;
    if (a->pv_spec[0] && !exhaustive && strcmp(a->mode, "shadow") != 0)
        return hp_usage_error(&run_desc, "path and value profiles (--sample path, --sample value:summary=tnv|gm) need --mode exhaustive (or shadow), not '%s'", a->mode);
    if (a->pv_spec[0] && (a->iv_spec[0] || a->trace.file))
        return hp_usage_error(&run_desc, "path and value profiles cannot be combined with %s", a->trace.file ? "--record-trace" : "interval profiles (STREAM:summary=multihash)");
    if (strcmp(a->mode, hp_spec_mode_name(HP_RUN_BURSTY)) == 0 || (exhaustive && a->samples.n)) {
        if (hp_cli_sample_spec(&run_desc, &a->samples, exhaustive, a->sample_spec, sizeof a->sample_spec))
            return HP_PARSE_ERROR;
    }
    if (a->seed_text && hp_spec_seed(a->seed_text, &a->seed, err, sizeof err))
        return hp_usage_error(&run_desc, "option '--seed': %s", err);
    if (!a->seed_text) a->seed = random_seed();
    if ((a->trace.kind || a->trace.limit != HP_RUN_TRACE_DEFAULT_LIMIT) && !a->trace.file)
        return hp_usage_error(&run_desc, "options '--trace-kind' and '--trace-limit' need --record-trace FILE");
    if (a->trace.file && strcmp(a->mode, hp_spec_mode_name(HP_RUN_EXHAUSTIVE)) != 0)
        return hp_usage_error(&run_desc, "option '--record-trace' needs --mode exhaustive, not '%s'", a->mode);
    return 0;
}

static int set_environment(const run_args *a, const char *output)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, a->seed);
    unsetenv("HOTPROF_CLAIMED");
    if (a->quiet) setenv("HOTPROF_QUIET", "1", 1);
    if (a->sample_spec[0] && setenv("HOTPROF_SAMPLE", a->sample_spec, 1)) return -1;
    if (!a->sample_spec[0]) unsetenv("HOTPROF_SAMPLE");
    if (a->iv_spec[0] ? setenv("HOTPROF_INTERVALS", a->iv_spec, 1) : unsetenv("HOTPROF_INTERVALS")) return -1;
    if (a->pv_spec[0] ? setenv("HOTPROF_PATHVAL", a->pv_spec, 1) : unsetenv("HOTPROF_PATHVAL")) return -1;
    if (a->bursts && setenv("HOTPROF_BURSTS", a->bursts, 1)) return -1;
    if (a->follow_fork && setenv("HOTPROF_FOLLOW_FORK", "1", 1)) return -1;
    if (!a->timer_mode) unsetenv("HOTPROF_TIMER");
    if (!a->shadow_mode) unsetenv("HOTPROF_SHADOW");
    return setenv("HOTPROF_OUTPUT", output, 1) | setenv("HOTPROF_MODE", a->mode, 1) | setenv("HOTPROF_SEED", seed, 1);
}

/* ---- what the program's runtime reports (HOTPROF_RUN_FD): every image's "wrote" or "error" */

#define MAX_REPORTED 8

typedef struct run_reports {
    int wrote, errors;                 /* images that wrote their profile / that failed to */
    char paths[MAX_REPORTED][4096];    /* the first profiles written */
} run_reports;

/* A datagram socket pair: [0] stays here, [1] goes to the program (HOTPROF_RUN_FD=<fd>:<inode>)
 * with one token in its queue: the first image to take it owns the output, the others write
 * <output>.<pid>. -1 if it cannot be made (the runtime then works as without hotprof run). */
static int run_channel_open(int sv[2], int high)
{
    struct stat st;
    char env[64];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    if (high) { /* timer mode: out of the unmodified program's way (docs/timer.md) */
        int fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 1000);
        if (fd >= 0) close(sv[1]), sv[1] = fd;
    }
    if (send(sv[0], "claim", 5, 0) != 5 || fstat(sv[1], &st) != 0) {
        close(sv[0]), close(sv[1]);
        return -1;
    }
    snprintf(env, sizeof env, "%d:%llu", sv[1], (unsigned long long)st.st_ino);
    return setenv("HOTPROF_RUN_FD", env, 1);
}

/* After the program ended: the reports that arrived (a descendant still running may add more
 * later; they are not waited for). */
static void run_channel_collect(int fd, run_reports *rep)
{
    char msg[4600];
    ssize_t n;
    while ((n = recv(fd, msg, sizeof msg - 1, MSG_DONTWAIT)) > 0) {
        msg[n] = 0;
        char *path = strchr(msg, ' ');
        path = path ? strchr(path + 1, ' ') : NULL;
        if (strncmp(msg, "error ", 6) == 0) rep->errors++;
        if (strncmp(msg, "wrote ", 6) == 0 && path) {
            if (rep->wrote < MAX_REPORTED) snprintf(rep->paths[rep->wrote], sizeof rep->paths[0], "%s", path + 1);
            rep->wrote++;
        }
    }
}

/* Runs argv through run_child.c with the report channel: the program's wait status in *status,
 * what its runtime reported in *rep; or an errno from fork/exec. */
static int run_program(char **argv, int *status, run_reports *rep, int timer_mode)
{
    int sv[2] = {-1, -1};
    if (run_channel_open(sv, timer_mode) != 0) unsetenv("HOTPROF_RUN_FD");
    int err = hp_run_child(argv, status, sv[1]);
    if (sv[0] >= 0) {
        close(sv[1]);
        run_channel_collect(sv[0], rep);
        close(sv[0]);
    }
    return err;
}

/* ---------------------------------------------------------------- the outcome */

typedef struct file_stamp { int exists; dev_t dev; ino_t ino; off_t size; struct timespec mtime; } file_stamp;

static file_stamp stamp_of(const char *path)
{
    struct stat st;
    file_stamp s = {0};
    if (stat(path, &st) == 0) s = (file_stamp){1, st.st_dev, st.st_ino, st.st_size, st.st_mtim};
    return s;
}

static int profile_written(const file_stamp *before, const char *path)
{
    file_stamp after = stamp_of(path);
    if (!after.exists) return 0;
    if (!before->exists) return 1;
    return after.dev != before->dev || after.ino != before->ino || after.size != before->size ||
           after.mtime.tv_sec != before->mtime.tv_sec || after.mtime.tv_nsec != before->mtime.tv_nsec;
}

/* The outcome: the program's status, unless a profile could not be written (the runtime said
 * why): then 1 (or the program's non-zero status). */
static int finish(const run_args *a, char *program, int status, int written, const char *output,
                  const run_reports *rep)
{
    written |= rep->wrote > 0;
    if (rep->wrote > 1 && !a->quiet) {
        fprintf(stderr, "hotprof: %d profiles (one per instrumented process image):", rep->wrote);
        for (int i = 0; i < rep->wrote && i < MAX_REPORTED; i++) fprintf(stderr, " %s", rep->paths[i]);
        fprintf(stderr, "%s\n", rep->wrote > MAX_REPORTED ? " ..." : "");
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = sigabbrev_np(sig);
        fprintf(stderr, "hotprof: program killed by signal %d (SIG%s); %s %s\n", sig, abbrev ? abbrev : "?",
                written ? "profile kept in" : "no profile written to", output);
        return 128 + sig;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (rep->errors) {
        fprintf(stderr, "hotprof: '%s' ran, but %s profile could not be written (see the message above)\n", program,
                rep->errors + rep->wrote > 1 ? "a" : "its");
        return code ? code : 1;
    }
    if (!written && a->timer_mode) {
        fprintf(stderr, "hotprof: '%s' finished but wrote no profile to %s: the preloaded runtime did not start "
                "(a setuid program, or LD_PRELOAD cleared by the program)\n", program, output);
        return code ? code : 1;
    }
    if (!written && a->bursts && strcmp(a->bursts, "count") == 0) { /* the runtime refused (init.c count_probe) */
        fprintf(stderr, "hotprof: '%s' wrote no profile to %s: --bursts count needs a program built with "
                "'hotprof cc --hooks=dual-functions|dual-blocks|dual-memory'\n", program, output);
        return code ? code : 1;
    }
    if (!written && strcmp(a->mode, "off") != 0) {
        fprintf(stderr, "hotprof: '%s' finished but wrote no profile to %s: it was not built with hotprof's hooks\n"
                "hint: rebuild it with 'hotprof cc' (for example: make CC=\"hotprof cc\" CXX=\"hotprof c++\")\n",
                program, output);
        return code ? code : 1;
    }
    return code;
}

static int run_with(run_args *a, char **pos, int npos);

int cmd_run(int argc, char **argv)
{
    run_args a = {.output = HP_SPEC_DEFAULT_OUTPUT, .trace.limit = HP_RUN_TRACE_DEFAULT_LIMIT};
    hp_option opts[HP_OPTIONS_MAX];
    char **pos;
    int npos;
    init_options(opts, &a);
    int rc = hp_parse_options(&run_desc, opts, argc, argv, HP_PARSE_STOP_AT_POSITIONAL, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (!npos) return hp_usage_error(&run_desc, "no program to run (hotprof run -- PROGRAM ARGS...)");
    if (resolve_settings(&a)) return 2;
    return run_with(&a, pos, npos);
}

static int run_with(run_args *a, char **pos, int npos)
{
    int rc, status = 0;
    if (!a->quiet) fprintf(stderr, "hotprof: seed %" PRIu64 "\n", a->seed);
    if (!a->quiet && a->sample_spec[0])
        fprintf(stderr, "hotprof: %s %s\n", strcmp(a->mode, "bursty") == 0 ? "bursty sampling" : "exact", a->sample_spec);
    char *output = absolute_output(a->output);
    if (!output || set_environment(a, output)) {
        fprintf(stderr, "hotprof: out of memory\n");
        free(output);
        return 1;
    }
    if (check_writable(output)) {
        free(output);
        return 1;
    }
    int usage = 0;
    unsetenv("HOTPROF_TRACE");
    if (a->trace.file && hp_run_trace_prepare(&a->trace, &usage)) {
        free(output);
        return usage ? 2 : 1;
    }
    if (a->timer_mode && (rc = hp_run_timer_prepare(&a->timer, pos[0])) != 0) {
        free(output);
        return rc;
    }
    if (a->shadow_mode && (rc = hp_run_shadow_prepare(&a->shadow, pos[0], output)) != 0) {
        free(output);
        return rc;
    }
    file_stamp before = stamp_of(output);
    pos[npos] = NULL;
    run_reports rep = {0};
    int err = run_program(pos, &status, &rep, a->timer_mode);
    if (err) {
        fprintf(stderr, "hotprof: cannot run '%s': %s\n", pos[0], strerror(err));
        if (a->trace.file) unlink(a->trace.raw);
        free(output);
        return err == ENOENT ? 127 : 126;
    }
    int written = profile_written(&before, output);
    rc = finish(a, pos[0], status, written, a->output, &rep);
    if (a->timer_mode && written && !a->quiet) hp_run_timer_summary(output);
    if (!a->timer_mode && written && !a->quiet) hp_run_low_sample_note(output);
    if (a->shadow_mode && written && hp_run_shadow_finish(output, a->quiet) && !rc) rc = 1;
    if (a->trace.file && hp_run_trace_finish(&a->trace, pos[0], a->quiet) && !rc) rc = 1;
    free(output);
    return rc;
}
