/*
 * cpython/decimal_layout.c: an exact Decimal in plain notation read from the object, for
 * default=fastjcs.stdlib_types (cpython/types.c writes it; this file reads it, and checks at
 * registration that the layout holds). Moved out of types.c, which it brought past 600 lines.
 */
#include "walker.h"

/*
 * CPython's Decimal objects, as its _decimal module lays them out (not part of the limited API):
 * after the object's head and a cached hash, libmpdec's mpd_t (flags, a byte: 1 the sign, 2 4 8
 * the special values; then exp, digits, len, alloc, each an ssize_t; then data, a pointer to len
 * words of base 10^19, least significant first, on 64-bit builds), then the words of a small
 * coefficient, where data points. str() writes plain notation when exp <= 0 and the adjusted
 * exponent (exp + digits - 1) is -6 or more: those are read here, without making a str; any other
 * (exponent notation, whose 'E' depends on the thread's context, NaN, the infinities, a
 * coefficient not held in the object) through str(). The layout is checked when the types are
 * registered (probe_decimal: sample decimals against their str()), and read only when data points
 * into the object itself.
 */
typedef struct dec_layout {
    PyObject head;
    Py_hash_t hash;
    uint8_t flags;
    Py_ssize_t exp, digits, len, alloc;
    const uint64_t *data;
    uint64_t words[4];
} dec_layout;

#define DEC_RADIX UINT64_C(10000000000000000000) /* 10^19 */

/* decimal_text reads the layout on 64-bit builds only (words of base 10^19), and writes a
 * coefficient of one word from a register on little-endian ones: the helpers of each exist only
 * where they are used (a -Werror build for a big-endian or 32-bit target has no unused one). */
#define DEC_READ (SIZE_MAX > 0xffffffffu)
#define DEC_ONE_WORD (DEC_READ && FJCS_HAVE_LITTLE_ENDIAN)

#if DEC_READ

/* The decimal digits of x, written at the end of p[0..width) zero-padded (width 19), or as many
 * as it has (width 0): the count written. */
static size_t word_digits(char *p, uint64_t x, size_t width) {
    char tmp[20], *q = tmp + 20; /* written from the end */
    while (x >= 100) {
        q -= 2;
        memcpy(q, fjcs__digit_pairs + 2 * (x % 100), 2);
        x /= 100;
    }
    if (x >= 10) {
        q -= 2;
        memcpy(q, fjcs__digit_pairs + 2 * x, 2);
    } else {
        *--q = (char)('0' + x);
    }
    while ((size_t)(tmp + 20 - q) < width) *--q = '0';
    size_t n = (size_t)(tmp + 20 - q);
    memcpy(p, q, n);
    return n;
}
#endif

#if DEC_ONE_WORD
/* The 8 decimal digits of x (below 10^8, zero-padded) as 8 ASCII bytes in memory order (read
 * as a little-endian word): x split in two halves of 4 digits, each lane of the word divided by
 * 100 then by 10 at once, by multiplying with reciprocals exact for such lanes (a lane below
 * 10^4: floor(y * 5243 / 2^19) = floor(y / 100); below 100: floor(y * 103 / 2^10) = y / 10). */
FJCS_INLINE uint64_t eight_digits(uint32_t x) {
    uint64_t v = (uint64_t)(x / 10000) | (uint64_t)(x % 10000) << 32; /* the first half lowest */
    uint64_t q = (v * 5243 >> 19) & UINT64_C(0x0000007F0000007F);
    v = q | (v - q * 100) << 16; /* 16-bit lanes: hundreds, then the rest */
    q = (v * 103 >> 10) & UINT64_C(0x000F000F000F000F);
    v = q | (v - q * 10) << 8; /* bytes: tens, then units */
    return v + UINT64_C(0x3030303030303030);
}

static const uint64_t pow10_of[20] = {UINT64_C(1),
                                      UINT64_C(10),
                                      UINT64_C(100),
                                      UINT64_C(1000),
                                      UINT64_C(10000),
                                      UINT64_C(100000),
                                      UINT64_C(1000000),
                                      UINT64_C(10000000),
                                      UINT64_C(100000000),
                                      UINT64_C(1000000000),
                                      UINT64_C(10000000000),
                                      UINT64_C(100000000000),
                                      UINT64_C(1000000000000),
                                      UINT64_C(10000000000000),
                                      UINT64_C(100000000000000),
                                      UINT64_C(1000000000000000),
                                      UINT64_C(10000000000000000),
                                      UINT64_C(100000000000000000),
                                      UINT64_C(1000000000000000000),
                                      UINT64_C(10000000000000000000)};

/* The digits of a coefficient of one word (below 10^19, with `digits` digits as libmpdec counts
 * them: checked), right-aligned in text[0..20): where the first is; NULL when the count is not
 * the word's. */
static const char *one_word(uint64_t x, Py_ssize_t digits, char *text) {
    if (digits < 1 || digits > 19 || (digits > 1 && x < pow10_of[digits - 1]) || x >= pow10_of[digits]) return NULL;
    if (digits <= 8) { /* (most amounts: one conversion) */
        uint64_t lo = eight_digits((uint32_t)x);
        memcpy(text + 12, &lo, 8);
        return text + 20 - digits;
    }
    uint64_t top = x / UINT64_C(10000000000000000), rest = x % UINT64_C(10000000000000000); /* / 10^16 */
    uint64_t hi = eight_digits((uint32_t)(rest / 100000000)), lo = eight_digits((uint32_t)(rest % 100000000));
    memcpy(text, fjcs__digit_pairs + 2 * (top / 100), 2); /* (top below 1000) */
    memcpy(text + 2, fjcs__digit_pairs + 2 * (top % 100), 2);
    memcpy(text + 4, &hi, 8);
    memcpy(text + 12, &lo, 8);
    return text + 20 - digits;
}

/* The plain notation of a coefficient x of n <= 8 digits with `point` digits before the point
 * (n: no point; point <= 0: "0.", -point zeros, then the digits), written at p: its end. The
 * digits are made in one register, the first in its low byte, and stored where they go: in a
 * buffer and copied from there with one wider load, they waited for the narrower stores just made
 * (store forwarding fails), a third of decimal_text's time. Writes 8 bytes past p + point + 1 at
 * most (within DEC_TEXT). */
static char *eight_or_fewer(uint64_t x, size_t n, Py_ssize_t point, char *p) {
    uint64_t ascii = eight_digits((uint32_t)x) >> (8 * (8 - n)); /* the n digits, then zero bytes */
    if (point <= 0) {
        memcpy(p, "0.00000", 8); /* "0.", 0 to 5 zeros, the digits */
        p += 2 - point;
        memcpy(p, &ascii, 8);
        return p + n;
    }
    memcpy(p, &ascii, 8); /* point of them, or all n */
    if ((size_t)point >= n) return p + n;
    p += point;
    *p++ = '.';
    ascii >>= 8 * (size_t)point;
    memcpy(p, &ascii, 8); /* the other n - point */
    return p + n - (size_t)point;
}
#endif

/* str(v) of an exact Decimal in plain notation, read from its layout into text (DEC_TEXT bytes):
 * its length; 0 when it is not read so (str() is asked then). A coefficient of one word, the
 * common case, is written with fixed-size copies that may write past the text's end, within
 * DEC_TEXT; one of more words is written digit by digit. */
size_t decimal_text(PyObject *v, char *text) {
#if DEC_READ
    const dec_layout *d = (const dec_layout *)v;
    if (d->data != d->words || d->flags & 14 || d->len < 1 || d->len > 4 || d->exp > 0) return 0;
    char *p = text;
    Py_ssize_t point = d->digits + d->exp; /* digits before the point */
    if (point < -5) return 0; /* the adjusted exponent, point - 1, below -6: exponent notation */
    if (d->flags & 1) *p++ = '-';
#if DEC_ONE_WORD
    if (d->len == 1) {
        uint64_t x = d->data[0];
        size_t n = (size_t)d->digits;
        if (n >= 1 && n <= 8 && (n == 1 || x >= pow10_of[n - 1]) && x < pow10_of[n])
            return (size_t)(eight_or_fewer(x, n, point, p) - text); /* (most amounts) */
        char digits[48]; /* 20 and room for the fixed-size copies below to read past them */
        const char *first = one_word(x, d->digits, digits);
        if (first == NULL) return 0;
        memset(digits + 20, '0', 28);
        if (d->exp == 0) {
            memcpy(p, first, 20); /* n of them */
            return (size_t)(p + n - text);
        }
        if (point > 0) {
            memcpy(p, first, 20); /* point of them, then the point and the rest */
            p += point;
            *p++ = '.';
            memcpy(p, first + point, 20);
            return (size_t)(p + n - (size_t)point - text);
        }
        memcpy(p, "0.00000", 8); /* "0.", 0 to 5 zeros, the digits */
        p += 2 - point;
        memcpy(p, first, 20);
        return (size_t)(p + n - text);
    }
#endif
    char digits[80];
    size_t n = 0;
    for (Py_ssize_t i = d->len; i-- > 0;) {
        if (d->data[i] >= DEC_RADIX) return 0;
        n += word_digits(digits + n, d->data[i], i == d->len - 1 ? 0 : 19);
    }
    if ((Py_ssize_t)n != d->digits) return 0;
    if (d->exp == 0) {
        memcpy(p, digits, n);
        p += n;
    } else if (point > 0) {
        memcpy(p, digits, (size_t)point);
        p += point;
        *p++ = '.';
        memcpy(p, digits + point, n - (size_t)point);
        p += n - (size_t)point;
    } else {
        *p++ = '0';
        *p++ = '.';
        for (Py_ssize_t i = point; i < 0; i++) *p++ = '0';
        memcpy(p, digits, n);
        p += n;
    }
    return (size_t)(p - text);
#else
    (void)v;
    (void)text;
    return 0;
#endif
}

/* Whether sample decimals read by layout give their str() (those in plain notation: all read;
 * the others: none). */
int probe_decimal(PyTypeObject *decimal) {
    static const char *const samples[] = {"12.50", "-0", "0", "0.00", "0.000001234", "-0.0000012", "123",
                                          "9999999999999999999", "10000000000000000000", "-1.5",
                                          "123456789012345678901234567890123456789.0123456789", "1E+3",
                                          "1.2E-7", "NaN", "-Infinity", "0E-7", "1E+1"};
    int ok = 1;
    for (size_t i = 0; ok && i < sizeof samples / sizeof *samples; i++) {
        PyObject *v = PyObject_CallFunction((PyObject *)decimal, "s", samples[i]);
        PyObject *s = v ? PyObject_Str(v) : NULL;
        Py_ssize_t n;
        const char *want = s ? PyUnicode_AsUTF8AndSize(s, &n) : NULL;
        char text[DEC_TEXT];
        size_t len = want && Py_TYPE(v) == decimal ? decimal_text(v, text) : 0;
        int plain = want && strchr(want, 'E') == NULL && strchr(want, 'N') == NULL && strchr(want, 'I') == NULL;
        ok = want != NULL && (plain ? len == (size_t)n && memcmp(text, want, len) == 0 : len == 0);
        Py_XDECREF(s);
        Py_XDECREF(v);
    }
    PyErr_Clear();
    return ok;
}
