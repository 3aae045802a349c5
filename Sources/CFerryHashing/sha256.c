// SHA-256's compression function, for the keyed hashes of client addresses (Sources/FerryServer/Secrets.swift): two
// compressions a hash, on the stack, without the allocation of a digest object per hash. On x86-64 processors with
// the SHA extensions, four rounds take two instructions; elsewhere, portable C.
#include "ferry_hashing.h"

#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotate_right(uint32_t value, int count) { return (value >> count) | (value << (32 - count)); }

static inline uint32_t big_endian_word(const unsigned char *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | (uint32_t)bytes[3];
}

void ferry_sha256_compress_portable(uint32_t state[8], const void *blocks, size_t count) {
    const unsigned char *block = blocks;
    for (; count > 0; count -= 1, block += 64) {
        uint32_t schedule[64];
        for (int t = 0; t < 16; t += 1) schedule[t] = big_endian_word(block + 4 * t);
        for (int t = 16; t < 64; t += 1) {
            uint32_t s0 = rotate_right(schedule[t - 15], 7) ^ rotate_right(schedule[t - 15], 18) ^ (schedule[t - 15] >> 3);
            uint32_t s1 = rotate_right(schedule[t - 2], 17) ^ rotate_right(schedule[t - 2], 19) ^ (schedule[t - 2] >> 10);
            schedule[t] = schedule[t - 16] + s0 + schedule[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t += 1) {
            uint32_t sum1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
            uint32_t choice = (e & f) ^ (~e & g);
            uint32_t first = h + sum1 + choice + round_constants[t] + schedule[t];
            uint32_t sum0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
            uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            uint32_t second = sum0 + majority;
            h = g; g = f; f = e; e = d + first;
            d = c; c = b; b = a; a = first + second;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
    }
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static int detect_sha(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int sse = (ecx & bit_SSSE3) != 0 && (ecx & bit_SSE4_1) != 0;
    if (!sse || !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & bit_SHA) != 0;
}

int ferry_sha256_hardware(void) {
    static int known = -1;
    if (known < 0) known = detect_sha();
    return known;
}

__attribute__((target("sha,sse4.1,ssse3")))
static void compress_sha(uint32_t state[8], const unsigned char *block, size_t count) {
    // The instructions keep the working variables as (A, B, E, F) and (C, D, G, H), highest lane first.
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; count > 0; count -= 1, block += 64) {
        __m128i saved_abef = abef, saved_cdgh = cdgh;
        __m128i words[4];
        for (int group = 0; group < 16; group += 1) {
            __m128i next;
            if (group < 4) {
                next = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * group)), byte_swap);
            } else {
                // W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four at a time.
                __m128i oldest = words[group % 4], older = words[(group + 1) % 4];
                __m128i old = words[(group + 2) % 4], newest = words[(group + 3) % 4];
                next = _mm_sha256msg1_epu32(oldest, older);
                next = _mm_add_epi32(next, _mm_alignr_epi8(newest, old, 4));
                next = _mm_sha256msg2_epu32(next, newest);
            }
            words[group % 4] = next;
            __m128i message = _mm_add_epi32(next, _mm_loadu_si128((const __m128i *)&round_constants[4 * group]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
        }
        abef = _mm_add_epi32(abef, saved_abef);
        cdgh = _mm_add_epi32(cdgh, saved_cdgh);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    hgfe = _mm_alignr_epi8(dchg, feba, 8);
    _mm_storeu_si128((__m128i *)&state[0], dcba);
    _mm_storeu_si128((__m128i *)&state[4], hgfe);
}

void ferry_sha256_compress(uint32_t state[8], const void *blocks, size_t count) {
    if (ferry_sha256_hardware()) {
        compress_sha(state, blocks, count);
    } else {
        ferry_sha256_compress_portable(state, blocks, count);
    }
}

#else

int ferry_sha256_hardware(void) { return 0; }

void ferry_sha256_compress(uint32_t state[8], const void *blocks, size_t count) {
    ferry_sha256_compress_portable(state, blocks, count);
}

#endif
