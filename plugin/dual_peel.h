// dual_peel.h — which one-block loops the top form peels (-hotprof-dual-peel-max=N).
// The top form (-hotprof-dual-latch-form=top) copies a one-block loop so that its back-edge site
// sits at the loop's top: the nop falls through into the body, and neither a `jmp` nor the phi
// copies of a block on the latch edge run per back-edge. The copy (the first iteration) is a third
// copy of the block under the block-level sets, a second one under dual-functions' wrapper form;
// for a long block (a vectorized or unrolled loop) it is much of the code a dual build adds. With
// N given, a block is peeled only while its work — its instructions but for phis, debug and
// lifetime intrinsics, the loads and stores of stack slots that promotion removes, and its
// terminator — is at most N instructions; by default every one-block loop is peeled (a limit
// cost brotli 3.6% more instructions for 1.3% less text: docs/dual.md "Which loops are peeled").
// Invariant: a pure question about the block; it changes nothing.
#pragma once

#include "llvm/IR/BasicBlock.h"

namespace hotprof_dual {

// Whether the one-block loop B (with its split latch L, or nullptr) is short enough to peel: its
// work, as counted above, at most N.
bool worthPeeling(const llvm::BasicBlock &B, const llvm::BasicBlock *L);

} // namespace hotprof_dual
