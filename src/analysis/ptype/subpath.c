/* subpath.c — the subpath profile type on the analysis side (aptype.h): decode of SUBPATHS
 * records, the `report --type subpath` table, compare views. Placeholder: the OSP work fills the
 * hooks; a type with no hooks is skipped by every loop over the registry. */
#include "analysis/ptype/aptype.h"

const hp_aptype hp_aptype_subpath = {.id = HP_PT_SUBPATH};
