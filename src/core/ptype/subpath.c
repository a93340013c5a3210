/* subpath.c — the subpath profile type's descriptor (ptype.h): hot basic-block subpaths, online
 * subpath profiling (osp-online-subpath-profiling.txt). Sampled by its own controller (skip and
 * length, core/control/osp.h), not by the HPS counters: bursty_type is -1. */
#include "core/ptype/ptype.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_subpath = {
    .id = HP_PT_SUBPATH,
    .name = "subpath",
    .synonyms = "subpaths",
    .title = "hot subpaths",
    .bursty_type = -1,
    .section = HP_SEC_SUBPATHS,
    .summary_id = 0,
    .record_size = 0,
    .key_doc = "the subpath's encoding: enc=xor (length and the XOR of its guard ids) or enc=exact "
               "(a hash of the rotation-canonical guard sequence)",
    .group_level = 1,
};
