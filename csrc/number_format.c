/*
 * number_format.c: a double as ECMAScript's Number::toString writes it (RFC 8785 section 3.2.2.3).
 *
 * Two steps. First the decimal: the shortest digits that read back as the double, the nearest of
 * those to its exact value, ties to the even digit. This is Schubfach (R. Giulietti, "The Schubfach
 * way to render doubles", 2021), written from the paper's mathematics; the Java reference is not
 * followed where ECMAScript differs (Java asks for at least two digits and prints 5e-324 as 4.9E-324;
 * ECMAScript takes the shortest, "5e-324"). Second the layout of ECMA-262 Number::toString (ES2015
 * 7.1.12.1 steps 6-10; DESIGN.md section 2).
 *
 * The only departure from the paper's arithmetic is the width of the power-of-ten approximation g:
 * 128 bits here (two 64-bit words, the natural unit of a 64x64->128 multiply) where the paper stores
 * 126 bits in two 63-bit halves, and so where the round-to-odd sticky bit is taken. The bound that
 * makes this exact is proved per exponent by csrc/check_schubfach.py; see "Scaling" below.
 *
 * No allocation, no global mutable state, no printf/strtod: safe to call from any thread.
 */
#include <stdint.h>
#include <string.h>

#include "fastjcs.h"
#include "schubfach_table.h"

/* ---- Compile-time knobs ------------------------------------------------------------------------ */

/* 1: 64x64->128 products through the compiler's unsigned __int128; 0: through four 32x32->64
 * multiplies (portable C11). Defaults to 1 where the compiler has the type; tests/c builds the
 * number checker with -DFJCS_HAVE_INT128=0 too, so the fallback is exercised on every run. */
#ifndef FJCS_HAVE_INT128
#ifdef __SIZEOF_INT128__
#define FJCS_HAVE_INT128 1
#else
#define FJCS_HAVE_INT128 0
#endif
#endif

/* 1: doubles that are integers below 2^53 skip Schubfach and print their integer digits (the same
 * result, as their rounding interval is narrower than 1); 0: everything goes through Schubfach
 * (the tests build both ways). */
#ifndef FJCS_INTEGER_FAST_PATH
#define FJCS_INTEGER_FAST_PATH 1
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FJCS_INLINE static inline __attribute__((always_inline))
#else
#define FJCS_INLINE static inline
#endif

/* ---- binary64 ---------------------------------------------------------------------------------- */

/* v = c * 2^q with c < 2^53 (the paper's notation). Normal: c = 2^52 + fraction, q = e - 1075;
 * subnormal (e = 0): c = fraction, q = Q_MIN = -1074. */
#define C_MIN (UINT64_C(1) << 52)
#define FRACTION_MASK (C_MIN - 1)

/* ---- Floor logarithms -------------------------------------------------------------------------- */

/* Multiply-shift evaluations, with constants from gen_schubfach_table.py, which checks each one on
 * every argument of its range. The bias keeps the shifted operand non-negative (a right shift of a
 * negative int is implementation-defined in C); all of it fits in int32_t (also checked there). */

/* floor(q * log10(2)): the k of the regular case, 10^k <= 2^q < 10^(k+1). */
FJCS_INLINE int flog10_pow2(int q) {
    return ((q * FJCS_FLOG10_POW2_M + FJCS_FLOG10_POW2_BIAS) >> FJCS_FLOG10_POW2_S) -
           FJCS_FLOG10_POW2_T;
}

/* floor(log10(3/4 * 2^q)): the k when v is at a power of two and its lower neighbour is closer. */
FJCS_INLINE int flog10_3q_pow2(int q) {
    return ((q * FJCS_FLOG10_3Q_POW2_M + FJCS_FLOG10_3Q_POW2_BIAS) >> FJCS_FLOG10_3Q_POW2_S) -
           FJCS_FLOG10_3Q_POW2_T;
}

/* floor(e * log2(10)): the binary exponent of 10^e. */
FJCS_INLINE int flog2_pow10(int e) {
    return ((e * FJCS_FLOG2_POW10_M + FJCS_FLOG2_POW10_BIAS) >> FJCS_FLOG2_POW10_S) -
           FJCS_FLOG2_POW10_T;
}

/* ---- Scaling: round-to-odd of x * 2^q * 10^-k -------------------------------------------------- */

/*
 * The paper compares decimals against the scaled bounds of the rounding interval through one
 * quantity per bound: for x in {4c-2 or 4c-1, 4c, 4c+2}, E(x) = x * 2^q * 10^-k, reduced to the
 * integer vbp(x) = floor(E(x)) | (E(x) is not an integer), "round to odd". Against any even integer
 * 2m, vbp compares exactly as E does (if E is not an integer, vbp is odd and on the same side of 2m
 * as floor(E)); every comparison below is against a multiple of 2 (4u or 4s + 2).
 *
 * E(x) is computed as the top of the 192-bit product P = cp * g, where
 *     g  = floor(10^-k * 2^-r) + 1,  r = flog2_pow10(-k) - 127,   so 2^127 < g < 2^128,
 *     cp = x << h,                   h = q + flog2_pow10(-k) + 1,  so 1 <= h <= 4,
 * which makes P / 2^128 = E(x) + eps with 0 < eps = cp * (g - 10^-k * 2^-r) / 2^128 < 2^-69
 * (cp < 2^59). Let R = P mod 2^128. When E(x) is an integer, floor(P / 2^128) = E(x) and R < 2^59.
 * When it is not, check_schubfach.py shows for every q and k (a continued-fraction minimum over all
 * x <= 2^55) that frac(E(x)) lies in [2^-67, 1 - 2^-63]: so floor(P / 2^128) = floor(E(x)) and
 * R >= 2^61. Hence: vbp = floor(P / 2^128) | (R >= 2^61).
 * (The paper's layout takes the sticky bit from whole words; with 128-bit g, two exponents
 * (q = 664, 668) have frac(E) near 2^-65.4, below a word, so the threshold sits at 2^61 instead.)
 */

#if FJCS_HAVE_INT128
__extension__ typedef unsigned __int128 fjcs_u128;

FJCS_INLINE uint64_t round_to_odd(const uint64_t g[2], uint64_t cp) {
    fjcs_u128 low = (fjcs_u128)g[1] * cp;                      /* P mod 2^64, and a carry */
    fjcs_u128 mid = (fjcs_u128)g[0] * cp + (uint64_t)(low >> 64); /* floor(P / 2^64) */
    uint64_t vb = (uint64_t)(mid >> 64);
    uint64_t sticky = (uint64_t)mid | ((uint64_t)low >> 61); /* R >= 2^61 */
    return vb | (sticky != 0);
}
#else
/* hi:lo = a * b from four 32x32->64 products. */
FJCS_INLINE uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t cross = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10; /* < 3 * 2^32: no overflow */
    *lo = (cross << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (cross >> 32);
}

FJCS_INLINE uint64_t round_to_odd(const uint64_t g[2], uint64_t cp) {
    uint64_t low_lo, mid_lo;
    uint64_t low_hi = mul_64x64(g[1], cp, &low_lo);
    uint64_t mid_hi = mul_64x64(g[0], cp, &mid_lo);
    mid_lo += low_hi;
    mid_hi += mid_lo < low_hi; /* carry; P < 2^187 so mid_hi cannot overflow */
    return mid_hi | ((mid_lo | (low_lo >> 61)) != 0);
}
#endif

/* ---- Schubfach: the shortest nearest decimal --------------------------------------------------- */

/*
 * For v = c * 2^q > 0, finds d and e with d * 10^e the ECMAScript digits of v (d may end in zeros,
 * which the layout drops). The rounding interval R_v holds the reals that read back as v: its
 * bounds are the midpoints to the neighbouring doubles, (c -/+ 1/2) * 2^q, except that at c = 2^52
 * the lower neighbour is twice as close, (c - 1/4) * 2^q. In units of 2^(q-2) the bounds are
 * cbl = 4c - 2 (or 4c - 1) and cbr = 4c + 2. Round-half-even reading makes R_v closed when c is even
 * and open when c is odd (a bound itself reads back as the even neighbour).
 *
 * k is chosen so that 10^k <= |R_v| < 10^(k+1) (|R_v| = 2^q, or 3/4 * 2^q at c = 2^52): R_v then
 * holds at least one multiple of 10^k and at most one multiple of 10^(k+1).
 *  - If it holds a multiple of 10^(k+1), that one is the unique shortest decimal in R_v (any other
 *    member is a multiple of 10^k only, with one digit more; the single exception, 10^(k+1) against
 *    a one-digit d * 10^k, needs v < 20 * 10^k, i.e. the subnormal c = 2, where 10^(k+1) = 1e-323
 *    is also the nearer).
 *  - Otherwise the shortest members are the multiples of 10^k in R_v, all with the same number of
 *    digits, and the nearest to v is s * 10^k or (s+1) * 10^k with s = floor(v / 10^k): the one
 *    inside R_v, or, if both are, the closer, and on an exact tie the even one (ECMA-262 Note 2 of
 *    Number::toString, RFC 8785 3.2.2.3).
 */
FJCS_INLINE uint64_t shortest_decimal(uint64_t c, int q, int *exp10) {
    uint64_t cb = c << 2;
    uint64_t cbr = cb + 2;
    uint64_t cbl;
    int k;
    if (c != C_MIN || q == FJCS_Q_MIN) {
        cbl = cb - 2;
        k = flog10_pow2(q);
    } else {
        cbl = cb - 1;
        k = flog10_3q_pow2(q);
    }
    const uint64_t *g = fjcs_g[k - FJCS_K_MIN];
    int h = q + flog2_pow10(-k) + 1;
    uint64_t vb = round_to_odd(g, cb << h);
    uint64_t vbl = round_to_odd(g, cbl << h);
    uint64_t vbr = round_to_odd(g, cbr << h);
    /* An odd c makes R_v open: a decimal equal to a bound does not read back as v. */
    uint64_t open = c & 1;
    *exp10 = k;

    uint64_t s = vb >> 2; /* floor(v / 10^k) */

    /* The multiples of 10^(k+1) on either side of v: u * 10^k <= v < w * 10^k. At most one of them
     * is in R_v; u = 0 never is (vbl >= 1). */
    uint64_t u = s / 10 * 10;
    uint64_t w = u + 10;
    if (vbl + open <= u << 2) return u;
    if ((w << 2) + open <= vbr) return w;

    /* The multiples of 10^k on either side: at least one is in R_v. */
    uint64_t t = s + 1;
    int s_in = vbl + open <= s << 2;
    int t_in = (t << 2) + open <= vbr;
    if (s_in != t_in) return s_in ? s : t;
    /* Both: the nearer to v; vb against 4s + 2 is v against the midpoint (s + 1/2) * 10^k. */
    uint64_t mid = (s << 2) + 2;
    if (vb < mid || (vb == mid && (s & 1) == 0)) return s;
    return t;
}

/* ---- Digits ------------------------------------------------------------------------------------ */

static const char DIGIT_PAIRS[200] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Eight decimal digits of x < 10^8, with leading zeros. */
FJCS_INLINE void write8(char *p, uint32_t x) {
    uint32_t hi = x / 10000, lo = x % 10000;
    memcpy(p, DIGIT_PAIRS + 2 * (hi / 100), 2);
    memcpy(p + 2, DIGIT_PAIRS + 2 * (hi % 100), 2);
    memcpy(p + 4, DIGIT_PAIRS + 2 * (lo / 100), 2);
    memcpy(p + 6, DIGIT_PAIRS + 2 * (lo % 100), 2);
}

/* Seventeen decimal digits of d < 10^17, with leading zeros. */
FJCS_INLINE void write17(char *p, uint64_t d) {
    uint64_t hi = d / 100000000;
    uint32_t lo = (uint32_t)(d - hi * 100000000);
    uint32_t top = (uint32_t)(hi / 100000000);
    p[0] = (char)('0' + top);
    write8(p + 1, (uint32_t)(hi - (uint64_t)top * 100000000));
    write8(p + 9, lo);
}

/* ---- Layout: ECMA-262 Number::toString --------------------------------------------------------- */

/* Writes d * 10^e (0 < d < 10^17) at p as ECMAScript lays it out and returns the end. */
FJCS_INLINE char *layout(char *p, uint64_t d, int e) {
    char digits[17];
    write17(digits, d);
    int first = 0;
    while (digits[first] == '0') first++;
    int end = 17;
    while (digits[end - 1] == '0') end--;
    const char *s = digits + first;
    int len = end - first;      /* k of ES2015 7.1.12.1 step 5: the digits, without trailing zeros */
    int n = e + (17 - first);   /* the value is 0.s * 10^n */

    if (0 < n && n <= 21) {
        if (len <= n) { /* step 6: an integer, the digits and n - k zeros */
            memcpy(p, s, (size_t)len);
            memset(p + len, '0', (size_t)(n - len));
            return p + n;
        }
        /* step 7: the point inside the digits */
        memcpy(p, s, (size_t)n);
        p[n] = '.';
        memcpy(p + n + 1, s + n, (size_t)(len - n));
        return p + len + 1;
    }
    if (-6 < n && n <= 0) { /* step 8: "0.", -n zeros, the digits */
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
    int x = n - 1;
    p[0] = 'e';
    p[1] = x < 0 ? '-' : '+';
    if (x < 0) x = -x;
    p += 2;
    if (x >= 100) {
        *p++ = (char)('0' + x / 100);
        x %= 100;
        memcpy(p, DIGIT_PAIRS + 2 * x, 2);
        return p + 2;
    }
    if (x >= 10) {
        memcpy(p, DIGIT_PAIRS + 2 * x, 2);
        return p + 2;
    }
    *p = (char)('0' + x);
    return p + 1;
}

/* ---- Entry points ------------------------------------------------------------------------------ */

FJCS_INLINE int format_double(double v, char *buf) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int e = (int)(bits >> 52) & 0x7ff;
    uint64_t fraction = bits & FRACTION_MASK;
    if (e == 0x7ff) return -FJCS_E_FLOAT_DOMAIN; /* NaN, infinities (step 1, step 4) */
    char *p = buf;
    if ((bits << 1) == 0) { /* +0 and -0 (step 2) */
        *p = '0';
        return 1;
    }
    if (bits >> 63) *p++ = '-'; /* step 3 */

    uint64_t c;
    int q;
    if (e != 0) {
        c = fraction | C_MIN;
        q = e - 1075;
#if FJCS_INTEGER_FAST_PATH
        /* An integer below 2^53: its own digits are the shortest (the rounding interval is at
         * most 1 wide and holds no other integer), and n <= 16 keeps it plain (step 6). */
        if (-52 <= q && q <= 0 && (c & ((UINT64_C(1) << -q) - 1)) == 0) {
            uint64_t m = c >> -q;
            char digits[17];
            write17(digits, m);
            int first = 0;
            while (digits[first] == '0') first++;
            memcpy(p, digits + first, (size_t)(17 - first));
            return (int)(p + (17 - first) - buf);
        }
#endif
    } else {
        c = fraction;
        q = FJCS_Q_MIN;
    }
    int exp10;
    uint64_t d = shortest_decimal(c, q, &exp10);
    return (int)(layout(p, d, exp10) - buf);
}

int fjcs_format_double(double v, char *buf) { return format_double(v, buf); }

long long fjcs_format_doubles(const double *v, size_t n, char *out) {
    char *p = out;
    for (size_t i = 0; i < n; i++) {
        int len = format_double(v[i], p);
        if (len < 0) return -1;
        p += len;
        *p++ = '\n';
    }
    return (long long)(p - out);
}
