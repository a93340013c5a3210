// dual_loops.h — the loop-entry form of the dual plugin with one loop-entry clone per function
// (-hotprof-dual-loops=entry; plugin/dual_loops.cpp, docs/dual.md "One loop-entry clone per
// function"). Used by hotprof_dual.cpp only, which instruments the clone and emits the sites.
// Invariants: F stays the optimizer's code; each latch edge (latch -> header) chosen, and the
// whole-call entry (F's top past its static allocas), gets an index i and a cold block of F that
// stores the values live at the header (the header PHIs' values from that latch, then every
// value defined before the header and used from it on) into one stack buffer of F and calls
// F.hotprof.loop(F's arguments, i, buffer, F's return address). The clone's entry block switches
// on i to trampoline i, which loads those values and branches to the header's copy; SSA in the
// clone is repaired with SSAUpdater. The way back: at a latch with a site where the burst is over
// the clone stores that header's values and index j into the buffer and returns; F's cold blocks
// go on to one dispatch that returns the clone's result (resume word -1) or reloads entry j's
// values and branches to its header. Pure IR work: no hooks here.
#pragma once

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

#include <utility>

namespace hotprof_dual {

// One way into the loop-entry clone: a latch edge of F and the values that cross it.
struct LoopEntry {
    llvm::BasicBlock *header, *latch;
    llvm::SmallVector<llvm::Value *, 8> vals; // header PHIs' values from the latch, then live-ins
    unsigned nphis = 0;                       // how many of vals are PHI values
    // vals[k]'s field in the buffer, -1: the trampoline has it without the buffer: a constant or an
    // argument of F (as a header PHI's value), or a getelementptr or cast of those and of values
    // crossing before it (vals is in dominance order), recomputed there (lexgen's main: 1 100 of
    // its 2 350 crossing values were such). -hotprof-dual-loop-recompute=off: every value crosses.
    llvm::SmallVector<int, 8> slot;
    llvm::StructType *layout = nullptr;       // the buffer's layout for this entry (stored values)
    // vals[k] is F's own value when the clone goes back to F (a constant or argument, or defined
    // in a block that dominates every latch with a site and that no header the clone is entered
    // at reaches): not reloaded.
    llvm::SmallVector<bool, 8> sameInF;
    bool wholeCall = false; // the whole-call entry: header = F's entry block past its static
                            // allocas, latch = the block of those allocas (no loop: its site is
                            // an entry site, and the clone never goes back to it)
    bool back = false;      // the clone goes back to F at this latch when a burst is over
                            // (-hotprof-dual-loop-leave=on: every latch with a site; not in a
                            // function with dynamic allocas in its loops); the whole-call entry's:
                            // a clone entered there may go back (no dynamic alloca in F at all)
};

// The buffer: a resume word (i32: the entry whose header F goes back to, or -1: the clone
// returned F's result), then at kResumeBytes the entry's layout.
constexpr unsigned kResumeBytes = 16;

// What buildLoopClone made, for the instrumenter: blocks that get no hook (the switch, the
// trampolines and the way-back blocks) and the edges that get a back-edge hook: the clone's latch
// edges (from F's LoopInfo: entering at an inner header makes the outer loop irreducible in the
// clone, so its own LoopInfo would miss back-edges) and each latch entry's trampoline -> header
// (the back-edge whose site entered the clone: recorded there, or count mode would lose the event
// each burst starts with).
struct LoopClone {
    llvm::Function *clone = nullptr;
    llvm::BasicBlock *fnEntry = nullptr; // the copy of F's entry block past its static allocas
    llvm::SmallPtrSet<llvm::BasicBlock *, 8> noHook;
    llvm::SmallVector<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>, 8> backedges;
    // The way back (-hotprof-dual-loop-leave=on): the first block of each back-edge pair that has
    // one, ending in a branch (condition for the instrumenter to set: stay) to the header's copy or
    // to a block that stores the entry's reloaded values and its index into the buffer and returns.
    llvm::SmallPtrSet<llvm::BasicBlock *, 8> leaves;
    int stayIndex = -1; // entered with this index (a whole call of F with dynamic allocas, which
                        // the clone then makes in its own frame) it never goes back
};

// -hotprof-dual-loop-recompute's and -loop-leave's values are on or off, else one message and exit
// status 1.
void checkLoopRecompute();

// The way back is built (-hotprof-dual-loop-leave=on).
bool wayBackOn();

// -hotprof-dual-loop-leave defaults to off (the default of -hotprof-dual=all, whose clean copies
// only a shadow leaves, for good: docs/dual.md "Shadow builds").
void noWayBackUnlessAsked();

// F's latch edges that get a site (outerOnly: outermost loops' only), then the whole-call entry
// (body: F's entry block past its static allocas, split off by the caller), and all of F's latch
// edges (in preorder) into *all. false when F does not fit (a latch with several edges to its
// header).
bool collectLoopEntries(llvm::Function &F, bool outerOnly, llvm::BasicBlock *body, llvm::SmallVectorImpl<LoopEntry> &out,
                        llvm::SmallVectorImpl<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> *all);

// F.hotprof.loop, not yet instrumented (nullptr if it does not verify; nothing left behind).
// Its parameters: F's own, the entry index (i32), the buffer (i8*), F's return address (i8*).
// It is F's only instrumented copy: whole calls enter it too (the whole-call entry, the switch's
// default), with F's static allocas in the buffer, so each block of F has one copy.
LoopClone buildLoopClone(llvm::Function &F, llvm::MutableArrayRef<LoopEntry> entries,
                         llvm::ArrayRef<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> latchEdges);

// F's side of entry i: the buffer (made on first use, at the top of F's entry block), a cold
// block that stores the entry's values and returns the clone's result. Returns the cold block;
// the caller puts the site on the latch edge with it as the label.
llvm::BasicBlock *linkLoopEntry(llvm::Function &F, llvm::Function &clone, LoopEntry &E, unsigned index,
                                llvm::AllocaInst *&buffer, llvm::ArrayRef<LoopEntry> entries);

// F's side of every entry: the cold blocks (linkLoopEntry, into cold), then per entry its site
// block on the latch edge, returned in entries' order, ending in a placeholder branch to the
// header and cold[i] that the caller replaces by the nop (normal: the header; label: cold[i]).
// A one-block loop (header == latch, one other predecessor, a conditional branch, the latch of no
// other loop) with top set is peeled: a copy of its block runs the first iteration, and the site
// block becomes the loop's top (the nop falls through into the body, whose branch goes back to
// it: no jmp, one nop per back-edge); values of the block used outside it are merged with
// SSAUpdater (the cold blocks' stores included).
llvm::SmallVector<llvm::BasicBlock *, 8>
linkLoopEntries(llvm::Function &F, llvm::Function &clone, llvm::MutableArrayRef<LoopEntry> entries,
                llvm::ArrayRef<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> latchEdges, bool top,
                llvm::SmallVectorImpl<llvm::BasicBlock *> &cold);

} // namespace hotprof_dual
