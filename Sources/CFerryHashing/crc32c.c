// CRC-32C on the instructions made for it: one instruction per 8 bytes, about ten times the rate of table lookups.
// The journal checksums every click record with it (Sources/FerryServer/ClickJournal.swift), whose table-driven
// implementation stays the reference and the fallback.
#include "ferry_hashing.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

int ferry_crc32c_hardware(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t ferry_crc32c_update(uint32_t state, const void *bytes, size_t count) {
    const unsigned char *next = bytes;
    uint64_t crc = state;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, next, 8);
        crc = __builtin_ia32_crc32di(crc, word);
        next += 8;
        count -= 8;
    }
    uint32_t small = (uint32_t)crc;
    while (count > 0) {
        small = __builtin_ia32_crc32qi(small, *next);
        next += 1;
        count -= 1;
    }
    return small;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

int ferry_crc32c_hardware(void) { return 1; }

uint32_t ferry_crc32c_update(uint32_t state, const void *bytes, size_t count) {
    const unsigned char *next = bytes;
    uint32_t crc = state;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, next, 8);
        crc = __crc32cd(crc, word);
        next += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __crc32cb(crc, *next);
        next += 1;
        count -= 1;
    }
    return crc;
}

#else

int ferry_crc32c_hardware(void) { return 0; }

uint32_t ferry_crc32c_update(uint32_t state, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return state;
}

#endif
