/* dual.h — two-version code (`hotprof cc --hooks=dual-*`, plugin/hotprof_dual.cpp, docs/dual.md):
 * the patchable sites of the clean copies and how the runtime switches them.
 *
 * Each instrumented module's constructor hands its __hotprof_dual section to hp_dual_register:
 * records {int32 site - &site, int32 target - &target, u32 kind, u32 0} (pc-relative). A site is
 * a 5-byte nop (0f 1f 44 00 00) that never crosses an 8-byte boundary; "on" is `jmp rel32` (e9)
 * to its target, the matching block of the function's instrumented copy. A record with flag
 * HP_DUAL_REC_COUNT (-mllvm -hotprof-dual-site=count) is an inline count site instead:
 * `subq $1, %fs:hp_dual_countdown; jle target`, compiled in, never written; its thread's
 * countdown decides (count mode: the controller's arming; exhaustive and live: <= 0, every event
 * enters the instrumented copy; an inactive thread or mode off: never). Patched bursts cannot
 * switch it: hp_dual_count_sites() says a program has some.
 *
 * State: hp_g.dual (base.h: what the instrumented copy's back-edge hook answers) and this file's
 * own module table and page set (file-static in dual.c). Layering: ctl/ (base only).
 */
#ifndef HOTPROF_RUNTIME_CTL_DUAL_H
#define HOTPROF_RUNTIME_CTL_DUAL_H
#include <stdint.h>
#include <stddef.h>
#include "runtime/base.h"

/* hp_g.dual: what the instrumented copies do. */
enum { HP_DUAL_NONE = 0, HP_DUAL_ALL = 1, HP_DUAL_BURSTS = 2, HP_DUAL_COUNT = 3 };
/* A return site (plugin -hotprof-dual-return-sites=on) follows a call in a clean copy; its target
 * is the point after the same call in the instrumented copy. Not an event: written only in count
 * mode with subpaths, to a trampoline that tests the countdown (dual_tramp.h); a nop otherwise.
 * A record of kind HP_DUAL_KIND_CALL is no site: `site` is a label right after a call of an
 * instrumented copy (built with return sites), whose return continues instrumented. */
enum { HP_DUAL_KIND_ENTRY = 0, HP_DUAL_KIND_BACKEDGE = 1, HP_DUAL_KIND_RETURN = 2, HP_DUAL_KIND_CALL = 3 };

typedef struct hp_dual_rec { int32_t site, target; uint32_t kind, flags; } hp_dual_rec;
#define HP_DUAL_REC_COUNT 1u /* flags: an inline count site, not a patchable nop */
/* flags: an entry site of a count build (-hotprof-dual-entry-pad=on) is a 16-byte pad at its
 * 16-aligned function's first byte, clang's nops (dual_tramp.h: a 10- and a 6-byte one, or a 15-
 * and a 1-byte one). Count mode writes it once, in place, as the countdown's decrement and `jle
 * target` (no trampoline); every other write touches its first five bytes only, as a nop site's
 * (off: the pad's own first bytes back); a pad of other bytes gets a trampoline that resumes at
 * site + 16. */
#define HP_DUAL_REC_PAD 2u
/* A return site's (and a KIND_CALL record's) flags >> 16: the bytes from a label just before its
 * call to the site, so the call's return address lies in (site - distance, site]. */
#define HP_DUAL_REC_CALL_DIST(r) ((r)->flags >> 16)

/* A module's records (its constructor, or dlopen): kept; switched on at once if every site is on.
 * 1 if the module is new (the caller refreshes the module list). */
int hp_dual_register(const hp_dual_rec *start, const hp_dual_rec *stop);
/* A module's __hotprof_dualbr section (built with --dual-latch=branch, dual_branch.c): its latch
 * branches, switched with the sites from now on (on at once if the sites are). */
void hp_dual_register_branches(const void *start, const void *stop);
void hp_dual_unregister_branches(const void *start); /* its destructor, before hp_dual_unregister */
/* A module going away (its destructor: dlclose or exit): its sites and pages are forgotten. */
void hp_dual_unregister(const hp_dual_rec *start, const hp_dual_rec *stop);
int hp_dual_present(void);          /* a module with dual sites registered */
uint64_t hp_dual_count_sites(void); /* inline count sites registered (HP_DUAL_REC_COUNT) */
#define DUAL_COUNT_NEVER (INT64_MAX / 2) /* a countdown an inactive thread never runs out of */
/* Every site of every module, now and later, on (exhaustive mode). Returns sites switched. */
uint64_t hp_dual_all_on(void);
/* The same in a shadow (shadow mode's child: one thread), after resetting the lock. */
uint64_t hp_dual_child_all_on(void);
/* Switch every registered site on (1) or off (0); sites that cannot be written stay as they are. */
void hp_dual_switch(int on);
/* The same switch off, from a hook (patched bursts: the window's last unit): only if g_lock is
 * free now (else 0: the control thread is switching and will switch off), never in exhaustive or
 * count mode (0). Async-signal-safe. 1 if the sites are off. */
int hp_dual_try_switch_off(void);
/* The 8 bytes at the aligned word holding a 5-byte site at byte offset off (0..3), with the site's
 * bytes replaced by jmp rel32 to target (on) or the nop (off). Pure: unit-tested. */
uint64_t hp_dual_word(uint64_t word, unsigned off, uint64_t site, uint64_t target, int on);
/* The same with the five bytes `nop` for off (an entry pad's first five: HP_DUAL_REC_PAD). */
uint64_t hp_dual_word_nop(uint64_t word, unsigned off, uint64_t site, uint64_t target, int on, const uint8_t nop[5]);
/* Init, bursty mode over patched sites (hp_g.patch set by hp_sites_probe) in a program with dual
 * sites: hp_g.dual = HP_DUAL_BURSTS and the control thread over a backend that switches the dual
 * sites and the call sites of sites.c (functions built with one copy) together. 0 if started. */
int hp_dual_start(uint32_t min_window);
size_t hp_dual_info(char *out, size_t cap); /* dual.* INFO lines (async-signal-safe) */

/* ---- count-triggered bursts (`--bursts count`, HOTPROF_BURSTS=count; dual_tramp.h, docs/dual.md)
 * Every site jumps, for the whole run, to a trampoline of its own that decrements the thread's
 * hp_dual_countdown (thread.h) and enters the instrumented copy when it reaches 0; the hooks
 * there run the thread's HPS controller (core/control/bursty.h) and keep the countdown <= 0
 * through a burst. A site no trampoline can reach jumps straight to its instrumented target
 * (correct: the hooks then count its events; only slower). */
/* Init, bursty mode, before the output opens: the %fs offset of the countdown and a trampoline
 * for every site of every registered module. 0, or -1 with *why (a sentence) if count mode is
 * impossible: no module with dual sites, the offset does not fit, or no module's trampolines
 * could be mapped near it. */
int hp_dual_count_probe(const char **why);
/* Init, output open, after a successful probe: hp_g.dual = HP_DUAL_COUNT and every site (of
 * modules registered now and later) switched to its trampoline; return sites too when
 * return_sites (subpaths in count mode), else they stay nops. */
void hp_dual_count_start(int return_sites);
/* 1 if ret is the return address of a call whose return site jumps to its trampoline (count
 * mode with return sites: a thread whose countdown is <= 0 goes on in the caller's instrumented
 * copy right after the call), or of a call of an instrumented copy with a KIND_CALL record: the
 * caller's blocks after the return are seen. Async-signal-safe (reads only). */
int hp_dual_return_point(uint64_t ret);
/* 1 once count mode with return sites wrote some module's return sites (and its call ranges). */
int hp_dual_return_sites_live(void);
/* dual_text.c: a registering module's executable segments noted (module_data: any address it
 * maps; dl_iterate_phdr, not signal-safe); 1 if addr lies in one noted (or if one could not be
 * noted), 0 if it is outside every module with dual sites (async-signal-safe). */
void hp_dual_text_note(const void *module_data);
int hp_dual_in_text(uint64_t addr);
/* A call recorded at fn's entry whose return address ret follows a direct call (e8) of another
 * function T in a module of ours, T no PLT entry or jump thunk: fn was reached by a tail call of
 * T's clean copy (clean copies keep the compiler's tail calls; instrumented copies, whose exit
 * hooks follow their calls, make none). Returns T's entry (the caller to key the pair by), else
 * 0 (a call of fn itself, an indirect call, a stub: ret is the caller's own site). Reads code
 * bytes only inside noted executable ranges; async-signal-safe. */
uint64_t hp_dual_tail_caller(uint64_t fn, uint64_t ret);
void hp_dual_count_burst(void); /* a hook: a thread's burst begins (counted for INFO) */
/* dual.count.* INFO lines (async-signal-safe; nothing unless count mode started). */
size_t hp_dual_count_info(char *out, size_t cap);

/* ---- dual_branch.c (every function under dual.c's lock) ---- */
/* A latch branch's record (__hotprof_dualbr, analysis/latch_asm.h): pc-relative addresses of its
 * rel32, of where it goes while sites are on (the site's block) and while they are off, and of the
 * latch pad before the latter (0: none; builds before pads had 0 there). */
typedef struct hp_dual_branch_rec { int32_t field, on, off, pad; } hp_dual_branch_rec;
/* The page of addr made writable (once; dual.c's page set). 0 if it cannot be. */
int hp_dual_page_writable(uint64_t addr);
/* word with its bytes off..off+3 replaced by rel (little-endian); off <= 4. */
uint64_t hp_dual_branch_word(uint64_t word, unsigned off, uint32_t rel);
/* Where the latch branches go: C (sites off), L (sites on: bursts, exhaustive, a shadow), or
 * count mode: the latch pad before C, written as the countdown's decrement and a jle to the site's
 * target (dual_tramp.h), else a trampoline of the branch's own that does the same and goes on at C
 * (L if the branch got neither). */
enum { HP_BRANCH_OFF = 0, HP_BRANCH_ON = 1, HP_BRANCH_COUNT = 2 };
/* A module's branch records [start, stop): kept, and written for mode now unless it is off. 1 if new. */
int hp_dual_branch_add(const void *start, const void *stop, int mode);
void hp_dual_branch_remove(const void *start);
void hp_dual_branch_switch(int mode); /* every module's branches (HP_BRANCH_*) */
uint64_t hp_dual_branch_count(void);      /* records of the modules loaded now */
uint64_t hp_dual_branch_unwritable(void); /* of them not written by the last pass */
uint64_t hp_dual_branch_tramps(void);     /* count mode: branches given a trampoline */
uint64_t hp_dual_branch_pads(void);       /* count mode: latch pads written (each serves its branches) */
uint64_t hp_dual_branch_padded(void);     /* count mode: branches sent to a latch pad */
/* A nop site is preceded by up to this many CS prefixes that keep it inside one aligned word
 * (the plugin's `.p2align 3,0x2e,4`): its block's label may lie that far before the site. */
#define HP_DUAL_SITE_PAD 4u
/* dual.c, under its lock: the instrumented target of the nop latch site whose block begins at
 * `block` (the site at block .. block + HP_DUAL_SITE_PAD), 0 if none. */
uint64_t hp_dual_latch_target(uint64_t block);

#endif
