/*
 * number_digits.h: number_format.c's decimal digits as ASCII in machine words, for a
 * little-endian target: eight in a 64-bit word (ascii8), sixteen in an SSE2 register (ascii16),
 * the masks that place the point in that register, and insert_point for a word. Included by
 * number_format.c alone, where its layout needs them; tests/c/number_check.c checks them (the
 * digits against division on all 10^8 inputs).
 */

/* Eight ASCII digits of x < 10^8 as a little-endian word: the first digit in the low byte.
 * All eight at once ("SWAR"): x is split into two 4-digit lanes of 32 bits, each lane into two
 * 2-digit lanes of 16 bits, each of those into two digits of 8 bits, the leading part always into
 * the lower lane. The quotients are multiply-shifts: floor(y * 5243 / 2^19) = floor(y / 100) for
 * y < 43699, floor(z * 103 / 2^10) = floor(z / 10) for z < 179, and no product reaches the next
 * lane. tests/c/number_check.c compares this with division on all 10^8 inputs. */
FJCS_INLINE uint64_t ascii8(uint32_t x) {
    uint64_t v = (x / 10000) | ((uint64_t)(x % 10000) << 32);
    uint64_t hundreds = ((v * 5243) >> 19) & UINT64_C(0x0000007F0000007F);
    v = (v << 16) - hundreds * (100 * 65536 - 1); /* y -> (y / 100) | (y % 100) << 16 */
    uint64_t tens = ((v * 103) >> 10) & UINT64_C(0x000F000F000F000F);
    v = (v << 8) - tens * (10 * 256 - 1); /* z -> (z / 10) | (z % 10) << 8 */
    return v + UINT64_C(0x3030303030303030); /* '0' in every byte */
}

#define ASCII_ZEROS UINT64_C(0x3030303030303030)

#if FJCS_HAVE_SSE2
#include <emmintrin.h>

/* gcc rewrites a pmullw by a constant as shifts and adds (5 instructions for 100, 3 for 10, where
 * the multiply is one); an empty asm that may change the constant keeps the multiply. */
#if defined(__GNUC__)
#define OPAQUE_VECTOR(v) __asm__("" : "+x"(v))
#else
#define OPAQUE_VECTOR(v) ((void)0)
#endif

/* Sixteen ASCII digits, those of hi < 10^8 then those of lo < 10^8, the first in the low byte:
 * ascii8's steps on both halves at once, in the 128-bit registers every x86-64 has. The lanes go
 * 64 -> 32 -> 16 -> 8 bits: x / 10^4 = floor(x * 3518437209 / 2^45) for x < 10^8 (a 32x32->64
 * product), y / 100 = floor(y * 5243 / 2^19) for y < 10^4 and z / 10 = floor(z * 6554 / 2^16)
 * for z < 100 (16-bit high products). tests/c/number_check.c compares it with division on all
 * 10^8 inputs. */
FJCS_INLINE __m128i ascii16(uint32_t hi, uint32_t lo) {
    __m128i c100 = _mm_set1_epi16(100), c2559 = _mm_set1_epi16(10 * 256 - 1);
    OPAQUE_VECTOR(c100);
    OPAQUE_VECTOR(c2559);
    __m128i x = _mm_set_epi64x((long long)lo, (long long)hi);
    __m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi64x(3518437209)), 45);
    __m128i r = _mm_sub_epi32(x, _mm_mul_epu32(q, _mm_set1_epi64x(10000)));
    __m128i y = _mm_or_si128(q, _mm_slli_epi64(r, 32)); /* 4 digits in each 32-bit lane */
    __m128i h = _mm_srli_epi16(_mm_mulhi_epu16(y, _mm_set1_epi16(5243)), 3);
    __m128i r2 = _mm_sub_epi16(y, _mm_mullo_epi16(h, c100));
    __m128i z = _mm_or_si128(h, _mm_slli_epi32(r2, 16)); /* 2 digits in each 16-bit lane */
    __m128i t = _mm_mulhi_epu16(z, _mm_set1_epi16(6554));
    /* t | (z - 10t) << 8 as one product: z * 256 - t * (10 * 256 - 1), below 2^16 for z < 100 */
    __m128i d = _mm_sub_epi16(_mm_slli_epi16(z, 8), _mm_mullo_epi16(t, c2559));
    return _mm_add_epi8(d, _mm_set1_epi8('0'));
}
#endif

#if FJCS_HAVE_SSE2
/* Sixteen bytes loaded from POINT_MASKS + 16 - j have 0xFF in bytes 0..j-1 and 0 in the rest
 * (0 <= j <= 16): the bytes of a register before position j. */
static const unsigned char POINT_MASKS[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};
#endif

#if !FJCS_HAVE_SSE2 || defined(FJCS_NUMBER_CHECK)
/* The eight digits of w with '.' inserted before digit j (0 <= j <= 7): bytes 0..j-1 stay, byte j
 * is the point, bytes j+1..7 are w's bytes j..6 (w's last byte is the caller's to place). The
 * layout's step 7 where there is no SSE2; number_check.c (FJCS_NUMBER_CHECK) checks it on every
 * build, and elsewhere an SSE2 build leaves it out (clang's -Wunused-function). */
FJCS_INLINE uint64_t insert_point(uint64_t w, int j) {
    uint64_t keep = (UINT64_C(1) << (8 * j)) - 1;
    uint64_t moved = (w << 8) & ~((keep << 8) | 0xFF);
    return (w & keep) | ((uint64_t)'.' << (8 * j)) | moved;
}
#endif
