/* cc_hooksets.h — the hook sets `hotprof cc` can compile in: the one place that says which compiler
 * flags produce which events. A sampled mode that needs other hooks (XRay sleds, patchable
 * entries, two-version code) adds a row to the table in cc_hooksets.c and nothing else. */
#ifndef HOTPROF_CLI_CC_HOOKSETS_H
#define HOTPROF_CLI_CC_HOOKSETS_H

#define HP_HOOKSET_MAX_FLAGS 4

typedef struct hp_hookset {
    const char *name;
    const char *about;
    /* Compile flags for clang; NULL-terminated. */
    const char *clang_flags[HP_HOOKSET_MAX_FLAGS];
    /* Compile flags for gcc, or NULL in gcc_flags[0] with gcc_lacks saying what gcc is missing. */
    const char *gcc_flags[HP_HOOKSET_MAX_FLAGS];
    const char *gcc_lacks;
    /* Extra flags for link steps of executables (clang only); NULL-terminated, may be empty. */
    const char *link_flags[HP_HOOKSET_MAX_FLAGS];
} hp_hookset;

extern const hp_hookset hp_hooksets[];
extern const char *const hp_hookset_default;
const hp_hookset *hp_hookset_find(const char *name);

#endif
