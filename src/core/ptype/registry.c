/* registry.c — every profile type (ptype.h), indexed by id, and lookups by name, HPS type index,
 * SUMMARY id and section type. Adding a type: its descriptor file and one line here.
 */
#include "core/ptype/ptype.h"
#include <string.h>

extern const hp_ptype hp_ptype_methods, hp_ptype_callpairs, hp_ptype_blocks, hp_ptype_edges, hp_ptype_datastream,
    hp_ptype_subpath, hp_ptype_intervals, hp_ptype_samples, hp_ptype_value, hp_ptype_path;

const hp_ptype *const hp_ptypes[HP_PT_COUNT + 1] = {
    [HP_PT_METHODS] = &hp_ptype_methods,
    [HP_PT_CALLPAIRS] = &hp_ptype_callpairs,
    [HP_PT_BLOCKS] = &hp_ptype_blocks,
    [HP_PT_EDGES] = &hp_ptype_edges,
    [HP_PT_DATASTREAM] = &hp_ptype_datastream,
    [HP_PT_SUBPATH] = &hp_ptype_subpath,
    [HP_PT_INTERVALS] = &hp_ptype_intervals,
    [HP_PT_SAMPLES] = &hp_ptype_samples,
    [HP_PT_VALUE] = &hp_ptype_value,
    [HP_PT_PATH] = &hp_ptype_path,
    [HP_PT_COUNT] = NULL,
};

/* 1 if the len bytes at name are one of the space-separated words of list. */
static int word_in(const char *list, const char *name, size_t len)
{
    for (const char *w = list; *w;) {
        size_t n = strcspn(w, " ");
        if (n == len && memcmp(w, name, len) == 0) return 1;
        w += n + (w[n] == ' ');
    }
    return 0;
}

const hp_ptype *hp_ptype_by_name(const char *name, size_t len)
{
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_ptype *t = hp_ptypes[i];
        if ((strlen(t->name) == len && memcmp(t->name, name, len) == 0) || word_in(t->synonyms, name, len)) return t;
    }
    return NULL;
}

const hp_ptype *hp_ptype_by_bursty(int b)
{
    for (int i = 0; i < HP_PT_COUNT; i++)
        if (b >= 0 && hp_ptypes[i]->bursty_type == b) return hp_ptypes[i];
    return NULL;
}

const hp_ptype *hp_ptype_by_summary(uint32_t id)
{
    for (int i = 0; i < HP_PT_COUNT; i++)
        if (id && hp_ptypes[i]->summary_id == id) return hp_ptypes[i];
    return NULL;
}

const hp_ptype *hp_ptype_by_section(uint32_t sec)
{
    for (int i = 0; i < HP_PT_COUNT; i++)
        if (sec && hp_ptypes[i]->section == sec) return hp_ptypes[i];
    return NULL;
}
