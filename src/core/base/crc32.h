/* crc32.h — CRC-32 (IEEE 802.3, reflected, as zlib computes it), table-free-at-build: the table
 * is a compile-time constant array so this stays pure and async-signal-safe. */
#ifndef HOTPROF_CORE_CRC32_H
#define HOTPROF_CORE_CRC32_H
#include <stddef.h>
#include <stdint.h>
/* Continue a CRC: start with crc = 0. hp_crc32(hp_crc32(0, a), b) == crc of a||b. */
uint32_t hp_crc32(uint32_t crc, const void *data, size_t len);
#endif
