/* samples.c — the samples profile type's descriptor (ptype.h): PC and stack samples taken by the
 * timer controller (--mode timer, value-sampling-dcpi.txt §2.1-2.2), one STACKS section per
 * thread. Not sampled by HPS: bursty_type is -1. */
#include "core/ptype/ptype.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_samples = {
    .id = HP_PT_SAMPLES,
    .name = "samples",
    .synonyms = "stacks pcs",
    .title = "timer samples",
    .bursty_type = -1,
    .section = HP_SEC_STACKS,
    .summary_id = 0,
    .record_size = 0,
    .key_doc = "a hash of the stack (interrupted pc, return addresses) and the top-of-stack word",
    .group_level = 0,
};
