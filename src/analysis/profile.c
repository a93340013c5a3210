/* profile.c — the in-memory profile's accessors and its release (profile.h). Reading is in
 * reader.c; each profile type's arrays are released by its own file (src/analysis/ptype/).
 */
#include "analysis/profile.h"
#include "core/format/info_keys.h"
#include "analysis/ptype/aptype.h"
#include <stdlib.h>
#include <string.h>

double hp_profile_sample_frequency(const hp_profile *p, int type)
{
    if (type < 0 || type >= HP_BURSTY_NTYPES || !p->sample[type].events) return 0.0;
    return (double)p->sample[type].sampled / (double)p->sample[type].events;
}

void hp_profile_free(hp_profile *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->ninfo; i++) free(p->info[i].key), free(p->info[i].value);
    for (size_t i = 0; i < p->nmodules; i++) free(p->modules[i].path), free(p->modules[i].buildid);
    for (size_t i = 0; i < p->nwarnings; i++) free(p->warnings[i]);
    free(p->info);
    free(p->modules);
    free(p->warnings);
    free(p->sections);
    for (int i = 0; i < HP_PT_COUNT; i++)
        if (hp_aptypes[i]->release) hp_aptypes[i]->release(p);
    free(p->threads);
    free(p->name);
    free(p);
}

const char *hp_profile_info(const hp_profile *p, const char *key)
{
    for (size_t i = p->ninfo; i-- > 0;)
        if (strcmp(p->info[i].key, key) == 0) return p->info[i].value;
    return NULL;
}

int hp_profile_is_timer(const hp_profile *p)
{
    const char *mode = hp_profile_info(p, HP_INFO_MODE);
    return mode && strcmp(mode, HP_MODE_TIMER) == 0;
}

const hp_module *hp_profile_module_at(const hp_profile *p, uint64_t addr)
{
    for (size_t i = 0; i < p->nmodules; i++)
        if (addr >= p->modules[i].lo && addr < p->modules[i].hi) return &p->modules[i];
    return NULL;
}

