/* registry.c — the runtime's profile types, one line each, in core/ptype id order (pt.h). */
#include "runtime/pt/pt.h"

const hp_pt *const hp_rt_ptypes[] = {&hp_pt_methods, &hp_pt_callpairs, &hp_pt_blocks, &hp_pt_edges,
                                     &hp_pt_datastream, &hp_pt_subpath, &hp_pt_intervals,
                                     &hp_pt_samples, &hp_pt_value, &hp_pt_path, NULL};

/* Each live slot of a table read through its published pointer (tab.h): a reader that sees a
 * slot's k1 sees its key and counts. */
HP_NOINST void hp_pt_each_slot(hp_tab *const *tabp, void (*put)(const hp_slot *s, uint64_t k1, const hp_pt_sink *o),
                               const hp_pt_sink *o)
{
    hp_tab *t = HP_LOAD_ACQ(tabp);
    for (uint64_t i = 0; i <= t->mask; i++) {
        uint64_t k1 = HP_LOAD_ACQ(&t->s[i].k1);
        if (k1) put(&t->s[i], k1, o);
    }
}
