// dual_loops.cpp — one loop-entry clone per function (-hotprof-dual-loops=entry): see dual_loops.h
// for the contract and docs/dual.md "One loop-entry clone per function".
// Invariants: a value crosses into the clone only if it is live at the header it enters (a
// header PHI's value from the latch, or a value whose definition strictly dominates the header
// and that a use reaches from the header before its block runs again); such a value is
// loop-invariant in its loop, so storing it at the latch stores what the header sees. The way
// back crosses the same values the other way (those F does not still have). F changes by the
// buffer's alloca, the whole-call site past its static allocas, per entry a site block on the
// latch edge and a cold block, and the way back's dispatch and reload blocks, whose values
// SSAUpdater merges into F's (PHIs at the headers; the loops' own code is the optimizer's).
#include "dual_loops.h"
#include "dual_hookcall.h"
#include "dual_indirect.h"
#include "dual_options.h"
#include "dual_peel.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>

using namespace llvm;

// on (default): a live-in the trampoline can recompute (dual_loops.h) does not cross; off: every
// live-in crosses through the buffer (for comparison and tests).
static cl::opt<std::string> Recompute("hotprof-dual-loop-recompute", cl::desc("hotprof dual: on|off"),
                                      cl::init("on"));
// on (default): the clone goes back to F at a latch with a site when the back-edge hook says the
// burst is over (dual_loops.h, the way back); off: once entered it runs until F returns.
static cl::opt<std::string> Leave("hotprof-dual-loop-leave", cl::desc("hotprof dual: on|off"), cl::init("on"));

namespace hotprof_dual {

using Edge = std::pair<BasicBlock *, BasicBlock *>;

namespace {

// Blocks reachable from H without entering D (D == nullptr: all of them).
void reachable(BasicBlock *H, BasicBlock *D, SmallPtrSetImpl<BasicBlock *> &seen)
{
    SmallVector<BasicBlock *, 32> work{H};
    seen.insert(H);
    while (!work.empty())
        for (BasicBlock *S : successors(work.pop_back_val()))
            if (S != D && seen.insert(S).second) work.push_back(S);
}

// V is live at the header: some use is reached from it before V's block D is entered again (seen:
// reachable(H, D); a PHI's use lies at the end of its incoming block).
bool liveAt(Instruction &V, SmallPtrSetImpl<BasicBlock *> &seen)
{
    for (Use &U : V.uses()) {
        auto *I = cast<Instruction>(U.getUser());
        BasicBlock *at = isa<PHINode>(I) ? cast<PHINode>(I)->getIncomingBlock(U) : I->getParent();
        if (seen.count(at)) return true;
    }
    return false;
}

// V needs no buffer: a constant (no block address) or an argument of F (the clone has its own).
bool direct(Value *V)
{
    return isa<ConstantData>(V) || isa<GlobalValue>(V) || isa<Argument>(V);
}

// V can be recomputed in a trampoline: a getelementptr or cast whose operands are constants, F's
// arguments or values that cross before it (avail).
bool recomputable(Value *V, SmallPtrSetImpl<Value *> &avail)
{
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !(isa<GetElementPtrInst>(I) || isa<CastInst>(I))) return false;
    for (Value *op : I->operands())
        if (!isa<Constant>(op) && !isa<Argument>(op) && !avail.count(op)) return false;
    return true;
}

// I allocates stack memory at run time (a dynamic alloca, or stacksave: a VLA's scope).
bool allocatesOnStack(Instruction &I)
{
    if (auto *AI = dyn_cast<AllocaInst>(&I)) return !AI->isStaticAlloca();
    auto *II = dyn_cast<IntrinsicInst>(&I);
    return II && II->getIntrinsicID() == Intrinsic::stacksave;
}

// V is F's own when the clone goes back: a constant or argument, or an instruction in a block that
// dominates every latch with a site (so it dominates the way back's blocks) and that no header
// the clone is entered at reaches (rerun: those blocks), so the clone cannot run it again.
bool sameInF(Value *V, DominatorTree &DT, ArrayRef<LoopEntry> entries, SmallPtrSetImpl<BasicBlock *> &rerun)
{
    auto *I = dyn_cast<Instruction>(V);
    if (!I) return !isa<BlockAddress>(V);
    if (rerun.count(I->getParent())) return false;
    for (const LoopEntry &E : entries)
        if (!DT.dominates(I->getParent(), E.latch)) return false;
    return true;
}

// E's values: the header PHIs' values from the latch, then the values live at the header (their
// definitions strictly dominate it: SSA), block by block down the dominator tree.
void entryValues(Function &F, DominatorTree &DT, SmallPtrSetImpl<BasicBlock *> &rerun, ArrayRef<LoopEntry> all,
                 LoopEntry &E)
{
    for (PHINode &P : E.header->phis()) E.vals.push_back(P.getIncomingValueForBlock(E.latch));
    E.nphis = (unsigned)E.vals.size();
    for (BasicBlock &BB : F) {
        if (&BB == E.header || !DT.properlyDominates(&BB, E.header)) continue;
        SmallPtrSet<BasicBlock *, 32> seen;
        reachable(E.header, &BB, seen);
        for (Instruction &I : BB)
            if (!I.getType()->isVoidTy() && liveAt(I, seen)) E.vals.push_back(&I);
    }
    SmallVector<Type *, 16> types;
    SmallPtrSet<Value *, 32> avail;
    for (unsigned k = 0; k < E.vals.size(); k++) {
        Value *V = E.vals[k];
        bool again = Recompute != "off" && (direct(V) || recomputable(V, avail));
        E.slot.push_back(again ? -1 : (int)types.size());
        if (!again) types.push_back(V->getType());
        avail.insert(V);
        E.sameInF.push_back(sameInF(V, DT, all, rerun));
    }
    E.layout = StructType::get(F.getContext(), types);
}

// The clone's latch edge for F's (lt, hd) after critical-edge splitting: lt's copy, or the block
// the split put between it and hd's copy. {nullptr, nullptr} when not in the clone.
Edge cloneEdge(const Edge &e, ValueToValueMapTy &VM, SmallPtrSetImpl<BasicBlock *> &before)
{
    auto *lt = cast_or_null<BasicBlock>(VM.lookup(e.first)), *hd = cast_or_null<BasicBlock>(VM.lookup(e.second));
    if (!lt || !hd) return {nullptr, nullptr};
    for (BasicBlock *S : successors(lt)) {
        if (S == hd) return {lt, hd};
        if (S->getSinglePredecessor() == lt && S->getSingleSuccessor() == hd && !before.count(S))
            return {S, hd};
    }
    return {nullptr, nullptr};
}

// SSA of the clone: each live-in V' gets a second definition in the trampolines that load it.
void repairSSA(ArrayRef<std::pair<Instruction *, SmallVector<std::pair<BasicBlock *, Value *>, 4>>> defs)
{
    for (auto &d : defs) {
        Instruction *V = d.first;
        SSAUpdater SSA;
        SSA.Initialize(V->getType(), V->getName());
        SSA.AddAvailableValue(V->getParent(), V);
        for (auto &td : d.second) SSA.AddAvailableValue(td.first, td.second);
        SmallVector<Use *, 16> uses;
        for (Use &U : V->uses()) {
            auto *I = cast<Instruction>(U.getUser());
            if (!isa<PHINode>(I) && I->getParent() == V->getParent()) continue; /* after the def */
            uses.push_back(&U);
        }
        for (Use *U : uses) SSA.RewriteUse(*U);
    }
}

// The clone's way back on its latch edge c of entry E (index): c.first -> G -> X -> header', and
// G -> L, where L stores E's reloaded values (the clone's own, SSA repaired later with the
// trampolines' definitions) and index into the buffer and returns (its value unused). G's branch
// (placeholder condition: true) gets the back-edge hook's answer from the instrumenter. No block of
// the three is one of sanitizer coverage's: no hooks (noHook), and no critical edge among them.
Edge leaveBlocks(Function &C, Edge c, const LoopEntry &E, unsigned index, ValueToValueMapTy &VM, LoopClone &R);

} // namespace

void checkLoopRecompute()
{
    checkOption(Recompute, {"on", "off"});
    checkOption(Leave, {"on", "off"});
}

bool wayBackOn() { return Leave != "off"; }

void noWayBackUnlessAsked()
{
    if (!Leave.getNumOccurrences()) Leave = "off";
}

static bool reloaded(const LoopEntry &E, unsigned k) { return E.slot[k] >= 0 && !(wayBackOn() && E.sameInF[k]); }

static Value *layoutOf(IRBuilder<> &B, Value *buf, StructType *layout)
{
    Value *bytes = B.CreateBitCast(buf, B.getInt8PtrTy());
    return B.CreateBitCast(B.CreateConstGEP1_32(B.getInt8Ty(), bytes, kResumeBytes), PointerType::getUnqual(layout));
}

static Value *resumeWord(IRBuilder<> &B, Value *buf)
{
    return B.CreateBitCast(buf, PointerType::getUnqual(B.getInt32Ty()));
}

bool collectLoopEntries(Function &F, bool outerOnly, BasicBlock *body, SmallVectorImpl<LoopEntry> &out,
                        SmallVectorImpl<Edge> *all)
{
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) {
        SmallVector<BasicBlock *, 4> latches;
        L->getLoopLatches(latches);
        for (BasicBlock *lt : latches) {
            if (count(successors(lt), L->getHeader()) != 1) return false;
            if (all) all->push_back({lt, L->getHeader()});
            if (outerOnly && L->getLoopDepth() != 1) continue;
            out.push_back({L->getHeader(), lt, {}, 0, {}, nullptr, {}, false, wayBackOn()});
        }
    }
    if (out.empty()) return true;
    SmallPtrSet<BasicBlock *, 32> rerun;
    for (LoopEntry &E : out) reachable(E.header, nullptr, rerun);
    // memory the clone allocates on its own stack (a dynamic alloca) is gone once it goes back:
    // in a loop, no way back at all; before the loops, none for whole calls (which make it there)
    bool inLoops = false, before = false;
    for (BasicBlock &BB : F)
        for (Instruction &I : BB)
            if (allocatesOnStack(I)) (rerun.count(&BB) ? inLoops : before) = true;
    if (inLoops)
        for (LoopEntry &E : out) E.back = false;
    out.push_back({body, &F.getEntryBlock(), {}, 0, {}, nullptr, {}, true, wayBackOn() && !inLoops && !before});
    if (out.back().back) reachable(body, nullptr, rerun); /* (else only loop entries go back) */
    for (LoopEntry &E : out) entryValues(F, DT, rerun, out, E);
    return true;
}

LoopClone buildLoopClone(Function &F, MutableArrayRef<LoopEntry> entries, ArrayRef<Edge> latchEdges)
{
    LLVMContext &Ctx = F.getContext();
    Type *i8p = Type::getInt8PtrTy(Ctx), *i32 = Type::getInt32Ty(Ctx);
    SmallVector<Type *, 16> params(F.getFunctionType()->params().begin(), F.getFunctionType()->params().end());
    params.append({i32, i8p, i8p});
    auto *FT = FunctionType::get(F.getReturnType(), params, false);
    LoopClone R;
    Function *C = Function::Create(FT, GlobalValue::InternalLinkage, F.getName() + ".hotprof.loop", F.getParent());
    R.clone = C;
    ValueToValueMapTy VM;
    unsigned a = 0;
    for (Argument &A : F.args()) VM[&A] = C->getArg(a++);
    Argument *idx = C->getArg(a), *buf = C->getArg(a + 1);
    SmallVector<ReturnInst *, 8> rets;
    bool cg = hasComputedGoto(F); // (private dispatch tables: the clone's gotos stay in the clone)
    TablePairs tables;
    if (cg) tables = privateTables(F, VM);
    CloneFunctionInto(C, &F, VM, CloneFunctionChangeType::LocalChangesOnly, rets);
    if (cg) fillPrivateTables(tables, VM);
    C->removeFnAttr("patchable-function-entry");
    for (Argument &A : C->args()) // (F's own copy: what the clone writes there F sees when it goes back)
        if (A.hasByValAttr()) A.removeAttr(Attribute::ByVal);
    C->removeFnAttr(Attribute::AlwaysInline);
    C->addFnAttr(Attribute::NoInline);
    C->setLinkage(GlobalValue::InternalLinkage);
    C->setVisibility(GlobalValue::DefaultVisibility);
    C->setComdat(F.getComdat());

    BasicBlock *sw = BasicBlock::Create(Ctx, "hp.loop.switch", C, &C->getEntryBlock());
    R.noHook.insert(sw);
    SmallVector<BasicBlock *, 8> tramps;
    SmallVector<std::pair<Instruction *, SmallVector<std::pair<BasicBlock *, Value *>, 4>>, 16> defs;
    for (size_t i = 0; i < entries.size(); i++) {
        LoopEntry &E = entries[i];
        auto *hd = cast<BasicBlock>(VM[E.header]);
        BasicBlock *T = BasicBlock::Create(Ctx, "hp.loop.entry", C, hd);
        R.noHook.insert(T);
        tramps.push_back(T);
        IRBuilder<> B(T);
        Value *p = layoutOf(B, buf, E.layout);
        SmallVector<Value *, 16> loads;
        DenseMap<Value *, Value *> here; // F's value -> its value in T
        for (unsigned k = 0; k < E.vals.size(); k++) {
            if (E.slot[k] >= 0) {
                unsigned f = (unsigned)E.slot[k];
                loads.push_back(B.CreateLoad(E.layout->getElementType(f), B.CreateStructGEP(E.layout, p, f)));
            } else if (direct(E.vals[k])) {
                Value *V = E.vals[k];
                loads.push_back(isa<Argument>(V) ? (Value *)VM[V] : V);
            } else { // (recomputable: its operands are here, F's arguments or constants)
                Instruction *I = cast<Instruction>(E.vals[k])->clone();
                I->setDebugLoc(DebugLoc()); /* (F's location names F's subprogram, not the clone's) */
                for (Use &op : I->operands())
                    if (here.count(op.get())) op.set(here[op.get()]);
                    else if (isa<Argument>(op.get())) op.set(VM[op.get()]);
                loads.push_back(B.Insert(I));
            }
            here[E.vals[k]] = loads.back();
        }
        B.CreateBr(hd);
        unsigned k = 0;
        for (PHINode &P : hd->phis()) P.addIncoming(loads[k++], T);
        for (; k < E.vals.size(); k++) {
            auto *V = cast<Instruction>(VM[E.vals[k]]);
            auto it = std::find_if(defs.begin(), defs.end(), [&](auto &d) { return d.first == V; });
            if (it == defs.end()) it = defs.insert(defs.end(), {V, {}});
            it->second.push_back({T, loads[k]});
        }
    }
    R.fnEntry = cast<BasicBlock>(VM[entries.back().header]); // (the whole-call entry's: last)
    if (!entries.back().back) R.stayIndex = (int)entries.size() - 1;
    SwitchInst *S = SwitchInst::Create(idx, tramps.back(), (unsigned)tramps.size() - 1, sw);
    for (size_t i = 0; i + 1 < tramps.size(); i++) S->addCase(ConstantInt::get(cast<IntegerType>(i32), i), tramps[i]);
    // F's static allocas' copies stay static (in the clone's entry) until the trampolines' loads
    // replace their uses; their block, unreachable, goes
    SmallVector<AllocaInst *, 8> statics;
    for (Instruction &I : *cast<BasicBlock>(VM[&F.getEntryBlock()]))
        if (auto *AI = dyn_cast<AllocaInst>(&I))
            if (isa<ConstantInt>(AI->getArraySize())) statics.push_back(AI); /* (static in F's entry) */
    for (AllocaInst *AI : statics) AI->moveBefore(S);
    removeUnreachableBlocks(*C);
    SmallPtrSet<BasicBlock *, 32> before;
    for (BasicBlock &BB : *C) before.insert(&BB);
    SplitAllCriticalEdges(*C, CriticalEdgeSplittingOptions().setIgnoreUnreachableDests());
    for (const Edge &e : latchEdges) {
        Edge c = cloneEdge(e, VM, before);
        if (!c.first) continue;
        const LoopEntry *E = nullptr;
        for (const LoopEntry &x : entries)
            if (x.latch == e.first && x.header == e.second) E = &x;
        if (E && E->back) c = leaveBlocks(*C, c, *E, unsigned(E - entries.data()), VM, R);
        R.backedges.push_back(c);
    }
    // the back-edge that entered the clone at a header is recorded there, as the one-body form's
    // site label is the instrumented back-edge block: its hook on the trampoline's edge (its answer
    // unused: the clone runs at least to the next latch)
    for (size_t i = 0; i < entries.size(); i++)
        if (!entries[i].wholeCall) R.backedges.push_back({tramps[i], cast<BasicBlock>(VM[entries[i].header])});
    repairSSA(defs); // (after the way back's stores: they are uses too)
    if (verifyFunction(*C, &errs())) { // (should not happen: F then keeps the one-body form)
        C->eraseFromParent();
        return LoopClone();
    }
    return R;
}

namespace {

// A one-block loop the top form can peel (its latch edge through site): header == latch, one edge from
// outside (checked now: an earlier peel may have added one), a conditional
// branch whose other successor is not the block.
static bool peelable(LoopEntry &E, BasicBlock *site, ArrayRef<Edge> latchEdges)
{
    BasicBlock *B = E.header;
    for (const Edge &e : latchEdges) // (B the latch of an outer loop too: its first copy would be another)
        if (e.first == B && e.second != B) return false;
    auto *br = dyn_cast<BranchInst>(B->getTerminator());
    if (B != E.latch || !br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) return false;
    unsigned outside = 0;
    for (BasicBlock *P : predecessors(B)) outside += P != site ? 1 : 0;
    return outside == 1;
}

// Values of B used outside it now come from B or its first-iteration copy: SSAUpdater merges them.
void mergeOutsideUses(BasicBlock *B, ValueToValueMapTy &VM, BasicBlock *P)
{
    for (Instruction &I : *B) {
        if (I.getType()->isVoidTy()) continue;
        SmallVector<Use *, 8> uses;
        for (Use &U : I.uses()) {
            auto *UI = cast<Instruction>(U.getUser());
            BasicBlock *at = isa<PHINode>(UI) ? cast<PHINode>(UI)->getIncomingBlock(U) : UI->getParent();
            if (at != B && UI->getParent() != B) uses.push_back(&U);
        }
        if (uses.empty()) continue;
        SSAUpdater SSA;
        SSA.Initialize(I.getType(), I.getName());
        SSA.AddAvailableValue(B, &I);
        SSA.AddAvailableValue(P, VM.lookup(&I) ? (Value *)VM[&I] : &I);
        for (Use *U : uses) SSA.RewriteUse(*U);
    }
}

} // namespace

// The top form of a peelable loop B whose latch edge already goes through site: a first copy of
// B runs the first iteration (returned: its PHIs have the preheader's values alone); site gets
// B's PHIs (from either copy) and is B's only predecessor.
static BasicBlock *peelTop(Function &F, LoopEntry &E, BasicBlock *site)
{
    BasicBlock *B = E.header, *pre = nullptr;
    for (BasicBlock *P : predecessors(B))
        if (P != site) pre = P;
    ValueToValueMapTy VM;
    BasicBlock *first = CloneBasicBlock(B, VM, ".hp.first", &F);
    // the first iteration's PHIs keep only the values from outside (the way back adds its own:
    // it resumes a peeled loop here, at the start of an iteration)
    for (PHINode &P : first->phis())
        for (unsigned i = P.getNumIncomingValues(); i-- > 0;)
            if (P.getIncomingBlock(i) != pre) P.removeIncomingValue(i, false);
    for (Instruction &I : *first) RemapInstruction(&I, VM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
    auto mapped = [&](Value *v) { return VM.lookup(v) ? (Value *)VM[v] : v; };
    pre->getTerminator()->replaceSuccessorWith(B, first);
    Instruction *ft = first->getTerminator();
    BasicBlock *exit = ft->getSuccessor(0) == site ? ft->getSuccessor(1) : ft->getSuccessor(0);
    for (PHINode &X : exit->phis()) X.addIncoming(mapped(X.getIncomingValueForBlock(B)), first);
    SmallVector<std::pair<PHINode *, PHINode *>, 8> tops;
    Instruction *at = &site->front();
    for (PHINode &P : B->phis()) {
        Value *v = P.getIncomingValueForBlock(site);
        PHINode *Q = PHINode::Create(P.getType(), 2, P.getName() + ".top", at);
        Q->addIncoming(mapped(v), first);
        Q->addIncoming(v, B);
        tops.push_back({&P, Q});
    }
    mergeOutsideUses(B, VM, first);
    for (auto &pq : tops) {
        pq.first->replaceAllUsesWith(pq.second);
        pq.first->eraseFromParent();
    }
    // an empty asm ends the first iteration, so the code generator's tail merging does not fold
    // the two copies back into one (as the one-body form's top form)
    emptyAsm(ft);
    return first;
}

namespace {

Edge leaveBlocks(Function &C, Edge c, const LoopEntry &E, unsigned index, ValueToValueMapTy &VM, LoopClone &R)
{
    LLVMContext &Ctx = C.getContext();
    BasicBlock *hd = c.second;
    BasicBlock *G = BasicBlock::Create(Ctx, "hp.loop.leave", &C, hd);
    BasicBlock *X = BasicBlock::Create(Ctx, "hp.loop.stay", &C, hd);
    BasicBlock *L = BasicBlock::Create(Ctx, "hp.loop.out", &C);
    c.first->getTerminator()->replaceSuccessorWith(hd, G);
    for (PHINode &P : hd->phis()) P.replaceIncomingBlockWith(c.first, X);
    BranchInst *br = BranchInst::Create(X, L, ConstantInt::getTrue(Ctx), G);
    br->setDebugLoc(c.first->getTerminator()->getDebugLoc());
    BranchInst::Create(hd, X);
    IRBuilder<> B(L);
    Value *buf = C.getArg(C.arg_size() - 2);
    Value *p = layoutOf(B, buf, E.layout);
    for (unsigned k = 0; k < E.vals.size(); k++) {
        if (!reloaded(E, k)) continue;
        Value *V = VM.lookup(E.vals[k]) ? (Value *)VM[E.vals[k]] : E.vals[k];
        B.CreateStore(V, B.CreateStructGEP(E.layout, p, (unsigned)E.slot[k]));
    }
    B.CreateStore(B.getInt32(index), resumeWord(B, buf));
    if (C.getReturnType()->isVoidTy()) B.CreateRetVoid();
    else B.CreateRet(UndefValue::get(C.getReturnType()));
    R.noHook.insert(G);
    R.noHook.insert(X);
    R.noHook.insert(L);
    R.leaves.insert(G);
    return {G, hd};
}

// A live-in of some entry that F's way back defines anew is B's: peeling B would hide it behind
// the merge of B's two copies, so B keeps the edge form.
bool reloadedIn(ArrayRef<LoopEntry> entries, BasicBlock *B)
{
    if (!wayBackOn()) return false;
    for (const LoopEntry &E : entries)
        for (unsigned k = E.nphis; k < E.vals.size(); k++) {
            auto *I = dyn_cast<Instruction>(E.vals[k]);
            if (I && I->getParent() == B && !E.sameInF[k]) return true;
        }
    return false;
}

// Entry E's values in F's reload block (at B's end): F's own, loaded, or recomputed there.
SmallVector<Value *, 16> reloadValues(IRBuilder<> &B, const LoopEntry &E, Value *buffer)
{
    Value *p = layoutOf(B, buffer, E.layout);
    SmallVector<Value *, 16> vals;
    DenseMap<Value *, Value *> here;
    for (unsigned k = 0; k < E.vals.size(); k++) {
        Value *V = E.vals[k];
        if (E.sameInF[k] || direct(V)) {
            vals.push_back(V);
        } else if (E.slot[k] >= 0) {
            unsigned f = (unsigned)E.slot[k];
            vals.push_back(B.CreateLoad(E.layout->getElementType(f), B.CreateStructGEP(E.layout, p, f)));
        } else {
            Instruction *I = cast<Instruction>(V)->clone();
            for (Use &op : I->operands())
                if (here.count(op.get())) op.set(here[op.get()]);
            vals.push_back(B.Insert(I));
        }
        here[V] = vals.back();
    }
    return vals;
}

// F's way back: each cold block's call goes on to one block that returns the clone's result, or
// (the clone left at entry j's latch: j in the resume word) to a reload block that enters j's loop
// at its header with the values the clone stored; the values it defines anew are merged into F's
// SSA form (SSAUpdater). A peeled loop is resumed at its first-iteration block, the start of an
// iteration outside the loop (not at its top, the site block: the site would count the back-edge
// the clone's hook counted again, and count mode's event count would drift).
void linkWayBack(Function &F, MutableArrayRef<LoopEntry> entries, ArrayRef<BasicBlock *> peeled,
                 ArrayRef<BasicBlock *> cold, AllocaInst *buffer)
{
    LLVMContext &Ctx = F.getContext();
    BasicBlock *back = BasicBlock::Create(Ctx, "hp.loop.back", &F);
    BasicBlock *done = BasicBlock::Create(Ctx, "hp.loop.done", &F);
    IRBuilder<> B(back);
    PHINode *r = F.getReturnType()->isVoidTy() ? nullptr : B.CreatePHI(F.getReturnType(), (unsigned)cold.size());
    for (BasicBlock *C : cold) {
        auto *ret = cast<ReturnInst>(C->getTerminator());
        if (r) r->addIncoming(ret->getReturnValue(), C);
        B.SetCurrentDebugLocation(ret->getDebugLoc());
        ret->eraseFromParent();
        BranchInst::Create(back, C);
    }
    SwitchInst *S = B.CreateSwitch(B.CreateLoad(B.getInt32Ty(), resumeWord(B, buffer)), done, (unsigned)entries.size());
    IRBuilder<> D(done);
    if (r) D.CreateRet(r);
    else D.CreateRetVoid();
    SmallVector<std::pair<Instruction *, SmallVector<std::pair<BasicBlock *, Value *>, 4>>, 16> defs;
    for (unsigned j = 0; j < entries.size(); j++) {
        LoopEntry &E = entries[j];
        if (!E.back) continue; /* (the clone goes back at latches only) */
        BasicBlock *R = BasicBlock::Create(Ctx, "hp.loop.resume", &F);
        S->addCase(B.getInt32(j), R);
        IRBuilder<> RB(R);
        SmallVector<Value *, 16> vals = reloadValues(RB, E, buffer);
        BasicBlock *to = peeled[j] ? peeled[j] : E.header;
        RB.CreateBr(to);
        unsigned k = 0;
        for (PHINode &P : to->phis()) { // (the header's PHIs are the entry's, in order: nothing added any)
            if (k >= E.nphis) report_fatal_error("hotprof dual plugin: a loop header of " + F.getName() + " changed");
            P.addIncoming(vals[k++], R);
        }
        for (k = E.nphis; k < E.vals.size(); k++) {
            if (vals[k] == E.vals[k]) continue;
            auto *V = cast<Instruction>(E.vals[k]);
            auto it = std::find_if(defs.begin(), defs.end(), [&](auto &d) { return d.first == V; });
            if (it == defs.end()) it = defs.insert(defs.end(), {V, {}});
            it->second.push_back({R, vals[k]});
        }
    }
    repairSSA(defs);
}

} // namespace

SmallVector<BasicBlock *, 8> linkLoopEntries(Function &F, Function &clone, MutableArrayRef<LoopEntry> entries,
                                             ArrayRef<Edge> latchEdges, bool top, SmallVectorImpl<BasicBlock *> &cold)
{
    AllocaInst *buffer = nullptr;
    SmallVector<BasicBlock *, 8> sites;
    for (unsigned i = 0; i < entries.size(); i++) cold.push_back(linkLoopEntry(F, clone, entries[i], i, buffer, entries));
    // every site on its latch edge, branching (for now) to the header and its cold block, so that
    // SSAUpdater sees each cold block's predecessor when a peel rewrites the uses there
    Value *any = UndefValue::get(Type::getInt1Ty(F.getContext()));
    for (unsigned i = 0; i < entries.size(); i++) {
        LoopEntry &E = entries[i];
        BasicBlock *site = BasicBlock::Create(F.getContext(), "hp.site", &F);
        E.latch->getTerminator()->replaceSuccessorWith(E.header, site);
        for (PHINode &P : E.header->phis()) P.replaceIncomingBlockWith(E.latch, site);
        BranchInst::Create(E.header, cold[i], any, site);
        sites.push_back(site);
    }
    SmallVector<BasicBlock *, 8> peeled; // a peeled loop's first-iteration block
    for (unsigned i = 0; i < entries.size(); i++) {
        bool peel = top && peelable(entries[i], sites[i], latchEdges) && worthPeeling(*entries[i].header, nullptr) &&
                    !reloadedIn(entries, entries[i].header);
        peeled.push_back(peel ? peelTop(F, entries[i], sites[i]) : nullptr);
    }
    if (wayBackOn()) linkWayBack(F, entries, peeled, cold, buffer);
    return sites;
}

BasicBlock *linkLoopEntry(Function &F, Function &clone, LoopEntry &E, unsigned index, AllocaInst *&buffer,
                          ArrayRef<LoopEntry> entries)
{
    LLVMContext &Ctx = F.getContext();
    const DataLayout &DL = F.getParent()->getDataLayout();
    if (!buffer) {
        uint64_t size = 1;
        Align al(16);
        for (const LoopEntry &e : entries) {
            size = std::max<uint64_t>(size, kResumeBytes + DL.getTypeAllocSize(e.layout));
            al = std::max(al, DL.getABITypeAlign(e.layout));
        }
        IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
        buffer = B.CreateAlloca(ArrayType::get(Type::getInt8Ty(Ctx), size), nullptr, "hp.loop.buf");
        buffer->setAlignment(al);
    }
    BasicBlock *cold = BasicBlock::Create(Ctx, "hp.loop.call", &F);
    IRBuilder<> B(cold);
    if (DILocation *dl = E.latch->getTerminator()->getDebugLoc()) B.SetCurrentDebugLocation(dl);
    else if (DISubprogram *sp = F.getSubprogram()) B.SetCurrentDebugLocation(DILocation::get(Ctx, 0, 0, sp));
    Value *p = layoutOf(B, buffer, E.layout);
    for (unsigned k = 0; k < E.vals.size(); k++)
        if (E.slot[k] >= 0) B.CreateStore(E.vals[k], B.CreateStructGEP(E.layout, p, (unsigned)E.slot[k]));
    if (wayBackOn()) B.CreateStore(B.getInt32(-1), resumeWord(B, buffer));
    SmallVector<Value *, 16> args;
    for (Argument &A : F.args()) args.push_back(&A);
    args.push_back(B.getInt32(index));
    args.push_back(B.CreateBitCast(buffer, B.getInt8PtrTy()));
    args.push_back(B.CreateCall(Intrinsic::getDeclaration(F.getParent(), Intrinsic::returnaddress), {B.getInt32(0)}));
    CallInst *r = B.CreateCall(&clone, args);
    if (F.getReturnType()->isVoidTy()) B.CreateRetVoid();
    else B.CreateRet(r);
    return cold;
}

} // namespace hotprof_dual
