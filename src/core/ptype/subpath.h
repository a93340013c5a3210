/* subpath.h — the subpath profile type's keys (OSP, osp-online-subpath-profiling.txt §3):
 * how a sequence of basic blocks (sanitizer-coverage guard ids, first block first) becomes the
 * 64-bit key of its SUBPATHS record.
 *
 *   enc=xor   (the paper's §3.2)  key = ((uint64)length << 40) ^ hp_mix64(id_1) ^ ... ^ hp_mix64(id_L).
 *             Each guard id is mixed first (hp_mix64, core/base/hash.h) so that small ids do not
 *             cancel trivially (1 ^ 2 ^ 3 == 0). Order-blind: every rotation (and permutation) of
 *             a sequence has one key; distinct sequences collide when their id multisets XOR equal.
 *   enc=exact the sequence rotated to its least rotation (lexicographically smallest, comparing
 *             guard ids as unsigned; hp_subpath_canonical), then
 *             h = hp_mix64(length ^ HP_SUBPATH_EXACT_SEED); h = hp_mix64(h ^ c_i) for each id of
 *             the canonical sequence in order; key = h, or 1 if h is 0. Rotations of one sequence
 *             (one loop entered at different blocks) -> one key; distinct canonical sequences ->
 *             distinct keys up to 64-bit hash collisions (the runtime compares stored sequences).
 * Key 0 is never produced (it marks an empty slot in tables).
 *
 * Pure C11, no allocation: sequences are the caller's arrays.
 */
#ifndef HOTPROF_CORE_PTYPE_SUBPATH_H
#define HOTPROF_CORE_PTYPE_SUBPATH_H
#include <stddef.h>
#include <stdint.h>

enum hp_subpath_enc { HP_SUBPATH_ENC_XOR = 0, HP_SUBPATH_ENC_EXACT = 1 };
#define HP_SUBPATH_EXACT_SEED 0x5eb9a7b1c0ffee11ull

/* The start index of the least rotation of ids[0..n) (the smallest one if several rotations are
 * equal, i.e. the sequence is periodic). O(n), no extra memory (two-candidate minimum-rotation
 * scan; the same answer as Booth's algorithm). n = 0 -> 0. */
size_t hp_subpath_least_rotation(const uint32_t *ids, size_t n);
/* Rotates ids[0..n) in place to its least rotation. */
void hp_subpath_canonical(uint32_t *ids, size_t n);
/* enc=xor key of ids[0..n). */
uint64_t hp_subpath_key_xor(const uint32_t *ids, size_t n);
/* enc=exact key of ids[0..n), which must already be canonical (hp_subpath_canonical). */
uint64_t hp_subpath_key_exact_canonical(const uint32_t *ids, size_t n);
/* The key of ids[0..n) under enc; with enc=exact ids is canonicalized in place first. */
uint64_t hp_subpath_key(int enc, uint32_t *ids, size_t n);

#endif
