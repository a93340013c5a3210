/* interp.c — SKELETON of the value-sampling interpreter (interp.h): it interprets nothing yet (the
 * interp branch replaces this file). */
#include "runtime/ctl/interp.h"
#include "runtime/base.h"

HP_NOINST int hp_interp_start(const hp_interp_config *c, char *err, size_t errlen) { return 0; }
HP_NOINST struct hp_interp_thread *hp_interp_thread_new(void) { return NULL; }
HP_NOINST void hp_interp_on_sample(struct hp_thread *t, ucontext_t *uc) {}
HP_NOINST size_t hp_interp_info(char *out, size_t cap) { return 0; }
HP_NOINST uint64_t hp_interp_ns(void) { return 0; }
