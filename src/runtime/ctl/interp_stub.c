/* interp_stub.c — the out-of-line engine's scratch area: per thread a code page (RWX) and a data
 * page right after it (hp_ool_data), mapped together so every stub access is RIP-relative.
 *
 * The stub, generated once per thread: save the caller's callee-saved registers and rsp; when
 * fpflag, save the caller's mxcsr and x87 control word and fxrstor64 the guest image; load the
 * guest flags (popfq) and the 16 guest registers (rsp last); run the instruction slot (the
 * instruction's bytes, NOP-padded to 16); store the 16 registers and the flags back; restore the
 * caller's rsp and clean flags; when fpflag fxsave64 the guest image and restore mxcsr/fcw; restore the
 * callee-saved registers; ret. The slot's instruction is never a control transfer (interp_exec.c
 * computes those) and its RIP-relative operand has been rewritten to a scratch register.
 * Invariants: the caller blocks asynchronous signals around hp_ool_exec (rsp points at the
 * program's stack while the slot runs); the guest flags never carry TF.
 */
#include <string.h>
#include <sys/mman.h>
#include "runtime/base.h"
#include "runtime/ctl/interp_int.h"

typedef struct emit { uint8_t *base, *p; const uint8_t *data; } emit;

static void b1(emit *e, uint8_t x) { *e->p++ = x; }
/* disp32 from the end of an instruction whose remaining `tail` bytes follow the displacement */
static void rel(emit *e, const void *target, int tail)
{
    int32_t d = (int32_t)((const uint8_t *)target - (e->p + 4 + tail));
    memcpy(e->p, &d, 4);
    e->p += 4;
}
static const void *dptr(emit *e, size_t off) { return e->data + off; }

/* mov [rip+t], r64 (store=1) or mov r64, [rip+t] */
static void mov_rip(emit *e, int store, int reg, size_t off)
{
    b1(e, (uint8_t)(0x48 | (reg >= 8 ? 4 : 0)));
    b1(e, store ? 0x89 : 0x8b);
    b1(e, (uint8_t)(((reg & 7) << 3) | 5));
    rel(e, dptr(e, off), 0);
}
/* an opcode (1-3 bytes) with modrm /digit and [rip+off] */
static void op_rip(emit *e, const uint8_t *op, int n, int digit, size_t off)
{
    for (int i = 0; i < n; i++) b1(e, op[i]);
    b1(e, (uint8_t)((digit << 3) | 5));
    rel(e, dptr(e, off), 0);
}

#define OFF(f) offsetof(hp_ool_data, f)
static const int host_regs[7] = {HP_VREG_RBX, HP_VREG_RBP, HP_VREG_R12, HP_VREG_R13, HP_VREG_R14, HP_VREG_R15, HP_VREG_RSP};

/* if fpflag == 0 jump over what fn emits */
static void fp_block(emit *e, void (*fn)(emit *))
{
    static const uint8_t cmp[] = {0x83}; /* cmp dword [rip+x], 0 */
    for (int i = 0; i < 1; i++) b1(e, cmp[i]);
    b1(e, (7 << 3) | 5);
    rel(e, dptr(e, OFF(fpflag)), 1);
    b1(e, 0);
    b1(e, 0x0f);
    b1(e, 0x84);
    uint8_t *fix = e->p;
    e->p += 4;
    fn(e);
    int32_t d = (int32_t)(e->p - (fix + 4));
    memcpy(fix, &d, 4);
}
static void fp_enter(emit *e)
{
    static const uint8_t ae[] = {0x0f, 0xae}, fx64[] = {0x48, 0x0f, 0xae}, d9[] = {0xd9};
    op_rip(e, ae, 2, 3, OFF(host_mxcsr)); /* stmxcsr */
    op_rip(e, d9, 1, 7, OFF(host_fcw));   /* fnstcw */
    op_rip(e, fx64, 3, 1, OFF(fx));       /* fxrstor64 */
}
static void fp_leave(emit *e)
{
    static const uint8_t ae[] = {0x0f, 0xae}, fx64[] = {0x48, 0x0f, 0xae}, d9[] = {0xd9};
    op_rip(e, fx64, 3, 0, OFF(fx));       /* fxsave64 */
    op_rip(e, ae, 2, 2, OFF(host_mxcsr)); /* ldmxcsr */
    op_rip(e, d9, 1, 5, OFF(host_fcw));   /* fldcw */
}

static void emit_stub(emit *e, uint32_t *slot_off)
{
    for (int i = 0; i < 7; i++) mov_rip(e, 1, host_regs[i], OFF(host) + 8 * (size_t)i);
    fp_block(e, fp_enter);
    static const uint8_t push[] = {0xff}, pop[] = {0x8f};
    op_rip(e, push, 1, 6, OFF(g.flags)); /* push qword [flags] */
    b1(e, 0x9d);                        /* popfq */
    for (int r = 0; r < 16; r++)
        if (r != HP_VREG_RSP) mov_rip(e, 0, r, OFF(g.r) + 8 * (size_t)r);
    mov_rip(e, 0, HP_VREG_RSP, OFF(g.r) + 8 * HP_VREG_RSP);
    *slot_off = (uint32_t)(e->p - e->base);
    memset(e->p, 0x90, 16);
    e->p += 16;
    for (int r = 0; r < 16; r++) mov_rip(e, 1, r, OFF(g.r) + 8 * (size_t)r);
    mov_rip(e, 0, HP_VREG_RSP, OFF(host) + 8 * 6);
    b1(e, 0x9c);                       /* pushfq */
    op_rip(e, pop, 1, 0, OFF(g.flags)); /* pop qword [flags] */
    b1(e, 0x6a);                       /* push 2; popfq: clean flags (DF, AC clear) for the caller */
    b1(e, 0x02);
    b1(e, 0x9d);
    fp_block(e, fp_leave);
    for (int i = 0; i < 6; i++) mov_rip(e, 0, host_regs[i], OFF(host) + 8 * (size_t)i);
    b1(e, 0xc3);
}

int hp_ool_init(hp_ool *o)
{
    uint8_t *m = mmap(NULL, 4096 + sizeof(hp_ool_data) + 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return -1;
    o->code = m;
    o->data = (hp_ool_data *)(m + 4096);
    emit e = {m, m, (const uint8_t *)o->data};
    emit_stub(&e, &o->slot_off);
    return 0;
}

void hp_ool_exec(hp_ool *o, const hp_dinsn *d)
{
    uint8_t *slot = o->code + o->slot_off;
    memcpy(slot, d->code, d->len);
    memset(slot + d->len, 0x90, 16 - d->len);
    o->data->fpflag = d->fp;
    __asm__ volatile("" ::: "memory");
    ((void (*)(void))o->code)();
    __asm__ volatile("" ::: "memory");
}
