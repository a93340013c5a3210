/* registry.c — every analysis profile type (aptype.h), indexed by the core descriptor's id, and
 * lookups by section type and SUMMARY id (through the core descriptors). Adding a type: its file
 * in this directory and one line here. Invariant: hp_aptypes[i]->id == i for i < HP_PT_COUNT.
 */
#include "analysis/ptype/aptype.h"

extern const hp_aptype hp_aptype_methods, hp_aptype_callpairs, hp_aptype_blocks, hp_aptype_edges,
    hp_aptype_datastream;

const hp_aptype *const hp_aptypes[HP_PT_COUNT + 1] = {
    [HP_PT_METHODS] = &hp_aptype_methods,
    [HP_PT_CALLPAIRS] = &hp_aptype_callpairs,
    [HP_PT_BLOCKS] = &hp_aptype_blocks,
    [HP_PT_EDGES] = &hp_aptype_edges,
    [HP_PT_DATASTREAM] = &hp_aptype_datastream,
    [HP_PT_COUNT] = NULL,
};

const hp_aptype *hp_aptype_by_section(uint32_t sec)
{
    const hp_ptype *t = hp_ptype_by_section(sec);
    return t ? hp_aptypes[t->id] : NULL;
}

const hp_aptype *hp_aptype_by_summary(uint32_t id)
{
    const hp_ptype *t = hp_ptype_by_summary(id);
    return t ? hp_aptypes[t->id] : NULL;
}
