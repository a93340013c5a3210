/* intervals.c — the intervals profile type's descriptor (ptype.h): per-interval multi-hash
 * candidate sets of the value or edges tuple stream (docs/intervals.md). One type for both
 * streams: the summary (a bounded timeline of candidate lists) and its section are the same,
 * the stream is a field of the section. */
#include "core/ptype/ptype.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_intervals = {
    .id = HP_PT_INTERVALS,
    .name = "intervals",
    .synonyms = "",
    .title = "interval profiles",
    .bursty_type = -1,
    .section = HP_SEC_INTERVALS,
    .summary_id = 0,
    .record_size = 0,
    .key_doc = "hp_multihash_tuple_key(a, b) = lo32(a) << 32 | (lo32(b) ^ hi32(b))",
};
