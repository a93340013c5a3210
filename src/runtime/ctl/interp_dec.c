/* interp_dec.c — decoding for the value-sampling interpreter: Capstone (loaded with dlopen at
 * hp_interp_start, so programs that never use value sampling do not need it), made
 * async-signal-safe by CS_OPT_MEM pointing at a lock-free bump allocator over memory mapped once
 * (file-static: the region and the resolved Capstone entry points, set before any thread decodes);
 * each thread decodes with cs_disasm_iter into its own cs_insn (cs_malloc at its setup, a warm-up
 * decode there too so Capstone's lazy per-handle tables are built outside any handler).
 * The result is a compact hp_dinsn (interp_int.h), cached per thread direct-mapped by pc and
 * checked against the bytes at pc on every hit (code that changes is decoded again).
 * Also here: hp_readable, the per-thread cache of pages known mapped (probed with process_vm_readv
 * on ourselves: no file descriptor, EFAULT instead of a fault).
 */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "runtime/base.h"
#include "runtime/ctl/interp_int.h"

static struct {
    cs_err (*open)(cs_arch, cs_mode, csh *);
    cs_err (*option)(csh, cs_opt_type, size_t);
    cs_insn *(*malloc_insn)(csh);
    bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
    cs_err (*regs_access)(csh, const cs_insn *, cs_regs, uint8_t *, cs_regs, uint8_t *);
    uint8_t *arena;
    size_t used, cap;
} cs_lib;

#define ARENA_BYTES (8u << 20)

/* Bump allocator: 16-byte header holding the size (realloc copies), never frees. */
static void *bump_malloc(size_t n)
{
    size_t need = (n + 31) & ~(size_t)15;
    size_t off = __atomic_fetch_add(&cs_lib.used, need, __ATOMIC_RELAXED);
    if (off + need > cs_lib.cap) return NULL;
    uint8_t *p = cs_lib.arena + off;
    *(size_t *)p = n;
    return p + 16;
}
static void *bump_calloc(size_t k, size_t n) { return bump_malloc(k * n); } /* the arena is zeroed */
static void bump_free(void *p) { (void)p; }
static void *bump_realloc(void *p, size_t n)
{
    void *q = bump_malloc(n);
    if (q && p) {
        size_t old = *(size_t *)((uint8_t *)p - 16);
        memcpy(q, p, old < n ? old : n);
    }
    return q;
}

int hp_dec_load(char *err, size_t errlen)
{
    if (cs_lib.open) return 0;
    void *h = dlopen("libcapstone.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libcapstone.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "value sampling needs Capstone (libcapstone.so.4): %s", dlerror());
        return -1;
    }
    cs_lib.option = (cs_err(*)(csh, cs_opt_type, size_t))dlsym(h, "cs_option");
    cs_lib.malloc_insn = (cs_insn * (*)(csh)) dlsym(h, "cs_malloc");
    cs_lib.disasm_iter = (bool (*)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *))dlsym(h, "cs_disasm_iter");
    cs_lib.regs_access = (cs_err(*)(csh, const cs_insn *, cs_regs, uint8_t *, cs_regs, uint8_t *))dlsym(h, "cs_regs_access");
    cs_err (*op)(cs_arch, cs_mode, csh *) = (cs_err(*)(cs_arch, cs_mode, csh *))dlsym(h, "cs_open");
    cs_lib.arena = hp_map(ARENA_BYTES);
    cs_lib.cap = ARENA_BYTES;
    if (!op || !cs_lib.option || !cs_lib.malloc_insn || !cs_lib.disasm_iter || !cs_lib.regs_access || !cs_lib.arena) {
        snprintf(err, errlen, "value sampling: Capstone found but unusable (missing symbols or memory)");
        return -1;
    }
    static cs_opt_mem mem; /* file-static: Capstone keeps the pointers */
    mem = (cs_opt_mem){bump_malloc, bump_calloc, bump_realloc, bump_free, vsnprintf};
    if (cs_lib.option(0, CS_OPT_MEM, (size_t)&mem) != CS_ERR_OK) {
        snprintf(err, errlen, "value sampling: Capstone refused its allocator");
        return -1;
    }
    __atomic_store_n(&cs_lib.open, op, __ATOMIC_RELEASE);
    return 0;
}

int hp_dec_thread_init(hp_interp_thread *it)
{
    csh h;
    if (!cs_lib.open || cs_lib.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) return -1;
    cs_lib.option(h, CS_OPT_DETAIL, CS_OPT_ON);
    cs_insn *in = cs_lib.malloc_insn(h);
    if (!in) return -1;
    static const uint8_t warm[] = {0x48, 0x8b, 0x05, 0, 0, 0, 0}; /* mov rax, [rip]: builds lazy tables */
    const uint8_t *c = warm;
    size_t n = sizeof warm;
    uint64_t a = 0;
    cs_lib.disasm_iter(h, &c, &n, &a, in);
    it->cs = h;
    it->insn = in;
    return 0;
}

int hp_readable(hp_interp_thread *it, uint64_t addr, uint64_t len)
{
    if (len == 0) len = 1;
    for (uint64_t pg = addr >> 12; pg <= (addr + len - 1) >> 12; pg++) {
        uint64_t *slot = &it->pcache[pg % HP_PCACHE];
        if (*slot == pg + 1) continue;
        char b;
        struct iovec l = {&b, 1}, r = {(void *)(pg << 12), 1};
        if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != 1) return 0;
        *slot = pg + 1;
    }
    return 1;
}

/* ------------------------------------------------------------------ classification */

static uint8_t map_reg(unsigned r)
{
    switch (r) {
    case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL: case X86_REG_AH: return HP_VREG_RAX;
    case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL: case X86_REG_CH: return HP_VREG_RCX;
    case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL: case X86_REG_DH: return HP_VREG_RDX;
    case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL: case X86_REG_BH: return HP_VREG_RBX;
    case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL: return HP_VREG_RSP;
    case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL: return HP_VREG_RBP;
    case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL: return HP_VREG_RSI;
    case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL: return HP_VREG_RDI;
    case X86_REG_RIP: return HP_DREG_RIP;
    default: break;
    }
    if (r >= X86_REG_R8 && r <= X86_REG_R15) return (uint8_t)(HP_VREG_R8 + (r - X86_REG_R8));
    if (r >= X86_REG_R8B && r <= X86_REG_R15B) return (uint8_t)(HP_VREG_R8 + (r - X86_REG_R8B));
    if (r >= X86_REG_R8D && r <= X86_REG_R15D) return (uint8_t)(HP_VREG_R8 + (r - X86_REG_R8D));
    if (r >= X86_REG_R8W && r <= X86_REG_R15W) return (uint8_t)(HP_VREG_R8 + (r - X86_REG_R8W));
    if (r >= X86_REG_XMM0 && r <= X86_REG_XMM15) return (uint8_t)(HP_DREG_XMM | (r - X86_REG_XMM0));
    return HP_DREG_NONE;
}

static int is_legacy_prefix(uint8_t b)
{
    return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x3e ||
           b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65;
}

typedef struct raw { uint32_t p, rex_at; int lock, rep, gs; uint8_t op, op2, modrm; } raw;

static raw raw_scan(const uint8_t *b, uint32_t len)
{
    raw r = {0, ~0u, 0, 0, 0, 0, 0, 0};
    while (r.p < len && is_legacy_prefix(b[r.p])) {
        r.lock |= b[r.p] == 0xf0;
        r.rep |= b[r.p] == 0xf2 || b[r.p] == 0xf3;
        r.gs |= b[r.p] == 0x65;
        r.p++;
    }
    if (r.p < len && (b[r.p] & 0xf0) == 0x40) r.rex_at = r.p++;
    r.op = r.p < len ? b[r.p] : 0;
    r.op2 = r.p + 1 < len ? b[r.p + 1] : 0;
    r.modrm = r.op == 0x0f ? (r.p + 2 < len ? b[r.p + 2] : 0) : r.op2;
    return r;
}

/* The stop reason for an instruction no engine executes, else HP_STOP_NONE. */
static int raw_stop(const raw *r, int tf)
{
    uint8_t op = r->op, op2 = r->op2, reg = (r->modrm >> 3) & 7, mod = r->modrm >> 6;
    if (op == 0xc4 || op == 0xc5 || op == 0x62) return HP_STOP_UNSUPPORTED; /* VEX/EVEX: ymm state */
    if (r->lock) return HP_STOP_ATOMIC;
    if ((op == 0x86 || op == 0x87) && mod != 3) return HP_STOP_ATOMIC;      /* xchg with memory */
    if (op == 0xcc || op == 0xcd || op == 0xce || op == 0xf1) return HP_STOP_SYSCALL;
    if (op == 0x0f && (op2 == 0x05 || op2 == 0x34 || op2 == 0x07 || op2 == 0x35)) return HP_STOP_SYSCALL;
    if (r->gs) return HP_STOP_UNSUPPORTED;
    if (r->rep && ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf))) return HP_STOP_UNSUPPORTED;
    if ((op >= 0x6c && op <= 0x6f) || (op >= 0xe4 && op <= 0xe7) || (op >= 0xec && op <= 0xef)) return HP_STOP_UNSUPPORTED;
    if (op == 0xf4 || op == 0xcf || op == 0xca || op == 0xcb || op == 0xea || op == 0x9a || op == 0x8e) return HP_STOP_UNSUPPORTED;
    if (op >= 0xe0 && op <= 0xe3) return HP_STOP_UNSUPPORTED;               /* loop, jrcxz */
    if (op == 0xff && (reg == 3 || reg == 5)) return HP_STOP_UNSUPPORTED;   /* far call/jmp */
    if ((op == 0xc6 || op == 0xc7) && r->op2 == 0xf8) return HP_STOP_UNSUPPORTED; /* xabort, xbegin */
    if (tf && (op == 0x9c || op == 0x9d)) return HP_STOP_UNSUPPORTED;      /* pushf/popf expose TF */
    if (op == 0x0f) {
        if (op2 == 0x0b || op2 == 0xa2 || op2 == 0x31 || op2 == 0x01 || op2 == 0xa1 || op2 == 0xa9) return HP_STOP_UNSUPPORTED;
        if (op2 == 0xc7 && (reg == 6 || reg == 7) && (r->modrm >> 6) == 3) return HP_STOP_UNSUPPORTED; /* rdrand, rdseed */
        if (op2 == 0xc7 && mod != 3 && reg >= 3 && reg <= 5) return HP_STOP_UNSUPPORTED; /* xrstors, xsavec, xsaves */
        if (op2 == 0xae && (r->modrm >> 6) != 3 && reg != 2 && reg != 3 && reg != 7) return HP_STOP_UNSUPPORTED; /* fxsave.. xrstor */
    }
    return HP_STOP_NONE;
}

static void classify_flow(hp_dinsn *d, const raw *r, const cs_x86 *x)
{
    uint8_t op = r->op, reg = (r->modrm >> 3) & 7;
    d->kind = HP_DK_PLAIN;
    if ((op >= 0x70 && op <= 0x7f) || (op == 0x0f && r->op2 >= 0x80 && r->op2 <= 0x8f)) {
        d->kind = HP_DK_JCC;
        d->cond = (uint8_t)((op == 0x0f ? r->op2 : op) & 15);
    } else if (op == 0xeb || op == 0xe9) d->kind = HP_DK_JMP;
    else if (op == 0xe8) d->kind = HP_DK_CALL;
    else if (op == 0xc3 || op == 0xc2) {
        d->kind = HP_DK_RET;
        d->ret_pop = op == 0xc2 && x->op_count ? (uint16_t)x->operands[0].imm : 0;
    } else if (op == 0xff && (reg == 2 || reg == 4)) d->kind = reg == 2 ? HP_DK_CALL : HP_DK_JMP;
    if (d->kind == HP_DK_PLAIN || d->kind == HP_DK_RET || !x->op_count) return;
    const cs_x86_op *o = &x->operands[0];
    if (o->type == X86_OP_IMM) d->target = (uint64_t)o->imm;
    else if (o->type == X86_OP_REG) d->tgt_reg = map_reg(o->reg);
    else if (o->type == X86_OP_MEM) d->tgt_mem = 1;
}

static void fill_mem(hp_dinsn *d, const cs_insn *in)
{
    const cs_x86 *x = &in->detail->x86;
    int skip = in->id == X86_INS_LEA || in->id == X86_INS_NOP;
    for (int i = 0; i < x->op_count && d->nmem < 2; i++) {
        const cs_x86_op *o = &x->operands[i];
        if (o->type != X86_OP_MEM) continue;
        hp_dmem *m = &d->mem[d->nmem];
        m->base = o->mem.base ? map_reg(o->mem.base) : HP_DREG_NONE;
        m->index = o->mem.index ? map_reg(o->mem.index) : HP_DREG_NONE;
        m->scale = (uint8_t)o->mem.scale;
        m->disp = o->mem.disp;
        m->fs = o->mem.segment == X86_REG_FS;
        m->size = skip ? 0 : o->size;
        m->access = skip ? 0 : (o->access & CS_AC_WRITE ? 2 : 0) | (o->access & CS_AC_READ || !o->access ? 1 : 0);
        d->nmem++;
    }
}

/* Registers written (GPRs but rsp, xmm), whether x87/SSE state is touched, and a free register for
 * the RIP-relative fixup. */
static void fill_regs(hp_dinsn *d, const cs_insn *in, const raw *r, cs_regs rd, uint8_t nrd, cs_regs wr, uint8_t nwr)
{
    uint32_t used = 0;
    for (int i = 0; i < nrd + nwr; i++) {
        unsigned reg = i < nrd ? rd[i] : wr[i - nrd];
        uint8_t m = map_reg(reg);
        if (m < 16) used |= 1u << m;
        if ((m & HP_DREG_XMM) && m != HP_DREG_NONE) d->fp = 1;
        if ((reg >= X86_REG_ST0 && reg <= X86_REG_ST7) || (reg >= X86_REG_MM0 && reg <= X86_REG_MM7) || reg == X86_REG_FPSW) d->fp = 1;
        if (i >= nrd && m != HP_DREG_NONE && m != HP_VREG_RSP && m != HP_DREG_RIP && d->ndst < sizeof d->dst) {
            int dup = 0;
            for (int k = 0; k < d->ndst; k++) dup |= d->dst[k] == m;
            if (!dup) d->dst[d->ndst++] = m;
        }
    }
    const cs_detail *det = in->detail;
    for (int i = 0; i < det->groups_count; i++) {
        uint8_t g = det->groups[i];
        if (g == X86_GRP_FPU || g == X86_GRP_MMX || g == X86_GRP_3DNOW || (g >= X86_GRP_SSE1 && g <= X86_GRP_SSSE3) ||
            g == X86_GRP_AES || g == X86_GRP_PCLMUL || g == X86_GRP_SHA)
            d->fp = 1;
    }
    if (r->op >= 0xd8 && r->op <= 0xdf) d->fp = 1;
    d->scratch = HP_DREG_NONE;
    const cs_x86 *x = &det->x86;
    if (!x->encoding.modrm_offset || (in->bytes[x->encoding.modrm_offset] & 0xc7) != 0x05) return;
    static const uint8_t cand[] = {HP_VREG_RBX, HP_VREG_RBP, HP_VREG_RSI, HP_VREG_RDI, HP_VREG_RCX, HP_VREG_RDX, HP_VREG_RAX};
    for (unsigned i = 0; i < sizeof cand; i++)
        if (!(used & (1u << cand[i]))) {
            d->scratch = cand[i];
            break;
        }
    if (d->scratch == HP_DREG_NONE) {
        d->kind = HP_DK_STOP;
        d->stop = HP_STOP_UNSUPPORTED;
        return;
    }
    /* mod=00 rm=101 ([rip+disp32]) -> mod=10 rm=scratch ([scratch+disp32]); REX.B must be 0 */
    d->code[x->encoding.modrm_offset] = (uint8_t)((in->bytes[x->encoding.modrm_offset] & 0x38) | 0x80 | d->scratch);
    if (r->rex_at != ~0u) d->code[r->rex_at] &= (uint8_t)~1u;
}

static int decode_into(hp_interp_thread *it, uint64_t pc, hp_dinsn *d, int tf)
{
    size_t avail = 16;
    if (!hp_readable(it, pc, 1)) return HP_STOP_FAULT;
    if ((pc & 4095) > 4096 - 16 && !hp_readable(it, (pc | 4095) + 1, 1)) avail = 4096 - (pc & 4095);
    const uint8_t *c = (const uint8_t *)pc;
    uint64_t a = pc;
    cs_insn *in = it->insn;
    if (!cs_lib.disasm_iter((csh)it->cs, &c, &avail, &a, in)) return HP_STOP_DECODE;
    memset(d, 0, sizeof *d);
    d->pc = pc;
    d->len = (uint8_t)in->size;
    memcpy(d->orig, in->bytes, in->size);
    memcpy(d->code, in->bytes, in->size);
    d->tgt_reg = HP_DREG_NONE;
    raw r = raw_scan(in->bytes, in->size);
    d->stop = (uint8_t)raw_stop(&r, tf);
    if (d->stop) {
        d->kind = HP_DK_STOP;
        return 0;
    }
    classify_flow(d, &r, &in->detail->x86);
    d->is_entry = (r.op == 0x55) || (in->size == 4 && in->bytes[0] == 0xf3 && in->bytes[1] == 0x0f && in->bytes[3] == 0xfa);
    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    if (cs_lib.regs_access((csh)it->cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK) nrd = nwr = 0;
    fill_mem(d, in);
    fill_regs(d, in, &r, rd, nrd, wr, nwr);
    return 0;
}

const hp_dinsn *hp_dec_get(hp_interp_thread *it, uint64_t pc, int *stop)
{
    hp_dinsn *d = &it->dcache[(pc ^ (pc >> 9)) % HP_DCACHE];
    if (d->pc == pc && d->len && hp_readable(it, pc, d->len) && memcmp(d->orig, (const void *)pc, d->len) == 0)
        return d;
    d->pc = 0;
    int s = decode_into(it, pc, d, hp_interp_cfg()->engine == HP_ENGINE_TF);
    if (s) {
        d->pc = 0;
        *stop = s;
        return NULL;
    }
    return d;
}
