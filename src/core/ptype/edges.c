/* edges.c — the edges profile type's descriptor (ptype.h): branch edges. */
#include "core/ptype/ptype.h"
#include "core/control/bursty.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_edges = {
    .id = HP_PT_EDGES,
    .name = "edges",
    .synonyms = "",
    .title = "branch edges",
    .bursty_type = HP_BURSTY_EDGES,
    .section = HP_SEC_EDGES,
    .summary_id = 0,
    .record_size = HP_REC_EDGE_SIZE,
    .key_doc = "(from guard id << 32 | to guard id)",
};
