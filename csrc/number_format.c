/*
 * number_format.c: a double as ECMAScript's Number::toString writes it (RFC 8785 section 3.2.2.3).
 *
 * Two steps. First the decimal: the shortest digits that read back as the double, the nearest of
 * those to its exact value, ties to the even digit. This is Schubfach (R. Giulietti, "The Schubfach
 * way to render doubles", 2021), written from the paper's mathematics; the Java reference is not
 * followed where ECMAScript differs (Java asks for at least two digits and prints 5e-324 as 4.9E-324;
 * ECMAScript takes the shortest, "5e-324"). Second the layout of ECMA-262 Number::toString (ES2015
 * 7.1.12.1 steps 6-10; docs/contract.md#numbers).
 *
 * The only departure from the paper's arithmetic is the width of the power-of-ten approximation g:
 * 128 bits here (two 64-bit words, the natural unit of a 64x64->128 multiply) where the paper stores
 * 126 bits in two 63-bit halves, and so where the round-to-odd sticky bit is taken. The bound that
 * makes this exact is proved per exponent by csrc/check_schubfach.py; see "Scaling" below.
 *
 * The speed comes from this file's own arithmetic, not from another implementation: the
 * decisions a random double makes at random (its sign, its exponent's sign, the shorter decimal or
 * the nearest) are masks and adds, not branches; the digits are made with multiply-shift divisions
 * in the lanes of one register (64-bit words, or SSE2's 128 bits on x86-64), each checked against
 * division on every input by tests/c/number_check.c; the exponent's digits come from a table
 * generated, like g, by csrc/gen_schubfach_table.py.
 *
 * No allocation, no global mutable state, no printf/strtod: safe to call from any thread.
 */
#include <stdint.h>
#include <string.h>

#include "fjcs_internal.h"
#include "schubfach_table.h"

/* ---- Compile-time knobs (the platform switches, FJCS_HAVE_*, are in fjcs_config.h) ----------- */

/* FJCS_INTEGER_FAST_PATH (fjcs_config.h): integers below 2^53 skip Schubfach. */

/* ---- binary64 -------------------------------------------------------------------------------- */

/* v = c * 2^q with c < 2^53 (the paper's notation). Normal: c = 2^52 + fraction, q = e - 1075;
 * subnormal (e = 0): c = fraction, q = Q_MIN = -1074. */
#define C_MIN (UINT64_C(1) << 52)

/* Tells the compiler that a decimal's digits are not 0, the value that sends a caller to the
 * out-of-line path: the test for it then stays on the paths that return it. */
#if defined(__GNUC__)
#define NOT_ZERO(d) ((d) == 0 ? __builtin_unreachable() : (void)0)
#else
#define NOT_ZERO(d) ((void)0)
#endif

/* Selects by a compare and a cmov in inline assembly (x86-64, gcc and clang, with int128): in C
 * gcc makes such a select a branch, mispredicted on random doubles, or a mask of more
 * instructions. The C stays for other targets and for number_check.c's portable and mixed
 * builds (no int128). */
#if FJCS_HAVE_INT128 && defined(__GNUC__) && defined(__x86_64__)
#define X86_CMOV 1
#else
#define X86_CMOV 0
#endif
#define FRACTION_MASK (C_MIN - 1)

/* ---- Floor logarithms ------------------------------------------------------------------------ */

/* Multiply-shift evaluations, with constants from gen_schubfach_table.py, which checks each one on
 * every argument of its range. The bias keeps the shifted operand non-negative (a right shift of a
 * negative int is implementation-defined in C); all of it fits in int32_t (also checked there). */

/* floor(q * log10(2)): the k of the regular case, 10^k <= 2^q < 10^(k+1). */
FJCS_INLINE int flog10_pow2(int q) {
    return ((q * FJCS_FLOG10_POW2_M + FJCS_FLOG10_POW2_BIAS) >> FJCS_FLOG10_POW2_S) -
           FJCS_FLOG10_POW2_T;
}

/* flog10_pow2(q), and in *h the shift of the scaled significand, q + flog2_pow10(-k) + 1 (1..4),
 * from the fraction the same multiply-shift leaves: h - 1 = floor(log2(2^q / 10^k)) is a function
 * of the position of q * log10(2) within its decade, with its own constant, checked on every q by
 * gen_schubfach_table.py (and against flog2_pow10 by check_schubfach.py). Off k's chain: h does not
 * wait for k and a second multiply-shift. */
FJCS_INLINE int flog10_pow2_h(int q, int *h) {
    int t = q * FJCS_FLOG10_POW2_M + FJCS_FLOG10_POW2_BIAS;
    *h = (((t & ((1 << FJCS_FLOG10_POW2_S) - 1)) * FJCS_H_FROM_FRACTION_M) >>
          FJCS_H_FROM_FRACTION_S) + 1;
    return (int)((unsigned)t >> FJCS_FLOG10_POW2_S) - FJCS_FLOG10_POW2_T; /* t >= 0 */
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

/* ---- Scaling: round-to-odd of x * 2^q * 10^-k ------------------------------------------------ */

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
 * x <= 2^55) that frac(E(x)) lies in [2^-67, 1 - 2^-64]: so floor(P / 2^128) = floor(E(x)) and
 * R >= 2^61. Hence: vbp = floor(P / 2^128) | (R >= 2^61).
 * (The paper's layout takes the sticky bit from whole words; with 128-bit g, two exponents
 * (q = 664, 668) have frac(E) near 2^-65.4, below a word, so the threshold sits at 2^61 instead.)
 */

#if FJCS_HAVE_INT128
FJCS_INLINE uint64_t round_to_odd(uint64_t g0, uint64_t g1, uint64_t cp) {
    fjcs__u128 low = (fjcs__u128)g1 * cp;                      /* P mod 2^64, and a carry */
    fjcs__u128 mid = (fjcs__u128)g0 * cp + (uint64_t)(low >> 64); /* floor(P / 2^64) */
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

FJCS_INLINE uint64_t round_to_odd(uint64_t g0, uint64_t g1, uint64_t cp) {
    uint64_t low_lo, mid_lo;
    uint64_t low_hi = mul_64x64(g1, cp, &low_lo);
    uint64_t mid_hi = mul_64x64(g0, cp, &mid_lo);
    mid_lo += low_hi;
    mid_hi += mid_lo < low_hi; /* carry; P < 2^187 so mid_hi cannot overflow */
    return mid_hi | ((mid_lo | (low_lo >> 61)) != 0);
}
#endif

/*
 * The regular interval's three values from one product, in the common case. P(x) = (x << h) * g
 * is linear in x: P(4c -/+ 2) = P(4c) -/+ D, D = P(2) = g * u with u = 2 << h <= 32, exactly. The
 * centre is computed as above (vb); the bounds from floor(P(4c) / 2^64) plus or minus g0 * u (g0
 * the high word of g), which is floor(D / 2^64) less g1 * u / 2^64, under u units of 2^-64: so the
 * 128-bit sum for the upper bound lies within (-1 - u, 0] units of 2^-64 of P(4c + 2) / 2^64, the
 * lower one's within (-1, u), and P / 2^64 is within eps / 2^64 < 1/8 above E * 2^64 (eps < 2^61:
 * check_schubfach.py's (a)). When the sum's low word (the bound's fraction in units of 2^-64) is
 * at least BOUND_MARGIN and at most 2^64 - 1 - BOUND_MARGIN, the offsets cannot carry the bound
 * across an integer: it is not an integer, its floor is the sum's high word (returned: its
 * round-to-odd is that word | 1, which the caller need not make). check_schubfach.py derives the least such margin from the error terms and fails
 * for a smaller BOUND_MARGIN. Otherwise (a bound within 2^-58 of an integer: about one double in
 * 2^57 of random bits, and doubles like 1e23 whose bounds are exact) the bounds' own products
 * decide.
 */
#define BOUND_MARGIN 64
#define NEAR_INTEGER(word) ((uint64_t)(word) - BOUND_MARGIN > UINT64_MAX - 2 * BOUND_MARGIN)

/* The nearer of s = floor(v / 10^k) and s + 1 from the centre's round-to-odd vb (vb against
 * 4s + 2 is v against the midpoint (s + 1/2) * 10^k; on that tie the even one): n = s + 1 when
 * (vb & 3) + (s & 1) >= 3, i.e. n = (vb + 1 + (s & 1)) >> 2. A tie needs vb even, an integer
 * centre: for an odd vb = top | 1 it is (top + 2) >> 2 (check_schubfach.py's no_tie_form). */
FJCS_INLINE uint64_t nearer(uint64_t vb) {
    return (vb + 1 + ((vb >> 2) & 1)) >> 2;
}

#if FJCS_HAVE_INT128
FJCS_INLINE int scale_regular(uint64_t g0, uint64_t g1, uint64_t cb, int h, uint64_t *fl,
                              uint64_t *n, uint64_t *fr) {
    uint64_t cp = cb << h;
    fjcs__u128 low = (fjcs__u128)g1 * cp;
    fjcs__u128 mid = (fjcs__u128)g0 * cp + (uint64_t)(low >> 64);
    uint64_t top = (uint64_t)(mid >> 64);
    *n = (top + 2) >> 2; /* vb = top | 1 where mid's low word sets the sticky bit, */
    if (FJCS_UNLIKELY((uint64_t)mid == 0)) /* or where that is 0, by low's top bits */
        *n = nearer(top | ((uint64_t)low >> 61 != 0));
    fjcs__u128 d = (fjcs__u128)g0 * ((uint64_t)2 << h);
    fjcs__u128 up = mid + d, down = mid - d;
    *fr = (uint64_t)(up >> 64);
    *fl = (uint64_t)(down >> 64);
    return NEAR_INTEGER(up) | NEAR_INTEGER(down);
}
#else
FJCS_INLINE int scale_regular(uint64_t g0, uint64_t g1, uint64_t cb, int h, uint64_t *fl,
                              uint64_t *n, uint64_t *fr) {
    uint64_t cp = cb << h;
    uint64_t p0, p1, d0;
    uint64_t low_hi = mul_64x64(g1, cp, &p0);
    uint64_t p2 = mul_64x64(g0, cp, &p1);
    p1 += low_hi;
    p2 += p1 < low_hi;
    *n = nearer(p2 | ((p1 | (p0 >> 61)) != 0));
    uint64_t d1 = mul_64x64(g0, (uint64_t)2 << h, &d0);
    uint64_t u0 = p1 + d0, u1 = p2 + d1 + (u0 < d0);
    uint64_t l0 = p1 - d0, l1 = p2 - d1 - (p1 < d0);
    *fr = u1;
    *fl = l1;
    return NEAR_INTEGER(u0) | NEAR_INTEGER(l0);
}
#endif

/* ---- Schubfach: the shortest nearest decimal ------------------------------------------------- */

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
 *
 * In the regular case the nearer of the two is always inside R_v: it is at most 10^k / 2 from v,
 * and R_v reaches 2^(q-1) >= 10^k / 2 on either side, with equality only at q = k = 0, where v
 * is itself a multiple of 10^k (check_schubfach.py proves it on the values the code compares).
 * Only the irregular interval, whose lower half is 2^(q-2) (as little as 10^k / 3), needs the
 * other one; it is computed out of line.
 */

/* The decimal from the three products, on the out-of-line path (digits17_rare): the irregular
 * interval (c = 2^52, even: R_v closed, q > Q_MIN, the lower bound 4c - 1; one double in 2^52 of
 * random bits, but every power of two that is not an integer, 0.5, 0.25), subnormals, and a
 * regular interval where scale_regular cannot decide. */
FJCS_INLINE uint64_t shortest_exact(uint64_t c, int q, int irregular, int *exp10) {
    uint64_t cb = c << 2;
    int k = irregular ? flog10_3q_pow2(q) : flog10_pow2(q);
    uint64_t g0 = fjcs_g[0][k - FJCS_K_MIN], g1 = fjcs_g[1][k - FJCS_K_MIN];
    int h = q + flog2_pow10(-k) + 1;
    uint64_t open = c & 1;
    uint64_t lo = round_to_odd(g0, g1, (cb - 2 + (uint64_t)irregular) << h) + open;
    uint64_t hi = round_to_odd(g0, g1, (cb + 2) << h) - open;
    uint64_t vb = round_to_odd(g0, g1, cb << h);
    *exp10 = k;
    uint64_t w10 = 10 * (hi / 40); /* as below */
    if (w10 << 2 >= lo) return w10;
    uint64_t n = nearer(vb);
    /* If n is out of R_v the other one is in: up by one when 4n is below lo (n = s), down by one
     * when it is above hi (n = t); never both (lo <= hi). */
    return n + (n << 2 < lo) - (n << 2 > hi);
}

/* The decimal of a normal double in the common case, or 0 (no decimal's digits) where the exact
 * path decides: c = 2^52 (the irregular interval, and the regular one of the least normal
 * exponent), or a bound near an integer. The caller then leaves for the out-of-line path, which
 * starts again from the bits: nothing of this path is kept alive across a call. */
FJCS_INLINE uint64_t shortest_common(uint64_t c, int q, int *exp10) {
    if (FJCS_UNLIKELY(c == C_MIN)) return 0;
    uint64_t cb = c << 2;
    int h;
    int k = flog10_pow2_h(q, &h);
    uint64_t g0 = fjcs_g[0][k - FJCS_K_MIN], g1 = fjcs_g[1][k - FJCS_K_MIN];
    uint64_t fl, n, fr; /* the bounds' floors, and n below */
    if (FJCS_UNLIKELY(scale_regular(g0, g1, cb, h, &fl, &n, &fr))) return 0; /* near an integer */
    /* Here no bound is an integer: their round-to-odd values are vbl = fl | 1 and vbr = fr | 1,
     * and no decimal (a multiple of 4) equals one, so whether R_v is open (odd c: the exact path
     * moves its bounds inwards by one unit) does not matter. The tests below take the floors: 4m
     * >= vbl (or vbl + 1) iff 4m > fl, and the largest multiple of 40 not above vbr (or vbr - 1)
     * is the largest not above fr (identities check_schubfach.py checks). */
    *exp10 = k;

    /* The decisions below are written as arithmetic, not branches: for random doubles each one
     * is close to a coin toss, and a mispredicted branch costs more than computing both sides. */

    /* The multiple of 10^(k+1) in R_v if there is one (at most one is): in units of 10^k / 4, the
     * largest multiple of 40 not above vbr, 40 * (fr / 40), if it is above fl. 10 * (fr / 40) is
     * the decimal's digits if it is taken; its four times is the test's (no second division). */
    uint64_t w10 = 10 * (fr / 40);

    /* Otherwise n, the nearer of s = floor(v / 10^k) and s + 1 (nearer()), from scale_regular.
     * It is in R_v (above). So: w10 if 4 * w10 > fl, else n. */
#if X86_CMOV
    uint64_t d = n;
    __asm__("cmpq %[w40], %[fl]\n\t" /* carry: fl < 4 * w10 */
            "cmovbq %[w10], %[d]"
            : [d] "+r"(d)
            : [fl] "r"(fl), [w40] "r"(w10 << 2), [w10] "r"(w10)
            : "cc");
#else
    uint64_t w_in = w10 << 2 > fl;
    uint64_t d = n ^ ((n ^ w10) & ((uint64_t)0 - w_in));
#endif
    NOT_ZERO(d); /* n >= floor(v / 10^k) >= c (10^k <= 2^q); a w10 taken is in R_v: not 0 */
    return d;
}

/* ---- Digits ---------------------------------------------------------------------------------- */

const char fjcs__digit_pairs[200] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
#define DIGIT_PAIRS fjcs__digit_pairs

#define POW10_16 UINT64_C(10000000000000000)

/* The number of decimal digits of 0 < m < 10^17: from its bit length b, 2^(b-1) <= m < 2^b, the
 * count is t = floor(b * log10(2)) or t + 1, depending on whether m has reached 10^t.
 * tests/c/number_check.c checks it at every power of ten and of two. */
FJCS_INLINE int decimal_length(uint64_t m) {
    int t = flog10_pow2(64 - fjcs__clz64(m));
    return t + (m >= fjcs_pow10[t]);
}

/* Seventeen digits for the decimal d * 10^e of a normal double, as d17 * 10^(n - 17) with
 * 10^16 <= d17 < 10^17; returns d17 and sets *n, the n of ES2015 7.1.12.1 step 5 (the value is
 * 0.digits * 10^n). d has 16 or 17 digits: at least floor(v / 10^k) >= c >= 2^52 > 10^15 (or the
 * multiple of 10^(k+1) inside R_v, above v - 20 * 10^k / 4). A fixed count of digits lets one
 * routine write them with no branch on the count, a coin toss for random doubles; the zero
 * appended is dropped with the other trailing zeros. Subnormals: digits17_rare.
 * With X86_CMOV one compare sets both, a cmov and an sbb: the C below it gcc makes a branch (27%
 * of random doubles have 16 digits, by exponent: mispredicted) or a mask (6 more instructions). */
FJCS_INLINE uint64_t to_17_digits(uint64_t d, int e, int *n) {
#if X86_CMOV
    uint64_t d10 = d * 10;
    int m = e + 17;
    __asm__("cmpq %[lim], %[d]\n\t" /* carry: d < 10^16, 16 digits */
            "cmovbq %[d10], %[d]\n\t"
            "sbbl $0, %[m]"
            : [d] "+r"(d), [m] "+r"(m)
            : [d10] "r"(d10), [lim] "r"(POW10_16)
            : "cc");
    *n = m;
    NOT_ZERO(d);
    return d;
#else
    uint64_t sixteen = (uint64_t)0 - (d < POW10_16); /* all ones for 16 digits */
    *n = e + 16 + (d >= POW10_16);
    return d + (sixteen & (9 * d));
#endif
}

/* "e+x" or "e-x" at p for the exponent x (|x| <= 324); returns the end. */
FJCS_INLINE char *write_exponent(char *p, int x) {
#if FJCS_HAVE_LITTLE_ENDIAN
    /* "e", the sign and the digits from the generated table, and their count in its top byte: one
     * load, no branch on the sign or the number of digits (unpredictable for random doubles). Six
     * bytes stored, the last within the 25 of the longest rendering. */
    uint64_t word = fjcs_exponents[x + FJCS_EXP_MAX];
    uint32_t head = (uint32_t)word;
    uint16_t tail = (uint16_t)(word >> 32);
    memcpy(p, &head, 4);
    memcpy(p + 4, &tail, 2);
    return p + (word >> 56);
#else
    unsigned negative = (unsigned)x >> 31;
    unsigned ux = ((unsigned)x ^ (0u - negative)) + negative; /* |x| */
    p[0] = 'e';
    p[1] = (char)('+' + 2 * negative);
    unsigned hundreds = ux / 100, rest = ux % 100;
    p += 2;
    if (ux >= 100) *p++ = (char)('0' + hundreds);
    if (ux >= 10) *p++ = DIGIT_PAIRS[2 * rest];
    *p++ = DIGIT_PAIRS[2 * rest + 1];
    return p;
#endif
}

#if FJCS_HAVE_LITTLE_ENDIAN

#include "number_digits.h"

/* ---- Layout: ECMA-262 Number::toString ------------------------------------------------------- */

/*
 * Writes 0.d1..d17 * 10^n (the seventeen digits of 10^16 <= d < 10^17, trailing zeros allowed) at
 * p as ECMAScript lays it out and returns the end.
 *
 * The digits are made in registers (the first, then two words of eight, or with SSE2 the sixteen
 * in one register) and stored straight where the layout wants them; the trailing zeros are counted
 * on the words (or on one compare mask), and the point is merged into a word (or into the SSE2
 * register), so nothing written is read back. Bytes may be written past the end returned, never
 * past the longest rendering: 25 bytes from the start of the buffer, the sign included.
 */
FJCS_INLINE char *layout(char *p, uint64_t d, int n) {
    /* One 64-bit division, then 32-bit ones: the shortest chain to the digits. Short decimals
     * (123.456) have all of digits 10..17 zero, and skip making them. */
    uint64_t top9 = d / 100000000;                          /* digits 1..9 */
    uint32_t low = (uint32_t)(d - top9 * 100000000);        /* digits 10..17 */
    uint32_t first = (uint32_t)top9 / 100000000;
    char lead = (char)('0' + first);
    int len; /* k of ES2015 7.1.12.1 step 5: the digits without trailing zeros */
#if FJCS_HAVE_SSE2
    __m128i digits; /* digits 2..17, stored whole where the layout wants them */
    if (low) { /* all sixteen at once; the bits of the nonzero digits give the count */
        digits = ascii16((uint32_t)top9 - first * 100000000, low);
        __m128i zero = _mm_cmpeq_epi8(digits, _mm_set1_epi8('0'));
        unsigned nonzero = (unsigned)_mm_movemask_epi8(zero) ^ 0xFFFFu;
        len = 65 - fjcs__clz64(nonzero); /* nonzero: digit 17 at the latest */
    } else {
        uint64_t w = ascii8((uint32_t)top9 - first * 100000000); /* digits 2..9 */
        digits = _mm_set_epi64x((long long)ASCII_ZEROS, (long long)w);
        uint64_t z1 = w ^ ASCII_ZEROS;
        len = 9 - (z1 ? fjcs__clz64(z1) >> 3 : 8);
    }
#define STORE_DIGITS(at) _mm_storeu_si128((__m128i *)(void *)(at), digits)
#else
    uint64_t w1 = ascii8((uint32_t)top9 - first * 100000000); /* digits 2..9 */
    uint64_t w2 = low ? ascii8(low) : ASCII_ZEROS;
    uint64_t z1 = w1 ^ ASCII_ZEROS, z2 = w2 ^ ASCII_ZEROS;
    len = 17 - (z2 ? fjcs__clz64(z2) >> 3 : 8 + (z1 ? fjcs__clz64(z1) >> 3 : 8));
#define STORE_DIGITS(at) (memcpy((at), &w1, 8), memcpy((at) + 8, &w2, 8))
#endif

    if ((unsigned)(n + 5) > 26) { /* n <= -6 or n > 21: steps 9-10 */
        /* d[.ddd]e+/-x with x = |n - 1| */
        p[0] = lead;
        p[1] = '.';
        STORE_DIGITS(p + 2);
        return write_exponent(len == 1 ? p + 1 : p + 1 + len, n - 1);
    }
    if (n > 0) {
        if (n >= len) { /* step 6: an integer, the digits and n - k zeros */
            p[0] = lead;
            STORE_DIGITS(p + 1);
            if (n > 17) memset(p + 17, '0', (size_t)(n - 17));
            return p + n;
        }
        /* step 7: n digits, the point, the rest (1 <= n <= 16) */
        p[0] = lead;
#if FJCS_HAVE_SSE2
        /* In the register: bytes 0..j-1 of the digits (j = n - 1), the point at byte j, and
         * after it the digits moved up a byte; the masks are 16-byte windows on one constant.
         * The 17th digit, moved out of the register, is laid first by the digits stored a byte
         * further on, which the second store covers all but that one of. */
        int j = n - 1;
        __m128i before = _mm_loadu_si128((const __m128i *)(const void *)(POINT_MASKS + 16 - j));
        __m128i through = _mm_loadu_si128((const __m128i *)(const void *)(POINT_MASKS + 15 - j));
        __m128i point = _mm_and_si128(_mm_xor_si128(before, through), _mm_set1_epi8('.'));
        __m128i moved = _mm_andnot_si128(through, _mm_slli_si128(digits, 1));
        __m128i out = _mm_or_si128(_mm_or_si128(_mm_and_si128(before, digits), moved), point);
        STORE_DIGITS(p + 2);
        _mm_storeu_si128((__m128i *)(void *)(p + 1), out);
#else
        if (n <= 8) {
            uint64_t w = insert_point(w1, n - 1);
            memcpy(p + 1, &w, 8);
            p[9] = (char)(w1 >> 56);
            memcpy(p + 10, &w2, 8);
        } else {
            uint64_t w = insert_point(w2, n - 9);
            memcpy(p + 1, &w1, 8);
            memcpy(p + 9, &w, 8);
            p[17] = (char)(w2 >> 56);
        }
#endif
        return p + len + 1;
    }
    /* step 8 (-6 < n <= 0): "0.", -n zeros, the digits */
    memcpy(p, "0.000000", 8);
    char *at = p + 2 - n;
    at[0] = lead;
    STORE_DIGITS(at + 1);
    return at + len;
#undef STORE_DIGITS
}

#else /* !FJCS_HAVE_LITTLE_ENDIAN: the same layout byte by byte */
#include "number_layout_bytes.h"
#endif /* FJCS_HAVE_LITTLE_ENDIAN */

/* ---- Entry points ---------------------------------------------------------------------------- */

/* The ECMAScript digits of the finite, nonzero double with these bits (the sign ignored): d17,
 * 10^16 <= d17 < 10^17 (trailing zeros allowed), and *n, with the value 0.d1..d17 * 10^n; or 0
 * where digits17_rare must make them (subnormals, and where shortest_common returns 0). */
FJCS_INLINE uint64_t digits17_common(uint64_t bits, int *n) {
    int e = (int)(bits >> 52) & 0x7ff;
    if (FJCS_UNLIKELY(e == 0)) return 0;
    uint64_t c = (bits & FRACTION_MASK) | C_MIN;
    int q = e - 1075;
#if FJCS_INTEGER_FAST_PATH
    /* An integer below 2^53: its own digits are the shortest (the rounding interval is at most 1
     * wide and holds no other integer), and n <= 16 keeps it plain (step 6). */
    if (-52 <= q && q <= 0 && (c & ((UINT64_C(1) << -q) - 1)) == 0) {
        uint64_t m = c >> -q;
        int len = decimal_length(m);
        *n = len;
        m *= fjcs_pow10[17 - len];
        NOT_ZERO(m);
        return m;
    }
#endif
    int exp10;
    uint64_t d = shortest_common(c, q, &exp10);
    if (FJCS_UNLIKELY(d == 0)) return 0;
    return to_17_digits(d, exp10, n);
}

/* digits17_common's answer where it has none, from the three products (shortest_exact). A
 * subnormal (c = fraction > 0 at q = Q_MIN) may have 1 to 17 digits. */
FJCS_COLD static uint64_t digits17_rare(uint64_t bits, int *n) {
    int e = (int)(bits >> 52) & 0x7ff, k;
    uint64_t fraction = bits & FRACTION_MASK;
    if (e == 0) {
        uint64_t d = shortest_exact(fraction, FJCS_Q_MIN, 0, &k);
        int len = decimal_length(d);
        *n = k + len;
        return d * fjcs_pow10[17 - len];
    }
    uint64_t c = fraction | C_MIN;
    int q = e - 1075;
    uint64_t d = shortest_exact(c, q, c == C_MIN && q != FJCS_Q_MIN, &k);
    return to_17_digits(d, k, n);
}

FJCS_INLINE uint64_t digits17(uint64_t bits, int *n) {
    uint64_t d = digits17_common(bits, n);
    return FJCS_LIKELY(d != 0) ? d : digits17_rare(bits, n);
}

/* The rendering of the double with these bits at buf and its end, in the common case; NULL for
 * the rest (NaN, the infinities, zeros, and where digits17_common has no answer): put_rare's. */
FJCS_INLINE char *put_common(uint64_t bits, char *buf) {
    /* One test for the rare values: the exponent all ones (NaN, infinities) or everything but the
     * sign zero (+0, -0); (bits << 1) - 1 wraps to the top for zeros. */
    if (FJCS_UNLIKELY((bits << 1) - 1 >= (UINT64_C(0x7ff) << 53) - 1)) return NULL;
    int n;
    uint64_t d = digits17_common(bits, &n);
    if (FJCS_UNLIKELY(d == 0)) return NULL;
    *buf = '-'; /* step 3, without a branch (a coin toss on random doubles): kept only if negative */
    return layout(buf + (bits >> 63), d, n);
}

/* put_common's NULL cases, out of line, so that its path makes no call (and keeps nothing in the
 * registers a call preserves: no saves at entry and exit). */
FJCS_COLD static char *put_rare(uint64_t bits, char *buf) {
    if ((bits << 1) - 1 >= (UINT64_C(0x7ff) << 53) - 1) {
        if ((bits << 1) != 0) return NULL; /* NaN, infinities (step 1, step 4) */
        *buf = '0';                        /* +0 and -0 (step 2) */
        return buf + 1;
    }
    char *p = buf;
    *p = '-';
    p += bits >> 63;
    int n;
    uint64_t d = digits17_rare(bits, &n);
    return layout(p, d, n);
}

/* The rendering of the double with these bits at buf, and its end; NULL for NaN and the
 * infinities, which have none. The end, not a length, so that a caller testing for the refusal
 * tests a pointer it needs anyway (a length that may be negative cost a compare and a widening). */
FJCS_INLINE char *put_double_bits(uint64_t bits, char *buf) {
    char *end = put_common(bits, buf);
    return FJCS_LIKELY(end != NULL) ? end : put_rare(bits, buf);
}

/* fjcs__put_double_bits, for a file that includes this one to inline put_double_bits
 * (cpython/walker.c, whose loops over a list's items and a dict's members then make no call per
 * double). */
char *fjcs__put_double_bits(uint64_t bits, char *buf) {
    return put_double_bits(bits, buf);
}

uint64_t fjcs__shortest_digits(double v, int *n) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return digits17(bits, n);
}

FJCS_COLD static fjcs_code format_rare(uint64_t bits, char *buf, size_t *len) {
    char *end = put_rare(bits, buf);
    if (end == NULL) return FJCS_E_FLOAT_DOMAIN;
    *len = (size_t)(end - buf);
    return FJCS_OK;
}

fjcs_code fjcs_format_double(double v, char *buf, size_t *len) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    char *end = put_common(bits, buf);
    if (FJCS_UNLIKELY(end == NULL)) return format_rare(bits, buf, len); /* a tail call */
    *len = (size_t)(end - buf);
    return FJCS_OK;
}

int fjcs__format_digits(uint64_t m, int len, int n, int negative, char *buf) {
    char *p = buf;
    if (negative) *p++ = '-';
    return (int)(layout(p, m * fjcs_pow10[17 - len], n) - buf);
}
