// dual_blockra.cpp — block hooks named by their return address: the inline asm call with its
// record (see dual_blockra.h for the design and invariants).
#include "dual_blockra.h"
#include "dual_hookcall.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hotprof_dual {

namespace {

// Registers the asm may not keep a value in: as preserve_most leaves them to the caller.
std::string clobbers(Function &F)
{
    std::string c = "~{dirflag},~{fpsr},~{flags}";
    bool avx512 = F.getFnAttribute("target-features").getValueAsString().contains("+avx512f");
    for (int i = 0; i < (avx512 ? 32 : 16); i++) c += ",~{xmm" + std::to_string(i) + "}";
    for (int i = 0; avx512 && i < 8; i++) c += ",~{k" + std::to_string(i) + "}";
    return c;
}

} // namespace

CallInst *callBlockHookRA(IRBuilder<> &B, Constant *guard, Function &F)
{
    F.addFnAttr(Attribute::NoRedZone);
    std::string text = "call __hotprof_blkra_thunk\n1:\n" + recordSection(F, "__hotprof_blkra") +
                       ".p2align 2\n.long 1b - .\n.long ${0:c} - .\n.popsection";
    Type *V = B.getVoidTy();
    FunctionType *T = FunctionType::get(V, {guard->getType()}, false);
    InlineAsm *call = InlineAsm::get(T, text, "i," + clobbers(F), /*sideeffect*/ true);
    return B.CreateCall(T, call, {guard});
}

} // namespace hotprof_dual
