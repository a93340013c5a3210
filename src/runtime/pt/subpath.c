/* subpath.c — the subpath profile type on the runtime side (pt.h): writes the process's subpath
 * list as one SUBPATHS section per group. Placeholder: the OSP work fills it. */
#include "runtime/pt/pt.h"
#include "core/ptype/ptype.h"

const hp_pt hp_pt_subpath = {.ptype = HP_PT_SUBPATH};
