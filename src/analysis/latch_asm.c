/* latch_asm.c — the latch's own branch as the site: the assembly rewrite of latch_asm.h.
 *
 * Two passes over the lines of the file. The first finds the back-edge nop sites (an #APP block
 * that is exactly the plugin's site text), the labels standing for each site's block (scanning back
 * over comments, .loc and .cfi lines only) and its continuation (scanning forward the same way:
 * a `jmp X` gives X, else the first label, else one is made). The second copies the lines,
 * rewriting every jmp/jcc outside #APP blocks whose operand is one of those labels. Between the two,
 * place_pads finds where each continuation's latch pad and its guard go (latch_asm.h).
 * Invariants: latch_asm.h. No line is dropped; lines are copied byte for byte.
 */
#include "analysis/latch_asm.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct span { const char *s; size_t n; } span;

typedef struct site {
    size_t noapp;  /* line of its #NO_APP */
    size_t section; /* line of its record's .pushsection */
    span cont;     /* continuation label (n == 0: made after #NO_APP as .Lhp_cont_<index>) */
    span label;    /* a label of its block (n == 0: made before #APP as .Lhp_site_<index>) */
    size_t pad;    /* index + 1 of the site whose latch pad it uses, or 0: none */
    span target;   /* its record's target line (`.long <label> - .`): sites of one pad share it */
    size_t next;   /* index + 1 of the next site whose detached pad goes before the same line, or 0 */
} site;

/* A label name and what it stands for: a site's index (aliases) or its defining line (defs). */
typedef struct named { span name; size_t index; } named;

typedef struct asm_file {
    span *lines;
    size_t nlines;
    site *sites;
    size_t nsites;
    named *aliases;  /* the labels of the sites' blocks, sorted by name */
    size_t naliases;
    named *defs;     /* every label defined outside #APP blocks, sorted by name */
    size_t ndefs;
    unsigned char *in_app; /* per line: inside an #APP block (its markers included) */
    size_t *made_after;    /* per line: index + 1 of the site whose continuation follows it, or 0 */
    size_t *made_before;   /* per line: index + 1 of the site whose made label precedes it, or 0 */
    size_t *falls;         /* per line: index + 1 of the site this instruction falls through into, or 0 */
    size_t *pad_before;    /* per line: index + 1 of the site whose latch pad is written before it, or 0 */
    size_t *guard_before;  /* per line: index + 1 of the site whose pad's guard is written before it, or 0 */
    size_t *detached;      /* per line (a function's end): index + 1 of the first site whose detached pad goes before it */
    unsigned char *guarded; /* per site: its pad (if it is the pad's owner) has a guard */
} asm_file;

static span trim(span l)
{
    while (l.n && (*l.s == ' ' || *l.s == '\t')) l.s++, l.n--;
    while (l.n && (l.s[l.n - 1] == ' ' || l.s[l.n - 1] == '\t' || l.s[l.n - 1] == '\r')) l.n--;
    return l;
}

static int is(span l, const char *text) { return l.n == strlen(text) && !memcmp(l.s, text, l.n); }
static int starts(span l, const char *text) { return l.n >= strlen(text) && !memcmp(l.s, text, strlen(text)); }

static int label_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '$';
}

/* `name:` (then nothing, or a comment): the name. Numeric local labels are not names. */
static int label_of(span l, span *name)
{
    l = trim(l);
    size_t i = 0;
    while (i < l.n && label_char(l.s[i])) i++;
    if (!i || i >= l.n || l.s[i] != ':' || (l.s[0] >= '0' && l.s[0] <= '9')) return 0;
    span rest = trim((span){l.s + i + 1, l.n - i - 1});
    if (rest.n && rest.s[0] != '#') return 0;
    *name = (span){l.s, i};
    return 1;
}

/* Lines that emit nothing at a label's address: blank, comments (not #APP/#NO_APP), .loc, .cfi_*. */
static int is_neutral(span l)
{
    l = trim(l);
    if (!l.n) return 1;
    if (l.s[0] == '#') return !starts(l, "#APP") && !starts(l, "#NO_APP");
    return starts(l, ".loc\t") || starts(l, ".loc ") || starts(l, ".cfi_");
}

int hp_latch_asm_cc(const char *m, size_t n)
{
    static const struct { const char *name; int cc; } ccs[] = {
        {"jo", 0},   {"jno", 1},   {"jb", 2},   {"jc", 2},   {"jnae", 2}, {"jae", 3},  {"jnb", 3},  {"jnc", 3},
        {"je", 4},   {"jz", 4},    {"jne", 5},  {"jnz", 5},  {"jbe", 6},  {"jna", 6},  {"ja", 7},   {"jnbe", 7},
        {"js", 8},   {"jns", 9},   {"jp", 10},  {"jpe", 10}, {"jnp", 11}, {"jpo", 11}, {"jl", 12},  {"jnge", 12},
        {"jge", 13}, {"jnl", 13},  {"jle", 14}, {"jng", 14}, {"jg", 15},  {"jnle", 15}};
    for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++)
        if (strlen(ccs[i].name) == n && !memcmp(ccs[i].name, m, n)) return ccs[i].cc;
    return -1;
}

/* `jmp LABEL` or `j<cc> LABEL` (then nothing, or a comment): its mnemonic and label. */
static int branch_of(span l, span *mn, span *target)
{
    l = trim(l);
    size_t i = 0;
    while (i < l.n && l.s[i] >= 'a' && l.s[i] <= 'z') i++;
    if (i < 2 || l.s[0] != 'j' || i == l.n || (l.s[i] != ' ' && l.s[i] != '\t')) return 0;
    if (!(i == 3 && !memcmp(l.s, "jmp", 3)) && hp_latch_asm_cc(l.s, i) < 0) return 0;
    span op = trim((span){l.s + i, l.n - i});
    size_t k = 0;
    while (k < op.n && label_char(op.s[k])) k++;
    if (!k || (op.s[0] >= '0' && op.s[0] <= '9')) return 0;
    span rest = trim((span){op.s + k, op.n - k});
    if (rest.n && rest.s[0] != '#') return 0;
    *mn = (span){l.s, i};
    *target = (span){op.s, k};
    return 1;
}

/* Lines app+1 .. noapp-1 are exactly the plugin's back-edge nop site; *section: its .pushsection,
 * *target: its record's target line. */
static int is_backedge_site(const asm_file *f, size_t app, size_t noapp, size_t *section, span *target)
{
    static const char *const want[] = {".p2align 3,0x2e,4", "1: .byte 0x0f,0x1f,0x44,0x00,0x00",
                                       ".pushsection __hotprof_dual,", ".balign 4", ".long 1b - .", ".long ",
                                       ".long 1", ".long 0", ".popsection"};
    size_t k = 0;
    for (size_t i = app + 1; i < noapp; i++) {
        span l = trim(f->lines[i]);
        if (!l.n) continue;
        if (k == 9) return 0;
        int prefix = k == 2 || k == 5;
        if (prefix ? !starts(l, want[k]) : !is(l, want[k])) return 0;
        if (k == 2) *section = i;
        if (k == 5) *target = l;
        k++;
    }
    return k == 9;
}

static int cmp_span(span a, span b)
{
    int c = memcmp(a.s, b.s, a.n < b.n ? a.n : b.n);
    return c ? c : (a.n > b.n) - (a.n < b.n);
}

static int cmp_named(const void *a, const void *b) { return cmp_span(((const named *)a)->name, ((const named *)b)->name); }

static const named *find_named(const named *v, size_t n, span name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = cmp_span(v[mid].name, name);
        if (!c) return &v[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* The labels right before line app (nothing emitted between): aliases of site s, the first one
 * found in *first. Returns the line before them (SIZE_MAX: none). */
static size_t add_aliases(asm_file *f, size_t app, size_t s, span *first)
{
    for (size_t i = app; i-- > 0;) {
        span name;
        if (label_of(f->lines[i], &name)) {
            f->aliases[f->naliases++] = (named){name, s};
            if (!first->n) *first = name;
        } else if (!is_neutral(f->lines[i])) {
            return i;
        }
    }
    return SIZE_MAX;
}

/* An instruction that goes on to the next line: 1 a jcc to a label, 2 anything else but jmp, ret
 * and ud2; 0 for those, directives and assembly blocks. */
static int falls_through(span l)
{
    span mn, target;
    if (l.n == 0 || l.s[0] != '\t') return 0;
    l = trim(l);
    if (!l.n || l.s[0] < 'a' || l.s[0] > 'z') return 0;
    if (branch_of(l, &mn, &target)) return hp_latch_asm_cc(mn.s, mn.n) >= 0 ? 1 : 0;
    if (l.s[0] == 'j' || starts(l, "ret") || starts(l, "ud2")) return 0; /* (a jmp or jcc elsewhere) */
    return 2;
}

/* The continuation of the site ending at line noapp: a jmp's target, or the first label after it. */
static span continuation(const asm_file *f, size_t noapp)
{
    span first = {NULL, 0}, name, mn, target;
    size_t i = noapp + 1;
    for (; i < f->nlines; i++) {
        if (label_of(f->lines[i], &name)) {
            if (!first.n) first = name;
        } else if (!is_neutral(f->lines[i])) {
            break;
        }
    }
    if (i < f->nlines && branch_of(f->lines[i], &mn, &target) && mn.n == 3 && !memcmp(mn.s, "jmp", 3)) return target;
    return first;
}

static int split_lines(asm_file *f, const char *text, size_t len)
{
    size_t n = 1;
    for (size_t i = 0; i < len; i++) n += text[i] == '\n';
    f->lines = malloc(n * sizeof *f->lines);
    f->in_app = calloc(n, 1);
    f->made_after = calloc(n, sizeof *f->made_after);
    f->made_before = calloc(n, sizeof *f->made_before);
    f->falls = calloc(n, sizeof *f->falls);
    f->pad_before = calloc(n, sizeof *f->pad_before);
    f->guard_before = calloc(n, sizeof *f->guard_before);
    f->detached = calloc(n, sizeof *f->detached);
    if (!f->lines || !f->in_app || !f->made_after || !f->made_before || !f->falls || !f->pad_before ||
        !f->guard_before || !f->detached)
        return -1;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        f->lines[f->nlines++] = (span){text + at, end - at};
        at = end + 1;
    }
    return 0;
}

/* First pass: the sites, their aliases (sorted) and continuations; which lines are in #APP. */
static int find_sites(asm_file *f)
{
    f->sites = malloc((f->nlines + 1) * sizeof *f->sites);
    f->aliases = malloc((f->nlines + 1) * sizeof *f->aliases);
    f->defs = malloc((f->nlines + 1) * sizeof *f->defs);
    f->guarded = calloc(f->nlines + 1, 1);
    if (!f->sites || !f->aliases || !f->defs || !f->guarded) return -1;
    for (size_t i = 0; i < f->nlines; i++) {
        if (!starts(trim(f->lines[i]), "#APP")) continue;
        size_t j = i + 1;
        while (j < f->nlines && !starts(trim(f->lines[j]), "#NO_APP")) j++;
        if (j == f->nlines) break; /* (an unclosed block: copied as it is) */
        memset(f->in_app + i, 1, j - i + 1);
        site s = {j, 0, {NULL, 0}, {NULL, 0}, 0, {NULL, 0}, 0};
        if (is_backedge_site(f, i, j, &s.section, &s.target)) {
            size_t before = add_aliases(f, i, f->nsites, &s.label);
            int falls = before != SIZE_MAX && !f->in_app[before] && falls_through(f->lines[before]);
            if (falls) f->falls[before] = f->nsites + 1;
            if (!s.label.n) f->made_before[i] = f->nsites + 1;
            s.cont = continuation(f, j);
            if (!s.cont.n) f->made_after[j] = f->nsites + 1;
            f->sites[f->nsites++] = s;
        }
        i = j;
    }
    qsort(f->aliases, f->naliases, sizeof *f->aliases, cmp_named);
    span name;
    for (size_t i = 0; i < f->nlines; i++)
        if (!f->in_app[i] && label_of(f->lines[i], &name)) f->defs[f->ndefs++] = (named){name, i};
    qsort(f->defs, f->ndefs, sizeof *f->defs, cmp_named);
    return 0;
}

/* The first line of the labels (.L ones only: never a function's own symbol) and neutral lines
 * that end at line i: where a latch pad before the label defined at line i goes. */
static size_t group_start(const asm_file *f, size_t i)
{
    span name;
    while (i > 0 && !f->in_app[i - 1] &&
           (is_neutral(f->lines[i - 1]) || (label_of(f->lines[i - 1], &name) && starts(name, ".L"))))
        i--;
    return i;
}

static int is_align(span l) { return starts(trim(l), ".p2align") || starts(trim(l), ".balign"); }

/* An instruction after which nothing runs the next line: jmp, ret, ud2. */
static int ends_flow(span l)
{
    if (!l.n || l.s[0] != '\t') return 0;
    l = trim(l);
    return starts(l, "jmp") || starts(l, "ret") || starts(l, "ud2");
}

/* Pad `id` goes before line g (its continuation's labels): its guard goes before the alignment
 * right above them (the code generator's), unless what comes before cannot fall through. */
static void place_guard(asm_file *f, size_t g, size_t id)
{
    size_t x = g > 0 && !f->in_app[g - 1] && is_align(f->lines[g - 1]) ? g - 1 : g, i = x;
    while (i > 0 && !f->in_app[i - 1] && (is_neutral(f->lines[i - 1]) || is_align(f->lines[i - 1]))) i--;
    if (i > 0 && !f->in_app[i - 1] && ends_flow(f->lines[i - 1])) return;
    f->guard_before[x] = id + 1;
    f->guarded[id] = 1;
}

/* Each site's latch pad: one per continuation address for the sites of one target (sites whose
 * continuations are one label, or labels of one place, share it), written right before the
 * continuation's labels, with its guard where something may fall into it; a site with another
 * target gets a detached pad of its own at its function's end (before LLVM's .Lfunc_end label:
 * out of the hot code, nothing falls into it), which ends in a `jmp C`; a made continuation gets
 * its own (guarded: the site's nop falls into it) before its made label. A continuation not
 * defined here as a .L label gets none. */
static void place_pads(asm_file *f)
{
    for (size_t s = 0; s < f->nsites; s++) {
        site *x = &f->sites[s];
        if (!x->cont.n) {
            x->pad = s + 1;
            f->guarded[s] = 1;
            continue;
        }
        const named *d = find_named(f->defs, f->ndefs, x->cont);
        if (!d || !starts(x->cont, ".L")) continue;
        size_t g = group_start(f, d->index);
        if (!f->pad_before[g]) {
            f->pad_before[g] = s + 1;
            place_guard(f, g, s);
        }
        x->pad = f->pad_before[g];
        if (cmp_span(f->sites[x->pad - 1].target, x->target) == 0) continue;
        x->pad = 0; /* another target than the pad's: a pad of its own at its function's end */
        size_t end = x->noapp;
        while (end < f->nlines && !starts(trim(f->lines[end]), ".Lfunc_end")) end++;
        if (end == f->nlines) continue;
        x->next = f->detached[end], f->detached[end] = s + 1, x->pad = s + 1;
    }
}

static void put_span(FILE *out, span s) { fwrite(s.s, 1, s.n, out); }


static void put_label(FILE *out, span name, const char *made, size_t index)
{
    if (name.n) put_span(out, name);
    else fprintf(out, "%s%zu", made, index);
}

/* A jcc (cc >= 0) or jmp with a rel32 to site si's continuation, and its record naming `on` (a
 * label of the site's block; n == 0: its made label) as where it goes while sites are on. */
static void put_branch(FILE *out, const asm_file *f, int cc, size_t si, span on, size_t id)
{
    const site *s = &f->sites[si];
    if (cc < 0) fprintf(out, "\t.p2align 3,0x3e,4\n\t.byte 0xe9\n");
    else fprintf(out, "\t.p2align 3,0x3e,5\n\t.byte 0x0f,0x%02x\n", 0x80 + cc);
    fprintf(out, ".Lhp_br_%zu:\n\t.long ", id);
    put_label(out, s->cont, ".Lhp_cont_", si);
    fprintf(out, "-.Lhp_br_%zu-4\n", id);
    span sec = trim(f->lines[s->section]);
    size_t head = strlen(".pushsection __hotprof_dual");
    fprintf(out, "\t.pushsection __hotprof_dualbr");
    put_span(out, (span){sec.s + head, sec.n - head});
    fprintf(out, "\n\t.balign 4\n\t.long .Lhp_br_%zu-.\n\t.long ", id);
    put_label(out, on, ".Lhp_site_", si);
    fprintf(out, "-.\n\t.long ");
    put_label(out, s->cont, ".Lhp_cont_", si);
    if (!s->pad) fprintf(out, "-.\n\t.long 0\n\t.popsection\n");
    else fprintf(out, "-.\n\t.long .Lhp_pad%s_%zu-.\n\t.popsection\n", f->guarded[s->pad - 1] ? "x" : "", s->pad - 1);
}

/* The latch pad of site id (latch_asm.h): 16-byte aligned, the nops count mode rewrites. */
static void put_pad(FILE *out, size_t id, hp_latch_asm_stats *st)
{
    fprintf(out, "\t.p2align 4\n.Lhp_pad_%zu:\n\t.byte %s\n", id, HP_LATCH_ASM_PAD_BYTES);
    st->pads++;
}

/* `jmp C`, C site id's continuation. */
static void put_jmp_cont(FILE *out, const asm_file *f, size_t id)
{
    fprintf(out, "\tjmp\t");
    put_label(out, f->sites[id].cont, ".Lhp_cont_", id);
    fputc('\n', out);
}

/* The detached pad of site id: aligned, then `jmp C`. */
static void put_detached_pad(FILE *out, const asm_file *f, size_t id, hp_latch_asm_stats *st)
{
    put_pad(out, id, st);
    put_jmp_cont(out, f, id);
}

/* The guard of pad id: `jmp C` over the alignment and the pad (a 2-byte jmp: C is near). */
static void put_guard(FILE *out, const asm_file *f, size_t id)
{
    fprintf(out, ".Lhp_padx_%zu:\n", id);
    put_jmp_cont(out, f, id);
}

/* Line i falls through into site si: a jcc X becomes j!cc to the site's continuation (switched)
 * and jmp X; any other instruction is followed by a switched jmp to the continuation. */
static void put_fall(FILE *out, const asm_file *f, size_t i, size_t si, size_t id)
{
    span mn, target;
    const site *s = &f->sites[si];
    if (branch_of(f->lines[i], &mn, &target)) {
        put_branch(out, f, hp_latch_asm_cc(mn.s, mn.n) ^ 1, si, s->label, id);
        fprintf(out, "\tjmp\t");
        put_span(out, target);
        fputc('\n', out);
        return;
    }
    put_span(out, f->lines[i]);
    fputc('\n', out);
    put_branch(out, f, -1, si, s->label, id);
}

/* `.section NAME,"..G..o..",@TYPE,GROUP,comdat,LINKED` (LLVM's order for a link-order section in a
 * group, e.g. __patchable_function_entries of a comdat function with -fbinutils-version >= 2.35)
 * as GNU as wants it: `...,@TYPE,LINKED,GROUP,comdat`. 1 if written. */
static int put_section_for_gas(FILE *out, span l)
{
    span t = trim(l), f[6];
    if (!starts(t, ".section")) return 0;
    size_t nf = 0, from = 0;
    int quoted = 0;
    for (size_t i = 0; i <= t.n && nf < 6; i++) {
        if (i < t.n && t.s[i] == '"') quoted = !quoted;
        if (i == t.n || (t.s[i] == ',' && !quoted)) f[nf++] = trim((span){t.s + from, i - from}), from = i + 1;
    }
    if (nf != 6 || from <= t.n || !is(f[4], "comdat") || !memchr(f[1].s, 'G', f[1].n) || !memchr(f[1].s, 'o', f[1].n))
        return 0;
    fputc('\t', out);
    span order[6] = {f[0], f[1], f[2], f[5], f[3], f[4]};
    for (int i = 0; i < 6; i++) {
        if (i) fputc(',', out);
        put_span(out, order[i]);
    }
    fputc('\n', out);
    return 1;
}

/* Second pass (every line ends with a newline, the last one too). */
static void write_lines(FILE *out, const asm_file *f, hp_latch_asm_stats *st, unsigned char *hit)
{
    for (size_t i = 0; i < f->nlines; i++) {
        span mn, target;
        const named *a = NULL;
        for (size_t d = f->detached[i]; d; d = f->sites[d - 1].next) put_detached_pad(out, f, d - 1, st);
        if (f->guard_before[i]) put_guard(out, f, f->guard_before[i] - 1);
        if (f->pad_before[i]) put_pad(out, f->pad_before[i] - 1, st);
        if (f->made_before[i]) fprintf(out, ".Lhp_site_%zu:\n", f->made_before[i] - 1);
        if (!f->in_app[i] && branch_of(f->lines[i], &mn, &target)) a = find_named(f->aliases, f->naliases, target);
        if (f->falls[i]) {
            put_fall(out, f, i, f->falls[i] - 1, st->branches++);
            hit[f->falls[i] - 1] = 1;
        } else if (a) {
            put_branch(out, f, hp_latch_asm_cc(mn.s, mn.n), a->index, a->name, st->branches++);
            hit[a->index] = 1;
        } else if (f->in_app[i] || !put_section_for_gas(out, f->lines[i])) {
            put_span(out, f->lines[i]);
            fputc('\n', out);
        }
        if (f->made_after[i]) {
            if (f->sites[f->made_after[i] - 1].pad) {
                put_guard(out, f, f->made_after[i] - 1);
                put_pad(out, f->made_after[i] - 1, st);
            }
            fprintf(out, ".Lhp_cont_%zu:\n", f->made_after[i] - 1);
            st->conts_made++;
        }
    }
}

int hp_latch_asm_rewrite(const char *text, size_t len, FILE *out, int pads, hp_latch_asm_stats *stats)
{
    hp_latch_asm_stats st = {0, 0, 0, 0, 0};
    asm_file f;
    memset(&f, 0, sizeof f);
    unsigned char *hit = NULL;
    int rc = -1;
    if (split_lines(&f, text, len) == 0 && find_sites(&f) == 0 && (hit = calloc(f.nsites + 1, 1))) {
        if (pads) place_pads(&f);
        st.sites = f.nsites;
        write_lines(out, &f, &st, hit);
        for (size_t s = 0; s < f.nsites; s++) st.targeted += hit[s];
        rc = ferror(out) ? -1 : 0;
    }
    free(hit);
    free(f.lines), free(f.in_app), free(f.made_after), free(f.made_before), free(f.falls), free(f.pad_before);
    free(f.detached), free(f.guard_before), free(f.sites), free(f.aliases), free(f.defs), free(f.guarded);
    if (stats) *stats = st;
    return rc;
}
