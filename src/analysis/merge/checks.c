/* checks.c — what makes inputs refuse to merge (merge.h, step 1). Each refusal is one message
 * naming the files and what differs:
 *   - the mode (INFO mode; absent = exhaustive): exhaustive counts and sampled counts do not add;
 *   - in sampled modes, every sampling parameter (each INFO sample.* key, present in either file):
 *     counts sampled under other parameters are not one sample, and `report` scales by one
 *     observed frequency per type;
 *   - two build-ids for one module path (different builds of one program): their addresses mean
 *     different code. With force they are kept as separate modules (the note says so).
 */
#include "analysis/merge/merge.h"
#include "core/format/info_keys.h"
#include <stdio.h>
#include <string.h>

const char *hp_merge_info(const hp_merge *m, size_t i, const char *key) { return hp_profile_info(m->in[i], key); }

static const char *mode_of(const hp_merge *m, size_t i)
{
    const char *v = hp_merge_info(m, i, HP_INFO_MODE);
    return v ? v : HP_MODE_EXHAUSTIVE;
}

static int check_mode(hp_merge *m)
{
    for (size_t i = 1; i < m->nin; i++)
        if (strcmp(mode_of(m, i), mode_of(m, 0)) != 0)
            return hp_merge_fail(m, "cannot merge profiles of different modes: %s is %s, %s is %s (their counts do "
                                 "not add)", m->in[0]->name, mode_of(m, 0), m->in[i]->name, mode_of(m, i));
    return 0;
}

/* Input i's sample.* keys against input 0's, both ways. */
static int check_sampling_pair(hp_merge *m, size_t a, size_t b)
{
    static const char prefix[] = HP_INFO_SAMPLE_PREFIX;
    const hp_profile *p = m->in[a];
    for (size_t k = 0; k < p->ninfo; k++) {
        const char *key = p->info[k].key;
        if (strncmp(key, prefix, sizeof prefix - 1) != 0) continue;
        const char *va = hp_merge_info(m, a, key), *vb = hp_merge_info(m, b, key);
        if (vb && strcmp(va, vb) == 0) continue;
        return hp_merge_fail(m, "cannot merge sampled profiles with different sampling parameters: %s has %s=%s, %s "
                             "has %s%s%s", p->name, key, va, m->in[b]->name, vb ? key : "no ", vb ? "=" : key,
                             vb ? vb : "");
    }
    return 0;
}

static int check_sampling(hp_merge *m)
{
    if (strcmp(mode_of(m, 0), HP_MODE_EXHAUSTIVE) == 0) return 0;
    for (size_t i = 1; i < m->nin; i++)
        if (check_sampling_pair(m, 0, i) || check_sampling_pair(m, i, 0)) return -1;
    return 0;
}

static void hex(char *out, size_t cap, const hp_module *mod)
{
    size_t n = 0;
    out[0] = 0;
    for (uint32_t k = 0; k < mod->buildid_len && n + 3 < cap; k++) n += (size_t)snprintf(out + n, cap - n, "%02x", mod->buildid[k]);
}

static int different_builds(const hp_module *a, const hp_module *b)
{
    if (!a->buildid_len || !b->buildid_len || strcmp(a->path, b->path) != 0) return 0;
    return a->buildid_len != b->buildid_len || memcmp(a->buildid, b->buildid, a->buildid_len) != 0;
}

/* Input i's modules against every earlier input's. */
static int check_builds_of(hp_merge *m, size_t i)
{
    char ha[80], hb[80];
    for (size_t e = 0; e < i; e++)
        for (size_t j = 0; j < m->in[i]->nmodules; j++)
            for (size_t k = 0; k < m->in[e]->nmodules; k++) {
                const hp_module *a = &m->in[e]->modules[k], *b = &m->in[i]->modules[j];
                if (!different_builds(a, b)) continue;
                hex(ha, sizeof ha, a), hex(hb, sizeof hb, b);
                if (m->opts.force) {
                    hp_merge_note(m, "%s: build %s of %s kept as a module apart from build %s of %s (only the build on "
                                  "disk symbolizes)", m->in[i]->name, hb, b->path, ha, m->in[e]->name);
                    continue;
                }
                return hp_merge_fail(m, "%s and %s hold different builds of %s (build-id %s vs %s); merge profiles "
                                     "of one build (--force keeps both builds as separate modules)",
                                     m->in[e]->name, m->in[i]->name, a->path, ha, hb);
            }
    return 0;
}

int hp_merge_check(hp_merge *m)
{
    if (check_mode(m) || check_sampling(m)) return -1;
    for (size_t i = 1; i < m->nin; i++)
        if (check_builds_of(m, i)) return -1;
    return 0;
}
