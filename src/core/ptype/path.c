/* path.c — the path profile type's descriptor (ptype.h): interprocedural paths, the block
 * sequences between taken back-edges crossing calls and returns (shadow-profiling.txt §4.2;
 * docs/paths.md), counted per thread in exhaustive mode (`--sample path`), one PATHS section per
 * thread. Not sampled by the HPS counters: bursty_type is -1. */
#include "core/ptype/ptype.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_path = {
    .id = HP_PT_PATH,
    .name = "path",
    .synonyms = "paths",
    .title = "hot paths",
    .bursty_type = -1,
    .section = HP_SEC_PATHS,
    .summary_id = 0,
    .record_size = 0,
    .key_doc = "a running hash of the path's guard ids and its length (core/ptype/path.h)",
    .group_level = 0,
};
