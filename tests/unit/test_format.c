/* test_format.c — CRC-32 against known vectors, the byte codec's bounds, and the profile
 * framing (file and section headers, record encoders) round-tripping and rejecting damage. */
#include "core/base/bytes.h"
#include "core/base/crc32.h"
#include "core/format/format.h"
#include "test.h"
#include <string.h>

TEST(crc32_known_vectors)
{
    CHECK_EQ_U64(hp_crc32(0, "", 0), 0);
    CHECK_EQ_U64(hp_crc32(0, "123456789", 9), 0xcbf43926u);
    CHECK_EQ_U64(hp_crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414fa339u);
    uint32_t split = hp_crc32(hp_crc32(0, "12345", 5), "6789", 4);
    CHECK_EQ_U64(split, 0xcbf43926u);
}

TEST(bytes_roundtrip_and_bounds)
{
    uint8_t buf[13];
    hp_wbuf w = hp_wbuf_make(buf, sizeof buf);
    hp_put_u64(&w, 0x0102030405060708ull);
    hp_put_u32(&w, 0xa0b0c0d0u);
    hp_put_u8(&w, 0x7f);
    CHECK(w.ok);
    CHECK_EQ_U64(buf[0], 0x08); /* little-endian */
    hp_put_u8(&w, 1);
    CHECK(!w.ok);
    hp_rbuf r = hp_rbuf_make(buf, sizeof buf);
    CHECK_EQ_U64(hp_get_u64(&r), 0x0102030405060708ull);
    CHECK_EQ_U64(hp_get_u32(&r), 0xa0b0c0d0u);
    CHECK_EQ_U64(hp_get_u8(&r), 0x7f);
    CHECK(r.ok);
    CHECK_EQ_U64(hp_get_u32(&r), 0);
    CHECK(!r.ok);
}

TEST(file_header_roundtrip_and_damage)
{
    uint8_t h[HP_FMT_FILE_HEADER_SIZE];
    hp_fmt_file_header(h, 0xdeadbeefcafeull, 3);
    hp_fmt_file_info info;
    CHECK(hp_fmt_parse_file_header(h, sizeof h, &info) == NULL);
    CHECK_EQ_U64(info.seed, 0xdeadbeefcafeull);
    CHECK_EQ_U64(info.flags, 3);
    CHECK_EQ_U64(info.major, HP_FMT_MAJOR);
    CHECK(hp_fmt_parse_file_header(h, sizeof h - 1, &info) != NULL);
    int all_flips_rejected = 1;
    for (size_t bit = 0; bit < sizeof h * 8; bit++) {
        h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        all_flips_rejected &= hp_fmt_parse_file_header(h, sizeof h, &info) != NULL;
        h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    CHECK(all_flips_rejected);
}

TEST(section_header_roundtrip_and_damage)
{
    uint8_t h[HP_FMT_SECTION_HEADER_SIZE];
    hp_fmt_section_header(h, HP_SEC_FUNCS, 48, 0x12345678u);
    hp_fmt_section s;
    CHECK(hp_fmt_parse_section_header(h, sizeof h, &s) == NULL);
    CHECK_EQ_U64(s.type, HP_SEC_FUNCS);
    CHECK_EQ_U64(s.length, 48);
    CHECK_EQ_U64(s.payload_crc, 0x12345678u);
    int all_flips_rejected = 1;
    for (size_t bit = 0; bit < sizeof h * 8; bit++) {
        h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        all_flips_rejected &= hp_fmt_parse_section_header(h, sizeof h, &s) != NULL;
        h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    CHECK(all_flips_rejected);
    hp_fmt_section_header(h, HP_SEC_FUNCS, HP_FMT_MAX_SECTION + 1, 0);
    CHECK(hp_fmt_parse_section_header(h, sizeof h, &s) != NULL);
}

TEST(records_roundtrip)
{
    uint8_t buf[24];
    hp_rec_func f = {0x401000, 123456789012ull, 7}, f2;
    hp_fmt_put_func(buf, &f);
    hp_fmt_get_func(buf, &f2);
    CHECK(f.addr == f2.addr && f.calls == f2.calls && f.backedges == f2.backedges);
    hp_rec_callpair c = {0x401234, 0x402000, 99}, c2;
    hp_fmt_put_callpair(buf, &c);
    hp_fmt_get_callpair(buf, &c2);
    CHECK(c.site == c2.site && c.callee == c2.callee && c.count == c2.count);
    hp_rec_edge e = {17, 4000000000u, 1ull << 40}, e2;
    hp_fmt_put_edge(buf, &e);
    hp_fmt_get_edge(buf, &e2);
    CHECK(e.from == e2.from && e.to == e2.to && e.count == e2.count);
    hp_rec_block b = {5, 1, 0x7fff00001234ull}, b2;
    hp_fmt_put_block(buf, &b);
    hp_fmt_get_block(buf, &b2);
    CHECK(b.guard == b2.guard && b.flags == b2.flags && b.pc == b2.pc);
    CHECK(strcmp(hp_section_type_name(HP_SEC_EDGES), "edges") == 0);
    CHECK(strcmp(hp_section_type_name(999), "unknown") == 0);
}

int main(void)
{
    RUN(crc32_known_vectors);
    RUN(bytes_roundtrip_and_bounds);
    RUN(file_header_roundtrip_and_damage);
    RUN(section_header_roundtrip_and_damage);
    RUN(records_roundtrip);
    return test_main_end();
}
