/* builder.h — builds one pprof profile (profile.proto) in memory and encodes it: the string
 * table, mappings, functions, locations and samples of `hotprof report --format pprof`.
 *
 * Strings, functions and locations are deduplicated: adding an equal one again returns the id
 * (string index) it already has, so a profile holds each once. Equal means: strings bytewise;
 * functions by (name, system_name, filename, start_line); locations by (mapping, address,
 * function, line) — a location without a function (addresses only) by (mapping, address).
 * Mappings are added as given (one per module: the caller adds each once). Samples are kept in
 * the order added, each with one value per sample type declared before it.
 * Invariants: string 0 is ""; ids of mappings, functions and locations are 1, 2, ... in the order
 * they were first added; 0 returned by an adder means out of memory (or, for a sample, a
 * value count that is not the number of sample types).
 */
#ifndef HOTPROF_ANALYSIS_PPROF_BUILDER_H
#define HOTPROF_ANALYSIS_PPROF_BUILDER_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_pprof hp_pprof;

typedef struct hp_pprof_mapping_desc {
    uint64_t start, limit, offset;
    const char *filename, *build_id; /* build_id: hex, "" if none */
    int has_functions, has_filenames, has_line_numbers;
} hp_pprof_mapping_desc;

hp_pprof *hp_pprof_new(void); /* NULL out of memory */
void hp_pprof_free(hp_pprof *b);

/* The string table index of s (added if new); -1 out of memory. */
int64_t hp_pprof_string(hp_pprof *b, const char *s);
/* Declares the next sample type (order = Sample.value order); 0, or -1 out of memory. */
int hp_pprof_sample_type(hp_pprof *b, const char *type, const char *unit);
size_t hp_pprof_nsample_types(const hp_pprof *b);
/* Which sample type pprof shows by default (a type name declared before); 0 or -1. */
int hp_pprof_default_type(hp_pprof *b, const char *type);
/* Profile.period_type and period; 0 or -1. */
int hp_pprof_period(hp_pprof *b, const char *type, const char *unit, int64_t period);
int hp_pprof_comment(hp_pprof *b, const char *text); /* 0 or -1 */
void hp_pprof_time(hp_pprof *b, int64_t unix_nanos);  /* Profile.time_nanos: when it was collected */

uint64_t hp_pprof_mapping(hp_pprof *b, const hp_pprof_mapping_desc *m);
/* filename NULL or "" and start_line 0 when unknown; system_name NULL: same as name. */
uint64_t hp_pprof_function(hp_pprof *b, const char *name, const char *system_name, const char *filename,
                           int64_t start_line);
/* function 0: an address-only location (symbolized later by the reader). */
uint64_t hp_pprof_location(hp_pprof *b, uint64_t mapping, uint64_t address, uint64_t function, int64_t line);
/* locations leaf first; nvalues must equal hp_pprof_nsample_types. 0, or -1. */
int hp_pprof_sample(hp_pprof *b, const uint64_t *locations, size_t nlocations, const int64_t *values, size_t nvalues);

/* The encoded (not compressed) Profile message in a malloc'd buffer; 0, or -1 out of memory. */
int hp_pprof_encode(const hp_pprof *b, uint8_t **out, size_t *len);

#endif
