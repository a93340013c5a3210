// dual_countver.h — counted loops without a count per iteration (the dual plugin's
// -hotprof-dual-count-version=on, the default with count registers; plugin/dual_countver.cpp,
// docs/dual.md "Loops that need no count").
// In a call-free region (dual_countreg.h) an innermost loop's latch site costs `subq $1, %reg;
// jle` per back-edge, and splits the loop's bottom so the code generator adds a `jmp` more. When
// scalar evolution bounds the loop's back-edges by a loop-invariant M, the loop gets a second
// clean copy without its site, entered from its preheader when the count exceeds M: no site can
// fire in that run of the loop. On each edge out of that copy the count drops by the back-edges it
// took, read off one of the loop's own induction variables (an integer header phi {s,+,1} or
// {s,+,-1}: |iv - s|). The bound is SCEV's symbolic maximum of the back-edges taken; where its
// range (under the loop's guards) or the constant maximum is at most 4096, that constant, one
// compare with an immediate; a bound that may reach 2^63 (two compares and its code per entry:
// measured dearer than the sites) is not used. Otherwise (count <= M: exhaustive and live
// modes, a burst due within the loop) the loop runs as before, a site on every back-edge.
// Invariants: the count after the loop is the one the per-iteration sites would leave (the same
// number of events, never a site skipped that would have fired); the copy has no site, no label
// and no record, and is entered only from the preheader; values the loop defines that are used
// outside it go through stack slots appended to `promote` (mem2reg puts them back). Pure IR work.
#pragma once

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace hotprof_dual {

// -hotprof-dual-count-version=on|const|off (checks its value: one message, exit status 1);
// const: constant bounds only.
bool countVersionOn();

// Versions F's eligible loops: innermost loops of the count regions (`inRegion`: their blocks)
// with exactly one count site, still in its callbr form, on their single back-edge. `labels` are
// the sites' labels (cut off while the loops are analysed, as dual_countreg.cpp does), `slot` the
// regions' count. Returns the number of loops versioned.
unsigned versionCountedLoops(llvm::Function &F, llvm::AllocaInst *slot,
                             const llvm::SmallPtrSetImpl<llvm::BasicBlock *> &labels,
                             const llvm::SmallPtrSetImpl<llvm::BasicBlock *> &inRegion,
                             llvm::SmallVectorImpl<llvm::AllocaInst *> &promote);

} // namespace hotprof_dual
