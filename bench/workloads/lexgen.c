/*
 * lexgen.c - lexer-generator workload, shaped like JLex.
 *
 * Holds: a recursive-descent regular-expression parser (literals, escapes,
 * classes [a-z] and [^...], ., |, *, +, ?, parentheses) that builds a Thompson
 * NFA per token rule; the rules joined under one start state; subset
 * construction to a DFA (NFA state sets are bitsets, found again by hashing);
 * Moore partition-refinement minimization; and a maximal-munch lexer that
 * runs over a generated source text. Each round rebuilds everything and lexes
 * a fresh text.
 *
 * Checks: the token stream of the minimized DFA equals that of the
 * unminimized DFA and, token by token, the longest match found by direct NFA
 * simulation (epsilon closures, lowest rule number wins ties); the minimized
 * DFA is no larger than the DFA. Prints "ok <checksum>" and exits 0, or an
 * error and exits 1.
 *
 * Usage: lexgen [size]   size = kilobytes of generated input per round.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 128
#define MAXN 512
#define SETW (MAXN / 64)
#define MAXD 1024
#define ROUNDS 16
#define DEFAULT_KB 700

enum { N_EPS, N_SET, N_ACC };

typedef struct { uint64_t w[2]; } charset;
typedef struct { uint64_t w[SETW]; } nset;
typedef struct { int kind, out1, out2, rule; charset cs; } nstate;
typedef struct { int start, end; } frag;
typedef struct { nstate st[MAXN]; int n, start; } nfa;
typedef struct { const char *p; nfa *m; } parser;
typedef struct { int n, start; int trans[MAXD][ALPHA]; int accept[MAXD]; nset sets[MAXD]; } dfa;
typedef struct { int rule, len; } token;

static const char *const rules[] = {
    "if|else|while|return|int",
    "[a-zA-Z_][a-zA-Z0-9_]*",
    "[0-9]+(\\.[0-9]+)?([eE][+\\-]?[0-9]+)?",
    "\"([^\"\\\\\\n]|\\\\.)*\"",
    "//[^\\n]*",
    "[ \\t\\n]+",
    "==|!=|<=|>=|&&|\\|\\||[-+*/=<>!;,(){}]",
};
#define NRULES ((int)(sizeof rules / sizeof rules[0]))

static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned rnd(unsigned n) { return (unsigned)(rng_next() % n); }

/* ---- character sets and NFA state sets ---- */
static void cs_add(charset *s, int c) { s->w[c >> 6] |= 1ull << (c & 63); }
static int cs_has(const charset *s, int c) { return (int)((s->w[c >> 6] >> (c & 63)) & 1); }
static void ns_add(nset *s, int i) { s->w[i >> 6] |= 1ull << (i & 63); }
static int ns_has(const nset *s, int i) { return (int)((s->w[i >> 6] >> (i & 63)) & 1); }
static int ns_empty(const nset *s)
{
    for (int i = 0; i < SETW; i++)
        if (s->w[i])
            return 0;
    return 1;
}

/* ---- Thompson construction ---- */
static void die(const char *msg)
{
    fprintf(stderr, "lexgen: %s\n", msg);
    exit(1);
}

static int new_state(nfa *m, int kind)
{
    if (m->n >= MAXN)
        die("NFA too large");
    nstate *s = &m->st[m->n];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->out1 = s->out2 = -1;
    s->rule = -1;
    return m->n++;
}

static frag frag_set(nfa *m, const charset *cs)
{
    int s = new_state(m, N_SET), e = new_state(m, N_EPS);
    m->st[s].cs = *cs;
    m->st[s].out1 = e;
    return (frag){ s, e };
}

static frag frag_char(nfa *m, int c)
{
    charset cs = { { 0, 0 } };
    cs_add(&cs, c);
    return frag_set(m, &cs);
}

static int parse_escape(parser *ps)
{
    int c = (unsigned char)*ps->p++;
    if (c == 'n')
        return '\n';
    if (c == 't')
        return '\t';
    if (c == 0)
        die("dangling escape");
    return c;
}

static frag parse_class(parser *ps)
{
    charset cs = { { 0, 0 } };
    int negate = *ps->p == '^';
    ps->p += negate;
    while (*ps->p && *ps->p != ']') {
        int lo = *ps->p == '\\' ? (ps->p++, parse_escape(ps)) : (unsigned char)*ps->p++;
        int hi = lo;
        if (ps->p[0] == '-' && ps->p[1] && ps->p[1] != ']') {
            ps->p++;
            hi = *ps->p == '\\' ? (ps->p++, parse_escape(ps)) : (unsigned char)*ps->p++;
        }
        for (int c = lo; c <= hi; c++)
            cs_add(&cs, c);
    }
    if (*ps->p++ != ']')
        die("unterminated class");
    if (negate) {
        cs.w[0] = ~cs.w[0];
        cs.w[1] = ~cs.w[1];
    }
    return frag_set(ps->m, &cs);
}

static frag parse_alt(parser *ps);

static frag parse_atom(parser *ps)
{
    int c = (unsigned char)*ps->p++;
    if (c == '(') {
        frag f = parse_alt(ps);
        if (*ps->p++ != ')')
            die("missing )");
        return f;
    }
    if (c == '[')
        return parse_class(ps);
    if (c == '\\')
        return frag_char(ps->m, parse_escape(ps));
    if (c == '.') {
        charset cs = { { ~0ull, ~0ull } };
        cs.w[0] &= ~(1ull << '\n');
        return frag_set(ps->m, &cs);
    }
    return frag_char(ps->m, c);
}

static frag parse_rep(parser *ps)
{
    nfa *m = ps->m;
    frag f = parse_atom(ps);
    while (*ps->p == '*' || *ps->p == '+' || *ps->p == '?') {
        char op = *ps->p++;
        int s = new_state(m, N_EPS), e = new_state(m, N_EPS);
        m->st[s].out1 = f.start;
        m->st[s].out2 = op == '+' ? -1 : e;
        m->st[f.end].out1 = op == '?' ? e : f.start;
        m->st[f.end].out2 = op == '?' ? -1 : e;
        f = (frag){ s, e };
    }
    return f;
}

static frag parse_cat(parser *ps)
{
    int s = new_state(ps->m, N_EPS);
    frag f = { s, s };
    while (*ps->p && *ps->p != '|' && *ps->p != ')') {
        frag g = parse_rep(ps);
        ps->m->st[f.end].out1 = g.start;
        f.end = g.end;
    }
    return f;
}

static frag parse_alt(parser *ps)
{
    frag f = parse_cat(ps);
    while (*ps->p == '|') {
        ps->p++;
        frag g = parse_cat(ps);
        int s = new_state(ps->m, N_EPS), e = new_state(ps->m, N_EPS);
        ps->m->st[s].out1 = f.start;
        ps->m->st[s].out2 = g.start;
        ps->m->st[f.end].out1 = e;
        ps->m->st[g.end].out1 = e;
        f = (frag){ s, e };
    }
    return f;
}

/* Join all rules: a chain of epsilon states, one branch per rule. */
static void build_nfa(nfa *m)
{
    m->n = 0;
    int prev = -1;
    for (int r = 0; r < NRULES; r++) {
        parser ps = { rules[r], m };
        frag f = parse_alt(&ps);
        if (*ps.p)
            die("trailing regex text");
        int acc = new_state(m, N_ACC);
        m->st[acc].rule = r;
        m->st[f.end].out1 = acc;
        int link = new_state(m, N_EPS);
        m->st[link].out1 = f.start;
        if (prev < 0)
            m->start = link;
        else
            m->st[prev].out2 = link;
        prev = link;
    }
}

/* ---- NFA simulation ---- */
static void closure_add(const nfa *m, nset *s, int i)
{
    while (i >= 0 && !ns_has(s, i)) {
        ns_add(s, i);
        if (m->st[i].kind != N_EPS)
            return;
        closure_add(m, s, m->st[i].out2);
        i = m->st[i].out1;
    }
}

static void nfa_step(const nfa *m, const nset *cur, int c, nset *next)
{
    memset(next, 0, sizeof *next);
    for (int w = 0; w < SETW; w++) {
        for (uint64_t bits = cur->w[w]; bits; bits &= bits - 1) {
            const nstate *s = &m->st[w * 64 + __builtin_ctzll(bits)];
            if (s->kind == N_SET && cs_has(&s->cs, c))
                closure_add(m, next, s->out1);
        }
    }
}

static int set_accept(const nfa *m, const nset *s)
{
    int best = -1;
    for (int w = 0; w < SETW; w++) {
        for (uint64_t bits = s->w[w]; bits; bits &= bits - 1) {
            const nstate *st = &m->st[w * 64 + __builtin_ctzll(bits)];
            if (st->kind == N_ACC && (best < 0 || st->rule < best))
                best = st->rule;
        }
    }
    return best;
}

/* Longest match at text[0..n) by NFA simulation; rule -1, len 1 if none. */
static token nfa_longest(const nfa *m, const char *text, int n)
{
    nset cur = { { 0 } }, next;
    token t = { -1, 1 };
    closure_add(m, &cur, m->start);
    for (int i = 0; i < n && !ns_empty(&cur); i++) {
        nfa_step(m, &cur, (unsigned char)text[i] & (ALPHA - 1), &next);
        cur = next;
        int r = set_accept(m, &cur);
        if (r >= 0)
            t = (token){ r, i + 1 };
    }
    return t;
}

/* ---- subset construction ---- */
static uint64_t nset_hash(const nset *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < SETW; i++)
        h = (h ^ s->w[i]) * 0x100000001b3ull;
    return h;
}

static int dfa_find_or_add(dfa *d, const nset *s, int *table, int tsize)
{
    unsigned slot = (unsigned)(nset_hash(s) & (unsigned)(tsize - 1));
    for (; table[slot] >= 0; slot = (slot + 1) & (unsigned)(tsize - 1))
        if (memcmp(&d->sets[table[slot]], s, sizeof *s) == 0)
            return table[slot];
    if (d->n >= MAXD)
        die("DFA too large");
    d->sets[d->n] = *s;
    table[slot] = d->n;
    return d->n++;
}

static void build_dfa(const nfa *m, dfa *d)
{
    enum { TSIZE = 4 * MAXD };
    static int table[TSIZE];
    memset(table, -1, sizeof table);
    nset s0 = { { 0 } };
    closure_add(m, &s0, m->start);
    d->n = 0;
    d->start = dfa_find_or_add(d, &s0, table, TSIZE);
    for (int i = 0; i < d->n; i++) {
        d->accept[i] = set_accept(m, &d->sets[i]);
        for (int c = 0; c < ALPHA; c++) {
            nset next;
            nfa_step(m, &d->sets[i], c, &next);
            d->trans[i][c] = ns_empty(&next) ? -1 : dfa_find_or_add(d, &next, table, TSIZE);
        }
    }
}

/* ---- Moore minimization ---- */
static int target_class(const dfa *d, const int *cls, int s, int c)
{
    int t = d->trans[s][c];
    return t < 0 ? -1 : cls[t];
}

static int same_signature(const dfa *d, const int *cls, int a, int b)
{
    if (cls[a] != cls[b])
        return 0;
    for (int c = 0; c < ALPHA; c++)
        if (target_class(d, cls, a, c) != target_class(d, cls, b, c))
            return 0;
    return 1;
}

static int refine(const dfa *d, const int *cls, int *out)
{
    int rep[MAXD], nclass = 0;
    for (int s = 0; s < d->n; s++) {
        int k = 0;
        while (k < nclass && !same_signature(d, cls, rep[k], s))
            k++;
        if (k == nclass)
            rep[nclass++] = s;
        out[s] = k;
    }
    return nclass;
}

static int initial_classes(const dfa *d, int *cls)
{
    int seen[NRULES + 1], n = 0;
    for (int r = 0; r <= NRULES; r++)
        seen[r] = -1;
    for (int s = 0; s < d->n; s++) {
        int key = d->accept[s] + 1;
        if (seen[key] < 0)
            seen[key] = n++;
        cls[s] = seen[key];
    }
    return n;
}

static void minimize(const dfa *d, dfa *min)
{
    static int cls[MAXD], next[MAXD];
    int n = initial_classes(d, cls);
    for (;;) {
        int n2 = refine(d, cls, next);
        memcpy(cls, next, sizeof(int) * (size_t)d->n);
        if (n2 == n)
            break;
        n = n2;
    }
    min->n = n;
    min->start = cls[d->start];
    for (int s = 0; s < d->n; s++) {
        min->accept[cls[s]] = d->accept[s];
        for (int c = 0; c < ALPHA; c++)
            min->trans[cls[s]][c] = target_class(d, cls, s, c);
    }
}

/* ---- maximal-munch lexing ---- */
static token dfa_longest(const dfa *d, const char *text, int n)
{
    token t = { -1, 1 };
    int s = d->start;
    for (int i = 0; i < n; i++) {
        s = d->trans[s][(unsigned char)text[i] & (ALPHA - 1)];
        if (s < 0)
            break;
        if (d->accept[s] >= 0)
            t = (token){ d->accept[s], i + 1 };
    }
    return t;
}

typedef token (*matcher)(const void *machine, const char *text, int n);

static token match_dfa(const void *machine, const char *text, int n)
{
    return dfa_longest(machine, text, n);
}

static token match_nfa(const void *machine, const char *text, int n)
{
    return nfa_longest(machine, text, n);
}

static int lex_all(matcher fn, const void *machine, const char *text, int n, token *out)
{
    int count = 0;
    for (int pos = 0; pos < n; pos += out[count++].len)
        out[count] = fn(machine, text + pos, n - pos);
    return count;
}

/* ---- input generation ---- */
static int put(char *buf, int pos, const char *s)
{
    while (*s)
        buf[pos++] = *s++;
    return pos;
}

static int gen_word(char *buf, int pos)
{
    static const char first[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
    static const char rest[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    buf[pos++] = first[rnd(sizeof first - 1)];
    for (unsigned k = rnd(9); k > 0; k--)
        buf[pos++] = rest[rnd(sizeof rest - 1)];
    return pos;
}

static int gen_digits(char *buf, int pos)
{
    for (unsigned k = 1 + rnd(5); k > 0; k--)
        buf[pos++] = (char)('0' + rnd(10));
    return pos;
}

static int gen_number(char *buf, int pos)
{
    pos = gen_digits(buf, pos);
    if (rnd(3) == 0)
        pos = gen_digits(buf, put(buf, pos, "."));
    if (rnd(5) == 0)
        pos = gen_digits(buf, put(buf, pos, rnd(2) ? "e-" : "E"));
    return pos;
}

static int gen_string(char *buf, int pos)
{
    static const char body[] = "abc xyz 0123,.;()+-";
    buf[pos++] = '"';
    for (unsigned k = rnd(16); k > 0; k--)
        pos = rnd(8) ? (buf[pos] = body[rnd(sizeof body - 1)], pos + 1) : put(buf, pos, "\\n");
    buf[pos++] = '"';
    return pos;
}

static int gen_token(char *buf, int pos)
{
    static const char *const kw[] = { "if", "else", "while", "return", "int" };
    static const char *const ops[] = { "==", "!=", "<=", ">=", "&&", "||", "+", "-", "*",
                                       "/", "=", "<", ">", "!", ";", ",", "(", ")", "{", "}" };
    switch (rnd(12)) {
    case 0: return put(buf, pos, kw[rnd(5)]);
    case 1: case 2: case 3: return gen_word(buf, pos);
    case 4: case 5: return gen_number(buf, put(buf, pos, " "));
    case 6: return gen_string(buf, pos);
    case 7: return put(buf, gen_word(buf, put(buf, pos, "// note ")), "\n");
    default: return put(buf, pos, ops[rnd(20)]);
    }
}

static int gen_text(char *buf, int n)
{
    int pos = 0;
    while (pos < n - 64) {
        pos = gen_token(buf, pos);
        unsigned sep = rnd(6);
        if (sep < 3)
            buf[pos++] = sep == 0 ? '\n' : ' ';
    }
    return pos;
}

/* ---- checking ---- */
static int compare_streams(const token *a, int na, const token *b, int nb, const char *what)
{
    if (na != nb) {
        fprintf(stderr, "lexgen: %s token count %d vs %d\n", what, na, nb);
        return 0;
    }
    for (int i = 0; i < na; i++) {
        if (a[i].rule != b[i].rule || a[i].len != b[i].len) {
            fprintf(stderr, "lexgen: %s token %d differs (%d,%d) vs (%d,%d)\n", what, i,
                    a[i].rule, a[i].len, b[i].rule, b[i].len);
            return 0;
        }
    }
    return 1;
}

static uint64_t stream_hash(const token *t, int n, uint64_t h)
{
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)(t[i].rule * 1000 + t[i].len)) * 0x100000001b3ull;
    return h;
}

typedef struct { nfa m; dfa d, min; } machines;

static int one_round(machines *k, char *text, int cap, token *t1, token *t2, uint64_t *h)
{
    build_nfa(&k->m);
    build_dfa(&k->m, &k->d);
    minimize(&k->d, &k->min);
    if (k->min.n > k->d.n)
        die("minimized DFA is larger");
    int n = gen_text(text, cap);
    int n1 = lex_all(match_dfa, &k->min, text, n, t1);
    int n2 = lex_all(match_dfa, &k->d, text, n, t2);
    if (!compare_streams(t1, n1, t2, n2, "min-DFA vs DFA"))
        return 0;
    n2 = lex_all(match_nfa, &k->m, text, n, t2);
    if (!compare_streams(t1, n1, t2, n2, "min-DFA vs NFA"))
        return 0;
    *h = stream_hash(t1, n1, *h) ^ (uint64_t)(k->d.n * 1000 + k->min.n);
    return 1;
}

int main(int argc, char **argv)
{
    long kb = argc > 1 ? atol(argv[1]) : DEFAULT_KB;
    if (kb < 1)
        kb = 1;
    int cap = (int)(kb * 1024);
    char *text = malloc((size_t)cap);
    token *t1 = malloc(sizeof(token) * (size_t)cap), *t2 = malloc(sizeof(token) * (size_t)cap);
    machines *k = malloc(sizeof *k);
    if (!text || !t1 || !t2 || !k)
        die("out of memory");
    uint64_t h = 0xcbf29ce484222325ull;
    for (int r = 0; r < ROUNDS; r++) {
        if (!one_round(k, text, cap, t1, t2, &h)) {
            fprintf(stderr, "lexgen: FAILED in round %d\n", r);
            return 1;
        }
    }
    printf("ok %016llx\n", (unsigned long long)h);
    free(text);
    free(t1);
    free(t2);
    free(k);
    return 0;
}
