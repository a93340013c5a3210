// dual_wrapper.cpp — clean latch sites and the wrapper form of the dual plugin (dual_wrapper.h,
// docs/dual.md "Wrapper form", "Clean latch sites"): F keeps the optimizer's code; its loop
// back-edges get sites whose labels are cold blocks of F that count and record the back-edge, and
// under dual-functions its instrumented copy is a wrapper around F itself.
#include "dual_wrapper.h"
#include "dual_hookcall.h"

#include "dual_indirect.h"
#include "dual_options.h"
#include "dual_peel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

static cl::opt<std::string> LatchSplit("hotprof-dual-latch-split", cl::desc("hotprof dual: on|off"), cl::init("on"));

namespace hotprof_dual {

bool latchSplitOn() { return optionOn(LatchSplit); }

namespace {

constexpr unsigned kSharedLatchPredsMax = 32; // sites a shared latch may become (splitSharedLatches)

// latch only merges back-edges into header (mergingLatch), from at most kSharedLatchPredsMax
// blocks, and holds nothing but its phis and its branch.
bool sharedLatch(BasicBlock *latch, BasicBlock *header)
{
    return mergingLatch(latch, header, kSharedLatchPredsMax) &&
           &*latch->getFirstNonPHIOrDbg() == latch->getTerminator();
}

// A one-block loop hd of F in SSA form (its own latch, a conditional branch to itself and one
// exit, and the latch of no other edge) gets its site at the top, as the one-body form's peelLoop
// does in slot form: hd's phis and the values it defines for other blocks go to stack slots, a
// copy of hd runs the first iteration, every back-edge (the copy's and hd's) goes through the new
// block sc into hd, and the slots are promoted back. A nop per iteration and no jmp. Returns sc,
// ending in a branch to hd (the caller puts the site there), or nullptr if hd does not fit.
BasicBlock *peelTop(Function &F, BasicBlock *hd)
{
    auto *br = dyn_cast<BranchInst>(hd->getTerminator());
    if (!br || !br->isConditional() || (br->getSuccessor(0) == hd) == (br->getSuccessor(1) == hd)) return nullptr;
    if (hd->isEHPad() || hd->isLandingPad() || hd == &F.getEntryBlock()) return nullptr;
    for (BasicBlock *p : predecessors(hd))
        if (p != hd && !isa<BranchInst>(p->getTerminator()) && !isa<SwitchInst>(p->getTerminator())) return nullptr;
    SmallVector<AllocaInst *, 8> slots;
    SmallVector<PHINode *, 4> phis;
    for (PHINode &P : hd->phis()) phis.push_back(&P);
    for (PHINode *P : phis) slots.push_back(DemotePHIToStack(P));
    SmallVector<Instruction *, 8> escaping;
    for (Instruction &I : *hd)
        for (User *U : I.users())
            if (cast<Instruction>(U)->getParent() != hd) {
                escaping.push_back(&I);
                break;
            }
    for (Instruction *I : escaping) slots.push_back(DemoteRegToStack(*I));
    SmallVector<BasicBlock *, 4> preds; // (before the copy, itself a predecessor of hd, exists)
    for (BasicBlock *p : predecessors(hd))
        if (p != hd && !is_contained(preds, p)) preds.push_back(p);
    ValueToValueMapTy VM;
    BasicBlock *first = CloneBasicBlock(hd, VM, ".hp.first", &F);
    for (Instruction &I : *first) RemapInstruction(&I, VM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
    for (BasicBlock *p : preds) p->getTerminator()->replaceSuccessorWith(hd, first);
    BasicBlock *exit = br->getSuccessor(0) == hd ? br->getSuccessor(1) : br->getSuccessor(0);
    for (PHINode &P : exit->phis()) {
        Value *v = P.getIncomingValueForBlock(hd);
        P.addIncoming(VM.count(v) ? (Value *)VM[v] : v, first);
    }
    BasicBlock *sc = BasicBlock::Create(F.getContext(), "hp.clean.top", &F);
    BranchInst::Create(hd, sc);
    hd->getTerminator()->replaceSuccessorWith(hd, sc);
    first->getTerminator()->replaceSuccessorWith(hd, sc);
    // an empty asm ends the first iteration, so tail merging does not fold the copies back into one
    emptyAsm(first->getTerminator());
    DominatorTree DT(F);
    PromoteMemToReg(slots, DT);
    return sc;
}

} // namespace

// A shared latch's back-edge becomes one site per block that goes into it (the edges p -> latch):
// with the site in the latch, the code generator could no longer fold the latch's branch into
// each of them (tail duplication), so every iteration took the latch's phi copies and a jmp to it
// (a switch interpreter's loop: interp's `run`, 2-3 instructions per bytecode).
unsigned splitSharedLatches(SmallVectorImpl<std::pair<BasicBlock *, BasicBlock *>> &edges)
{
    return splitLatchEdges(edges, sharedLatch);
}

// Clean latch sites (the separate form of a computed-goto function, the wrapper form): F's own
// loop back-edges get sites, so count mode's countdown sees them and a burst records them, though
// F has no instrumented copy in its frame: the site's label is a cold block of F that calls
// __hotprof_dual_clean_backedge(F) and goes on to the header in the clean copy (the blocks of F
// itself are seen only in frames entered through a clone F.hotprof, if there is one).
unsigned addCleanLatchSites(Function &F, const CleanSites &S)
{
    if (S.latches == CleanSites::None) return 0;
    SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> edges;
    {
        DominatorTree DT(F);
        LoopInfo LI(DT);
        for (Loop *L : LI.getLoopsInPreorder()) {
            if (S.latches == CleanSites::Outer && L->getParentLoop()) continue;
            SmallVector<BasicBlock *, 4> latches;
            L->getLoopLatches(latches);
            for (BasicBlock *lt : latches) edges.push_back({lt, L->getHeader()});
        }
    }
    splitIndirectLatches(edges);
    if (hasComputedGoto(F))
        dispatchLatchEdges(edges); // a site per handler
    else if (latchSplitOn())
        splitSharedLatches(edges);
    for (auto &e : edges) {
        // (a loop whose header is also its latch through another edge is no one-block loop: peeling
        // would take that edge's target away)
        bool oneBlock = e.first == e.second &&
                        count_if(edges, [&](auto &o) { return o.first == e.first || o.second == e.second; }) == 1;
        BasicBlock *hd = e.second, *on = S.top && oneBlock && worthPeeling(*hd, nullptr) ? peelTop(F, hd) : nullptr;
        if (!on) on = SplitEdge(e.first, hd);
        BasicBlock *cold = BasicBlock::Create(F.getContext(), "hp.clean.latch", &F);
        IRBuilder<> B(cold);
        if (DILocation *dl = e.first->getTerminator()->getDebugLoc()) B.SetCurrentDebugLocation(dl);
        callBackedgeHook(B, S.cleanBackedge, F)->addFnAttr(Attribute::Cold);
        on->getTerminator()->eraseFromParent();
        BasicBlock *next = S.latchSite(on, hd, cold); // (hd, or the landing block before it)
        B.CreateBr(next);
        for (PHINode &P : next->phis()) P.addIncoming(P.getIncomingValueForBlock(on), cold);
    }
    return (unsigned)edges.size();
}

bool wrapperFits(Function &F)
{
    if (F.isVarArg() || F.hasFnAttribute(Attribute::ReturnsTwice)) return false;
    for (Argument &A : F.args())
        if (A.hasInAllocaAttr() || A.hasPreallocatedAttr() || A.hasSwiftErrorAttr()) return false;
    return true;
}

// The wrapper form (-hotprof-dual-functions-form=wrapper, dual-functions only): what the
// instrumented copy of dual-functions records (calls, call pairs, returns, back-edges) without a
// copy of F's code. F keeps the optimizer's code, gets the separate form's entry nop, whose label
// is F.hotprof, and a clean latch site on each back-edge (addCleanLatchSites: a burst counts and
// records them there). F.hotprof(args) = enter hook(F, its return address); F past the nop (F + 5,
// or F + 16 past a count build's entry pad: the site is before the prologue, so that is F's ABI
// entry) with the same arguments and attributes; exit hook; return F's value. A callee entered in a burst sees its call site in F's
// own code as its return address; the frames below F are one deeper (the wrapper's).
void runWrapper(Function &F, Module &M, const CleanSites &S)
{
    LLVMContext &C = F.getContext();
    Function *W = Function::Create(F.getFunctionType(), GlobalValue::InternalLinkage, F.getName() + ".hotprof", &M);
    W->copyAttributesFrom(&F);
    W->setLinkage(GlobalValue::InternalLinkage);
    W->setVisibility(GlobalValue::DefaultVisibility);
    W->setComdat(F.getComdat());
    W->removeFnAttr(Attribute::AlwaysInline);
    W->addFnAttr(Attribute::NoInline);
    W->setSectionPrefix("unlikely");
    IRBuilder<> B(BasicBlock::Create(C, "", W));
    Constant *fn = ConstantExpr::getBitCast(&F, S.i8p);
    Value *ra = B.CreateCall(Intrinsic::getDeclaration(&M, Intrinsic::returnaddress), {B.getInt32(0)});
    B.CreateCall(S.enter, {fn, ra});
    Constant *body = ConstantExpr::getBitCast(ConstantExpr::getInBoundsGetElementPtr(B.getInt8Ty(), fn, B.getInt64(S.entryBytes)),
                                              F.getType());
    SmallVector<Value *, 8> args;
    for (Argument &A : W->args()) args.push_back(&A);
    CallInst *CI = B.CreateCall(F.getFunctionType(), body, args);
    AttributeList FA = F.getAttributes();
    SmallVector<AttributeSet, 8> argAttrs;
    for (unsigned i = 0; i < F.arg_size(); i++) argAttrs.push_back(FA.getParamAttrs(i));
    CI->setAttributes(AttributeList::get(C, AttributeSet(), FA.getRetAttrs(), argAttrs));
    CI->setCallingConv(F.getCallingConv());
    B.CreateCall(S.exit, {fn, ra});
    if (F.getReturnType()->isVoidTy()) B.CreateRetVoid();
    else B.CreateRet(CI);
    if (verifyFunction(*W, &errs())) report_fatal_error("hotprof dual plugin: broken IR in " + W->getName());
    S.entrySite(F, *W);
    addCleanLatchSites(F, S);
    if (verifyFunction(F, &errs())) report_fatal_error("hotprof dual plugin: broken IR in " + F.getName());
}

} // namespace hotprof_dual
