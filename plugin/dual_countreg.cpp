// dual_countreg.cpp — inline count sites counted in a register inside call-free loops
// (dual_countreg.h; docs/dual.md "Inline count sites"). Runs on a function after the dual plugin
// has made its copies and sites: it only rewrites count sites and adds loads and stores of the
// countdown on the edges into and out of each region, then promotes the count's slot (mem2reg).
#include "dual_countreg.h"
#include "dual_countver.h"
#include "dual_options.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

using namespace llvm;

static cl::opt<std::string> CountReg("hotprof-dual-count-reg", cl::desc("hotprof dual: on|off"), cl::init("on"));
static cl::opt<std::string> CountBranch("hotprof-dual-count-branch", cl::desc("hotprof dual: on|off"),
                                        cl::init("on"));

namespace hotprof_dual {

bool countRegOn() { return optionOn(CountReg); }

bool countBranchOn() { return optionOn(CountBranch); }

CallBrInst *countSite(BasicBlock &BB)
{
    auto *cb = dyn_cast_or_null<CallBrInst>(BB.getTerminator());
    auto *ia = cb ? dyn_cast<InlineAsm>(cb->getCalledOperand()) : nullptr;
    if (!ia || cb->getNumIndirectDests() != 1) return nullptr;
    return StringRef(ia->getAsmString()).startswith(CountSiteCode) ? cb : nullptr;
}

LabelCut::LabelCut(Function &F, const SmallPtrSetImpl<BasicBlock *> &labels)
    : nowhere(BasicBlock::Create(F.getContext()))
{
    for (BasicBlock *T : labels) {
        Instruction *TI = T->getTerminator();
        TI->removeFromParent();
        for (unsigned i = 0; i < TI->getNumSuccessors(); i++) {
            succs.push_back(TI->getSuccessor(i));
            TI->setSuccessor(i, nowhere); /* (else it stays a user, so a predecessor, of its targets) */
        }
        new UnreachableInst(F.getContext(), T);
        cut.push_back({T, TI});
    }
}

LabelCut::~LabelCut()
{
    unsigned k = 0;
    for (auto &c : cut) {
        for (unsigned i = 0; i < c.second->getNumSuccessors(); i++) c.second->setSuccessor(i, succs[k++]);
        c.first->getTerminator()->eraseFromParent();
        c.first->getInstList().push_back(c.second);
    }
    delete nowhere;
}

static bool splittable(Instruction *TI) { return isa<BranchInst>(TI) || isa<SwitchInst>(TI); }

// Where the countdown moves on the edges from -> to: before from's terminator (every edge out of
// from goes to `to`), at to's top (every edge into `to` comes from `from`), or in a block of its own
// on them (a critical edge of a br or switch; a switch's identical edges all go through it);
// nullptr if none of those is possible (checkOnly: say so).
Instruction *edgePoint(BasicBlock *from, BasicBlock *to, bool checkOnly)
{
    Instruction *TI = from->getTerminator();
    if (from->getUniqueSuccessor() == to) return TI; /* (every edge out of from goes to `to`) */
    if (to->isEHPad()) return nullptr;
    if (to->getUniquePredecessor() == from) return &*to->getFirstInsertionPt(); /* (a switch's cases too) */
    if (!splittable(TI)) return nullptr;
    if (checkOnly) return TI;
    for (unsigned i = 0; i < TI->getNumSuccessors(); i++)
        if (TI->getSuccessor(i) == to) {
            BasicBlock *mid = SplitCriticalEdge(TI, i, CriticalEdgeSplittingOptions().setMergeIdenticalEdges());
            return mid ? mid->getTerminator() : nullptr;
        }
    return nullptr;
}

namespace {

using BlockSet = SmallPtrSet<BasicBlock *, 32>;

// No instruction of L's blocks (but the sites' labels) can reach code that touches the countdown.
bool callFree(Loop *L, const BlockSet &labels)
{
    for (BasicBlock *BB : L->blocks()) {
        if (labels.count(BB)) continue;
        if (isa<IndirectBrInst>(BB->getTerminator())) return false;
        CallBrInst *site = countSite(*BB);
        for (Instruction &I : *BB) {
            auto *call = dyn_cast<CallBase>(&I);
            if (call && call != site && !isa<IntrinsicInst>(call)) return false;
        }
    }
    return true;
}

struct Region {
    BlockSet blocks;
    SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> in, out; // edges into and out of it
    SmallVector<CallBrInst *, 8> sites;
};

// Region R's edges and sites (R.blocks given). False if an edge cannot carry a load or store.
bool describe(Region &R)
{
    for (BasicBlock *BB : R.blocks) {
        CallBrInst *site = countSite(*BB);
        if (site) R.sites.push_back(site);
        SmallPtrSet<BasicBlock *, 4> seen;
        for (BasicBlock *P : predecessors(BB))
            if (!R.blocks.count(P) && seen.insert(P).second) R.in.push_back({P, BB});
        seen.clear();
        for (BasicBlock *S : successors(BB))
            if (!R.blocks.count(S) && !(site && S == site->getIndirectDest(0)) && seen.insert(S).second)
                R.out.push_back({BB, S});
    }
    for (auto &e : R.in)
        if (!edgePoint(e.first, e.second, true)) return false;
    for (auto &e : R.out)
        if (!edgePoint(e.first, e.second, true)) return false;
    return true;
}

// The regions' blocks: per count site, the outermost call-free loop around it, found with every
// site's label cut off (its terminator set aside for the time being). Through the labels the
// one-body form's instrumented copy goes back to each clean loop header, so with them the clean
// loops of a nest are not natural loops (an inner header is entered from outside the outer loop);
// without them they are, and a region's edges are then taken from the whole CFG.
SmallVector<Region, 8> chooseRegions(Function &F, const BlockSet &labels)
{
    SmallVector<Region, 8> regions;
    {
        LabelCut cut(F, labels);
        DominatorTree DT(F);
        LoopInfo LI(DT);
        SmallPtrSet<Loop *, 8> chosen;
        for (BasicBlock &BB : F) {
            if (!countSite(BB)) continue;
            Loop *best = nullptr;
            for (Loop *L = LI.getLoopFor(&BB); L && callFree(L, labels); L = L->getParentLoop()) best = L;
            if (!best || !chosen.insert(best).second) continue;
            regions.emplace_back();
            for (BasicBlock *B : best->blocks())
                if (!labels.count(B)) regions.back().blocks.insert(B);
        }
    }
    return regions;
}

// The site's cold block before its label T: it keeps the site's record (its address now the cold
// path's) and goes to T, which takes it for B in its phis; what runs there first goes before `at`.
BasicBlock *coldPath(CallBrInst *cb, Instruction *&at)
{
    LLVMContext &C = cb->getContext();
    BasicBlock *B = cb->getParent(), *T = cb->getIndirectDest(0);
    StringRef text = cast<InlineAsm>(cb->getCalledOperand())->getAsmString();
    std::string record = "1:\n" + text.substr(text.find(".pushsection")).str();
    BasicBlock *cold = BasicBlock::Create(C, "hp.count.cold", B->getParent(), T);
    IRBuilder<> s(cold);
    FunctionType *FT = FunctionType::get(Type::getVoidTy(C), {cb->getArgOperand(0)->getType()}, false);
    at = s.CreateCall(InlineAsm::get(FT, record, "X,~{dirflag},~{fpsr},~{flags}", true), {cb->getArgOperand(0)});
    s.CreateBr(T);
    for (PHINode &P : T->phis()) P.replaceIncomingBlockWith(B, cold);
    return cold;
}

// cb's `jle` as the compiler's own branch on the subtraction's flags (a flag output, "={@ccle}"):
// to the cold path when due, else to the site's next block, and the callbr goes.
void branchOnFlags(CallBrInst *cb, Value *flags, BasicBlock *cold)
{
    IRBuilder<> b(cb);
    Value *due = b.CreateICmpNE(flags, ConstantInt::get(flags->getType(), 0));
    b.CreateCondBr(due, cold, cb->getDefaultDest(), MDBuilder(cb->getContext()).createBranchWeights(1, 1u << 20));
    cb->eraseFromParent();
}

// The site in the register: slot - 1, and at <= 0 a cold block that stores it, keeps the site's
// record and goes to the site's label.
void rewriteSite(CallBrInst *cb, AllocaInst *slot, GlobalVariable *countdown)
{
    LLVMContext &C = cb->getContext();
    Type *i64 = Type::getInt64Ty(C), *i8 = Type::getInt8Ty(C);
    Instruction *coldTop = nullptr;
    BasicBlock *cold = coldPath(cb, coldTop);
    IRBuilder<> b(cb);
    // `subq $1, %reg` with its flags as the branch condition (a flag output, "={@ccle}"): the code
    // generator then branches on the subtraction itself (`subq; jle`), where an icmp of the result
    // costs a `test` more per site.
    FunctionType *decT = FunctionType::get(StructType::get(C, {i64, i8}), {i64}, false);
    InlineAsm *dec = InlineAsm::get(decT, "subq $$1, $0", "=r,={@ccle},0,~{dirflag},~{fpsr},~{flags}", false);
    Value *both = b.CreateCall(decT, dec, {b.CreateLoad(i64, slot)});
    Value *left = b.CreateExtractValue(both, 0);
    b.CreateStore(left, slot);
    IRBuilder<>(coldTop).CreateStore(left, countdown);
    branchOnFlags(cb, b.CreateExtractValue(both, 1), cold);
}

// A site left in memory: the same `subq $1, %fs:hp_dual_countdown@tpoff`, but its `jle` the
// compiler's branch (branchOnFlags), so the block placement may invert it and let the loop's latch
// fall through to its header. Inside the asm the `jle` fixed the fall-through to the site's next
// block: where the header could not follow the latch, every iteration took a `jmp` more (lexgen's
// bit loops). Not in a function with computed goto (an indirectbr): there qjs's JS_CallInternal
// (one-body form, dual-blocks) came out 45 465 instructions long against 40 709, and qjs executed
// 2 398.6 M instructions switched off on its quick input, against 2 253.7 M with the asm form
// kept there and 2 259.2 M with it everywhere.
void branchMemorySite(CallBrInst *cb)
{
    LLVMContext &C = cb->getContext();
    Instruction *coldTop = nullptr;
    BasicBlock *cold = coldPath(cb, coldTop);
    FunctionType *decT = FunctionType::get(Type::getInt8Ty(C), false);
    InlineAsm *dec = InlineAsm::get(decT, "subq $$1, %fs:hp_dual_countdown@tpoff",
                                    "={@ccle},~{dirflag},~{fpsr},~{flags}", /*sideeffect*/ true);
    branchOnFlags(cb, IRBuilder<>(cb).CreateCall(decT, dec), cold);
}

GlobalVariable *countdownVar(Module &M)
{
    Type *i64 = Type::getInt64Ty(M.getContext());
    auto *G = dyn_cast<GlobalVariable>(M.getOrInsertGlobal("hp_dual_countdown", i64));
    if (!G || (!G->isThreadLocal() && !G->isDeclaration())) return nullptr; // (the program's own name)
    G->setThreadLocalMode(GlobalValue::LocalExecTLSModel); // as the asm's %fs:...@tpoff
    return G;
}

// Every region's stores on its way out, then every load on the way in (an edge out of one region
// may be the edge into another: the store comes first). Each edge's point is found once
// (splitting an edge changes the edges after it).
void placeCounts(SmallVectorImpl<Region> &regions, AllocaInst *slot, GlobalVariable *countdown)
{
    Type *i64 = slot->getAllocatedType();
    DenseMap<std::pair<BasicBlock *, BasicBlock *>, Instruction *> points;
    auto at = [&](std::pair<BasicBlock *, BasicBlock *> e) {
        Instruction *&p = points[e];
        if (!p) p = edgePoint(e.first, e.second, false);
        if (!p) report_fatal_error("hotprof dual plugin: an edge checked splittable was not", false);
        return p;
    };
    for (Region &R : regions)
        for (auto &e : R.out) {
            IRBuilder<> b(at(e));
            b.CreateStore(b.CreateLoad(i64, slot), countdown);
        }
    for (Region &R : regions)
        for (auto &e : R.in) {
            IRBuilder<> b(at(e));
            b.CreateStore(b.CreateLoad(i64, countdown), slot);
        }
}

} // namespace

unsigned branchMemorySites(Function &F)
{
    for (BasicBlock &BB : F) /* (not hasComputedGoto: our sites' labels are address-taken blocks) */
        if (isa<IndirectBrInst>(BB.getTerminator())) return 0; /* (see branchMemorySite) */
    SmallVector<CallBrInst *, 16> sites;
    for (BasicBlock &BB : F)
        if (CallBrInst *cb = countSite(BB)) sites.push_back(cb);
    for (CallBrInst *cb : sites) branchMemorySite(cb);
    return sites.size();
}

unsigned promoteCountdowns(Function &F)
{
    BlockSet labels;
    for (BasicBlock &BB : F)
        if (CallBrInst *cb = countSite(BB)) labels.insert(cb->getIndirectDest(0));
    if (labels.empty()) return 0;
    SmallVector<Region, 8> regions;
    for (Region &R : chooseRegions(F, labels))
        if (describe(R)) regions.push_back(std::move(R));
    if (regions.empty()) return 0;
    GlobalVariable *countdown = countdownVar(*F.getParent());
    if (!countdown) return 0;
    IRBuilder<> b(&*F.getEntryBlock().getFirstInsertionPt());
    AllocaInst *slot = b.CreateAlloca(Type::getInt64Ty(F.getContext()), nullptr, "hp.countdown");
    unsigned n = 0;
    BlockSet inRegion;
    for (Region &R : regions) {
        n += R.sites.size();
        inRegion.insert(R.blocks.begin(), R.blocks.end());
    }
    placeCounts(regions, slot, countdown);
    SmallVector<AllocaInst *, 8> promote{slot};
    versionCountedLoops(F, slot, labels, inRegion, promote); /* (the sites still callbrs) */
    for (Region &R : regions)
        for (CallBrInst *cb : R.sites) rewriteSite(cb, slot, countdown);
    DominatorTree DT2(F);
    PromoteMemToReg(promote, DT2);
    return n;
}

} // namespace hotprof_dual
