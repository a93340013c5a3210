/* blocks.c — the blocks profile type's descriptor (ptype.h): basic blocks. */
#include "core/ptype/ptype.h"
#include "core/control/bursty.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_blocks = {
    .id = HP_PT_BLOCKS,
    .name = "blocks",
    .synonyms = "",
    .title = "basic blocks",
    .bursty_type = -1,
    .section = HP_SEC_BLOCKS,
    .summary_id = 0,
    .record_size = HP_REC_COUNT_SIZE,
    .key_doc = "the block's guard id (BLOCKMAP maps it to a pc)",
};
