// dual_countver.cpp — counted loops without a count per iteration (dual_countver.h; docs/dual.md
// "Loops that need no count"). Runs inside promoteCountdowns (dual_countreg.cpp) after the loads
// and stores of the count are on the regions' edges and before the sites are rewritten: each
// chosen loop is analysed with the labels cut off (scalar evolution, its bound expanded in the
// preheader), then cloned on the whole CFG.
#include "dual_countver.h"
#include "dual_countreg.h"
#include "dual_options.h"

#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

static cl::opt<std::string> CountVersion("hotprof-dual-count-version", cl::desc("hotprof dual: on|off"),
                                         cl::init("on"));

namespace hotprof_dual {

bool countVersionOn()
{
    checkOption(CountVersion, {"on", "const", "off"});
    return CountVersion != "off";
}

// -hotprof-dual-count-version=const: only loops whose bound is a small constant (no code computes
// it; one compare per entry).
static bool constOnly() { return CountVersion == "const"; }

namespace {

// A loop to version, found on the cut CFG: its blocks, header, preheader and site, the induction
// variable that tells its back-edges (iv = start + stride * back-edges taken) and its bound on the
// back-edges (a constant, or code expanded at the end of the preheader).
struct Counted {
    SmallVector<BasicBlock *, 8> blocks;
    BasicBlock *header, *preheader;
    CallBrInst *site;
    PHINode *iv;
    Value *start, *bound;
    int64_t stride; // the induction variable's step per iteration, +1 or -1
    SmallVector<Instruction *, 8> added; // the bound's code
    unsigned extra; // the site's runs in an iteration beyond the back-edges taken before it (0 or 1)
};

// The bound's code goes again.
void eraseAdded(Counted &c)
{
    for (Instruction *I : llvm::reverse(c.added)) I->replaceAllUsesWith(UndefValue::get(I->getType()));
    for (Instruction *I : llvm::reverse(c.added)) I->eraseFromParent();
    c.added.clear();
}

// The single count site of L's blocks, or nullptr.
CallBrInst *onlySite(Loop *L)
{
    CallBrInst *site = nullptr;
    for (BasicBlock *BB : L->blocks())
        if (CallBrInst *cb = countSite(*BB)) {
            if (site) return nullptr;
            site = cb;
        }
    return site;
}

// How many times the site runs in an iteration that has taken j back-edges, beyond j: 0 when it is
// on L's single back-edge (its block is the latch, or leads straight to it), 1 when its block is
// L's header (the latch form `top` of a one-block loop: the first iteration runs before the loop,
// and each entry into the loop is one of the original loop's back-edges); -1 if neither.
int siteRunsBeyondBackEdges(Loop *L, CallBrInst *site)
{
    BasicBlock *S = site->getParent(), *latch = L->getLoopLatch(), *N = site->getDefaultDest();
    if (!latch) return -1;
    if (S == L->getHeader()) return L->contains(N) ? 1 : -1;
    if (S == latch) return N == L->getHeader() ? 0 : -1;
    auto *br = dyn_cast<BranchInst>(latch->getTerminator());
    return N == latch && latch->getSinglePredecessor() == S && br && br->isUnconditional() ? 0 : -1;
}

// A header phi that tells the back-edges taken: an integer {start, +, 1} or {start, +, -1} at least
// as wide as the bound (and at most 64 bits).
PHINode *backEdgeCounter(Loop *L, ScalarEvolution &SE, const SCEV *bound, int64_t &stride)
{
    unsigned need = bound->getType()->getIntegerBitWidth();
    for (PHINode &P : L->getHeader()->phis()) {
        if (!P.getType()->isIntegerTy()) continue;
        unsigned w = P.getType()->getIntegerBitWidth();
        if (w < need || w > 64) continue;
        auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&P));
        if (!AR || AR->getLoop() != L || !AR->isAffine()) continue;
        auto *step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
        if (!step || !(step->getAPInt().isOne() || step->getAPInt().isAllOnes())) continue;
        stride = step->getAPInt().isOne() ? 1 : -1;
        return &P;
    }
    return nullptr;
}

// Every exit of L (but the site's label) leaves from a br or a switch, so its edge can be split.
bool exitsSplittable(Loop *L, CallBrInst *site)
{
    SmallVector<BasicBlock *, 8> exiting;
    L->getExitingBlocks(exiting);
    for (BasicBlock *X : exiting) {
        if (X == site->getParent()) continue; /* (its only exit is the label, cut off) */
        Instruction *TI = X->getTerminator();
        if (!isa<BranchInst>(TI) && !isa<SwitchInst>(TI)) return false;
    }
    return true;
}

// A bound the preheader can compute cheaply from what it has: no division, and no induction
// variable of an outer loop (expanding one would add phis to that loop's header, whose edges from
// the cut-off labels the expander cannot see).
bool expandable(const SCEV *S)
{
    return !SCEVExprContains(S, [](const SCEV *E) { return isa<SCEVUDivExpr>(E) || isa<SCEVAddRecExpr>(E); });
}

// A bound at most this large is tested as the constant it is at most (SCEV's unsigned range): one
// compare with an immediate, no code to compute it, and a count above it is the common case
// (count mode at 1/1000 arms ~1000 events, off mode never runs out).
constexpr uint64_t SmallBound = 4096;

bool fill(Counted &c, Loop *L, CallBrInst *site, PHINode *iv, int64_t stride, int extra)
{
    c.blocks.assign(L->block_begin(), L->block_end());
    c.header = L->getHeader();
    c.preheader = L->getLoopPreheader();
    c.site = site;
    c.iv = iv;
    c.start = iv->getIncomingValueForBlock(c.preheader);
    c.stride = stride;
    c.extra = (unsigned)extra;
    return true;
}

// The least of what is known of the bound: its range under the loop's guards, or its constant
// maximum.
APInt boundMost(Loop *L, ScalarEvolution &SE, const SCEV *bound)
{
    APInt most = SE.getUnsignedRangeMax(SE.applyLoopGuards(bound, L));
    if (auto *k = dyn_cast<SCEVConstant>(SE.getConstantMaxBackedgeTakenCount(L)))
        if (k->getType() == bound->getType() && k->getAPInt().ult(most)) most = k->getAPInt();
    return most;
}

// The bound as code at the end of P (its instructions in c.added), or nullptr. Not where it may
// reach 2^63 - 1 (where the loop runs its guards hold, in the instrumented copy's way back too,
// which is the same code: `n - 1` under `n > 0` is below): count > bound + extra would then need
// two compares and the bound's code on every entry, and measured on the workloads such loops were
// short enough that the copy cost more than the sites (compress under dual-blocks, +5.7%
// instructions switched off: its one-body form starts match_len's counter at a phi, max - 1 - n
// may wrap).
Value *expandBound(Loop *L, ScalarEvolution &SE, const SCEV *bound, BasicBlock *P, Counted &c)
{
    if (constOnly() || !expandable(bound) || !isSafeToExpandAt(bound, P->getTerminator(), SE)) return nullptr;
    if (SE.getUnsignedRangeMax(SE.applyLoopGuards(bound, L)).zext(64).uge(APInt::getSignedMaxValue(64)))
        return nullptr;
    // The expander may hoist code out of outer loops, to blocks that dominate the preheader on the
    // cut CFG: whether they do on the whole CFG is checked once the labels are back (expandedOk).
    SCEVExpander expand(SE, P->getModule()->getDataLayout(), "hp.maxbe", false); /* (no LCSSA needed) */
    Value *v = expand.expandCodeFor(bound, bound->getType(), P->getTerminator());
    c.added = expand.getAllInsertedInstructions();
    expand.clear();
    return v;
}

// L as a loop to version, its bound a constant or expanded in its preheader; false if it is not
// one.
bool analyse(Loop *L, ScalarEvolution &SE, const SmallPtrSetImpl<BasicBlock *> &inRegion, Counted &c)
{
    BasicBlock *P = L->getLoopPreheader();
    if (!L->isInnermost() || !P || !isa<BranchInst>(P->getTerminator())) return false;
    for (BasicBlock *BB : L->blocks())
        if (!inRegion.count(BB)) return false;
    CallBrInst *site = onlySite(L);
    int extra = site ? siteRunsBeyondBackEdges(L, site) : -1;
    if (extra < 0 || !exitsSplittable(L, site)) return false;
    const SCEV *bound = SE.getSymbolicMaxBackedgeTakenCount(L);
    if (isa<SCEVCouldNotCompute>(bound) || !bound->getType()->isIntegerTy()) return false;
    int64_t stride = 0;
    PHINode *iv = bound->getType()->getIntegerBitWidth() <= 64 ? backEdgeCounter(L, SE, bound, stride) : nullptr;
    if (!iv) return false;
    APInt most = boundMost(L, SE, bound);
    if (most.ule(SmallBound)) /* one compare with a constant; no code for the bound */
        c.bound = ConstantInt::get(bound->getType(), most.getZExtValue());
    else if (!(c.bound = expandBound(L, SE, bound, P, c)))
        return false;
    return fill(c, L, site, iv, stride, extra);
}

// The loops to version, found with the labels cut off (see LabelCut).
SmallVector<Counted, 4> findCounted(Function &F, const SmallPtrSetImpl<BasicBlock *> &labels,
                                    const SmallPtrSetImpl<BasicBlock *> &inRegion)
{
    SmallVector<Counted, 4> found;
    LabelCut cut(F, labels);
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) /* (before scalar evolution looks at them) */
        if (L->isInnermost() && !L->getLoopPreheader() && onlySite(L))
            InsertPreheaderForLoop(L, &DT, &LI, nullptr, false);
    TargetLibraryInfoImpl TLII(Triple(F.getParent()->getTargetTriple()));
    TargetLibraryInfo TLI(TLII, &F);
    AssumptionCache AC(F);
    ScalarEvolution SE(F, TLI, AC, DT, LI);
    for (Loop *L : LI.getLoopsInPreorder()) {
        Counted c;
        if (analyse(L, SE, inRegion, c)) found.push_back(std::move(c));
    }
    return found;
}

// Values defined in the loop and used outside it go through stack slots, so the copy needs no
// SSA repair (mem2reg undoes it).
void demoteLiveOuts(Counted &c, SmallVectorImpl<AllocaInst *> &promote, Instruction *allocaPoint)
{
    SmallPtrSet<BasicBlock *, 16> in(c.blocks.begin(), c.blocks.end());
    SmallVector<Instruction *, 16> liveOut;
    for (BasicBlock *BB : c.blocks)
        for (Instruction &I : *BB)
            for (User *U : I.users())
                if (!in.count(cast<Instruction>(U)->getParent())) {
                    liveOut.push_back(&I);
                    break;
                }
    for (Instruction *I : liveOut) {
        AllocaInst *a = DemoteRegToStack(*I, false, allocaPoint); /* (a phi stays, its users load) */
        if (!a) report_fatal_error("hotprof dual plugin: a value live out of a loop could not be demoted", false);
        promote.push_back(a);
    }
}

// B, only an unconditional branch, with one predecessor that is not already one of its
// successor's: the predecessor branches to the successor instead and B goes. False if B stays.
bool dropEmptyBlock(BasicBlock *B)
{
    auto *br = dyn_cast<BranchInst>(B->getTerminator());
    BasicBlock *pred = B->getSinglePredecessor(), *succ = br && br->isUnconditional() ? br->getSuccessor(0) : nullptr;
    if (&B->front() != br || !pred || !succ || succ == B || pred == B) return false;
    if (!isa<BranchInst>(pred->getTerminator()) && !isa<SwitchInst>(pred->getTerminator())) return false;
    if (std::find(pred_begin(succ), pred_end(succ), pred) != pred_end(succ)) return false;
    Instruction *TI = pred->getTerminator();
    for (unsigned i = 0; i < TI->getNumSuccessors(); i++)
        if (TI->getSuccessor(i) == B) TI->setSuccessor(i, succ);
    for (PHINode &P : succ->phis()) P.setIncomingBlock(P.getBasicBlockIndex(B), pred);
    B->eraseFromParent();
    return true;
}

// The copy's blocks (VM maps the loop's to them), its site a plain branch, its phis without the
// edges it does not have (the labels', the other copy's).
SmallVector<BasicBlock *, 8> cloneLoop(Counted &c, ValueToValueMapTy &VM)
{
    SmallVector<BasicBlock *, 8> copy;
    Function *F = c.header->getParent();
    for (BasicBlock *BB : c.blocks) {
        BasicBlock *B2 = CloneBasicBlock(BB, VM, ".hp.nocount", F);
        VM[BB] = B2;
        copy.push_back(B2);
    }
    remapInstructionsInBlocks(copy, VM);
    auto *site2 = cast<CallBrInst>(VM[c.site]);
    BranchInst::Create(cast<BasicBlock>(VM[c.site->getDefaultDest()]), site2->getParent());
    site2->eraseFromParent();
    SmallPtrSet<BasicBlock *, 16> inCopy(copy.begin(), copy.end());
    BasicBlock *H2 = cast<BasicBlock>(VM[c.header]);
    for (BasicBlock *B2 : copy)
        for (PHINode &P : B2->phis())
            for (unsigned i = P.getNumIncomingValues(); i-- > 0;) {
                BasicBlock *from = P.getIncomingBlock(i);
                if (!inCopy.count(from) && !(B2 == H2 && from == c.preheader)) P.removeIncomingValue(i, false);
            }
    // Blocks the copy cannot reach (entered only from a label, which stays with the original) go.
    SmallPtrSet<BasicBlock *, 16> seen{H2};
    SmallVector<BasicBlock *, 16> work{H2};
    while (!work.empty())
        for (BasicBlock *S : successors(work.pop_back_val()))
            if (inCopy.count(S) && seen.insert(S).second) work.push_back(S);
    SmallVector<BasicBlock *, 4> dead;
    for (BasicBlock *B2 : copy)
        if (!seen.count(B2)) dead.push_back(B2);
    if (!dead.empty()) {
        DeleteDeadBlocks(dead);
        copy.erase(std::remove_if(copy.begin(), copy.end(), [&](BasicBlock *B2) { return !seen.count(B2); }), copy.end());
    }
    // The site's block and the latch it led to, now only branches, go (not the header): the block
    // before them branches on its own compare to the header, as the native loop's latch does.
    for (unsigned i = copy.size(); i-- > 0;)
        if (copy[i] != H2 && dropEmptyBlock(copy[i])) copy.erase(copy.begin() + i);
    return copy;
}

// The copy's edge B2 -> E joins the original's B -> E: E's phis take the mapped values for it.
void joinExit(BasicBlock *B, BasicBlock *B2, BasicBlock *E, ValueToValueMapTy &VM)
{
    for (PHINode &P : E->phis()) {
        unsigned n = P.getNumIncomingValues();
        for (unsigned i = 0; i < n; i++) {
            if (P.getIncomingBlock(i) != B) continue;
            Value *v = P.getIncomingValue(i);
            auto it = VM.find(v);
            P.addIncoming(it != VM.end() ? static_cast<Value *>(it->second) : v, B2);
        }
    }
}

// On the way out of the copy: count -= the site's runs, the back-edges taken (|iv - start| in the
// copy) plus c.extra. The iv goes through an empty asm: scalar evolution would otherwise see
// count - iv, an induction variable of its own, and loop strength reduction would carry it through
// the loop (a decrement per iteration again, in dual-blocks' one-body form). A 64-bit iv goes into
// the subtraction itself inside the asm, `sub %iv, %count` on count + (start - extra) (or `add` on
// count - (start + extra)): the same value modulo 2^64, and the count's register takes it, where
// the asm's copy of the iv cost a `mov` per exit (compress's match_len, 21 M per run). A narrower
// iv's back-edges are its own width's difference, so it keeps the copy.
void countOnExit(Instruction *at, Counted &c, PHINode *iv2, AllocaInst *slot)
{
    IRBuilder<> b(at);
    Type *i64 = slot->getAllocatedType();
    Value *count = b.CreateLoad(i64, slot), *extra = ConstantInt::get(i64, c.extra);
    if (iv2->getType() == i64) {
        Value *base = c.stride < 0 ? b.CreateSub(count, b.CreateAdd(c.start, extra))
                                   : b.CreateAdd(count, b.CreateSub(c.start, extra));
        FunctionType *two = FunctionType::get(i64, {i64, i64}, false);
        InlineAsm *op = InlineAsm::get(two, c.stride < 0 ? "addq $2, $0" : "subq $2, $0",
                                       "=r,0,r,~{dirflag},~{fpsr},~{flags}", false);
        b.CreateStore(b.CreateCall(two, op, {base, iv2}, "hp.count.after"), slot);
        return;
    }
    FunctionType *same = FunctionType::get(iv2->getType(), {iv2->getType()}, false);
    Value *iv = b.CreateCall(same, InlineAsm::get(same, "", "=r,0", false), {iv2});
    Value *taken = b.CreateZExtOrTrunc(c.stride < 0 ? b.CreateSub(c.start, iv) : b.CreateSub(iv, c.start), i64);
    b.CreateStore(b.CreateSub(count, b.CreateAdd(taken, extra), "hp.count.after"), slot);
}

// The preheader goes to the copy when no site can fire in this run of the loop: the site runs at
// most bound + extra times, so count > bound + extra (a signed compare: bound + extra < 2^63).
void chooseCopy(Counted &c, BasicBlock *H2, AllocaInst *slot)
{
    Instruction *TI = c.preheader->getTerminator();
    IRBuilder<> b(TI);
    Type *i64 = slot->getAllocatedType();
    Value *count = b.CreateLoad(i64, slot);
    Value *most = b.CreateAdd(b.CreateZExt(c.bound, i64), ConstantInt::get(i64, c.extra));
    Value *none = b.CreateICmpSGT(count, most, "hp.nocount");
    MDNode *likely = MDBuilder(TI->getContext()).createBranchWeights(1u << 12, 1);
    b.CreateCondBr(none, H2, c.header, likely);
    TI->eraseFromParent();
}

// The bound's code is valid on the whole CFG: each of its instructions dominated by its operands
// and dominating its users (the preheader's test among them). Else it is removed.
bool expandedOk(Counted &c, DominatorTree &DT)
{
    bool ok = true;
    for (Instruction *I : c.added) {
        for (Value *op : I->operands())
            if (auto *def = dyn_cast<Instruction>(op)) ok &= DT.dominates(def, I);
        for (User *U : I->users()) ok &= DT.dominates(I, cast<Instruction>(U));
    }
    if (auto *b = dyn_cast<Instruction>(c.bound)) ok &= DT.dominates(b, c.preheader->getTerminator());
    if (ok) return true;
    eraseAdded(c);
    return false;
}

void version(Counted &c, AllocaInst *slot, SmallVectorImpl<AllocaInst *> &promote)
{
    demoteLiveOuts(c, promote, slot);
    SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> exits;
    SmallPtrSet<BasicBlock *, 16> in(c.blocks.begin(), c.blocks.end());
    for (BasicBlock *B : c.blocks)
        for (BasicBlock *E : successors(B))
            if (!in.count(E) && !(B == c.site->getParent() && E == c.site->getIndirectDest(0)))
                if (std::find(exits.begin(), exits.end(), std::make_pair(B, E)) == exits.end())
                    exits.push_back({B, E});
    ValueToValueMapTy VM;
    cloneLoop(c, VM);
    auto *iv2 = cast<PHINode>(VM[c.iv]);
    for (auto &e : exits) {
        auto *B2 = cast_or_null<BasicBlock>(VM.lookup(e.first));
        if (!B2) continue; /* (the copy does not reach it) */
        joinExit(e.first, B2, e.second, VM);
        Instruction *at = edgePoint(B2, e.second, false);
        if (!at) report_fatal_error("hotprof dual plugin: an exit checked splittable was not", false);
        countOnExit(at, c, iv2, slot);
    }
    chooseCopy(c, cast<BasicBlock>(VM[c.header]), slot);
}

} // namespace

unsigned versionCountedLoops(Function &F, AllocaInst *slot, const SmallPtrSetImpl<BasicBlock *> &labels,
                             const SmallPtrSetImpl<BasicBlock *> &inRegion, SmallVectorImpl<AllocaInst *> &promote)
{
    if (!countVersionOn()) return 0;
    SmallVector<Counted, 4> found = findCounted(F, labels, inRegion);
    DominatorTree DT(F); /* (the whole CFG) */
    for (Counted &c : found)
        if (!expandedOk(c, DT)) c.header = nullptr;
    unsigned n = 0;
    for (Counted &c : found)
        if (c.header) {
            version(c, slot, promote);
            n++;
        }
    return n;
}

} // namespace hotprof_dual
