/* registry.c — every analysis profile type (aptype.h), indexed by the core descriptor's id, and
 * lookups by section type and SUMMARY id (through the core descriptors), and which type an
 * export of one type (folded stacks, pprof) takes. Adding a type: its file
 * in this directory and one line here. Invariant: hp_aptypes[i]->id == i for i < HP_PT_COUNT.
 */
#include "analysis/ptype/aptype.h"
#include <stdio.h>
#include <string.h>

extern const hp_aptype hp_aptype_methods, hp_aptype_callpairs, hp_aptype_blocks, hp_aptype_edges,
    hp_aptype_datastream, hp_aptype_subpath, hp_aptype_intervals, hp_aptype_samples, hp_aptype_value,
    hp_aptype_path;

const hp_aptype *const hp_aptypes[HP_PT_COUNT + 1] = {
    [HP_PT_METHODS] = &hp_aptype_methods,
    [HP_PT_CALLPAIRS] = &hp_aptype_callpairs,
    [HP_PT_BLOCKS] = &hp_aptype_blocks,
    [HP_PT_EDGES] = &hp_aptype_edges,
    [HP_PT_DATASTREAM] = &hp_aptype_datastream,
    [HP_PT_SUBPATH] = &hp_aptype_subpath,
    [HP_PT_INTERVALS] = &hp_aptype_intervals,
    [HP_PT_SAMPLES] = &hp_aptype_samples,
    [HP_PT_VALUE] = &hp_aptype_value,
    [HP_PT_PATH] = &hp_aptype_path,
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

static int can_export(const hp_aptype *t, hp_export_kind k)
{
    return k == HP_EXPORT_FOLDED ? t->folded != NULL : t->pprof != NULL;
}

const hp_aptype *hp_aptype_export_named(const char *name, hp_export_kind k)
{
    const hp_ptype *c = hp_ptype_by_name(name, strlen(name));
    return c && can_export(hp_aptypes[c->id], k) ? hp_aptypes[c->id] : NULL;
}

const hp_aptype *hp_aptype_export_default(const hp_profile *p, hp_export_kind k)
{
    const hp_aptype *best = NULL, *best_rows = NULL;
    for (int i = 0; i < HP_PT_COUNT; i++) {
        const hp_aptype *t = hp_aptypes[i];
        if (!can_export(t, k) || t->fold_rank <= 0) continue;
        if (!best || t->fold_rank > best->fold_rank) best = t;
        if (t->rows(p) && (!best_rows || t->fold_rank > best_rows->fold_rank)) best_rows = t;
    }
    return best_rows ? best_rows : best;
}

int hp_aptype_export_check(const char *name, hp_export_kind k, char *msg, size_t len)
{
    const char *verb = k == HP_EXPORT_FOLDED ? "be folded" : "be exported to pprof";
    if (hp_aptype_export_named(name, k)) return 0;
    int w = hp_ptype_by_name(name, strlen(name))
                ? snprintf(msg, len, "profile type '%s' cannot %s (types that can: ", name, verb)
                : snprintf(msg, len, "unknown profile type '%s' (types that can %s: ", name, verb);
    const char *sep = "";
    for (int i = 0; i < HP_PT_COUNT && w >= 0 && (size_t)w < len; i++) {
        if (!can_export(hp_aptypes[i], k)) continue;
        w += snprintf(msg + w, len - (size_t)w, "%s%s", sep, hp_ptypes[i]->name);
        sep = ", ";
    }
    if (w >= 0 && (size_t)w < len) snprintf(msg + w, len - (size_t)w, ")");
    return -1;
}

int hp_aptype_shown(const hp_aptype *t, const hp_profile *p, const hp_report_opts *o)
{
    if (o->fold_type) {
        const hp_ptype *c = hp_ptype_by_name(o->fold_type, strlen(o->fold_type));
        return c && c->id == t->id;
    }
    return (!t->wanted || t->wanted(o)) && (!t->shown || t->shown(p, o));
}

int hp_aptype_held(const hp_aptype *t, const hp_profile *p)
{
    uint32_t sec = hp_ptypes[t->id]->section;
    if (t->rows(p)) return 1;
    for (size_t i = 0; sec && i < p->nsections; i++)
        if (p->sections[i].type == sec && p->sections[i].complete) return 1;
    return 0;
}

void hp_aptype_names(char *buf, size_t len)
{
    int w = 0;
    buf[0] = 0;
    for (int i = 0; i < HP_PT_COUNT && w >= 0 && (size_t)w < len; i++)
        w += snprintf(buf + w, len - (size_t)w, "%s%s", i ? ", " : "", hp_ptypes[i]->name);
}
