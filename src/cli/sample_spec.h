/* sample_spec.h — the --sample clauses of `hotprof run` and `hotprof top`, checked once with
 * core/control/spec and turned into the text the runtime reads (HOTPROF_SAMPLE). Shared so that
 * both commands accept and refuse exactly the same settings. */
#ifndef HOTPROF_CLI_SAMPLE_SPEC_H
#define HOTPROF_CLI_SAMPLE_SPEC_H
#include <stddef.h>
#include "cli/options.h"

/* Each clause of samples (a type named twice takes the later clause; none: the default HPS types)
 * into out as one spec. In exhaustive mode only subpath clauses are allowed (exact counting).
 * 0, or HP_PARSE_ERROR after a usage message of desc. */
int hp_cli_sample_spec(const hp_command_desc *desc, const hp_opt_list *samples, int exhaustive, char *out,
                       size_t cap);

#endif
