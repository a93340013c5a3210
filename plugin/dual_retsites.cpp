// dual_retsites.cpp — return sites of the one-body form (dual_retsites.h, docs/dual.md "Return
// sites"): which calls get one, the block split after each, the label before each call.
// Invariants: see dual_retsites.h (split before reg2mem; the label `2:` directly precedes the
// call in the clean copy, and the site asm that follows the call is the next asm of its block).
#include "dual_retsites.h"
#include "dual_hookcall.h"
#include "dual_options.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

// off (default: as before) or on (a site after each call of a one-body function's clean copy).
static cl::opt<std::string> ReturnSites("hotprof-dual-return-sites", cl::desc("hotprof dual: off|on"),
                                        cl::init("off"));

namespace hotprof_dual {

bool returnSitesOn() { return optionOn(ReturnSites); }

static bool hookName(StringRef n)
{
    return n.startswith("__hotprof") || n.startswith("__sanitizer_") || n.startswith("__cyg_profile");
}

// The instruction after I (debug intrinsics skipped) is a return.
static bool beforeReturn(Instruction &I)
{
    for (Instruction *N = I.getNextNode(); N; N = N->getNextNode())
        if (!isa<DbgInfoIntrinsic>(N)) return isa<ReturnInst>(N);
    return false;
}

bool returnPointCall(CallInst &CI)
{
    if (CI.isInlineAsm() || CI.isMustTailCall() || CI.doesNotReturn() || isa<IntrinsicInst>(CI)) return false;
    if (Function *callee = CI.getCalledFunction())
        if (callee->isIntrinsic() || hookName(callee->getName())) return false;
    return true;
}

bool returnSiteCall(CallInst &CI) { return returnPointCall(CI) && !beforeReturn(CI); }

void markReturnPoints(ArrayRef<BasicBlock *> bbs)
{
    SmallVector<CallInst *, 16> calls;
    for (BasicBlock *BB : bbs)
        for (Instruction &I : *BB)
            if (auto *CI = dyn_cast<CallInst>(&I))
                if (returnPointCall(*CI)) calls.push_back(CI);
    if (calls.empty()) return;
    auto *FT = FunctionType::get(Type::getVoidTy(calls[0]->getContext()), false);
    InlineAsm *rec = InlineAsm::get(FT,
                                    "1:\n" + recordSection(*calls[0]->getFunction(), "__hotprof_dual") +
                                        ".balign 4\n.long 1b - .\n.long 1b - .\n.long 3\n.short 0\n"
                                        ".short 1b - 2b\n.popsection",
                                    "", /*sideeffect*/ true);
    for (CallInst *CI : calls) {
        markCall(CI);
        CallInst::Create(rec, "", CI->getNextNode());
    }
}

void splitAfterCalls(Function &F, SmallVectorImpl<ReturnSite> &out)
{
    SmallVector<CallInst *, 16> calls;
    for (BasicBlock &BB : F)
        for (Instruction &I : BB)
            if (auto *CI = dyn_cast<CallInst>(&I))
                if (returnSiteCall(*CI)) calls.push_back(CI);
    for (CallInst *CI : calls) {
        BasicBlock *cont = CI->getParent()->splitBasicBlock(CI->getNextNode(), CI->getParent()->getName() + ".ret");
        out.push_back({CI, cont});
    }
}

void markCall(CallInst *call)
{
    auto *FT = FunctionType::get(Type::getVoidTy(call->getContext()), false);
    CallInst::Create(InlineAsm::get(FT, "2:", "", /*sideeffect*/ true), "", call);
}

} // namespace hotprof_dual
