/* scopes.c — indexes of units and function scopes for the symbolizer (scopes.h).
 *
 * A module index: its Dwarf, its bias and the address ranges of its units (sorted by start).
 * A unit index, built on the first address in the unit by one walk of its DIE tree: the nodes
 * (every subprogram and inlined subroutine that has code: its DIE offset, its enclosing inlined
 * node and its subprogram), the subprograms' ranges sorted by start, and the inlined ranges sorted
 * by (subprogram, start) so that each subprogram's are one run (node.first, node.count).
 * The walk descends only into DIEs that can hold code scopes (units, namespaces, classes, lexical
 * blocks, subprograms, inlined subroutines) and not into a subprogram without code (an abstract
 * instance: its children have no addresses).
 */
#define _GNU_SOURCE /* qsort_r */
#include "analysis/scopes.h"
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define WALK_MAX_DEPTH 256

typedef struct scope_range { uint64_t lo, hi; uint32_t node; } scope_range;
typedef struct scope_node {
    Dwarf_Off off;
    int32_t parent;        /* the enclosing inlined node, -1 when the subprogram encloses it */
    uint32_t func;         /* the subprogram node (itself for a subprogram) */
    uint32_t depth;        /* 0 for a subprogram, 1 + the parent's for an inlined subroutine */
    size_t first, count;   /* subprogram: its run of inlined ranges */
} scope_node;

typedef struct range_vec { scope_range *v; size_t n, cap; } range_vec;

typedef struct unit_index {
    Dwarf_Off cu_off;
    int state; /* 0 not built, 1 built, -1 could not be built */
    scope_node *nodes;
    size_t nnodes, capnodes;
    range_vec funcs, inl;
} unit_index;

typedef struct module_index {
    Dwfl_Module *mod;
    Dwarf *dw;           /* NULL: no DWARF */
    Dwarf_Addr bias;
    unit_index *units;
    size_t nunits;
    range_vec ranges;    /* .node = the unit */
} module_index;

struct hp_scope_index { module_index *mods; size_t nmods; };

hp_scope_index *hp_scope_index_new(void) { return calloc(1, sizeof(hp_scope_index)); }

static void unit_free(unit_index *u)
{
    free(u->nodes);
    free(u->funcs.v);
    free(u->inl.v);
}

void hp_scope_index_free(hp_scope_index *x)
{
    if (!x) return;
    for (size_t i = 0; i < x->nmods; i++) {
        for (size_t k = 0; k < x->mods[i].nunits; k++) unit_free(&x->mods[i].units[k]);
        free(x->mods[i].units);
        free(x->mods[i].ranges.v);
    }
    free(x->mods);
    free(x);
}

static int push_range(range_vec *r, uint64_t lo, uint64_t hi, uint32_t node)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        scope_range *v = realloc(r->v, cap * sizeof *v);
        if (!v) return -1;
        r->v = v, r->cap = cap;
    }
    r->v[r->n++] = (scope_range){lo, hi, node};
    return 0;
}

static int cmp_lo(const void *a, const void *b)
{
    const scope_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : x->node < y->node ? -1 : x->node > y->node;
}

/* Index of the last range starting at or before a, or (size_t)-1. */
static size_t last_at_or_before(const scope_range *v, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].lo <= a) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* ---- modules and units ---- */

static int add_unit(module_index *m, Dwarf_Die *cudie)
{
    unit_index *u = realloc(m->units, (m->nunits + 1) * sizeof *u);
    if (!u) return -1;
    m->units = u;
    m->units[m->nunits] = (unit_index){.cu_off = dwarf_dieoffset(cudie)};
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(cudie, off, &base, &start, &end)) > 0)
        if (start < end && push_range(&m->ranges, start, end, (uint32_t)m->nunits)) return -1;
    m->nunits++;
    return 0;
}

static void build_module(module_index *m)
{
    m->dw = dwfl_module_getdwarf(m->mod, &m->bias);
    if (!m->dw) return;
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    uint8_t unit_type;
    while (dwarf_get_units(m->dw, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0)
        if ((unit_type == DW_UT_compile || unit_type == DW_UT_partial) && add_unit(m, &cudie)) {
            m->dw = NULL; /* out of memory: this module answers nothing */
            return;
        }
    if (m->ranges.n > 1) qsort(m->ranges.v, m->ranges.n, sizeof *m->ranges.v, cmp_lo);
}

static module_index *module_of(hp_scope_index *x, Dwfl_Module *mod)
{
    for (size_t i = 0; i < x->nmods; i++)
        if (x->mods[i].mod == mod) return &x->mods[i];
    module_index *v = realloc(x->mods, (x->nmods + 1) * sizeof *v);
    if (!v) return NULL;
    x->mods = v;
    module_index *m = &x->mods[x->nmods++];
    *m = (module_index){.mod = mod};
    build_module(m);
    return m;
}

/* The unit holding a (a DWARF address), or NULL. */
static unit_index *unit_at(module_index *m, uint64_t a)
{
    size_t i = last_at_or_before(m->ranges.v, m->ranges.n, a);
    for (size_t k = 0; k < 8 && i != (size_t)-1; k++, i--) /* units' ranges may interleave */
        if (a < m->ranges.v[i].hi) return &m->units[m->ranges.v[i].node];
    return NULL;
}

int hp_scope_unit(hp_scope_index *x, Dwfl_Module *mod, uint64_t addr, Dwarf_Die *cudie, Dwarf_Addr *bias)
{
    module_index *m = x ? module_of(x, mod) : NULL;
    if (!m || !m->dw) return 0;
    unit_index *u = unit_at(m, addr - m->bias);
    if (!u || !dwarf_offdie(m->dw, u->cu_off, cudie)) return 0;
    *bias = m->bias;
    return 1;
}

/* ---- one walk of a unit's DIE tree ---- */

static int descends(int tag)
{
    switch (tag) {
    case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type: case DW_TAG_union_type:
    case DW_TAG_lexical_block: case DW_TAG_subprogram: case DW_TAG_inlined_subroutine: case DW_TAG_module:
        return 1;
    default:
        return 0;
    }
}

/* Adds die as a node with its ranges; 1 if it has code, 0 if not, -1 out of memory. */
static int add_scope(unit_index *u, Dwarf_Die *die, int is_func, int32_t func, int32_t parent)
{
    if (u->nnodes == u->capnodes) {
        size_t cap = u->capnodes ? u->capnodes * 2 : 64;
        scope_node *v = realloc(u->nodes, cap * sizeof *v);
        if (!v) return -1;
        u->nodes = v, u->capnodes = cap;
    }
    uint32_t id = (uint32_t)u->nnodes;
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    int ranges = 0;
    while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
        if (start >= end) continue;
        if (push_range(is_func ? &u->funcs : &u->inl, start, end, id)) return -1;
        ranges++;
    }
    if (!ranges) return 0;
    uint32_t depth = is_func || parent < 0 ? (is_func ? 0 : 1) : u->nodes[parent].depth + 1;
    u->nodes[u->nnodes++] = (scope_node){dwarf_dieoffset(die), is_func ? -1 : parent,
                                         is_func ? id : (uint32_t)func, depth, 0, 0};
    return 1;
}

static int walk(unit_index *u, Dwarf_Die *parent_die, int32_t func, int32_t inl, int depth)
{
    Dwarf_Die child;
    if (depth > WALK_MAX_DEPTH || dwarf_child(parent_die, &child) != 0) return 0;
    do {
        int tag = dwarf_tag(&child);
        int32_t f = func, in = inl;
        if (tag == DW_TAG_subprogram || (tag == DW_TAG_inlined_subroutine && func >= 0)) {
            int is_func = tag == DW_TAG_subprogram;
            int rc = add_scope(u, &child, is_func, func, inl);
            if (rc < 0) return -1;
            if (rc == 0) continue; /* no code: an abstract instance or a declaration */
            f = is_func ? (int32_t)(u->nnodes - 1) : func;
            in = is_func ? -1 : (int32_t)(u->nnodes - 1);
        } else if (!descends(tag)) {
            continue;
        }
        if (dwarf_haschildren(&child) && walk(u, &child, f, in, depth + 1)) return -1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int cmp_func_lo(const void *a, const void *b, void *arg)
{
    const scope_node *nodes = arg;
    const scope_range *x = a, *y = b;
    uint32_t fx = nodes[x->node].func, fy = nodes[y->node].func;
    if (fx != fy) return fx < fy ? -1 : 1;
    return cmp_lo(a, b);
}

static void build_unit(module_index *m, unit_index *u)
{
    Dwarf_Die cudie;
    u->state = -1;
    if (!dwarf_offdie(m->dw, u->cu_off, &cudie) || walk(u, &cudie, -1, -1, 0)) return;
    if (u->funcs.n > 1) qsort(u->funcs.v, u->funcs.n, sizeof *u->funcs.v, cmp_lo); /* never a NULL array */
    if (u->inl.n > 1) qsort_r(u->inl.v, u->inl.n, sizeof *u->inl.v, cmp_func_lo, u->nodes);
    for (size_t i = 0; i < u->inl.n; i++) {
        scope_node *f = &u->nodes[u->nodes[u->inl.v[i].node].func];
        if (!f->count) f->first = i;
        f->count++;
    }
    u->state = 1;
}

/* ---- lookup ---- */

/* The innermost node holding a: the deepest inlined range of its subprogram, else the subprogram;
 * -1 if no subprogram holds it. */
static int32_t innermost(const unit_index *u, uint64_t a)
{
    size_t i = last_at_or_before(u->funcs.v, u->funcs.n, a);
    int32_t best = -1;
    for (size_t k = 0; k < 8 && i != (size_t)-1 && best < 0; k++, i--)
        if (a < u->funcs.v[i].hi) best = (int32_t)u->funcs.v[i].node;
    if (best < 0) return -1;
    const scope_node *f = &u->nodes[best];
    for (size_t k = f->first; k < f->first + f->count && u->inl.v[k].lo <= a; k++) {
        const scope_range *r = &u->inl.v[k];
        if (a < r->hi && u->nodes[r->node].depth > u->nodes[best].depth) best = (int32_t)r->node;
    }
    return best;
}

static int die_udata(Dwarf_Die *die, int name)
{
    Dwarf_Attribute attr;
    Dwarf_Word w = 0;
    if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &w) != 0) return 0;
    return w > 0 && w < (1u << 30) ? (int)w : 0;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    return name ? name : "?";
}

/* The inline chain from node n up (outermost first, the outermost kept when it is too long). */
static void fill_chain(module_index *m, const unit_index *u, int32_t n, hp_scope_hit *hit)
{
    int32_t chain[64];
    int len = 0;
    for (int32_t k = n; k >= 0 && len < 64 && u->nodes[k].depth > 0; k = u->nodes[k].parent) chain[len++] = k;
    for (int i = len - 1; i >= 0 && hit->ninlined < HP_SCOPE_CHAIN_MAX; i--) {
        Dwarf_Die die;
        if (!dwarf_offdie(m->dw, u->nodes[chain[i]].off, &die)) break;
        if (i == len - 1) hit->call_line = die_udata(&die, DW_AT_call_line);
        hit->inlined[hit->ninlined++] = die_name(&die);
    }
}

int hp_scope_find(hp_scope_index *x, Dwfl_Module *mod, uint64_t addr, hp_scope_hit *hit)
{
    memset(hit, 0, sizeof *hit);
    module_index *m = x ? module_of(x, mod) : NULL;
    if (!m || !m->dw) return 0;
    uint64_t a = addr - m->bias;
    unit_index *u = unit_at(m, a);
    if (!u) return 0;
    if (u->state == 0) build_unit(m, u);
    int32_t n = u->state == 1 ? innermost(u, a) : -1;
    Dwarf_Die die;
    if (n < 0 || !dwarf_offdie(m->dw, u->nodes[n].off, &die)) return 0;
    fill_chain(m, u, n, hit);
    if (dwarf_decl_line(&die, &hit->decl_line) != 0) hit->decl_line = 0;
    hit->decl_file = dwarf_decl_file(&die);
    return 1;
}
