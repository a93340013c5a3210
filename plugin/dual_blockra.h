// dual_blockra.h — block hooks that a return address names (-hotprof-dual-block-hook=ra, the
// default in an executable's instrumented copies): a 5-byte `call __hotprof_blkra_thunk` in place
// of sanitizer coverage's `lea guard(%rip), %rdi; call hook` (12 bytes), with a record
// {return address, guard} (two 32-bit pc-relative offsets) in the section __hotprof_blkra, which
// the module's constructor hands to the runtime (__hotprof_blkra_init, and its destructor to
// __hotprof_blkra_fini: hotprof_dual.cpp addCtor; src/runtime/blockra.h). Every module that may
// hold such hooks registers the section: its bounds are the link's, and the runtime takes a
// section once (none: both bounds null).
// (plugin/dual_blockra.cpp, docs/dual.md "Block hooks named by their return address".)
// The call is an inline asm, so the record's label sits right after it; a copy of the asm (tail
// duplication, jump threading) emits its own record for its own label. The thunk
// (src/runtime/hooks_pm.c) keeps every general-purpose register; the asm declares the flags and
// the vector (and, with AVX-512, mask) registers clobbered, as preserve_most leaves them. A call
// from an inline asm pushes below RSP, so a function holding one is marked noredzone.
// Invariants: only in an executable's code (the runtime is linked statically: no PLT, whose lazy
// binding clobbers R10/R11, between the call and the thunk); the record lies in the function's
// comdat group where it has one, so a discarded copy takes its records with it.
#pragma once

#include "llvm/IR/IRBuilder.h"

namespace hotprof_dual {

// At B's insertion point in F: the thunk call and the record naming `guard` (a pointer constant
// into F's guard array). Marks F noredzone.
llvm::CallInst *callBlockHookRA(llvm::IRBuilder<> &B, llvm::Constant *guard, llvm::Function &F);

} // namespace hotprof_dual
