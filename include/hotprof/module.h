/* hotprof/module.h — the C ABI of value-sampling customization modules (DCPI value sampling §2.4;
 * docs/value-modules.md). A module is a shared object given to `hotprof run --mode timer --values L/K
 * --module FILE.so`; the runtime loads it once at start and then, for every interpretation (the L
 * instructions run after one timer interrupt), hands it the tuples captured, in execution order,
 * and records what it returns in the profile's per-(pc, kind, operand) hot-lists. `hotprof report
 * --type value --module FILE.so` asks the same module to print the values.
 *
 * A module exports one function, `hotprof_module_get`, returning a pointer to a static
 * hotprof_module whose `abi` is HOTPROF_MODULE_ABI. Every field but `abi` and `name` may be 0/NULL:
 *   capture    the tuple kinds to capture (bits 1u << HOTPROF_KIND_*); 0: every kind but FLAGS (the
 *              arithmetic flags after each instruction are captured only when named here)
 *   classes    the instruction classes to capture them from (HOTPROF_CLASS_* bits); 0: every class
 *   transform  the tuples of one interpretation -> the (pc, kind, operand, value) tuples to record;
 *              NULL: record the captured tuples as they are
 *   format     prints one recorded value for reports; NULL (or a return of 0): hotprof's own format
 *
 * Rules for transform (it runs inside the profiler's signal handler, on the program's thread):
 * no malloc, no locks, no stdio, no system call, no floating-point state left changed, and it
 * must return within microseconds; it may keep state only in the `scratch` area it is given
 * (per thread, zeroed at the thread's start, HOTPROF_MODULE_SCRATCH bytes). It writes at most
 * `cap` tuples to `out` and returns how many it wrote. A tuple it makes up may use any kind;
 * HOTPROF_KIND_MODULE with an operand of the module's choosing is the kind reserved for it.
 * format runs in `hotprof report` (an ordinary process): anything goes; it writes a NUL-terminated
 * text of at most cap bytes into buf and returns its length (0: use hotprof's format).
 */
#ifndef HOTPROF_MODULE_H
#define HOTPROF_MODULE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HOTPROF_MODULE_ABI 1u
#define HOTPROF_MODULE_SCRATCH 4096u
#define HOTPROF_MODULE_MAX_TUPLES 512u /* the most tuples one interpretation hands to transform */

/* Tuple kinds: the value kinds of the profile format (docs/format.md, VALUES records). */
enum hotprof_kind {
    HOTPROF_KIND_REG = 1,     /* value written to a general register (operand: x86-64 number, rax = 0) */
    HOTPROF_KIND_ADDR = 2,    /* effective address of memory operand `operand` */
    HOTPROF_KIND_LOAD = 3,    /* value loaded from memory operand `operand` (<= 8 bytes, zero-extended) */
    HOTPROF_KIND_STORE = 4,   /* value stored to memory operand `operand` */
    HOTPROF_KIND_FLAGS = 5,   /* rflags after the instruction */
    HOTPROF_KIND_RETADDR = 6, /* the return address at a function's entry */
    HOTPROF_KIND_XMM = 7,     /* low 64 bits written to xmm`operand` */
    HOTPROF_KIND_MODULE = 9,  /* a module's own tuples (its transform makes them) */
};

/* Instruction classes (bits): what kind of instruction produced a tuple. */
enum hotprof_class {
    HOTPROF_CLASS_INT = 1u,    /* integer instruction without a memory operand */
    HOTPROF_CLASS_MEM = 2u,    /* integer instruction with a memory operand */
    HOTPROF_CLASS_FP = 4u,     /* touches x87/SSE state (floating point, vectors) */
    HOTPROF_CLASS_BRANCH = 8u, /* jmp, jcc, call, ret (direct or indirect) */
};

typedef struct hotprof_tuple {
    uint64_t pc;      /* the instruction */
    uint64_t value;
    uint8_t kind;     /* enum hotprof_kind */
    uint8_t operand;
    uint8_t iclass;   /* one HOTPROF_CLASS_* bit (input tuples; ignored in output) */
    uint8_t size;     /* memory operand size in bytes (ADDR/LOAD/STORE; 0 otherwise) */
    uint32_t index;   /* input: the instruction's position in the interpretation (0..L-1) */
} hotprof_tuple;

typedef uint32_t hotprof_transform_fn(const hotprof_tuple *in, uint32_t n, hotprof_tuple *out, uint32_t cap,
                                      void *scratch);
typedef size_t hotprof_format_fn(uint8_t kind, uint8_t operand, uint64_t value, char *buf, size_t cap);

typedef struct hotprof_module {
    uint32_t abi;                   /* HOTPROF_MODULE_ABI */
    uint32_t capture;               /* bits 1u << HOTPROF_KIND_*; 0: all but FLAGS */
    uint32_t classes;               /* HOTPROF_CLASS_* bits; 0: all */
    uint32_t reserved;              /* 0 */
    const char *name;               /* shown in the run summary and the profile's INFO */
    hotprof_transform_fn *transform;
    hotprof_format_fn *format;
} hotprof_module;

/* The one symbol a module exports. */
const hotprof_module *hotprof_module_get(void);
typedef const hotprof_module *hotprof_module_get_fn(void);

#ifdef __cplusplus
}
#endif
#endif
