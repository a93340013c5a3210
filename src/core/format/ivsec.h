/* ivsec.h — the INTERVALS section (HP_SEC_INTERVALS, docs/format.md): one thread's interval
 * timeline of one stream (core/summary/ivtimeline.h), its configuration and the tuples its keys
 * stand for. Encoders for the writer (runtime/pt/intervals.c) and a validating decoder for the
 * reader (analysis/ptype/intervals.c), little-endian:
 *   head (HP_IVSEC_HEAD_SIZE), with flag HP_IVSEC_VARIANT a trailer (HP_IVSEC_TRAILER_SIZE: variant,
 *   accumulator entries and counters in use, 0), nslots slots (HP_IVSEC_SLOT_SIZE), nentries entries
 *   (HP_IVSEC_ENTRY_SIZE, each slot's in order), nnames names (HP_IVSEC_NAME_SIZE: key, a, b).
 * Invariants the decoder checks: the length is exactly what the counts say; stream < 2; the
 * parameters are a valid multi-hash configuration (tables divide counters, T fits the bits);
 * the slots' entry counts sum to nentries; slots are in time order and do not overlap; each
 * slot's keys are strictly increasing; hits never exceed the slot's span; a variant's trailer
 * holds exactly the accumulator and counters hp_iv_multihash_params gives for the head's design.
 * Without the trailer (files written before variants existed, and variant=paper) the variant is
 * the paper's: the design as given. Pure C11.
 */
#ifndef HOTPROF_CORE_FORMAT_IVSEC_H
#define HOTPROF_CORE_FORMAT_IVSEC_H
#include <stddef.h>
#include <stdint.h>
#include "core/control/spec.h"
#include "core/summary/ivtimeline.h"

#define HP_IVSEC_HEAD_SIZE 128u
#define HP_IVSEC_SLOT_SIZE 32u
#define HP_IVSEC_ENTRY_SIZE 32u
#define HP_IVSEC_NAME_SIZE 24u
#define HP_IVSEC_EXACT 1u  /* flags: exact candidate sets recorded (entries' truth, exact_hits) */
#define HP_IVSEC_BURSTY 2u /* flags: bursty run: intervals count the tuples seen during bursts */
#define HP_IVSEC_VARIANT 4u /* flags: a trailer follows the head: p.variant is not the paper's */
#define HP_IVSEC_PATCH 8u   /* flags (with BURSTY): the bursts were patched windows (--bursts patch) */
#define HP_IVSEC_TRAILER_SIZE 16u
/* Bursty sections with fewer complete intervals than this get a warning (run and report): too few
 * sampled events per interval to show phases. */
#define HP_IVSEC_FEW_INTERVALS 4u

typedef struct hp_ivsec_head {
    uint32_t stream, flags;
    hp_iv_params p;      /* enabled = 1; counter_bits is the width in use */
    uint64_t T, seed;
    uint64_t intervals;  /* complete base intervals handed to the timeline */
    uint64_t dropped;    /* of which dropped (no room) */
    uint64_t events;     /* every event of the stream in this thread, the incomplete tail included */
    uint64_t tail_events;/* events of the incomplete last interval (not in the timeline) */
    uint64_t span;       /* base intervals per slot now (1: never merged) */
    uint32_t nslots, nentries, nnames;
    uint32_t acc_entries, counters_used; /* the structure in use (the variant applied; decoded or derived) */
    uint32_t head_len;   /* decoded: HP_IVSEC_HEAD_SIZE, plus the trailer if any */
} hp_ivsec_head;

typedef struct hp_ivsec_name { uint64_t key, a, b; } hp_ivsec_name;

/* The head, and the trailer when h->flags has HP_IVSEC_VARIANT; returns the bytes written. */
size_t hp_ivsec_put_head(uint8_t out[HP_IVSEC_HEAD_SIZE + HP_IVSEC_TRAILER_SIZE], const hp_ivsec_head *h);
void hp_ivsec_put_slot(uint8_t out[HP_IVSEC_SLOT_SIZE], const hp_ivt_slot *s);
void hp_ivsec_put_entry(uint8_t out[HP_IVSEC_ENTRY_SIZE], const hp_ivt_entry *e);
void hp_ivsec_put_name(uint8_t out[HP_IVSEC_NAME_SIZE], const hp_ivsec_name *n);

/* Decodes and validates a whole section. slots[nslots] (off filled in), entries[nentries],
 * names[nnames] must be sized from hp_ivsec_get_head first. 0, or -1 with one reason in why. */
int hp_ivsec_get_head(const uint8_t *p, size_t len, hp_ivsec_head *h, const char **why);
int hp_ivsec_get_body(const uint8_t *p, size_t len, const hp_ivsec_head *h, hp_ivt_slot *slots, hp_ivt_entry *entries,
                      hp_ivsec_name *names, const char **why);

#endif
