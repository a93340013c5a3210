/* interp_int.h — the value-sampling interpreter's internals, shared by ctl/interp*.c (not a public
 * interface: ctl/interp.h is). What it holds:
 *   - hp_dinsn: one decoded instruction in the compact form the engines use (interp_dec.c fills it
 *     from Capstone and caches it per thread, direct-mapped by pc, checked against the bytes);
 *   - hp_ool: the per-thread scratch area of the out-of-line engine (interp_stub.c): a code page
 *     (RWX) holding the stub and the instruction slot, and a data page holding the guest and host
 *     register files and the guest's fxsave image;
 *   - hp_interp_thread: all of one thread's interpreter state (mmap'd once, never freed);
 *   - the stop reasons (their INFO names and the process-wide counters are file-static in interp.c).
 * Invariants: only the owning thread touches its hp_interp_thread, from its signal handlers or at
 * its setup; nothing here allocates after setup (Capstone's allocator is a bump allocator over
 * memory mapped at hp_interp_start).
 */
#ifndef HOTPROF_RUNTIME_CTL_INTERP_INT_H
#define HOTPROF_RUNTIME_CTL_INTERP_INT_H
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <ucontext.h>
#include "runtime/ctl/interp.h"
#include "core/summary/value_gm.h"
#include "core/format/format.h"

/* Why an interpretation ended before L instructions (values.stop.<name>). */
enum hp_stop { HP_STOP_NONE, HP_STOP_SYSCALL, HP_STOP_FAULT, HP_STOP_ATOMIC, HP_STOP_UNSUPPORTED,
               HP_STOP_SIGNAL, HP_STOP_DECODE, HP_STOP_COUNT };

/* What the engine does with an instruction. */
enum hp_dkind { HP_DK_PLAIN, HP_DK_JMP, HP_DK_JCC, HP_DK_CALL, HP_DK_RET, HP_DK_STOP };
#define HP_DREG_NONE 0xffu
#define HP_DREG_RIP 16u
#define HP_DREG_XMM 0x80u /* dst entries: 0x80 | xmm index */

typedef struct hp_dmem {
    uint8_t base, index;  /* HP_VREG_*, HP_DREG_RIP or HP_DREG_NONE */
    uint8_t scale, size;  /* size in bytes (0: unknown, not read) */
    uint8_t access;       /* 1 read, 2 write */
    uint8_t fs;           /* fs segment override: add the thread's fs base */
    uint8_t pad[2];
    int64_t disp;
} hp_dmem;

typedef struct hp_dinsn {
    uint64_t pc;
    uint8_t len, kind, stop, cond;   /* cond: jcc condition code (low 4 bits of the opcode) */
    uint8_t ndst, nmem, fp, scratch; /* fp: touches x87/SSE state; scratch: RIP-relative fixup register
                                      * (HP_DREG_NONE: none) */
    uint8_t tgt_reg;                 /* indirect jmp/call through a register (else HP_DREG_NONE) */
    uint8_t tgt_mem;                 /* indirect through mem[0] */
    uint8_t is_entry;                /* endbr64 / push rbp: looks like a function entry */
    uint8_t pad;
    uint16_t ret_pop;                /* ret imm16 */
    uint8_t dst[6];                  /* destination registers (HP_VREG_* or HP_DREG_XMM | i) */
    uint64_t target;                 /* direct jmp/jcc/call target */
    hp_dmem mem[2];
    uint8_t orig[16];                /* the instruction's bytes as found at pc */
    uint8_t code[16];                /* the bytes to execute out of line (RIP-relative rewritten) */
} hp_dinsn;

#define HP_DCACHE 512u
#define HP_PCACHE 64u
#define HP_VSLOTS 2048u

/* One (pc, kind, operand) hot-list. */
typedef struct hp_vslot {
    uint64_t pc;       /* 0: empty */
    uint8_t kind, operand, pad[6];
    hp_vgm gm;
} hp_vslot;

/* The register file the stub loads and stores (HP_VREG_* order), then flags. */
typedef struct hp_gregs { uint64_t r[16]; uint64_t flags; uint64_t rip; } hp_gregs;

typedef struct hp_ool_data {
    hp_gregs g;          /* guest registers: in before the slot runs, out after */
    uint64_t host[7];    /* rbx rbp r12 r13 r14 r15 rsp of the caller */
    uint32_t host_mxcsr, fpflag;
    uint16_t host_fcw, pad[3];
    uint8_t align_[8];
    uint8_t fx[512] __attribute__((aligned(64))); /* the guest's fxsave image (when fpflag) */
} hp_ool_data;

typedef struct hp_ool {
    uint8_t *code;       /* RWX page: the stub; slot at code + slot_off */
    hp_ool_data *data;   /* the page after it */
    uint32_t slot_off;
} hp_ool;

typedef struct hp_interp_thread {
    size_t cs;           /* Capstone handle (csh) */
    void *insn;          /* cs_insn * from cs_malloc */
    uint64_t fsbase;
    uint64_t rng;
    hp_ool ool;
    uint64_t pcache[HP_PCACHE]; /* page numbers known readable (+1; 0 empty) */
    hp_dinsn dcache[HP_DCACHE];
    uint64_t vslots_used, vdropped;
    hp_vslot *vslots;    /* HP_VSLOTS */
    /* TF engine: steps left, whether capturing, the instruction being stepped and its pre-state */
    uint32_t tf_left, tf_skip, tf_active, tf_n;
    hp_dinsn tf_insn;
    hp_gregs tf_pre;
    uint64_t tf_ea[2];
    /* check engine: the out-of-line result of the instruction being stepped */
    uint32_t ck_valid, ck_nrange;
    hp_gregs ck_post;
    uint8_t ck_xmm[256];
    struct { uint64_t addr; uint32_t len, pad; uint8_t after[64]; } ck_range[3];
    /* OOL run state: the interrupted context's fxsave image, whether data->fx holds it */
    uint8_t *fx_uc;
    uint32_t fx_loaded, pad_;
    struct hp_mod_thread *mod; /* a customization module's buffers (interp_mod.c); NULL without one */
} hp_interp_thread;

/* interp_dec.c */
int hp_dec_load(char *err, size_t errlen);              /* dlopen Capstone, set its allocator */
int hp_dec_thread_init(hp_interp_thread *it);          /* handle and cs_insn of this thread */
int hp_readable(hp_interp_thread *it, uint64_t addr, uint64_t len); /* 1 if mapped (probe, cached) */
/* The decoded instruction at pc (cached), or NULL with *stop set (decode failure, unreadable). */
const hp_dinsn *hp_dec_get(hp_interp_thread *it, uint64_t pc, int *stop);

/* interp_stub.c */
int hp_ool_init(hp_ool *o);
void hp_ool_exec(hp_ool *o, const hp_dinsn *d); /* runs d->code on o->data (g, fx) */

/* interp_exec.c: one instruction of the OOL engine on a register file; 0 or a stop reason.
 * capture: record values into it's hot-lists. */
uint64_t hp_ea(const hp_interp_thread *it, const hp_dinsn *d, const hp_gregs *g, int i);
/* One instruction on it->ool.data->g (rip included) and data->fx (copied in from fx_uc at the first
 * instruction that needs it: fx_loaded); 0, or a stop reason (nothing changed then). */
int hp_ool_step(hp_interp_thread *it, int capture);
int hp_cond_true(uint8_t cond, uint64_t flags);
uint64_t hp_read_le(uint64_t addr, uint32_t size); /* up to 8 bytes, zero-extended */

/* interp_vals.c: hp_vals_add captures (through the module's filter when one is loaded: it then
 * buffers the tuple for hp_mod_flush); hp_vals_record puts a value in its hot-list directly. */
void hp_vals_record(hp_interp_thread *it, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value);
void hp_vals_add(hp_interp_thread *it, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value);
void hp_vals_capture_regs(hp_interp_thread *it, const hp_dinsn *d, const hp_gregs *g, const uint8_t *fx);

/* interp_mod.c: the customization module (include/hotprof/module.h) */
int hp_mod_load(const char *path, char *err, size_t errlen); /* init: 0 (also for no path), or -1 and err */
int hp_mod_active(void);
int hp_mod_wants_flags(void); /* the module's capture names HOTPROF_KIND_FLAGS */
struct hp_mod_thread *hp_mod_thread_new(void);  /* NULL without a module (or mmap failed) */
void hp_mod_capture(hp_interp_thread *it, uint64_t pc, uint8_t kind, uint8_t operand, uint64_t value);
void hp_mod_flush(hp_interp_thread *it);
void hp_mod_thread_reset(struct hp_mod_thread *mt); /* a recycled state: empty buffers and scratch */        /* at the end of an interpretation */
size_t hp_mod_info(char *out, size_t at, size_t cap); /* values.module* INFO lines */

/* interp.c: counters */
void hp_interp_count_stop(int reason);
void hp_interp_count_dropped(void);
void hp_interp_count(uint64_t runs, uint64_t insns, uint64_t ns);
const hp_interp_config *hp_interp_cfg(void);
void hp_gregs_from_uc(hp_gregs *g, const ucontext_t *uc);
void hp_gregs_to_uc(const hp_gregs *g, ucontext_t *uc);

/* interp_tf.c */
int hp_tf_install(char *err, size_t errlen);
/* The program's sigaction for SIGTRAP once the TF engine's handler is installed: its action becomes
 * the one traps that are not ours chain to, and *old gets its previous one. 1 if taken, else 0. */
int hp_tf_program_sigaction(int signo, const struct sigaction *sa, struct sigaction *old);
void hp_tf_begin(hp_interp_thread *it, ucontext_t *uc, uint32_t skip, uint32_t len);
size_t hp_tf_info(char *out, size_t at, size_t cap); /* values.check.* lines (check engine) */

#endif
