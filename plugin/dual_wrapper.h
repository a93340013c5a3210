// dual_wrapper.h — clean latch sites and the wrapper form of the dual plugin
// (plugin/dual_wrapper.cpp, docs/dual.md "Wrapper form" and "Clean latch sites"). Used by
// hotprof_dual.cpp only, which supplies the hooks, the options and the site emitters (CleanSites).
// Invariants: F keeps the optimizer's code; a clean latch site's label is a cold block of F that
// calls __hotprof_dual_clean_backedge(F) and goes on to the loop header in F (F has no other copy
// in its frame); the wrapper F.hotprof holds no copy of F's code: it calls the entry hook, F past
// its entry nop (F + 5) and the exit hook.
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <functional>

namespace hotprof_dual {

struct CleanSites {
    llvm::FunctionCallee enter, exit, cleanBackedge; // __cyg_profile_func_enter/exit, __hotprof_dual_clean_backedge(_pm)
    llvm::Type *i8p = nullptr;
    enum { All, Outer, None } latches = All; // -hotprof-dual-latch-sites
    bool top = true;                         // -hotprof-dual-latch-form=top: one-block loops peeled
    // ends `at` (no terminator yet) with a back-edge site: fall through to normal, switched on to label;
    // returns the fall-through block (normal, or a landing block before it when normal is a header)
    std::function<llvm::BasicBlock *(llvm::BasicBlock *at, llvm::BasicBlock *normal, llvm::BasicBlock *label)> latchSite;
    // F's entry nop (its first byte) and its record, switched on: jmp W
    std::function<void(llvm::Function &F, llvm::Function &W)> entrySite;
    unsigned entryBytes = 5; // the entry site's bytes before F's ABI entry (5, or a 16-byte pad)
};

// F's loop back-edges (LoopInfo latches, as S.latches selects them) get clean latch sites; a
// latch ending in an indirectbr first gets its back-edge as a plain branch (splitIndirectLatches),
// a one-block loop (with S.top) is peeled so its site sits at its top. Returns the sites added.
unsigned addCleanLatchSites(llvm::Function &F, const CleanSites &S);

// -hotprof-dual-latch-split=on|off (checks its value): a latch that only merges back-edges
// (LoopSimplify's) gets a site per block going into it, not one site in it (on, the default).
bool latchSplitOn();

// Each (latch, header) edge whose latch only merges back-edges (LoopSimplify's: phis and a
// branch, at most 32 blocks going into it, each by one br or switch edge) becomes the edges
// (p, latch) of the blocks p going into it: one site each. Returns the latches split.
unsigned splitSharedLatches(llvm::SmallVectorImpl<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> &edges);

// F's arguments can be passed on as they came (no varargs, inalloca, preallocated or swifterror;
// not returns_twice). The caller also checks that F can carry an entry nop.
bool wrapperFits(llvm::Function &F);

// The wrapper form: F.hotprof (the wrapper), F's entry site to it, F's clean latch sites.
void runWrapper(llvm::Function &F, llvm::Module &M, const CleanSites &S);

} // namespace hotprof_dual
