// dual_indirect.cpp — computed goto in two-version code (docs/dual.md "Computed goto"): what the
// one-body form of plugin/hotprof_dual.cpp needs to give a function with indirectbr and
// blockaddress users (an interpreter's `goto *table[op]`) a clean and an instrumented copy, and
// the separate form's clone F.hotprof with its own dispatch tables (-hotprof-dual-indirect=separate:
// only where no code address leaves its frame, so none can reach the other function).
// Invariants: the clean copy keeps F's blocks and dispatch tables untouched; the instrumented copy
// loads from private clones of the tables (blockaddresses of its own blocks), and its indirectbrs
// list its own blocks (ValueMapper remaps the destinations and any blockaddress constant in an
// instruction); so a computed goto stays in the copy that computed the address. Where an address
// may be computed in one copy and used in the other (live across a loop header, where a nop
// switches copies, or stored to memory), every indirectbr lists both copies' destinations.
#include "dual_indirect.h"
#include "dual_options.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>

using namespace llvm;

// Functions with computed goto (docs/dual.md "Computed goto"): auto (default: separate under
// -hotprof-dual=functions, clone under the block-level sets), clone (two copies in one body),
// separate (F untouched but for its entry nop and its latch sites, a whole clone F.hotprof with
// its own tables; where no code address can reach another frame: else clone), or single (one
// copy with live hooks, as before: count mode 11.45x against 2.8x on qjs). separate has the low
// switched-off floor (qjs dual-blocks 1.09x against clone's 2.6x) and, with its clean latch sites,
// count mode's rate and method/call-pair accuracy; but the blocks of a clean frame of F are never
// seen in a burst (qjs edges overlap 27% against 69%): hence clone where blocks are profiled.
static cl::opt<std::string> IndirectForm("hotprof-dual-indirect", cl::desc("hotprof dual: auto|clone|separate|single"),
                                         cl::init("auto"));
static const unsigned kDispatchSizeMax = 20; // instructions from a header to its indirectbr (leadsToDispatch)
static const unsigned kDispatchChainMax = 4; // blocks from a header to its indirectbr
static const char kDispatchMD[] = "hotprof.dispatch"; // on a dispatch header's terminator
static bool g_separate; // the form auto resolved to, or the one asked for (checkIndirectOption)

namespace hotprof_dual {

void checkIndirectOption(bool functionsLevel)
{
    checkOption(IndirectForm, {"auto", "clone", "separate", "single"});
    g_separate = IndirectForm == "separate" || (IndirectForm == "auto" && functionsLevel);
}

namespace {

// The users of F's blockaddresses, followed through constants: the instructions (of any function)
// and the globals whose initializers hold one. ok is false when a user is something else.
struct AddressUsers {
    SmallPtrSet<GlobalVariable *, 4> tables;
    SmallPtrSet<Instruction *, 8> insts;
    bool ok = true;

    void walk(Value *V, SmallPtrSetImpl<Value *> &seen)
    {
        if (!seen.insert(V).second) return;
        for (User *U : V->users()) {
            if (auto *I = dyn_cast<Instruction>(U)) insts.insert(I);
            else if (auto *G = dyn_cast<GlobalVariable>(U)) tables.insert(G);
            else if (isa<Constant>(U) && !isa<GlobalValue>(U)) walk(U, seen);
            else ok = false;
        }
    }

    explicit AddressUsers(Function &F)
    {
        SmallPtrSet<Value *, 32> seen;
        for (BasicBlock &BB : F)
            if (BlockAddress *BA = BlockAddress::lookup(&BB)) walk(BA, seen);
    }
};

bool isTableLoad(Value *V, const SmallPtrSetImpl<GlobalVariable *> &tables)
{
    auto *LI = dyn_cast<LoadInst>(V);
    if (!LI) return false;
    auto *G = dyn_cast<GlobalVariable>(getUnderlyingObject(LI->getPointerOperand()));
    return G && tables.count(G);
}

bool hasBlockAddressOperand(Instruction &I)
{
    for (Value *Op : I.operands())
        if (isa<BlockAddress>(Op->stripPointerCasts())) return true;
    return false;
}

// The code-address values of F: table loads, and phis/selects/casts of blockaddresses or of them.
SmallPtrSet<Instruction *, 16> codeAddresses(Function &F, const SmallPtrSetImpl<GlobalVariable *> &tables)
{
    SmallPtrSet<Instruction *, 16> A;
    bool grew = true;
    while (grew) {
        grew = false;
        for (BasicBlock &BB : F)
            for (Instruction &I : BB) {
                if (A.count(&I)) continue;
                bool carries = isTableLoad(&I, tables);
                if (isa<PHINode>(I) || isa<SelectInst>(I) || isa<CastInst>(I)) {
                    carries = carries || hasBlockAddressOperand(I);
                    for (Value *Op : I.operands())
                        if (auto *OI = dyn_cast<Instruction>(Op)) carries = carries || A.count(OI);
                }
                if (carries) grew = A.insert(&I).second || grew;
            }
    }
    return A;
}

// v's use U lies in a block where a nop may have switched copies since v was computed: in a loop
// that does not contain v's block, or (a phi of a loop header) on that loop's back-edge.
bool useCrossesHeader(Instruction *v, Use &U, LoopInfo &LI)
{
    auto *UI = cast<Instruction>(U.getUser());
    BasicBlock *at = UI->getParent();
    if (auto *P = dyn_cast<PHINode>(UI)) {
        at = P->getIncomingBlock(U);
        if (LI.isLoopHeader(P->getParent())) return true;
    }
    for (Loop *L = LI.getLoopFor(at); L; L = L->getParentLoop())
        if (!L->contains(v->getParent())) return true;
    return false;
}

// Every value V may come from (through phis, selects and casts) is a table load or a blockaddress.
bool knownAddress(Value *V, const SmallPtrSetImpl<GlobalVariable *> &tables, SmallPtrSetImpl<Value *> &seen)
{
    if (!seen.insert(V).second) return true;
    if (isa<BlockAddress>(V->stripPointerCasts()) || isTableLoad(V, tables)) return true;
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !(isa<PHINode>(I) || isa<SelectInst>(I) || isa<CastInst>(I))) return false;
    for (unsigned i = isa<SelectInst>(I) ? 1 : 0; i < I->getNumOperands(); i++)
        if (!knownAddress(I->getOperand(i), tables, seen)) return false;
    return true;
}

// A table's address used other than to load from it (stored, passed, returned): its entries may
// then be loaded where isTableLoad does not see them.
bool tableEscapes(Function &F, const SmallPtrSetImpl<GlobalVariable *> &tables)
{
    for (BasicBlock &BB : F)
        for (Instruction &I : BB) {
            if (isa<LoadInst>(I) || isa<GetElementPtrInst>(I) || isa<CastInst>(I)) continue;
            for (Value *Op : I.operands())
                if (Op->getType()->isPointerTy())
                    if (auto *G = dyn_cast<GlobalVariable>(getUnderlyingObject(Op)))
                        if (tables.count(G)) return true;
        }
    return false;
}

} // namespace

bool hasComputedGoto(Function &F)
{
    for (BasicBlock &BB : F)
        if (BB.hasAddressTaken() || isa<IndirectBrInst>(BB.getTerminator())) return true;
    return false;
}

bool indirectCloneable(Function &F)
{
    if (IndirectForm == "single") return false;
    AddressUsers users(F);
    if (!users.ok) return false;
    for (Instruction *I : users.insts)
        if (I->getFunction() != &F || isa<CallBrInst>(I)) return false;
    for (GlobalVariable *G : users.tables)
        if (!G->isConstant() || !G->hasDefinitiveInitializer()) return false;
    return true;
}

void splitIndirectLatches(MutableArrayRef<std::pair<BasicBlock *, BasicBlock *>> backedges)
{
    DenseMap<BasicBlock *, BasicBlock *> holder; // a latch already split: the block with its indirectbr
    for (auto &be : backedges) {
        BasicBlock *at = holder.count(be.first) ? holder[be.first] : be.first, *hd = be.second;
        auto *ibr = dyn_cast<IndirectBrInst>(at->getTerminator());
        if (!ibr) continue;
        Value *addr = ibr->getAddress();
        BasicBlock *J = at->splitBasicBlock(ibr, "hp.ibr");
        at->getTerminator()->eraseFromParent();
        IRBuilder<> B(at);
        Value *is = B.CreateICmpEQ(addr, ConstantExpr::getBitCast(BlockAddress::get(at->getParent(), hd), addr->getType()));
        B.CreateCondBr(is, hd, J);
        for (PHINode &P : hd->phis()) P.addIncoming(P.getIncomingValueForBlock(J), at);
        holder[be.first] = J;
        be.first = at;
    }
}

// A private constant copy T.hotprof of dispatch table G (of F) with initializer init.
static GlobalVariable *tableClone(Function &F, GlobalVariable *G, Constant *init)
{
    auto *C = new GlobalVariable(*F.getParent(), G->getValueType(), true, GlobalValue::PrivateLinkage, init,
                                 G->getName() + ".hotprof");
    C->setAlignment(G->getAlign());
    C->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    C->setSection(G->getSection());
    if (Comdat *cd = F.getComdat()) C->setComdat(cd);
    return C;
}

// Every blockaddress in G's initializer names a block VM maps (a table of the blocks being cloned).
static bool tableOfMapped(GlobalVariable *G, ValueToValueMapTy &VM)
{
    SmallVector<Constant *, 64> work{G->getInitializer()};
    while (!work.empty()) {
        Constant *C = work.pop_back_val();
        if (auto *BA = dyn_cast<BlockAddress>(C)) {
            if (!VM.count(BA->getBasicBlock())) return false;
            continue;
        }
        for (Value *Op : C->operands()) work.push_back(cast<Constant>(Op));
    }
    return true;
}

unsigned mapDispatchTables(Function &F, ValueToValueMapTy &VM, StringRef suffix)
{
    AddressUsers users(F);
    unsigned n = 0;
    for (GlobalVariable *G : users.tables) {
        if (!tableOfMapped(G, VM)) continue; /* another copy's table */
        GlobalVariable *C = tableClone(F, G, MapValue(G->getInitializer(), VM));
        C->setName(G->getName() + suffix);
        VM[G] = C;
        n++;
    }
    return n;
}

// A code address of F may leave its frame: a blockaddress stored, passed or returned, a table
// whose address escapes, or an indirectbr whose address comes from elsewhere (memory, an argument).
static bool addressLeavesFrame(Function &F, const AddressUsers &users)
{
    for (Instruction *I : users.insts) // a blockaddress stored or passed on, not computed with
        if (!isa<PHINode>(I) && !isa<SelectInst>(I) && !isa<CastInst>(I) && !isa<ICmpInst>(I)) return true;
    if (tableEscapes(F, users.tables)) return true;
    for (BasicBlock &BB : F) // an address from elsewhere (memory, an argument) may be either copy's
        if (auto *ibr = dyn_cast<IndirectBrInst>(BB.getTerminator())) {
            SmallPtrSet<Value *, 16> seen;
            if (!knownAddress(ibr->getAddress(), users.tables, seen)) return true;
        }
    return false;
}

bool indirectLoopEntry(Function &F)
{
    if (!indirectCloneable(F) || addressCrossesCopies(F)) return false;
    AddressUsers users(F);
    return !addressLeavesFrame(F, users);
}

bool indirectSeparate(Function &F)
{
    if (!g_separate || !indirectCloneable(F)) return false;
    AddressUsers users(F);
    return !addressLeavesFrame(F, users);
}

TablePairs privateTables(Function &F, ValueToValueMapTy &VM)
{
    AddressUsers users(F);
    TablePairs tables;
    for (GlobalVariable *G : users.tables) { // F's blocks for now: the clone's do not exist yet
        GlobalVariable *C = tableClone(F, G, G->getInitializer());
        VM[G] = C;
        tables.push_back({G, C});
    }
    return tables;
}

void fillPrivateTables(ArrayRef<std::pair<GlobalVariable *, GlobalVariable *>> tables, ValueToValueMapTy &VM)
{
    for (auto &t : tables) t.second->setInitializer(MapValue(t.first->getInitializer(), VM));
}

Function *cloneComputedGoto(Function &F, ValueToValueMapTy &VM)
{
    TablePairs tables = privateTables(F, VM);
    Function *C = CloneFunction(&F, VM); // maps blockaddress(@F, bb) to blockaddress(@C, bb')
    fillPrivateTables(tables, VM);
    return C;
}

bool addressCrossesCopies(Function &F)
{
    AddressUsers users(F);
    SmallPtrSet<Instruction *, 16> A = codeAddresses(F, users.tables);
    if (addressLeavesFrame(F, users)) return true;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Instruction *v : A) {
        if (isa<PHINode>(v) && LI.isLoopHeader(v->getParent())) return true;
        for (Use &U : v->uses()) {
            auto *UI = cast<Instruction>(U.getUser());
            bool computes = isa<PHINode>(UI) || isa<SelectInst>(UI) || isa<CastInst>(UI) || isa<ICmpInst>(UI) ||
                            isa<IndirectBrInst>(UI);
            if (!computes || useCrossesHeader(v, U, LI)) return true;
        }
    }
    return false;
}

// I replaced by a new indirectbr listing I's destinations and then extra's. Not addDestination on
// I: LLVM 14's IndirectBrInst copy constructor (Instruction::clone, CloneBasicBlock) leaves
// ReservedSpace uninitialized, so growing a cloned indirectbr wrote past its operands (a crash
// now and then, found by progs/dual_computed_goto.c's gen under valgrind).
static void widenIndirectBr(IndirectBrInst *I, const SmallPtrSetImpl<BasicBlock *> &extra)
{
    auto *N = IndirectBrInst::Create(I->getAddress(), I->getNumDestinations() + extra.size(), I);
    SmallPtrSet<BasicBlock *, 16> listed;
    for (BasicBlock *D : I->successors())
        if (listed.insert(D).second) N->addDestination(D);
    for (BasicBlock *D : extra)
        if (listed.insert(D).second) N->addDestination(D);
    N->copyMetadata(*I);
    I->eraseFromParent();
}

// Instructions of BB besides phis and debug intrinsics.
static unsigned bodySize(BasicBlock *BB)
{
    unsigned n = 0;
    for (Instruction &I : *BB) n += !isa<PHINode>(I) && !I.isDebugOrPseudoInst();
    return n;
}

// header reaches an indirectbr through blocks that each end in an unconditional branch, all of
// them together small enough for the code generator to copy (LLVM 14's tail duplication copies
// a block ending in an indirect branch of up to 20 instructions into each predecessor that ends
// in an unconditional branch, and repeats that up the chain).
static bool leadsToDispatch(BasicBlock *header)
{
    BasicBlock *BB = header;
    unsigned size = 0;
    for (unsigned steps = 0; steps <= kDispatchChainMax; steps++) {
        if (BB->hasAddressTaken() && BB != header) return false;
        if ((size += bodySize(BB)) > kDispatchSizeMax) return false;
        if (isa<IndirectBrInst>(BB->getTerminator())) return true;
        auto *br = dyn_cast<BranchInst>(BB->getTerminator());
        if (!br || !br->isUnconditional()) return false;
        BB = br->getSuccessor(0);
    }
    return false;
}

static void markDispatch(BasicBlock *BB)
{
    BB->getTerminator()->setMetadata(kDispatchMD, MDNode::get(BB->getContext(), {}));
}

bool isDispatchHeader(BasicBlock *header)
{
    Instruction *T = header->getTerminator();
    return T && T->getMetadata(kDispatchMD);
}

bool mergingLatch(BasicBlock *latch, BasicBlock *header, unsigned maxPreds)
{
    if (latch == header || latch->getSingleSuccessor() != header || latch->getSinglePredecessor()) return false;
    if (latch->hasAddressTaken()) return false;
    unsigned n = 0;
    for (BasicBlock *p : predecessors(latch)) {
        Instruction *T = p->getTerminator();
        if (!isa<BranchInst>(T) && !isa<SwitchInst>(T)) return false;
        if (count(successors(p), latch) != 1 || ++n > maxPreds) return false;
    }
    return true;
}

unsigned splitLatchEdges(SmallVectorImpl<std::pair<BasicBlock *, BasicBlock *>> &edges,
                         function_ref<bool(BasicBlock *latch, BasicBlock *header)> split)
{
    SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> out;
    unsigned n = 0;
    for (auto &e : edges) {
        if (!split(e.first, e.second)) {
            out.push_back(e);
            continue;
        }
        SmallPtrSet<BasicBlock *, 8> seen;
        for (BasicBlock *p : predecessors(e.first))
            if (seen.insert(p).second) out.push_back({p, e.first});
        n++;
    }
    edges.assign(out.begin(), out.end());
    return n;
}

unsigned dispatchLatchEdges(SmallVectorImpl<std::pair<BasicBlock *, BasicBlock *>> &edges)
{
    return splitLatchEdges(edges, [](BasicBlock *latch, BasicBlock *header) {
        if (!leadsToDispatch(header)) return false;
        markDispatch(header);
        if (!mergingLatch(latch, header, ~0u) || !leadsToDispatch(latch)) return false;
        markDispatch(latch);
        return true;
    });
}

void joinIndirectDests(ArrayRef<BasicBlock *> orig, ValueToValueMapTy &VM)
{
    for (BasicBlock *BB : orig) {
        auto *I = dyn_cast<IndirectBrInst>(BB->getTerminator());
        auto *C = dyn_cast_or_null<BasicBlock>(VM.lookup(BB));
        if (!I || !C) continue;
        auto *IC = cast<IndirectBrInst>(C->getTerminator());
        SmallPtrSet<BasicBlock *, 16> mine(succ_begin(BB), succ_end(BB)), theirs(succ_begin(C), succ_end(C));
        widenIndirectBr(I, theirs);
        widenIndirectBr(IC, mine);
    }
}

unsigned keepInvariantSlots(Function &F, SmallVectorImpl<AllocaInst *> &slots)
{
    DominatorTree DT(F);
    LoopInfo LI(DT);
    unsigned kept = 0;
    auto invariant = [&](AllocaInst *AI) { // read in a loop that does not set it
        SmallPtrSet<Loop *, 8> setIn;
        for (User *U : AI->users())
            if (isa<StoreInst>(U))
                for (Loop *L = LI.getLoopFor(cast<Instruction>(U)->getParent()); L; L = L->getParentLoop())
                    setIn.insert(L);
        for (User *U : AI->users())
            if (isa<LoadInst>(U)) {
                Loop *L = LI.getLoopFor(cast<Instruction>(U)->getParent());
                if (L && !setIn.count(L)) return true;
            }
        return false;
    };
    slots.erase(std::remove_if(slots.begin(), slots.end(), [&](AllocaInst *AI) {
                    bool keep = invariant(AI);
                    kept += keep;
                    return keep;
                }),
                slots.end());
    return kept;
}

} // namespace hotprof_dual
