/* cmd_run.c — `hotprof run [options] -- PROG ARGS...`: runs a program built with `hotprof cc`
 * and tells its runtime where and how to profile through the environment:
 *   HOTPROF_OUTPUT (absolute path), HOTPROF_MODE, HOTPROF_SEED, HOTPROF_QUIET, and in bursty mode
 *   HOTPROF_SAMPLE (the --sample clauses joined by ';', validated here with core/sampling's
 *   parser, the runtime's own; default methods and callpairs at period 1000, burst 1);
 *   HOTPROF_CLAIMED is removed so the program's runtime claims the output afresh; HOTPROF_RUN_FD
 *   is a datagram socket the program inherits: it holds one token (the first image to take it
 *   owns the output, others write <output>.<pid>) and brings back each image's "wrote" or "error".
 * --sample is repeatable, which the shared option parser does not do: its occurrences are taken
 * out of argv (up to the program's name or "--") before the parser sees the rest.
 * The program's exit status passes through (128+N when killed by signal N). A runtime that
 * reported an error (cannot open, locked by another run, disk full) makes the run exit 1 (or the
 * program's non-zero status). A program that
 * finished without writing a profile (not built with `hotprof cc`) is an error, and a profile
 * already in place from an earlier run is never deleted: "written" means the file changed.
 * The seed is random unless given, and printed, so a run can be repeated.
 */
#define _GNU_SOURCE
#include "cli/commands.h"
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
    "Run PROGRAM (built with 'hotprof cc') and write its profile.",
    "The program's exit status is passed through; if it is killed by signal N, hotprof exits\n"
    "with 128+N and keeps the profile it wrote up to then. If the program wrote no profile,\n"
    "hotprof says so and exits with 1 (or the program's non-zero status); so it does if a\n"
    "profile could not be written (the runtime says why).\n"
    "Bursty mode (HPS) samples each profile type in bursts: after every S calls and loop\n"
    "back-edges (period), B of them (burst) are recorded, so the frequency is B/(B+S); jitter J\n"
    "varies each period by up to J percent. TYPE is methods, callpairs, edges or datastream;\n"
    "types not named are off. --mode bursty alone samples methods and callpairs with\n"
    "period=1000,burst=1. Example: --sample methods:period=99,burst=1 --sample edges:period=5000,burst=10\n"
    "Environment given to the program: HOTPROF_OUTPUT, HOTPROF_MODE, HOTPROF_SEED,\n"
    "HOTPROF_SAMPLE (bursty), HOTPROF_BURSTS (with --bursts), HOTPROF_QUIET (with --quiet);\n"
    "HOTPROF_CLAIMED is removed.\n"};

#define MAX_SAMPLES 16
#define DEFAULT_SAMPLE "methods:period=1000,burst=1;callpairs:period=1000,burst=1"

typedef struct run_args {
    const char *output, *mode, *seed_text, *sample_help, *bursts;
    uint64_t seed;
    int quiet;
    const char *samples[MAX_SAMPLES];
    int nsamples;
    char *sample_spec; /* HOTPROF_SAMPLE, malloc'd; NULL unless bursty */
} run_args;

static void init_options(hp_option *opts, run_args *a)
{
    hp_option table[] = {
        {HP_OPT_STRING, 'o', "output", &a->output, "FILE", "write the profile to FILE (default " HP_DEFAULT_PROFILE ")"},
        {HP_OPT_STRING, 'm', "mode", &a->mode, "MODE", "exhaustive|bursty|off (default exhaustive; bursty with --sample)"},
        {HP_OPT_STRING, 0, "sample", &a->sample_help, "TYPE:period=N,burst=M[,jitter=J]",
         "sample TYPE in bursty mode (repeatable; implies --mode bursty)"},
        {HP_OPT_STRING, 0, "bursts", &a->bursts, "HOW",
         "bursty mode: patch (hooks cost nothing between bursts: call sites or XRay sleds\n"
         "rewritten per burst; raw counts), live (HPS counters in every hook; estimates), or\n"
         "auto (default: patch when possible)"},
        {HP_OPT_STRING, 0, "seed", &a->seed_text, "N", "seed of every random choice (default: random, printed)"},
        {HP_OPT_FLAG, 'q', "quiet", &a->quiet, NULL, "print nothing but errors (hotprof and its runtime)"},
        {HP_OPT_END, 0, NULL, NULL, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) opts[i] = table[i];
}

void cmd_run_usage(FILE *out)
{
    run_args a = {0};
    hp_option opts[10];
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

static int set_environment(const run_args *a, const char *output)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, a->seed);
    unsetenv("HOTPROF_CLAIMED");
    if (a->quiet) setenv("HOTPROF_QUIET", "1", 1);
    if (a->sample_spec && setenv("HOTPROF_SAMPLE", a->sample_spec, 1)) return -1;
    if (!a->sample_spec) unsetenv("HOTPROF_SAMPLE");
    if (a->bursts && setenv("HOTPROF_BURSTS", a->bursts, 1)) return -1;
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
static int run_channel_open(int sv[2])
{
    struct stat st;
    char env[64];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
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

/* Child: exec the program; on failure report errno through the close-on-exec pipe. */
static void exec_child(char **argv, int report_fd)
{
    const char *run_fd = getenv("HOTPROF_RUN_FD");
    if (run_fd) fcntl(atoi(run_fd), F_SETFD, 0); /* the program inherits it */
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execvp(argv[0], argv);
    int err = errno;
    if (write(report_fd, &err, sizeof err) < 0) _exit(127);
    _exit(127);
}

/* Starts argv; returns the child's wait status in *status and what its runtime reported in
 * *rep, or an errno from exec/fork. */
static int run_program(char **argv, int *status, run_reports *rep)
{
    int fds[2], sv[2] = {-1, -1}, err = 0;
    if (run_channel_open(sv) != 0) unsetenv("HOTPROF_RUN_FD");
    if (pipe2(fds, O_CLOEXEC) < 0) {
        err = errno;
        if (sv[0] >= 0) close(sv[0]), close(sv[1]);
        return err;
    }
    pid_t pid = fork();
    if (pid < 0) {
        err = errno;
        close(fds[0]), close(fds[1]);
        if (sv[0] >= 0) close(sv[0]), close(sv[1]);
        return err;
    }
    if (pid == 0) exec_child(argv, fds[1]);
    close(fds[1]);
    if (sv[1] >= 0) close(sv[1]);
    void (*old_int)(int) = signal(SIGINT, SIG_IGN), (*old_quit)(int) = signal(SIGQUIT, SIG_IGN);
    ssize_t got;
    while ((got = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR) {}
    if (got != (ssize_t)sizeof err) err = 0;
    close(fds[0]);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
    if (sv[0] >= 0) {
        run_channel_collect(sv[0], rep);
        close(sv[0]);
    }
    signal(SIGINT, old_int);
    signal(SIGQUIT, old_quit);
    return err;
}

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
    if (!written && strcmp(a->mode, "off") != 0) {
        fprintf(stderr, "hotprof: '%s' finished but wrote no profile to %s: it was not built with hotprof's hooks\n"
                "hint: rebuild it with 'hotprof cc' (for example: make CC=\"hotprof cc\" CXX=\"hotprof c++\")\n",
                program, output);
        return code ? code : 1;
    }
    return code;
}

/* 1 if option word w (exactly) takes its value from the next argument. */
static int takes_value(const char *w)
{
    static const char *const with_value[] = {"-o", "--output", "-m", "--mode", "--seed", "--bursts"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(w, with_value[i]) == 0) return 1;
    return 0;
}

/* Moves every "--sample X" / "--sample=X" before the program into a->samples and compacts argv
 * (the rest keeps its order). 0, or HP_PARSE_ERROR after a message. */
static int take_samples(run_args *a, int *argc, char **argv)
{
    int out = 1, i = 1;
    for (; i < *argc; i++) {
        const char *w = argv[i], *v = NULL;
        if (strcmp(w, "--") == 0 || w[0] != '-') break;
        if (strcmp(w, "--sample") == 0) {
            if (i + 1 >= *argc) return hp_usage_error(&run_desc, "option '--sample' needs a value");
            v = argv[++i];
        } else if (strncmp(w, "--sample=", 9) == 0) {
            v = w + 9;
        }
        if (!v) {
            argv[out++] = argv[i];
            if (takes_value(w) && i + 1 < *argc) argv[out++] = argv[++i];
            continue;
        }
        if (a->nsamples == MAX_SAMPLES) return hp_usage_error(&run_desc, "at most %d --sample options", MAX_SAMPLES);
        a->samples[a->nsamples++] = v;
    }
    while (i < *argc) argv[out++] = argv[i++];
    argv[out] = NULL;
    *argc = out;
    return 0;
}

/* Checks the mode against --sample and builds HOTPROF_SAMPLE. 0, or HP_PARSE_ERROR. */
static int resolve_sampling(run_args *a)
{
    hp_bursty_params p[HP_BURSTY_NTYPES];
    char err[256];
    if (!a->mode) a->mode = a->nsamples ? "bursty" : "exhaustive";
    if (strcmp(a->mode, "exhaustive") && strcmp(a->mode, "off") && strcmp(a->mode, "bursty"))
        return hp_usage_error(&run_desc, "unknown mode '%s' (exhaustive, bursty, off)", a->mode);
    if (a->nsamples && strcmp(a->mode, "bursty"))
        return hp_usage_error(&run_desc, "option '--sample' needs --mode bursty, not '%s'", a->mode);
    if (a->bursts && strcmp(a->bursts, "live") && strcmp(a->bursts, "patch") && strcmp(a->bursts, "auto"))
        return hp_usage_error(&run_desc, "option '--bursts %s': live, patch or auto", a->bursts);
    if (a->bursts && strcmp(a->mode, "bursty"))
        return hp_usage_error(&run_desc, "option '--bursts' needs --mode bursty, not '%s'", a->mode);
    if (strcmp(a->mode, "bursty")) return 0;
    size_t len = 1;
    for (int i = 0; i < a->nsamples; i++) {
        hp_sample_defaults(p);
        if (hp_sample_clause_parse(a->samples[i], strlen(a->samples[i]), p, err, sizeof err))
            return hp_usage_error(&run_desc, "option '--sample %s': %s", a->samples[i], err);
        len += strlen(a->samples[i]) + 1;
    }
    a->sample_spec = malloc(a->nsamples ? len : sizeof DEFAULT_SAMPLE);
    if (!a->sample_spec) return hp_usage_error(&run_desc, "out of memory");
    strcpy(a->sample_spec, a->nsamples ? "" : DEFAULT_SAMPLE);
    for (int i = 0; i < a->nsamples; i++) strcat(strcat(a->sample_spec, i ? ";" : ""), a->samples[i]);
    return 0;
}

static int run_with(run_args *a, char **pos, int npos);

int cmd_run(int argc, char **argv)
{
    run_args a = {HP_DEFAULT_PROFILE, NULL, NULL, NULL, NULL, 0, 0, {0}, 0, NULL};
    hp_option opts[10];
    char **pos;
    int npos;
    init_options(opts, &a);
    if (take_samples(&a, &argc, argv)) return 2;
    int rc = hp_parse_options(&run_desc, opts, argc, argv, HP_PARSE_STOP_AT_POSITIONAL, &pos, &npos);
    if (rc) return rc == HP_PARSE_HELP ? 0 : 2;
    if (!npos) return hp_usage_error(&run_desc, "no program to run (hotprof run -- PROGRAM ARGS...)");
    if (resolve_sampling(&a)) return 2;
    rc = run_with(&a, pos, npos);
    free(a.sample_spec);
    return rc;
}

static int run_with(run_args *a, char **pos, int npos)
{
    int rc, status = 0;
    if (a->seed_text && hp_parse_u64(a->seed_text, &a->seed))
        return hp_usage_error(&run_desc, "option '--seed' wants a non-negative number, not '%s'", a->seed_text);
    if (!a->seed_text) a->seed = random_seed();
    if (!a->quiet) fprintf(stderr, "hotprof: seed %" PRIu64 "\n", a->seed);
    if (!a->quiet && a->sample_spec) fprintf(stderr, "hotprof: bursty sampling %s\n", a->sample_spec);
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
    file_stamp before = stamp_of(output);
    pos[npos] = NULL;
    run_reports rep = {0};
    int err = run_program(pos, &status, &rep);
    if (err) {
        fprintf(stderr, "hotprof: cannot run '%s': %s\n", pos[0], strerror(err));
        free(output);
        return err == ENOENT ? 127 : 126;
    }
    rc = finish(a, pos[0], status, profile_written(&before, output), a->output, &rep);
    free(output);
    return rc;
}
