/*
 * number_layout_bytes.h: number_format.c's layout byte by byte, for a target that is not
 * little-endian (FJCS_HAVE_LITTLE_ENDIAN 0), where the words of the little-endian layout would
 * hold their characters in the wrong order. Included by number_format.c alone, at the point where
 * its own layout is left out; it uses that file's DIGIT_PAIRS, POW10_16 and write_exponent.
 */

/* Eight decimal digits of x < 10^8, with leading zeros. */
FJCS_INLINE void write8(char *p, uint32_t x) {
    uint32_t hi = x / 10000, lo = x % 10000;
    memcpy(p, DIGIT_PAIRS + 2 * (hi / 100), 2);
    memcpy(p + 2, DIGIT_PAIRS + 2 * (hi % 100), 2);
    memcpy(p + 4, DIGIT_PAIRS + 2 * (lo / 100), 2);
    memcpy(p + 6, DIGIT_PAIRS + 2 * (lo % 100), 2);
}

/* ---- Layout: ECMA-262 Number::toString ------------------------------------------------------- */

/* Writes 0.d1..d17 * 10^n (the seventeen digits of 10^16 <= d < 10^17) at p as ECMAScript lays
 * it out and returns the end. */
FJCS_INLINE char *layout(char *p, uint64_t d, int n) {
    char s[17];
    uint64_t first = d / POW10_16;
    d -= first * POW10_16;
    uint64_t high = d / 100000000;
    s[0] = (char)('0' + first);
    write8(s + 1, (uint32_t)high);
    write8(s + 9, (uint32_t)(d - high * 100000000));
    int len = 17;
    while (s[len - 1] == '0') len--; /* k of ES2015 7.1.12.1 step 5 */

    if (n > 0 && n <= 21) {
        if (n >= len) { /* step 6: an integer, the digits and n - k zeros */
            memcpy(p, s, (size_t)len);
            memset(p + len, '0', (size_t)(n - len));
            return p + n;
        }
        /* step 7: n digits, the point, the rest */
        memcpy(p, s, (size_t)n);
        p[n] = '.';
        memcpy(p + n + 1, s + n, (size_t)(len - n));
        return p + len + 1;
    }
    if (n > -6 && n <= 0) { /* step 8: "0.", -n zeros, the digits */
        p[0] = '0';
        p[1] = '.';
        memset(p + 2, '0', (size_t)-n);
        memcpy(p + 2 - n, s, (size_t)len);
        return p + 2 - n + len;
    }
    /* steps 9-10: d[.ddd]e+/-x with x = |n - 1| */
    p[0] = s[0];
    if (len > 1) {
        p[1] = '.';
        memcpy(p + 2, s + 1, (size_t)(len - 1));
        p += len + 1;
    } else {
        p += 1;
    }
    return write_exponent(p, n - 1);
}
