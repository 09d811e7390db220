/*
 * object.c: a Python value, as its marshal encoding, in; canonical JSON (RFC 8785) out.
 *
 * cffi cannot hand a PyObject to C, so `dumps` crosses as bytes: Python encodes the value with
 * marshal.dumps(value, 4) in one C-speed call, and this file reads that encoding with an explicit
 * stack (no recursion), writing the canonical form as it goes.
 *
 * The marshal format (CPython's Python/marshal.c; stable since format version 4, Python 3.4):
 * each object is a type byte, optionally with the FLAG_REF bit (0x80) that enters it in a table
 * of back-references, then its payload, little-endian:
 *     'N' None   'T' True   'F' False
 *     'i' int32                 'l' int32 n, then |n| 15-bit digits as uint16, least first,
 *                                   the sign of n the sign of the number
 *     'g' float64
 *     'u' 't' int32 length + UTF-8 (surrogates passed through, as surrogatepass writes them)
 *     'a' 'A' int32 length + ASCII    'z' 'Z' uint8 length + ASCII
 *     '(' '[' int32 count + items     ')' uint8 count + items      (tuple, list -> array)
 *     '{' key, value pairs up to a '0' (NULL)
 *     'r' uint32 index of an earlier object entered by FLAG_REF
 * and, refused with FJCS_E_TYPE as JSON has no such values: 's' bytes (also bytearray and
 * memoryview), '<' set, '>' frozenset, 'x' 'y' complex, 'c' code, 'S' StopIteration,
 * '.' Ellipsis. Anything else, or a payload that runs past the end, is FJCS_E_ENCODING: this
 * reader must survive arbitrary bytes, not only what marshal writes.
 *
 * Back-references: the index counts flagged type bytes in stream order. A reference to a string
 * or number reuses what was read; a reference to a container re-reads its bytes (a value shared
 * twice in a list is written twice, as rfc8785 writes it); a reference to a container still
 * being written is a cycle (FJCS_E_CYCLE). Re-reading never enters a flagged object in the table
 * again: entries are made only at positions beyond the last entry.
 *
 * Error positions are offsets into the encoding and mean little to a user: on any error the
 * Python side re-runs the pure-Python backend, which raises the error rfc8785 would, in its order.
 *
 * Kept whole (about 650 lines): one reader of one format; its type dispatch, its stack and its
 * back-reference table share state that a split would have to expose.
 */
#include <stddef.h>
#include <stdlib.h>

#include "fjcs_internal.h"

#define FLAG_REF 0x80
#define NO_INDEX SIZE_MAX

/* Kinds of back-reference entries. */
enum { K_PENDING, K_NONE, K_TRUE, K_FALSE, K_INT, K_FLOAT, K_STR, K_CONTAINER };

typedef struct ref {
    size_t pos;        /* offset of the flagged type byte */
    unsigned char kind;
    unsigned char open;  /* a container now being written: a reference to it is a cycle */
    unsigned char plain; /* K_STR: no byte needs escaping */
    const uint8_t *s;    /* K_STR */
    size_t n;
    int64_t i;           /* K_INT */
    double d;            /* K_FLOAT */
} ref;

typedef struct oframe {
    size_t remaining; /* list: items still to read */
    size_t mbase;     /* dict: first member in the member stack */
    size_t index;     /* back-reference entry of this container, or NO_INDEX */
    size_t resume;    /* where to continue when it closes (after a back-reference), or NO_INDEX */
    unsigned char is_dict;
    unsigned char sorted;
    unsigned char started; /* list: an item was written (the next needs a comma) */
    fjcs__nest nest;        /* what moved inside (reordered dicts) */
} oframe;

typedef struct reader {
    const uint8_t *base, *p, *end;
    fjcs_buf *out;
    fjcs__order *order; /* the caller's (fjcs__marshal_run) or own_order */
    fjcs__order own_order;
    oframe *frames;
    size_t nframes, frames_cap;
    fjcs__member *members;
    size_t nmembers, members_cap;
    ref *refs;
    size_t nrefs, refs_cap;
    size_t max_depth;
    fjcs_flags flags; /* FJCS_INTEGERS_ONLY refuses floats */
    fjcs_error *err;
    oframe frames_local[16];   /* the stacks start here: a small value allocates nothing */
    fjcs__member members_local[32];
    ref refs_local[32];
} reader;

static fjcs_code fail(reader *r, fjcs_code code, const uint8_t *at, const char *msg) {
    return fjcs__fail(r->err, code, (size_t)(at - r->base), msg);
}

/* ---- Little-endian payload reads ------------------------------------------------------------- */

static inline int need(const reader *r, size_t n) { return (size_t)(r->end - r->p) >= n; }

static inline uint32_t rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline double rd_f64(const uint8_t *p) {
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--) u = u << 8 | p[i];
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* ---- Back-references ------------------------------------------------------------------------- */

/* The entry for a flagged type byte at pos: a new one the first time the stream reaches it, the
 * existing one when a back-reference re-reads it. Returns NO_INDEX on allocation failure. */
static size_t enter_ref(reader *r, size_t pos) {
    if (r->nrefs == 0 || pos > r->refs[r->nrefs - 1].pos) {
        if (fjcs__grow((void **)&r->refs, &r->refs_cap, r->nrefs, sizeof(ref), r->refs_local) != FJCS_OK)
            return NO_INDEX;
        ref *e = &r->refs[r->nrefs];
        memset(e, 0, sizeof *e);
        e->pos = pos;
        e->kind = K_PENDING;
        return r->nrefs++;
    }
    size_t lo = 0, hi = r->nrefs; /* entries are in increasing pos: binary search */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->refs[mid].pos < pos) lo = mid + 1;
        else hi = mid;
    }
    return lo; /* refs[lo].pos == pos: re-reads only revisit flagged bytes already entered */
}

/* ---- Strings --------------------------------------------------------------------------------- */

/*
 * Check s[0..n) (UTF-8 from Python: ASCII only when ascii_only) and append it as a canonical
 * string; *plain says whether no byte needed escaping. FJCS_E_SURROGATE for an encoded surrogate
 * (a lone surrogate in the Python str), FJCS_E_ENCODING for anything else ill-formed.
 */
static fjcs_code write_checked_string(reader *r, const uint8_t *s, size_t n, int ascii_only, int *plain,
                                const uint8_t *at) {
    const uint8_t *p = s, *end = s + n;
    if (ascii_only) {
        /* The common case, a short ASCII string needing no escape: checked while it is copied, in
         * one pass. At the first byte that is not so (to escape, or not ASCII), nothing has been
         * committed to the output and the general path below starts over. */
        fjcs_buf *out = r->out;
        if (fjcs__buf_reserve(out, n + 2) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        char *dst = out->data + out->len;
        *dst++ = '"';
        for (; end - p >= 8; p += 8, dst += 8) {
            uint64_t v = fjcs__load_u64(p);
            if (fjcs__swar_string_special(v)) break;
            memcpy(dst, &v, 8);
        }
        for (; p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\'; p++) *dst++ = (char)*p;
        if (p == end) {
            *dst++ = '"';
            out->len = (size_t)(dst - out->data);
            *plain = 1;
            return FJCS_OK;
        }
        p = s;
    }
    int escapes = 0;
    while (p < end) {
        while (end - p >= 8 && fjcs__swar_string_special(fjcs__load_u64(p)) == 0) p += 8;
        if (p >= end) break;
        uint8_t c = *p;
        if (c < 0x80) {
            escapes |= c < 0x20 || c == '"' || c == '\\';
            p++;
            continue;
        }
        if (fjcs__utf8_is_encoded_surrogate(p, end))
            return fail(r, FJCS_E_SURROGATE, at, "string contains a lone surrogate");
        int k = ascii_only ? 0 : fjcs__utf8_sequence_length(p, end);
        if (k == 0) return fail(r, FJCS_E_ENCODING, at, "malformed string in the encoding");
        p += k;
    }
    *plain = !escapes;
    fjcs_buf *out = r->out;
    if (!escapes) {
        if (fjcs__buf_reserve(out, n + 2) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        fjcs__buf_put(out, '"');
        fjcs__buf_put_n(out, s, n);
        fjcs__buf_put(out, '"');
        return FJCS_OK;
    }
    if (fjcs__write_string(out, s, n) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
    return FJCS_OK;
}

static fjcs_code write_known_string(reader *r, const ref *e, const uint8_t *at) {
    fjcs_buf *out = r->out;
    if (e->plain) {
        if (fjcs__buf_reserve(out, e->n + 2) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        fjcs__buf_put(out, '"');
        fjcs__buf_put_n(out, e->s, e->n);
        fjcs__buf_put(out, '"');
        return FJCS_OK;
    }
    if (fjcs__write_string(out, e->s, e->n) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
    return FJCS_OK;
}

/* If the code at *p (type byte already consumed) is a string, read its payload. 1 if it was a
 * string, 0 if the code is not a string code, -1 (error set) if the payload runs out. */
static int read_string_payload(reader *r, uint8_t code, const uint8_t **s, size_t *n, int *ascii) {
    switch (code) {
    case 'u': case 't': case 'a': case 'A': {
        if (!need(r, 4)) return fail(r, FJCS_E_ENCODING, r->p, "truncated encoding"), -1;
        uint32_t len = rd_u32(r->p);
        r->p += 4;
        if (len > (uint32_t)INT32_MAX || !need(r, len))
            return fail(r, FJCS_E_ENCODING, r->p, "truncated encoding"), -1;
        *s = r->p;
        *n = len;
        *ascii = code == 'a' || code == 'A';
        r->p += len;
        return 1;
    }
    case 'z': case 'Z': {
        if (!need(r, 1)) return fail(r, FJCS_E_ENCODING, r->p, "truncated encoding"), -1;
        size_t len = *r->p++;
        if (!need(r, len)) return fail(r, FJCS_E_ENCODING, r->p, "truncated encoding"), -1;
        *s = r->p;
        *n = len;
        *ascii = 1;
        r->p += len;
        return 1;
    }
    default:
        return 0;
    }
}

/* ---- Numbers --------------------------------------------------------------------------------- */

#define MAX_SAFE_INT ((int64_t)9007199254740991) /* 2^53 - 1 */

/* An 'l' payload: the integer, or FJCS_E_INT_DOMAIN when it is outside +/-(2^53-1). */
static fjcs_code read_long(reader *r, int64_t *v, const uint8_t *at) {
    if (!need(r, 4)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
    int32_t n = (int32_t)rd_u32(r->p);
    r->p += 4;
    int negative = n < 0;
    uint32_t count = negative ? (uint32_t)0 - (uint32_t)n : (uint32_t)n;
    if (count > (uint32_t)INT32_MAX / 2 || !need(r, (size_t)count * 2))
        return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
    uint64_t mag = 0;
    int big = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t digit = (uint32_t)r->p[2 * i] | (uint32_t)r->p[2 * i + 1] << 8;
        if (digit >= (1u << 15)) return fail(r, FJCS_E_ENCODING, at, "malformed integer");
        if (i < 4) mag |= (uint64_t)digit << (15 * i); /* 4 digits: 60 bits, no overflow */
        else big |= digit != 0;
    }
    r->p += (size_t)count * 2;
    if (big || mag > (uint64_t)MAX_SAFE_INT)
        return fail(r, FJCS_E_INT_DOMAIN, at, "integer outside +/-(2^53-1)");
    *v = negative ? -(int64_t)mag : (int64_t)mag;
    return FJCS_OK;
}

/* ---- The reader ------------------------------------------------------------------------------ */

static fjcs_code push_frame(reader *r, int is_dict, size_t count, size_t index, size_t resume,
                      const uint8_t *at) {
    if (r->nframes >= r->max_depth) return fail(r, FJCS_E_DEPTH, at, "nesting deeper than max_depth");
    if (fjcs__grow((void **)&r->frames, &r->frames_cap, r->nframes, sizeof(oframe),
                   r->frames_local) != FJCS_OK ||
        fjcs__buf_reserve(r->out, 2) != FJCS_OK)
        return fail(r, FJCS_E_NOMEM, at, "out of memory");
    oframe *f = &r->frames[r->nframes++];
    f->is_dict = (unsigned char)is_dict;
    f->sorted = 1;
    f->nest = (fjcs__nest){0, 0};
    f->started = 0;
    f->remaining = count;
    f->mbase = r->nmembers;
    f->index = index;
    f->resume = resume;
    if (index != NO_INDEX) r->refs[index].open = 1;
    fjcs__buf_put(r->out, is_dict ? '{' : '[');
    return FJCS_OK;
}

/* Close the container on top: ']' or '}' (members put in order first), mark its entry done,
 * and continue after the back-reference that led here, if one did. */
static fjcs_code pop_frame(reader *r) {
    oframe *f = &r->frames[r->nframes - 1];
    if (f->is_dict) {
        size_t n = r->nmembers - f->mbase, dup = 0;
        /* With no member read yet, members is NULL, and NULL + 0 is undefined behaviour in C. */
        fjcs_code rc = n < 2 ? FJCS_OK
                       : fjcs__order_members(r->out, r->members + f->mbase, n, f->sorted, &f->nest,
                                             r->order, &dup);
        if (rc == FJCS_E_DUPKEY) return fail(r, rc, r->base + dup, "duplicate member name");
        if (rc != FJCS_OK) return fail(r, rc, r->p, "out of memory");
        r->nmembers = f->mbase;
    }
    if (fjcs__buf_reserve(r->out, 1) != FJCS_OK) return fail(r, FJCS_E_NOMEM, r->p, "out of memory");
    fjcs__buf_put(r->out, f->is_dict ? '}' : ']');
    if (f->index != NO_INDEX) {
        r->refs[f->index].open = 0;
        r->refs[f->index].kind = K_CONTAINER;
    }
    if (f->resume != NO_INDEX) r->p = r->base + f->resume;
    r->nframes--;
    if (r->nframes) fjcs__nest_into(&r->frames[r->nframes - 1].nest, &f->nest);
    return FJCS_OK;
}

static fjcs_code read_value(reader *r);

/* Having read the start of a value, read on until the stack is back to `base` frames: the value
 * is then complete. */
static fjcs_code drive(reader *r, size_t base) {
    fjcs_code rc = FJCS_OK;
    while (rc == FJCS_OK) {
        if (r->nframes == base) return FJCS_OK;
        oframe *f = &r->frames[r->nframes - 1];
        if (!f->is_dict) {
            if (f->remaining == 0) {
                rc = pop_frame(r);
                continue;
            }
            if (f->started) {
                if (fjcs__buf_reserve(r->out, 1) != FJCS_OK) return fail(r, FJCS_E_NOMEM, r->p, "out of memory");
                fjcs__buf_put(r->out, ',');
            }
            f->started = 1;
            f->remaining--;
            rc = read_value(r);
            continue;
        }
        /* A dict: the previous member (if any) is complete; read the next key or the end. */
        if (r->nmembers > f->mbase) r->members[r->nmembers - 1].end = r->out->len;
        const uint8_t *at = r->p;
        if (!need(r, 1)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
        uint8_t b = *r->p++, code = b & 0x7F;
        if (code == '0') {
            rc = pop_frame(r);
            continue;
        }
        size_t index = NO_INDEX;
        if (b & FLAG_REF) {
            index = enter_ref(r, (size_t)(at - r->base));
            if (index == NO_INDEX) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        }
        const uint8_t *s;
        size_t n;
        int ascii, plain = 0;
        int got = read_string_payload(r, code, &s, &n, &ascii);
        if (got < 0) return FJCS_E_ENCODING;
        const ref *known = NULL;
        if (got == 0) {
            if (code != 'r') return fail(r, FJCS_E_KEY_TYPE, at, "object keys must be strings");
            if (!need(r, 4)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
            uint32_t i = rd_u32(r->p);
            r->p += 4;
            if (i >= r->nrefs) return fail(r, FJCS_E_ENCODING, at, "bad back-reference");
            known = &r->refs[i];
            if (known->kind != K_STR) return fail(r, FJCS_E_KEY_TYPE, at, "object keys must be strings");
            s = known->s;
            n = known->n;
        }
        if (fjcs__grow((void **)&r->members, &r->members_cap, r->nmembers, sizeof(fjcs__member),
                       r->members_local) != FJCS_OK)
            return fail(r, FJCS_E_NOMEM, at, "out of memory");
        fjcs__member *m = &r->members[r->nmembers];
        m->key = s;
        m->key_len = n;
        m->pos = (size_t)(at - r->base);
        if (r->nmembers > f->mbase) {
            if (fjcs__buf_reserve(r->out, 1) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
            fjcs__buf_put(r->out, ',');
        }
        m->start = r->out->len;
        rc = known ? write_known_string(r, known, at) : write_checked_string(r, s, n, ascii, &plain, at);
        if (rc != FJCS_OK) return rc;
        if (index != NO_INDEX && r->refs[index].kind == K_PENDING) {
            ref *e = &r->refs[index];
            e->kind = K_STR;
            e->s = s;
            e->n = n;
            e->plain = (unsigned char)plain;
        }
        if (f->sorted && r->nmembers > f->mbase) {
            const fjcs__member *prev = m - 1;
            if (fjcs__key_cmp(prev->key, prev->key_len, m->key, m->key_len) >= 0) f->sorted = 0;
        }
        r->nmembers++;
        if (fjcs__buf_reserve(r->out, 1) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        fjcs__buf_put(r->out, ':');
        rc = read_value(r);
    }
    return rc;
}

/* Read one value at r->p: write a scalar, or open a container (its items follow in run()). */
static fjcs_code read_value(reader *r) {
    const uint8_t *at = r->p;
    if (!need(r, 1)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
    uint8_t b = *r->p++, code = b & 0x7F;
    size_t index = NO_INDEX;
    if (b & FLAG_REF) {
        index = enter_ref(r, (size_t)(at - r->base));
        if (index == NO_INDEX) return fail(r, FJCS_E_NOMEM, at, "out of memory");
    }
    fjcs_buf *out = r->out;
    ref scratch_entry;
    memset(&scratch_entry, 0, sizeof scratch_entry);
    ref *e = index != NO_INDEX && r->refs[index].kind == K_PENDING ? &r->refs[index] : &scratch_entry;
    fjcs_code rc;

    switch (code) {
    case 'N':
    case 'T':
    case 'F': {
        const char *word = code == 'N' ? "null" : code == 'T' ? "true" : "false";
        size_t n = strlen(word);
        if (fjcs__buf_reserve(out, n) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        fjcs__buf_put_n(out, word, n);
        e->kind = code == 'N' ? K_NONE : code == 'T' ? K_TRUE : K_FALSE;
        return FJCS_OK;
    }
    case 'i': {
        if (!need(r, 4)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
        int64_t v = (int32_t)rd_u32(r->p);
        r->p += 4;
        if (fjcs__write_int(out, v) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        e->kind = K_INT;
        e->i = v;
        return FJCS_OK;
    }
    case 'l': {
        int64_t v = 0; /* read_long sets it when it succeeds; not every compiler sees that */
        rc = read_long(r, &v, at);
        if (rc != FJCS_OK) return rc;
        if (fjcs__write_int(out, v) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
        e->kind = K_INT;
        e->i = v;
        return FJCS_OK;
    }
    case 'g': {
        if (r->flags & FJCS_INTEGERS_ONLY) return fail(r, FJCS_E_NOT_INTEGER, at, "a float, where integers only are allowed");
        if (!need(r, 8)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
        double d = rd_f64(r->p);
        r->p += 8;
        rc = fjcs__write_double(out, d);
        if (rc == FJCS_E_FLOAT_DOMAIN) return fail(r, rc, at, "NaN or infinity is not representable in JCS");
        if (rc != FJCS_OK) return fail(r, rc, at, "out of memory");
        e->kind = K_FLOAT;
        e->d = d;
        return FJCS_OK;
    }
    case 'u': case 't': case 'a': case 'A': case 'z': case 'Z': {
        const uint8_t *s;
        size_t n;
        int ascii, plain;
        if (read_string_payload(r, code, &s, &n, &ascii) < 0) return FJCS_E_ENCODING;
        rc = write_checked_string(r, s, n, ascii, &plain, at);
        if (rc != FJCS_OK) return rc;
        e->kind = K_STR;
        e->s = s;
        e->n = n;
        e->plain = (unsigned char)plain;
        return FJCS_OK;
    }
    case '[':
    case '(':
    case ')': {
        size_t count;
        if (code == ')') {
            if (!need(r, 1)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
            count = *r->p++;
        } else {
            if (!need(r, 4)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
            uint32_t c = rd_u32(r->p);
            r->p += 4;
            if (c > (uint32_t)INT32_MAX) return fail(r, FJCS_E_ENCODING, at, "malformed length");
            count = c;
        }
        return push_frame(r, 0, count, index, NO_INDEX, at);
    }
    case '{':
        return push_frame(r, 1, 0, index, NO_INDEX, at);
    case 'r': {
        if (!need(r, 4)) return fail(r, FJCS_E_ENCODING, at, "truncated encoding");
        uint32_t i = rd_u32(r->p);
        r->p += 4;
        if (i >= r->nrefs) return fail(r, FJCS_E_ENCODING, at, "bad back-reference");
        const ref *k = &r->refs[i];
        switch (k->kind) {
        case K_NONE:
        case K_TRUE:
        case K_FALSE: {
            const char *word = k->kind == K_NONE ? "null" : k->kind == K_TRUE ? "true" : "false";
            size_t n = strlen(word);
            if (fjcs__buf_reserve(out, n) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
            fjcs__buf_put_n(out, word, n);
            return FJCS_OK;
        }
        case K_INT:
            if (fjcs__write_int(out, k->i) != FJCS_OK) return fail(r, FJCS_E_NOMEM, at, "out of memory");
            return FJCS_OK;
        case K_FLOAT:
            rc = fjcs__write_double(out, k->d);
            return rc == FJCS_OK ? rc : fail(r, rc, at, "out of memory");
        case K_STR:
            return write_known_string(r, k, at);
        case K_CONTAINER: {
            /* Re-read the container's bytes, then come back here. */
            if (k->open) return fail(r, FJCS_E_CYCLE, at, "circular reference");
            size_t resume = (size_t)(r->p - r->base);
            r->p = r->base + k->pos;
            uint8_t cb = *r->p++, cc = cb & 0x7F;
            size_t count = 0;
            if (cc == ')') {
                count = *r->p++;
            } else if (cc == '[' || cc == '(') {
                count = rd_u32(r->p); /* checked when first read */
                r->p += 4;
            }
            return push_frame(r, cc == '{', count, i, resume, at);
        }
        default:
            /* A container not yet closed is open: referring to it is a cycle. An entry still
             * pending otherwise means a malformed encoding. */
            if (k->open) return fail(r, FJCS_E_CYCLE, at, "circular reference");
            return fail(r, FJCS_E_ENCODING, at, "bad back-reference");
        }
    }
    case 's': case '<': case '>': case 'x': case 'y': case 'c': case 'S': case '.':
        return fail(r, FJCS_E_TYPE, at, "unsupported type (not a JSON value)");
    default:
        return fail(r, FJCS_E_ENCODING, at, "unknown type code in the encoding");
    }
}

/* ---- Entry point ----------------------------------------------------------------------------- */

static void reader_init(reader *r, const char *data, size_t len, size_t max_depth, fjcs_flags flags,
                        fjcs_buf *out, fjcs_error *err) {
    memset(r, 0, offsetof(reader, frames_local));
    r->frames = r->frames_local;
    r->frames_cap = sizeof r->frames_local / sizeof r->frames_local[0];
    r->members = r->members_local;
    r->members_cap = sizeof r->members_local / sizeof r->members_local[0];
    r->refs = r->refs_local;
    r->refs_cap = sizeof r->refs_local / sizeof r->refs_local[0];
    r->base = r->p = (const uint8_t *)data;
    r->end = r->base + len;
    r->out = out;
    r->max_depth = max_depth;
    r->flags = flags;
    r->err = err;
    r->order = &r->own_order;
    fjcs__fail(err, FJCS_OK, 0, NULL); /* a clean record until something fails */
}

static void reader_free(reader *r) {
    fjcs__release(r->frames, r->frames_local);
    fjcs__release(r->members, r->members_local);
    fjcs__release(r->refs, r->refs_local);
    fjcs__order_free(&r->own_order);
}

fjcs_code fjcs__marshal_run(const char *data, size_t len, size_t max_depth, fjcs_flags flags, fjcs_buf *out,
                      fjcs_error *err, fjcs__order *order) {
    reader r;
    reader_init(&r, data, len, max_depth, flags, out, err);
    if (order != NULL) {
        fjcs__order_reset(order);
        r.order = order;
    }
    fjcs_code rc = read_value(&r);
    if (rc == FJCS_OK) rc = drive(&r, 0);
    if (rc == FJCS_OK && r.p != r.end) rc = fail(&r, FJCS_E_ENCODING, r.p, "bytes after the value");
    if (rc == FJCS_OK && fjcs__order_finish(out, r.order) != FJCS_OK)
        rc = fail(&r, FJCS_E_NOMEM, r.p, "out of memory");
    reader_free(&r);
    return rc;
}

fjcs_code fjcs_canonicalize_marshal(const char *data, size_t len, size_t max_depth,
                                    fjcs_flags flags, fjcs_buf *out, fjcs_error *err) {
    return (fjcs_code)fjcs__marshal_run(data, len, max_depth, (int)flags, out, err, NULL);
}

/* ---- Many values: canonicalize and hash each item of a list ---------------------------------- */

fjcs_code fjcs_digest_marshal_items(const char *data, size_t len, size_t max_depth,
                                    fjcs_flags flags, const fjcs_hasher *hasher, uint8_t *digests,
                                    size_t capacity, size_t *count, fjcs_error *err) {
    uint8_t digest[FJCS_MAX_DIGEST];
    fjcs_buf out = {0};
    reader r;
    reader_init(&r, data, len, max_depth, (int)flags, &out, err);
    *count = 0;
    fjcs_code rc = FJCS_OK;
    /* The list (or tuple) itself: its items are the values, and it is no value of its own. It is
     * entered in the back-reference table if flagged, and stays open: an item that refers to it
     * is a cycle. */
    const uint8_t *at = r.p;
    size_t items = 0;
    if (!need(&r, 1)) {
        rc = fail(&r, FJCS_E_ENCODING, at, "truncated encoding");
        goto done;
    }
    uint8_t b = *r.p++, code = b & 0x7F;
    if (code == ')' && need(&r, 1)) {
        items = *r.p++;
    } else if ((code == '[' || code == '(') && need(&r, 4)) {
        items = rd_u32(r.p);
        r.p += 4;
    } else {
        rc = fail(&r, FJCS_E_ENCODING, at, "expected a list of values");
        goto done;
    }
    if (b & FLAG_REF) {
        size_t index = enter_ref(&r, (size_t)(at - r.base));
        if (index == NO_INDEX) {
            rc = fail(&r, FJCS_E_NOMEM, at, "out of memory");
            goto done;
        }
        r.refs[index].open = 1;
    }
    if (items > capacity) {
        rc = fail(&r, FJCS_E_ENCODING, at, "more items than room for digests");
        goto done;
    }
    for (size_t i = 0; i < items; i++) {
        out.len = 0;
        fjcs__order_reset(r.order);
        rc = read_value(&r);
        if (rc == FJCS_OK) rc = drive(&r, 0);
        if (rc == FJCS_OK && fjcs__order_finish(&out, r.order) != FJCS_OK)
            rc = fail(&r, FJCS_E_NOMEM, r.p, "out of memory");
        if (rc == FJCS_OK && fjcs__hash(hasher, out.data, out.len, digest) != FJCS_OK)
            rc = fail(&r, FJCS_E_HASH, r.p, "the hash function failed");
        if (rc != FJCS_OK) goto done;
        memcpy(digests + i * hasher->size, digest, hasher->size);
        *count = i + 1;
    }
    if (r.p != r.end) rc = fail(&r, FJCS_E_ENCODING, r.p, "bytes after the value");
done:
    reader_free(&r);
    fjcs_buf_free(&out);
    return rc;
}
