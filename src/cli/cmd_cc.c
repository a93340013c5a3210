/* cmd_cc.c — `hotprof cc` and `hotprof c++`: a compiler wrapper usable as CC="hotprof cc".
 *
 * It passes the user's arguments through unchanged, adds the compile flags of one hook set
 * (cc_hooksets.c), adds -gline-tables-only when the user gave no -g (so reports have file:line),
 * and on link steps of executables links the static runtime libhotprof_rt.a with its hooks
 * exported, so shared libraries built with `hotprof cc -shared` (which are linked without a
 * runtime) bind to the one runtime in the program. Wrapper options start with --hooks=,
 * --calls=, --compiler=, --print-command and may stand anywhere; they are removed before the
 * compiler sees the arguments; so are --dual-sites=, --dual-return-sites= and --dual-latch= (dual-*
 * sets; the last assembles through cmd_as.c). Environment: HOTPROF_HOOKS, HOTPROF_DUAL_SITES,
 * HOTPROF_DUAL_LATCH, HOTPROF_COMPILER, HOTPROF_LIBDIR.
 * Static links (-static, -static-pie) with clang and sanitizer coverage add
 * -fno-sanitize-link-runtime: clang would otherwise link its UBSan runtime (for default coverage
 * callbacks hotprof's runtime provides anyway), whose start-up crashes in a static program.
 */
#include "cli/cc_hooksets.h"
#include "cli/find_program.h"
#include "cli/commands.h"
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cc_options {
    const hp_hookset *hooks;
    int calls_source;   /* 1: -finstrument-functions (inlined calls too) */
    const char *compiler;
    int print_command;
    int cplusplus;
    int count_sites;    /* --dual-sites=count: inline count sites (docs/dual.md); -1 until given or defaulted (default_count_sites) */
    int sites_env;      /* HOTPROF_DUAL_SITES: -1 unset, else 0 (nop) or 1 (count); ignored by non-dual sets */
    int return_sites;   /* --dual-return-sites=on: a site after each call (docs/dual.md) */
    int latch_branch;   /* --dual-latch=branch (default): the latch's own branch is switched (cmd_as.c) */
    int latch_given;    /* ... given as an option (HOTPROF_DUAL_LATCH is a default: ignored where it does not apply) */
} cc_options;

typedef struct cc_args_shape {
    int compile_only; /* -c, -S, -E, -M, -MM, -fsyntax-only: no link */
    int shared;       /* -shared: build a DSO, no runtime linked */
    int has_input;    /* at least one non-option argument */
    int has_debug;    /* -g... given */
    int is_static;    /* -static or -static-pie */
    int sanitize;     /* the user's own -fsanitize=... (a sanitizer runtime is theirs to link) */
} cc_args_shape;

static void cc_usage(FILE *out, int cplusplus)
{
    fprintf(out,
            "usage: hotprof %s [--hooks=SET] [--calls=optimized|source] [--compiler=PATH]\n"
            "                  [--dual-sites=nop|count] [--dual-return-sites=off|on] [--dual-latch=site|branch]\n"
            "                  [--print-command]\n"
            "                  COMPILER-ARGS...\n"
            "Compiles and links like the compiler, adding hotprof's hooks and runtime.\n"
            "Use as CC=\"hotprof cc\" make. Hook sets (default %s, or $HOTPROF_HOOKS):\n",
            cplusplus ? "c++" : "cc", hp_hookset_default);
    for (const hp_hookset *h = hp_hooksets; h->name; h++) fprintf(out, "  %-14s %s\n", h->name, h->about);
    fprintf(out, "--calls=optimized (default) hooks the calls the optimized program makes;\n"
                 "--calls=source also counts calls the compiler inlined (gcc always does this).\n"
                 "The compiler is clang%s when found, else gcc%s ($HOTPROF_COMPILER overrides).\n"
                 "dual-* sets need clang 14 and the pass plugin hotprof_dual.so next to the runtime\n"
                 "(built by 'make' when llvm-14-dev is installed; see docs/dual.md). Its options, as\n"
                 "-mllvm OPTION: -hotprof-dual-latch-sites=all|outer|none, -hotprof-dual-loops=inline|osr|entry,\n"
                 "-hotprof-dual-loop-recompute=on|off, -hotprof-dual-loop-leave=on|off,\n"
                 "-hotprof-dual-entry=clone|inline, -hotprof-dual-clone-opt=size|speed,\n"
                 "-hotprof-dual-functions-form=wrapper|clone (dual-functions: no copy of the code, or a copy),\n"
                 "-hotprof-dual-indirect=auto|clone|separate|single (functions with computed goto;\n"
                 "auto: separate under dual-functions, else clone),\n"
                 "-hotprof-dual-indirect-rejoin=copy|clean (clone: a finished burst goes on in a\n"
                 "third copy, or in the clean one), -hotprof-dual-rejoin-all=off|on (that third\n"
                 "copy for every function), -hotprof-dual-peel-max=N (the top form copies only\n"
                 "one-block loops of at most N instructions; default: every one),\n"
                 "-hotprof-dual-hook-cc=auto|c|preserve-most (defaults first).\n"
                 "--dual-sites=count compiles count mode's decrement-and-branch into the entries and\n"
                 "loop latches of dual-* sets (runs with --bursts count, the default, live and\n"
                 "exhaustive; not patched bursts); nop gives them patchable nops, which count mode\n"
                 "fills in and --bursts patch switches. Default: nop with --dual-latch=branch, else\n"
                 "$HOTPROF_DUAL_SITES, else count for dual-functions and dual-blocks, nop for\n"
                 "dual-memory and dual-all.\n"
                 "--dual-return-sites=on puts a site after each call in the clean copies (count mode's\n"
                 "subpaths then see a burst's blocks after it returns into a clean caller).\n"
                 "--dual-latch=branch switches each loop latch's own branch between the latch site and\n"
                 "the code after it, so a switched-off back-edge runs neither the site's nop nor its jmp\n"
                 "(clang then assembles through hotprof's assembler front, -fno-integrated-as;\n"
                 "docs/dual.md). Default branch, or $HOTPROF_DUAL_LATCH (ignored by builds it does not\n"
                 "apply to: other hook sets, count sites); --dual-latch=site keeps the site's nop and jmp\n"
                 "on every back-edge and assembles with clang's own assembler.\n",
            cplusplus ? "++" : "", cplusplus ? "/g++" : "");
}

/* Options that take their value as the next argument (so that value is not an input file). */
static int takes_separate_value(const char *a)
{
    static const char *const opts[] = {"-o", "-I", "-D", "-U", "-L", "-l", "-x", "-include", "-imacros",
                                       "-isystem", "-idirafter", "-iquote", "-MF", "-MT", "-MQ",
                                       "-Xlinker", "-Xclang", "-Xassembler", "-Xpreprocessor", "-target",
                                       "--target", "-arch", "-T", "-u", "-z", NULL};
    for (int i = 0; opts[i]; i++)
        if (strcmp(a, opts[i]) == 0) return 1;
    return 0;
}

static cc_args_shape classify(int argc, char **argv)
{
    cc_args_shape s = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
            !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
            s.compile_only = 1;
        else if (!strcmp(a, "-shared"))
            s.shared = 1;
        else if (!strncmp(a, "-g", 2) && strcmp(a, "-g0") != 0)
            s.has_debug = 1;
        else if (!strcmp(a, "-static") || !strcmp(a, "-static-pie"))
            s.is_static = 1;
        else if (!strncmp(a, "-fsanitize=", 11))
            s.sanitize = 1;
        else if (takes_separate_value(a))
            i++;
        else if (a[0] != '-' || !strcmp(a, "-"))
            s.has_input = 1;
    }
    return s;
}

/* "nop" or "count" (--dual-sites=, HOTPROF_DUAL_SITES): *count_sites set; -1 for anything else. */
static int parse_dual_sites(const char *v, int *count_sites)
{
    if (strcmp(v, "nop") && strcmp(v, "count")) return -1;
    *count_sites = !strcmp(v, "count");
    return 0;
}

/* "site" or "branch" (--dual-latch=, HOTPROF_DUAL_LATCH): *branch set; -1 for anything else. */
static int parse_dual_latch(const char *v, int *branch)
{
    if (strcmp(v, "site") && strcmp(v, "branch")) return -1;
    *branch = !strcmp(v, "branch");
    return 0;
}

static int wrapper_option(const char *a, cc_options *o, const char **err)
{
    if (!strncmp(a, "--hooks=", 8)) {
        o->hooks = hp_hookset_find(a + 8);
        if (!o->hooks) *err = "unknown hook set";
        return 1;
    }
    if (!strcmp(a, "--calls=optimized")) return o->calls_source = 0, 1;
    if (!strcmp(a, "--calls=source")) return o->calls_source = 1, 1;
    if (!strncmp(a, "--calls=", 8)) return *err = "--calls takes optimized or source", 1;
    if (!strncmp(a, "--compiler=", 11)) return o->compiler = a + 11, 1;
    if (!strncmp(a, "--dual-sites=", 13)) {
        if (parse_dual_sites(a + 13, &o->count_sites)) *err = "--dual-sites takes nop or count";
        return 1;
    }
    if (!strncmp(a, "--dual-latch=", 13)) {
        if (parse_dual_latch(a + 13, &o->latch_branch)) *err = "--dual-latch takes site or branch";
        o->latch_given = 1;
        return 1;
    }
    if (!strcmp(a, "--dual-return-sites=on")) return o->return_sites = 1, 1;
    if (!strcmp(a, "--dual-return-sites=off")) return o->return_sites = 0, 1;
    if (!strncmp(a, "--dual-return-sites=", 20)) return *err = "--dual-return-sites takes off or on", 1;
    if (!strcmp(a, "--print-command")) return o->print_command = 1, 1;
    return 0;
}

/* The sites a dual-* build gets without --dual-sites: nop sites when --dual-latch=branch is given
 * (it switches nops), else HOTPROF_DUAL_SITES, else count sites for dual-functions and dual-blocks
 * (session 39: count mode, the default bursts, costs less with them; docs/dual.md *Which sites by
 * default*) and nop sites for dual-memory and dual-all (not measured there; shadow profiling's
 * paths differed with count sites). */
static int default_count_sites(const cc_options *o, int dual)
{
    if (!dual || (o->latch_given && o->latch_branch)) return 0;
    if (o->sites_env >= 0) return o->sites_env;
    return !strcmp(o->hooks->name, "dual-functions") || !strcmp(o->hooks->name, "dual-blocks");
}

static int on_path(const char *prog)
{
    char path[PATH_MAX];
    return hp_find_program(prog, NULL, path, sizeof path) == 0;
}

static const char *choose_compiler(const cc_options *o)
{
    if (o->compiler) return o->compiler;
    const char *env = getenv("HOTPROF_COMPILER");
    if (env && *env) return env;
    const char *clang = o->cplusplus ? "clang++" : "clang";
    if (on_path(clang)) return clang;
    return o->cplusplus ? "g++" : "gcc";
}

static int is_clang(const char *compiler)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", compiler);
    return strstr(basename(copy), "clang") != NULL;
}

/* Directory holding libhotprof_rt.a: $HOTPROF_LIBDIR, else <dir of this executable>/../lib. */
static int runtime_libdir(char *out, size_t cap)
{
    const char *env = getenv("HOTPROF_LIBDIR");
    if (env && *env) return snprintf(out, cap, "%s", env) < (int)cap ? 0 : -1;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    return snprintf(out, cap, "%s/../lib", dirname(exe)) < (int)cap ? 0 : -1;
}

typedef struct argv_builder { char **v; int n, cap; } argv_builder;

static void push(argv_builder *b, const char *s)
{
    if (b->n + 1 >= b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->v = realloc(b->v, (size_t)b->cap * sizeof *b->v);
        if (!b->v) { perror("hotprof cc"); exit(2); }
    }
    b->v[b->n++] = (char *)s;
    b->v[b->n] = NULL;
}

/* "@dual:LEVEL": load the two-version plugin (plugin/hotprof_dual.cpp) for the new pass manager
 * (-fpass-plugin) and as a plain plugin (-load: its -hotprof-dual option must exist when -mllvm
 * options are parsed). */
static int dual_flags(argv_builder *b, const cc_options *o, const char *level)
{
    static char plugin[PATH_MAX + 16], opt[64];
    char dir[PATH_MAX];
    if (o->calls_source) {
        fprintf(stderr, "hotprof cc: --hooks=%s hooks the optimized program's calls only; drop --calls=source\n",
                o->hooks->name);
        return -1;
    }
    if (runtime_libdir(dir, sizeof dir) != 0 ||
        snprintf(plugin, sizeof plugin, "%s/hotprof_dual.so", dir) >= (int)sizeof plugin || access(plugin, R_OK) != 0) {
        fprintf(stderr, "hotprof cc: --hooks=%s needs the LLVM pass plugin hotprof_dual.so (looked in %s);\n"
                        "  install llvm-14-dev (scripts/setup.sh) and run 'make', or set HOTPROF_LIBDIR\n",
                o->hooks->name, dir);
        return -1;
    }
    static char pass[PATH_MAX + 32];
    snprintf(pass, sizeof pass, "-fpass-plugin=%s", plugin);
    snprintf(opt, sizeof opt, "-hotprof-dual=%s", level);
    const char *flags[] = {pass, "-Xclang", "-load", "-Xclang", plugin, "-mllvm", opt, NULL};
    for (int i = 0; flags[i]; i++) push(b, flags[i]);
    if (o->count_sites) push(b, "-mllvm"), push(b, "-hotprof-dual-site=count");
    if (o->return_sites) push(b, "-mllvm"), push(b, "-hotprof-dual-return-sites=on");
    if (o->latch_branch) {
        static char front[PATH_MAX + 16], as[PATH_MAX + 16];
        snprintf(front, sizeof front, "-B%s/hotprof-as/", dir);
        snprintf(as, sizeof as, "%s/hotprof-as/as", dir);
        if (access(as, X_OK) != 0) {
            fprintf(stderr, "hotprof cc: --dual-latch=branch (the default) needs the assembler front %s; run 'make', "
                            "or build with --dual-latch=site\n", as);
            return -1;
        }
        /* (GNU as >= 2.36: LLVM then keeps a comdat function's __patchable_function_entries in its
         * group, as with its own assembler; latch_asm.c puts that line's fields in gas's order) */
        push(b, "-fno-integrated-as"), push(b, "-fbinutils-version=2.36"), push(b, front);
    }
    return 0;
}

/* LLVM 14's instruction-referencing LiveDebugValues crashes on some functions built with
 * -hotprof-dual-site-exits=dedicated and -g (QuickJS __JS_EvalInternal, "Live DEBUG_VALUE
 * analysis"): such builds (and =kept ones, whose exit blocks are the same) track variable
 * locations the classic way. */
static void site_exits_workaround(argv_builder *b, int nuser, char **user)
{
    for (int i = 0; i + 1 < nuser; i++)
        if (!strcmp(user[i], "-mllvm") && (!strcmp(user[i + 1], "-hotprof-dual-site-exits=dedicated") ||
                                           !strcmp(user[i + 1], "-hotprof-dual-site-exits=kept"))) {
            push(b, "-mllvm"), push(b, "-experimental-debug-variable-locations=false");
            return;
        }
}

static int add_hook_flags(argv_builder *b, const cc_options *o, const char *compiler)
{
    if (!is_clang(compiler)) {
        if (!o->hooks->gcc_flags[0]) {
            fprintf(stderr,
                    "hotprof cc: %s cannot build hook set '%s': gcc lacks %s.\n"
                    "  Install clang (apt-get install clang), or use --hooks=functions with gcc.\n",
                    compiler, o->hooks->name, o->hooks->gcc_lacks);
            return -1;
        }
        for (int i = 0; o->hooks->gcc_flags[i]; i++) push(b, o->hooks->gcc_flags[i]);
        return 0;
    }
    for (int i = 0; o->hooks->clang_flags[i]; i++) {
        const char *f = o->hooks->clang_flags[i];
        if (!strcmp(f, "@calls"))
            f = o->calls_source ? "-finstrument-functions" : "-finstrument-functions-after-inlining";
        if (!strncmp(f, "@dual:", 6)) {
            if (dual_flags(b, o, f + 6) != 0) return -1;
            continue;
        }
        push(b, f);
    }
    return 0;
}

/* 1 if the hook set compiles in sanitizer coverage with clang (clang then links a UBSan runtime). */
static int uses_sancov(const hp_hookset *h)
{
    for (int i = 0; h->clang_flags[i]; i++)
        if (!strncmp(h->clang_flags[i], "-fsanitize-coverage", 19)) return 1;
    return 0;
}

/* A static link must not pull in clang's sanitizer runtime (it crashes at start, see the top). */
static void add_static_flags(argv_builder *b, const cc_options *o, const char *compiler, const cc_args_shape *s)
{
    if (s->is_static && !s->sanitize && is_clang(compiler) && uses_sancov(o->hooks))
        push(b, "-fno-sanitize-link-runtime");
}

static int add_runtime(argv_builder *b, const cc_options *o, char *archive, size_t cap)
{
    char dir[PATH_MAX];
    if (runtime_libdir(dir, sizeof dir) != 0 ||
        snprintf(archive, cap, "%s/libhotprof_rt.a", dir) >= (int)cap || access(archive, R_OK) != 0) {
        fprintf(stderr, "hotprof cc: cannot find the runtime libhotprof_rt.a (looked in %s);\n"
                        "  build it with 'make', or set HOTPROF_LIBDIR\n", dir);
        return -1;
    }
    push(b, "-Wl,--whole-archive");
    push(b, archive);
    push(b, "-Wl,--no-whole-archive");
    push(b, "-Wl,--export-dynamic-symbol=__cyg_profile_func_*");
    push(b, "-Wl,--export-dynamic-symbol=__sanitizer_cov_*");
    push(b, "-lpthread");
    push(b, "-ldl");
    push(b, "-lm");
    for (int i = 0; o->hooks->link_flags[i]; i++) push(b, o->hooks->link_flags[i]);
    return 0;
}

/* --hooks=xray is retired (issue 14, docs/fastpath.md "XRay mode's fate"): it still builds, for
 * comparisons, but every invocation says so once and points to dual-functions. */
static void xray_retired_note(void)
{
    fprintf(stderr, "hotprof cc: --hooks=xray is retired: it records hot methods only, in time-driven bursts that "
                    "gave 1-30 samples per run on real programs; use --hooks=dual-functions (call pairs, loop "
                    "back-edges, native code between bursts; docs/fastpath.md). Building with XRay anyway.\n");
}

static int run_wrapper(int argc, char **argv, int cplusplus)
{
    /* the latch's branch as the site is the default where it applies (dual-* sets with nop sites) */
    cc_options o = {.cplusplus = cplusplus, .count_sites = -1, .sites_env = -1, .latch_branch = 1};
    const char *env_hooks = getenv("HOTPROF_HOOKS"), *env_sites = getenv("HOTPROF_DUAL_SITES");
    const char *env_latch = getenv("HOTPROF_DUAL_LATCH");
    if (env_latch && *env_latch && parse_dual_latch(env_latch, &o.latch_branch)) {
        fprintf(stderr, "hotprof cc: HOTPROF_DUAL_LATCH takes site or branch, not '%s'\n", env_latch);
        return 2;
    }
    if (env_sites && *env_sites && parse_dual_sites(env_sites, &o.sites_env)) {
        fprintf(stderr, "hotprof cc: HOTPROF_DUAL_SITES takes nop or count, not '%s'\n", env_sites);
        return 2;
    }
    o.hooks = hp_hookset_find(env_hooks && *env_hooks ? env_hooks : hp_hookset_default);
    if (!o.hooks) { fprintf(stderr, "hotprof cc: unknown hook set '%s' in HOTPROF_HOOKS\n", env_hooks); return 2; }
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) return cc_usage(stdout, cplusplus), 0;

    char **user = calloc((size_t)argc + 1, sizeof *user);
    int nuser = 0;
    if (!user) return perror("hotprof cc"), 2;
    for (int i = 1; i < argc; i++) {
        const char *err = NULL;
        if (wrapper_option(argv[i], &o, &err)) {
            if (err) { fprintf(stderr, "hotprof cc: %s: '%s' (see hotprof cc --help)\n", err, argv[i]); return 2; }
            continue;
        }
        user[nuser++] = argv[i];
    }
    int dual = !strncmp(o.hooks->name, "dual-", 5);
    if (o.count_sites == 1 && !dual) {
        fprintf(stderr, "hotprof cc: --dual-sites=count needs a dual-* hook set, not --hooks=%s\n", o.hooks->name);
        return 2;
    }
    if (o.count_sites < 0) o.count_sites = default_count_sites(&o, dual);
    int latch_applies = !o.count_sites && dual;
    if (o.latch_branch && !latch_applies && !o.latch_given) o.latch_branch = 0; /* (a default: ours or the environment's) */
    if (o.latch_branch && !latch_applies) {
        fprintf(stderr, "hotprof cc: --dual-latch=branch needs a dual-* hook set with nop sites, not --hooks=%s%s\n",
                o.hooks->name, o.count_sites ? " --dual-sites=count" : "");
        return 2;
    }
    if (o.return_sites && strncmp(o.hooks->name, "dual-", 5) != 0) {
        fprintf(stderr, "hotprof cc: --dual-return-sites=on needs a dual-* hook set, not --hooks=%s\n", o.hooks->name);
        return 2;
    }
    const char *compiler = choose_compiler(&o);
    if (!on_path(compiler)) {
        fprintf(stderr, "hotprof cc: cannot run compiler '%s': not found (set --compiler= or HOTPROF_COMPILER)\n",
                compiler);
        return 127;
    }
    cc_args_shape shape = classify(nuser, user);
    if (!strcmp(o.hooks->name, "xray") && !o.print_command) xray_retired_note();
    argv_builder b = {NULL, 0, 0};
    static char archive[PATH_MAX];
    push(&b, compiler);
    if (shape.has_input) {
        if (add_hook_flags(&b, &o, compiler) != 0) return 2;
        if (!shape.has_debug && is_clang(compiler)) push(&b, "-gline-tables-only");
    }
    for (int i = 0; i < nuser; i++) push(&b, user[i]);
    if (shape.has_input && !strncmp(o.hooks->name, "dual-", 5)) site_exits_workaround(&b, nuser, user);
    if (shape.has_input && !shape.compile_only && !shape.shared) {
        if (add_runtime(&b, &o, archive, sizeof archive) != 0) return 2;
        add_static_flags(&b, &o, compiler, &shape);
    }
    if (o.print_command) {
        for (int i = 0; i < b.n; i++) printf("%s%s", i ? " " : "", b.v[i]);
        printf("\n");
        return 0;
    }
    execvp(compiler, b.v);
    fprintf(stderr, "hotprof cc: cannot run compiler '%s': %s\n", compiler, strerror(errno));
    return 127;
}

int cmd_cc(int argc, char **argv) { return run_wrapper(argc, argv, 0); }
int cmd_cxx(int argc, char **argv) { return run_wrapper(argc, argv, 1); }
