/* test_interp_ool.c — the out-of-line engine on a known instruction sequence (global asm below),
 * driven with a hand-made ucontext (no signal): after interpreting the whole sequence the
 * registers, the xmm0 value, the memory it stored and the new rip are exactly what executing it
 * natively gives; the hot-lists hold the values written (rax = 7, the RIP-relative load, the call's
 * return value, xmm0 = 2.0); interpreting part of it and then the rest gives the same state; a
 * syscall stops the run (values.stop.syscall) without executing it; pt/value.c writes the lists
 * as a VALUES section that decodes back (format.h), and nothing after a rebind that clears; xsavec, xsaves
 * and xrstors stop a run before they execute; with the tf engine, a SIGTRAP that is not a
 * single step of ours (raise) reaches the handler the program had installed before, every time. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include "runtime/ctl/interp_int.h"
#include "runtime/pt/pt.h"
#include "runtime/thread.h"
#include "test.h"

int hp_rt_ensure_init(void);
int hp_rt_ensure_init(void) { return 0; }

extern char seq_start[], seq_end[], seq_sys[], seq_data[], seq_load[], seq_ret[], seq_addsd[];
extern char seq_xs[], seq_xsavec[], seq_xsaves[], seq_xrstors[];
__asm__(".text\n"
        "seq_start:\n"
        "  mov $7, %rax\n"
        "  lea seq_data(%rip), %rcx\n"
        "seq_load:\n"
        "  mov seq_data(%rip), %rdx\n"   /* RIP-relative load: 0x1122334455667788 */
        "  add %rax, %rdx\n"
        "  push %rdx\n"
        "  pop %rbx\n"
        "  cmp $7, %rax\n"
        "  jne 1f\n"
        "  add $1, %rbx\n"
        "1:call seq_sub\n"
        "seq_ret:\n"
        "  movsd seq_one(%rip), %xmm0\n"
        "seq_addsd:\n"
        "  addsd %xmm0, %xmm0\n"
        "  mov %rbx, 8(%rcx)\n"          /* store into seq_data[1] */
        "seq_end:\n"
        "  nop\n"
        "seq_sys:\n"
        "  syscall\n"
        "seq_sub:\n"
        "  mov $42, %esi\n"
        "  ret\n"
        "seq_xs:\n"                     /* glibc's lazy-binding trampoline saves the state so */
        "  xor %edx, %edx\n"
        "seq_xsavec:\n"
        "  xsavec (%rcx)\n"
        "seq_xsaves:\n"
        "  xsaves (%rcx)\n"
        "seq_xrstors:\n"
        "  xrstors (%rcx)\n"
        "  nop\n"
        ".data\n.align 16\n"
        "seq_data: .quad 0x1122334455667788, 0\n"
        "seq_one: .double 1.0\n"
        ".text\n");

static hp_thread th;
static uint8_t fpbuf[1024] __attribute__((aligned(64)));
static uint64_t stack_area[512] __attribute__((aligned(16)));

static void make_uc(ucontext_t *uc, void *pc)
{
    memset(uc, 0, sizeof *uc);
    __asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t(*)[512])fpbuf));
    uc->uc_mcontext.fpregs = (struct _libc_fpstate *)fpbuf;
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
    uc->uc_mcontext.gregs[REG_RSP] = (greg_t)&stack_area[400];
    uc->uc_mcontext.gregs[REG_EFL] = 0x202;
}

static int start(uint32_t len)
{
    hp_interp_config c = {.length = len, .every = 1, .engine = HP_ENGINE_OOL, .seed = 1};
    char err[200];
    if (hp_interp_start(&c, err, sizeof err) != 0) return -1;
    if (!th.interp) th.interp = hp_interp_thread_new();
    return th.interp ? 0 : -1;
}

static const hp_vslot *find(uint64_t pc, uint8_t kind, uint8_t operand)
{
    for (uint32_t i = 0; i < HP_VSLOTS; i++) {
        const hp_vslot *s = &th.interp->vslots[i];
        if (s->pc == pc && s->kind == kind && s->operand == operand) return s;
    }
    return NULL;
}

static void check_final(const ucontext_t *uc)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    uint64_t want_rdx = 0x1122334455667788ull + 7;
    CHECK_EQ_U64(g[REG_RIP], (uint64_t)seq_end);
    CHECK_EQ_U64(g[REG_RAX], 7);
    CHECK_EQ_U64(g[REG_RCX], (uint64_t)seq_data);
    CHECK_EQ_U64(g[REG_RDX], want_rdx);
    CHECK_EQ_U64(g[REG_RBX], want_rdx + 1);
    CHECK_EQ_U64(g[REG_RSI], 42);
    CHECK_EQ_U64(g[REG_RSP], (uint64_t)&stack_area[400]);
    CHECK_EQ_U64(((uint64_t *)seq_data)[1], want_rdx + 1);
    CHECK_EQ_U64(stack_area[399], (uint64_t)seq_ret);
    double x0;
    memcpy(&x0, (const uint8_t *)uc->uc_mcontext.fpregs + 160, 8);
    CHECK(x0 == 2.0);
}

TEST(whole_sequence)
{
    REQUIRE(start(64) == 0);
    ucontext_t uc;
    make_uc(&uc, seq_start);
    ((uint64_t *)seq_data)[1] = 0;
    hp_interp_on_sample(&th, &uc); /* stops at the syscall after seq_end's nop: 15 instructions */
    CHECK_EQ_U64(uc.uc_mcontext.gregs[REG_RIP], (uint64_t)seq_sys);
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)seq_end;
    check_final(&uc);
    const hp_vslot *s = find((uint64_t)seq_start, HP_VK_REG, HP_VREG_RAX);
    REQUIRE(s != NULL);
    CHECK_EQ_U64(s->gm.e[0].value, 7);
    s = find((uint64_t)seq_load, HP_VK_LOAD, 0);
    REQUIRE(s != NULL);
    CHECK_EQ_U64(s->gm.e[0].value, 0x1122334455667788ull);
    char info[2048];
    hp_interp_info(info, sizeof info);
    CHECK(strstr(info, "values.stop.syscall=1\n") != NULL);
}

TEST(split_run_same_state)
{
    REQUIRE(start(5) == 0);
    ucontext_t uc;
    make_uc(&uc, seq_start);
    ((uint64_t *)seq_data)[1] = 0;
    for (int i = 0; i < 3 && (uint64_t)uc.uc_mcontext.gregs[REG_RIP] != (uint64_t)seq_end; i++) hp_interp_on_sample(&th, &uc);
    check_final(&uc);
}

static uint8_t sec[1 << 16];
static size_t sec_len;
static uint32_t sec_type;
static void s_begin(uint32_t t) { sec_type = t, sec_len = 0; }
static void s_put(const void *p, size_t n)
{
    if (sec_len + n <= sizeof sec) memcpy(sec + sec_len, p, n);
    sec_len += n;
}
static void s_end(void) {}

TEST(values_section)
{
    REQUIRE(th.interp != NULL);
    hp_pt_sink o = {s_begin, s_put, s_end};
    hp_pt_value.write_thread(&th, &o);
    CHECK_EQ_U64(sec_type, HP_SEC_VALUES);
    size_t at = 0, recs = 0, found_xmm = 0;
    while (at + HP_REC_VALUE_FIXED <= sec_len) {
        hp_rec_value r;
        hp_fmt_get_value(sec + at, &r);
        at += HP_REC_VALUE_FIXED;
        CHECK(r.nvalues >= 1 && r.nvalues <= HP_VGM_N);
        uint64_t v;
        memcpy(&v, sec + at, 8);
        if (r.kind == HP_VK_XMM && r.pc == (uint64_t)seq_addsd) found_xmm += v == 0x4000000000000000ull; /* addsd: 2.0 */
        at += (size_t)r.nvalues * HP_REC_VALUE_ENTRY;
        recs++;
    }
    CHECK_EQ_U64(at, sec_len);
    CHECK(recs >= 10);
    CHECK_EQ_U64(found_xmm, 1);
    hp_interp_thread_rebind(th.interp, 1); /* a recycled state starts empty: no section */
    sec_type = 0;
    hp_pt_value.write_thread(&th, &o);
    CHECK_EQ_U64(sec_type, 0);
    CHECK_EQ_U64(hp_pt_value.thread_events(&th), 0);
}

/* xsavec, xsaves and xrstors (0f c7 /4 /5 /3) save or load the whole register state: run out of
 * line they would take the handler's xmm registers, not the program's (glibc's
 * _dl_runtime_resolve_xsavec then restored them into the program: printf printed 1.000 for
 * 140000000.0 at --freq 20000 --values 64/1). Each one stops the run before it executes. */
TEST(state_saves_stop)
{
    REQUIRE(start(64) == 0);
    static uint8_t area[4096] __attribute__((aligned(64)));
    char *stops[] = {seq_xsavec, seq_xsaves, seq_xrstors};
    for (int i = 0; i < 3; i++) {
        ucontext_t uc;
        make_uc(&uc, i ? stops[i] : seq_xs);
        uc.uc_mcontext.gregs[REG_RCX] = (greg_t)area;
        memset(area, 0xa5, sizeof area);
        hp_interp_on_sample(&th, &uc);
        CHECK_EQ_U64(uc.uc_mcontext.gregs[REG_RIP], (uint64_t)stops[i]);
        CHECK_EQ_U64(area[0], 0xa5); /* nothing saved */
    }
}

static volatile int own_traps;
static void own_trap(int sig) { (void)sig; own_traps++; }

TEST(tf_chains_foreign_trap)
{
    signal(SIGTRAP, own_trap);
    hp_interp_config c = {.length = 4, .every = 1, .engine = HP_ENGINE_TF, .seed = 1};
    char err[200];
    REQUIRE(hp_interp_start(&c, err, sizeof err) == 0);
    REQUIRE(hp_interp_start(&c, err, sizeof err) == 0); /* a second start must not chain to itself */
    hp_tls = &th;
    for (int i = 0; i < 3; i++) raise(SIGTRAP);
    CHECK_EQ_U64(own_traps, 3);
    hp_tls = NULL;
}

int main(void)
{
    RUN(whole_sequence);
    RUN(split_run_same_state);
    RUN(values_section);
    RUN(state_saves_stop);
    RUN(tf_chains_foreign_trap);
    return test_main_end();
}
