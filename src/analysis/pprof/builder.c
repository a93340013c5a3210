/* builder.c — the pprof profile builder of builder.h: growable arrays of strings, functions,
 * locations, mappings and samples, three open-addressing indexes (hash -> id) for the dedup,
 * and the encoder that lays the arrays out as protobuf-c messages (profile.pb-c.h) and packs them.
 * Invariants: every index slot holds (hash, id + 1) of an entry present in its array, load <= 1/2;
 * the encoder allocates its message structs in one pass and frees them before it returns.
 */
#include "analysis/pprof/builder.h"
#include "analysis/pprof/profile.pb-c.h"
#include "core/base/hash.h"
#include <stdlib.h>
#include <string.h>

typedef struct slot { uint64_t hash; uint32_t id1; } slot; /* id1 = index + 1, 0 = empty */
typedef struct index_t { slot *slots; size_t cap, n; } index_t;

typedef struct func_rec { int64_t name, system_name, filename, start_line; } func_rec;
typedef struct loc_rec { uint64_t mapping, address, function; int64_t line; } loc_rec;
typedef struct map_rec { hp_pprof_mapping_desc d; int64_t filename, build_id; } map_rec;
typedef struct sample_rec { size_t loc_off, nloc, val_off; } sample_rec;
typedef struct vtype { int64_t type, unit; } vtype;

struct hp_pprof {
    char **strs; size_t nstrs, capstrs; index_t sidx;
    func_rec *funcs; size_t nfuncs, capfuncs; index_t fidx;
    loc_rec *locs; size_t nlocs, caplocs; index_t lidx;
    map_rec *maps; size_t nmaps, capmaps;
    sample_rec *samples; size_t nsamples, capsamples;
    uint64_t *locpool; size_t nlocpool, caplocpool;
    int64_t *valpool; size_t nvalpool, capvalpool;
    vtype *types; size_t ntypes, captypes;
    int64_t *comments; size_t ncomments, capcomments;
    vtype period_type; int64_t period, default_type, time_nanos;
};

/* Makes room for `need` elements of size elem in *arr (capacity *cap); 0 or -1. */
static int reserve(void *arr, size_t *cap, size_t need, size_t elem)
{
    void **p = arr;
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) ncap *= 2;
    void *q = realloc(*p, ncap * elem);
    if (!q) return -1;
    *p = q, *cap = ncap;
    return 0;
}

/* ---- the dedup index ---- */

typedef int (*eq_fn)(const hp_pprof *b, size_t i, const void *key);

/* The slot holding an entry equal to key, or the empty slot where it would go. */
static slot *index_probe(const index_t *t, uint64_t h, eq_fn eq, const hp_pprof *b, const void *key)
{
    size_t mask = t->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        slot *s = &t->slots[i];
        if (!s->id1 || (s->hash == h && eq(b, s->id1 - 1, key))) return s;
    }
}

static int index_grow(index_t *t)
{
    if (t->cap && (t->n + 1) * 2 <= t->cap) return 0;
    size_t ncap = t->cap ? t->cap * 2 : 64;
    slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].id1) continue;
        size_t j = (size_t)t->slots[i].hash & (ncap - 1);
        while (ns[j].id1) j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns, t->cap = ncap;
    return 0;
}

static uint64_t hash_bytes(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return hp_mix64(h);
}

static uint64_t hash_words(const uint64_t *w, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) h = hp_mix64(h ^ w[i]) + i;
    return h;
}

/* ---- strings ---- */

static int str_eq(const hp_pprof *b, size_t i, const void *key) { return strcmp(b->strs[i], key) == 0; }

int64_t hp_pprof_string(hp_pprof *b, const char *s)
{
    if (!s) s = "";
    uint64_t h = hash_bytes(s);
    if (index_grow(&b->sidx)) return -1;
    slot *sl = index_probe(&b->sidx, h, str_eq, b, s);
    if (sl->id1) return (int64_t)(sl->id1 - 1);
    char *copy = strdup(s);
    if (!copy || reserve(&b->strs, &b->capstrs, b->nstrs + 1, sizeof *b->strs)) return free(copy), -1;
    b->strs[b->nstrs] = copy;
    *sl = (slot){h, (uint32_t)++b->nstrs};
    b->sidx.n++;
    return (int64_t)(b->nstrs - 1);
}

hp_pprof *hp_pprof_new(void)
{
    hp_pprof *b = calloc(1, sizeof *b);
    if (b && hp_pprof_string(b, "") != 0) hp_pprof_free(b), b = NULL;
    return b;
}

void hp_pprof_free(hp_pprof *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->nstrs; i++) free(b->strs[i]);
    free(b->strs), free(b->sidx.slots), free(b->funcs), free(b->fidx.slots), free(b->locs), free(b->lidx.slots);
    free(b->maps), free(b->samples), free(b->locpool), free(b->valpool), free(b->types), free(b->comments);
    free(b);
}

/* ---- header parts ---- */

static int value_type(hp_pprof *b, const char *type, const char *unit, vtype *out)
{
    int64_t t = hp_pprof_string(b, type), u = hp_pprof_string(b, unit);
    if (t < 0 || u < 0) return -1;
    *out = (vtype){t, u};
    return 0;
}

int hp_pprof_sample_type(hp_pprof *b, const char *type, const char *unit)
{
    if (reserve(&b->types, &b->captypes, b->ntypes + 1, sizeof *b->types)) return -1;
    if (value_type(b, type, unit, &b->types[b->ntypes])) return -1;
    b->ntypes++;
    return 0;
}

size_t hp_pprof_nsample_types(const hp_pprof *b) { return b->ntypes; }

int hp_pprof_default_type(hp_pprof *b, const char *type)
{
    int64_t t = hp_pprof_string(b, type);
    return t < 0 ? -1 : (b->default_type = t, 0);
}

int hp_pprof_period(hp_pprof *b, const char *type, const char *unit, int64_t period)
{
    b->period = period;
    return value_type(b, type, unit, &b->period_type);
}

int hp_pprof_comment(hp_pprof *b, const char *text)
{
    int64_t s = hp_pprof_string(b, text);
    if (s < 0 || reserve(&b->comments, &b->capcomments, b->ncomments + 1, sizeof *b->comments)) return -1;
    b->comments[b->ncomments++] = s;
    return 0;
}

void hp_pprof_time(hp_pprof *b, int64_t unix_nanos) { b->time_nanos = unix_nanos; }

/* ---- mappings, functions, locations ---- */

uint64_t hp_pprof_mapping(hp_pprof *b, const hp_pprof_mapping_desc *m)
{
    int64_t f = hp_pprof_string(b, m->filename), id = hp_pprof_string(b, m->build_id);
    if (f < 0 || id < 0 || reserve(&b->maps, &b->capmaps, b->nmaps + 1, sizeof *b->maps)) return 0;
    b->maps[b->nmaps] = (map_rec){*m, f, id};
    b->maps[b->nmaps].d.filename = b->maps[b->nmaps].d.build_id = NULL; /* borrowed; not kept */
    return ++b->nmaps;
}

static int func_eq(const hp_pprof *b, size_t i, const void *key) { return !memcmp(&b->funcs[i], key, sizeof b->funcs[i]); }

uint64_t hp_pprof_function(hp_pprof *b, const char *name, const char *system_name, const char *filename,
                           int64_t start_line)
{
    func_rec k = {hp_pprof_string(b, name), hp_pprof_string(b, system_name ? system_name : name),
                  hp_pprof_string(b, filename), start_line};
    if (k.name < 0 || k.system_name < 0 || k.filename < 0 || index_grow(&b->fidx)) return 0;
    uint64_t h = hash_words((const uint64_t *)&k, 4);
    slot *sl = index_probe(&b->fidx, h, func_eq, b, &k);
    if (sl->id1) return sl->id1;
    if (reserve(&b->funcs, &b->capfuncs, b->nfuncs + 1, sizeof *b->funcs)) return 0;
    b->funcs[b->nfuncs] = k;
    *sl = (slot){h, (uint32_t)++b->nfuncs};
    b->fidx.n++;
    return b->nfuncs;
}

static int loc_eq(const hp_pprof *b, size_t i, const void *key) { return !memcmp(&b->locs[i], key, sizeof b->locs[i]); }

uint64_t hp_pprof_location(hp_pprof *b, uint64_t mapping, uint64_t address, uint64_t function, int64_t line)
{
    loc_rec k = {mapping, address, function, function ? line : 0};
    if (index_grow(&b->lidx)) return 0;
    uint64_t h = hash_words((const uint64_t *)&k, 4);
    slot *sl = index_probe(&b->lidx, h, loc_eq, b, &k);
    if (sl->id1) return sl->id1;
    if (reserve(&b->locs, &b->caplocs, b->nlocs + 1, sizeof *b->locs)) return 0;
    b->locs[b->nlocs] = k;
    *sl = (slot){h, (uint32_t)++b->nlocs};
    b->lidx.n++;
    return b->nlocs;
}

int hp_pprof_sample(hp_pprof *b, const uint64_t *locations, size_t nlocations, const int64_t *values, size_t nvalues)
{
    if (nvalues != b->ntypes) return -1;
    if (reserve(&b->samples, &b->capsamples, b->nsamples + 1, sizeof *b->samples) ||
        reserve(&b->locpool, &b->caplocpool, b->nlocpool + nlocations, sizeof *b->locpool) ||
        reserve(&b->valpool, &b->capvalpool, b->nvalpool + nvalues, sizeof *b->valpool))
        return -1;
    if (nlocations) memcpy(b->locpool + b->nlocpool, locations, nlocations * sizeof *locations);
    if (nvalues) memcpy(b->valpool + b->nvalpool, values, nvalues * sizeof *values);
    b->samples[b->nsamples++] = (sample_rec){b->nlocpool, nlocations, b->nvalpool};
    b->nlocpool += nlocations, b->nvalpool += nvalues;
    return 0;
}

/* ---- encoding ---- */

/* The message structs of one encoding, allocated together and freed together. */
typedef struct msgs {
    HpPprof__ValueType *types, period_type; HpPprof__ValueType **ptypes;
    HpPprof__Sample *samples; HpPprof__Sample **psamples;
    HpPprof__Mapping *maps; HpPprof__Mapping **pmaps;
    HpPprof__Location *locs; HpPprof__Location **plocs;
    HpPprof__Line *lines; HpPprof__Line **plines;
    HpPprof__Function *funcs; HpPprof__Function **pfuncs;
} msgs;

static void msgs_free(msgs *m)
{
    free(m->types), free(m->ptypes), free(m->samples), free(m->psamples), free(m->maps), free(m->pmaps);
    free(m->locs), free(m->plocs), free(m->lines), free(m->plines), free(m->funcs), free(m->pfuncs);
}

static int msgs_alloc(msgs *m, const hp_pprof *b)
{
#define ALLOC(f, n) (m->f = calloc((n) + 1, sizeof *m->f)) == NULL
    if (ALLOC(types, b->ntypes) || ALLOC(ptypes, b->ntypes) || ALLOC(samples, b->nsamples) ||
        ALLOC(psamples, b->nsamples) || ALLOC(maps, b->nmaps) || ALLOC(pmaps, b->nmaps) || ALLOC(locs, b->nlocs) ||
        ALLOC(plocs, b->nlocs) || ALLOC(lines, b->nlocs) || ALLOC(plines, b->nlocs) || ALLOC(funcs, b->nfuncs) ||
        ALLOC(pfuncs, b->nfuncs))
        return -1;
#undef ALLOC
    return 0;
}

static void fill_types(msgs *m, const hp_pprof *b)
{
    for (size_t i = 0; i < b->ntypes; i++) {
        hp_pprof__value_type__init(&m->types[i]);
        m->types[i].type = b->types[i].type, m->types[i].unit = b->types[i].unit;
        m->ptypes[i] = &m->types[i];
    }
    hp_pprof__value_type__init(&m->period_type);
    m->period_type.type = b->period_type.type, m->period_type.unit = b->period_type.unit;
}

static void fill_samples(msgs *m, const hp_pprof *b)
{
    for (size_t i = 0; i < b->nsamples; i++) {
        HpPprof__Sample *s = &m->samples[i];
        hp_pprof__sample__init(s);
        s->n_location_id = b->samples[i].nloc, s->location_id = b->locpool + b->samples[i].loc_off;
        s->n_value = b->ntypes, s->value = b->valpool + b->samples[i].val_off;
        m->psamples[i] = s;
    }
}

static void fill_maps(msgs *m, const hp_pprof *b)
{
    for (size_t i = 0; i < b->nmaps; i++) {
        HpPprof__Mapping *x = &m->maps[i];
        const map_rec *r = &b->maps[i];
        hp_pprof__mapping__init(x);
        x->id = i + 1, x->memory_start = r->d.start, x->memory_limit = r->d.limit, x->file_offset = r->d.offset;
        x->filename = r->filename, x->build_id = r->build_id;
        x->has_functions = r->d.has_functions, x->has_filenames = r->d.has_filenames;
        x->has_line_numbers = r->d.has_line_numbers;
        m->pmaps[i] = x;
    }
}

static void fill_locs(msgs *m, const hp_pprof *b)
{
    for (size_t i = 0; i < b->nlocs; i++) {
        HpPprof__Location *x = &m->locs[i];
        const loc_rec *r = &b->locs[i];
        hp_pprof__location__init(x);
        x->id = i + 1, x->mapping_id = r->mapping, x->address = r->address;
        if (r->function) {
            hp_pprof__line__init(&m->lines[i]);
            m->lines[i].function_id = r->function, m->lines[i].line = r->line;
            m->plines[i] = &m->lines[i];
            x->n_line = 1, x->line = &m->plines[i];
        }
        m->plocs[i] = x;
    }
}

static void fill_funcs(msgs *m, const hp_pprof *b)
{
    for (size_t i = 0; i < b->nfuncs; i++) {
        HpPprof__Function *x = &m->funcs[i];
        const func_rec *r = &b->funcs[i];
        hp_pprof__function__init(x);
        x->id = i + 1, x->name = r->name, x->system_name = r->system_name, x->filename = r->filename;
        x->start_line = r->start_line;
        m->pfuncs[i] = x;
    }
}

int hp_pprof_encode(const hp_pprof *b, uint8_t **out, size_t *len)
{
    msgs m = {0};
    HpPprof__Profile p = HP_PPROF__PROFILE__INIT;
    int rc = -1;
    *out = NULL, *len = 0;
    if (msgs_alloc(&m, b) == 0) {
        fill_types(&m, b), fill_samples(&m, b), fill_maps(&m, b), fill_locs(&m, b), fill_funcs(&m, b);
        p.n_sample_type = b->ntypes, p.sample_type = m.ptypes;
        p.n_sample = b->nsamples, p.sample = m.psamples;
        p.n_mapping = b->nmaps, p.mapping = m.pmaps;
        p.n_location = b->nlocs, p.location = m.plocs;
        p.n_function = b->nfuncs, p.function = m.pfuncs;
        p.n_string_table = b->nstrs, p.string_table = b->strs;
        p.period_type = &m.period_type, p.period = b->period;
        p.n_comment = b->ncomments, p.comment = b->comments;
        p.default_sample_type = b->default_type, p.time_nanos = b->time_nanos;
        size_t n = hp_pprof__profile__get_packed_size(&p);
        if ((*out = malloc(n + 1)) != NULL) *len = hp_pprof__profile__pack(&p, *out), rc = 0;
    }
    msgs_free(&m);
    return rc;
}
