#ifndef FERRY_HASHING_H
#define FERRY_HASHING_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor has CRC-32C instructions that `ferry_crc32c_update` uses (SSE 4.2 on x86-64, the CRC
/// extension on 64-bit ARM). When it returns 0, `ferry_crc32c_update` must not be called.
int ferry_crc32c_hardware(void);

/// Runs CRC-32C (Castagnoli, reflected) over `count` bytes from `state`, on the processor's instructions. The state
/// is neither inverted on entry nor on exit: a checksum is `~ferry_crc32c_update(~0u, bytes, count)`.
uint32_t ferry_crc32c_update(uint32_t state, const void *bytes, size_t count);

/// Whether `ferry_sha256_compress` runs on the processor's SHA instructions (x86-64's SHA extensions).
int ferry_sha256_hardware(void);

/// SHA-256's compression function (FIPS 180-4, 6.2.2) over `count` 64-byte blocks, updating the eight words of
/// `state` (H0 to H7), on the processor's SHA instructions where it has them.
void ferry_sha256_compress(uint32_t state[8], const void *blocks, size_t count);

/// The same, in portable C on any processor.
void ferry_sha256_compress_portable(uint32_t state[8], const void *blocks, size_t count);

#endif
