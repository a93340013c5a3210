/*
 * interp.c - bytecode interpreter workload, shaped like lua/perl.
 *
 * Holds: a tokenizer and single-pass recursive-descent compiler for a tiny
 * language (def/var/if/else/while/return, integer arithmetic and comparisons,
 * calls, forward references) to a stack-machine bytecode with back-patched
 * jumps; a VM with a switch dispatch loop, call frames and locals on the value
 * stack; builtins (alloc/get/set/len/hash) reached through a table of function
 * pointers; and a small array heap released after each run.
 *
 * Checks: each script function (recursive fib, prime sieve, Collatz step
 * totals, gcd sums, an array insertion sort) returns exactly what a direct C
 * computation gives for the same arguments. Prints "ok <checksum>" and exits
 * 0, or an error and exits 1.
 *
 * Usage: interp [size]   size = work scale (fib argument; other programs scale with it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SIZE 30
#define MAXTOK 4096
#define MAXCODE 8192
#define MAXFUN 32
#define MAXLOCAL 32
#define STACK 65536
#define MAXFRAME 4096
#define MAXARR 64

enum { T_NUM, T_ID, T_PUNCT, T_END };
enum {
    OP_PUSH, OP_LOAD, OP_STORE, OP_POP, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_NEG,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_JMP, OP_JZ, OP_CALL, OP_BUILTIN, OP_RET
};

typedef struct { int kind; int64_t num; char text[16]; } tok;
typedef struct { char name[16]; int entry, nparams, nlocals, defined; } function;
typedef struct vm vm;
typedef int64_t (*builtin_fn)(vm *m, const int64_t *args);
typedef struct { const char *name; int nargs; builtin_fn fn; } builtin;
typedef struct { int ret_pc, bp, fun; } frame;

typedef struct {
    tok toks[MAXTOK];
    int ntok, pos;
    int32_t code[MAXCODE];
    int ncode;
    function funs[MAXFUN];
    int nfun, cur;
    char locals[MAXLOCAL][16];
    int nlocals;
} compiler;

struct vm {
    const compiler *prog;
    int64_t stack[STACK];
    frame frames[MAXFRAME];
    int64_t *arr[MAXARR];
    int64_t arrlen[MAXARR];
    int narr;
    uint64_t steps;
};

static const char *const source =
    "def fib(n) { if (n < 2) { return n; } return fib(n - 1) + fib(n - 2); }\n"
    "def sieve(n) {\n"
    "  var a = alloc(n + 1); var i = 2; var count = 0;\n"
    "  while (i <= n) {\n"
    "    if (get(a, i) == 0) {\n"
    "      count = count + 1; var j = i * i;\n"
    "      while (j <= n) { set(a, j, 1); j = j + i; }\n"
    "    }\n"
    "    i = i + 1;\n"
    "  }\n"
    "  return count;\n"
    "}\n"
    "def steps(x) { var s = 0; while (x != 1) { if (x % 2 == 0) { x = x / 2; } else { x = 3 * x + 1; } s = s + 1; } return s; }\n"
    "def collatz(n) { var t = 0; var i = 1; while (i <= n) { t = t + steps(i); i = i + 1; } return t; }\n"
    "def gcd(a, b) { if (b == 0) { return a; } return gcd(b, a % b); }\n"
    "def gcdsum(n) { var s = 0; var i = 1; while (i <= n) { var j = 1;\n"
    "  while (j <= n) { s = s + gcd(i, j); j = j + 1; } i = i + 1; } return s; }\n"
    "def isort(n) { var a = alloc(n); var i = 0; var seed = 12345;\n"
    "  while (i < n) { seed = (seed * 1103515245 + 12345) % 2147483648; set(a, i, seed % 100000); i = i + 1; }\n"
    "  i = 1; while (i < n) { var v = get(a, i); var j = i - 1;\n"
    "    while (j >= 0 && get(a, j) > v) { set(a, j + 1, get(a, j)); j = j - 1; }\n"
    "    set(a, j + 1, v); i = i + 1; }\n"
    "  return hash(a);\n"
    "}\n";

static void die(const char *msg, const char *detail)
{
    fprintf(stderr, "interp: %s %s\n", msg, detail ? detail : "");
    exit(1);
}

/* ---- tokenizer ---- */
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

static const char *scan_token(const char *p, tok *t)
{
    int n = 0;
    if (is_digit(*p)) {
        t->kind = T_NUM;
        for (t->num = 0; is_digit(*p); p++)
            t->num = t->num * 10 + (*p - '0');
        return p;
    }
    if (is_alpha(*p)) {
        t->kind = T_ID;
        while ((is_alpha(*p) || is_digit(*p)) && n < 15)
            t->text[n++] = *p++;
        t->text[n] = 0;
        return p;
    }
    t->kind = T_PUNCT;
    t->text[n++] = *p++;
    if ((strchr("=!<>", p[-1]) && *p == '=') || (p[-1] == '&' && *p == '&'))
        t->text[n++] = *p++;
    t->text[n] = 0;
    return p;
}

static void tokenize(compiler *c, const char *p)
{
    c->ntok = 0;
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\t')
            p++;
        if (c->ntok >= MAXTOK - 1)
            die("too many tokens", NULL);
        tok *t = &c->toks[c->ntok++];
        memset(t, 0, sizeof *t);
        if (!*p) {
            t->kind = T_END;
            return;
        }
        p = scan_token(p, t);
    }
}

/* ---- compiler helpers ---- */
static const tok *peek(const compiler *c, int ahead) { return &c->toks[c->pos + ahead]; }

static int is_tok(const compiler *c, const char *text)
{
    const tok *t = peek(c, 0);
    return t->kind != T_NUM && t->kind != T_END && strcmp(t->text, text) == 0;
}

static int accept(compiler *c, const char *text)
{
    if (!is_tok(c, text))
        return 0;
    c->pos++;
    return 1;
}

static void expect(compiler *c, const char *text)
{
    if (!accept(c, text))
        die("expected", text);
}

static const char *expect_id(compiler *c)
{
    const tok *t = peek(c, 0);
    if (t->kind != T_ID)
        die("expected identifier near", t->text);
    c->pos++;
    return t->text;
}

static int emit(compiler *c, int32_t word)
{
    if (c->ncode >= MAXCODE)
        die("code too large", NULL);
    c->code[c->ncode] = word;
    return c->ncode++;
}

static void emit2(compiler *c, int op, int32_t arg)
{
    emit(c, op);
    emit(c, arg);
}

static void patch(compiler *c, int at) { c->code[at] = c->ncode; }

static void copy_name(char *dst, const char *src)
{
    int n = 0;
    while (src[n] && n < 15) {
        dst[n] = src[n];
        n++;
    }
    dst[n] = 0;
}

static int find_local(const compiler *c, const char *name)
{
    for (int i = 0; i < c->nlocals; i++)
        if (strcmp(c->locals[i], name) == 0)
            return i;
    return -1;
}

static int add_local(compiler *c, const char *name)
{
    if (c->nlocals >= MAXLOCAL)
        die("too many locals", name);
    copy_name(c->locals[c->nlocals], name);
    return c->nlocals++;
}

static int find_function(compiler *c, const char *name)
{
    for (int i = 0; i < c->nfun; i++)
        if (strcmp(c->funs[i].name, name) == 0)
            return i;
    if (c->nfun >= MAXFUN)
        die("too many functions", name);
    function *f = &c->funs[c->nfun];
    memset(f, 0, sizeof *f);
    copy_name(f->name, name);
    return c->nfun++;
}

/* ---- builtins ---- */
static int64_t *array_of(vm *m, int64_t h, int64_t i)
{
    if (h < 0 || h >= m->narr || i < 0 || i >= m->arrlen[h])
        die("array access out of range", NULL);
    return &m->arr[h][i];
}

static int64_t bi_alloc(vm *m, const int64_t *a)
{
    if (m->narr >= MAXARR || a[0] < 0)
        die("alloc failed", NULL);
    m->arr[m->narr] = calloc((size_t)a[0] + 1, sizeof(int64_t));
    if (!m->arr[m->narr])
        die("out of memory", NULL);
    m->arrlen[m->narr] = a[0];
    return m->narr++;
}

static int64_t bi_get(vm *m, const int64_t *a) { return *array_of(m, a[0], a[1]); }
static int64_t bi_set(vm *m, const int64_t *a) { return *array_of(m, a[0], a[1]) = a[2]; }
static int64_t bi_len(vm *m, const int64_t *a)
{
    if (a[0] < 0 || a[0] >= m->narr)
        die("bad array handle", NULL);
    return m->arrlen[a[0]];
}

static int64_t bi_hash(vm *m, const int64_t *a)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < m->arrlen[a[0]]; i++)
        h = (h ^ (uint64_t)*array_of(m, a[0], i)) * 0x100000001b3ull;
    return (int64_t)(h >> 1);
}

static const builtin builtins[] = {
    { "alloc", 1, bi_alloc }, { "get", 2, bi_get }, { "set", 3, bi_set },
    { "len", 1, bi_len },     { "hash", 1, bi_hash },
};
#define NBUILTIN ((int)(sizeof builtins / sizeof builtins[0]))

static int find_builtin(const char *name)
{
    for (int i = 0; i < NBUILTIN; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- expressions ---- */
static void expr(compiler *c);

static int call_args(compiler *c)
{
    int n = 0;
    expect(c, "(");
    if (!accept(c, ")")) {
        do {
            expr(c);
            n++;
        } while (accept(c, ","));
        expect(c, ")");
    }
    return n;
}

static void call(compiler *c, const char *name)
{
    int b = find_builtin(name);
    int nargs = call_args(c);
    if (b >= 0) {
        if (nargs != builtins[b].nargs)
            die("wrong argument count for", name);
        emit2(c, OP_BUILTIN, b);
        return;
    }
    emit2(c, OP_CALL, find_function(c, name));
    emit(c, nargs);
}

static void primary(compiler *c)
{
    const tok *t = peek(c, 0);
    if (t->kind == T_NUM) {
        c->pos++;
        emit2(c, OP_PUSH, (int32_t)t->num);
    } else if (accept(c, "(")) {
        expr(c);
        expect(c, ")");
    } else {
        const char *name = expect_id(c);
        if (is_tok(c, "(")) {
            call(c, name);
            return;
        }
        int slot = find_local(c, name);
        if (slot < 0)
            die("unknown variable", name);
        emit2(c, OP_LOAD, slot);
    }
}

static void unary(compiler *c)
{
    if (accept(c, "-")) {
        unary(c);
        emit(c, OP_NEG);
    } else {
        primary(c);
    }
}

static void term(compiler *c)
{
    unary(c);
    for (;;) {
        int op = accept(c, "*") ? OP_MUL : accept(c, "/") ? OP_DIV : accept(c, "%") ? OP_MOD : -1;
        if (op < 0)
            return;
        unary(c);
        emit(c, op);
    }
}

static void sum(compiler *c)
{
    term(c);
    for (;;) {
        int op = accept(c, "+") ? OP_ADD : accept(c, "-") ? OP_SUB : -1;
        if (op < 0)
            return;
        term(c);
        emit(c, op);
    }
}

static void comparison(compiler *c)
{
    static const char *const rel[] = { "==", "!=", "<", "<=", ">", ">=" };
    sum(c);
    for (int i = 0; i < 6; i++) {
        if (accept(c, rel[i])) {
            sum(c);
            emit(c, OP_EQ + i);
            return;
        }
    }
}

/* a && b: if a is false push 0, else push (b != 0). */
static void expr(compiler *c)
{
    comparison(c);
    while (accept(c, "&&")) {
        emit(c, OP_JZ);
        int skip = emit(c, 0);
        comparison(c);
        emit2(c, OP_PUSH, 0);
        emit(c, OP_NE);
        emit(c, OP_JMP);
        int done = emit(c, 0);
        patch(c, skip);
        emit2(c, OP_PUSH, 0);
        patch(c, done);
    }
}

/* ---- statements ---- */
static void block(compiler *c);

static void if_stmt(compiler *c)
{
    expect(c, "(");
    expr(c);
    expect(c, ")");
    emit(c, OP_JZ);
    int to_else = emit(c, 0);
    block(c);
    if (accept(c, "else")) {
        emit(c, OP_JMP);
        int to_end = emit(c, 0);
        patch(c, to_else);
        if (accept(c, "if"))
            if_stmt(c);
        else
            block(c);
        patch(c, to_end);
    } else {
        patch(c, to_else);
    }
}

static void while_stmt(compiler *c)
{
    int top = c->ncode;
    expect(c, "(");
    expr(c);
    expect(c, ")");
    emit(c, OP_JZ);
    int to_end = emit(c, 0);
    block(c);
    emit2(c, OP_JMP, top);
    patch(c, to_end);
}

static void assign(compiler *c, const char *name, int declare)
{
    int slot = declare ? add_local(c, name) : find_local(c, name);
    if (slot < 0)
        die("unknown variable", name);
    expect(c, "=");
    expr(c);
    expect(c, ";");
    emit2(c, OP_STORE, slot);
}

static void statement(compiler *c)
{
    if (accept(c, "var")) {
        assign(c, expect_id(c), 1);
    } else if (accept(c, "if")) {
        if_stmt(c);
    } else if (accept(c, "while")) {
        while_stmt(c);
    } else if (accept(c, "return")) {
        expr(c);
        expect(c, ";");
        emit(c, OP_RET);
    } else if (peek(c, 0)->kind == T_ID && strcmp(peek(c, 1)->text, "=") == 0) {
        assign(c, expect_id(c), 0);
    } else {
        expr(c);
        expect(c, ";");
        emit(c, OP_POP);
    }
}

static void block(compiler *c)
{
    expect(c, "{");
    while (!accept(c, "}"))
        statement(c);
}

static void function_def(compiler *c)
{
    expect(c, "def");
    int f = find_function(c, expect_id(c));
    if (c->funs[f].defined)
        die("function defined twice", c->funs[f].name);
    c->nlocals = 0;
    expect(c, "(");
    if (!accept(c, ")")) {
        do
            add_local(c, expect_id(c));
        while (accept(c, ","));
        expect(c, ")");
    }
    c->funs[f].entry = c->ncode;
    c->funs[f].nparams = c->nlocals;
    block(c);
    emit2(c, OP_PUSH, 0);
    emit(c, OP_RET);
    c->funs[f].nlocals = c->nlocals;
    c->funs[f].defined = 1;
}

static void compile(compiler *c, const char *src)
{
    memset(c, 0, sizeof *c);
    tokenize(c, src);
    while (peek(c, 0)->kind != T_END)
        function_def(c);
    for (int i = 0; i < c->nfun; i++)
        if (!c->funs[i].defined)
            die("undefined function", c->funs[i].name);
}

/* ---- virtual machine ---- */
static int64_t arith(int op, int64_t a, int64_t b)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: if (b == 0) die("division by zero", NULL); return a / b;
    case OP_MOD: if (b == 0) die("division by zero", NULL); return a % b;
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    default: return a >= b;
    }
}

static int enter(vm *m, int *sp, int *fp, int fun, int nargs, int ret_pc)
{
    const function *f = &m->prog->funs[fun];
    if (nargs != f->nparams)
        die("wrong argument count for", f->name);
    if (*fp + 1 >= MAXFRAME || *sp + f->nlocals + 64 >= STACK)
        die("stack overflow in", f->name);
    frame *fr = &m->frames[++*fp];
    *fr = (frame){ ret_pc, *sp - nargs, fun };
    for (int i = nargs; i < f->nlocals; i++)
        m->stack[(*sp)++] = 0;
    return f->entry;
}

__attribute__((noinline)) static int64_t run(vm *m, int fun, const int64_t *args, int nargs)
{
    const int32_t *code = m->prog->code;
    int sp = 0, fp = -1, pc;
    for (int i = 0; i < nargs; i++)
        m->stack[sp++] = args[i];
    pc = enter(m, &sp, &fp, fun, nargs, -1);
    int64_t *st = m->stack;
    for (;;) {
        int op = code[pc++];
        m->steps++;
        switch (op) {
        case OP_PUSH: st[sp++] = code[pc++]; break;
        case OP_LOAD: st[sp] = st[m->frames[fp].bp + code[pc++]]; sp++; break;
        case OP_STORE: st[m->frames[fp].bp + code[pc++]] = st[--sp]; break;
        case OP_POP: sp--; break;
        case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case OP_JMP: pc = code[pc]; break;
        case OP_JZ: pc = st[--sp] ? pc + 1 : code[pc]; break;
        case OP_BUILTIN: {
            const builtin *b = &builtins[code[pc++]];
            sp -= b->nargs;
            st[sp] = b->fn(m, &st[sp]);
            sp++;
            break;
        }
        case OP_CALL: {
            int callee = code[pc], n = code[pc + 1];
            pc = enter(m, &sp, &fp, callee, n, pc + 2);
            break;
        }
        case OP_RET: {
            int64_t v = st[--sp];
            frame fr = m->frames[fp--];
            sp = fr.bp;
            if (fr.ret_pc < 0)
                return v;
            st[sp++] = v;
            pc = fr.ret_pc;
            break;
        }
        default:
            sp--;
            st[sp - 1] = arith(op, st[sp - 1], st[sp]);
            break;
        }
    }
}

static void release_arrays(vm *m)
{
    for (int i = 0; i < m->narr; i++)
        free(m->arr[i]);
    m->narr = 0;
}

__attribute__((noinline)) static int64_t call_script(vm *m, const char *name, int64_t a)
{
    compiler *c = (compiler *)m->prog;
    int f = -1;
    for (int i = 0; i < c->nfun; i++)
        if (strcmp(c->funs[i].name, name) == 0)
            f = i;
    if (f < 0)
        die("no such script function", name);
    int64_t v = run(m, f, &a, 1);
    release_arrays(m);
    return v;
}

/* ---- the same computations in C ---- */
static int64_t c_fib(int64_t n)
{
    int64_t a = 0, b = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t t = a + b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t c_sieve(int64_t n)
{
    char *a = calloc((size_t)n + 1, 1);
    int64_t count = 0;
    for (int64_t i = 2; i <= n; i++) {
        if (a[i])
            continue;
        count++;
        for (int64_t j = i * i; j <= n; j += i)
            a[j] = 1;
    }
    free(a);
    return count;
}

static int64_t c_collatz(int64_t n)
{
    int64_t t = 0;
    for (int64_t i = 1; i <= n; i++)
        for (int64_t x = i; x != 1; t++)
            x = x % 2 == 0 ? x / 2 : 3 * x + 1;
    return t;
}

static int64_t c_gcd(int64_t a, int64_t b) { return b == 0 ? a : c_gcd(b, a % b); }

static int64_t c_gcdsum(int64_t n)
{
    int64_t s = 0;
    for (int64_t i = 1; i <= n; i++)
        for (int64_t j = 1; j <= n; j++)
            s += c_gcd(i, j);
    return s;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t c_isort(int64_t n)
{
    int64_t *a = malloc(sizeof(int64_t) * (size_t)(n + 1)), seed = 12345;
    for (int64_t i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        a[i] = seed % 100000;
    }
    qsort(a, (size_t)n, sizeof *a, cmp_i64);
    uint64_t h = 0xcbf29ce484222325ull;
    for (int64_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)a[i]) * 0x100000001b3ull;
    free(a);
    return (int64_t)(h >> 1);
}

typedef struct { const char *name; int64_t (*oracle)(int64_t); int64_t arg; } testcase;

int main(int argc, char **argv)
{
    int64_t size = argc > 1 ? atol(argv[1]) : DEFAULT_SIZE;
    if (size < 5 || size > 40)
        size = DEFAULT_SIZE;
    static compiler comp;
    static vm machine;
    compile(&comp, source);
    machine.prog = &comp;
    const testcase tests[] = {
        { "fib", c_fib, size },           { "sieve", c_sieve, size * 60000 },
        { "collatz", c_collatz, size * 5000 }, { "gcdsum", c_gcdsum, size * 30 },
        { "isort", c_isort, size * 80 },
    };
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        int64_t got = call_script(&machine, tests[i].name, tests[i].arg);
        int64_t want = tests[i].oracle(tests[i].arg);
        if (got != want) {
            fprintf(stderr, "interp: FAILED %s(%lld) = %lld, C says %lld\n", tests[i].name,
                    (long long)tests[i].arg, (long long)got, (long long)want);
            return 1;
        }
        h = (h ^ (uint64_t)got) * 0x100000001b3ull;
    }
    printf("ok %016llx\n", (unsigned long long)(h ^ machine.steps));
    return 0;
}
