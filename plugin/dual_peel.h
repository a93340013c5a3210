// dual_peel.h — which one-block loops the top form peels (-hotprof-dual-peel-max=N).
// The top form (-hotprof-dual-latch-form=top) copies a one-block loop so that its back-edge site
// sits at the loop's top: the nop falls through into the body, and no `jmp` runs per back-edge.
// The copy (the first iteration) is a third copy of the block under the block-level sets, a second
// one under dual-functions' wrapper form. For a long block that copy is much of the code a dual
// build adds (a vectorized loop with its runtime checks), and the `jmp` it saves is a small part
// of an iteration. So in the forms that copy F's code a block is peeled only while its work — its
// instructions but for phis, debug and lifetime intrinsics, the loads and stores of stack slots
// that promotion removes, and its terminator — is at most N instructions (24 unless given); the
// wrapper form peels every such loop unless N is given (docs/dual.md "Which loops are peeled").
// Invariant: a pure question about the block; it changes nothing.
#pragma once

#include "llvm/IR/BasicBlock.h"

namespace hotprof_dual {

// The instructions of B that the code generator keeps, as counted above.
unsigned blockWork(const llvm::BasicBlock &B);

// Whether the one-block loop B (with its split latch L, or nullptr) is short enough to peel, in a
// form that copies F's code (copyForm: the one-body and loop-entry forms) or not (the wrapper form).
bool worthPeeling(const llvm::BasicBlock &B, const llvm::BasicBlock *L, bool copyForm);

} // namespace hotprof_dual
