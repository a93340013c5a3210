/* value.c — the value profile type's descriptor (ptype.h): per instruction operand, the hot values
 * that interpreting instructions after timer interrupts captured (--mode timer --values L/K,
 * value-sampling-dcpi.txt §2.1.3-2.3), one VALUES section per thread. */
#include "core/ptype/ptype.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_value = {
    .id = HP_PT_VALUE,
    .name = "value",
    .synonyms = "values",
    .title = "hot values",
    .bursty_type = -1,
    .section = HP_SEC_VALUES,
    .summary_id = 0,
    .record_size = 0,
    .key_doc = "pc, value kind (HP_VK_*) and operand",
    .group_level = 0,
};
