/*
 * number_check.c: checks csrc/number_format.c from C, for the sanitizer builds
 * (tests/c/run_sanitized.sh), in whatever configuration of its knobs it is compiled with.
 *
 * It #includes number_format.c, so it also checks the static helpers against plain arithmetic
 * (the SWAR digit writer on all 10^8 inputs, the digit count at every power of ten and two, the
 * point insertion at every position). Then its own edge cases, then every "<hex>,<expected>" line
 * on stdin (the ES6 corpus as the pure-Python renderer writes it: python tests/es6corpus.py
 * --renderer python). Each line is rendered alone into a heap buffer of exactly the longest
 * rendering (25 bytes), so AddressSanitizer sees any write past it, and again in batches, back to
 * back with a '\n' after each (format_batch), into exactly n * FJCS_NUMBER_BUFSIZE bytes. Exits 1 at the first mismatch,
 * printing it; 0 when all agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FJCS_NUMBER_CHECK /* number_format.c keeps its helpers for every build: checked here */
#include "number_format.c"

#define LONGEST 25 /* "-0.0000033333333333333333" */
#define BATCH 4096

static void fail(const char *what, uint64_t bits, const char *got, int got_len, const char *want) {
    fprintf(stderr, "number_check: %s: %016llx: got \"%.*s\" (%d), want \"%s\"\n", what,
            (unsigned long long)bits, got_len > 0 ? got_len : 0, got ? got : "", got_len, want);
    exit(1);
}

static double from_bits(uint64_t bits) {
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Renders bits into an exact-size heap buffer and compares with want (NULL: must be refused). */
static void check_one(uint64_t bits, const char *want) {
    char *buf = malloc(LONGEST);
    if (buf == NULL) exit(2);
    memset(buf, '#', LONGEST);
    size_t len = 0;
    fjcs_code rc = fjcs_format_double(from_bits(bits), buf, &len);
    int n = rc == FJCS_OK ? (int)len : -(int)rc;
    if (want == NULL) {
        if (rc != FJCS_E_FLOAT_DOMAIN) fail("not refused", bits, buf, n, "(refusal)");
        for (int i = 0; i < LONGEST; i++)
            if (buf[i] != '#') fail("wrote on refusal", bits, buf, LONGEST, "(nothing)");
    } else if (n < 1 || n > LONGEST || (size_t)n != strlen(want) || memcmp(buf, want, (size_t)n)) {
        fail("single", bits, buf, n > LONGEST ? LONGEST : n, want);
    }
    free(buf);
}

/* Edge cases with values from RFC 8785 Appendix B and ECMA-262, typed here. */
static const struct {
    uint64_t bits;
    const char *want; /* NULL: NaN or an infinity, refused */
} EDGES[] = {
    {0x0000000000000000u, "0"},
    {0x8000000000000000u, "0"},
    {0x0000000000000001u, "5e-324"},
    {0x8000000000000001u, "-5e-324"},
    {0x0000000000000002u, "1e-323"},
    {0x0000000000000003u, "1.5e-323"},
    {0x000fffffffffffffu, "2.225073858507201e-308"},
    {0x0010000000000000u, "2.2250738585072014e-308"},
    {0x7fefffffffffffffu, "1.7976931348623157e+308"},
    {0xffefffffffffffffu, "-1.7976931348623157e+308"},
    {0x4340000000000000u, "9007199254740992"},
    {0xc340000000000000u, "-9007199254740992"},
    {0x4430000000000000u, "295147905179352830000"},
    {0x44b52d02c7e14af5u, "9.999999999999997e+22"},
    {0x44b52d02c7e14af6u, "1e+23"},
    {0x44b52d02c7e14af7u, "1.0000000000000001e+23"},
    {0x444b1ae4d6e2ef4eu, "999999999999999700000"},
    {0x444b1ae4d6e2ef4fu, "999999999999999900000"},
    {0x444b1ae4d6e2ef50u, "1e+21"},
    {0x3eb0c6f7a0b5ed8cu, "9.999999999999997e-7"},
    {0x3eb0c6f7a0b5ed8du, "0.000001"},
    {0x41b3de4355555553u, "333333333.3333332"},
    {0x41b3de4355555554u, "333333333.33333325"},
    {0x41b3de4355555555u, "333333333.3333333"},
    {0x41b3de4355555556u, "333333333.3333334"},
    {0x41b3de4355555557u, "333333333.33333343"},
    {0xbecbf647612f3696u, "-0.0000033333333333333333"},
    {0x43143ff3c1cb0959u, "1424953923781206.2"},
    {0x3e60000000000000u, "2.9802322387695312e-8"}, /* 2^-25, an exact tie */
    {0x3ff0000000000000u, "1"},
    {0xbff8000000000000u, "-1.5"},
    {0x3e7ad7f29abcaf48u, "1e-7"},
    {0x3fd3333333333334u, "0.30000000000000004"},
    {0x4415af1d78b58c40u, "100000000000000000000"},
    /* The centre with the least fraction of any exponent, 2^-65.44 (q = 664, c = 8887055249355788,
     * check_schubfach.py): the top word of its fraction is 0, so its sticky bit comes from the
     * low product (Python's repr, rfc8785) */
    {0x6cbf92bacb3cb40cu, "6.802601037806062e+215"},
    /* Powers of two (the irregular interval, c = 2^52) whose nearer decimal of the grid 10^k lies
     * below the interval, so the next one up is taken: Python's repr of ldexp(1, e) */
    {0x0060000000000000u, "7.120236347223045e-307"},
    {0x0100000000000000u, "7.291122019556398e-304"},
    {0x0e80000000000000u, "7.678447687145631e-239"},
    {0x2160000000000000u, "6.256509672447191e-148"},
    {0x7ff0000000000000u, NULL},
    {0xfff0000000000000u, NULL},
    {0x7ff8000000000000u, NULL},
    {0x7ff0000000000001u, NULL},
    {0xffffffffffffffffu, NULL},
};

/* ---- the static helpers ---- */

static void check_helpers(void) {
    /* decimal_length at both sides of every power of ten, and at every power of two */
    uint64_t p10 = 1;
    for (int i = 1; i <= 17; i++) {
        if (decimal_length(p10) != i || (i > 1 && decimal_length(p10 - 1) != i - 1)) {
            fprintf(stderr, "number_check: decimal_length wrong near 10^%d\n", i - 1);
            exit(1);
        }
        p10 *= 10;
    }
    for (uint64_t m = 1; m < POW10_16 * 10; m <<= 1) {
        int len = 0;
        for (uint64_t x = m; x; x /= 10) len++;
        if (decimal_length(m) != len || decimal_length(m + 1) != len + (m + 1 == 10)) {
            fprintf(stderr, "number_check: decimal_length(%llu) wrong\n", (unsigned long long)m);
            exit(1);
        }
    }
#if FJCS_HAVE_LITTLE_ENDIAN
    /* ascii8 against division, on every x < 10^8 */
    for (uint32_t x = 0; x < 100000000; x++) {
        uint64_t w = ascii8(x);
        char got[8], want[8];
        memcpy(got, &w, 8);
        uint32_t y = x;
        for (int i = 7; i >= 0; i--, y /= 10) want[i] = (char)('0' + y % 10);
        if (memcmp(got, want, 8) != 0) {
            fprintf(stderr, "number_check: ascii8(%u) = %.8s\n", x, got);
            exit(1);
        }
    }
#if FJCS_HAVE_SSE2
    /* ascii16 against division: every x < 10^8 in the first half, 10^8 - 1 - x in the second */
    for (uint32_t x = 0; x < 100000000; x++) {
        __m128i d = ascii16(x, 99999999 - x);
        char got[16], want[16];
        _mm_storeu_si128((__m128i *)(void *)got, d);
        uint32_t y = x, z = 99999999 - x;
        for (int i = 7; i >= 0; i--, y /= 10, z /= 10) {
            want[i] = (char)('0' + y % 10);
            want[8 + i] = (char)('0' + z % 10);
        }
        if (memcmp(got, want, 16) != 0) {
            fprintf(stderr, "number_check: ascii16(%u, %u) = %.16s\n", x, 99999999 - x, got);
            exit(1);
        }
    }
#endif
    /* insert_point at every position */
    const char *digits = "12345678";
    uint64_t w;
    memcpy(&w, digits, 8);
    for (int j = 0; j < 8; j++) {
        uint64_t r = insert_point(w, j);
        char got[8], want[8];
        memcpy(got, &r, 8);
        for (int i = 0; i < 8; i++) want[i] = i < j ? digits[i] : i == j ? '.' : digits[i - 1];
        if (memcmp(got, want, 8) != 0) {
            fprintf(stderr, "number_check: insert_point(%d) = %.8s\n", j, got);
            exit(1);
        }
    }
#endif
    /* write_exponent at every exponent the layout can ask for (5e-324 to 1.7976931348623157e+308:
     * -324..308; its table, and this check, go to +324) */
    for (int x = -324; x <= 324; x++) {
        char got[8], want[8];
        memset(got, '#', sizeof got);
        int n = (int)(write_exponent(got, x) - got);
        int m = snprintf(want, sizeof want, "e%c%d", x < 0 ? '-' : '+', x < 0 ? -x : x);
        if (n != m || memcmp(got, want, (size_t)n) != 0) {
            fprintf(stderr, "number_check: write_exponent(%d) = %.*s\n", x, n, got);
            exit(1);
        }
    }
}

/* ---- the public functions ---- */

/* n renderings back to back, each followed by '\n', into out (n * FJCS_NUMBER_BUFSIZE bytes: the
 * bytes a rendering may write past its length land in the room of the next); the length written,
 * or -1 if a value is refused. */
static long long format_batch(const double *v, size_t n, char *out) {
    char *p = out;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        if (fjcs_format_double(v[i], p, &len) != FJCS_OK) return -1;
        p += len;
        *p++ = '\n';
    }
    return (long long)(p - out);
}

static void check_edges(void) {
    for (size_t i = 0; i < sizeof EDGES / sizeof EDGES[0]; i++) check_one(EDGES[i].bits, EDGES[i].want);

    /* The batch refuses a NaN anywhere in it. */
    double bad[3] = {1.0, from_bits(0x7ff8000000000000u), 2.0};
    char *out = malloc(3 * FJCS_NUMBER_BUFSIZE);
    if (out == NULL) exit(2);
    if (format_batch(bad, 3, out) != -1) fail("batch NaN not refused", 0, NULL, 0, "-1");
    /* The batch of the longest rendering fills its n * FJCS_NUMBER_BUFSIZE bytes exactly. */
    double longest[3];
    for (int i = 0; i < 3; i++) longest[i] = from_bits(0xbecbf647612f3696u);
    long long n = format_batch(longest, 3, out);
    if (n != 3 * (LONGEST + 1) || memcmp(out + 2 * (LONGEST + 1), "-0.0000033333333333333333\n", 26))
        fail("batch longest", 0xbecbf647612f3696u, out, (int)n, "3 x 26 bytes");
    if (format_batch(longest, 0, out) != 0) fail("empty batch", 0, NULL, 0, "0");
    free(out);
}

/* ---- the corpus on stdin ---- */

static int parse_line(char *line, uint64_t *bits, char **want) {
    char *comma = strchr(line, ',');
    if (comma == NULL) return 0;
    *comma = '\0';
    uint64_t v = 0;
    for (char *p = line; *p; p++) {
        int d = (*p >= '0' && *p <= '9') ? *p - '0' : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 : -1;
        if (d < 0) return 0;
        v = v << 4 | (uint64_t)d;
    }
    char *end = comma + 1 + strcspn(comma + 1, "\r\n");
    *end = '\0';
    *bits = v;
    *want = comma + 1;
    return 1;
}

static void check_batch(const double *values, const uint64_t *bits, size_t n, const char *want,
                        size_t want_len) {
    char *out = malloc(n * FJCS_NUMBER_BUFSIZE);
    if (out == NULL) exit(2);
    long long got = format_batch(values, n, out);
    if (got != (long long)want_len || memcmp(out, want, want_len) != 0) {
        /* find the first differing line to report it */
        size_t a = 0, b = 0;
        for (size_t i = 0; i < n; i++) {
            size_t la = strcspn(out + a, "\n"), lb = strcspn(want + b, "\n");
            if (la != lb || memcmp(out + a, want + b, la)) {
                char line[64];
                snprintf(line, sizeof line, "%.*s", (int)lb, want + b);
                fail("batch", bits[i], out + a, (int)la, line);
            }
            a += la + 1;
            b += lb + 1;
        }
        fail("batch length", 0, NULL, (int)got, "the expected length");
    }
    free(out);
}

int main(void) {
    check_helpers();
    check_edges();

    static double values[BATCH];
    static uint64_t bits[BATCH];
    static char want[BATCH * FJCS_NUMBER_BUFSIZE];
    size_t n = 0, want_len = 0;
    unsigned long long lines = 0;
    char line[256];
    while (fgets(line, sizeof line, stdin) != NULL) {
        uint64_t b;
        char *text;
        if (!parse_line(line, &b, &text)) {
            fprintf(stderr, "number_check: malformed line %llu: %s\n", lines + 1, line);
            return 1;
        }
        check_one(b, text);
        size_t len = strlen(text);
        values[n] = from_bits(b);
        bits[n] = b;
        memcpy(want + want_len, text, len);
        want[want_len + len] = '\n';
        want_len += len + 1;
        if (++n == BATCH) {
            check_batch(values, bits, n, want, want_len);
            n = want_len = 0;
        }
        lines++;
    }
    if (n) check_batch(values, bits, n, want, want_len);
    printf("number_check: %zu edge cases and %llu corpus lines agree\n",
           sizeof EDGES / sizeof EDGES[0], lines);
    return 0;
}
