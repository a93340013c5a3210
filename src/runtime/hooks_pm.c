/* hooks_pm.c — the back-edge hooks' preserve_most entry points (plugin/dual_hookcall.h):
 * __hotprof_dual_backedge_pm and __hotprof_dual_clean_backedge_pm take F's address in RDI as their
 * C counterparts in hooks.c do, save every general-purpose register the C code may clobber except
 * R11 (the convention's scratch register) and RAX where it carries the answer, call the C hook,
 * and restore them. Vector registers are not saved: preserve_most leaves them to the caller.
 * Invariants: RSP is 16-byte aligned at the inner call (entry RSP = 8 mod 16, then 7 or 8 pushes
 * and 8 bytes of padding where needed); the CFI follows every push, so unwinders (libunwind in the
 * timer handler, C++ exception tables) walk through. Called only from code the plugin emits.
 * __hotprof_blkra_thunk, the block hook named by its return address (plugin/dual_blockra.h), is
 * called from an inline asm anywhere in a function (even before its prologue): it keeps every
 * general-purpose register including RAX and R11, aligns RSP itself (RBP keeps RSP as it was
 * after pushing RBP, and defines the CFA until RBP is popped), and hands its return address to
 * __hotprof_blkra in RDI. */

#define HP_PM_SAVE                                                                                 \
    "push %rcx\n.cfi_adjust_cfa_offset 8\npush %rdx\n.cfi_adjust_cfa_offset 8\n"                   \
    "push %rsi\n.cfi_adjust_cfa_offset 8\npush %rdi\n.cfi_adjust_cfa_offset 8\n"                   \
    "push %r8\n.cfi_adjust_cfa_offset 8\npush %r9\n.cfi_adjust_cfa_offset 8\n"                     \
    "push %r10\n.cfi_adjust_cfa_offset 8\n"
#define HP_PM_RESTORE                                                                              \
    "pop %r10\n.cfi_adjust_cfa_offset -8\npop %r9\n.cfi_adjust_cfa_offset -8\n"                    \
    "pop %r8\n.cfi_adjust_cfa_offset -8\npop %rdi\n.cfi_adjust_cfa_offset -8\n"                    \
    "pop %rsi\n.cfi_adjust_cfa_offset -8\npop %rdx\n.cfi_adjust_cfa_offset -8\n"                   \
    "pop %rcx\n.cfi_adjust_cfa_offset -8\n"
#define HP_PM_BEGIN(name)                                                                          \
    ".text\n.p2align 4\n.globl " name "\n.type " name ",@function\n" name ":\n.cfi_startproc\n"
#define HP_PM_END(name) ".cfi_endproc\n.size " name ", .-" name "\n"

/* int __hotprof_dual_backedge_pm(void *fn): the answer stays in EAX. */
__asm__(HP_PM_BEGIN("__hotprof_dual_backedge_pm") HP_PM_SAVE
        "call __hotprof_dual_backedge@PLT\n" HP_PM_RESTORE "ret\n"
        HP_PM_END("__hotprof_dual_backedge_pm"));

/* void __hotprof_dual_clean_backedge_pm(void *fn): RAX is saved too. */
__asm__(HP_PM_BEGIN("__hotprof_dual_clean_backedge_pm")
        "push %rax\n.cfi_adjust_cfa_offset 8\n" HP_PM_SAVE "sub $8, %rsp\n.cfi_adjust_cfa_offset 8\n"
        "call __hotprof_dual_clean_backedge@PLT\n"
        "add $8, %rsp\n.cfi_adjust_cfa_offset -8\n" HP_PM_RESTORE "pop %rax\n.cfi_adjust_cfa_offset -8\n"
        "ret\n" HP_PM_END("__hotprof_dual_clean_backedge_pm"));

/* void __hotprof_blkra_thunk(void): RSP is whatever the caller had (an inline asm's call). */
__asm__(HP_PM_BEGIN("__hotprof_blkra_thunk")
        "push %rbp\n.cfi_adjust_cfa_offset 8\n.cfi_rel_offset %rbp, 0\n"
        "mov %rsp, %rbp\n.cfi_def_cfa_register %rbp\n"
        "push %rax\npush %rcx\npush %rdx\npush %rsi\npush %rdi\npush %r8\npush %r9\npush %r10\npush %r11\n"
        "and $-16, %rsp\n"
        "mov 8(%rbp), %rdi\n"
        "call __hotprof_blkra@PLT\n"
        "lea -72(%rbp), %rsp\n"
        "pop %r11\npop %r10\npop %r9\npop %r8\npop %rdi\npop %rsi\npop %rdx\npop %rcx\npop %rax\n"
        "pop %rbp\n.cfi_def_cfa %rsp, 8\n.cfi_restore %rbp\n"
        "ret\n" HP_PM_END("__hotprof_blkra_thunk"));
