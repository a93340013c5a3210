/* samples.c — how the runtime writes the samples profile type. SKELETON: writes nothing yet (the
 * value-sampling branch fills it in). */
#include "runtime/pt/pt.h"
#include "core/ptype/ptype.h"

const hp_pt hp_pt_samples = {.ptype = HP_PT_SAMPLES};
