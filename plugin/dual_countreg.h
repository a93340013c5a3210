// dual_countreg.h — inline count sites counted in a register inside call-free loops (the dual
// plugin's -hotprof-dual-count-reg=on, the default with -hotprof-dual-site=count; plugin/
// dual_countreg.cpp, docs/dual.md "Inline count sites").
// An inline count site is `subq $1, %fs:hp_dual_countdown@tpoff; jle <instrumented>`: a
// read-modify-write of memory on every latch, so a tight loop carries a store-to-load forwarding
// chain (~5 cycles) from one iteration to the next where native code may take 1-2 cycles. In a
// loop with no call, nothing but our sites touches the thread's countdown, so the loop may keep
// it in a register: loaded on every edge into the loop, decremented per site in the register,
// stored back on every edge out of it (the site's edge into the instrumented copy included).
// Invariants: outside such a region the TLS countdown is the count; inside it, the register is;
// every site decides exactly as its asm form would (same value, same test); each site keeps its
// `__hotprof_dual` record (flag 1: count site), now emitted on its cold path. A signal handler
// whose hooks run inside a region sees the count as it was when the region was entered, and its
// own changes are overwritten when the region is left (the count drifts by the handler's events).
// Pure IR work: no hooks here.
#pragma once

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace hotprof_dual {

// The code of an inline count site (emitSite's count form in hotprof_dual.cpp; its record follows
// it in the same asm): what promoteCountdowns recognizes a site by.
constexpr const char *CountSiteCode = "1: subq $$1, %fs:hp_dual_countdown@tpoff\njle ${0:l}\n";

// The callbr of an inline count site in BB's terminator, or nullptr.
llvm::CallBrInst *countSite(llvm::BasicBlock &BB);

// Where code on the edges from -> to runs: before from's terminator (every edge out of from goes
// to `to`), at to's top (every edge into `to` comes from `from`), or in a block of its own on them
// (a critical edge of a br or switch, split; a switch's identical edges all go through it);
// nullptr if none of those is possible (checkOnly: say so, split nothing).
llvm::Instruction *edgePoint(llvm::BasicBlock *from, llvm::BasicBlock *to, bool checkOnly);

// For its lifetime, every label's terminator is set aside (an unreachable in its place, its
// successors pointed at a block in no function, so no block sees it as a predecessor): through
// the labels the one-body form's instrumented copy goes back to each clean loop header, so with
// them the clean loops of a nest are not natural loops; without them they are.
class LabelCut {
  public:
    LabelCut(llvm::Function &F, const llvm::SmallPtrSetImpl<llvm::BasicBlock *> &labels);
    ~LabelCut();

    LabelCut(const LabelCut &) = delete;
    LabelCut &operator=(const LabelCut &) = delete;

  private:
    llvm::SmallVector<std::pair<llvm::BasicBlock *, llvm::Instruction *>, 16> cut;
    llvm::SmallVector<llvm::BasicBlock *, 32> succs; // the set-aside terminators' successors, in order
    llvm::BasicBlock *nowhere; // in no function: their successor meanwhile
};

// -hotprof-dual-count-reg=on|off (checks its value: one message, exit status 1).
bool countRegOn();

// Rewrites the inline count sites of F's call-free loops into register counts (each outermost
// call-free loop with a count site is one region). Returns the number of sites rewritten.
unsigned promoteCountdowns(llvm::Function &F);

// -hotprof-dual-count-branch=on|off (checks its value).
bool countBranchOn();

// Rewrites F's count sites left in memory (after promoteCountdowns) into the same subtraction with
// the compiler's own branch on its flags (branchMemorySite). Returns the number rewritten.
unsigned branchMemorySites(llvm::Function &F);

} // namespace hotprof_dual
