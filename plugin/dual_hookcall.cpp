// dual_hookcall.cpp — the back-edge hooks called with preserve_most and F's address computed in
// place (see dual_hookcall.h for why and the invariants); a record section's directive; the empty
// asm that keeps a block.
#include "dual_hookcall.h"

#include "llvm/IR/InlineAsm.h"

using namespace llvm;

namespace hotprof_dual {

namespace {

FunctionCallee declarePM(Module &M, const char *name, Type *ret)
{
    Type *i8p = Type::getInt8PtrTy(M.getContext());
    FunctionCallee hook = M.getOrInsertFunction(name, ret, i8p);
    if (auto *fn = dyn_cast<Function>(hook.getCallee())) fn->setCallingConv(CallingConv::PreserveMost);
    return hook;
}

// F's address as the hook's argument: an asm `lea` where F binds locally (a pc-relative reference
// links), else the plain constant (its address comes from the GOT, and the load may be hoisted).
Value *addressInPlace(IRBuilder<> &B, Function &named)
{
    Type *i8p = B.getInt8PtrTy();
    Value *plain = B.CreateBitCast(&named, i8p);
    if (!named.hasLocalLinkage() && !named.isDSOLocal()) return plain;
    FunctionType *T = FunctionType::get(i8p, {i8p}, false);
    InlineAsm *lea = InlineAsm::get(T, "leaq ${1:c}(%rip), $0", "=r,i,~{dirflag},~{fpsr},~{flags}",
                                    /*sideeffect*/ true);
    return B.CreateCall(T, lea, {plain});
}

} // namespace

FunctionCallee backedgeHookPM(Module &M)
{
    return declarePM(M, "__hotprof_dual_backedge_pm", Type::getInt32Ty(M.getContext()));
}

FunctionCallee cleanBackedgeHookPM(Module &M)
{
    return declarePM(M, "__hotprof_dual_clean_backedge_pm", Type::getVoidTy(M.getContext()));
}

CallInst *callBackedgeHook(IRBuilder<> &B, FunctionCallee hook, Function &named)
{
    auto *fn = dyn_cast<Function>(hook.getCallee());
    if (!fn || fn->getCallingConv() != CallingConv::PreserveMost) /* the C hook */
        return B.CreateCall(hook, {B.CreateBitCast(&named, B.getInt8PtrTy())});
    CallInst *call = B.CreateCall(hook, {addressInPlace(B, named)});
    call->setCallingConv(CallingConv::PreserveMost);
    return call;
}

std::string recordSection(const Function &F, StringRef section)
{
    std::string s = ".pushsection " + section.str() + ",\"a";
    if (const Comdat *cd = F.getComdat()) return s + "G\",@progbits,\"" + cd->getName().str() + "\",comdat\n";
    return s + "\",@progbits\n";
}

void emptyAsm(Instruction *before)
{
    CallInst::Create(InlineAsm::get(FunctionType::get(Type::getVoidTy(before->getContext()), false), "", "", true), "",
                     before);
}

} // namespace hotprof_dual
