// dual_loops.h — the loop-entry form of the dual plugin with one loop-entry clone per function
// (-hotprof-dual-loops=entry; plugin/dual_loops.cpp, docs/dual.md "Loop-entry form"). Used by
// hotprof_dual.cpp only, which instruments the clone and emits the sites.
// Invariants: F stays the optimizer's code; each latch edge (latch -> header) chosen gets an index
// i and a cold block of F that stores the values live at the header (the header PHIs' values
// from that latch, then every value defined before the header and used from it on) into one
// stack buffer of F and returns F.hotprof.loop(F's arguments, i, buffer, F's return address).
// The clone's entry block switches on i to trampoline i, which loads those values and branches to
// the header's copy; SSA in the clone is repaired with SSAUpdater. Pure IR work: no hooks here.
#pragma once

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

#include <utility>

namespace hotprof_dual {

constexpr int kFromEntry = -1; // the loop-entry clone's index for a whole call of F

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
};

// What buildLoopClone made, for the instrumenter: blocks that get no block hook (the switch and
// the trampolines) and the clone's latch edges (from F's LoopInfo: entering at an inner header
// makes the outer loop irreducible in the clone, so its own LoopInfo would miss back-edges).
struct LoopClone {
    llvm::Function *clone = nullptr;
    llvm::BasicBlock *fnEntry = nullptr; // the copy of F's entry block: the switch's default
    llvm::SmallPtrSet<llvm::BasicBlock *, 8> noHook;
    llvm::SmallVector<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>, 8> backedges;
};

// -hotprof-dual-loop-recompute's value is on or off, else one message and exit status 1.
void checkLoopRecompute();

// F's latch edges that get a site (outerOnly: outermost loops' only), and all of F's latch edges
// (in preorder) into *all. false when F does not fit (a latch with several edges to its header).
bool collectLoopEntries(llvm::Function &F, bool outerOnly, llvm::SmallVectorImpl<LoopEntry> &out,
                        llvm::SmallVectorImpl<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> *all);

// F.hotprof.loop, not yet instrumented (nullptr if it does not verify; nothing left behind).
// Its parameters: F's own, the entry index (i32), the buffer (i8*), F's return address (i8*).
// An index that is no entry's (kFromEntry) runs it from the copy of F's entry block (F's static
// allocas moved to the switch block, the clone's entry): the clone is also F's instrumented copy
// for whole calls (F.hotprof, a wrapper that tail-calls it), so each block of F has one copy.
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
