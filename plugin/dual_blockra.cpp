// dual_blockra.cpp — block hooks named by their return address: the inline asm call with its
// record, and the section's registration (see dual_blockra.h for the design and invariants).
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

GlobalVariable *bound(Module &M, Type *T, const char *name)
{
    if (GlobalVariable *G = M.getNamedGlobal(name)) return G;
    auto *G = new GlobalVariable(M, T, false, GlobalValue::ExternalWeakLinkage, nullptr, name);
    G->setVisibility(GlobalValue::HiddenVisibility);
    return G;
}

} // namespace

CallInst *callBlockHookRA(IRBuilder<> &B, Constant *guard, Function &F)
{
    F.addFnAttr(Attribute::NoRedZone);
    F.getParent()->getOrInsertNamedMetadata("hotprof.blkra"); /* the module registers its records */
    std::string text = "call __hotprof_blkra_thunk\n1:\n" + recordSection(F, "__hotprof_blkra") +
                       ".p2align 2\n.long 1b - .\n.long ${0:c} - .\n.popsection";
    Type *V = B.getVoidTy();
    FunctionType *T = FunctionType::get(V, {guard->getType()}, false);
    InlineAsm *call = InlineAsm::get(T, text, "i," + clobbers(F), /*sideeffect*/ true);
    return B.CreateCall(T, call, {guard});
}

void addBlockRARegistration(Module &M, IRBuilder<> &ctor, IRBuilder<> &dtor)
{
    NamedMDNode *used = M.getNamedMetadata("hotprof.blkra");
    if (!used) return; /* no such hook in M */
    M.eraseNamedMetadata(used);
    Type *i32 = ctor.getInt32Ty(), *V = ctor.getVoidTy();
    Type *i32p = PointerType::getUnqual(i32);
    GlobalVariable *start = bound(M, i32, "__start___hotprof_blkra"), *stop = bound(M, i32, "__stop___hotprof_blkra");
    ctor.CreateCall(M.getOrInsertFunction("__hotprof_blkra_init", V, i32p, i32p), {start, stop});
    dtor.CreateCall(M.getOrInsertFunction("__hotprof_blkra_fini", V, i32p, i32p), {start, stop});
}

} // namespace hotprof_dual
