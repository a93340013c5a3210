// dual_peel.cpp — which one-block loops the top form peels (see dual_peel.h).
#include "dual_peel.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/CommandLine.h"

#include <climits>

using namespace llvm;

// The longest one-block loop (in blockWork's instructions) that the top form peels; 0 peels none
// (every back-edge site then takes the edge form). Default: no limit.
static cl::opt<unsigned> PeelMax("hotprof-dual-peel-max",
                                 cl::desc("hotprof dual: the longest one-block loop peeled (instructions)"),
                                 cl::init(UINT_MAX));

namespace hotprof_dual {

// A load or store of a static stack slot (reg2mem's slots, promoted back to registers later).
static bool slotAccess(const Instruction &I)
{
    const Value *p = nullptr;
    if (auto *L = dyn_cast<LoadInst>(&I)) p = L->getPointerOperand();
    if (auto *S = dyn_cast<StoreInst>(&I)) p = S->getPointerOperand();
    auto *A = p ? dyn_cast<AllocaInst>(p->stripPointerCasts()) : nullptr;
    return A && A->isStaticAlloca() && !I.isVolatile();
}

// The instructions of B that the code generator keeps (dual_peel.h).
static unsigned blockWork(const BasicBlock &B)
{
    unsigned n = 0;
    for (const Instruction &I : B) {
        if (isa<PHINode>(I) || isa<DbgInfoIntrinsic>(I) || I.isLifetimeStartOrEnd() || I.isTerminator()) continue;
        if (slotAccess(I)) continue;
        n++;
    }
    return n;
}

bool worthPeeling(const BasicBlock &B, const BasicBlock *L)
{
    if (PeelMax == UINT_MAX) return true;
    return blockWork(B) + (L && L != &B ? blockWork(*L) : 0) <= PeelMax;
}

} // namespace hotprof_dual
