/*
 * fjcs_internal.h: what the .c files of the core share and the binding does not see.
 *
 * Names here start with fjcs__ (two underscores): internal, but visible across the core's files.
 * The shared extension is built with -fvisibility=hidden, so none of them is exported.
 */
#ifndef FJCS_INTERNAL_H
#define FJCS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fastjcs.h"
#include "fjcs_config.h"

#if FJCS_HAVE_SSE2
#include <emmintrin.h>
#endif

/* ---- Growable buffers ------------------------------------------------------------------------ */

/* Make room for `need` more bytes (slow path of fjcs__buf_reserve). FJCS_OK or FJCS_E_NOMEM. */
fjcs_code fjcs__buf_grow(fjcs_buf *b, size_t need);

static inline fjcs_code fjcs__buf_reserve(fjcs_buf *b, size_t need) {
    if (FJCS_LIKELY(b->cap - b->len >= need)) return FJCS_OK;
    return fjcs__buf_grow(b, need);
}

/* Appends that assume fjcs__buf_reserve made room. */
static inline void fjcs__buf_put(fjcs_buf *b, char c) { b->data[b->len++] = c; }
static inline void fjcs__buf_put_n(fjcs_buf *b, const void *s, size_t n) {
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

/*
 * Make room for one more item of `size` bytes in the array *items, which holds count items in
 * room for *cap. The array starts in `local`, storage of the caller's (so a small input allocates
 * nothing), and moves to the heap, doubling, when it outgrows it; with `local` NULL it is on the
 * heap from the start (*items NULL, *cap 0 until then). FJCS_OK or FJCS_E_NOMEM.
 */
fjcs_code fjcs__grow(void **items, size_t *cap, size_t count, size_t size, void *local);

/* Make room for `more` items of `size` bytes after the count items of the heap array *items
 * (*items NULL and *cap 0 until the first call), doubling. FJCS_OK or FJCS_E_NOMEM. */
fjcs_code fjcs__grow_by_slow(void **items, size_t *cap, size_t count, size_t more, size_t size);

static inline fjcs_code fjcs__grow_by(void **items, size_t *cap, size_t count, size_t more, size_t size) {
    if (FJCS_LIKELY(*cap - count >= more)) return FJCS_OK;
    return fjcs__grow_by_slow(items, cap, count, more, size);
}

/* Free an array that fjcs__grow may have moved to the heap. */
static inline void fjcs__release(void *items, void *local) {
    if (items != local) free(items);
}

/* Fill the caller's error record, if it gave one, and return the code (FJCS_E_SYNTAX errors then
 * set err->expected: text.c). */
static inline fjcs_code fjcs__fail(fjcs_error *err, fjcs_code code, size_t offset, const char *msg) {
    if (err) {
        err->code = (fjcs_code)code;
        err->expected = FJCS_EXPECT_NOTHING;
        err->offset = offset;
        err->message = msg;
    }
    return code;
}

/* ---- Digests --------------------------------------------------------------------------------- */

/* Hash in[0..len) with the hasher into digest (room for FJCS_MAX_DIGEST bytes): FJCS_OK, or
 * FJCS_E_HASH when the hasher's size is above FJCS_MAX_DIGEST or its function fails. */
static inline fjcs_code fjcs__hash(const fjcs_hasher *h, const char *in, size_t len, uint8_t *digest) {
    if (h->size > FJCS_MAX_DIGEST || h->fn((const uint8_t *)in, len, digest, h->size) != 0)
        return FJCS_E_HASH;
    return FJCS_OK;
}

/* The width of a rendered digest: the hasher's prefix, then two hex digits per byte. */
static inline size_t fjcs__rendered_size(const fjcs_hasher *h) {
    return (h->prefix ? strlen(h->prefix) : 0) + 2 * h->size;
}

/* Render the hasher's prefix and digest[0..h->size) in lowercase hex at dst (room for
 * fjcs__rendered_size bytes); returns the end. The one hex routine of the core (writer.c). */
char *fjcs__render_digest(const fjcs_hasher *h, const uint8_t *digest, char *dst);

/* ---- UTF-8 ----------------------------------------------------------------------------------- */

/*
 * The length (2, 3 or 4) of the well-formed UTF-8 sequence at p (p[0] >= 0x80), by Unicode
 * Table 3-7 / RFC 3629 section 4: no overlongs, no surrogates (ED A0..BF), nothing above
 * U+10FFFF; 0 when it is not well formed, including when it runs past end.
 */
static inline int fjcs__utf8_sequence_length(const uint8_t *p, const uint8_t *end) {
    uint8_t c = p[0];
    size_t avail = (size_t)(end - p);
    uint8_t lo = 0x80, hi = 0xBF;
    if (c < 0xC2) return 0; /* a continuation byte, or C0/C1 (always overlong) */
    if (c < 0xE0) return (avail >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
    if (c < 0xF0) {
        if (c == 0xE0) lo = 0xA0;      /* below: overlong */
        else if (c == 0xED) hi = 0x9F; /* above: UTF-16 surrogates */
        if (avail < 3 || p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80) return 0;
        return 3;
    }
    if (c < 0xF5) {
        if (c == 0xF0) lo = 0x90;      /* below: overlong */
        else if (c == 0xF4) hi = 0x8F; /* above: beyond U+10FFFF */
        if (avail < 4 || p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 ||
            (p[3] & 0xC0) != 0x80)
            return 0;
        return 4;
    }
    return 0;
}

/* True when p holds a UTF-8-encoded surrogate (ED A0..BF 80..BF), as surrogatepass writes it. */
static inline int fjcs__utf8_is_encoded_surrogate(const uint8_t *p, const uint8_t *end) {
    return end - p >= 3 && p[0] == 0xED && p[1] >= 0xA0 && p[1] <= 0xBF && (p[2] & 0xC0) == 0x80;
}

/* ---- SWAR scanning (8 bytes at a time) ------------------------------------------------------- */

#define FJCS_ONES UINT64_C(0x0101010101010101)
#define FJCS_HIGHS UINT64_C(0x8080808080808080)

static inline uint64_t fjcs__load_u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/*
 * Nonzero when one of the 8 bytes of v is a byte a JSON string cannot hold as it is: below 0x20,
 * '"', '\\', or the start of a multi-byte sequence (>= 0x80, to be validated). The bit tricks
 * ("has a zero byte", "has a byte less than n", from the folklore of SWAR) answer "is there any"
 * exactly; a byte above the first such one may be flagged falsely (by a borrow out of a flagged
 * byte below it), never one below, so on a little-endian machine the lowest flagged byte
 * (fjcs__ctz64(m) / 8) is the first such byte.
 */
static inline uint64_t fjcs__swar_string_special(uint64_t v) {
    uint64_t less20 = (v - FJCS_ONES * 0x20) & ~v;
    uint64_t x22 = v ^ (FJCS_ONES * 0x22), x5c = v ^ (FJCS_ONES * 0x5C);
    uint64_t quote = (x22 - FJCS_ONES) & ~x22;
    uint64_t bslash = (x5c - FJCS_ONES) & ~x5c;
    return (less20 | quote | bslash | v) & FJCS_HIGHS;
}

/*
 * Nonzero when one of the 8 bytes of v needs an escape in a canonical string (RFC 8785 3.2.2.2):
 * below 0x20, '"' or '\\'. Bytes >= 0x80 of well-formed UTF-8 need none and are not flagged. Exact
 * as "is there any"; and the lowest flagged byte (in memory order, on a little-endian machine:
 * fjcs__ctz64(m) / 8) is always one that needs the escape, since a false flag can arise only from
 * a borrow out of a lower byte that was itself flagged.
 */
static inline uint64_t fjcs__swar_needs_escape(uint64_t v) {
    uint64_t less20 = (v - FJCS_ONES * 0x20) & ~v;
    uint64_t x22 = v ^ (FJCS_ONES * 0x22), x5c = v ^ (FJCS_ONES * 0x5C);
    uint64_t quote = (x22 - FJCS_ONES) & ~x22;
    uint64_t bslash = (x5c - FJCS_ONES) & ~x5c;
    return (less20 | quote | bslash) & FJCS_HIGHS;
}

#if FJCS_HAVE_SSE2
/*
 * The bytes of v (16, in memory order: bit i is byte i) that a JSON string cannot hold as they
 * are: '"', '\\', below 0x20, or the start of a multi-byte sequence (>= 0x80, to be validated).
 * Compared as signed bytes, those below 0x20 are exactly 0x00..0x1F and 0x80..0xFF. Exact per
 * byte, unlike the SWAR test above, so the lowest set bit is the first such byte.
 */
static inline unsigned fjcs__sse_string_special(__m128i v) {
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i bslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i low_or_high = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, bslash), low_or_high));
}
#endif

/* The decimal digit pairs "00" .. "99" (number_format.c): two digits per lookup. */
extern const char fjcs__digit_pairs[200];

#if FJCS_HAVE_SSE2
/* Copy the 16 bytes at src to dst; the mask (bit i for byte i) of those that need an escape
 * (below 0x20, '"', '\\'; bytes >= 0x80 need none). */
FJCS_INLINE unsigned fjcs__copy16_escapes(char *dst, const uint8_t *src) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)src);
    _mm_storeu_si128((__m128i *)(void *)dst, v);
    __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v); /* v <= 0x1F */
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i bslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(ctl, _mm_or_si128(quote, bslash)));
}
#endif

/*
 * Copy s[0..n) to dst and return 1 when none of its bytes needs an escape (the common string);
 * return 0 when one does (dst[0..n) then holds some of the bytes, which the caller overwrites).
 * Reads s[0..n) and writes dst[0..n) only: a string's last 16 (or 8, or 4) bytes are read as one
 * block that may overlap the one before; below 4 bytes, its first, middle and last bytes.
 */
FJCS_INLINE int fjcs__copy_plain(char *dst, const uint8_t *s, size_t n) {
#if FJCS_HAVE_SSE2
    if (n >= 16) {
        size_t i = 0;
        for (; i + 32 < n; i += 16)
            if (fjcs__copy16_escapes(dst + i, s + i)) return 0;
        /* the last two blocks (which may overlap, or be one), both copied, then their masks tested */
        return (fjcs__copy16_escapes(dst + i, s + i) | fjcs__copy16_escapes(dst + n - 16, s + n - 16)) == 0;
    }
#endif
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            uint64_t v = fjcs__load_u64(s + i);
            if (fjcs__swar_needs_escape(v)) return 0;
            memcpy(dst + i, &v, 8);
        }
        uint64_t v = fjcs__load_u64(s + n - 8);
        if (fjcs__swar_needs_escape(v)) return 0;
        memcpy(dst + n - 8, &v, 8);
        return 1;
    }
    /* The predicate is per byte ("is there any" is exact), so any bytes of the string may share a
     * word in any order; the rest of the word is spaces, which need nothing. */
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        if (fjcs__swar_needs_escape((uint64_t)a | (uint64_t)b << 32)) return 0;
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
        return 1;
    }
    if (n > 0) {
        uint8_t a = s[0], b = s[n >> 1], c = s[n - 1];
        if (fjcs__swar_needs_escape(UINT64_C(0x2020202020000000) | a | (uint64_t)b << 8 | (uint64_t)c << 16))
            return 0;
        dst[0] = (char)a;
        dst[n >> 1] = (char)b;
        dst[n - 1] = (char)c;
    }
    return 1;
}

/* ---- Integers out ---------------------------------------------------------------------------- */

/* Digits at d, returning their end: exactly 2 of x < 100, 4 of x < 10^4, 8 of x < 10^8 (leading
 * zeros kept); and 1 to 4, 1 to 8 without them. Constant divisions: multiplies and shifts. */
FJCS_INLINE char *fjcs__digits2(char *d, uint32_t x) {
    memcpy(d, fjcs__digit_pairs + 2 * x, 2);
    return d + 2;
}

FJCS_INLINE char *fjcs__digits4(char *d, uint32_t x) {
    uint32_t hi = x / 100;
    fjcs__digits2(d, hi);
    return fjcs__digits2(d + 2, x - hi * 100);
}

FJCS_INLINE char *fjcs__digits8(char *d, uint32_t x) {
    uint32_t hi = x / 10000;
    fjcs__digits4(d, hi);
    return fjcs__digits4(d + 4, x - hi * 10000);
}

FJCS_INLINE char *fjcs__digits_upto4(char *d, uint32_t x) {
    if (x < 10) {
        *d = (char)('0' + x);
        return d + 1;
    }
    if (x < 100) return fjcs__digits2(d, x);
    uint32_t hi = x / 100, lo = x - hi * 100;
    if (x < 1000) {
        *d = (char)('0' + hi);
        return fjcs__digits2(d + 1, lo);
    }
    fjcs__digits2(d, hi);
    return fjcs__digits2(d + 2, lo);
}

FJCS_INLINE char *fjcs__digits_upto8(char *d, uint32_t x) {
    if (x < 10000) return fjcs__digits_upto4(d, x);
    uint32_t hi = x / 10000;
    return fjcs__digits4(fjcs__digits_upto4(d, hi), x - hi * 10000);
}

/* The decimal form of v at d (room for FJCS_INT_CHARS bytes), returning its end. */
#define FJCS_INT_CHARS 20 /* "-9223372036854775808" */
FJCS_INLINE char *fjcs__format_int(char *d, int64_t v) {
    /* The magnitude as unsigned: -INT64_MIN does not fit an int64_t. */
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        *d++ = '-';
        u = (uint64_t)0 - u;
    }
    if (u < 100000000) return fjcs__digits_upto8(d, (uint32_t)u);
    if (u < UINT64_C(10000000000000000)) {
        uint64_t hi = u / 100000000;
        return fjcs__digits8(fjcs__digits_upto8(d, (uint32_t)hi), (uint32_t)(u - hi * 100000000));
    }
    uint64_t top = u / UINT64_C(10000000000000000); /* at most 1844 */
    uint64_t rest = u - top * UINT64_C(10000000000000000), hi = rest / 100000000;
    d = fjcs__digits_upto4(d, (uint32_t)top);
    return fjcs__digits8(fjcs__digits8(d, (uint32_t)hi), (uint32_t)(rest - hi * 100000000));
}

/* ---- Output pieces --------------------------------------------------------------------------- */

/*
 * Append s[0..n), which must be well-formed UTF-8 without surrogates, as a canonical JSON string
 * (RFC 8785 section 3.2.2.2): '"' and '\\' and the controls escaped, \b \t \n \f \r in short form,
 * other controls as \u00xx in lowercase hex, nothing else escaped. FJCS_OK or FJCS_E_NOMEM.
 */
fjcs_code fjcs__write_string(fjcs_buf *out, const uint8_t *s, size_t n);

/* Append a signed 64-bit integer in decimal. FJCS_OK or FJCS_E_NOMEM. */
fjcs_code fjcs__write_int(fjcs_buf *out, int64_t v);

/* Append the ECMAScript rendering of a finite double. FJCS_OK, FJCS_E_FLOAT_DOMAIN, NOMEM. */
fjcs_code fjcs__write_double(fjcs_buf *out, double v);

/*
 * Lay out 0.d * 10^n as ECMAScript does (ECMA-262 Number::toString steps 5-10), where d is the
 * len-digit integer m (1 <= len <= 17, m >= 10^(len-1), trailing zeros allowed), with a '-' first
 * when negative. m must already be the shortest digits of the double meant (the caller's proof).
 * buf holds FJCS_NUMBER_BUFSIZE bytes; returns the length.
 */
int fjcs__format_digits(uint64_t m, int len, int n, int negative, char *buf);

/* The ECMAScript digits of a finite double v != 0 (number_format.c, Schubfach), for callers that
 * look at them before laying them out: returns d, 10^16 <= d < 10^17 (its trailing zeros are not
 * digits), and sets *n, the value being +-0.d * 10^n. fjcs__format_digits(d, 17, n, v < 0, buf)
 * writes what fjcs_format_double would. */
uint64_t fjcs__shortest_digits(double v, int *n);

/* fjcs_format_double of the double with these bits, for callers that hold the bits (the direct
 * walker reads them from a float object) and keep the output's end in a pointer: the end of what
 * was written at buf (FJCS_NUMBER_BUFSIZE bytes), or NULL for NaN and the infinities. */
char *fjcs__put_double_bits(uint64_t bits, char *buf);

/* ---- Numbers in ------------------------------------------------------------------------------ */

/*
 * Read a JSON number token (RFC 8259 section 6 grammar) of len bytes at tok as the nearest double,
 * ties to even, without depending on the C locale (number_parse.c). Stores it in *out and returns
 * FJCS_OK; returns FJCS_E_FLOAT_DOMAIN (storing nothing) when the magnitude rounds to infinity,
 * and FJCS_E_SYNTAX (storing nothing) for bytes that are not a number token. Values too small for
 * a subnormal become a signed zero. Allocates nothing; any length works, in time linear in it.
 */
fjcs_code fjcs__parse_double(const char *tok, size_t len, double *out);

/* fjcs__parse_double for a token already read (text.c): w is all of its significant digits as an
 * integer, at most 19 of them, and the value is w * 10^q (q: the exponent less the number of
 * fraction digits); tok, len the token itself, read only when the fast paths cannot decide. */
fjcs_code fjcs__parse_digits(uint64_t w, int64_t q, int negative, const char *tok, size_t len,
                             double *out);

/* fjcs__parse_digits for 0 < w < 10^17 without a trailing zero, which also sets *shortest to 1
 * when it proves w * 10^q is the double's ECMAScript digits (number_parse.c says how), 0 when it
 * does not know. */
fjcs_code fjcs__parse_shortest(uint64_t w, int64_t q, int negative, const char *tok, size_t len,
                               double *out, int *shortest);

/* ---- Objects: member order and duplicates ---------------------------------------------------- */

/* The length of the longest common prefix of a[0..n) and b[0..n): the first index where they
 * differ, or n. */
static inline size_t fjcs__first_difference(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t i = 0;
#if FJCS_HAVE_LITTLE_ENDIAN
    /* A word at a time, the last word ending at n (its bytes before i are equal in both), and
     * below 8 bytes two half-words the same way: where two words differ, the first differing byte
     * is the lowest nonzero byte of their XOR. Only bytes [0, n) of each name are read. */
    uint64_t d;
    if (n == 0 || a[0] != b[0]) return 0; /* unrelated names differ at once */
    if (n >= 8) {
        for (; i + 8 <= n; i += 8)
            if ((d = fjcs__load_u64(a + i) ^ fjcs__load_u64(b + i)) != 0) return i + (size_t)fjcs__ctz64(d) / 8;
        if (i < n && (d = fjcs__load_u64(a + n - 8) ^ fjcs__load_u64(b + n - 8)) != 0)
            return n - 8 + (size_t)fjcs__ctz64(d) / 8;
        return n;
    }
    if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if ((d = x ^ y) != 0) return (size_t)fjcs__ctz64(d) / 8;
        memcpy(&x, a + n - 4, 4);
        memcpy(&y, b + n - 4, 4);
        if ((d = x ^ y) != 0) return n - 4 + (size_t)fjcs__ctz64(d) / 8;
        return n;
    }
#else
    while (i + 8 <= n && fjcs__load_u64(a + i) == fjcs__load_u64(b + i)) i += 8;
#endif
    while (i < n && a[i] == b[i]) i++;
    return i;
}

/* The order of two names (see fjcs__key_cmp) that agree on their first i bytes and differ at byte
 * i, or agree on all of the shorter one (i is its length). */
static inline int fjcs__key_cmp_at(const uint8_t *a, size_t an, const uint8_t *b, size_t bn, size_t i) {
    if (i == (an < bn ? an : bn)) return (an > bn) - (an < bn);
    uint8_t x = a[i], y = b[i];
    /* Bytes >= 0xEE are lead bytes, so i is a character boundary in both names (they agree up to
     * i, and UTF-8 is self-synchronising). EE/EF start U+E000..U+FFFF, F0..F4 a supplementary
     * character, whose UTF-16 form starts with a surrogate D800..DBFF: it sorts first. */
    if (x >= 0xEE && y >= 0xEE && (x >= 0xF0) != (y >= 0xF0)) return x >= 0xF0 ? -1 : 1;
    return x < y ? -1 : 1;
}

/*
 * Compare two unescaped member names as RFC 8785 section 3.2.3 orders them: by their UTF-16 code
 * units as unsigned integers, a proper prefix first. UTF-8 byte order is code point order, which
 * agrees with UTF-16 order except between a character at or above U+10000 (lead byte F0..F4, a
 * surrogate pair D800.. in UTF-16) and one in U+E000..U+FFFF (lead byte EE or EF): there the
 * supplementary character sorts first. Returns <0, 0, >0.
 */
static inline int fjcs__key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
    size_t n = an < bn ? an : bn, i = 0;
    while (i + 8 <= n && fjcs__load_u64(a + i) == fjcs__load_u64(b + i)) i += 8;
    while (i < n && a[i] == b[i]) i++;
    return fjcs__key_cmp_at(a, an, b, bn, i);
}

/* fjcs__key_cmp with the first differing byte found a word at a time to the end (see
 * fjcs__first_difference): fewer instructions where names share long prefixes (a sorted object's
 * neighbours: canonical.c's check); inlined into a member sort's loop it costs more than it saves
 * (issue 33's `wide` sort: 64,470 -> 66,579 instructions a call), so the sorts keep the loop above. */
static inline int fjcs__key_cmp_words(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
    return fjcs__key_cmp_at(a, an, b, bn, fjcs__first_difference(a, b, an < bn ? an : bn));
}

/* One member of an object being written: its name, where its `"name":value` sits in the output
 * (without the separating commas), and where its name began in the input (for errors). */
typedef struct fjcs__member {
    const uint8_t *key;
    size_t key_len;
    size_t start, end;
    size_t pos;
} fjcs__member;

/* A run of output bytes, [start, end). */
typedef struct fjcs__span {
    size_t start, end;
} fjcs__span;

/* An object whose members still sit in input order in the output, from `start` to `end`; its
 * members in canonical order are spans[first .. first + n) of its fjcs__order. */
typedef struct fjcs__reorder {
    size_t start, end;
    size_t first, n;
} fjcs__reorder;

/*
 * What has moved inside a container so far: the bytes already rewritten by an object's reordering,
 * and whether an object inside was recorded for fjcs__order_finish. A closing container adds its
 * own to its parent's (fjcs__nest_into).
 */
typedef struct fjcs__nest {
    size_t moved;
    unsigned char deferred;
} fjcs__nest;

static inline void fjcs__nest_into(fjcs__nest *parent, const fjcs__nest *child) {
    parent->moved += child->moved;
    parent->deferred |= child->deferred;
}

/*
 * Putting the members of one output's objects in order. Zero-initialise; fjcs__order_free.
 *
 * Moving an object's members when it closes costs the size of the object. Done at every level of
 * a deep nest of unordered objects, that is depth x size (quadratic). So an object moves its
 * bytes at once only when at least an eighth of them move for the first time (and nothing inside
 * it was recorded); otherwise it records where its members go (an fjcs__reorder), and
 * fjcs__order_finish writes every recorded object in one pass at the end. Immediate moves then
 * cost at most 8 times the output, and the final pass once more, whatever the nesting; a flat
 * record moves at once, as small objects are cheapest to move while they are in cache.
 *
 * Records share shapes: the canonical order of a few recent sequences of names (small objects
 * only) is remembered, and an object whose names are exactly a remembered sequence, byte for
 * byte, takes its order (and its freedom from duplicates) without sorting. What is remembered
 * outlives fjcs__order_reset: a parser kept between calls keeps it.
 */
/* The canonical order of one sequence of member names, remembered (fjcs__order.memo). */
#define FJCS_MEMO_MEMBERS 16   /* objects of at most this many members */
#define FJCS_MEMO_BYTES 480    /* whose names hold at most this many bytes in all */
#define FJCS_MEMO_SLOTS 4

typedef struct fjcs__order_memo {
    uint8_t n;                           /* members; 0: the slot is empty */
    uint8_t changed;                     /* the canonical order differs from the input order */
    uint8_t perm[FJCS_MEMO_MEMBERS];     /* canonical position i holds input member perm[i] */
    uint16_t len[FJCS_MEMO_MEMBERS];     /* the names' lengths, in input order */
    uint8_t names[FJCS_MEMO_BYTES];      /* the names, in input order, end to end */
} fjcs__order_memo;

typedef struct fjcs__order {
    fjcs_buf scratch;           /* merge-sort space and copies of the bytes being moved */
    fjcs__order_memo *memo;     /* FJCS_MEMO_SLOTS remembered orders (records share shapes),
                                   allocated at the first object to order; NULL before */
    fjcs__span *spans;           /* member spans of the recorded objects, in canonical order */
    size_t nspans, spans_cap;
    fjcs__reorder *recs;         /* the recorded objects, in the order they closed */
    size_t nrecs, recs_cap;
} fjcs__order;

/*
 * Put the n members of an object, written into out in input order and separated by single commas
 * (member i from m[i].start to m[i].end), into canonical order. `sorted` says the caller has seen
 * the names strictly increasing already, in which case nothing moves. Otherwise the members are
 * sorted (stably) and a repeated name is reported as FJCS_E_DUPKEY with *dup_pos the input
 * position of the earliest member whose name repeats an earlier one. `nest` holds what moved
 * inside the object; when its order changes, the bytes are rewritten now or recorded in o for
 * fjcs__order_finish (see fjcs__order), and nest is updated to say so. Returns FJCS_OK,
 * FJCS_E_DUPKEY or FJCS_E_NOMEM. m may be reordered.
 */
fjcs_code fjcs__order_members(fjcs_buf *out, fjcs__member *m, size_t n, int sorted, fjcs__nest *nest,
                        fjcs__order *o, size_t *dup_pos);

/* Write the objects recorded in o into canonical order, in one pass over out, and forget them.
 * Call once the value is complete. FJCS_OK or FJCS_E_NOMEM (out is then unchanged). */
fjcs_code fjcs__order_finish(fjcs_buf *out, fjcs__order *o);

/* Forget any recorded objects (a new value starts). */
static inline void fjcs__order_reset(fjcs__order *o) { o->nspans = o->nrecs = 0; }

void fjcs__order_free(fjcs__order *o);

/* ---- The marshal reader (object.c) ----------------------------------------------------------- */

/* fjcs_canonicalize_marshal, putting members in order with `order` (kept by the caller from one
 * call to the next, so that its buffers are reused; NULL: a fresh one, freed before returning). */
fjcs_code fjcs__marshal_run(const char *data, size_t len, size_t max_depth, fjcs_flags flags, fjcs_buf *out,
                      fjcs_error *err, fjcs__order *order);

/* ---- The text canonicalizer (text.c) --------------------------------------------------------- */

/* One open container of the text being read. */
typedef struct fjcs__text_frame {
    size_t mbase;      /* this object's first member in the member stack */
    size_t arena_mark; /* arena length when the object opened: its names live above */
    unsigned char is_object;
    unsigned char sorted; /* member names strictly increasing so far */
    fjcs__nest nest;      /* what moved inside (reordered objects) */
} fjcs__text_frame;

/* A member whose name held escapes keeps the unescaped name in the arena, which may move when it
 * grows: until the object closes, such a name is an arena offset (key == NULL, key_off). */
typedef struct fjcs__text_member {
    fjcs__member m;
    size_t key_off;
} fjcs__text_member;

/*
 * A text canonicalizer: the parser's stacks and scratch buffers, kept from one text to the next so
 * that a batch of texts allocates almost nothing. fjcs__text_init it (it allocates nothing), run
 * it on any number of texts, then fjcs__text_free it. The fields are text.c's.
 */
typedef struct fjcs__text {
    const uint8_t *base, *end;
    fjcs_buf *out;
    fjcs_buf arena;     /* unescaped names (and, briefly, unescaped values) */
    fjcs__order order;  /* reordering members */
    fjcs__text_frame *frames;
    size_t nframes, frames_cap;
    fjcs__text_member *members;
    size_t nmembers, members_cap;
    size_t max_depth;
    fjcs_flags flags;
    fjcs_error *err;
    fjcs__text_frame frames_local[16]; /* the stacks start here: a small text allocates nothing */
    fjcs__text_member members_local[32];
} fjcs__text;

/* Ready t for texts nested at most max_depth deep, with fjcs_canonicalize's flags. */
void fjcs__text_init(fjcs__text *t, size_t max_depth, fjcs_flags flags);

/* Set the depth limit and flags of the texts t runs from now on (a parser kept between calls). */
void fjcs__text_set_limits(fjcs__text *t, size_t max_depth, fjcs_flags flags);

/* Canonicalize text[0..len) and append it to out: fjcs_canonicalize's answer and error record. */
fjcs_code fjcs__text_run(fjcs__text *t, const char *text, size_t len, fjcs_buf *out, fjcs_error *err);

/* Free what t allocated (it may be initialised again). */
void fjcs__text_free(fjcs__text *t);

/* 1 when text[0..len) is its own canonical form: fjcs_canonicalize would accept it under
 * max_depth and flags and give back exactly these bytes; 0 when that is not known (canonical.c). */
int fjcs__text_is_canonical(const char *text, size_t len, size_t max_depth, fjcs_flags flags);

/* The same check of the first line of text[0..avail) (up to its first b'\n', or all of it), found
 * without looking for its end first: 1 and the line's length in *len when the line is its own
 * canonical form, else 0 (the caller finds the line's end and parses it). */
int fjcs__line_is_canonical(const char *text, size_t avail, size_t max_depth, fjcs_flags flags, size_t *len);

/* ---- Batches of texts (batch.c) ---------------------------------------------------------------- */

/* The canonical check's record over a batch: texts that are already their own canonical form are
 * taken without the parser, and after two texts in a row the check refuses, the next few go
 * straight to the parser (batch.c's CANONICAL_RETRY). Zeroed for a batch. */
typedef struct fjcs__canonical_tries {
    unsigned skip;   /* texts to leave to the parser before the check is tried again */
    unsigned missed; /* texts in a row the check refused */
} fjcs__canonical_tries;

/* Canonicalize one text of a batch with the batch's parser and buffer (ps, out: reused from one
 * text to the next, so that a batch allocates almost nothing), and hash it into item->digest,
 * item->err its error record; a text that is already its own canonical form (canonical.c says so
 * in one pass that writes nothing) is hashed where it lies. FJCS_E_NOMEM, else FJCS_OK (the
 * text's own error is in item->err). */
fjcs_code fjcs__digest_one(fjcs__text *ps, fjcs_buf *out, const char *text, size_t len,
                           const fjcs_hasher *hasher, fjcs_item *item, fjcs__canonical_tries *tries);

#endif /* FJCS_INTERNAL_H */
