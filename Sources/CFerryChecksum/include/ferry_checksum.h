#ifndef FERRY_CHECKSUM_H
#define FERRY_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor has CRC-32C instructions that `ferry_crc32c_update` uses (SSE 4.2 on x86-64, the CRC
/// extension on 64-bit ARM). When it returns 0, `ferry_crc32c_update` must not be called.
int ferry_crc32c_hardware(void);

/// Runs CRC-32C (Castagnoli, reflected) over `count` bytes from `state`, on the processor's instructions. The state
/// is neither inverted on entry nor on exit: a checksum is `~ferry_crc32c_update(~0u, bytes, count)`.
uint32_t ferry_crc32c_update(uint32_t state, const void *bytes, size_t count);

#endif
