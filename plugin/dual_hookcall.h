// dual_hookcall.h — how the dual plugin calls the back-edge hooks from the far path of a site, and its
// asm helpers (recordSection, emptyAsm: at the end)
// (plugin/dual_hookcall.cpp, docs/dual.md "Back-edge hooks that keep the registers").
// A site's label is a block of F that the clean loop reaches only through a switched-on nop, yet
// the code generator allocates F's registers for it as for any block: a plain C call there makes
// every value live at the loop header survive a call (so the clean loop keeps them in callee-saved
// registers, pushed and popped on every call of F), and LICM hoists the call's argument, F's
// address, out of the loop into one more callee-saved register. So the back-edge hooks are called
// with LLVM's preserve_most convention (the runtime's entry points __hotprof_dual_backedge_pm and
// __hotprof_dual_clean_backedge_pm, src/runtime/hooks_pm.c, save every general register but R11
// around the C hook; RAX carries the answer of the first), and F's address is computed by an
// inline asm in the calling block itself, which LICM cannot move.
// Only in an executable's code (hotprof_dual.cpp, executableCode): a -fPIC library reaches the
// runtime through its PLT, and glibc's lazy binding (_dl_runtime_resolve) saves the argument
// registers but not R10, which preserve_most callers keep live; libraries keep the C calls.
// Invariant: every call of a _pm hook has the preserve_most calling convention (a call whose
// convention differs from its callee's is undefined and LLVM folds it away).
#pragma once

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hotprof_dual {

// __hotprof_dual_backedge_pm (int (void *)) and __hotprof_dual_clean_backedge_pm (void (void *)),
// declared in M with the preserve_most convention.
llvm::FunctionCallee backedgeHookPM(llvm::Module &M);
llvm::FunctionCallee cleanBackedgeHookPM(llvm::Module &M);

// A call of the back-edge hook `hook` at B's insertion point naming `named` (F, or the function a
// clone's hooks name): a _pm entry with the preserve_most convention and the address computed in
// place, a C hook plainly (the caller marks it cold where it is).
llvm::CallInst *callBackedgeHook(llvm::IRBuilder<> &B, llvm::FunctionCallee hook, llvm::Function &named);

// The directive that opens F's records in `section` (an inline asm's .pushsection): in F's comdat
// group where F has one, so a copy of F the linker discards (a C++ inline function defined in two
// objects) takes its records with it; else a plain allocated section.
std::string recordSection(const llvm::Function &F, llvm::StringRef section);

// An empty asm with side effects before `before`: it emits nothing, but the code generator keeps
// it, so tail merging does not fold the block it ends into an identical one (a peeled first
// iteration into its loop), and CodeGenPrepare does not fold the block away when it is otherwise
// empty (a landing block before a dispatch header).
void emptyAsm(llvm::Instruction *before);

} // namespace hotprof_dual
