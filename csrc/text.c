/*
 * text.c: JSON text in, canonical JSON out (RFC 8785), in one pass with an explicit stack.
 *
 * The parser is strict RFC 8259 plus I-JSON (RFC 7493): UTF-8 only, no duplicate member names,
 * no escapes that leave a lone surrogate. It writes the canonical form as it goes: strings are
 * re-escaped canonically, numbers written as ECMA-262 Number::toString does (copied when they
 * already are), and each object's members, written in input order, are put in order when the
 * object closes (writer.c).
 *
 * Errors and their offsets follow src/fastjcs/core/python_backend.py exactly (the tests compare the two on
 * random and corrupted texts): a structural error at the offending byte or at the end of input;
 * a bad escape at its backslash; a lone surrogate escape at the backslash of the unpaired escape;
 * invalid UTF-8 at the first byte of the sequence; a number at the byte where the grammar needed
 * a digit, or at a digit after a leading zero; a literal at its first byte that differs; a
 * duplicate name when its object closes, at the earliest repeating member's opening quote; the
 * depth limit at the bracket that opens one container too many.
 *
 * Kept whole (about 800 lines): one parser of one format in one pass; its string scan (SSE2 or
 * word at a time), number tokens (read once, copied when already canonical) and literals are
 * inlined into the parse loop, which is where digest --jsonl's time goes, and each is read beside
 * the error offsets it must reproduce.
 */
#include <stddef.h>
#include <stdlib.h>

#include "fjcs_internal.h"

/* ---- State (fjcs__text, fjcs_internal.h) ----------------------------------------------------- */

typedef fjcs__text parser;
typedef fjcs__text_frame frame;
typedef fjcs__text_member member;

static fjcs_code fail(parser *ps, fjcs_code code, const uint8_t *at, const char *msg) {
    return fjcs__fail(ps->err, code, (size_t)(at - ps->base), msg);
}

/* The grammar wanted `what` at `at` and found another character or the end of the input. The
 * message is for C callers; the Python binding words its own from `expected` and the input. */
static fjcs_code unexpected(parser *ps, const uint8_t *at, fjcs_expect what) {
#define EXPECT(name, words) [FJCS_EXPECT_##name] = words
    static const char *const at_char[] = {
        EXPECT(NOTHING, "unexpected character"),
        EXPECT(VALUE, "unexpected character, expected a value"),
        EXPECT(DIGIT, "unexpected character, expected a digit"),
        EXPECT(FRACTION_DIGIT, "unexpected character, expected a digit after the decimal point"),
        EXPECT(EXPONENT_DIGIT, "unexpected character, expected a digit in the exponent"),
        EXPECT(TRUE, "unexpected character, expected 'true'"),
        EXPECT(FALSE, "unexpected character, expected 'false'"),
        EXPECT(NULL, "unexpected character, expected 'null'"),
        EXPECT(COMMA_OR_BRACKET, "unexpected character, expected ',' or ']'"),
        EXPECT(COMMA_OR_BRACE, "unexpected character, expected ',' or '}'"),
        EXPECT(NAME, "unexpected character, expected a member name"),
        EXPECT(COLON, "unexpected character, expected ':'"),
        EXPECT(END, "unexpected character, expected end of input"),
    };
    static const char *const at_end[] = {
        EXPECT(NOTHING, "unexpected end of input"),
        EXPECT(VALUE, "unexpected end of input, expected a value"),
        EXPECT(DIGIT, "unexpected end of input, expected a digit"),
        EXPECT(FRACTION_DIGIT, "unexpected end of input, expected a digit after the decimal point"),
        EXPECT(EXPONENT_DIGIT, "unexpected end of input, expected a digit in the exponent"),
        EXPECT(TRUE, "unexpected end of input, expected 'true'"),
        EXPECT(FALSE, "unexpected end of input, expected 'false'"),
        EXPECT(NULL, "unexpected end of input, expected 'null'"),
        EXPECT(COMMA_OR_BRACKET, "unexpected end of input, expected ',' or ']'"),
        EXPECT(COMMA_OR_BRACE, "unexpected end of input, expected ',' or '}'"),
        EXPECT(NAME, "unexpected end of input, expected a member name"),
        EXPECT(COLON, "unexpected end of input, expected ':'"),
        EXPECT(END, "unexpected end of input"), /* never: the end is what was wanted */
    };
#undef EXPECT
    fjcs_code rc = fail(ps, FJCS_E_SYNTAX, at, at >= ps->end ? at_end[what] : at_char[what]);
    if (ps->err) ps->err->expected = what;
    return rc;
}

static inline const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end) {
    if (p < end && *p == ' ') p++; /* the commonest whitespace: one space after ':' or ',' */
    if (p >= end || *p > ' ') return p;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

static inline int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* ---- Strings (RFC 8259 section 7) ------------------------------------------------------------ */

static inline int hex_value(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The code unit of the 4 hex digits at p, or -1. */
static inline long hex4(const uint8_t *p) {
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(p[i]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Check the escape whose backslash is at *pp and step over it. */
static fjcs_code check_escape(parser *ps, const uint8_t **pp) {
    const uint8_t *p = *pp, *end = ps->end;
    if (end - p < 2) return fail(ps, FJCS_E_ESCAPE, p, "invalid escape sequence");
    switch (p[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        *pp = p + 2;
        return FJCS_OK;
    case 'u': {
        long cu = end - p >= 6 ? hex4(p + 2) : -1;
        if (cu < 0) return fail(ps, FJCS_E_ESCAPE, p, "invalid escape sequence");
        if (cu >= 0xDC00 && cu <= 0xDFFF)
            return fail(ps, FJCS_E_SURROGATE, p, "lone surrogate escape");
        if (cu >= 0xD800 && cu <= 0xDBFF) {
            /* RFC 8259 section 7: a supplementary character is a pair of escapes. */
            long lo = (end - p >= 12 && p[6] == '\\' && p[7] == 'u') ? hex4(p + 8) : -1;
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail(ps, FJCS_E_SURROGATE, p, "lone surrogate escape");
            *pp = p + 12;
            return FJCS_OK;
        }
        *pp = p + 6;
        return FJCS_OK;
    }
    default:
        return fail(ps, FJCS_E_ESCAPE, p, "invalid escape sequence");
    }
}

/* Scan the string whose opening quote is at q: validate it, find its closing quote, and say
 * whether it holds escapes (if not, its bytes are already canonical). */
static fjcs_code scan_string(parser *ps, const uint8_t *q, const uint8_t **close, int *escaped) {
    const uint8_t *p = q + 1, *end = ps->end;
    int esc = 0;
    for (;;) {
        while (end - p >= 8 && fjcs__swar_string_special(fjcs__load_u64(p)) == 0) p += 8;
        if (p >= end) return fail(ps, FJCS_E_UNTERMINATED, end, "unterminated string");
        uint8_t c = *p;
        if (c == '"') break;
        if (c == '\\') {
            fjcs_code rc = check_escape(ps, &p);
            if (rc != FJCS_OK) return rc;
            esc = 1;
        } else if (c < 0x20) {
            return fail(ps, FJCS_E_CONTROL, p, "control character in string (must be escaped)");
        } else if (c >= 0x80) {
            int k = fjcs__utf8_sequence_length(p, end);
            if (k == 0) return fail(ps, FJCS_E_UTF8, p, "invalid UTF-8");
            p += k;
        } else {
            p++;
        }
    }
    *close = p;
    *escaped = esc;
    return FJCS_OK;
}

static inline size_t put_utf8(uint8_t *dst, uint32_t cp) {
    if (cp < 0x80) {
        dst[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (uint8_t)(0xC0 | (cp >> 6));
        dst[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (uint8_t)(0xE0 | (cp >> 12));
        dst[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (uint8_t)(0xF0 | (cp >> 18));
    dst[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* Unescape the validated string body p..close into the arena; returns the unescaped length. The
 * unescaped form is never longer than the escaped one. */
static fjcs_code unescape_to_arena(parser *ps, const uint8_t *p, const uint8_t *close, size_t *len) {
    if (fjcs__buf_reserve(&ps->arena, (size_t)(close - p)) != FJCS_OK) return FJCS_E_NOMEM;
    uint8_t *start = (uint8_t *)ps->arena.data + ps->arena.len, *dst = start;
    while (p < close) {
        if (*p != '\\') {
            *dst++ = *p++;
            continue;
        }
        switch (p[1]) {
        case 'b': *dst++ = '\b'; p += 2; break;
        case 'f': *dst++ = '\f'; p += 2; break;
        case 'n': *dst++ = '\n'; p += 2; break;
        case 'r': *dst++ = '\r'; p += 2; break;
        case 't': *dst++ = '\t'; p += 2; break;
        case 'u': {
            uint32_t cp = (uint32_t)hex4(p + 2);
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) { /* paired: check_escape made sure */
                uint32_t lo = (uint32_t)hex4(p + 2);
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
            dst += put_utf8(dst, cp);
            break;
        }
        default: *dst++ = p[1]; p += 2; break; /* '"', '\\', '/' */
        }
    }
    *len = (size_t)(dst - start);
    return FJCS_OK;
}

/* A byte a string holds as it is and writes as it is: not '"', '\\', a control or >= 0x80. */
static inline int plain_byte(uint8_t c) {
    return (uint8_t)(c - 0x20) < 0x60 && c != '"' && c != '\\';
}

/* The string at q holds an escape: validate it as a whole (scan_string), then write its canonical
 * form from its unescaped bytes, which go to the arena. For a member name, also record where those
 * are (an arena offset kept until the object closes). */
static fjcs_code escaped_string(parser *ps, const uint8_t **pp, member *name) {
    const uint8_t *q = *pp, *close = q;
    int escaped = 0;
    fjcs_code rc = scan_string(ps, q, &close, &escaped);
    if (rc != FJCS_OK) return rc;
    *pp = close + 1;
    size_t mark = ps->arena.len, len;
    if (unescape_to_arena(ps, q + 1, close, &len) != FJCS_OK ||
        fjcs__write_string(ps->out, (const uint8_t *)ps->arena.data + mark, len) != FJCS_OK)
        return fail(ps, FJCS_E_NOMEM, q, "out of memory");
    if (name) {
        name->m.key = NULL;
        name->m.key_len = len;
        name->key_off = mark;
        ps->arena.len = mark + len; /* keep it until the object closes */
    }
    return FJCS_OK;
}

/*
 * Read the string at *pp, write its canonical form. For a member name, also record where its
 * unescaped bytes are (in the input, or an arena offset kept until the object closes).
 *
 * A string without escapes is its own canonical form: it is validated and copied in one pass, 16
 * bytes at a time (SSE2; else 8), stopping only at the bytes that need a look: '"' (the end), a
 * byte >= 0x80 (a UTF-8 sequence to validate, then copied), a control (an error), or '\\' (the
 * string starts again on the escaped path, which validates it from its opening quote). Errors are
 * found in the order scan_string finds them, at the same bytes.
 */
FJCS_INLINE fjcs_code string_token(parser *ps, const uint8_t **pp, member *name) {
    const uint8_t *q = *pp, *p = q + 1, *end = ps->end;
    fjcs_buf *out = ps->out;
    /* The output's fields are kept in locals while the string is copied (the stores through a
     * char pointer would otherwise reload them at every step), written back before returning. */
    size_t mark = out->len, len = mark;
    if (fjcs__buf_reserve(out, 32) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, q, "out of memory");
    char *data = out->data;
    size_t cap = out->cap;
#define ROOM(n)                                                                                   \
    do {                                                                                          \
        if (cap - len < (n)) {                                                                    \
            out->len = len;                                                                       \
            if (fjcs__buf_reserve(out, (n)) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, q, "out of memory"); \
            data = out->data;                                                                     \
            cap = out->cap;                                                                       \
        }                                                                                         \
    } while (0)
    data[len++] = '"';
    for (;;) {
#if FJCS_HAVE_SSE2
        while (end - p >= 16) {
            ROOM(17); /* 16 bytes, and the closing quote when it is among them */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            _mm_storeu_si128((__m128i *)(void *)(data + len), v); /* the plain ones count */
            unsigned special = fjcs__sse_string_special(v);
            if (special) {
                unsigned k = (unsigned)fjcs__ctz64(special);
                p += k;
                len += k;
                goto look;
            }
            p += 16;
            len += 16;
        }
#endif
#if FJCS_HAVE_LITTLE_ENDIAN
        /* 8 at a time (with SSE2: once, among the last 16 bytes); the lowest flagged byte of the
         * word is the first to look at (fjcs__swar_string_special: a false flag needs a borrow
         * out of a flagged byte below it). */
        while (end - p >= 8) {
            ROOM(9);
            uint64_t v = fjcs__load_u64(p);
            memcpy(data + len, &v, 8);
            uint64_t special = fjcs__swar_string_special(v);
            if (special) {
                unsigned k = (unsigned)fjcs__ctz64(special) / 8;
                p += k;
                len += k;
                goto look;
            }
            p += 8;
            len += 8;
        }
#else
        while (end - p >= 8) {
            uint64_t v = fjcs__load_u64(p);
            if (fjcs__swar_string_special(v)) break;
            ROOM(8);
            memcpy(data + len, p, 8);
            len += 8;
            p += 8;
        }
        if (end - p >= 8) { /* one of the next 8 bytes is one to look at: copy up to it */
            ROOM(9);
            while (plain_byte(*p)) data[len++] = (char)*p++;
            goto look;
        }
#endif
        /* The last bytes of the input: fewer than a word. */
        ROOM((size_t)(end - p) + 1);
        while (p < end && plain_byte(*p)) data[len++] = (char)*p++;
        if (p >= end) return fail(ps, FJCS_E_UNTERMINATED, end, "unterminated string");
    look: {
        uint8_t c = *p;
        if (c == '"') break;
        if (c >= 0x80) {
            int k = fjcs__utf8_sequence_length(p, end);
            if (k == 0) return fail(ps, FJCS_E_UTF8, p, "invalid UTF-8");
            ROOM(4);
            for (int i = 0; i < k; i++) data[len++] = (char)p[i];
            p += k;
            continue;
        }
        if (c == '\\') {
            out->len = mark;
            return escaped_string(ps, pp, name);
        }
        return fail(ps, FJCS_E_CONTROL, p, "control character in string (must be escaped)");
    }
    }
#undef ROOM
    data[len++] = '"'; /* room: every way to the closing quote made room for it */
    out->len = len;
    *pp = p + 1;
    if (name) {
        name->m.key = q + 1;
        name->m.key_len = (size_t)(p - q) - 1;
    }
    return FJCS_OK;
}

/* ---- Numbers (RFC 8259 section 6; RFC 8785 section 3.2.2.3) ---------------------------------- */

static const char MAX_SAFE[] = "9007199254740991"; /* 2^53 - 1 */

/* Powers of ten up to 10^19, the largest below 2^64. */
static const uint64_t POW10[20] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
    UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
    UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000),
    UINT64_C(10000000000000), UINT64_C(100000000000000), UINT64_C(1000000000000000),
    UINT64_C(10000000000000000), UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
    UINT64_C(10000000000000000000)};

/*
 * The end of the run of ASCII digits at p, reading them: *w becomes *w * 10^count + their value,
 * mod 2^64 (so exact while the token has at most 19 digits, 10^19 < 2^64; the caller counts
 * them). 8 bytes at a time: a byte is a digit when its high nibble is 3 and stays so after adding
 * 6 (0x39 + 6 = 0x3F, 0x3A + 6 = 0x40). Added over the word, a carry can only come out of a byte
 * >= 0xFA, a non-digit, and goes up (to later bytes): the lowest flagged byte, the first
 * non-digit, is flagged exactly, and so are the digits below it. Their value: less '0' in each
 * byte (no borrow out of a digit), the k digits shifted to the top of the word (eight digits with
 * 8 - k leading zeros), then neighbours combined in lanes of 16, 32, then 64 bits (d0 d1 ->
 * 10 d0 + d1, and so on, the first digit in the low byte; no lane overflows into the next).
 */
static inline const uint8_t *read_digits(const uint8_t *p, const uint8_t *end, uint64_t *w) {
    uint64_t acc = *w;
#if FJCS_HAVE_LITTLE_ENDIAN
    const uint64_t nibbles = FJCS_ONES * 0xF0, threes = FJCS_ONES * 0x30;
    while (end - p >= 8) {
        uint64_t v = fjcs__load_u64(p);
        uint64_t other = ((v & nibbles) ^ threes) | (((v + FJCS_ONES * 6) & nibbles) ^ threes);
        unsigned k = other ? (unsigned)fjcs__ctz64(other) / 8 : 8;
        if (k == 0) break;
        v = (v - threes) << (64 - 8 * k); /* k >= 1: a shift below 64 */
        v = (v * 10 + (v >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
        v = (v * 100 + (v >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
        acc = acc * POW10[k] + ((v * 10000 + (v >> 32)) & UINT64_C(0xFFFFFFFF));
        p += k;
        if (k < 8) {
            *w = acc;
            return p;
        }
    }
#endif
    while (p < end && is_digit(*p)) acc = acc * 10 + (uint64_t)(*p++ - '0');
    *w = acc;
    return p;
}

/* Most significant digits a token may have and still be its double's shortest rendering. */
#define SHORT_DIGITS 15

/* The number of decimal digits of 0 < w < 10^19: t = floor(b log10 2) (1233 / 2^12 is close
 * enough for b <= 64) for the bit length b, plus one if w has reached 10^t. */
static inline int digit_count(uint64_t w) {
    int t = ((64 - fjcs__clz64(w)) * 1233) >> 12;
    return t + (w >= POW10[t]);
}

/*
 * Whether a token whose value is 0.d * 10^n, d its len <= SHORT_DIGITS significant digits (the
 * value's own shortest digits, see number_token), is spelled as ECMA-262 Number::toString writes
 * that value (steps 6-10), so that it can be copied as it is. The digits are those of the token
 * from its first nonzero one, so only the layout is in question: no trailing zero after a point,
 *  - no exponent: an integer (n <= 19 < 21, and it has no leading zero), or a point with a
 *    nonzero integer part (n = its digits, 0 < n < len), or "0." then fewer than six zeros
 *    (-6 < n <= 0);
 *  - an exponent only where ECMAScript uses one (n > 21 or n <= -6): one nonzero digit before the
 *    point, a lowercase 'e', the exponent's sign written, its digits with no leading zero (its
 *    value is then n - 1, nonzero).
 * mant_end is one past the last digit before the exponent (or the token's end); exp_at is the 'e'
 * or 'E', or NULL.
 */
static inline int es_spelled(const uint8_t *digits, size_t int_digits, size_t frac_len,
                             const uint8_t *mant_end, const uint8_t *exp_at, long n) {
    if (frac_len && mant_end[-1] == '0') return 0;
    if (!exp_at) return !frac_len || digits[0] != '0' || n > -6;
    return (n > 21 || n <= -6) && int_digits == 1 && digits[0] != '0' && exp_at[0] == 'e' &&
           (exp_at[1] == '+' || exp_at[1] == '-') && exp_at[2] != '0';
}

/*
 * A number token is read once: its digits into w as they are scanned. Integers of up to 15 digits
 * are copied. Otherwise the value is w * 10^q; without its trailing zeros, w has len significant
 * digits and the value is 0.w * 10^n (n = q + len).
 *
 * At most 15 significant digits and a value in the normal range (at least 10^-306, below 10^308):
 * these digits are the double's shortest. Any decimal of at most DBL_DIG = 15 significant digits
 * in that range survives decimal -> double -> nearest 15-digit decimal unchanged (C11 5.2.4.2.2;
 * 15 = floor(52 log10 2)). So the shortest digits s of the double, which also round to it, would
 * come back as themselves too: two different decimals of at most 15 digits cannot round to the
 * same double, and s is the token's own digits. Then neither reading the double nor Schubfach is
 * needed: a token already spelled as ECMAScript would (es_spelled) is copied, any other is laid
 * out from its digits (1.50 -> 1.5, 1E2 -> 100, 0.1e-6 -> 1e-7).
 *
 * Else the double is read from w and q (fjcs__parse_digits: no second pass over the token) and
 * rendered (Schubfach); tokens of more than 19 digits or a 6-digit exponent are read from their
 * text (fjcs__parse_double).
 */
static fjcs_code number_token(parser *ps, const uint8_t **pp) {
    const uint8_t *start = *pp, *p = start, *end = ps->end;
    int negative = *p == '-';
    p += negative;
    if (p >= end || !is_digit(*p)) return unexpected(ps, p, FJCS_EXPECT_DIGIT);
    const uint8_t *digits = p, *exp_at = NULL;
    uint64_t w = 0;
    size_t frac_len = 0;
    long exp = 0;
    int exp_ok = 1;
    if (*p == '0') {
        p++;
        if (p < end && is_digit(*p)) return fail(ps, FJCS_E_LEADING_ZERO, p, "leading zero in number");
    } else if (end - p >= 2 && !is_digit(p[1])) { /* one digit, as before a float's point */
        w = (uint64_t)(*p++ - '0');
    } else {
        p = read_digits(p, end, &w);
    }
    size_t int_digits = (size_t)(p - digits);
    int integer = 1;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p)) return unexpected(ps, p, FJCS_EXPECT_FRACTION_DIGIT);
        const uint8_t *frac = p;
        p = read_digits(p, end, &w);
        frac_len = (size_t)(p - frac);
        integer = 0;
    }
    const uint8_t *mant_end = p;
    if (p < end && (*p == 'e' || *p == 'E')) {
        exp_at = p++;
        int negative_exp = 0;
        if (p < end && (*p == '+' || *p == '-')) negative_exp = *p++ == '-';
        if (p >= end || !is_digit(*p)) return unexpected(ps, p, FJCS_EXPECT_EXPONENT_DIGIT);
        const uint8_t *exp_digits = p;
        unsigned long e = 0; /* wraps on a long exponent, which is then not used */
        while (p < end && is_digit(*p)) e = e * 10 + (unsigned long)(*p++ - '0');
        exp_ok = p - exp_digits <= 5; /* |exp| < 100000: the arithmetic below is safe */
        if (!exp_ok) e = 0;
        exp = negative_exp ? -(long)e : (long)e;
        integer = 0;
    }
    *pp = p;
    if (!integer && (ps->flags & FJCS_INTEGERS_ONLY))
        return fail(ps, FJCS_E_NOT_INTEGER, start, "number with a fraction or an exponent part");
    fjcs_buf *out = ps->out;
    size_t token_len = (size_t)(p - start);
    if (integer) {
        if ((ps->flags & FJCS_STRICT_INTEGERS) &&
            (int_digits > 16 || (int_digits == 16 && memcmp(digits, MAX_SAFE, 16) > 0)))
            return fail(ps, FJCS_E_INT_DOMAIN, start, "integer outside +/-(2^53-1)");
        /* Up to 15 digits an integer is exact in a double and renders as its own digits; only
         * "-0" changes (to "0"). So the token is already canonical: copy it. */
        if (int_digits <= 15 && !(negative && digits[0] == '0')) goto copy;
    }
    double v;
    fjcs_code rc;
    if (exp_ok && int_digits + frac_len <= 19) {
        if (w == 0) { /* +0 and -0 */
            if (fjcs__buf_reserve(out, 1) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, start, "out of memory");
            fjcs__buf_put(out, '0');
            return FJCS_OK;
        }
        long q = exp - (long)frac_len;
        while (w % 10 == 0) {
            w /= 10;
            q++;
        }
        int len = digit_count(w);
        long n = q + len;
        if (len <= SHORT_DIGITS && n >= -305 && n <= 308) {
            if (es_spelled(digits, int_digits, frac_len, mant_end, exp_at, n)) goto copy;
            if (fjcs__buf_reserve(out, FJCS_NUMBER_BUFSIZE) != FJCS_OK)
                return fail(ps, FJCS_E_NOMEM, start, "out of memory");
            out->len += (size_t)fjcs__format_digits(w, len, (int)n, negative, out->data + out->len);
            return FJCS_OK;
        }
        int shortest = 0;
        if (len <= 17)
            rc = fjcs__parse_shortest(w, q, negative, (const char *)start, token_len, &v, &shortest);
        else
            rc = fjcs__parse_digits(w, q, negative, (const char *)start, token_len, &v);
        if (rc != FJCS_OK) return fail(ps, FJCS_E_FLOAT_DOMAIN, start, "number overflows a double");
        if (len <= 17 && v != 0) {
            /* Copied when its digits are the double's (proved by fjcs__parse_shortest, else
             * Schubfach's) and it is spelled as ECMAScript would: the same value, 0.w * 10^n, as
             * the 17 digits d and the n written. */
            int dn = (int)n;
            uint64_t d = shortest ? w * POW10[17 - len] : fjcs__shortest_digits(v, &dn);
            if (d == w * POW10[17 - len] && dn == n &&
                es_spelled(digits, int_digits, frac_len, mant_end, exp_at, n))
                goto copy;
            if (fjcs__buf_reserve(out, FJCS_NUMBER_BUFSIZE) != FJCS_OK)
                return fail(ps, FJCS_E_NOMEM, start, "out of memory");
            out->len += (size_t)fjcs__format_digits(d, 17, dn, negative, out->data + out->len);
            return FJCS_OK;
        }
    } else {
        rc = fjcs__parse_double((const char *)start, token_len, &v);
    }
    if (rc != FJCS_OK) return fail(ps, FJCS_E_FLOAT_DOMAIN, start, "number overflows a double");
    rc = fjcs__write_double(out, v);
    if (rc != FJCS_OK) return fail(ps, rc, start, "out of memory");
    return FJCS_OK;
copy: /* 32 bytes at once when the input has them (a copy of fixed size, made inline) */
    if (fjcs__buf_reserve(out, token_len < 32 ? 32 : token_len) != FJCS_OK)
        return fail(ps, FJCS_E_NOMEM, start, "out of memory");
    if (token_len <= 32 && end - start >= 32) {
        memcpy(out->data + out->len, start, 32);
        out->len += token_len;
    } else {
        fjcs__buf_put_n(out, start, token_len);
    }
    return FJCS_OK;
}

/* ---- Literals -------------------------------------------------------------------------------- */

static fjcs_code literal_token(parser *ps, const uint8_t **pp) {
    static const char *const words[] = {"true", "false", "null"};
    static const fjcs_expect expect[] = {FJCS_EXPECT_TRUE, FJCS_EXPECT_FALSE, FJCS_EXPECT_NULL};
    const uint8_t *p = *pp;
    int w = *p == 't' ? 0 : *p == 'f' ? 1 : 2;
    const char *word = words[w];
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++) {
        if (p + i >= ps->end || p[i] != (uint8_t)word[i]) return unexpected(ps, p + i, expect[w]);
    }
    if (fjcs__buf_reserve(ps->out, n) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, p, "out of memory");
    fjcs__buf_put_n(ps->out, word, n);
    *pp = p + n;
    return FJCS_OK;
}

/* ---- Structure ------------------------------------------------------------------------------- */

static inline const uint8_t *member_key(const parser *ps, const member *m) {
    return m->m.key ? m->m.key : (const uint8_t *)ps->arena.data + m->key_off;
}

/* Close the object on top of the stack: order its members, check names are unique. */
static fjcs_code close_object(parser *ps, const uint8_t *at) {
    frame *f = &ps->frames[ps->nframes - 1];
    size_t n = ps->nmembers - f->mbase;
    member *ms = ps->members + f->mbase;
    fjcs_code rc = FJCS_OK;
    if (!f->sorted) {
        /* fjcs__order_members works on an array of fjcs__member: compact ours in place (the
         * embedded fjcs__member is the first field, so this never overlaps badly). */
        fjcs__member *flat = (fjcs__member *)(void *)ms;
        for (size_t i = 0; i < n; i++) {
            fjcs__member m = ms[i].m;
            m.key = member_key(ps, &ms[i]);
            flat[i] = m;
        }
        size_t dup = 0;
        rc = fjcs__order_members(ps->out, flat, n, 0, &f->nest, &ps->order, &dup);
        if (rc == FJCS_E_DUPKEY) return fail(ps, rc, ps->base + dup, "duplicate member name");
        if (rc != FJCS_OK) return fail(ps, rc, at, "out of memory");
    }
    ps->nmembers = f->mbase;
    ps->arena.len = f->arena_mark;
    ps->nframes--;
    if (ps->nframes) fjcs__nest_into(&ps->frames[ps->nframes - 1].nest, &f->nest);
    return FJCS_OK;
}

static fjcs_code parse(parser *ps) {
    const uint8_t *p = skip_ws(ps->base, ps->end), *end = ps->end;
    fjcs_buf *out = ps->out;
    fjcs_code rc;

value:
    if (p >= end) return unexpected(ps, p, FJCS_EXPECT_VALUE);
    switch (*p) {
    case '{':
    case '[': {
        if (ps->nframes >= ps->max_depth)
            return fail(ps, FJCS_E_DEPTH, p, "nesting deeper than max_depth");
        if ((FJCS_UNLIKELY(ps->nframes >= ps->frames_cap) &&
             fjcs__grow((void **)&ps->frames, &ps->frames_cap, ps->nframes, sizeof(frame),
                        ps->frames_local) != FJCS_OK) ||
            fjcs__buf_reserve(out, 2) != FJCS_OK)
            return fail(ps, FJCS_E_NOMEM, p, "out of memory");
        frame *f = &ps->frames[ps->nframes++];
        f->is_object = *p == '{';
        f->sorted = 1;
        f->nest = (fjcs__nest){0, 0};
        f->mbase = ps->nmembers;
        f->arena_mark = ps->arena.len;
        fjcs__buf_put(out, (char)*p);
        p = skip_ws(p + 1, end);
        if (f->is_object) {
            if (p < end && *p == '}') {
                fjcs__buf_put(out, '}');
                p++;
                ps->nframes--;
                goto after_value;
            }
            goto member_name;
        }
        if (p < end && *p == ']') {
            fjcs__buf_put(out, ']');
            p++;
            ps->nframes--;
            goto after_value;
        }
        goto value;
    }
    case '"':
        rc = string_token(ps, &p, NULL);
        break;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        rc = number_token(ps, &p);
        break;
    case 't': case 'f': case 'n':
        rc = literal_token(ps, &p);
        break;
    default:
        return unexpected(ps, p, FJCS_EXPECT_VALUE);
    }
    if (rc != FJCS_OK) return rc;

after_value:
    if (ps->nframes == 0) {
        p = skip_ws(p, end);
        if (p != end) return unexpected(ps, p, FJCS_EXPECT_END);
        if (fjcs__order_finish(out, &ps->order) != FJCS_OK)
            return fail(ps, FJCS_E_NOMEM, p, "out of memory");
        return FJCS_OK;
    }
    p = skip_ws(p, end);
    {
        frame *f = &ps->frames[ps->nframes - 1];
        if (!f->is_object) {
            if (p < end && *p == ',') {
                if (fjcs__buf_reserve(out, 1) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, p, "out of memory");
                fjcs__buf_put(out, ',');
                p = skip_ws(p + 1, end);
                goto value;
            }
            if (p < end && *p == ']') {
                if (fjcs__buf_reserve(out, 1) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, p, "out of memory");
                fjcs__buf_put(out, ']');
                p++;
                ps->nframes--;
                if (ps->nframes) fjcs__nest_into(&ps->frames[ps->nframes - 1].nest, &f->nest);
                goto after_value;
            }
            return unexpected(ps, p, FJCS_EXPECT_COMMA_OR_BRACKET);
        }
        ps->members[ps->nmembers - 1].m.end = out->len;
        if (p < end && *p == ',') {
            if (fjcs__buf_reserve(out, 1) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, p, "out of memory");
            fjcs__buf_put(out, ',');
            p = skip_ws(p + 1, end);
            goto member_name;
        }
        if (p < end && *p == '}') {
            rc = close_object(ps, p);
            if (rc != FJCS_OK) return rc;
            if (fjcs__buf_reserve(out, 1) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, p, "out of memory");
            fjcs__buf_put(out, '}');
            p++;
            goto after_value;
        }
        return unexpected(ps, p, FJCS_EXPECT_COMMA_OR_BRACE);
    }

member_name:
    if (p >= end || *p != '"') return unexpected(ps, p, FJCS_EXPECT_NAME);
    {
        if (FJCS_UNLIKELY(ps->nmembers >= ps->members_cap) &&
            fjcs__grow((void **)&ps->members, &ps->members_cap, ps->nmembers, sizeof(member),
                       ps->members_local) != FJCS_OK)
            return fail(ps, FJCS_E_NOMEM, p, "out of memory");
        frame *f = &ps->frames[ps->nframes - 1];
        member *m = &ps->members[ps->nmembers++];
        m->m.pos = (size_t)(p - ps->base);
        m->m.start = out->len;
        rc = string_token(ps, &p, m);
        if (rc != FJCS_OK) return rc;
        if (f->sorted && ps->nmembers - f->mbase > 1) {
            const member *prev = m - 1;
            if (fjcs__key_cmp(member_key(ps, prev), prev->m.key_len, member_key(ps, m), m->m.key_len) >= 0)
                f->sorted = 0;
        }
        p = skip_ws(p, end);
        if (p >= end || *p != ':') return unexpected(ps, p, FJCS_EXPECT_COLON);
        if (fjcs__buf_reserve(out, 1) != FJCS_OK) return fail(ps, FJCS_E_NOMEM, p, "out of memory");
        fjcs__buf_put(out, ':');
        p = skip_ws(p + 1, end);
        goto value;
    }
}

/* ---- Entry points ---------------------------------------------------------------------------- */

void fjcs__text_init(fjcs__text *ps, size_t max_depth, fjcs_flags flags) {
    memset(ps, 0, offsetof(parser, frames_local));
    fjcs__text_set_limits(ps, max_depth, flags);
    ps->frames = ps->frames_local;
    ps->frames_cap = sizeof ps->frames_local / sizeof ps->frames_local[0];
    ps->members = ps->members_local;
    ps->members_cap = sizeof ps->members_local / sizeof ps->members_local[0];
}

void fjcs__text_set_limits(fjcs__text *ps, size_t max_depth, fjcs_flags flags) {
    ps->max_depth = max_depth;
    /* FJCS_INTEGERS_ONLY implies FJCS_STRICT_INTEGERS */
    ps->flags = flags & FJCS_INTEGERS_ONLY ? flags | FJCS_STRICT_INTEGERS : flags;
}

fjcs_code fjcs__text_run(fjcs__text *ps, const char *text, size_t len, fjcs_buf *out, fjcs_error *err) {
    ps->base = (const uint8_t *)text;
    ps->end = ps->base + len;
    ps->out = out;
    ps->err = err;
    ps->nframes = ps->nmembers = 0;
    ps->arena.len = 0;
    fjcs__order_reset(&ps->order);
    fjcs__fail(err, FJCS_OK, 0, NULL); /* a clean record until something fails */
    return parse(ps);
}

void fjcs__text_free(fjcs__text *ps) {
    fjcs__release(ps->frames, ps->frames_local);
    fjcs__release(ps->members, ps->members_local);
    fjcs_buf_free(&ps->arena);
    fjcs__order_free(&ps->order);
}

fjcs_code fjcs_canonicalize(const char *text, size_t len, size_t max_depth, fjcs_flags flags,
                            fjcs_buf *out, fjcs_error *err) {
    fjcs__text ps;
    fjcs__text_init(&ps, max_depth, flags);
    fjcs_code rc = fjcs__text_run(&ps, text, len, out, err);
    fjcs__text_free(&ps);
    return rc;
}
