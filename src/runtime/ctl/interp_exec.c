/* interp_exec.c — one instruction of the out-of-line engine: check that its memory is mapped,
 * capture the values it loads, run it in the scratch slot (interp_stub.c) or compute the control
 * transfer (jmp, jcc, call, ret, indirect through a register or memory) here, then capture the
 * registers it wrote and the values it stored. Works on it->ool.data (the run's register file).
 * Invariant: on a stop (return value != 0) nothing of the guest state has changed.
 */
#include <string.h>
#include "runtime/base.h"
#include "runtime/ctl/interp_int.h"
#include "core/format/format.h"

#define F_CF 0x1u
#define F_PF 0x4u
#define F_ZF 0x40u
#define F_SF 0x80u
#define F_OF 0x800u

int hp_cond_true(uint8_t cond, uint64_t f)
{
    int cf = !!(f & F_CF), pf = !!(f & F_PF), zf = !!(f & F_ZF), sf = !!(f & F_SF), of = !!(f & F_OF), r;
    switch (cond >> 1) {
    case 0: r = of; break;
    case 1: r = cf; break;
    case 2: r = zf; break;
    case 3: r = cf | zf; break;
    case 4: r = sf; break;
    case 5: r = pf; break;
    case 6: r = sf != of; break;
    default: r = zf | (sf != of); break;
    }
    return (cond & 1) ? !r : r;
}

uint64_t hp_ea(const hp_interp_thread *it, const hp_dinsn *d, const hp_gregs *g, int i)
{
    const hp_dmem *m = &d->mem[i];
    uint64_t ea = (uint64_t)m->disp;
    if (m->base == HP_DREG_RIP) ea += d->pc + d->len;
    else if (m->base < 16) ea += g->r[m->base];
    if (m->index < 16) ea += g->r[m->index] * m->scale;
    if (m->fs) ea += it->fsbase;
    return ea;
}

uint64_t hp_read_le(uint64_t addr, uint32_t size)
{
    uint64_t v = 0;
    memcpy(&v, (const void *)addr, size > 8 ? 8 : size);
    return v;
}

static int mem_ok(hp_interp_thread *it, const hp_dinsn *d, const hp_gregs *g)
{
    for (int i = 0; i < d->nmem; i++)
        if (d->mem[i].access || (d->tgt_mem && i == 0))
            if (!hp_readable(it, hp_ea(it, d, g, i), d->mem[i].size ? d->mem[i].size : 8)) return 0;
    return 1;
}

static void exec_plain(hp_interp_thread *it, const hp_dinsn *d)
{
    hp_ool_data *o = it->ool.data;
    if (d->fp && !it->fx_loaded) {
        memcpy(o->fx, it->fx_uc, 512);
        it->fx_loaded = 1;
    }
    uint64_t saved = 0;
    if (d->scratch != HP_DREG_NONE) {
        saved = o->g.r[d->scratch];
        o->g.r[d->scratch] = d->pc + d->len;
    }
    hp_ool_exec(&it->ool, d);
    if (d->scratch != HP_DREG_NONE) o->g.r[d->scratch] = saved;
}

/* A control transfer: the new rip (and the push or pop of call and ret). 0 or a stop reason. */
static int exec_flow(hp_interp_thread *it, const hp_dinsn *d)
{
    hp_gregs *g = &it->ool.data->g;
    uint64_t next = d->pc + d->len, t = d->target;
    if (d->tgt_reg < 16) t = g->r[d->tgt_reg];
    else if (d->tgt_mem) t = hp_read_le(hp_ea(it, d, g, 0), 8);
    switch (d->kind) {
    case HP_DK_JCC: g->rip = hp_cond_true(d->cond, g->flags) ? t : next; return 0;
    case HP_DK_JMP: g->rip = t; return 0;
    case HP_DK_CALL:
        if (!hp_readable(it, g->r[HP_VREG_RSP] - 8, 8)) return HP_STOP_FAULT;
        g->r[HP_VREG_RSP] -= 8;
        memcpy((void *)g->r[HP_VREG_RSP], &next, 8);
        g->rip = t;
        return 0;
    default: /* ret */
        if (!hp_readable(it, g->r[HP_VREG_RSP], 8)) return HP_STOP_FAULT;
        g->rip = hp_read_le(g->r[HP_VREG_RSP], 8);
        g->r[HP_VREG_RSP] += 8u + d->ret_pop;
        return 0;
    }
}

int hp_ool_step(hp_interp_thread *it, int capture)
{
    hp_gregs *g = &it->ool.data->g;
    int stop = 0;
    const hp_dinsn *d = hp_dec_get(it, g->rip, &stop);
    if (!d) return stop;
    if (d->kind == HP_DK_STOP) return d->stop;
    if (!mem_ok(it, d, g)) return HP_STOP_FAULT;
    uint64_t ea[2] = {0, 0};
    for (int i = 0; i < d->nmem; i++) {
        ea[i] = hp_ea(it, d, g, i);
        if (!capture || !d->mem[i].access) continue;
        hp_vals_add(it, d->pc, HP_VK_ADDR, (uint8_t)i, ea[i]);
        if (d->mem[i].access & 1) hp_vals_add(it, d->pc, HP_VK_LOAD, (uint8_t)i, hp_read_le(ea[i], d->mem[i].size));
    }
    if (d->kind != HP_DK_PLAIN) return exec_flow(it, d);
    exec_plain(it, d);
    g->rip = d->pc + d->len;
    if (!capture) return 0;
    for (int i = 0; i < d->nmem; i++)
        if (d->mem[i].access & 2) hp_vals_add(it, d->pc, HP_VK_STORE, (uint8_t)i, hp_read_le(ea[i], d->mem[i].size));
    hp_vals_capture_regs(it, d, g, it->fx_loaded ? it->ool.data->fx : NULL);
    return 0;
}
