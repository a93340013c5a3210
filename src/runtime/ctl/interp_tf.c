/* interp_tf.c — the trap-flag engine and the check engine (engine=check, test-only).
 *
 * TF: hp_tf_begin (from the timer's handler) decodes the instruction at the interrupted pc,
 * remembers its pre-state (registers, memory operands' addresses; loads are captured now), and
 * sets TF in uc. The CPU executes one instruction and raises SIGTRAP (si_code TRAP_TRACE): our
 * handler captures the registers the instruction wrote and the values it stored, then prepares
 * the next instruction the same way, until L captured steps (after `skip` debias steps) or a stop;
 * then it clears TF. A SIGTRAP that is not ours (no stepping in progress on this thread, or
 * another si_code) goes to the handler the program had (or its default action). Instructions that
 * would expose TF (pushf, popf, syscall) stop the run before they execute. A program that installs
 * its own SIGTRAP action later (through the interposed sigaction/signal of timer_sig.c) does not
 * replace ours: hp_tf_program_sigaction keeps its action as the one traps not ours chain to, and
 * gives it back what it installed before (without it, TF would stay set under the program's handler
 * and every later instruction would trap).
 *
 * Check: the TF engine that, before each real step, executes the same instruction out of line on
 * a copy of the registers, saving and restoring the bytes it may write (every memory operand and
 * the 16 bytes below rsp that push and call write), and after the real step compares registers, rip,
 * arithmetic flags, xmm registers and the written bytes. Counts values.check.insns and
 * values.check.mismatch, and keeps the first HP_CHECK_KEEP mismatches (pc, what) for INFO.
 * File-static state: the program's previous SIGTRAP action; the check counters and first
 * mismatches (atomic adds / first-come slots).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "runtime/base.h"
#include "runtime/thread.h"
#include "runtime/ctl/interp_int.h"

/* libc's own sigaction, from timer_sig.c (weak: unit tests link this file without the timer). */
extern int hp_timer_real_sigaction(int signo, const struct sigaction *sa, struct sigaction *old) __attribute__((weak));

#define TF_BIT 0x100ull
#define FLAGS_CMP 0xcd5ull /* CF PF AF ZF SF DF OF */
#define HP_CHECK_KEEP 4

static struct {
    struct sigaction old;
    int installed;
    uint64_t insns, mismatch, nfirst;
    uint64_t first_pc[HP_CHECK_KEEP];
    uint32_t first_what[HP_CHECK_KEEP];
} tf;

static void on_trap(int sig, siginfo_t *si, void *ucv);

int hp_tf_install(char *err, size_t errlen)
{
    if (tf.installed) return 0; /* once: a second install would chain to ourselves */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&sa.sa_mask);
    sigdelset(&sa.sa_mask, SIGSEGV);
    sigdelset(&sa.sa_mask, SIGBUS);
    sigdelset(&sa.sa_mask, SIGILL);
    sigdelset(&sa.sa_mask, SIGFPE);
    if (sigaction(SIGTRAP, &sa, &tf.old) != 0) {
        snprintf(err, errlen, "value sampling: cannot install the SIGTRAP handler of the tf engine");
        return -1;
    }
    HP_STORE_REL(&tf.installed, 1);
    return 0;
}

int hp_tf_program_sigaction(int signo, const struct sigaction *sa, struct sigaction *old)
{
    if (signo != SIGTRAP || !HP_LOAD_ACQ(&tf.installed)) return 0;
    struct sigaction prev = tf.old;
    if (sa) tf.old = *sa;
    if (old) *old = prev;
    return 1;
}

static void chain(int sig, siginfo_t *si, void *ucv)
{
    if (tf.old.sa_flags & SA_SIGINFO) {
        if (tf.old.sa_sigaction) tf.old.sa_sigaction(sig, si, ucv);
    } else if (tf.old.sa_handler == SIG_IGN) {
        return;
    } else if (tf.old.sa_handler != SIG_DFL) {
        tf.old.sa_handler(sig);
    } else {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        if (hp_timer_real_sigaction) hp_timer_real_sigaction(SIGTRAP, &dfl, NULL); /* not the interposed one */
        else sigaction(SIGTRAP, &dfl, NULL);
        raise(SIGTRAP);
    }
}

static void note_mismatch(uint64_t pc, uint32_t what)
{
    __atomic_fetch_add(&tf.mismatch, 1, __ATOMIC_RELAXED);
    uint64_t i = __atomic_fetch_add(&tf.nfirst, 1, __ATOMIC_RELAXED);
    if (i < HP_CHECK_KEEP) {
        tf.first_pc[i] = pc;
        tf.first_what[i] = what;
    }
}

/* Check engine, before the real step: the out-of-line result on a copy, memory put back. */
static void check_prepare(hp_interp_thread *it, const hp_dinsn *d, ucontext_t *uc)
{
    it->ck_valid = 0;
    hp_ool_data *o = it->ool.data;
    o->g = it->tf_pre;
    it->fx_uc = (uint8_t *)uc->uc_mcontext.fpregs;
    it->fx_loaded = 0;
    uint8_t saved[3][64];
    uint32_t n = 0;
    for (int i = 0; i < d->nmem; i++) /* every operand: Capstone's write flags are not complete */
        if (d->mem[i].access) {
            uint32_t len = d->mem[i].size ? d->mem[i].size : 8;
            it->ck_range[n++] = (typeof(it->ck_range[0])){it->tf_ea[i], len > 64 ? 64 : len, 0, {0}};
        }
    it->ck_range[n++] = (typeof(it->ck_range[0])){it->tf_pre.r[HP_VREG_RSP] - 16, 16, 0, {0}};
    for (uint32_t i = 0; i < n; i++)
        if (!hp_readable(it, it->ck_range[i].addr, it->ck_range[i].len)) return;
    for (uint32_t i = 0; i < n; i++) memcpy(saved[i], (void *)it->ck_range[i].addr, it->ck_range[i].len);
    int stop = hp_ool_step(it, 0);
    for (uint32_t i = 0; i < n; i++) memcpy(it->ck_range[i].after, (void *)it->ck_range[i].addr, it->ck_range[i].len);
    for (uint32_t i = n; i-- > 0;) /* only bytes that changed: an operand may be read-only */
        if (memcmp((void *)it->ck_range[i].addr, saved[i], it->ck_range[i].len) != 0)
            memcpy((void *)it->ck_range[i].addr, saved[i], it->ck_range[i].len);
    if (stop) return;
    it->ck_post = o->g;
    if (it->fx_loaded) memcpy(it->ck_xmm, o->fx + 160, 256);
    it->ck_nrange = n;
    it->ck_valid = 1 + it->fx_loaded;
}

/* Check engine, after the real step: compare. what: 0..15 register, 16 rip, 17 flags, 18 xmm,
 * 19 memory. */
static void check_compare(hp_interp_thread *it, const ucontext_t *uc)
{
    if (!it->ck_valid) return;
    __atomic_fetch_add(&tf.insns, 1, __ATOMIC_RELAXED);
    hp_gregs now;
    hp_gregs_from_uc(&now, uc);
    uint64_t pc = it->tf_insn.pc;
    for (int r = 0; r < 16; r++)
        if (now.r[r] != it->ck_post.r[r]) return note_mismatch(pc, (uint32_t)r);
    if (now.rip != it->ck_post.rip) return note_mismatch(pc, 16);
    if ((now.flags ^ it->ck_post.flags) & FLAGS_CMP) return note_mismatch(pc, 17);
    if (it->ck_valid == 2 && memcmp(it->ck_xmm, (const uint8_t *)uc->uc_mcontext.fpregs + 160, 256) != 0) return note_mismatch(pc, 18);
    for (uint32_t i = 0; i < it->ck_nrange; i++)
        if (memcmp(it->ck_range[i].after, (void *)it->ck_range[i].addr, it->ck_range[i].len) != 0) return note_mismatch(pc, 19);
}

/* Prepare the instruction at uc's pc for a step: 0, or a stop reason. */
static int prepare(hp_interp_thread *it, ucontext_t *uc, int capture)
{
    int stop = 0;
    hp_gregs_from_uc(&it->tf_pre, uc);
    const hp_dinsn *d = hp_dec_get(it, it->tf_pre.rip, &stop);
    if (!d) return stop;
    if (d->kind == HP_DK_STOP) return d->stop;
    it->tf_insn = *d;
    for (int i = 0; i < d->nmem; i++) {
        it->tf_ea[i] = hp_ea(it, d, &it->tf_pre, i);
        if (d->mem[i].access && !hp_readable(it, it->tf_ea[i], d->mem[i].size ? d->mem[i].size : 8)) return HP_STOP_FAULT;
        if (!capture || !d->mem[i].access) continue;
        hp_vals_add(it, d->pc, HP_VK_ADDR, (uint8_t)i, it->tf_ea[i]);
        if (d->mem[i].access & 1) hp_vals_add(it, d->pc, HP_VK_LOAD, (uint8_t)i, hp_read_le(it->tf_ea[i], d->mem[i].size));
    }
    if (hp_interp_cfg()->engine == HP_ENGINE_CHECK) check_prepare(it, d, uc);
    return 0;
}

static void finish(hp_interp_thread *it, ucontext_t *uc, int stop)
{
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TF_BIT;
    it->tf_active = 0;
    if (stop) hp_interp_count_stop(stop);
    hp_mod_flush(it);
    hp_interp_count(0, it->tf_n, 0);
}

/* Step (or stop) at the instruction uc is at now. */
static void step_next(hp_interp_thread *it, ucontext_t *uc)
{
    if (it->tf_left == 0) return finish(it, uc, 0);
    int stop = prepare(it, uc, it->tf_skip == 0);
    if (stop) return finish(it, uc, stop);
    it->tf_active = 1;
    uc->uc_mcontext.gregs[REG_EFL] |= (greg_t)TF_BIT;
}

void hp_tf_begin(hp_interp_thread *it, ucontext_t *uc, uint32_t skip, uint32_t len)
{
    if (it->tf_active) return; /* still stepping from the last interrupt */
    it->tf_left = skip + len;
    it->tf_skip = skip;
    it->tf_n = 0;
    step_next(it, uc); /* in the timer's handler: every signal blocked; never change the mask (interp.c) */
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
    hp_thread *t = hp_tls;
    hp_interp_thread *it = t ? t->interp : NULL;
    if (!it || !it->tf_active || si->si_code != TRAP_TRACE) return chain(sig, si, ucv);
    uint64_t t0 = hp_now_ns();
    ucontext_t *uc = ucv;
    if (hp_interp_cfg()->engine == HP_ENGINE_CHECK) check_compare(it, uc);
    const hp_dinsn *d = &it->tf_insn;
    if (it->tf_skip == 0) {
        hp_gregs g;
        hp_gregs_from_uc(&g, uc);
        for (int i = 0; i < d->nmem; i++)
            if (d->mem[i].access & 2) hp_vals_add(it, d->pc, HP_VK_STORE, (uint8_t)i, hp_read_le(it->tf_ea[i], d->mem[i].size));
        hp_vals_capture_regs(it, d, &g, (const uint8_t *)uc->uc_mcontext.fpregs);
        it->tf_n++;
    } else
        it->tf_skip--;
    it->tf_left--;
    step_next(it, uc);
    hp_interp_count(0, 0, hp_now_ns() - t0);
}

size_t hp_tf_info(char *out, size_t at, size_t cap)
{
    if (hp_interp_cfg()->engine != HP_ENGINE_CHECK) return at;
    char line[96];
    uint64_t v[2] = {__atomic_load_n(&tf.insns, __ATOMIC_RELAXED), __atomic_load_n(&tf.mismatch, __ATOMIC_RELAXED)};
    const char *k[2] = {"values.check.insns=", "values.check.mismatch="};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(k[i]);
        memcpy(line, k[i], n);
        n += hp_fmt_u64(line + n, v[i]);
        line[n++] = '\n';
        if (at + n >= cap) return at;
        memcpy(out + at, line, n);
        at += n;
    }
    uint64_t nf = __atomic_load_n(&tf.nfirst, __ATOMIC_RELAXED);
    for (uint64_t i = 0; i < nf && i < HP_CHECK_KEEP; i++) {
        size_t n = 0;
        memcpy(line, "values.check.first=", 19);
        n = 19;
        n += hp_fmt_hex(line + n, tf.first_pc[i]);
        line[n++] = ':';
        n += hp_fmt_u64(line + n, tf.first_what[i]);
        line[n++] = '\n';
        if (at + n >= cap) return at;
        memcpy(out + at, line, n);
        at += n;
    }
    return at;
}
