/* callpairs.c — the callpairs profile type's descriptor (ptype.h): hot call pairs. */
#include "core/ptype/ptype.h"
#include "core/control/bursty.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_callpairs = {
    .id = HP_PT_CALLPAIRS,
    .name = "callpairs",
    .synonyms = "pairs",
    .title = "hot call pairs",
    .bursty_type = HP_BURSTY_CALL_PAIRS,
    .section = HP_SEC_CALLPAIRS,
    .summary_id = 0,
    .record_size = HP_REC_CALLPAIR_SIZE,
    .key_doc = "(call site = return address in the caller, callee address)",
};
