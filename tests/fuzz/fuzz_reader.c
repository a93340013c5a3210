/* fuzz_reader.c — libFuzzer target for the profile reader, and everything a report does with
 * what it reads: parse the bytes, and if they are accepted, order and print every table as text
 * and as JSON (the symbolizer gets no modules, so no file outside the input is touched).
 * Each input is read twice: as it is (the checksums must refuse most mutations), and with every
 * header and payload checksum recomputed ("resealed"), so that mutations reach the decoders.
 * Build and run: see tests/fuzz/README.md. The invariant checked is the reader's contract: any
 * input is either refused with a message or read into a profile that reports without crashing,
 * leaking or reading out of bounds (ASan/UBSan watch that).
 */
#include "analysis/profile.h"
#include "analysis/report.h"
#include "analysis/symbolize.h"
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Recomputes the file header CRC and every section's payload and header CRCs in place. */
static void reseal(uint8_t *d, size_t len)
{
    if (len < HP_FMT_FILE_HEADER_SIZE) return;
    put_le32(d + 28, hp_crc32(0, d, 28));
    size_t off = HP_FMT_FILE_HEADER_SIZE;
    while (len - off >= HP_FMT_SECTION_HEADER_SIZE) {
        hp_rbuf b = hp_rbuf_make(d + off + 8, 8);
        uint64_t length = hp_get_u64(&b);
        size_t left = len - off - HP_FMT_SECTION_HEADER_SIZE;
        if (length <= left) put_le32(d + off + 16, hp_crc32(0, d + off + HP_FMT_SECTION_HEADER_SIZE, (size_t)length));
        put_le32(d + off + 20, hp_crc32(0, d + off, 20));
        if (length > left) return;
        off += HP_FMT_SECTION_HEADER_SIZE + (size_t)length;
    }
}

static void render_all(const hp_profile *p)
{
    hp_symbolizer *s = hp_sym_open(NULL, 0);
    FILE *sink = fopen("/dev/null", "w");
    if (s && sink) {
        hp_report_opts text = {5, HP_SORT_NAME, HP_FORMAT_TEXT, 1, 1, 1, NULL, 0};
        hp_report_opts json = {0, HP_SORT_HEAT, HP_FORMAT_JSON, 1, 1, 1, NULL, 0};
        hp_report_write(sink, p, s, &text);
        hp_report_write(sink, p, s, &json);
    }
    if (sink) fclose(sink);
    hp_sym_close(s);
}

static void read_and_report(const uint8_t *data, size_t size)
{
    char err[512];
    hp_profile *p = hp_profile_read_mem(data, size, "fuzz", err, sizeof err);
    if (!p) {
        if (!err[0]) abort(); /* a refusal always says why */
        return;
    }
    render_all(p);
    hp_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_and_report(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    reseal(copy, size);
    read_and_report(copy, size);
    free(copy);
    return 0;
}
