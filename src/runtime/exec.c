/* exec.c — the exec family, interposed: before a process image is replaced, its profile gets the
 * counts recorded so far (hp_before_exec in init.c, through init.h, writes them as a group flagged FINAL|EXEC), then
 * libc's function runs. The new image, if instrumented, sees HOTPROF_CLAIMED equal to its own pid
 * and writes <output>.<pid> (docs/runtime.md, fork and exec), so neither image loses its counts.
 *
 * Interposed: execve, execv, execvp, execvpe, execl, execle, execlp, fexecve (the calls a program
 * makes itself; exec calls inside libc — posix_spawn, system, popen — happen in a new process and
 * need nothing). execv/execvp/execl* are expressed with libc's execve/execvpe, found with
 * dlsym(RTLD_NEXT) once at startup by this file's constructor (exec_resolve), because a child
 * of fork() in a multithreaded program — the usual caller of exec — must not call dlsym (it may
 * allocate). If dlsym finds nothing (a static program), execve is the system call and execvpe
 * searches PATH itself; fexecve fails with ENOSYS.
 *
 * State: libc's functions, file-static here. Layering: an ABI entry point like hooks.c; it calls
 * init only through init.h (hp_before_exec).
 *
 * Async-signal-safe once resolved (exec may be called from a signal handler or a fork child):
 * the wrappers use only the stack and system calls besides hp_before_exec, which does nothing in
 * a vfork child or a fork child that does not record.
 */
#define _GNU_SOURCE
#include "runtime/base.h"
#include "runtime/init.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

typedef int (*exec3_fn)(const char *, char *const[], char *const[]);
typedef int (*fexec_fn)(int, char *const[], char *const[]);

static exec3_fn g_execve, g_execvpe;
static fexec_fn g_fexecve;
static int g_resolved;

static HP_NOINST void exec_resolve(void);
/* At startup, while no fork child can be calling exec yet (a wrapper called earlier resolves
 * lazily). */
__attribute__((constructor(101))) static HP_NOINST void exec_constructor(void) { exec_resolve(); }

static HP_NOINST void exec_resolve(void)
{
    if (HP_LOAD_ACQ(&g_resolved)) return;
    g_execve = (exec3_fn)dlsym(RTLD_NEXT, "execve");
    g_execvpe = (exec3_fn)dlsym(RTLD_NEXT, "execvpe");
    g_fexecve = (fexec_fn)dlsym(RTLD_NEXT, "fexecve");
    HP_STORE_REL(&g_resolved, 1);
}

static HP_NOINST int sys_execve(const char *path, char *const argv[], char *const envp[])
{
    if (g_execve) return g_execve(path, argv, envp);
    return (int)syscall(SYS_execve, path, argv, envp);
}

/* execvpe without libc's: each PATH directory in turn (static programs only). */
static HP_NOINST int search_execvpe(const char *file, char *const argv[], char *const envp[])
{
    if (strchr(file, '/')) return sys_execve(file, argv, envp);
    const char *path = getenv("PATH");
    if (!path) path = "/bin:/usr/bin";
    char buf[4096];
    int err = ENOENT;
    size_t flen = strlen(file);
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        if (dlen + flen + 2 <= sizeof buf) {
            memcpy(buf, dlen ? p : ".", dlen ? dlen : 1);
            size_t n = dlen ? dlen : 1;
            buf[n++] = '/';
            memcpy(buf + n, file, flen + 1);
            sys_execve(buf, argv, envp);
            if (errno != ENOENT && errno != ENOTDIR) err = errno;
        }
        if (!colon) break;
        p = colon;
    }
    errno = err;
    return -1;
}

HP_API int execve(const char *path, char *const argv[], char *const envp[])
{
    exec_resolve();
    hp_before_exec();
    return sys_execve(path, argv, envp);
}

HP_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
    exec_resolve();
    hp_before_exec();
    return g_execvpe ? g_execvpe(file, argv, envp) : search_execvpe(file, argv, envp);
}

HP_API int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }
HP_API int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

HP_API int fexecve(int fd, char *const argv[], char *const envp[])
{
    exec_resolve();
    if (!g_fexecve) {
        errno = ENOSYS;
        return -1;
    }
    hp_before_exec();
    return g_fexecve(fd, argv, envp);
}

/* execl/execlp/execle: arg (never NULL: glibc declares it nonnull) and the variadic arguments up
 * to their NULL, into argv on the caller's stack (a VLA; no allocation). */
static HP_NOINST size_t count_args(va_list ap)
{
    size_t n = 1;
    while (va_arg(ap, const char *)) n++;
    return n;
}

static HP_NOINST void fill_args(char **argv, size_t n, const char *arg, va_list ap)
{
    argv[0] = (char *)arg;
    for (size_t i = 1; i < n; i++) argv[i] = va_arg(ap, char *);
    argv[n] = NULL;
}

HP_API int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(ap);
    va_end(ap);
    char *argv[n + 1];
    va_start(ap, arg);
    fill_args(argv, n, arg, ap);
    va_end(ap);
    return execve(path, argv, environ);
}

HP_API int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(ap);
    va_end(ap);
    char *argv[n + 1];
    va_start(ap, arg);
    fill_args(argv, n, arg, ap);
    va_end(ap);
    return execvpe(file, argv, environ);
}

HP_API int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(ap);
    va_end(ap);
    char *argv[n + 1];
    va_start(ap, arg);
    fill_args(argv, n, arg, ap);
    (void)va_arg(ap, char *); /* the NULL after the arguments */
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
