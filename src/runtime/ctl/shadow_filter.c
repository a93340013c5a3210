/* shadow_filter.c — the seccomp program of a shadow, built ONCE in the parent at init with
 * libseccomp (dlopen'ed: libseccomp.so.2, so that programs built with `hotprof cc` need no new
 * link flag; missing: shadow mode is unavailable, with one message), exported as BPF into a
 * memfd and read back into a static buffer, so that a shadow installs it with two prctl calls
 * and no allocation.
 *
 * The program: default SECCOMP_RET_TRAP (SIGSYS: shadow_sys.c decides); allowed without a trap:
 * rt_sigreturn (signal handlers return), restart_syscall, futex, gettid (the writer's lock), anonymous mmap
 * (fd == -1: table growth in hooks), write and pwrite64 on HP_SHADOW_PROFILE_FD (the profile),
 * and every call of hp_shadow_run_calls whose 6th argument register holds the cookie (the
 * handler's own calls; the program's never do: the cookie is random and page-aligned, and none
 * of those calls takes a 6th argument).
 * State: the BPF buffer and its length, file-static, written once at init.
 */
#define _GNU_SOURCE
#include "runtime/ctl/shadow_int.h"
#include <dlfcn.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BPF_MAX 4096
static struct sock_filter g_bpf[BPF_MAX];
static unsigned short g_bpf_len;

typedef struct seccomp_api {
    scmp_filter_ctx (*init)(uint32_t);
    int (*rule_add)(scmp_filter_ctx, uint32_t, int, unsigned int, ...);
    int (*export_bpf)(const scmp_filter_ctx, int);
    void (*release)(scmp_filter_ctx);
} seccomp_api;

static HP_NOINST int load_api(seccomp_api *api)
{
    void *h = dlopen("libseccomp.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    *(void **)&api->init = dlsym(h, "seccomp_init");
    *(void **)&api->rule_add = dlsym(h, "seccomp_rule_add");
    *(void **)&api->export_bpf = dlsym(h, "seccomp_export_bpf");
    *(void **)&api->release = dlsym(h, "seccomp_release");
    return api->init && api->rule_add && api->export_bpf && api->release ? 0 : -1;
}

/* One argument test (written out: libseccomp's SCMP_A* macros leave datum_b to the compiler). */
static HP_NOINST struct scmp_arg_cmp arg_cmp(unsigned arg, enum scmp_compare op, uint64_t a, uint64_t b)
{
    return (struct scmp_arg_cmp){.arg = arg, .op = op, .datum_a = a, .datum_b = b};
}

static HP_NOINST int add_rules(const seccomp_api *api, scmp_filter_ctx ctx, uint64_t cookie)
{
    int rc = 0;
    const int always[] = {SYS_rt_sigreturn, SYS_restart_syscall, SYS_futex, SYS_gettid};
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++) rc |= api->rule_add(ctx, SCMP_ACT_ALLOW, always[i], 0);
    rc |= api->rule_add(ctx, SCMP_ACT_ALLOW, SYS_mmap, 1, arg_cmp(4, SCMP_CMP_MASKED_EQ, 0xffffffffull, 0xffffffffull));
    rc |= api->rule_add(ctx, SCMP_ACT_ALLOW, SYS_write, 1, arg_cmp(0, SCMP_CMP_EQ, HP_SHADOW_PROFILE_FD, 0));
    rc |= api->rule_add(ctx, SCMP_ACT_ALLOW, SYS_pwrite64, 1, arg_cmp(0, SCMP_CMP_EQ, HP_SHADOW_PROFILE_FD, 0));
    size_t n;
    const int *run = hp_shadow_run_calls(&n);
    for (size_t i = 0; i < n; i++) rc |= api->rule_add(ctx, SCMP_ACT_ALLOW, run[i], 1, arg_cmp(5, SCMP_CMP_EQ, cookie, 0));
    return rc;
}

/* The BPF of ctx, through a memfd, into g_bpf. */
static HP_NOINST int export_program(const seccomp_api *api, scmp_filter_ctx ctx)
{
    int fd = (int)syscall(SYS_memfd_create, "hotprof-shadow-bpf", MFD_CLOEXEC);
    if (fd < 0) return -1;
    int rc = api->export_bpf(ctx, fd);
    ssize_t got = rc == 0 ? pread(fd, g_bpf, sizeof g_bpf, 0) : -1;
    close(fd);
    if (got <= 0 || got % (ssize_t)sizeof g_bpf[0] != 0 || (size_t)got >= sizeof g_bpf) return -1;
    g_bpf_len = (unsigned short)(got / (ssize_t)sizeof g_bpf[0]);
    return 0;
}

HP_NOINST int hp_shadow_filter_build(uint64_t cookie, char *err, size_t errlen)
{
    seccomp_api api;
    if (load_api(&api)) {
        snprintf(err, errlen, "shadow mode needs libseccomp.so.2 (Debian: libseccomp2), which cannot be loaded");
        return -1;
    }
    scmp_filter_ctx ctx = api.init(SCMP_ACT_TRAP);
    int rc = !ctx || add_rules(&api, ctx, cookie) || export_program(&api, ctx) ? -1 : 0;
    if (ctx) api.release(ctx);
    if (rc) snprintf(err, errlen, "shadow mode: cannot build the system-call filter with libseccomp");
    return rc;
}

HP_NOINST int hp_shadow_filter_install(void)
{
    struct sock_fprog prog = {.len = g_bpf_len, .filter = g_bpf};
    if (!g_bpf_len || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : -1;
}
