/*
 * canonical.c: is a JSON text already its own canonical form (RFC 8785)? One pass, writing
 * nothing, so that a batch can hash such a text where it lies (batch.c) instead of building its
 * canonical form first: logs written by a JCS writer are canonical line after line.
 *
 * The answer is exact one way only: 1 means fjcs_canonicalize (text.c) would accept the text
 * under the same max_depth and flags and give back exactly its bytes; 0 means "not known", and
 * the caller runs the parser, which canonicalizes or finds the error. So anything this file does
 * not take as it is gives 0: whitespace anywhere, a member name out of UTF-16 order or equal to
 * the one before it (a duplicate), an escape in a member name, an escape in a string that the
 * canonical writer (writer.c) would not write ("\/", "\u0041", "\u001F" in capitals), a raw control
 * or invalid UTF-8, and every number but those RFC 8785 section 3.2.2.3 spells as they are:
 * integers of at most 15 digits (not "-0"), and decimals without an exponent, without trailing
 * zeros and with fewer than six zeros after "0.", whose digits are the double's shortest (at most
 * 15 significant digits always are, see text.c's number_token; 16 or 17 are proved so by
 * number_parse.c's fjcs__parse_shortest or compared with Schubfach's, number_format.c). Nesting
 * deeper than max_depth, or than CANONICAL_DEPTH, gives 0.
 */
#include <stddef.h>

#include "fjcs_internal.h"

/* Open containers the check follows; a deeper text is left to the parser. */
#define CANONICAL_DEPTH 64

typedef struct {
    const uint8_t *key; /* an object's last member name so far (NULL: none yet, or an array) */
    size_t key_len;
    int is_object;
} level;

static inline int digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* An escape of a string value as writer.c writes it: \" \\ \b \f \n \r \t, or \u00xx (lowercase
 * hex) for a control below 0x20 without a short form. The length of the escape at p, or 0. */
static inline size_t canonical_escape(const uint8_t *p, const uint8_t *end) {
    if (end - p < 2) return 0;
    switch (p[1]) {
    case '"': case '\\': case 'b': case 'f': case 'n': case 'r': case 't':
        return 2;
    case 'u': {
        if (end - p < 6 || p[2] != '0' || p[3] != '0' || (p[4] != '0' && p[4] != '1')) return 0;
        uint8_t h = p[5];
        int low = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
        if (low < 0) return 0;
        int c = (p[4] - '0') * 16 + low;
        return c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r' ? 0 : 6;
    }
    default:
        return 0;
    }
}

/* The string whose opening quote is at *pp is canonical (escapes allowed only when `escapes`):
 * step past its closing quote and return 1; else 0. */
FJCS_INLINE int canonical_string(const uint8_t **pp, const uint8_t *end, int escapes) {
    const uint8_t *p = *pp + 1;
    for (;;) {
#if FJCS_HAVE_SSE2
        while (end - p >= 16) {
            unsigned special = fjcs__sse_string_special(_mm_loadu_si128((const __m128i *)(const void *)p));
            if (special) {
                p += fjcs__ctz64(special);
                goto look;
            }
            p += 16;
        }
#endif
        while (end - p >= 8) {
            uint64_t special = fjcs__swar_string_special(fjcs__load_u64(p));
#if FJCS_HAVE_LITTLE_ENDIAN
            if (special) { /* the lowest flagged byte is exact (text.c's string_token) */
                p += fjcs__ctz64(special) / 8;
                goto look;
            }
#else
            if (special) break; /* the byte to look at is among these 8: one at a time */
#endif
            p += 8;
        }
        while (p < end && (uint8_t)(*p - 0x20) < 0x60 && *p != '"' && *p != '\\') p++;
        if (p >= end) return 0;
#if FJCS_HAVE_SSE2 || FJCS_HAVE_LITTLE_ENDIAN
    look:
#endif
        if (*p == '"') break;
        if (*p >= 0x80) {
            int k = fjcs__utf8_sequence_length(p, end);
            if (k == 0) return 0;
            p += k;
        } else if (*p == '\\' && escapes) {
            size_t k = canonical_escape(p, end);
            if (k == 0) return 0;
            p += k;
        } else {
            return 0; /* a control, or an escape in a member name */
        }
    }
    *pp = p + 1;
    return 1;
}

static const uint64_t POW10[3] = {1, 10, 100};

/* The number token at *pp is spelled as ECMAScript writes its value (see the head of this file):
 * step past it and return 1; else 0. */
static int canonical_number(const uint8_t **pp, const uint8_t *end, fjcs_flags flags) {
    const uint8_t *start = *pp, *p = start;
    int negative = *p == '-';
    p += negative;
    if (p >= end || !digit(*p)) return 0;
    const uint8_t *digits = p;
    uint64_t w = 0;
    if (*p == '0') {
        p++;
    } else {
        while (p < end && digit(*p) && p - digits < 18) w = w * 10 + (uint64_t)(*p++ - '0');
    }
    size_t int_digits = (size_t)(p - digits);
    if (p < end && (digit(*p) || *p == 'e' || *p == 'E')) return 0; /* a leading zero, long, or an exponent */
    if (p >= end || *p != '.') {
        *pp = p;
        return int_digits <= 15 && !(negative && *digits == '0');
    }
    if (flags & FJCS_INTEGERS_ONLY) return 0;
    const uint8_t *frac = ++p;
    while (p < end && digit(*p) && p - frac < 18) w = w * 10 + (uint64_t)(*p++ - '0');
    size_t frac_len = (size_t)(p - frac);
    if (frac_len == 0 || p[-1] == '0') return 0; /* no digit, or a trailing zero */
    if (p < end && (digit(*p) || *p == 'e' || *p == 'E')) return 0;
    /* the value is 0.d * 10^n, d its significant digits (w, len of them) */
    long n = (long)int_digits, len = (long)(int_digits + frac_len);
    if (*digits == '0') {
        size_t zeros = 0;
        while (frac[zeros] == '0') zeros++;
        if (zeros > 5) return 0; /* ECMAScript writes 1e-7, not 0.0000001 */
        n = -(long)zeros;
        len = (long)(frac_len - zeros);
    }
    if (len > 17) return 0;
    if (len > 15) {
        /* proved by the reader (then the digits and n are the double's), else Schubfach's */
        double v;
        int dn, proved;
        if (fjcs__parse_shortest(w, -(int64_t)frac_len, negative, (const char *)start,
                                 (size_t)(p - start), &v, &proved) != FJCS_OK)
            return 0;
        if (!proved && (fjcs__shortest_digits(v, &dn) != w * POW10[17 - len] || dn != n)) return 0;
    }
    *pp = p;
    return 1;
}

/* The end of the canonical JSON value at the start of [p, end), or NULL when there is none (not a
 * value, not canonical, or not known); the caller decides what may follow it (a top-level number
 * ends at the first byte that cannot continue it). No token the check takes holds a b'\n' (nor
 * any byte below 0x20), so where `end` lies beyond a line's end, the check stops at that line's
 * end with the answer it gives when `end` is there. */
static const uint8_t *canonical_end(const uint8_t *p, const uint8_t *end, size_t max_depth, fjcs_flags flags) {
    level stack[CANONICAL_DEPTH];
    size_t depth = 0;

value:
    if (p >= end) return 0;
    switch (*p) {
    case '{':
    case '[':
        if (depth >= max_depth || depth >= CANONICAL_DEPTH) return 0;
        stack[depth].is_object = *p == '{';
        stack[depth].key = NULL;
        depth++;
        p++;
        if (p < end && *p == (stack[depth - 1].is_object ? '}' : ']')) {
            p++;
            depth--;
            goto after_value;
        }
        if (stack[depth - 1].is_object) goto member_name;
        goto value;
    case '"':
        if (!canonical_string(&p, end, 1)) return 0;
        break;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        if (!canonical_number(&p, end, flags)) return 0;
        break;
    case 't':
        if (end - p < 4 || memcmp(p, "true", 4) != 0) return 0;
        p += 4;
        break;
    case 'f':
        if (end - p < 5 || memcmp(p, "false", 5) != 0) return 0;
        p += 5;
        break;
    case 'n':
        if (end - p < 4 || memcmp(p, "null", 4) != 0) return 0;
        p += 4;
        break;
    default:
        return 0;
    }

after_value:
    if (depth == 0) return p;
    if (p >= end) return 0;
    if (*p == ',') {
        p++;
        if (stack[depth - 1].is_object) goto member_name;
        goto value;
    }
    if (*p != (stack[depth - 1].is_object ? '}' : ']')) return 0;
    p++;
    depth--;
    goto after_value;

member_name:
    if (p >= end || *p != '"') return 0;
    {
        level *top = &stack[depth - 1];
        const uint8_t *key = p + 1;
        if (!canonical_string(&p, end, 0)) return 0;
        size_t key_len = (size_t)(p - key) - 1;
        /* strictly after the name before it: in order, and no duplicate */
        if (top->key && fjcs__key_cmp_words(top->key, top->key_len, key, key_len) >= 0) return 0;
        top->key = key;
        top->key_len = key_len;
    }
    if (p >= end || *p != ':') return 0;
    p++;
    goto value;
}

int fjcs__text_is_canonical(const char *text, size_t len, size_t max_depth, fjcs_flags flags) {
    const uint8_t *end = (const uint8_t *)text + len;
    return canonical_end((const uint8_t *)text, end, max_depth, flags) == end;
}

int fjcs__line_is_canonical(const char *text, size_t avail, size_t max_depth, fjcs_flags flags, size_t *len) {
    const uint8_t *start = (const uint8_t *)text, *end = start + avail;
    const uint8_t *q = canonical_end(start, end, max_depth, flags);
    if (q == NULL || (q < end && *q != '\n')) return 0;
    *len = (size_t)(q - start);
    return 1;
}
