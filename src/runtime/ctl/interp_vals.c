/* interp_vals.c — one thread's value hot-lists: a bounded open-addressing table of HP_VSLOTS
 * (pc, kind, operand) slots, each a Gibbons–Matias list (core/summary/value_gm.h). A capture that
 * finds no slot within HP_VPROBE probes is counted in vdropped (values.dropped).
 * With a customization module (interp_mod.c) captures go to the module first and only what its
 * transform returns is recorded.
 * Invariant: written only by the owning thread (its signal handlers); a slot's key never changes
 * once set, so the writer (pt/value.c) reads keys safely and values approximately.
 */
#include "runtime/ctl/interp_int.h"
#include "core/format/format.h"

#define HP_VPROBE 32u

void hp_vals_add(hp_interp_thread *it, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value)
{
    if (it->mod) hp_mod_capture(it, pc, kind, operand, value);
    else hp_vals_record(it, pc, kind, operand, value);
}

void hp_vals_record(hp_interp_thread *it, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value)
{
    uint64_t h = (pc * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)kind << 8 | operand) * 0xc2b2ae3d27d4eb4full;
    for (uint32_t k = 0; k < HP_VPROBE; k++) {
        hp_vslot *s = &it->vslots[(h + k) % HP_VSLOTS];
        if (s->pc == 0) {
            s->kind = kind;
            s->operand = operand;
            hp_vgm_init(&s->gm, h ^ it->rng);
            __atomic_store_n(&s->pc, pc, __ATOMIC_RELEASE);
            it->vslots_used++;
        } else if (s->pc != pc || s->kind != kind || s->operand != operand)
            continue;
        hp_vgm_add(&s->gm, value);
        return;
    }
    it->vdropped++;
    hp_interp_count_dropped();
}

#define HP_FLAGS_ARITH 0x8d5ull /* CF PF AF ZF SF OF */

void hp_vals_capture_regs(hp_interp_thread *it, const hp_dinsn *d, const hp_gregs *g, const uint8_t *fx)
{
    if (it->mod && hp_mod_wants_flags()) hp_mod_capture(it, d->pc, HP_VK_FLAGS, 0, g->flags & HP_FLAGS_ARITH);
    for (int i = 0; i < d->ndst; i++) {
        uint8_t r = d->dst[i];
        if (r < 16) hp_vals_add(it, d->pc, HP_VK_REG, r, g->r[r]);
        else if ((r & HP_DREG_XMM) && fx) {
            uint64_t lo;
            __builtin_memcpy(&lo, fx + 160 + 16 * (r & 15), 8);
            hp_vals_add(it, d->pc, HP_VK_XMM, (uint8_t)(r & 15), lo);
        }
    }
}

uint32_t hp_interp_each_value(const struct hp_interp_thread *it, hp_interp_value_fn *fn, void *arg)
{
    uint32_t lists = 0;
    if (!it || !it->vslots) return 0;
    for (uint32_t i = 0; i < HP_VSLOTS; i++) {
        const hp_vslot *s = &it->vslots[i];
        uint64_t pc = __atomic_load_n(&s->pc, __ATOMIC_ACQUIRE);
        if (!pc) continue;
        hp_vgm gm = s->gm;
        if (gm.n > HP_VGM_N) gm.n = HP_VGM_N; /* a list caught mid-update */
        hp_vgm_entry e[HP_VGM_N];
        uint32_t n = hp_vgm_sorted(&gm, e);
        uint64_t pairs[2 * HP_VGM_N];
        for (uint32_t j = 0; j < n; j++) pairs[2 * j] = e[j].value, pairs[2 * j + 1] = e[j].count;
        hp_rec_value r = {pc, gm.captures, gm.tau < 1.0 ? 1.0 : gm.tau, s->kind, s->operand, (uint16_t)n};
        fn(arg, &r, pairs);
        lists++;
    }
    return lists;
}
