// dual_retsites.h — return sites of the dual plugin's one-body form (-hotprof-dual-return-sites=on;
// plugin/dual_retsites.cpp, docs/dual.md "Return sites"). Used by hotprof_dual.cpp only, which
// clones the blocks and emits the sites (emitSite, kind 2).
// A return site sits right after a call in the clean copy: a 5-byte nop whose label is the point
// after the same call in the instrumented copy. Count mode's subpaths switch it to a trampoline
// that enters the instrumented copy while the thread's countdown is 0 (a burst is on), so a burst
// that returns into a clean caller goes on being seen.
// Invariants: the block of each chosen call is split right after the call *before* reg2mem, so
// every value that crosses the call crosses blocks and goes through a slot (mem2reg then repairs
// SSA where the instrumented continuation gets its second predecessor, as for latch sites); the
// continuation blocks (clean and instrumented) get no block hook, so the blocks stay sanitizer
// coverage's and exhaustive counts do not change; each site's record carries the distance from
// a label just before its call to the nop, so the runtime knows the call's return addresses;
// the instrumented copies' calls get records of such ranges too (kind 3, markReturnPoints).
// Pure IR work: no hooks here.
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace hotprof_dual {

// A call of the clean copy with a return site: the call and the block split off after it.
struct ReturnSite {
    llvm::CallInst *call;
    llvm::BasicBlock *cont;
};

// -hotprof-dual-return-sites=on (checks the option's value: one message, exit status 1).
bool returnSitesOn();
// A call whose return is recorded (markReturnPoints): not noreturn, not musttail, not an
// intrinsic, inline asm or hotprof/sanitizer hook.
bool returnPointCall(llvm::CallInst &CI);
// A call that gets a return site: one that can return to F (not noreturn, not musttail, not an
// intrinsic, inline asm or hotprof/sanitizer hook, and not directly followed by `ret`: a tail
// call returns nothing of F's to see, and splitting it would cost the sibling call).
bool returnSiteCall(llvm::CallInst &CI);
// Splits the block of every such call of F right after it; the pairs go to out (F's order).
void splitAfterCalls(llvm::Function &F, llvm::SmallVectorImpl<ReturnSite> &out);
// An empty asm with the label `2:` right before call: the record's distance is measured from it.
void markCall(llvm::CallInst *call);
// Each returnPointCall of the instrumented blocks bbs gets markCall and, right after it, a record
// of kind 3 {label after the call, the same, 3, distance << 16}: no site, only the call's return
// address range (a return there continues in instrumented code: the runtime cuts nothing).
void markReturnPoints(llvm::ArrayRef<llvm::BasicBlock *> bbs);

} // namespace hotprof_dual
