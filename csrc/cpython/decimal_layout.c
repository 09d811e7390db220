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

/* str(v) of an exact Decimal in plain notation, read from its layout into text (DEC_TEXT bytes):
 * its length; 0 when it is not read so (str() is asked then). */
size_t decimal_text(PyObject *v, char *text) {
#if SIZE_MAX > 0xffffffffu
    const dec_layout *d = (const dec_layout *)v;
    if (d->data != d->words || d->flags & 14 || d->len < 1 || d->len > 4 || d->exp > 0) return 0;
    char digits[80];
    size_t n = 0;
    for (Py_ssize_t i = d->len; i-- > 0;) {
        if (d->data[i] >= DEC_RADIX) return 0;
        n += word_digits(digits + n, d->data[i], i == d->len - 1 ? 0 : 19);
    }
    if ((Py_ssize_t)n != d->digits || d->exp + d->digits - 1 < -6) return 0;
    char *p = text;
    if (d->flags & 1) *p++ = '-';
    Py_ssize_t point = d->digits + d->exp; /* digits before the point */
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
