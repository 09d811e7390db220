/*
 * number_parse.c: fjcs__parse_double, a correctly rounded, locale-independent reader of JSON number
 * tokens (RFC 8259 section 6) as IEEE-754 binary64, round to nearest, ties to even.
 *
 * strtod is not used: it reads the decimal point from the C locale (LC_NUMERIC), which a host
 * program may change under us. Every token goes through at most three paths, cheapest first; each
 * either proves its answer is the correctly rounded one or hands the token to the next:
 *
 *  1. Clinger's fast path (W. D. Clinger, "How to read floating point numbers accurately",
 *     PLDI 1990): a significand and a power of ten that are both exact doubles need one IEEE
 *     multiplication or division, which rounds correctly by itself.
 *  2. Eisel-Lemire (D. Lemire, "Number parsing at a gigabyte per second", Software: Practice and
 *     Experience 51(8), 2021; N. Mushtak and D. Lemire, "Fast number parsing without fallback",
 *     2023): the first 19 significant digits times a 128-bit truncated power of five, with a proof
 *     (below) of when the truncation cannot change the rounding.
 *  3. Exact comparison, in the manner of Clinger's AlgorithmR: an approximation is corrected by
 *     comparing the decimal value, in big integers, with the exact midpoints between neighbouring
 *     doubles. It decides every token, and a build with paths 1 and 2 disabled runs on it alone.
 *
 * No allocation (bounded stack arrays only), no global mutable state, no locale, no strtod.
 *
 * fjcs__parse_shortest, at the end, reads a token of at most 17 digits with path 2's first product and
 * proves from the same product, where it can, that the token's digits are its double's ECMAScript
 * digits (text.c then copies the token without running Schubfach).
 *
 * Kept whole (about 760 lines): the three paths of one reader, each handing on to the next; read
 * top to bottom, the file is the argument that the result is correctly rounded, and the proof of
 * the shortest digits stands on path 2's bounds.
 */
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "fjcs_internal.h"
#include "pow5_table.h"

/* The switches of this file (FJCS_PARSE_*) and its test hooks are in fjcs_config.h. */

_Static_assert(FJCS_PARSE_MAX_DIGITS >= 768, "the exact path needs at least 768 digits");

/* Which path decided a token, for FJCS_PARSE_TEST_HOOK; not part of the interface. */
enum {
    FJCS_PATH_ZERO = 1,          /* every digit is 0: a signed zero */
    FJCS_PATH_RANGE,             /* exponent so far out that the answer is 0 or infinity */
    FJCS_PATH_CLINGER,           /* path 1 */
    FJCS_PATH_EL,                /* path 2 with one 64x64 product */
    FJCS_PATH_EL_WIDE,           /* path 2 needing the second product (full 64x128) */
    FJCS_PATH_EXACT_AMBIGUOUS,   /* path 3: path 2 could not decide (a near-halfway value) */
    FJCS_PATH_EXACT_TRUNCATED,   /* path 3: > 19 digits and w, w+1 round differently */
    FJCS_PATH_EXACT_FORCED       /* path 3 because FJCS_PARSE_EISEL_LEMIRE is 0 */
};

/* ---- Small integer helpers ------------------------------------------------------------------- */

/* The hot path is one function: the digit scanner inlined into it (GCC would otherwise call it,
 * as it is used twice), the rare paths kept out of it (FJCS_COLD) so its frame and prologue stay
 * small. */

#define FJCS_INF_BITS UINT64_C(0x7FF0000000000000)
#define FJCS_MANT_MASK ((UINT64_C(1) << 52) - 1)

/* Exponents saturate at +-2^60 and digit counts at 2^60. A saturated exponent still dwarfs the
 * digit count of any token that fits in an address space, so the answer (0 or infinity) is the
 * same, and sums of three such quantities stay well inside int64. */
#define FJCS_COUNT_CAP (INT64_C(1) << 60)

static int64_t count64(size_t n) {
    return n > (size_t)FJCS_COUNT_CAP ? FJCS_COUNT_CAP : (int64_t)n;
}

static int is_digit(unsigned char c) {
    return (unsigned)(c - '0') < 10u;
}

/* Full 64x64 -> 128-bit product: returns the low half, stores the high half. */
#if FJCS_HAVE_INT128

static uint64_t mul64(uint64_t a, uint64_t b, uint64_t *hi) {
    fjcs__u128 p = (fjcs__u128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
}
#else
static uint64_t mul64(uint64_t a, uint64_t b, uint64_t *hi) {
    /* Schoolbook on 32-bit halves; mid collects three 32-bit quantities, so it cannot overflow. */
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return (mid << 32) | (p00 & 0xFFFFFFFFu);
}
#endif

/* floor(log2(5^q)) for q in the table's range, by the multiply-shift the generator verified; the
 * offset keeps the operand of >> non-negative (C11 6.5.7p5: >> of a negative value is
 * implementation-defined). */
static int floor_log2_pow5(int q) {
    int32_t scaled = (int32_t)q * FJCS_LOG2_5_MUL
                     + ((int32_t)FJCS_LOG2_5_OFFSET << FJCS_LOG2_5_SHIFT);
    return (int)((uint32_t)scaled >> FJCS_LOG2_5_SHIFT) - FJCS_LOG2_5_OFFSET;
}

/* ---- Eight digits at a time ------------------------------------------------------------------ */

#if FJCS_PARSE_SWAR
#define FJCS_BYTES(b) (UINT64_C(0x0101010101010101) * (b))

static uint64_t load8(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);  /* little-endian: p[0] is the low byte */
    return v;
}

/* Every byte is '0'..'9': its high nibble is 3, and adding 6 leaves it 3 (a low nibble above 9
 * would carry into it). The first test rules out bytes >= 0x40, so the addition never carries
 * from one byte into the next. */
static int eight_digits(uint64_t v) {
    return (v & FJCS_BYTES(0xF0)) == FJCS_BYTES(0x30)
           && ((v + FJCS_BYTES(0x06)) & FJCS_BYTES(0xF0)) == FJCS_BYTES(0x30);
}

/* The value of eight digit bytes, first digit most significant: combine neighbours in lanes of
 * 16, 32, then 64 bits (d0 d1 -> 10 d0 + d1, and so on); no lane overflows into the one kept. */
static uint64_t eight_digit_value(uint64_t v) {
    v -= FJCS_BYTES('0');
    v = (v * 10 + (v >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
    v = (v * 100 + (v >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
    return (v * 10000 + (v >> 32)) & UINT64_C(0xFFFFFFFF);
}
#endif

/* Accumulates the digits from p into *w (mod 2^64) and returns the first non-digit position. */
FJCS_INLINE const unsigned char *scan_digits(const unsigned char *p,
                                                       const unsigned char *end, uint64_t *w) {
    uint64_t acc = *w;
#if FJCS_PARSE_SWAR
    uint64_t v;
    while (end - p >= 8 && eight_digits(v = load8(p))) {
        acc = acc * 100000000 + eight_digit_value(v);
        p += 8;
    }
#endif
    while (p < end && is_digit(*p)) {
        acc = acc * 10 + (uint64_t)(*p - '0');
        p++;
    }
    *w = acc;
    return p;
}

/* ---- Reading the token ----------------------------------------------------------------------- */

/* The significand as the fast paths see it: value = (w + tail) * 10^q, 0 <= tail < 1, where w is
 * the first (at most) 19 significant digits and tail > 0 exactly when truncated is set. 19 digits
 * always fit in 64 bits (10^19 < 2^64). */
typedef struct {
    uint64_t w;
    int64_t q;
    int truncated;
    int negative;
    const unsigned char *mant;      /* first byte of the integer part */
    const unsigned char *mant_end;  /* one past the last digit of the fraction */
    int64_t exp10;                  /* value = (all digits as an integer) * 10^exp10 */
} fjcs_decimal;

/* More than 19 digits in the mantissa: skip leading zeros (and the point), keep the first 19
 * significant digits in w, count the rest into q and note any nonzero one. */
static FJCS_COLD void read_long_significand(fjcs_decimal *d) {
    const unsigned char *p = d->mant, *end = d->mant_end;
    while (p < end && (*p == '0' || *p == '.')) p++;
    uint64_t w = 0;
    int kept = 0;
    for (; p < end && kept < 19; p++) {
        if (*p == '.') continue;
        w = w * 10 + (uint64_t)(*p - '0');
        kept++;
    }
    size_t rest = 0;
    int nonzero = 0;
    for (; p < end; p++) {
        if (*p == '.') continue;
        rest++;
        nonzero |= *p != '0';
    }
    d->w = w;
    d->q = d->exp10 + count64(rest);
    d->truncated = nonzero;
}

/* Splits the token along the RFC 8259 grammar. Returns FJCS_E_SYNTAX if it does not match (the
 * caller is meant to have checked; this keeps a wrong caller from reading out of bounds). */
static int read_decimal(const unsigned char *p, const unsigned char *end, fjcs_decimal *d) {
    /* A branch, not arithmetic, for the sign: predicted, it keeps the load of the first digit off
     * the critical path (measured: branch-free is 1-2 ns slower on positive numbers). */
    d->negative = 0;
    if (p < end && *p == '-') {
        d->negative = 1;
        p++;
    }
    d->mant = p;
    /* w may wrap here for long tokens (unsigned arithmetic, defined); it is recomputed then. */
    uint64_t w = 0;
    const unsigned char *int_begin = p;
    p = scan_digits(p, end, &w);
    size_t int_len = (size_t)(p - int_begin);
    if (int_len == 0 || (int_len > 1 && *int_begin == '0')) return FJCS_E_SYNTAX;
    size_t frac_len = 0;
    if (p < end && *p == '.') {
        const unsigned char *frac_begin = ++p;
        p = scan_digits(p, end, &w);
        frac_len = (size_t)(p - frac_begin);
        if (frac_len == 0) return FJCS_E_SYNTAX;
    }
    d->mant_end = p;
    int64_t e = 0;
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        int eneg = 0;
        if (p < end) {  /* the exponent's sign, without a branch on it */
            eneg = *p == '-';
            p += eneg | (*p == '+');
        }
        const unsigned char *exp_begin = p;
        uint64_t ev = 0;
        for (; p < end && is_digit(*p); p++) {
            if (ev < (uint64_t)FJCS_COUNT_CAP) ev = ev * 10 + (uint64_t)(*p - '0');
        }
        if (p == exp_begin) return FJCS_E_SYNTAX;
        if (ev > (uint64_t)FJCS_COUNT_CAP) ev = (uint64_t)FJCS_COUNT_CAP;
        e = (int64_t)ev * (1 - 2 * eneg);
    }
    if (p != end) return FJCS_E_SYNTAX;
    d->exp10 = e - count64(frac_len);
    d->w = w;
    d->q = d->exp10;
    d->truncated = 0;
    /* Leading zeros ("0.000123") add to the count but not to w, so only a count above 19 needs
     * a second look. */
    if (int_len + frac_len > 19) read_long_significand(d);
    return FJCS_OK;
}

/* ---- Path 1: Clinger's fast path ------------------------------------------------------------- */

/* Clinger 1990: if w and 10^|q| are exact doubles, w * 10^q (or w / 10^-q) is one IEEE operation,
 * correctly rounded by IEEE-754 itself. 10^22 is the largest exact power of ten (5^22 < 2^53 <
 * 5^23). Needs double arithmetic evaluated in double (FLT_EVAL_METHOD == 0; not x87 extended
 * precision, which would round twice) and the default rounding mode, which Python never changes. */
#if FJCS_PARSE_CLINGER && defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define FJCS_HAVE_CLINGER 1

static const double fjcs_exact_pow10[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Returns 1 and stores the value when the fast path applies. */
static int clinger(uint64_t w, int64_t q, double *value) {
    const uint64_t max_exact = UINT64_C(1) << 53;
    /* The exponent first: it rules out most 17-digit tokens predictably, w would not. */
    if (q < -22 || q > 22 + 15 || w > max_exact) return 0;
    if (q <= 22) {
        double dw = (double)w;  /* exact: w <= 2^53 */
        *value = q < 0 ? dw / fjcs_exact_pow10[-q] : dw * fjcs_exact_pow10[q];
        return 1;
    }
    /* Clinger's extension: "123e30" is 123e8 * 1e22 when 123e8 is still an exact integer. */
    uint64_t scale = 1;
    for (int64_t i = 22; i < q; i++) scale *= 10;
    if (w > max_exact / scale) return 0;
    *value = (double)(w * scale) * 1e22;
    return 1;
}
#else
#define FJCS_HAVE_CLINGER 0
#endif

/* ---- Path 2: Eisel-Lemire -------------------------------------------------------------------- */

/*
 * Notation. w' = w << l with 2^63 <= w' < 2^64. The table gives 5^q = (T + eps) 2^(b-127) with
 * b = floor(log2 5^q), 2^127 <= T < 2^128, 0 <= eps < 1 (eps == 0 iff 0 <= q <= 55). So
 *
 *     w 10^q = P' 2^(b - 127 + q - l),    P' = w' (T + eps) = P + delta,  P = w' T,
 *
 * with 0 <= delta < w' < 2^64 (delta > 0 exactly when eps > 0). P is a 192-bit integer >= 2^190;
 * U, its top 64 bits (>= 2^62), carries the answer: w 10^q = (U + f) 2^eu, eu = b + q - l + 1,
 * where f collects everything below U.
 *
 * The double: keep 53 bits of U (drop k = 11 or 10 low bits, more for subnormals), so the value is
 * (m 2^k + D) 2^(eu) with m the kept bits and D = low + f, low = U mod 2^k. It rounds down when
 * D < 2^(k-1) = half, up when D > half, to the even m when D == half.
 */
typedef struct {
    uint64_t m;     /* the kept bits (before rounding) */
    uint64_t low;   /* the dropped bits of U */
    uint64_t half;  /* 2^(k-1) */
    int e2;         /* the binary exponent of m's last bit, >= -1074 */
} fjcs_split;

static fjcs_split split_top(uint64_t u, int eu) {
    fjcs_split s;
    int k = (u >> 63) ? 11 : 10;
    s.e2 = eu + k;
    if (s.e2 < -1074) {          /* subnormal: the last bit is 2^-1074 */
        k += -1074 - s.e2;
        s.e2 = -1074;
    }
    if (k < 64) {
        s.m = u >> k;
        s.low = u & ((UINT64_C(1) << k) - 1);
        s.half = UINT64_C(1) << (k - 1);
    } else if (k == 64) {
        s.m = 0;
        s.low = u;
        s.half = UINT64_C(1) << 63;
    } else {
        /* D < 2^64 <= half: below half the smallest subnormal, so 0. Encoded so that the
         * caller's first test rounds down. */
        s.m = 0;
        s.low = 0;
        s.half = UINT64_C(1) << 63;
    }
    return s;
}

/* The bits of m 2^e2 (e2 >= -1074): an m of 2^53 after rounding up carries into the exponent
 * field, as does a subnormal m reaching 2^52, so no renormalisation is needed. Saturates at the
 * bits of infinity. */
static uint64_t make_bits(uint64_t m, int e2) {
    uint64_t bits = ((uint64_t)(e2 + 1074) << 52) + m;
    return bits < FJCS_INF_BITS ? bits : FJCS_INF_BITS;
}

#if FJCS_PARSE_EISEL_LEMIRE
/*
 * Rounds w 10^q for FJCS_POW5_MIN_Q <= q <= FJCS_POW5_MAX_Q, 1 <= w < 2^64. Returns 1 and the bits
 * (FJCS_INF_BITS on overflow) when the truncations provably do not matter, 0 when they might.
 */
FJCS_INLINE int eisel_lemire(uint64_t w, int q, uint64_t *bits, int *wide) {
    int l = fjcs__clz64(w);
    uint64_t wn = w << l;
    const uint64_t *t = fjcs_pow5_128[q - FJCS_POW5_MIN_Q];
    int eu = floor_log2_pow5(q) + q - l + 1;

    /* Stage 1: only w' T_hi = A (128 bits). P = A 2^64 + w' T_lo, and P' adds delta < 2^64, so in
     * units of U's last bit f < 2: low <= half - 2 rounds down and low >= half + 1 rounds up
     * whatever f is (with a carry into U the answer m + 1 is the same). This is the one-product
     * case of Lemire 2021; about 2 tokens in 2^k need stage 2. */
    uint64_t a_hi, a_lo = mul64(wn, t[0], &a_hi);
    fjcs_split s = split_top(a_hi, eu);
    *wide = 0;
    if (s.low + 1 < s.half) {
        *bits = make_bits(s.m, s.e2);
        return 1;
    }
    if (s.low > s.half) {
        *bits = make_bits(s.m + 1, s.e2);
        return 1;
    }

    /* Stage 2: the full 192-bit P = U 2^128 + R. Now f = (R + delta) / 2^128 < 1 + 2^-64. */
    *wide = 1;
    uint64_t b_hi, b_lo = mul64(wn, t[1], &b_hi);
    uint64_t r_hi = a_lo + b_hi;
    uint64_t u = a_hi + (r_hi < a_lo);  /* cannot wrap: P < 2^192 */
    uint64_t r_lo = b_lo;
    int exact = q >= 0 && q <= FJCS_POW5_EXACT_MAX_Q;  /* delta == 0 */
    s = split_top(u, eu);
    uint64_t m = s.m;
    if (s.low + 1 < s.half) {
        /* D < half - 1 + f, f < 2: down. */
    } else if (s.low > s.half) {
        m++;
    } else if (s.low == s.half) {
        /* D = half + f: a tie only if R == 0 and delta == 0; f > 0 otherwise, so up. A floor
         * table (delta >= 0) is what makes "R == 0, inexact" safe to round up. */
        if (!(exact && r_hi == 0 && r_lo == 0) || (m & 1)) m++;
    } else {
        /* low == half - 1: D = half - 1 + (R + delta) / 2^128 is below half unless
         * R + delta >= 2^128, possible only if R > 2^128 - w' (delta < w'). */
        if (!exact && r_hi == UINT64_MAX && r_lo > (uint64_t)0 - wn) return 0;
    }
    *bits = make_bits(m, s.e2);
    return 1;
}
#endif

/* A lower bound of w 10^q within a few ulps (stage 1 truncated, no rounding): the start of the
 * exact path's search. The value is >= this because every truncation above goes down. */
static uint64_t approx_bits(uint64_t w, int q) {
    int l = fjcs__clz64(w);
    uint64_t a_hi;
    (void)mul64(w << l, fjcs_pow5_128[q - FJCS_POW5_MIN_Q][0], &a_hi);
    fjcs_split s = split_top(a_hi, floor_log2_pow5(q) + q - l + 1);
    return make_bits(s.m, s.e2);
}

/* ---- Path 3: exact comparison with big integers ---------------------------------------------- */

/*
 * The decimal is V = K + tail, K = D 10^qk the first N = FJCS_PARSE_MAX_DIGITS significant digits
 * (D an integer of at most N digits), 0 <= tail < 10^qk, tail > 0 exactly when "sticky".
 *
 * Why K and sticky decide: a midpoint M between adjacent doubles is h 2^g with h odd, h < 2^54.
 * For g < 0 its decimal expansion ends exactly at the digit 10^g (h 5^-g is odd), so M is a
 * multiple of 10^qk whenever qk <= g; for g >= 0, M is an integer. Then K < M implies
 * K <= M - 10^qk, so V < M; K > M implies V > M; and K == M leaves V > M exactly when sticky.
 *
 * qk <= g holds whenever digits are dropped: the leading digit of V is at 10^L with
 * L <= log10(2^(g+55)) (the search below only compares V with midpoints a few ulps away), and
 * qk = L - N + 1 (so qk < 0 <= g when g >= 0: L < 327 < N - 1); hence
 * N >= floor(log10(2^(g+55))) - g + 1 suffices. The worst g is the smallest, -1075, giving 768
 * (tests/c/test_parse_double.py computes it for every g). With no digit dropped, tail == 0 and
 * K == V.
 *
 * Sizes (why the arrays suffice): D < 10^N; when qk < 0, qk >= FJCS_POW5_MIN_Q + 19 - N, so
 * 5^-qk h < 2^((N + 323) log2(5) + 54); when qk >= 0, D 5^qk <= K < 10^327 (q <= 308, w < 10^19).
 */
#define FJCS_BITS_D (FJCS_PARSE_MAX_DIGITS * 3322 / 1000 + 1)
#define FJCS_BITS_HY ((FJCS_PARSE_MAX_DIGITS + 323) * 2322 / 1000 + 1 + 54)
#define FJCS_BITS_X 1090
#define FJCS_MAX3(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))
#define FJCS_BIG_LIMBS (FJCS_MAX3(FJCS_BITS_D, FJCS_BITS_HY, FJCS_BITS_X) / 64 + 2)

/* An unsigned integer in little-endian 64-bit limbs; v[n-1] != 0 unless n == 0. */
typedef struct {
    int n;
    uint64_t v[FJCS_BIG_LIMBS];
} fjcs_big;

static void big_set(fjcs_big *a, uint64_t x) {
    a->n = x != 0;
    a->v[0] = x;
}

/* a = a * mul + add. The bounds above keep every result inside the array; the check only makes a
 * wrong bound give a wrong answer (which tests would see) instead of a buffer overflow. */
static void big_mul_add(fjcs_big *a, uint64_t mul, uint64_t add) {
    uint64_t carry = add;
    for (int i = 0; i < a->n; i++) {
        uint64_t hi, lo = mul64(a->v[i], mul, &hi);
        lo += carry;
        hi += lo < carry;  /* a * mul + carry < 2^128: no overflow */
        a->v[i] = lo;
        carry = hi;
    }
    if (carry && a->n < FJCS_BIG_LIMBS) a->v[a->n++] = carry;
}

static void big_mul_pow5(fjcs_big *a, int64_t e) {
    const uint64_t pow5_27 = UINT64_C(7450580596923828125);  /* the largest power of 5 < 2^64 */
    for (; e >= 27; e -= 27) big_mul_add(a, pow5_27, 0);
    uint64_t p = 1;
    for (; e > 0; e--) p *= 5;
    if (p != 1) big_mul_add(a, p, 0);
}

static int64_t big_bitlen(const fjcs_big *a) {
    return a->n ? 64 * (int64_t)a->n - fjcs__clz64(a->v[a->n - 1]) : 0;
}

/* dst = src << s (s >= 0), for results known to fit. */
static void big_shl(fjcs_big *dst, const fjcs_big *src, int64_t s) {
    int limbs = (int)(s / 64), bits = (int)(s % 64);
    int n = src->n + limbs + 1;
    if (n > FJCS_BIG_LIMBS) n = FJCS_BIG_LIMBS;
    for (int i = 0; i < n; i++) {
        int j = i - limbs;  /* the source limb that lands here */
        uint64_t cur = j >= 0 && j < src->n ? src->v[j] : 0;
        uint64_t prev = j - 1 >= 0 && j - 1 < src->n ? src->v[j - 1] : 0;
        dst->v[i] = bits ? (cur << bits) | (prev >> (64 - bits)) : cur;
    }
    while (n > 0 && dst->v[n - 1] == 0) n--;
    dst->n = n;
}

static int big_cmp(const fjcs_big *a, const fjcs_big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--) {
        if (a->v[i] != b->v[i]) return a->v[i] < b->v[i] ? -1 : 1;
    }
    return 0;
}

/* Sign of a 2^sa - b 2^sb (a, b > 0). Bit lengths settle most cases; otherwise the operand with
 * the smaller exponent is shifted to the other's length, which bounds the scratch. */
static int big_cmp_scaled(const fjcs_big *a, int64_t sa, const fjcs_big *b, int64_t sb,
                          fjcs_big *scratch) {
    int64_t la = big_bitlen(a) + sa, lb = big_bitlen(b) + sb;
    if (la != lb) return la < lb ? -1 : 1;
    if (sa >= sb) {
        big_shl(scratch, a, sa - sb);
        return big_cmp(scratch, b);
    }
    big_shl(scratch, b, sb - sa);
    return big_cmp(a, scratch);
}

typedef struct {
    fjcs_big num;  /* qk >= 0: D 5^qk, compared as num 2^qk; qk < 0: D, compared as D 2^qk */
    fjcs_big den;  /* qk < 0: 5^-qk, the midpoint's side is h 5^-qk 2^g */
    int64_t qk;
    int sticky;
} fjcs_exact;

/* Sign of V - M, M the midpoint between the double with these bits and the next one up. The
 * formula M = (2m + 1) 2^(e2 - 1) holds across binade boundaries and for subnormals. */
static int cmp_midpoint(const fjcs_exact *x, uint64_t bits) {
    uint64_t m = bits & FJCS_MANT_MASK;
    int e2 = -1074;
    if (bits >> 52) {
        m |= UINT64_C(1) << 52;
        e2 = (int)(bits >> 52) - 1075;
    }
    fjcs_big h, scratch;
    int r;
    if (x->qk >= 0) {
        big_set(&h, 2 * m + 1);
        r = big_cmp_scaled(&x->num, x->qk, &h, e2 - 1, &scratch);
    } else {
        h = x->den;
        big_mul_add(&h, 2 * m + 1, 0);
        r = big_cmp_scaled(&x->num, x->qk, &h, e2 - 1, &scratch);
    }
    return r == 0 && x->sticky ? 1 : r;
}

/* Rounds the decimal exactly, starting the search from bits `start`. */
static FJCS_COLD uint64_t exact_bits(const fjcs_decimal *d, uint64_t start) {
    fjcs_exact x;
    const unsigned char *p = d->mant, *end = d->mant_end;
    while (p < end && (*p == '0' || *p == '.')) p++;
    /* D, 19 digits at a time: chunk holds up to 19 digits (< 10^19 < 2^64). */
    big_set(&x.num, 0);
    uint64_t chunk = 0, scale = 1;
    int kept = 0;
    size_t dropped = 0;
    x.sticky = 0;
    for (; p < end; p++) {
        if (*p == '.') continue;
        if (kept == FJCS_PARSE_MAX_DIGITS) {
            dropped++;
            x.sticky |= *p != '0';
            continue;
        }
        chunk = chunk * 10 + (uint64_t)(*p - '0');
        scale *= 10;
        kept++;
        if (scale == UINT64_C(10000000000000000000)) {
            big_mul_add(&x.num, scale, chunk);
            chunk = 0;
            scale = 1;
        }
    }
    if (scale != 1) big_mul_add(&x.num, scale, chunk);
    x.qk = d->exp10 + count64(dropped);
    if (x.qk >= 0) {
        big_mul_pow5(&x.num, x.qk);
    } else {
        big_set(&x.den, 1);
        big_mul_pow5(&x.den, -x.qk);
    }

    /* Move until M(bits - 1) <= V <= M(bits), an equality allowed only at an even bits: that is
     * round-half-even. Infinity's bits act as the even successor of DBL_MAX, so a value at or
     * above the midpoint 2^1024 - 2^970 overflows, as IEEE-754 rounding specifies. The start is
     * at most a few ulps low, so this takes a handful of comparisons; it converges from any
     * start, as the FJCS_PARSE_TEST_SKEW build checks. */
    uint64_t bits = start;
    for (;;) {
        if (bits < FJCS_INF_BITS) {
            int c = cmp_midpoint(&x, bits);
            if (c > 0 || (c == 0 && (bits & 1))) {
                bits++;
                continue;
            }
        }
        if (bits > 0) {
            int c = cmp_midpoint(&x, bits - 1);
            if (c < 0 || (c == 0 && (bits & 1))) {
                bits--;
                continue;
            }
        }
        return bits;
    }
}

/* ---- The entry point ------------------------------------------------------------------------- */

fjcs_code fjcs__parse_double(const char *tok, size_t len, double *out) {
    const unsigned char *begin = (const unsigned char *)tok;
    fjcs_decimal d;
    int rc = read_decimal(begin, begin + len, &d);
    if (rc != FJCS_OK) return rc;

    uint64_t bits;
    if (d.w == 0) {
        /* Every digit is zero (a truncated w is >= 10^18). */
        FJCS_PARSE_TEST_HOOK(FJCS_PATH_ZERO);
        bits = 0;
        goto done;
    }
    if (d.q < FJCS_POW5_MIN_Q) {
        /* V < 10^19 10^-343 < 2^-1075, below half the smallest subnormal. */
        FJCS_PARSE_TEST_HOOK(FJCS_PATH_RANGE);
        bits = 0;
        goto done;
    }
    if (d.q > FJCS_POW5_MAX_Q) {
        /* V >= 10^309 > DBL_MAX. */
        FJCS_PARSE_TEST_HOOK(FJCS_PATH_RANGE);
        return FJCS_E_FLOAT_DOMAIN;
    }
    int q = (int)d.q;

#if FJCS_HAVE_CLINGER
    if (!d.truncated) {
        double value;
        if (clinger(d.w, q, &value)) {
            FJCS_PARSE_TEST_HOOK(FJCS_PATH_CLINGER);
            *out = d.negative ? -value : value;
            return FJCS_OK;
        }
    }
#endif

    int path = FJCS_PATH_EXACT_FORCED;
#if FJCS_PARSE_EISEL_LEMIRE
    int wide;
    if (eisel_lemire(d.w, q, &bits, &wide)) {
        if (!d.truncated) {
            FJCS_PARSE_TEST_HOOK(wide ? FJCS_PATH_EL_WIDE : FJCS_PATH_EL);
            goto done;
        }
        /* V lies strictly between w 10^q and (w+1) 10^q (Lemire 2021, on more than 19 digits);
         * rounding is monotonic, so if both ends round alike, so does V. */
        uint64_t bits_up;
        int wide_up;
        if (eisel_lemire(d.w + 1, q, &bits_up, &wide_up) && bits_up == bits) {
            FJCS_PARSE_TEST_HOOK(wide || wide_up ? FJCS_PATH_EL_WIDE : FJCS_PATH_EL);
            goto done;
        }
        path = FJCS_PATH_EXACT_TRUNCATED;
    } else {
        path = FJCS_PATH_EXACT_AMBIGUOUS;
    }
#endif
    (void)path;
    FJCS_PARSE_TEST_HOOK(path);
    {
        uint64_t start = approx_bits(d.w, q);
#if FJCS_PARSE_TEST_SKEW
        int64_t skewed = (int64_t)start + FJCS_PARSE_TEST_SKEW;
        start = skewed < 0 ? 0 : (uint64_t)skewed;
        if (start > FJCS_INF_BITS) start = FJCS_INF_BITS;
#endif
        bits = exact_bits(&d, start);
    }

done:
    if (bits >= FJCS_INF_BITS) return FJCS_E_FLOAT_DOMAIN;
    bits |= (uint64_t)d.negative << 63;
    memcpy(out, &bits, sizeof bits);
    return FJCS_OK;
}

/* The same answer as fjcs__parse_double for a token the caller has already read: w, all of its
 * digits as an integer (at most 19 of them, so exact), q its exponent less its fraction digits
 * (value = w 10^q). Paths 1 and 2 decide here without reading the token again; whatever they
 * leave (zero, the range edges, the rare ambiguous case, builds without them) reads the token. */
fjcs_code fjcs__parse_digits(uint64_t w, int64_t q, int negative, const char *tok, size_t len,
                             double *out) {
#if FJCS_PARSE_EISEL_LEMIRE
    if (w != 0 && q >= FJCS_POW5_MIN_Q && q <= FJCS_POW5_MAX_Q) {
#if FJCS_HAVE_CLINGER
        double value;
        if (clinger(w, (int)q, &value)) {
            FJCS_PARSE_TEST_HOOK(FJCS_PATH_CLINGER);
            *out = negative ? -value : value;
            return FJCS_OK;
        }
#endif
        uint64_t bits;
        int wide;
        if (eisel_lemire(w, (int)q, &bits, &wide)) {
            FJCS_PARSE_TEST_HOOK(wide ? FJCS_PATH_EL_WIDE : FJCS_PATH_EL);
            if (bits >= FJCS_INF_BITS) return FJCS_E_FLOAT_DOMAIN;
            bits |= (uint64_t)negative << 63;
            memcpy(out, &bits, sizeof bits);
            return FJCS_OK;
        }
    }
#else
    (void)w, (void)q, (void)negative;
#endif
    return fjcs__parse_double(tok, len, out);
}

/* ---- A token that is its double's shortest form ---------------------------------------------- */

/*
 * fjcs__parse_shortest is fjcs__parse_digits for a w of at most 17 digits without a trailing zero
 * (0 < w < 10^17, w % 10 != 0), which also sets *shortest to 1 when it proves that w 10^q is
 * what ECMA-262's Number::toString chooses for the double read (step 5: the fewest digits k with
 * s 10^(n-k) reading back as the double, and of those the s closest to it), so that the caller
 * needs no Schubfach; 0 says nothing. json.dumps writes repr, itself shortest and closest, so on
 * its output the proof almost always holds; where it does not the caller asks Schubfach.
 *
 * The proof works in units of 2^eu, eisel_lemire's stage 1: x = w 10^q = U + F with 0 <= F < 2
 * (U = a_hi: the truncated products only drop bits). k bits of U are dropped (10 or 11 for a
 * normal double, more for a subnormal, at most 60 here), v = m' 2^k in these units (m' = m or
 * m + 1 as stage 1 rounds; no carry into the next binade, which would widen the interval above v;
 * a subnormal reaching 2^52 is the smallest normal, whose neighbours are as far), and
 * d = low - (m' - m) 2^k, so x - v = d + F, in [d, d + 2). One step of the token's last digit,
 * 10^q, is S = 10^q / 2^eu = 5^q 2^(l - 1 - b) = (T + eps) 2^(l - 128), and
 * s = T_hi >> (64 - l) <= S < s + 1 (T_hi >= 2^63, so s >= 2^(l-1) > 0; l <= 57 for w >= 128,
 * k <= 60, so every sum and product below stays under 2^62 in int64; a smaller w goes to
 * fjcs__parse_digits).
 * The decimals that read back as v lie in v's rounding interval, which reaches at most
 * h = 2^(k-1) either side of v (half an ulp; a quarter below a power of two).
 *
 *  - Closest: 2 (x - v) < 2d + 4 <= s <= S and -2 (x - v) <= -2d < s <= S give |x - v| < S / 2, so
 *    x is strictly the nearest multiple of 10^q to v (no tie to break).
 *  - Shortest: let r = w % 10 (1..9); a = x - r S and a' = x + (10 - r) S are the multiples of
 *    10^(q+1) on either side of x. If a decimal y of fewer than len digits read back as v, then a
 *    or a' would too: the interval is convex and holds x; below 10^(len-1+q) < x and from
 *    10^(len+q) > x on, the powers of ten themselves (multiples of 10^(q+1)) lie between y and x,
 *    and between them y is a multiple of 10^(q+1); in every case a (for y < x) or a' (y > x) lies
 *    between y and x. v - a = r S - (x - v) > r s - d - 2 > h and a' - v >= d + (10 - r) s > h put
 *    both outside, so k = len. Then s 10^(n-k) with another exponent would again bring a power of
 *    ten, and with it a or a', inside; so x is the one answer.
 *
 * Anything stage 1 leaves open (a near-halfway rounding, the tiniest subnormals, overflow, the
 * carry) goes to fjcs__parse_digits; a margin not met leaves *shortest 0.
 */
fjcs_code fjcs__parse_shortest(uint64_t w, int64_t q, int negative, const char *tok, size_t len,
                               double *out, int *shortest) {
    *shortest = 0;
#if FJCS_PARSE_EISEL_LEMIRE
    if (w != 0 && w < UINT64_C(100000000000000000) && w % 10 != 0 &&
        q >= FJCS_POW5_MIN_Q && q <= FJCS_POW5_MAX_Q) {
        int l = fjcs__clz64(w);
        const uint64_t *t = fjcs_pow5_128[q - FJCS_POW5_MIN_Q];
        uint64_t u;
        (void)mul64(w << l, t[0], &u);
        int k = (u >> 63) ? 11 : 10;
        int e2 = floor_log2_pow5((int)q) + (int)q - l + 1 + k;
        if (e2 < -1074) { /* subnormal: the last bit is 2^-1074, as in split_top */
            k += -1074 - e2;
            e2 = -1074;
        }
        if (k > 60 || l > 57) return fjcs__parse_digits(w, q, negative, tok, len, out);
        uint64_t m = u >> k, low = u & ((UINT64_C(1) << k) - 1), h = UINT64_C(1) << (k - 1);
        int up = low > h;
        if ((low + 1 < h || up) && m + (uint64_t)up < (UINT64_C(1) << 53)) {
            uint64_t bits = make_bits(m + (uint64_t)up, e2);
            if (bits < FJCS_INF_BITS) {
                int64_t d = (int64_t)low - (up ? (int64_t)1 << k : 0);
                int64_t s = (int64_t)(t[0] >> (64 - l));
                int64_t r = (int64_t)(w % 10), hh = (int64_t)h;
                *shortest = 2 * d + 4 <= s && -2 * d < s && r * s - d - 2 > hh && d + (10 - r) * s > hh;
                FJCS_PARSE_TEST_HOOK(FJCS_PATH_EL);
                bits |= (uint64_t)negative << 63;
                memcpy(out, &bits, sizeof bits);
                return FJCS_OK;
            }
        }
    }
#endif
    return fjcs__parse_digits(w, q, negative, tok, len, out);
}
