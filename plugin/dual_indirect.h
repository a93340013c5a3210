// dual_indirect.h — computed goto (indirectbr, blockaddress) in the one-body form of the dual
// plugin (plugin/dual_indirect.cpp, docs/dual.md "Computed goto"). Used by hotprof_dual.cpp only.
// Invariants: every function here works on a function F that the plugin is about to split into a
// clean and an instrumented copy in one body (or, for indirectSeparate/cloneComputedGoto, into F
// and a separate clone F.hotprof whose blockaddresses and tables name only F.hotprof's blocks); the clean copy keeps F's original blocks and the
// dispatch tables (constant globals holding blockaddress(@F, ...)) as they are, the instrumented
// copy gets cloned tables naming its own blocks, so each copy's computed gotos stay in that copy.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <utility>

namespace hotprof_dual {

// A bad -hotprof-dual-indirect value: one message, exit status 1. Resolves "auto" (the default):
// separate when the level is functions (no block is profiled), else clone.
void checkIndirectOption(bool functionsLevel);

// F has computed goto: an indirectbr, or a block whose address is taken.
bool hasComputedGoto(llvm::Function &F);

// F's computed goto can be given two copies: every blockaddress(@F, ...) is used by F's own
// instructions or by the initializer of a constant global (a dispatch table), and F has no
// callbr (asm goto) of its own, and -hotprof-dual-indirect is not "single". Otherwise F keeps one
// copy with live hooks.
bool indirectCloneable(llvm::Function &F);

// A dispatch header: a loop header that reaches an indirectbr through a few small blocks. The
// code generator copies such a block chain into each predecessor that ends in an unconditional
// branch (tail duplication), which gives each opcode handler its own indirect jump: threaded
// dispatch. It copies nothing into a predecessor with two successors, such as a site's callbr,
// so a site before a dispatch header gets a landing block of its own (hotprof_dual.cpp
// needsLanding). Marked (metadata on the terminator) by dispatchLatchEdges.
bool isDispatchHeader(llvm::BasicBlock *header);

// latch merges back-edges into header (LoopSimplify's unique back-edge block): its only successor
// is header, it is not address-taken and it has 2..maxPreds predecessors, each with one edge into
// it, which can be split (a br or a switch; a second edge from the same block would bypass its
// site).
bool mergingLatch(llvm::BasicBlock *latch, llvm::BasicBlock *header, unsigned maxPreds);

// Each (latch, header) edge for which split(latch, header) holds becomes the edges (p, latch) of
// the blocks p going into latch, each block once; the others stay. Returns the latches split.
unsigned splitLatchEdges(llvm::SmallVectorImpl<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> &edges,
                         llvm::function_ref<bool(llvm::BasicBlock *latch, llvm::BasicBlock *header)> split);

// Clean latch sites (dual_wrapper.h) of a function with computed goto: for each (latch, header)
// edge whose header is a dispatch header, marks it; where the latch merges several back-edges
// (LoopSimplify's unique back-edge block, which the code generator would otherwise fold or copy
// away), the edge is replaced by one edge into the latch from each of its predecessors, and the
// latch is marked too. So each handler's back-edge gets a site of its own, and its landing block
// a copy of the dispatch. A site on the merged latch kept one indirect jump for all handlers:
// QuickJS's JS_CallInternal had 7 indirect jumps instead of native's 263. Returns the number of
// latches so replaced.
unsigned dispatchLatchEdges(llvm::SmallVectorImpl<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> &edges);

// A latch that ends in an indirectbr has no edge of its own to split. For each (latch, header)
// whose latch ends in an indirectbr, the latch gets `addr == blockaddress(header) ? header : J`
// (J a new block holding the indirectbr), so the back-edge is a plain branch edge that the
// plugin can route through its nop; the pair is updated in place to (block, header). A latch of
// several loops gets one compare per header, in a chain.
void splitIndirectLatches(llvm::MutableArrayRef<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>> backedges);

// Before a copy's instructions are remapped (VM: F's blocks -> their clones): each dispatch
// table of the blocks VM maps (not another copy's table) gets a private clone, named with
// suffix, whose blockaddresses name the cloned blocks, and VM maps the table to its clone.
// Returns the number of tables cloned.
unsigned mapDispatchTables(llvm::Function &F, llvm::ValueToValueMapTy &VM, llvm::StringRef suffix = ".hotprof");

// -hotprof-dual-indirect=separate, F cloneable (indirectCloneable) and no code address of F can
// leave its frame (no blockaddress stored, passed or returned, no escaping table, every
// indirectbr's address from F's tables and blockaddresses): then F and a separate clone F.hotprof
// never see each other's label addresses (separate frames), and F may take the separate form.
// Otherwise F takes the one-body form (clone).
bool indirectSeparate(llvm::Function &F);

// The loop-entry form (dual_loops.h) fits F's computed goto: F is cloneable, no code address of F
// leaves its frame (as indirectSeparate, whatever -hotprof-dual-indirect says) and none is live
// across a loop header (addressCrossesCopies: the values that cross into the clone at a header
// must not include F's label addresses). Computed before any change to F.
bool indirectLoopEntry(llvm::Function &F);

// The separate form's clone of F (CloneFunction; VM as it fills it): each dispatch table F uses
// gets a private clone naming the clone's blocks, which the clone loads from, and the clone's
// blockaddress constants and indirectbr destinations name its own blocks. F is unchanged.
llvm::Function *cloneComputedGoto(llvm::Function &F, llvm::ValueToValueMapTy &VM);

// The same in two steps, for a clone made otherwise (the loop-entry clone, dual_loops.h): before
// cloning, a private clone of each table F uses (still naming F's blocks), mapped in VM; after
// cloning (VM then maps F's blocks), the clones' initializers name the cloned blocks.
using TablePairs = llvm::SmallVector<std::pair<llvm::GlobalVariable *, llvm::GlobalVariable *>, 4>;
TablePairs privateTables(llvm::Function &F, llvm::ValueToValueMapTy &VM);
void fillPrivateTables(llvm::ArrayRef<std::pair<llvm::GlobalVariable *, llvm::GlobalVariable *>> tables,
                       llvm::ValueToValueMapTy &VM);

// A code address (a value loaded from a dispatch table or a blockaddress) live across a loop
// header, or stored to memory, can be computed in one copy and jumped to in the other (a nop at
// a back-edge switches copies there). Computed before any change to F.
bool addressCrossesCopies(llvm::Function &F);

// When addresses cross copies: every indirectbr of either copy lists the other copy's
// destinations too (orig: F's original blocks; VM maps them to the clones), so a stale address
// jumps to the matching block of the other copy instead of being undefined.
void joinIndirectDests(llvm::ArrayRef<llvm::BasicBlock *> orig, llvm::ValueToValueMapTy &VM);

// Of the stack slots about to be promoted back to registers (mem2reg), drops those whose value
// is set outside every loop (once per call, in each copy) and read inside a loop: kept in memory,
// one slot for both copies, instead of a phi at every loop header that the other copy reaches.
// Returns the number kept in memory.
unsigned keepInvariantSlots(llvm::Function &F, llvm::SmallVectorImpl<llvm::AllocaInst *> &slots);

} // namespace hotprof_dual
