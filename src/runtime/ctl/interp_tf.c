/* interp_tf.c — placeholder of the trap-flag engine (being written). */
#include <stdio.h>
#include "runtime/ctl/interp_int.h"

int hp_tf_install(char *err, size_t errlen)
{
    snprintf(err, errlen, "value sampling: the tf engine is not built yet");
    return -1;
}
void hp_tf_begin(hp_interp_thread *it, ucontext_t *uc, uint32_t skip, uint32_t len) { (void)it; (void)uc; (void)skip; (void)len; }
size_t hp_tf_info(char *out, size_t at, size_t cap) { (void)out; (void)cap; return at; }
