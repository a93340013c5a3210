// hotprof_dual.cpp — the LLVM 14 pass plugin of `hotprof cc --hooks=dual-*` (docs/dual.md): two
// versions of every function (Arnold–Ryder's checking and instrumented copies), in one of two forms.
//
// Wrapper form (dual-functions' default, plugin/dual_wrapper.h): no copy of F's code; F's entry
// nop jumps to a wrapper F.hotprof (entry hook, F past the nop, exit hook) and its latches get
// clean latch sites (a cold block of F counts the back-edge). The block-level sets (and
// dual-functions with -hotprof-dual-functions-form=clone) take the two-copy forms below.
//
// Separate form (a function with no latch site: loop-free, or -hotprof-dual-latch-sites=none): the
// function F stays the optimized clean code, untouched but for a patchable 5-byte nop at its very
// first byte (patchable-function-entry); the instrumented copy is a clone "F.hotprof" (internal,
// minsize, .text.unlikely) with live hooks that name F; the nop's record targets the clone, so a
// switched-on entry is a tail jump with nothing pushed yet. Not used under -fcf-protection (the
// nop would follow endbr64 at offset 4) nor for functions a -fPIC library exports (interposable:
// no link-time pc-relative record to them): those take the one-body form.
//
// Loop-entry form (functions with loops, latch sites "outer", -hotprof-dual-loops=osr): F's entry as in the
// separate form, and per outermost loop L a clone "F.hotprof.loop" of F's code from L's header on,
// called from a cold block of F behind the nop on L's latch edge (see OsrLoop below): F's loops
// keep the native register allocation.
//
// One loop-entry clone (-hotprof-dual-loops=entry): F stays the optimizer's code, its one
// instrumented copy F.hotprof.loop is entered from cold blocks of F (its top and every latch) and
// goes back to F at a latch: plugin/dual_loops.h.
//
// One-body form (functions with latch sites: the default), per function that clang marked for
// -finstrument-functions-after-inlining (the attribute is taken off, so the codegen instrumenter
// does nothing and no_instrument_function is respected):
//   1. critical edges are split as sanitizer coverage splits them (so the blocks are its blocks);
//   2. the static allocas stay in a new entry block E0; every value live across blocks is demoted
//      to a stack slot there (reg2mem), so both copies share the frame;
//   3. every other block is cloned: the originals are the clean copy (no hook), the clones the
//      instrumented copy (hooks: entry/exit, back-edges, blocks, loads/stores by level);
//   4. E0 ends in a patchable 5-byte nop (`callbr` asm goto) whose label is the instrumented entry;
//      each loop back-edge (LoopInfo latch -> header) of the clean copy goes through another such
//      nop whose label is the instrumented copy's back-edge block (or, -hotprof-dual-site-exits=
//      dedicated, a block of its own going there, which keeps the clean loop in LoopSimplify form
//      for the code generator's loop strength reduction); that block calls
//      __hotprof_dual_backedge(fn) and goes on in the instrumented copy if it returns non-zero,
//      else back to the clean header (a one-block loop is copied instead, the copy entered
//      through the nop at its top: -hotprof-dual-latch-form). Each nop records {site, target,
//      kind} (pc-relative) into the section __hotprof_dual (in F's comdat group where F has one:
//      a discarded copy of an inline function takes its records along), read by the runtime
//      (ctl/dual.c) through __start_/__stop_;
//   5. the slots are promoted back to registers (mem2reg).
// A nop never crosses an 8-byte boundary (.p2align 3,0x2e,4 before it: the padding is CS prefixes of
// the nop itself, so no padding instruction runs), so the runtime switches it with one aligned
// 8-byte store. Functions that cannot be cloned safely (callbr, blockaddress users
// dual_indirect.cpp cannot follow, returns_twice calls, token values across blocks) get one copy
// with live hooks instead (latch hooks included, whose answer they ignore). Computed goto
// (indirectbr, dispatch tables) takes the one-body form: dual_indirect.h; there (unless a label
// address can cross copies) a third copy, the rejoin copy, is what a finished burst leaves to, so
// no edge enters the clean copy from the others (cloneRejoinCopy; every one-body function with
// -hotprof-dual-rejoin-all=on).
// Return sites (-hotprof-dual-return-sites=on, dual_retsites.h): in the one-body form each call
// of the clean copy that can return is followed by a site (kind 2) whose label is the point after
// the same call in the instrumented copy (its block split before reg2mem, as a latch site's target
// is repaired); the instrumented copies' calls get call-range records (kind 3).
// Count registers (inline count sites, -hotprof-dual-count-reg=on, dual_countreg.h): once every
// function is done, the count sites of call-free loops keep the countdown in a register.
// Blocks: guards in __sancov_guards and a pc-table in __sancov_pcs exactly as sanitizer coverage
// (trace-pc-guard,pc-table,no-prune) makes them, plus flag 2 ("dual": back-edges come from the latch
// hook, not the address rule) on every block of a cloned function; an executable's instrumented
// copies call the block hook named by its return address (dual_blockra.h).
// Level: -mllvm -hotprof-dual=functions|blocks|memory (the plugin is also loaded with -load).
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include "dual_blockra.h"
#include "dual_countreg.h"
#include "dual_countver.h"
#include "dual_hookcall.h"
#include "dual_indirect.h"
#include "dual_loops.h"
#include "dual_options.h"
#include "dual_peel.h"
#include "dual_retsites.h"
#include "dual_wrapper.h"

using hotprof_dual::checkOption;

using namespace llvm;

static cl::opt<std::string> DualLevel("hotprof-dual", cl::desc("hotprof dual hooks: functions|blocks|memory|all"),
                                      cl::init("blocks"));
// Which loop back-edges get a site (docs/dual.md): all (default: every loop latch, so count mode's
// countdown sees every back-edge), outer (outermost loops only; an inner loop is reached at its
// outer loop's next iteration: a lower floor, but count mode then counts outer iterations), none (function entries only: every
// function then gets the separate clone). Back-edges without a site are still counted in the
// instrumented copy.
static cl::opt<std::string> LatchSites("hotprof-dual-latch-sites", cl::desc("hotprof dual: all|outer|none"),
                                       cl::init("all"));
// How a function without latch sites gets its instrumented copy (docs/dual.md): clone (default: a
// separate function, the original untouched but for a patchable nop at its first byte) or inline
// (both copies in one body behind a callbr at the entry, as functions with latch sites have).
static cl::opt<std::string> EntryForm("hotprof-dual-entry", cl::desc("hotprof dual: clone|inline"),
                                      cl::init("clone"));
// How a function with latch sites gets its instrumented copy: inline (both copies in one
// body) or osr (its entry as the separate form, and per outermost loop a loop-entry clone called
// from the latch nop; needs latch sites "outer"). osr has the lower switched-off floor, but a
// call made in a loop then has two instrumented call sites (F.hotprof, F.hotprof.loop), and
// `hotprof compare`, which matches call pairs by site address, sees them as two keys
// (docs/dual.md, Measured).
// entry: one loop-entry clone per function, entered at any latch's header by an index (every latch
// gets a site with latch sites "all"): plugin/dual_loops.h.
// (inline is the default for the sets bursts use: entry has the lower floor on the workloads, but its
// way back, whose reloaded values F's loop headers merge, made large functions slower: qjs 5.3x
// native, brotli's text 11.5x; docs/dual.md "One loop-entry clone per function". The shadow set,
// all, defaults to entry without the way back (useShadowDefaults): a shadow never goes back, the
// parent never enters, and each block has one instrumented copy, so a shadow's paths are the
// exhaustive run's.)
static cl::opt<std::string> LoopForm("hotprof-dual-loops", cl::desc("hotprof dual: inline|osr|entry"),
                                     cl::init("inline"));
// How the separate instrumented clone is compiled: size (minsize, in .text.unlikely: it runs only
// in bursts), or speed (as the clean function).
static cl::opt<std::string> CloneOpt("hotprof-dual-clone-opt", cl::desc("hotprof dual: size|speed"),
                                     cl::init("size"));

// Where a clean latch site's nop jumps (docs/dual.md, "Where the floor comes from"): shared
// (default: straight to the instrumented back-edge block, which the instrumented latch reaches
// too) or dedicated (a block of its own that only this nop reaches, then that block). With shared,
// the label is a loop exit with a predecessor outside the loop and the callbr edge cannot be
// split, so the clean loop is not in LoopSimplify form and the code generator's loop strength
// reduction skips it; dedicated restores LSR, but measured no lower floor (brotli: 1.9-3.1% more
// instructions executed, time equal within noise; the new induction variables' copies land in the
// site blocks), so it is an option. kept: such a block kept by an empty asm (keptExit), so the
// copies into the label's phis are made there (the rejoin form's clean copy always has it; on the
// workloads no gain: 1.123x native against 1.120x, bench/results/fastpath_instr_keptexits.txt).
static cl::opt<std::string> SiteExits("hotprof-dual-site-exits", cl::desc("hotprof dual: shared|dedicated|kept"),
                                      cl::init("shared"));

// Where the nop of a one-block clean loop (its header is its latch) goes: top (default: the block
// is copied; the original runs the first iteration, the copy is the loop, entered through the
// nop's block at its top, so the nop falls through into the body and the copy's back-edge branches
// to it: no jmp, and no padding at the 16-byte aligned loop top; still one nop per back-edge, so
// count mode's count is unchanged) or edge (a block of its own on the latch -> header edge, which
// the code generator lays out after the latch with a jmp back to the header). Loops of several
// blocks always take the edge form (copying their header would make the loop irreducible).
static cl::opt<std::string> LoopTop("hotprof-dual-latch-form", cl::desc("hotprof dual: top|edge"),
                                    cl::init("top"));

// What a site is in the clean copy (docs/dual.md, *Inline count sites*): nop (default: a
// patchable 5-byte nop, switched by the runtime: every mode), or count (the decrement of count
// mode compiled in: `subq $1, %fs:hp_dual_countdown@tpoff; jle <instrumented>`, Arnold–Ryder's
// check: no jump out and back; such a build runs count, live and exhaustive modes, not patched
// bursts). Only in an executable (PIE or not): a -fPIC module that is not PIE may become a shared
// library, where the countdown is not at a link-time %fs offset, and keeps nop sites.
static cl::opt<std::string> SiteForm("hotprof-dual-site", cl::desc("hotprof dual: nop|count"), cl::init("nop"));
// The entry site of a function with a separate instrumented copy (the separate, wrapper and
// loop-entry forms: before F's prologue, where the plugin cannot place code) in an executable's
// code: on (default: a 16-byte pad, which count mode's runtime fills once with the countdown's
// decrement and `jle F.hotprof`, docs/dual.md *Entry pads*: no trampoline, no taken jump per call;
// switched off, two nops), count (the pad in builds with count sites only, the default until
// session 37) or off (the 5-byte nop, to a trampoline in count mode: two taken jumps and a third
// instruction per call).
static cl::opt<std::string> EntryPad("hotprof-dual-entry-pad", cl::desc("hotprof dual: on|count|off"), cl::init("on"));
// How a dual-functions build gives a function its instrumented copy: wrapper (default: no copy of
// the code: F keeps the optimizer's code plus its entry nop and clean latch sites, and F.hotprof is
// a small wrapper that calls the entry hook, F past its nop and the exit hook; runWrapper) or clone
// (as the block-level sets: the separate, one-body or loop-entry form). Real programs (bench/
// fastpath/real.sh): switched off 1.019x geomean against 1.088x, code 1.26-1.39x against
// 2.21-2.65x, the same count-mode rate and accuracy (docs/fastpath.md).
static cl::opt<std::string> FunctionsForm("hotprof-dual-functions-form", cl::desc("hotprof dual: wrapper|clone"),
                                          cl::init("wrapper"));

// How the instrumented copy of a one-body function calls its void hooks: auto (default:
// preserve-most, except in a function with computed goto, which calls them directly), c (direct
// calls) or preserve-most (through a per-module thunk with LLVM's preserve_most convention, which
// saves the caller-saved registers itself, so values live across a hook call need neither a
// callee-saved register nor a spill in the body both copies share: dual-blocks' workloads 1.120x
// native in instructions switched off against 1.142x with c, lexgen 1.283x against 1.464x; but
// qjs's JS_CallInternal, computed goto, 16% more: docs/dual.md *The one-body form's hooks keep
// the registers too*; in patch mode sites.c then switches the thunk's one call site for all).
// Memory hooks are always called directly (they take the load's pc from their return address),
// and so is the back-edge hook, which returns a value.
static cl::opt<std::string> HookCC("hotprof-dual-hook-cc", cl::desc("hotprof dual: auto|c|preserve-most"),
                                   cl::init("auto"));
// How the instrumented copies of an executable's code call the block hook (dual_blockra.h): ra
// (default: a 5-byte call whose return address names the block through a record) or guard
// (sanitizer coverage's `lea guard, %rdi; call`). ra applies where the guard hook would be called
// through the preserve_most thunk, and in the separate and loop-entry clones.
static cl::opt<std::string> BlockHook("hotprof-dual-block-hook", cl::desc("hotprof dual: ra|guard"),
                                      cl::init("ra"));
// How a site's label calls the back-edge hook (dual_hookcall.h): preserve_most with F's address
// computed in place (the default), or a plain C call.
static cl::opt<std::string> BackedgeCC("hotprof-dual-backedge-cc", cl::desc("hotprof dual: preserve-most|c"),
                                       cl::init("preserve-most"));
// The one-body form of a computed-goto function: the instrumented copy leaves to a third copy
// (copy) or to the clean copy (clean, as before); cloneRejoinCopy.
static cl::opt<std::string> IndirectRejoin("hotprof-dual-indirect-rejoin", cl::desc("hotprof dual: copy|clean"),
                                           cl::init("copy"));
// The rejoin copy for every one-body function (on), not only for computed goto (off): measured on
// the workloads (dual-blocks, count sites) 1.088x native against 1.120x switched off (lower on
// seven of eight; nbody 1.063 -> 1.098), 1.126x against 1.139x in count mode (gametree and interp
// gain, six lose a little: a long frame runs in the rejoin copy after its first burst), and one
// more copy of the code, text 4.40x against 3.28x (docs/fastpath.md "The main thread switched
// off"); not with return sites.
static cl::opt<std::string> RejoinAll("hotprof-dual-rejoin-all", cl::desc("hotprof dual: off|on"), cl::init("off"));

namespace {

// Where the forms split F's entry block: past its static allocas, which stay in the block both
// copies share (one frame). A static alloca after another instruction (the optimizer leaves some
// there) is moved up to them first, order kept: past the split it would be a dynamic alloca in
// each copy, a stack adjustment and a stored address per call (qjs's JS_CallInternal: 26 of them).
BasicBlock::iterator pastStaticAllocas(BasicBlock &E)
{
    BasicBlock::iterator first = E.begin();
    while (first != E.end() && isa<AllocaInst>(*first) && cast<AllocaInst>(*first).isStaticAlloca()) ++first;
    SmallVector<AllocaInst *, 8> late;
    for (auto I = first; I != E.end(); ++I) {
        auto *AI = dyn_cast<AllocaInst>(&*I);
        if (AI && AI->isStaticAlloca()) late.push_back(AI);
    }
    for (AllocaInst *AI : late) AI->moveBefore(&*first);
    return first;
}

enum Level { LFunctions = 0, LBlocks = 1, LMemory = 2, LAll = 3 }; // LAll: memory + compares (hookCompares)
enum SiteKind { KEntry = 0, KBackedge = 1, KReturn = 2 }; // KReturn: after a call (dual_retsites.h)
constexpr uint64_t kFlagEntry = 1, kFlagDual = 2;
constexpr unsigned kRecPad = 2; // a record's flags: the site is a 16-byte entry pad (ctl/dual.h HP_DUAL_REC_PAD)

struct Hooks {
    FunctionCallee enter, exit, backedge, cleanBackedge, guard, load[5], store[5];
    FunctionCallee siteBackedge; // what a back-edge site's label calls: backedge, or its preserve_most entry
    Type *i8p, *i32, *i64;
};

// Sanitizer coverage's block rule (no-prune): every block except unreachable-only ones and
// those without an insertion point.
bool sancovBlock(BasicBlock &BB)
{
    if (isa<UnreachableInst>(BB.getFirstNonPHIOrDbgOrLifetime())) return false;
    return BB.getFirstInsertionPt() != BB.end();
}

bool cannotClone(Function &F)
{
    // computed goto (indirectbr, blockaddress users): two copies where dual_indirect.cpp can
    if (hotprof_dual::hasComputedGoto(F) && !hotprof_dual::indirectCloneable(F)) return true;
    for (BasicBlock &BB : F) {
        for (Instruction &I : BB) {
            if (isa<CallBrInst>(I)) return true;
            if (auto *CB = dyn_cast<CallBase>(&I))
                if (CB->hasFnAttr(Attribute::ReturnsTwice) || CB->cannotDuplicate()) return true;
            if (I.getType()->isTokenTy()) return true;
            if (isa<CatchSwitchInst>(I) || isa<CleanupPadInst>(I) || isa<CatchPadInst>(I)) return true;
        }
    }
    return false;
}

// This module becomes an executable's code (not -fPIC library code): it calls the runtime the
// executable links statically directly, never through a PLT.
bool executableCode(Module &M)
{
    return M.getPICLevel() == PICLevel::NotPIC || M.getPIELevel() != PIELevel::Default;
}

// Block hooks named by their return address (dual_blockra.h) in this module's instrumented copies.
bool blockHooksByRA(Module &M) { return BlockHook == "ra" && executableCode(M); }

// Inline count sites (-hotprof-dual-site=count) in this module: an executable's code only.
bool countSites(Module &M) { return SiteForm == "count" && executableCode(M); }

// The bytes of an entry site before F's prologue: a 16-byte pad (EntryPad says where), else the
// 5-byte nop. F's ABI entry (what the wrapper form calls) follows it.
unsigned entrySiteBytes(Module &M)
{
    return (EntryPad == "on" && executableCode(M)) || (EntryPad == "count" && countSites(M)) ? 16 : 5;
}

// A back-edge site's fall-through when it goes to a loop header (a block with other predecessors):
// a block of its own that goes on to the header and takes `at`'s place in the header's phis. A
// callbr cannot be a predecessor of a loop's header without spoiling LoopSimplify form (its edges
// cannot be split), and without that form the code generator's loop strength reduction skips the
// loop: gametree's `evaluate` ran 1.19x native with its inner latch sites, 1.00x with this block.
// Only where it can help: a header some other indirect terminator (indirectbr, callbr) reaches is
// out of LoopSimplify form anyway, and in a function with computed goto (indirectbr anywhere: its
// loops run through dispatch blocks LSR does not reduce) the block is one more jmp in the hot
// path: QuickJS's JS_CallInternal (58 latch sites) ran qjs 1.17x native with landing blocks,
// 1.08x without (the wrapper form, 5 interleaved runs). Except before a dispatch header
// (dual_indirect.h isDispatchHeader): there the code generator copies the dispatch into the
// landing block, which an empty asm keeps from being folded away, so each handler ends in its own
// indirect jump (the code generator copies nothing into the site's callbr, which has two
// successors); no jmp is left.
bool needsLanding(BasicBlock *at, BasicBlock *header)
{
    if (pred_empty(header)) return false;
    if (hotprof_dual::isDispatchHeader(header)) return true; // (copied into the landing block)
    // (not hasComputedGoto: the blockaddresses of F's earlier sites make their labels address-taken;
    // `at` has no terminator yet)
    for (BasicBlock &BB : *at->getParent())
        if (isa_and_nonnull<IndirectBrInst>(BB.getTerminator())) return false;
    for (BasicBlock *p : predecessors(header))
        if (p != at && p->getTerminator() && p->getTerminator()->isIndirectTerminator()) return false;
    return true;
}

BasicBlock *latchLanding(BasicBlock *at, BasicBlock *header)
{
    BasicBlock *next = BasicBlock::Create(at->getContext(), "hp.site.next", at->getParent(), header);
    BranchInst *br = BranchInst::Create(header, next);
    if (hotprof_dual::isDispatchHeader(header)) hotprof_dual::emptyAsm(br); // CodeGenPrepare keeps the block
    for (PHINode &P : header->phis()) P.replaceIncomingBlockWith(at, next);
    return next;
}

// The site: the patchable nop (5 bytes not crossing an 8-byte boundary, after up to 4 CS prefixes
// that pad it there and execute as part of it), or with count sites the
// countdown's decrement and branch; and its record {site, target, kind, flags: 1 = count site}.
// src/analysis/latch_asm.c (--dual-latch=branch) recognizes a back-edge nop site by this exact
// text as clang prints it with -fno-integrated-as: change both together.
// A return site is always a nop; its flags' upper 16 bits hold the distance from the label `2:`
// before its call (markCall) to the nop, so the runtime knows the call's return address range.
CallBrInst *emitSite(BasicBlock *at, BasicBlock *normal, BasicBlock *target, SiteKind kind, Type *i8p)
{
    LLVMContext &C = at->getContext();
    bool count = kind != KReturn && countSites(*at->getModule());
    std::string code = count ? hotprof_dual::CountSiteCode : ".p2align 3,0x2e,4\n1: .byte 0x0f,0x1f,0x44,0x00,0x00\n";
    std::string flags = kind == KReturn ? ".short 0\n.short 1b - 2b" : count ? ".long 1" : ".long 0";
    std::string text = code + hotprof_dual::recordSection(*at->getParent(), "__hotprof_dual") + ".balign 4\n"
                              ".long 1b - .\n.long ${0:l} - .\n.long " +
                       std::to_string((int)kind) + "\n" + flags + "\n.popsection";
    FunctionType *FT = FunctionType::get(Type::getVoidTy(C), {i8p}, false);
    InlineAsm *IA = InlineAsm::get(FT, text, "X,~{dirflag},~{fpsr},~{flags}", /*sideeffect*/ true);
    if (kind == KBackedge && needsLanding(at, normal)) normal = latchLanding(at, normal);
    Constant *ba = BlockAddress::get(at->getParent(), target);
    return CallBrInst::Create(FT, IA, normal, {target}, {ConstantExpr::getBitCast(ba, i8p)}, "", at);
}

// F's (latch, header) edges from LoopInfo, loops in preorder; outer: the outermost loops' headers.
void latchEdgesOf(Function &F, SmallVectorImpl<std::pair<BasicBlock *, BasicBlock *>> &out,
                  SmallPtrSetImpl<BasicBlock *> *outer)
{
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) {
        SmallVector<BasicBlock *, 4> latches;
        L->getLoopLatches(latches);
        for (BasicBlock *lt : latches) out.push_back({lt, L->getHeader()});
        if (outer && L->getLoopDepth() == 1) outer->insert(L->getHeader());
    }
}

struct DualFunction {
    Function &F;
    Module &M;
    const Hooks &H;
    int level;
    bool cold = false; // hook calls marked cold: the clean copy gets the fall-through layout
    SmallVector<BasicBlock *, 32> blocks;        // the hooked blocks (instrumented copy), pc order
    SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> backedges; // (latch, header), original
    SmallPtrSet<BasicBlock *, 8> outerHeaders;
    Function *id = nullptr; // the function the hooks name (F itself, or the clean F of a clone)
    BasicBlock *osrEntry = nullptr; // a loop-entry clone's entry block: no entry hook, no block hook
    Value *osrRet = nullptr;        // ... and F's return address, passed in
    BasicBlock *fnEntry = nullptr;  // -loops=entry: the copy of F's entry block (whole calls)
    const SmallPtrSetImpl<BasicBlock *> *noHook = nullptr; // -loops=entry: its switch and trampolines
    bool givenBackedges = false;    // backedges given (from F's LoopInfo), not found in this function
    const SmallPtrSetImpl<BasicBlock *> *leaves = nullptr; // -loops=entry: the way back's branches
    int stayIndex = -1;             // -loops=entry: entered with it, the clone never goes back

    Function *ident() { return id ? id : &F; }

    bool thunked = false; // hook calls through preserve_most thunks (-hotprof-dual-hook-cc)
    bool raHooks = false; // block hooks named by their return address (dual_blockra.h)
    bool leaveOuterOnly = false; // computed goto: the instrumented copy leaves at outermost latches only

    void mark(CallInst *CI)
    {
        if (cold) CI->addFnAttr(Attribute::Cold);
    }

    // The thunk of a hook: hidden, one per linked module (comdat), preserve_most; calls the hook.
    Function *thunkOf(FunctionCallee real)
    {
        auto *RF = cast<Function>(real.getCallee());
        std::string name = ("__hotprof_pm_" + RF->getName()).str();
        if (Function *T = M.getFunction(name)) return T;
        Function *T = Function::Create(real.getFunctionType(), GlobalValue::LinkOnceODRLinkage, name, &M);
        T->setVisibility(GlobalValue::HiddenVisibility);
        T->setCallingConv(CallingConv::PreserveMost);
        T->setComdat(M.getOrInsertComdat(name));
        T->addFnAttr(Attribute::NoInline);
        T->addFnAttr(Attribute::NoUnwind);
        IRBuilder<> B(BasicBlock::Create(M.getContext(), "", T));
        SmallVector<Value *, 2> args;
        for (Argument &A : T->args()) args.push_back(&A);
        B.CreateCall(real, args);
        B.CreateRetVoid(); /* void hooks only (callHook) */
        return T;
    }

    CallInst *callHook(IRBuilder<> &B, FunctionCallee real, ArrayRef<Value *> args)
    {
        // (a value-returning hook is called directly: LLVM 14's preserve_most thunk restores RAX
        // after the inner call, so it would lose the answer of __hotprof_dual_backedge)
        if (!thunked || !real.getFunctionType()->getReturnType()->isVoidTy()) return B.CreateCall(real, args);
        Function *T = thunkOf(real);
        CallInst *CI = B.CreateCall(T, args);
        CI->setCallingConv(CallingConv::PreserveMost);
        return CI;
    }
    Value *fnArg(IRBuilder<> &B) { return B.CreateBitCast(ident(), H.i8p); }
    Value *retAddr(IRBuilder<> &B)
    {
        if (osrRet) return osrRet;
        return B.CreateCall(Intrinsic::getDeclaration(&M, Intrinsic::returnaddress), {B.getInt32(0)});
    }

    void hookEntry(BasicBlock *entry)
    {
        BasicBlock::iterator ip = entry->getFirstInsertionPt();
        while (isa<AllocaInst>(*ip)) ++ip;
        IRBuilder<> B(&*ip);
        mark(callHook(B, H.enter, {fnArg(B), retAddr(B)}));
    }

    void hookReturns(ArrayRef<BasicBlock *> bbs)
    {
        for (BasicBlock *BB : bbs) {
            auto *ret = dyn_cast<ReturnInst>(BB->getTerminator());
            if (!ret) continue;
            Instruction *at = ret;
            if (CallInst *ci = BB->getTerminatingMustTailCall()) at = ci;
            IRBuilder<> B(at);
            mark(callHook(B, H.exit, {fnArg(B), retAddr(B)}));
        }
    }

    void hookMemory(ArrayRef<BasicBlock *> bbs)
    {
        const DataLayout &DL = M.getDataLayout();
        // The stack slots demote() made (promotable allocas: only loads and stores use them) are
        // registers of the optimized program, not its memory: a hook taking a slot's address would
        // also keep mem2reg from promoting it back, in both copies. Collected before any hook goes in.
        SmallPtrSet<Value *, 32> slots;
        for (Instruction &I : F.getEntryBlock())
            if (auto *AI = dyn_cast<AllocaInst>(&I))
                if (isAllocaPromotable(AI)) slots.insert(AI);
        for (BasicBlock *BB : bbs) {
            SmallVector<Instruction *, 16> mem;
            for (Instruction &I : *BB)
                if ((isa<LoadInst>(I) || isa<StoreInst>(I)) && !slots.count(getLoadStorePointerOperand(&I)))
                    mem.push_back(&I);
            for (Instruction *I : mem) {
                bool st = isa<StoreInst>(I);
                Type *T = st ? cast<StoreInst>(I)->getValueOperand()->getType() : I->getType();
                Value *P = st ? cast<StoreInst>(I)->getPointerOperand() : cast<LoadInst>(I)->getPointerOperand();
                uint64_t bits = DL.getTypeStoreSizeInBits(T);
                int idx = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : bits == 128 ? 4 : -1;
                if (idx < 0 || P->getType()->getPointerAddressSpace() != 0) continue;
                IRBuilder<> B(I);
                FunctionCallee cb = st ? H.store[idx] : H.load[idx];
                Type *PT = cb.getFunctionType()->getParamType(0);
                mark(B.CreateCall(cb, {B.CreatePointerCast(P, PT)}));
            }
        }
    }

    // dual-all (shadow mode's values): sanitizer coverage's trace-cmp on the integer compares of
    // bbs: __sanitizer_cov_trace_cmp{1,2,4,8}(a, b), or __sanitizer_cov_trace_const_cmpN(const, x)
    // when one operand is a constant (it goes first, as sanitizer coverage passes it). Pointer,
    // vector and odd-width compares and switches get no hook. Self-contained: declares its hooks.
    void hookCompares(ArrayRef<BasicBlock *> bbs)
    {
        SmallVector<ICmpInst *, 16> cmps;
        for (BasicBlock *BB : bbs)
            for (Instruction &I : *BB)
                if (auto *ic = dyn_cast<ICmpInst>(&I)) cmps.push_back(ic);
        for (ICmpInst *ic : cmps) {
            Value *a = ic->getOperand(0), *b = ic->getOperand(1);
            auto *T = dyn_cast<IntegerType>(a->getType());
            unsigned bits = T ? T->getBitWidth() : 0;
            bool ca = isa<Constant>(a), cb = isa<Constant>(b);
            if ((bits != 8 && bits != 16 && bits != 32 && bits != 64) || (ca && cb)) continue;
            if (cb) std::swap(a, b);
            std::string name = std::string(ca || cb ? "__sanitizer_cov_trace_const_cmp" : "__sanitizer_cov_trace_cmp") +
                               std::to_string(bits / 8);
            FunctionCallee fc = M.getOrInsertFunction(name, Type::getVoidTy(M.getContext()), T, T);
            IRBuilder<> B(ic);
            mark(B.CreateCall(fc, {a, b}));
        }
    }

    // Guards and pc-table, as sanitizer coverage lays them out (one array each per function).
    void hookBlocks(ArrayRef<BasicBlock *> bbs, BasicBlock *entry, uint64_t extraFlags)
    {
        if (bbs.empty()) return;
        // A loop-entry clone has no entry block; a leading record {F, entry} that no block calls
        // opens its run of blocks, so the runtime's block map gives them F (blockmap.c).
        size_t lead = osrEntry && !fnEntry ? 1 : 0;
        auto *GT = ArrayType::get(H.i32, bbs.size() + lead);
        auto *guards = new GlobalVariable(M, GT, false, GlobalValue::PrivateLinkage, Constant::getNullValue(GT),
                                          "__hotprof_dual_guards");
        guards->setSection("__sancov_guards");
        guards->setAlignment(Align(4));
        SmallVector<Constant *, 64> pcs;
        if (lead) {
            pcs.push_back(ConstantExpr::getPtrToInt(ident(), H.i64));
            pcs.push_back(ConstantInt::get(H.i64, kFlagEntry | extraFlags));
        }
        for (BasicBlock *BB : bbs) {
            bool isEntry = BB == entry;
            Constant *pc = isEntry ? ConstantExpr::getPtrToInt(ident(), H.i64)
                                   : ConstantExpr::getPtrToInt(BlockAddress::get(&F, BB), H.i64);
            pcs.push_back(pc);
            pcs.push_back(ConstantInt::get(H.i64, (isEntry ? kFlagEntry : 0) | extraFlags));
        }
        auto *PTy = ArrayType::get(H.i64, pcs.size());
        auto *table = new GlobalVariable(M, PTy, true, GlobalValue::PrivateLinkage, ConstantArray::get(PTy, pcs),
                                         "__hotprof_dual_pcs");
        table->setSection("__sancov_pcs");
        table->setAlignment(Align(8));
        if (Comdat *cd = F.getComdat()) {
            guards->setComdat(cd);
            table->setComdat(cd);
        }
        appendToCompilerUsed(M, {guards, table});
        for (size_t i = 0; i < bbs.size(); i++) {
            BasicBlock *BB = bbs[i];
            BasicBlock::iterator ip = BB->getFirstInsertionPt();
            while (BB == entry && isa<AllocaInst>(*ip)) ++ip; /* keep static allocas first */
            IRBuilder<> B(&*ip);
            Constant *g = ConstantExpr::getInBoundsGetElementPtr(
                GT, guards, ArrayRef<Constant *>{B.getInt64(0), B.getInt64(i + lead)});
            if (raHooks) hotprof_dual::callBlockHookRA(B, g, F);
            else mark(callHook(B, H.guard, {ConstantExpr::getPointerCast(g, PointerType::getUnqual(H.i32))}));
        }
    }

    void findBackedges() { latchEdgesOf(F, backedges, &outerHeaders); }

    bool siteOn(BasicBlock *header)
    {
        return LatchSites == "all" || (LatchSites == "outer" && outerHeaders.count(header));
    }

    // Values used outside their block go through stack slots in E0 (reg2mem).
    void demote(BasicBlock *E0)
    {
        SmallVector<PHINode *, 16> phis;
        SmallVector<Instruction *, 64> regs;
        for (BasicBlock &BB : F) {
            if (&BB == E0) continue;
            for (Instruction &I : BB) {
                if (auto *P = dyn_cast<PHINode>(&I)) phis.push_back(P); /* and its escaping value first */
                for (User *U : I.users()) {
                    auto *UI = cast<Instruction>(U);
                    if (UI->getParent() != &BB || isa<PHINode>(UI)) { regs.push_back(&I); break; }
                }
            }
        }
        Instruction *ip = E0->getTerminator();
        for (Instruction *I : regs) DemoteRegToStack(*I, false, ip);
        for (PHINode *P : phis) DemotePHIToStack(P, ip);
    }

    void run(bool clone)
    {
        SplitAllCriticalEdges(F, CriticalEdgeSplittingOptions().setIgnoreUnreachableDests());
        if (!clone) return runSingle();
        cold = true;
        bool cg = hotprof_dual::hasComputedGoto(F); // computed goto: dual_indirect.h
        thunked = HookCC == "preserve-most" || (HookCC == "auto" && !cg);
        raHooks = thunked && blockHooksByRA(M);
        SmallVector<hotprof_dual::ReturnSite, 16> rets; // (not with computed goto: its phis, dual_indirect.h)
        if (!cg && hotprof_dual::returnSitesOn()) hotprof_dual::splitAfterCalls(F, rets);
        SmallPtrSet<BasicBlock *, 16> conts; // continuations after a call: no block hook
        for (auto &r : rets) conts.insert(r.cont);
        findBackedges();
        bool cross = cg && hotprof_dual::addressCrossesCopies(F);
        if (cg) hotprof_dual::splitIndirectLatches(backedges);
        else if (LatchSites == "all" && hotprof_dual::latchSplitOn()) hotprof_dual::splitSharedLatches(backedges);
        leaveOuterOnly = cg;
        BasicBlock *E = &F.getEntryBlock();
        BasicBlock *E1 = E->splitBasicBlock(pastStaticAllocas(*E), "hp.clean.entry");
        BasicBlock *E0 = E;
        demote(E0);

        SmallVector<BasicBlock *, 64> orig;
        for (BasicBlock &BB : F)
            if (&BB != E0) orig.push_back(&BB);
        // the rejoin copy (RM: F's blocks -> its blocks), before the instrumented copy's tables
        bool rejoins = (cg && !cross && IndirectRejoin == "copy") || (!cg && rets.empty() && RejoinAll == "on");
        ValueToValueMapTy RM;
        SmallVector<BasicBlock *, 64> rejoin;
        if (rejoins) rejoin = cloneRejoinCopy(orig, RM);
        ValueToValueMapTy VM;
        SmallVector<BasicBlock *, 64> copy;
        for (BasicBlock *BB : orig) {
            BasicBlock *C = CloneBasicBlock(BB, VM, ".hp", &F);
            VM[BB] = C;
            copy.push_back(C);
        }
        if (cg) hotprof_dual::mapDispatchTables(F, VM);
        for (BasicBlock *C : copy)
            for (Instruction &I : *C) RemapInstruction(&I, VM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
        if (cross) hotprof_dual::joinIndirectDests(orig, VM);
        BasicBlock *E1i = cast<BasicBlock>(VM[E1]);

        if (!rets.empty()) hotprof_dual::markReturnPoints(copy);
        // hooks in the instrumented copy, before its back-edge blocks exist
        if (level >= LBlocks) {
            SmallVector<BasicBlock *, 64> hooked;
            for (size_t i = 0; i < orig.size(); i++)
                if (sancovBlock(*orig[i]) && !conts.count(orig[i])) hooked.push_back(copy[i]);
            hookBlocks(hooked, E1i, kFlagDual);
        }
        if (level >= LMemory) hookMemory(copy);
        if (level >= LAll) hookCompares(copy);
        hookEntry(E1i);
        hookReturns(copy);

        E0->getTerminator()->eraseFromParent();
        emitSite(E0, E1, E1i, KEntry, H.i8p);
        for (auto &be : backedges) linkBackedge(be.first, be.second, VM, rejoins ? &RM : nullptr);
        for (auto &r : rets) linkReturn(r, VM);
        if (rejoins) deleteUnreachable(rejoin); /* the rejoin copy's blocks before its loops */

        DominatorTree DT(F);
        SmallVector<AllocaInst *, 32> slots;
        for (Instruction &I : *E0)
            if (auto *AI = dyn_cast<AllocaInst>(&I))
                if (isAllocaPromotable(AI)) slots.push_back(AI);
        if (cg && !rejoins) hotprof_dual::keepInvariantSlots(F, slots); /* (the rejoin form: every slot promoted) */
        if (!slots.empty()) PromoteMemToReg(slots, DT);
    }

    // The rejoin copy of a computed-goto function (-hotprof-dual-indirect-rejoin=copy; of any
    // one-body function with -hotprof-dual-rejoin-all=on): a third copy of F's blocks (orig),
    // clean, with its own dispatch tables, which the instrumented copy leaves to at a latch (an
    // outermost one, with computed goto) when its burst is over, and whose sites enter the
    // instrumented copy as the clean copy's do. The clean copy then has no edge from the other
    // copies, so no value of theirs merges into it: it is register-allocated as F alone.
    // Returns the copy's blocks; RM maps F's blocks to them.
    SmallVector<BasicBlock *, 64> cloneRejoinCopy(ArrayRef<BasicBlock *> orig, ValueToValueMapTy &RM)
    {
        SmallVector<BasicBlock *, 64> copy;
        for (BasicBlock *BB : orig) {
            BasicBlock *C = CloneBasicBlock(BB, RM, ".hp.rejoin", &F);
            RM[BB] = C;
            copy.push_back(C);
        }
        hotprof_dual::mapDispatchTables(F, RM, ".hotprof.rejoin");
        for (BasicBlock *C : copy)
            for (Instruction &I : *C) RemapInstruction(&I, RM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
        return copy;
    }

    // Deletes the blocks of `some` that F's entry no longer reaches (the rejoin copy's before its loops).
    void deleteUnreachable(ArrayRef<BasicBlock *> some)
    {
        SmallPtrSet<BasicBlock *, 32> reached;
        for (BasicBlock *BB : depth_first(&F.getEntryBlock())) reached.insert(BB);
        SmallVector<BasicBlock *, 64> dead;
        for (BasicBlock *BB : some)
            if (!reached.count(BB)) dead.push_back(BB);
        DeleteDeadBlocks(dead);
    }

    // The nop's label: bi, or with -hotprof-dual-site-exits=dedicated an exit block of the clean
    // loop that only the nop reaches, going on to bi (the loop keeps LoopSimplify form).
    BasicBlock *siteExit(BasicBlock *bi)
    {
        if (SiteExits == "shared") return bi;
        if (SiteExits == "kept") return keptExit(bi);
        BasicBlock *ex = BasicBlock::Create(F.getContext(), "hp.site.exit", &F);
        BranchInst::Create(bi, ex);
        return ex;
    }

    // An exit block of the site's own, kept by an empty asm (CodeGenPrepare would fold an empty
    // block away): the copies into the label's phis are made there, on the way into a burst,
    // not before the site's callbr (which cannot have an edge split), on every pass.
    BasicBlock *keptExit(BasicBlock *bi)
    {
        BasicBlock *ex = BasicBlock::Create(F.getContext(), "hp.site.exit", &F);
        hotprof_dual::emptyAsm(BranchInst::Create(bi, ex));
        return ex;
    }

    // A one-block clean loop: its header hd is its latch lt, or lt is the block the critical-edge
    // split put on hd's back-edge (one predecessor hd, one successor hd).
    static bool oneBlockLoop(BasicBlock *lt, BasicBlock *hd)
    {
        return lt == hd || (lt->getSinglePredecessor() == hd && lt->getSingleSuccessor() == hd);
    }

    // Such a loop (reg2mem form: no value crosses blocks but through a slot) is copied: the copy is
    // the loop from now on, entered through the site block sc, and the original runs the first
    // iteration; every back-edge (original -> copy, copy -> copy) goes through sc. Returns the copy
    // of hd, sc's fall-through.
    BasicBlock *peelLoop(BasicBlock *lt, BasicBlock *hd, BasicBlock *sc)
    {
        ValueToValueMapTy LM;
        SmallVector<BasicBlock *, 2> loop{hd}, copies;
        if (lt != hd) loop.push_back(lt);
        for (BasicBlock *BB : loop) {
            copies.push_back(CloneBasicBlock(BB, LM, ".hp.top", &F));
            LM[BB] = copies.back();
        }
        for (BasicBlock *C : copies)
            for (Instruction &I : *C) RemapInstruction(&I, LM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
        lt->getTerminator()->replaceSuccessorWith(hd, sc);
        copies.back()->getTerminator()->replaceSuccessorWith(copies.front(), sc);
        // an empty asm ends the first iteration, so the code generator's tail merging does not
        // fold the two identical copies back into one (which brings the jmp back)
        hotprof_dual::emptyAsm(hd->getTerminator());
        return copies.front();
    }

    // clean: latch -> [nop: header | instr back-edge block]; instr: latch' -> back-edge block ->
    // (hook says stay) header' | header (RM, the rejoin form: the rejoin copy's header, and its
    // latch gets a site too).
    void linkBackedge(BasicBlock *lt, BasicBlock *hd, ValueToValueMapTy &VM, ValueToValueMapTy *RM)
    {
        LLVMContext &C = F.getContext();
        BasicBlock *lti = cast<BasicBlock>(VM[lt]), *hdi = cast<BasicBlock>(VM[hd]);
        BasicBlock *bi = BasicBlock::Create(C, "hp.backedge", &F);
        BasicBlock *sc = BasicBlock::Create(C, "hp.site", &F);
        lti->getTerminator()->replaceSuccessorWith(hdi, bi);
        // (the rejoin form: a clean site's own exit block holds its copies into the burst's side)
        BasicBlock *exit = !siteOn(hd) ? nullptr : RM ? keptExit(bi) : siteExit(bi);
        if (siteOn(hd) && LoopTop == "top" && oneBlockLoop(lt, hd) && hotprof_dual::worthPeeling(*hd, lt)) {
            BasicBlock *body = peelLoop(lt, hd, sc);
            emitSite(sc, body, exit, KBackedge, H.i8p);
        } else if (siteOn(hd)) {
            lt->getTerminator()->replaceSuccessorWith(hd, sc);
            emitSite(sc, hd, exit, KBackedge, H.i8p);
        } else {
            sc->eraseFromParent();
        }
        BasicBlock *back = hd; // where a finished burst leaves to
        if (RM) {
            auto *ltr = cast<BasicBlock>((*RM)[lt]), *hdr = cast<BasicBlock>((*RM)[hd]);
            back = hdr;
            if (siteOn(hd)) {
                BasicBlock *scr = BasicBlock::Create(C, "hp.site", &F);
                ltr->getTerminator()->replaceSuccessorWith(hdr, scr);
                emitSite(scr, hdr, siteExit(bi), KBackedge, H.i8p);
            }
        }
        IRBuilder<> B(bi);
        if (DILocation *dl = lti->getTerminator()->getDebugLoc()) B.SetCurrentDebugLocation(dl);
        CallInst *stay = hotprof_dual::callBackedgeHook(B, H.siteBackedge, *ident());
        mark(stay);
        if (leaveOuterOnly && !outerHeaders.count(hd)) B.CreateBr(hdi); /* no edge into the clean copy: dual_indirect.h */
        else B.CreateCondBr(B.CreateICmpNE(stay, ConstantInt::get(H.i32, 0)), hdi, back);
    }

    // clean: call; [nop: continuation | the instrumented copy's continuation] (dual_retsites.h).
    void linkReturn(hotprof_dual::ReturnSite &r, ValueToValueMapTy &VM)
    {
        BasicBlock *at = r.call->getParent();
        hotprof_dual::markCall(r.call);
        at->getTerminator()->eraseFromParent(); /* br cont */
        emitSite(at, r.cont, cast<BasicBlock>(VM[r.cont]), KReturn, H.i8p);
    }

    // The loop-entry clone's way back (dual_loops.h): the back-edge hook's answer decides, and a
    // whole call (no buffer: F.hotprof has no frame of F to go back to) stays.
    void leaveAt(BranchInst *br)
    {
        IRBuilder<> B(br);
        CallInst *stay = B.CreateCall(H.backedge, {fnArg(B)});
        Value *idx = F.getArg(F.arg_size() - 3), *buf = F.getArg(F.arg_size() - 2);
        Value *on = B.CreateOr(B.CreateICmpNE(stay, ConstantInt::get(H.i32, 0)), B.CreateIsNull(buf));
        if (stayIndex >= 0) on = B.CreateOr(on, B.CreateICmpEQ(idx, ConstantInt::get(H.i32, stayIndex)));
        br->setCondition(on);
    }

    // One copy, hooks always live (functions that cannot be cloned).
    void runSingle()
    {
        SmallVector<BasicBlock *, 64> all, hooked;
        for (BasicBlock &BB : F)
            if (!(noHook && noHook->count(&BB))) all.push_back(&BB); /* (the loop clone's own blocks: none) */
        if (hotprof_dual::returnSitesOn()) hotprof_dual::markReturnPoints(all); /* returns continue instrumented */
        if (!givenBackedges) findBackedges();
        if (level >= LBlocks) {
            for (BasicBlock *BB : all)
                if (sancovBlock(*BB) && BB != osrEntry) hooked.push_back(BB);
            hookBlocks(hooked, fnEntry ? fnEntry : osrEntry ? nullptr : &F.getEntryBlock(), kFlagDual);
        }
        if (level >= LMemory) hookMemory(all);
        if (level >= LAll) hookCompares(all);
        if (fnEntry) hookEntry(fnEntry);
        else if (!osrEntry) hookEntry(&F.getEntryBlock());
        hookReturns(all);
        for (auto &be : backedges) { // a block on each latch -> header edge counts the back-edge
            if (leaves && leaves->count(be.first)) {
                leaveAt(cast<BranchInst>(be.first->getTerminator()));
                continue;
            }
            BasicBlock *on = SplitEdge(be.first, be.second);
            IRBuilder<> B(on->getTerminator());
            if (DILocation *dl = be.first->getTerminator()->getDebugLoc()) B.SetCurrentDebugLocation(dl);
            B.CreateCall(H.backedge, {fnArg(B)});
        }
    }
};

// The separate form fits a function that gets no latch site (no loop, or latch sites "none"), whose
// first byte can hold the nop (no endbr64 before it: -fcf-protection keeps the one-body form) and
// whose address a pc-relative record can name at link time (dso_local or local: not an exported
// function of a -fPIC library, which may be interposed).
bool entryEligible(Function &F, Module &M)
{
    if (EntryForm != "clone" || M.getModuleFlag("cf-protection-branch")) return false;
    if (!F.isDSOLocal() && !F.hasLocalLinkage()) return false;
    return !F.hasFnAttribute("patchable-function-entry") && !F.hasFnAttribute("patchable-function-prefix");
}

bool separateForm(Function &F, Module &M)
{
    if (!entryEligible(F, M)) return false;
    if (LatchSites == "none") return true;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    return LI.empty();
}

// The entry site's record {site - &, target - &, kind 0, flags}: the clean F's first byte, the clone.
void addEntryRecord(Module &M, Function &F, Function &C, const Hooks &H, unsigned flags)
{
    StructType *RT = StructType::get(H.i32, H.i32, H.i32, H.i32);
    // (an unnamed_addr function's difference prints as `F@PLT - G`, which only LLVM's own assembler
    // takes; GNU as, used by --dual-latch=branch, wants a plain difference)
    F.setUnnamedAddr(GlobalValue::UnnamedAddr::None);
    C.setUnnamedAddr(GlobalValue::UnnamedAddr::None);
    auto *G = new GlobalVariable(M, RT, true, GlobalValue::PrivateLinkage, nullptr, "__hotprof_dual_entry");
    auto rel = [&](Function *to, unsigned field) {
        Constant *at = ConstantExpr::getInBoundsGetElementPtr(
            RT, G, ArrayRef<Constant *>{ConstantInt::get(H.i32, 0), ConstantInt::get(H.i32, field)});
        Constant *d = ConstantExpr::getSub(ConstantExpr::getPtrToInt(to, H.i64), ConstantExpr::getPtrToInt(at, H.i64));
        return ConstantExpr::getTrunc(d, H.i32);
    };
    G->setInitializer(ConstantStruct::get(
        RT, {rel(&F, 0), rel(&C, 1), ConstantInt::get(H.i32, KEntry), ConstantInt::get(H.i32, flags)}));
    G->setSection("__hotprof_dual");
    G->setAlignment(Align(4));
    if (Comdat *cd = F.getComdat()) G->setComdat(cd);
    appendToCompilerUsed(M, {G});
}

// F's entry site: the patchable 5-byte nop at its first byte (F aligned to 8, so the nop lies in
// one 8-byte word) and its record, switched on: jmp C. With count sites, a 16-byte pad (F aligned
// to 16, so one 16-byte store writes it; the code generator fills it with nops, a 10- and a 6-byte
// one or with some tunings a 15- and a 1-byte one, which the runtime checks before it writes the
// count there: ctl/dual_tramp.h).
void addEntrySite(Module &M, Function &F, Function &C, const Hooks &H)
{
    unsigned bytes = entrySiteBytes(M);
    Align align(bytes == 16 ? 16 : 8);
    F.addFnAttr("patchable-function-entry", std::to_string(bytes));
    if (!F.getAlign() || *F.getAlign() < align) F.setAlignment(align);
    addEntryRecord(M, F, C, H, bytes == 16 ? kRecPad : 0);
}

// The separate form: the instrumented copy is a clone C of F with live hooks (as runSingle makes
// them, named after F); F stays the optimized clean code but for a patchable 5-byte nop at its
// first byte (patchable-function-entry, before any prologue), which a burst switches to `jmp C`:
// a tail jump with the same arguments, nothing pushed yet. C runs only in bursts: compiled for
// size in .text.unlikely (-hotprof-dual-clone-opt=size), so the hot text stays compact.
void runSeparate(Function &F, Module &M, const Hooks &H, int level)
{
    ValueToValueMapTy VM;
    /* computed goto: the clone's own tables (dual_indirect.h) */
    Function *C = hotprof_dual::hasComputedGoto(F) ? hotprof_dual::cloneComputedGoto(F, VM) : CloneFunction(&F, VM);
    C->setName(F.getName() + ".hotprof");
    C->setLinkage(GlobalValue::InternalLinkage);
    C->setVisibility(GlobalValue::DefaultVisibility);
    C->setComdat(F.getComdat());
    C->removeFnAttr(Attribute::AlwaysInline); /* an extern always_inline function (QuickJS js_malloc_rt) kept out of line */
    C->addFnAttr(Attribute::NoInline);
    if (CloneOpt == "size" && !F.hasFnAttribute(Attribute::OptimizeNone)) {
        C->addFnAttr(Attribute::MinSize);
        C->addFnAttr(Attribute::OptimizeForSize);
        C->setSectionPrefix("unlikely");
    }
    DualFunction D{*C, M, H, level, false, {}, {}, {}};
    D.id = &F;
    D.raHooks = blockHooksByRA(M);
    D.run(false);
    if (verifyFunction(*C, &errs())) report_fatal_error("hotprof dual plugin: broken IR in " + C->getName());
    addEntrySite(M, F, *C, H);
}

// The hooks, options and site emitters the clean latch sites and the wrapper form
// (dual_wrapper.h) take from this file.
hotprof_dual::CleanSites cleanSites(Module &M, const Hooks &H)
{
    hotprof_dual::CleanSites S;
    S.enter = H.enter;
    S.exit = H.exit;
    S.cleanBackedge = H.cleanBackedge;
    S.i8p = H.i8p;
    S.latches = LatchSites == "all"     ? hotprof_dual::CleanSites::All
                : LatchSites == "outer" ? hotprof_dual::CleanSites::Outer
                                        : hotprof_dual::CleanSites::None;
    S.top = LoopTop == "top";
    S.latchSite = [&H](BasicBlock *at, BasicBlock *normal, BasicBlock *label) {
        return emitSite(at, normal, label, KBackedge, H.i8p)->getDefaultDest();
    };
    S.entrySite = [&M, &H](Function &F, Function &W) { addEntrySite(M, F, W, H); };
    S.entryBytes = entrySiteBytes(M);
    return S;
}

// Loop-entry clones (-hotprof-dual-loops=osr): a function with loops keeps its clean body as the
// optimizer made it; the latch nop of each outermost loop L jumps to a cold block of F that calls
// F.hotprof.L(F's arguments, L's header values for the next iteration, the values defined before L
// and used from L on, F's return address) and returns its result. F.hotprof.L is F's code from
// L's header on (the blocks reachable from it), instrumented like a separate clone but with no
// entry hook (F was entered through its clean body) and its exit hooks given F's return address.
// Only values live at L's header cross the nop, and they are live there anyway.
struct OsrLoop {
    BasicBlock *header, *latch;
    Function *clone;
    SmallVector<Value *, 8> phiIn, extras; // arguments after F's own, in F
};

// Blocks reachable from H, in F's order.
SmallVector<BasicBlock *, 32> reachableFrom(Function &F, BasicBlock *H, SmallPtrSetImpl<BasicBlock *> &kept)
{
    SmallVector<BasicBlock *, 32> work{H}, order;
    kept.insert(H);
    while (!work.empty()) {
        BasicBlock *BB = work.pop_back_val();
        for (BasicBlock *S : successors(BB))
            if (kept.insert(S).second) work.push_back(S);
    }
    for (BasicBlock &BB : F)
        if (kept.count(&BB)) order.push_back(&BB);
    return order;
}

// The values defined outside the kept blocks that kept code uses (arguments come separately).
void outsideUses(ArrayRef<BasicBlock *> order, SmallPtrSetImpl<BasicBlock *> &kept, SmallVectorImpl<Value *> &out)
{
    SmallPtrSet<Value *, 16> seen;
    auto note = [&](Value *V) {
        auto *I = dyn_cast<Instruction>(V);
        if (I && !kept.count(I->getParent()) && seen.insert(I).second) out.push_back(I);
    };
    for (BasicBlock *BB : order)
        for (Instruction &I : *BB) {
            if (auto *P = dyn_cast<PHINode>(&I)) {
                for (unsigned i = 0; i < P->getNumIncomingValues(); i++)
                    if (kept.count(P->getIncomingBlock(i))) note(P->getIncomingValue(i));
                continue;
            }
            for (Value *Op : I.operands()) note(Op);
        }
}

// F.hotprof.L, not yet instrumented; nullptr when it cannot be built (it is then erased).
Function *buildOsrClone(Function &F, Module &M, OsrLoop &O, const Hooks &H)
{
    SmallPtrSet<BasicBlock *, 32> kept;
    SmallVector<BasicBlock *, 32> order = reachableFrom(F, O.header, kept);
    for (PHINode &P : O.header->phis()) O.phiIn.push_back(P.getIncomingValueForBlock(O.latch));
    outsideUses(order, kept, O.extras);
    SmallVector<Type *, 16> params(F.getFunctionType()->params().begin(), F.getFunctionType()->params().end());
    for (Value *V : O.phiIn) params.push_back(V->getType());
    for (Value *V : O.extras) params.push_back(V->getType());
    params.push_back(H.i8p);
    auto *FT = FunctionType::get(F.getReturnType(), params, false);
    Function *C = Function::Create(FT, GlobalValue::InternalLinkage, F.getName() + ".hotprof.loop", &M);
    C->setAttributes(AttributeList::get(F.getContext(), AttributeList::FunctionIndex,
                                        AttrBuilder(F.getContext(), F.getAttributes().getFnAttrs())));
    C->removeFnAttr("patchable-function-entry");
    C->addFnAttr(Attribute::NoInline);
    C->removeFnAttr(Attribute::AlwaysInline);
    if (F.hasPersonalityFn()) C->setPersonalityFn(F.getPersonalityFn());
    C->setComdat(F.getComdat());
    ValueToValueMapTy VM;
    unsigned a = 0;
    for (Argument &A : F.args()) VM[&A] = C->getArg(a++);
    SmallVector<Argument *, 8> phiArgs;
    for (size_t i = 0; i < O.phiIn.size(); i++) phiArgs.push_back(C->getArg(a++));
    for (Value *V : O.extras) VM[V] = C->getArg(a++);
    BasicBlock *E = BasicBlock::Create(F.getContext(), "hp.osr.entry", C);
    for (BasicBlock *BB : order) VM[BB] = CloneBasicBlock(BB, VM, "", C);
    BranchInst::Create(cast<BasicBlock>(VM[O.header]), E);
    SmallVector<Instruction *, 16> dbg;
    for (BasicBlock *BB : order) {
        auto *CB = cast<BasicBlock>(VM[BB]);
        for (Instruction &I : *CB) {
            if (auto *P = dyn_cast<PHINode>(&I))
                for (int i = (int)P->getNumIncomingValues() - 1; i >= 0; i--)
                    if (!kept.count(P->getIncomingBlock((unsigned)i))) P->removeIncomingValue((unsigned)i, false);
            RemapInstruction(&I, VM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
            I.setDebugLoc(DebugLoc()); /* C has no subprogram of its own: no debug locations */
            I.setMetadata(LLVMContext::MD_loop, nullptr);
            if (isa<DbgInfoIntrinsic>(I)) dbg.push_back(&I);
        }
    }
    for (Instruction *I : dbg) I->eraseFromParent();
    unsigned k = 0;
    for (PHINode &P : cast<BasicBlock>(VM[O.header])->phis()) P.addIncoming(phiArgs[k++], E);
    if (verifyFunction(*C)) { // (irreducible control flow and the like): no loop-entry clone
        C->eraseFromParent();
        return nullptr;
    }
    return C;
}

// F's cold block on L's latch edge: call the loop-entry clone, return what it returns.
void linkOsr(Function &F, Module &M, OsrLoop &O, const Hooks &H)
{
    LLVMContext &C = F.getContext();
    BasicBlock *osr = BasicBlock::Create(C, "hp.osr", &F);
    BasicBlock *site = BasicBlock::Create(C, "hp.site", &F);
    IRBuilder<> B(osr);
    SmallVector<Value *, 16> args;
    for (Argument &A : F.args()) args.push_back(&A);
    args.append(O.phiIn.begin(), O.phiIn.end());
    args.append(O.extras.begin(), O.extras.end());
    args.push_back(B.CreateCall(Intrinsic::getDeclaration(&M, Intrinsic::returnaddress), {B.getInt32(0)}));
    CallInst *r = B.CreateCall(O.clone, args);
    if (F.getReturnType()->isVoidTy()) B.CreateRetVoid();
    else B.CreateRet(r);
    O.latch->getTerminator()->replaceSuccessorWith(O.header, site);
    for (PHINode &P : O.header->phis()) P.replaceIncomingBlockWith(O.latch, site);
    emitSite(site, O.header, osr, KBackedge, H.i8p);
}

// A loop-entry clone runs only in bursts: with -hotprof-dual-clone-opt=size it is built for size and
// placed in .text.unlikely (unless it is optnone).
static void markLoopCloneCold(Function &C)
{
    if (CloneOpt != "size" || C.hasFnAttribute(Attribute::OptimizeNone)) return;
    C.addFnAttr(Attribute::MinSize);
    C.addFnAttr(Attribute::OptimizeForSize);
    C.setSectionPrefix("unlikely");
}

// The loop-entry form (see OsrLoop): F's entry as the separate form, and a loop-entry clone per
// outermost loop (osr puts sites on outermost latches only, whatever -hotprof-dual-latch-sites
// says but "none"). false (nothing changed) when F does not fit: latch sites "none",
// varargs, inalloca/preallocated/swifterror arguments, a loop with several latches or latch edges.
bool runOsr(Function &F, Module &M, const Hooks &H, int level)
{
    if (LoopForm != "osr" || LatchSites == "none" || !entryEligible(F, M) || F.isVarArg()) return false;
    for (Argument &A : F.args())
        if (A.hasInAllocaAttr() || A.hasPreallocatedAttr() || A.hasSwiftErrorAttr()) return false;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    SmallVector<OsrLoop, 4> loops;
    for (Loop *L : LI) {
        BasicBlock *lt = L->getLoopLatch();
        if (!lt || count(successors(lt), L->getHeader()) != 1) return false;
        loops.push_back({L->getHeader(), lt, nullptr, {}, {}});
    }
    for (OsrLoop &O : loops)
        if (!(O.clone = buildOsrClone(F, M, O, H))) {
            for (OsrLoop &P : loops)
                if (P.clone) P.clone->eraseFromParent();
            return false;
        }
    runSeparate(F, M, H, level); // (F has no site yet: its entry clone has none)
    for (OsrLoop &O : loops) {
        Function *C = O.clone;
        markLoopCloneCold(*C);
        DualFunction D{*C, M, H, level, false, {}, {}, {}};
        D.id = &F;
        D.osrEntry = &C->getEntryBlock();
        D.osrRet = C->getArg(C->arg_size() - 1);
        D.raHooks = blockHooksByRA(M);
        D.run(false);
        if (verifyFunction(*C, &errs())) report_fatal_error("hotprof dual plugin: broken IR in " + C->getName());
        linkOsr(F, M, O, H);
    }
    return true;
}

// The loop-entry form with one clone per function (-hotprof-dual-loops=entry, dual_loops.h): F
// keeps the optimizer's code; F.hotprof.loop, its only instrumented copy, is entered at the
// header of any latch with a site or, through the entry site past F's static allocas, at F's
// entry; in both cases from a cold block of F, to which it goes back at a latch where the burst
// is over. false (nothing changed) when F does not fit: latch sites "none", varargs,
// inalloca/preallocated/swifterror arguments, a latch with several edges to its header, computed
// goto dual_indirect.h cannot take.
bool runLoopEntry(Function &F, Module &M, const Hooks &H, int level)
{
    // (-hotprof-dual-entry=inline: the one-body form for every function; no first-byte nop is
    // needed here, so -fcf-protection and exported functions of -fPIC code take this form too)
    if (LoopForm != "entry" || LatchSites == "none" || EntryForm != "clone" || F.isVarArg()) return false;
    for (Argument &A : F.args())
        if (A.hasInAllocaAttr() || A.hasPreallocatedAttr() || A.hasSwiftErrorAttr()) return false;
    if (hotprof_dual::hasComputedGoto(F)) { // private tables in the clone, latches as branches
        if (!hotprof_dual::indirectLoopEntry(F)) return false;
        SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> edges;
        latchEdgesOf(F, edges, nullptr);
        hotprof_dual::splitIndirectLatches(edges); // (F stays equivalent if the form then does not fit)
    }
    // whole calls enter at a site past F's static allocas (as the one-body form's entry), so the
    // clone has F's frame to go back to
    BasicBlock *E0 = &F.getEntryBlock();
    BasicBlock *body = E0->splitBasicBlock(pastStaticAllocas(*E0), "hp.entry.body");
    SmallVector<hotprof_dual::LoopEntry, 8> entries;
    SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> latchEdges;
    hotprof_dual::LoopClone LC;
    if (hotprof_dual::collectLoopEntries(F, LatchSites == "outer", body, entries, &latchEdges) && !entries.empty())
        LC = hotprof_dual::buildLoopClone(F, entries, latchEdges);
    if (!LC.clone) {
        MergeBlockIntoPredecessor(body);
        return false;
    }
    Function *C = LC.clone;
    markLoopCloneCold(*C);
    DualFunction D{*C, M, H, level, false, {}, {}, {}};
    D.id = &F;
    D.osrEntry = &C->getEntryBlock();
    D.fnEntry = LC.fnEntry;
    D.osrRet = C->getArg(C->arg_size() - 1);
    D.noHook = &LC.noHook;
    D.leaves = &LC.leaves;
    D.stayIndex = LC.stayIndex;
    D.backedges.append(LC.backedges.begin(), LC.backedges.end());
    D.givenBackedges = true;
    D.raHooks = blockHooksByRA(M);
    D.run(false);
    if (verifyFunction(*C, &errs())) report_fatal_error("hotprof dual plugin: broken IR in " + C->getName());
    SmallVector<BasicBlock *, 8> cold;
    SmallVector<BasicBlock *, 8> sites = hotprof_dual::linkLoopEntries(F, *C, entries, latchEdges, LoopTop == "top", cold);
    for (unsigned i = 0; i < sites.size(); i++) {
        sites[i]->getTerminator()->eraseFromParent(); /* the placeholder branch */
        emitSite(sites[i], entries[i].header, cold[i], entries[i].wholeCall ? KEntry : KBackedge, H.i8p);
    }
    if (verifyFunction(F, &errs())) report_fatal_error("hotprof dual plugin: broken IR in " + F.getName());
    return true;
}

Hooks declareHooks(Module &M)
{
    LLVMContext &C = M.getContext();
    Hooks H;
    H.i8p = Type::getInt8PtrTy(C);
    H.i32 = Type::getInt32Ty(C);
    H.i64 = Type::getInt64Ty(C);
    Type *V = Type::getVoidTy(C);
    H.enter = M.getOrInsertFunction("__cyg_profile_func_enter", V, H.i8p, H.i8p);
    H.exit = M.getOrInsertFunction("__cyg_profile_func_exit", V, H.i8p, H.i8p);
    H.backedge = M.getOrInsertFunction("__hotprof_dual_backedge", H.i32, H.i8p);
    // (a library's calls go through its PLT, and glibc's lazy binding clobbers R10: C calls there)
    bool pm = BackedgeCC == "preserve-most" && executableCode(M);
    H.siteBackedge = pm ? hotprof_dual::backedgeHookPM(M) : H.backedge;
    H.cleanBackedge = pm ? hotprof_dual::cleanBackedgeHookPM(M)
                         : M.getOrInsertFunction("__hotprof_dual_clean_backedge", V, H.i8p);
    H.guard = M.getOrInsertFunction("__sanitizer_cov_trace_pc_guard", V, PointerType::getUnqual(H.i32));
    const char *sizes[5] = {"1", "2", "4", "8", "16"};
    for (int i = 0; i < 5; i++) {
        Type *T = IntegerType::get(C, 8u << i);
        H.load[i] = M.getOrInsertFunction(std::string("__sanitizer_cov_load") + sizes[i], V, PointerType::getUnqual(T));
        H.store[i] = M.getOrInsertFunction(std::string("__sanitizer_cov_store") + sizes[i], V, PointerType::getUnqual(T));
    }
    return H;
}

GlobalVariable *sectionBound(Module &M, Type *T, const char *name)
{
    auto *G = new GlobalVariable(M, T, false, GlobalValue::ExternalWeakLinkage, nullptr, name);
    G->setVisibility(GlobalValue::HiddenVisibility);
    return G;
}

// The module's constructor: guards and pc-table to the runtime (as sanitizer coverage's does),
// the sites section to __hotprof_dual_init (and to __hotprof_dual_fini at unload), the latch
// branches' section to __hotprof_dual_branches_init (and _fini, first), and the block
// hooks' records to __hotprof_blkra_init (and _fini) where it may have such hooks.
void addCtor(Module &M, const Hooks &H, bool blocks)
{
    LLVMContext &C = M.getContext();
    Type *V = Type::getVoidTy(C);
    Function *ctor = Function::Create(FunctionType::get(V, false), GlobalValue::InternalLinkage,
                                      "hotprof.dual.module_ctor", &M);
    IRBuilder<> B(BasicBlock::Create(C, "", ctor));
    Type *i32p = PointerType::getUnqual(H.i32), *i64p = PointerType::getUnqual(H.i64);
    if (blocks) {
        FunctionCallee gi = M.getOrInsertFunction("__sanitizer_cov_trace_pc_guard_init", V, i32p, i32p);
        FunctionCallee pi = M.getOrInsertFunction("__sanitizer_cov_pcs_init", V, i64p, i64p);
        B.CreateCall(gi, {sectionBound(M, H.i32, "__start___sancov_guards"), sectionBound(M, H.i32, "__stop___sancov_guards")});
        B.CreateCall(pi, {sectionBound(M, H.i64, "__start___sancov_pcs"), sectionBound(M, H.i64, "__stop___sancov_pcs")});
    }
    FunctionCallee di = M.getOrInsertFunction("__hotprof_dual_init", V, i32p, i32p);
    B.CreateCall(di, {sectionBound(M, H.i32, "__start___hotprof_dual"), sectionBound(M, H.i32, "__stop___hotprof_dual")});
    // latch branches (`hotprof cc --dual-latch=branch`: src/analysis/latch_asm.h writes the section;
    // without it both bounds are null)
    Value *bs = sectionBound(M, H.i32, "__start___hotprof_dualbr"), *be = sectionBound(M, H.i32, "__stop___hotprof_dualbr");
    B.CreateCall(M.getOrInsertFunction("__hotprof_dual_branches_init", V, i32p, i32p), {bs, be});
    // and its destructor: a dlclose'd module's sites must be forgotten before its pages go
    Function *dtor = Function::Create(FunctionType::get(V, false), GlobalValue::InternalLinkage,
                                      "hotprof.dual.module_dtor", &M);
    IRBuilder<> D(BasicBlock::Create(C, "", dtor));
    D.CreateCall(M.getOrInsertFunction("__hotprof_dual_branches_fini", V, i32p, i32p), {bs, be});
    if (blocks && blockHooksByRA(M)) { /* block hooks' records (dual_blockra.h) */
        Value *rs = sectionBound(M, H.i32, "__start___hotprof_blkra");
        Value *re = sectionBound(M, H.i32, "__stop___hotprof_blkra");
        B.CreateCall(M.getOrInsertFunction("__hotprof_blkra_init", V, i32p, i32p), {rs, re});
        D.CreateCall(M.getOrInsertFunction("__hotprof_blkra_fini", V, i32p, i32p), {rs, re});
    }
    B.CreateRetVoid();
    appendToGlobalCtors(M, ctor, 2);
    FunctionCallee df = M.getOrInsertFunction("__hotprof_dual_fini", V, i32p, i32p);
    D.CreateCall(df, {M.getNamedGlobal("__start___hotprof_dual"), M.getNamedGlobal("__stop___hotprof_dual")});
    D.CreateRetVoid();
    appendToGlobalDtors(M, dtor, 2);
}

// The shadow set's defaults (-hotprof-dual=all, docs/dual.md "Shadow builds"): the loop-entry form
// without the way back, unless -hotprof-dual-loops or -hotprof-dual-loop-leave was given.
void useShadowDefaults()
{
    if (!LoopForm.getNumOccurrences()) LoopForm = "entry";
    hotprof_dual::noWayBackUnlessAsked();
}

// Count sites of call-free loops counted in a register, the others branched on by the compiler
// (dual_countreg.h), in every function the plugin made or changed.
void promoteCountdowns(Module &M, bool countReg, bool countBranch)
{
    for (Function &F : M) {
        if (F.isDeclaration()) continue;
        unsigned n = countReg ? hotprof_dual::promoteCountdowns(F) : 0;
        if (countBranch) n += hotprof_dual::branchMemorySites(F);
        if (!n) continue;
        if (verifyFunction(F, &errs()))
            report_fatal_error("hotprof dual plugin: broken IR in " + F.getName() + " (count registers)");
    }
}

struct DualPass : PassInfoMixin<DualPass> {
    PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
    {
        checkOption(DualLevel, {"functions", "blocks", "memory", "all"});
        checkOption(LatchSites, {"outer", "all", "none"});
        checkOption(EntryForm, {"clone", "inline"});
        checkOption(LoopForm, {"osr", "inline", "entry"});
        checkOption(CloneOpt, {"size", "speed"});
        checkOption(HookCC, {"auto", "preserve-most", "c"});
        checkOption(BackedgeCC, {"preserve-most", "c"});
        checkOption(BlockHook, {"ra", "guard"});
        checkOption(SiteForm, {"nop", "count"});
        checkOption(EntryPad, {"on", "count", "off"});
        checkOption(FunctionsForm, {"wrapper", "clone"});
        checkOption(SiteExits, {"shared", "dedicated", "kept"});
        checkOption(IndirectRejoin, {"copy", "clean"});
        checkOption(RejoinAll, {"off", "on"});
        checkOption(LoopTop, {"top", "edge"});
        hotprof_dual::returnSitesOn(); /* checks its value */
        bool countReg = hotprof_dual::countRegOn(), countBranch = hotprof_dual::countBranchOn();
        hotprof_dual::countVersionOn(); /* checks its value */
        hotprof_dual::latchSplitOn();   /* checks its value */
        hotprof_dual::checkLoopRecompute();
        int level = DualLevel == "functions" ? LFunctions : DualLevel == "memory" ? LMemory
                                                        : DualLevel == "all"    ? LAll
                                                                                : LBlocks;
        if (level == LAll) useShadowDefaults();
        hotprof_dual::checkIndirectOption(level == LFunctions);
        Hooks H = declareHooks(M);
        hotprof_dual::CleanSites S = cleanSites(M, H);
        SmallVector<Function *, 64> work;
        for (Function &F : M) {
            if (F.isDeclaration() || F.hasAvailableExternallyLinkage()) continue;
            if (!F.hasFnAttribute("instrument-function-entry-inlined")) continue;
            F.removeFnAttr("instrument-function-entry-inlined");
            F.removeFnAttr("instrument-function-exit-inlined");
            if (F.hasFnAttribute(Attribute::Naked) || F.getName().startswith("__sanitizer_") ||
                F.getName().startswith("__hotprof"))
                continue;
            work.push_back(&F);
        }
        if (work.empty()) return PreservedAnalyses::all();
        for (Function *F : work) {
            // sanitizer coverage skips a function whose entry block ends in unreachable: no blocks
            int fl = isa<UnreachableInst>(F->getEntryBlock().getTerminator()) ? LFunctions : level;
            bool wrap = level == LFunctions && FunctionsForm == "wrapper";
            if (wrap && entryEligible(*F, M) && hotprof_dual::wrapperFits(*F)) {
                hotprof_dual::runWrapper(*F, M, S);
                continue;
            }
            bool clone = !cannotClone(*F);
            bool cg = hotprof_dual::hasComputedGoto(*F); // computed goto: the one-body or separate form
            bool sep = cg ? hotprof_dual::indirectSeparate(*F) && entryEligible(*F, M) : separateForm(*F, M);
            if (clone && sep) {
                runSeparate(*F, M, H, fl);
                if (cg) hotprof_dual::addCleanLatchSites(*F, S); /* after cloning: F.hotprof has none */
                if (cg && verifyFunction(*F, &errs()))
                    report_fatal_error("hotprof dual plugin: broken IR in " + F->getName());
                continue;
            }
            if (clone && !cg && runOsr(*F, M, H, fl)) continue;
            if (clone && runLoopEntry(*F, M, H, fl)) continue;
            DualFunction D{*F, M, H, fl, false, {}, {}, {}};
            D.run(clone);
            if (verifyFunction(*F, &errs())) // clang runs no verifier: say which function, not crash later
                report_fatal_error("hotprof dual plugin: broken IR in " + F->getName());
        }
        if ((countReg || countBranch) && countSites(M)) promoteCountdowns(M, countReg, countBranch);
        addCtor(M, H, level >= LBlocks);
        return PreservedAnalyses::none();
    }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
    return {LLVM_PLUGIN_API_VERSION, "hotprof-dual", "0.1", [](PassBuilder &PB) {
                PB.registerOptimizerLastEPCallback(
                    [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(DualPass()); });
            }};
}
