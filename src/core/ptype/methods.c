/* methods.c — the methods profile type's descriptor (ptype.h): hot methods. */
#include "core/ptype/ptype.h"
#include "core/control/bursty.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_methods = {
    .id = HP_PT_METHODS,
    .name = "methods",
    .synonyms = "calls",
    .title = "hot methods",
    .bursty_type = HP_BURSTY_METHODS,
    .section = HP_SEC_FUNCS,
    .summary_id = 0,
    .record_size = HP_REC_FUNC_SIZE,
    .key_doc = "the function's address (its entry, as -finstrument-functions passes it)",
};
