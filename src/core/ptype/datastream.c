/* datastream.c — the datastream profile type's descriptor (ptype.h): hot data streams. */
#include "core/ptype/ptype.h"
#include "core/control/bursty.h"
#include "core/format/format.h"

const hp_ptype hp_ptype_datastream = {
    .id = HP_PT_DATASTREAM,
    .name = "datastream",
    .synonyms = "streams",
    .title = "hot data streams",
    .bursty_type = HP_BURSTY_DATA_STREAMS,
    .section = 0,
    .summary_id = HP_PROFILE_DATASTREAM,
    .record_size = 0,
    .key_doc = "a stream of data addresses, hashed by the detector (core/summary/datastream.h)",
};
