/* format.h — the hotprof.data profile file: framing, section types and record layouts.
 * docs/format.md is the prose version of this file; keep the two in step.
 *
 * A file is a 32-byte file header followed by sections. Each section is a 24-byte section header
 * and `length` payload bytes. Everything is little-endian.
 *
 *   file header:    char magic[8] = "HOTPROF\0"; u16 major; u16 minor; u32 header_size (=32);
 *                   u64 seed; u32 flags; u32 crc32 of the 28 bytes before it
 *   section header: u32 magic = 'HPSC'; u32 type; u64 length; u32 payload_crc32;
 *                   u32 crc32 of the 20 bytes before it
 *
 * Sections are appended as the run goes (INFO and MODULES at start, then data). Data sections
 * come in *groups*: a group is every data section after the previous GROUP_END up to and
 * including the next GROUP_END; a group is a complete, cumulative snapshot. Several sections of
 * one type inside a group (one per thread, say) add up. A reader uses the last complete group;
 * sections after it (a run killed mid-write) are ignored with a warning, never a failure.
 *
 * Invariants: a reader never trusts a length before checking it against what is left of the
 * file and against HP_FMT_MAX_SECTION; every payload is CRC-checked before it is decoded.
 */
#ifndef HOTPROF_CORE_FORMAT_H
#define HOTPROF_CORE_FORMAT_H
#include <stddef.h>
#include <stdint.h>

#define HP_FMT_MAGIC "HOTPROF"          /* 7 chars + NUL = 8 bytes */
#define HP_FMT_MAJOR 1
#define HP_FMT_MINOR 0
#define HP_FMT_FILE_HEADER_SIZE 32u
#define HP_FMT_SECTION_MAGIC 0x43535048u /* "HPSC" */
#define HP_FMT_SECTION_HEADER_SIZE 24u
#define HP_FMT_MAX_SECTION (1ull << 34)  /* 16 GiB: anything larger is corrupt */

enum hp_section_type {
    HP_SEC_INFO = 1,       /* text: "key=value\n" lines (program, args, mode, pid, hooks, ...) */
    HP_SEC_MODULES = 2,    /* hp_rec_module records */
    HP_SEC_FUNCS = 3,      /* hp_rec_func records */
    HP_SEC_CALLPAIRS = 4,  /* hp_rec_callpair records */
    HP_SEC_BLOCKMAP = 5,   /* hp_rec_block records: guard id -> pc, flags (static, once) */
    HP_SEC_BLOCKS = 6,     /* hp_rec_count records: guard id -> executions */
    HP_SEC_EDGES = 7,      /* hp_rec_edge records */
    HP_SEC_SUMMARY = 8,    /* u32 profile type, u32 reserved, serialized core summary */
    HP_SEC_THREAD = 9,     /* u64 thread id, u64 events: opens one thread's sections in a group */
    HP_SEC_GROUP_END = 10, /* u64 group sequence, u64 flags (HP_GROUP_*), i64 exit status */
    HP_SEC_SUBPATHS = 11,  /* hp_rec_subpath records (variable size): the process's subpath list */
    HP_SEC_INTERVALS = 12, /* one thread's interval timeline of one stream (docs/format.md, core/format/ivsec.h) */
    HP_SEC_STACKS = 13,    /* hp_rec_stack records (variable size): one thread's timer stack samples */
    HP_SEC_VALUES = 14,    /* hp_rec_value records (variable size): one thread's value hot-lists */
    HP_SEC_PATHS = 15,     /* hp_rec_path records (variable size): one thread's interprocedural paths */
};

/* The profile type (first u32 of a SUMMARY payload): what the serialized summary after the 8-byte
 * prefix holds. Ids are never reused; a reader skips a type it does not know. */
enum hp_summary_profile {
    HP_PROFILE_DATASTREAM = 1, /* one thread's hot data stream detector (core/summary/datastream.h) */
};

enum hp_group_flags {
    HP_GROUP_FINAL = 1,   /* written at normal exit */
    HP_GROUP_CRASH = 2,   /* written from a fatal-signal handler; exit status = -signal */
    HP_GROUP_EXEC = 4,    /* with FINAL: written just before an exec() replaced the image; status 0 */
};

/* Module: where an object was mapped, so addresses resolve after the run (PIE/ASLR, dlopen). */
typedef struct hp_rec_module {
    uint64_t base;      /* load bias (dlpi_addr) */
    uint64_t lo, hi;    /* lowest and one-past-highest mapped address of its PT_LOAD segments */
    uint32_t path_len;  /* bytes of path that follow (no NUL) */
    uint32_t buildid_len; /* bytes of GNU build-id that follow the path */
} hp_rec_module;        /* encoded: u64 base, u64 lo, u64 hi, u32 path_len, u32 buildid_len, path, id */

typedef struct hp_rec_func { uint64_t addr, calls, backedges; } hp_rec_func;
typedef struct hp_rec_callpair { uint64_t site, callee, count; } hp_rec_callpair; /* site = return address in caller */
typedef struct hp_rec_block { uint32_t guard, flags; uint64_t pc; } hp_rec_block; /* flags: bit 0 = function entry */
typedef struct hp_rec_count { uint32_t guard, pad; uint64_t count; } hp_rec_count;
typedef struct hp_rec_edge { uint32_t from, to; uint64_t count; } hp_rec_edge;
/* One subpath (OSP): a sequence of `length` basic blocks. Estimated executions of the subpath =
 * weight / p_length: `weight` is already scaled by every sampling and thinning factor (in an
 * exact run weight = count and p_length = 1). Encoded: u64 key, u64 count, f64 weight,
 * f64 p_length, u32 length, u32 nblocks, then nblocks u32 guard ids (the block sequence, first
 * block first; nblocks is length, or 0 when the sequence was not kept). */
typedef struct hp_rec_subpath {
    uint64_t key;      /* the subpath's encoding (core/ptype/subpath.h) */
    uint64_t count;    /* times sampled and kept (exact run: executions) */
    double weight;     /* sum of the subpath starts its kept samples stand for */
    double p_length;   /* probability that a sample takes this length (and is not rejected) */
    uint32_t length;   /* blocks */
    uint32_t nblocks;  /* guard ids that follow the fixed part */
} hp_rec_subpath;

/* One distinct stack of timer samples (--mode timer). Encoded: u64 count, u64 tos, u16 depth,
 * u16 flags, u32 reserved (0), then depth u64 pcs: pcs[0] is the interrupted pc, pcs[1..] the
 * return addresses found by unwinding, innermost first. tos is the word at the top of the stack at
 * the interrupt (DCPI's other return-address candidate; 0 if unreadable). */
typedef struct hp_rec_stack {
    uint64_t count;    /* samples with exactly this stack (and tos) */
    uint64_t tos;
    uint16_t depth;    /* pcs that follow, 1..HP_STACK_MAX_DEPTH */
    uint16_t flags;    /* HP_STACK_* */
} hp_rec_stack;
#define HP_REC_STACK_FIXED 24u
#define HP_STACK_MAX_DEPTH 256u
#define HP_STACK_TRUNCATED 1u   /* the unwind stopped at the depth cap */
#define HP_STACK_UNWIND_FAIL 2u /* the unwinder failed below pcs[depth-1] (not the outermost frame) */

/* One instruction operand's value hot-list (value sampling, --values L/K): a Gibbons-Matias concise
 * sample (N entries, threshold tau: each capture was kept with probability 1/tau, so a value's
 * estimated captures = count x tau). Encoded: u64 pc, u64 captures, f64 tau, u8 kind, u8 operand,
 * u16 nvalues, u32 reserved (0), then nvalues x (u64 value, u64 count), highest count first. */
typedef struct hp_rec_value {
    uint64_t pc;       /* the instruction */
    uint64_t captures; /* times this (pc, kind, operand) was captured (every capture, kept or not) */
    double tau;        /* the concise sample's threshold (>= 1) */
    uint8_t kind;      /* HP_VK_* */
    uint8_t operand;   /* kind REG: the register (HP_VREG_*); memory kinds: the operand's index */
    uint16_t nvalues;
} hp_rec_value;
#define HP_REC_VALUE_FIXED 32u
#define HP_REC_VALUE_ENTRY 16u
#define HP_VALUE_MAX_ENTRIES 64u
enum hp_value_kind {
    HP_VK_REG = 1,     /* value written to a destination register (operand = HP_VREG_*) */
    HP_VK_ADDR = 2,    /* effective address of a memory operand */
    HP_VK_LOAD = 3,    /* value loaded from a memory operand (up to 8 bytes, zero-extended) */
    HP_VK_STORE = 4,   /* value stored to a memory operand */
    HP_VK_FLAGS = 5,   /* rflags after the instruction (arithmetic flags only) */
    HP_VK_RETADDR = 6, /* the return-address context (the current function's return address) */
    HP_VK_XMM = 7,     /* low 64 bits written to an xmm register (operand = 0..15) */
    HP_VK_CMP = 8,     /* a compare operand (trace-cmp; operand 0 = left, 1 = right; a compare
                        * against a constant records only its variable side, operand 1) */
    HP_VK_MODULE = 9,  /* a customization module's own tuples (include/hotprof/module.h; operand: its own) */
};
/* One interprocedural path (docs/paths.md): the blocks between two taken back-edges (or maxlen
 * blocks), crossing calls and returns. Encoded: u64 key, u64 count, u32 length, u32 nblocks, then
 * nblocks u32 guard ids (first block first; nblocks is length, or 0 when the sequence was not kept). */
typedef struct hp_rec_path {
    uint64_t key;     /* core/ptype/path.h: a hash of the guard sequence and its length, never 0 */
    uint64_t count;   /* times the path was completed */
    uint32_t length;  /* blocks, 1..HP_PATH_MAX_LENGTH */
    uint32_t nblocks; /* guard ids that follow the fixed part */
} hp_rec_path;
#define HP_REC_PATH_FIXED 24u
#define HP_PATH_MAX_LENGTH 1024u

/* Register numbers of HP_VK_REG (x86-64 encoding order). */
enum hp_vreg { HP_VREG_RAX, HP_VREG_RCX, HP_VREG_RDX, HP_VREG_RBX, HP_VREG_RSP, HP_VREG_RBP, HP_VREG_RSI,
               HP_VREG_RDI, HP_VREG_R8, HP_VREG_R9, HP_VREG_R10, HP_VREG_R11, HP_VREG_R12, HP_VREG_R13,
               HP_VREG_R14, HP_VREG_R15, HP_VREG_COUNT };

#define HP_REC_FUNC_SIZE 24u
#define HP_REC_CALLPAIR_SIZE 24u
#define HP_REC_BLOCK_SIZE 16u
#define HP_REC_COUNT_SIZE 16u
#define HP_REC_EDGE_SIZE 16u
#define HP_REC_MODULE_FIXED 32u
#define HP_REC_SUBPATH_FIXED 40u
#define HP_SUBPATH_MAX_LENGTH 1024u /* longest subpath a file may hold */

/* Encoders write exactly the documented size into out; decoders read it (no alignment needed). */
void hp_fmt_file_header(uint8_t out[HP_FMT_FILE_HEADER_SIZE], uint64_t seed, uint32_t flags);
void hp_fmt_section_header(uint8_t out[HP_FMT_SECTION_HEADER_SIZE], uint32_t type, uint64_t length,
                           uint32_t payload_crc);
void hp_fmt_put_func(uint8_t *out, const hp_rec_func *r);
void hp_fmt_put_callpair(uint8_t *out, const hp_rec_callpair *r);
void hp_fmt_put_block(uint8_t *out, const hp_rec_block *r);
void hp_fmt_put_count(uint8_t *out, const hp_rec_count *r);
void hp_fmt_put_edge(uint8_t *out, const hp_rec_edge *r);
void hp_fmt_get_func(const uint8_t *in, hp_rec_func *r);
void hp_fmt_get_callpair(const uint8_t *in, hp_rec_callpair *r);
void hp_fmt_get_block(const uint8_t *in, hp_rec_block *r);
void hp_fmt_get_count(const uint8_t *in, hp_rec_count *r);
void hp_fmt_get_edge(const uint8_t *in, hp_rec_edge *r);
/* The fixed part only (HP_REC_SUBPATH_FIXED bytes); the guard ids follow as u32 LE. */
void hp_fmt_put_subpath(uint8_t *out, const hp_rec_subpath *r);
void hp_fmt_get_subpath(const uint8_t *in, hp_rec_subpath *r);
/* Fixed parts only; the pcs (u64 LE) / the (value, count) pairs (u64, u64 LE) follow. */
void hp_fmt_put_stack(uint8_t *out, const hp_rec_stack *r);
void hp_fmt_get_stack(const uint8_t *in, hp_rec_stack *r);
void hp_fmt_put_value(uint8_t *out, const hp_rec_value *r);
void hp_fmt_get_value(const uint8_t *in, hp_rec_value *r);
/* The fixed part only (HP_REC_PATH_FIXED bytes); the guard ids follow as u32 LE. */
void hp_fmt_put_path(uint8_t *out, const hp_rec_path *r);
void hp_fmt_get_path(const uint8_t *in, hp_rec_path *r);

typedef struct hp_fmt_file_info { uint16_t major, minor; uint64_t seed; uint32_t flags; } hp_fmt_file_info;
typedef struct hp_fmt_section { uint32_t type; uint64_t length; uint32_t payload_crc; } hp_fmt_section;

/* 0 on success; otherwise a static message saying what is wrong. */
const char *hp_fmt_parse_file_header(const uint8_t *in, size_t len, hp_fmt_file_info *out);
const char *hp_fmt_parse_section_header(const uint8_t *in, size_t len, hp_fmt_section *out);
const char *hp_section_type_name(uint32_t type);

#endif
