/* registry.c — the list of every bounded summary (summary.h's hp_summaries[]) and lookup
 * by name. Invariants: NULL-terminated; one entry per enum hp_summary_kind, in kind order; names
 * are unique (hp_summary_find returns the first match, NULL for an unknown or NULL name).
 */
#include "core/summary/summary.h"
#include <string.h>

extern const hp_summary_vt hp_exact_vt, hp_concise_vt, hp_counting_vt, hp_spacesaving_vt,
    hp_countmin_cu_vt, hp_misragries_vt, hp_heavykeeper_vt, hp_valuelist_llvm_vt,
    hp_valuelist_gcc_vt, hp_tnv_vt;

const hp_summary_vt *const hp_summaries[] = {
    &hp_exact_vt,          &hp_concise_vt,       &hp_counting_vt, &hp_spacesaving_vt,
    &hp_countmin_cu_vt,    &hp_misragries_vt,    &hp_heavykeeper_vt,
    &hp_valuelist_llvm_vt, &hp_valuelist_gcc_vt, &hp_tnv_vt,      NULL,
};

const hp_summary_vt *hp_summary_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; hp_summaries[i]; i++)
        if (strcmp(hp_summaries[i]->name, name) == 0) return hp_summaries[i];
    return NULL;
}
