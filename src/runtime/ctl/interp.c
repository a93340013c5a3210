/* interp.c — the value-sampling interpreter's entry points (interp.h): configuration, per-thread
 * setup, one interpretation of the out-of-line engine (the trap-flag engine starts in
 * interp_tf.c), the process-wide counters and the INFO lines.
 * File-static state: the configuration (set once by hp_interp_start before any timer fires) and
 * the counters (atomic adds from every thread's handlers).
 * An OOL interpretation runs inside the timer's handler, whose sa_mask blocks every signal (timer.c
 * install_handler; the slot runs on the program's stack, so nothing asynchronous may come in): stop
 * at once if a signal the program does not block is pending; copy uc into the register file; step
 * debias random instructions without capturing, then L capturing (the return-address context
 * first); copy the register file (and the fxsave image, if an instruction used it) back into uc.
 * It never changes the signal mask: the program's pthread_sigmask is interposed (timer_sig.c) and
 * takes our timer signal out of any mask it sets, so restoring the handler's mask through it
 * unblocked our signal inside our own handler (nested interrupts in the samples; at --freq 20000
 * with --values 4/2 gzip died of SIGSEGV).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <asm/prctl.h>
#include "runtime/base.h"
#include "runtime/thread.h"
#include "runtime/ctl/interp_int.h"
#include "core/format/format.h"
#include "core/format/info_keys.h"

static const char *const hp_stop_names[HP_STOP_COUNT] = {"none", "syscall", "fault", "atomic", "unsupported", "signal", "decode"};

static struct {
    hp_interp_config cfg;
    int on;
    uint64_t runs, insns, ns, dropped, threads, stop[HP_STOP_COUNT];
} st;

const hp_interp_config *hp_interp_cfg(void) { return &st.cfg; }
void hp_interp_count_stop(int reason) { __atomic_fetch_add(&st.stop[reason], 1, __ATOMIC_RELAXED); }
void hp_interp_count_dropped(void) { __atomic_fetch_add(&st.dropped, 1, __ATOMIC_RELAXED); }
void hp_interp_count(uint64_t runs, uint64_t insns, uint64_t ns)
{
    __atomic_fetch_add(&st.runs, runs, __ATOMIC_RELAXED);
    __atomic_fetch_add(&st.insns, insns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&st.ns, ns, __ATOMIC_RELAXED);
}

HP_NOINST int hp_interp_start(const hp_interp_config *c, char *err, size_t errlen)
{
    if (c->length < 1 || c->length > 64 || c->every < 1 || c->engine < HP_ENGINE_OOL || c->engine > HP_ENGINE_CHECK) {
        snprintf(err, errlen, "value sampling: bad configuration (L must be 1..64, K >= 1, engine ool, tf or check)");
        return -1;
    }
    st.cfg = *c;
    if (hp_dec_load(err, errlen) != 0 || hp_mod_load(c->module, err, errlen) != 0) return -1;
    if (c->engine != HP_ENGINE_OOL && hp_tf_install(err, errlen) != 0) return -1;
    st.on = 1;
    return 0;
}

HP_NOINST struct hp_interp_thread *hp_interp_thread_new(void)
{
    if (!st.on) return NULL;
    hp_interp_thread *it = hp_map(sizeof *it);
    if (!it) return NULL;
    it->vslots = hp_map(sizeof(hp_vslot) * HP_VSLOTS);
    if (!it->vslots || hp_dec_thread_init(it) != 0 || hp_ool_init(&it->ool) != 0) return NULL;
    if (hp_mod_active() && !(it->mod = hp_mod_thread_new())) return NULL;
    syscall(SYS_arch_prctl, ARCH_GET_FS, &it->fsbase);
    it->rng = hp_thread_seed(__atomic_fetch_add(&st.threads, 1, __ATOMIC_RELAXED)) ^ st.cfg.seed;
    return it;
}

HP_NOINST void hp_interp_thread_rebind(struct hp_interp_thread *it, int clear)
{
    if (!it) return;
    syscall(SYS_arch_prctl, ARCH_GET_FS, &it->fsbase);
    it->tf_active = 0;
    if (!clear) return;
    for (uint32_t i = 0; i < HP_VSLOTS; i++) __atomic_store_n(&it->vslots[i].pc, 0, __ATOMIC_RELEASE);
    it->vslots_used = 0;
    it->vdropped = 0;
    hp_mod_thread_reset(it->mod);
}

static const int uc_reg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                               REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
#define TF_BIT 0x100u

void hp_gregs_from_uc(hp_gregs *g, const ucontext_t *uc)
{
    for (int i = 0; i < 16; i++) g->r[i] = (uint64_t)uc->uc_mcontext.gregs[uc_reg[i]];
    g->flags = (uint64_t)uc->uc_mcontext.gregs[REG_EFL] & ~(uint64_t)TF_BIT;
    g->rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
}

void hp_gregs_to_uc(const hp_gregs *g, ucontext_t *uc)
{
    for (int i = 0; i < 16; i++) uc->uc_mcontext.gregs[uc_reg[i]] = (greg_t)g->r[i];
    uint64_t tf = (uint64_t)uc->uc_mcontext.gregs[REG_EFL] & TF_BIT;
    uc->uc_mcontext.gregs[REG_EFL] = (greg_t)((g->flags & ~(uint64_t)TF_BIT) | tf);
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)g->rip;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    return z ^ (z >> 27);
}

/* 1 if a signal the program does not block is pending (it must be delivered now, not later). */
static int signal_pending(const ucontext_t *uc)
{
    sigset_t p;
    if (sigpending(&p) != 0) return 0;
    for (int s = 1; s < NSIG; s++)
        if (sigismember(&p, s) == 1 && sigismember(&uc->uc_sigmask, s) != 1) return 1;
    return 0;
}

/* The fxsave image back into uc; in an xsave frame, mark x87 and SSE state present. */
static void fx_back(hp_interp_thread *it, ucontext_t *uc)
{
    uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;
    memcpy(fp, it->ool.data->fx, 512);
    uint32_t magic;
    memcpy(&magic, fp + 464, 4);
    if (magic == 0x46505853u) fp[512] |= 3; /* FP_XSTATE_MAGIC1: header.xstate_bv bits x87, SSE */
}

static void ool_run(hp_interp_thread *it, ucontext_t *uc)
{
    hp_gregs *g = &it->ool.data->g;
    hp_gregs_from_uc(g, uc);
    it->fx_uc = (uint8_t *)uc->uc_mcontext.fpregs;
    it->fx_loaded = 0;
    uint32_t skip = st.cfg.debias > 1 ? (uint32_t)(rng_next(&it->rng) % st.cfg.debias) : 0, n = 0;
    int stop = 0;
    for (uint32_t i = 0; i < skip + st.cfg.length && !stop; i++) {
        if (i == skip) {
            int s2 = 0;
            const hp_dinsn *d = hp_dec_get(it, g->rip, &s2);
            if (d && d->is_entry && hp_readable(it, g->r[HP_VREG_RSP], 8))
                hp_vals_add(it, g->rip, HP_VK_RETADDR, 0, hp_read_le(g->r[HP_VREG_RSP], 8));
        }
        if (!it->fx_uc) { /* no FP state to work on: only integer instructions */
            int s2 = 0;
            const hp_dinsn *d = hp_dec_get(it, g->rip, &s2);
            if (d && d->fp) { stop = HP_STOP_UNSUPPORTED; break; }
        }
        stop = hp_ool_step(it, i >= skip);
        n += !stop;
    }
    if (stop) hp_interp_count_stop(stop);
    hp_mod_flush(it);
    hp_gregs_to_uc(g, uc);
    if (it->fx_loaded) fx_back(it, uc);
    hp_interp_count(1, n, 0);
}

HP_NOINST void hp_interp_on_sample(struct hp_thread *t, ucontext_t *uc)
{
    hp_interp_thread *it = t ? t->interp : NULL;
    if (!it || !st.on) return;
    uint64_t t0 = hp_now_ns();
    if (st.cfg.engine != HP_ENGINE_OOL) {
        hp_tf_begin(it, uc, st.cfg.debias > 1 ? (uint32_t)(rng_next(&it->rng) % st.cfg.debias) : 0, st.cfg.length);
        hp_interp_count(1, 0, hp_now_ns() - t0);
        return;
    }
    if (signal_pending(uc)) { /* every signal is blocked here already (the handler's sa_mask) */
        hp_interp_count_stop(HP_STOP_SIGNAL);
        hp_interp_count(1, 0, 0);
    } else
        ool_run(it, uc);
    hp_interp_count(0, 0, hp_now_ns() - t0);
}

HP_NOINST size_t hp_interp_info(char *out, size_t cap)
{
    if (!st.on || cap == 0) return 0;
    static const char *const engines[] = {"ool", "tf", "check"};
    char v[64];
    size_t n = hp_fmt_u64(v, st.cfg.length);
    v[n++] = '/';
    n += hp_fmt_u64(v + n, st.cfg.every);
    size_t at = 0;
    const char *lines[][2] = {{HP_INFO_VALUES "=", v}, {HP_INFO_VALUES_ENGINE "=", engines[st.cfg.engine]}};
    for (int i = 0; i < 2; i++) {
        size_t a = strlen(lines[i][0]), b = i ? strlen(lines[i][1]) : n;
        if (at + a + b + 1 >= cap) return at;
        memcpy(out + at, lines[i][0], a);
        memcpy(out + at + a, lines[i][1], b);
        out[at + a + b] = '\n';
        at += a + b + 1;
    }
    at = hp_info_u64(out, at, cap, HP_INFO_VALUES_RUNS, NULL, __atomic_load_n(&st.runs, __ATOMIC_RELAXED));
    at = hp_info_u64(out, at, cap, HP_INFO_VALUES_INSNS, NULL, __atomic_load_n(&st.insns, __ATOMIC_RELAXED));
    at = hp_info_u64(out, at, cap, HP_INFO_VALUES_NS, NULL, __atomic_load_n(&st.ns, __ATOMIC_RELAXED));
    for (int r = 1; r < HP_STOP_COUNT; r++)
        at = hp_info_u64(out, at, cap, HP_INFO_VALUES_STOP, hp_stop_names[r], __atomic_load_n(&st.stop[r], __ATOMIC_RELAXED));
    at = hp_info_u64(out, at, cap, HP_INFO_VALUES_SKIP, NULL, st.cfg.debias);
    at = hp_info_u64(out, at, cap, HP_INFO_VALUES, "dropped", __atomic_load_n(&st.dropped, __ATOMIC_RELAXED));
    at = hp_tf_info(out, at, cap);
    at = hp_mod_info(out, at, cap);
    out[at] = 0;
    return at;
}

HP_NOINST uint64_t hp_interp_ns(void) { return __atomic_load_n(&st.ns, __ATOMIC_RELAXED); }
