/* profbuild.h — builds a profile file in memory with format.h's encoders.
 *
 * For tests, fuzz seeds and tools that need a well-formed hotprof.data without running a
 * program (the runtime has its own async-signal-safe writer). Each call appends one complete
 * section (header + payload, both checksummed). On allocation failure `ok` becomes 0 and later
 * calls do nothing. Invariant: buf[0..len) is always a valid prefix of a profile file.
 */
#ifndef HOTPROF_ANALYSIS_PROFBUILD_H
#define HOTPROF_ANALYSIS_PROFBUILD_H
#include <stddef.h>
#include <stdint.h>
#include "core/format/format.h"

typedef struct hp_pbuild { uint8_t *buf; size_t len, cap; int ok; } hp_pbuild;

void hp_pbuild_init(hp_pbuild *b, uint64_t seed);
void hp_pbuild_free(hp_pbuild *b);
void hp_pbuild_section(hp_pbuild *b, uint32_t type, const void *payload, size_t len);
void hp_pbuild_info(hp_pbuild *b, const char *text); /* "key=value\n..." */
void hp_pbuild_module(hp_pbuild *b, uint64_t base, uint64_t lo, uint64_t hi, const char *path,
                      const uint8_t *buildid, uint32_t buildid_len);
void hp_pbuild_funcs(hp_pbuild *b, const hp_rec_func *r, size_t n);
void hp_pbuild_callpairs(hp_pbuild *b, const hp_rec_callpair *r, size_t n);
void hp_pbuild_blockmap(hp_pbuild *b, const hp_rec_block *r, size_t n);
void hp_pbuild_blocks(hp_pbuild *b, const hp_rec_count *r, size_t n);
void hp_pbuild_edges(hp_pbuild *b, const hp_rec_edge *r, size_t n);
void hp_pbuild_thread(hp_pbuild *b, uint64_t tid, uint64_t events);
/* SUMMARY: u32 profile type (format.h enum hp_summary_profile), u32 0, then the serialized blob. */
void hp_pbuild_summary(hp_pbuild *b, uint32_t profile_type, const void *blob, size_t len);
void hp_pbuild_group_end(hp_pbuild *b, uint64_t seq, uint64_t flags, int64_t exit_status);

#endif
