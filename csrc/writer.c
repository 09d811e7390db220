/*
 * writer.c: the output side shared by the text and object paths: the growable buffer, canonical
 * strings (RFC 8785 section 3.2.2.2), integers, and putting object members in canonical order
 * (RFC 8785 section 3.2.3).
 */
#include <stdlib.h>

#include "fjcs_internal.h"

/* FJCS_BUF_MIN is in fjcs_config.h; the member sort in member_sort.h. */

/* ---- Buffers --------------------------------------------------------------------------------- */

fjcs_code fjcs__buf_grow(fjcs_buf *b, size_t need) {
    size_t want = b->len + need;
    if (want < b->len) return FJCS_E_NOMEM; /* size_t overflow */
    size_t cap = b->cap ? b->cap : FJCS_BUF_MIN;
    while (cap < want) {
        if (cap > SIZE_MAX / 2) {
            cap = want;
            break;
        }
        cap *= 2;
    }
    if (b->grow != NULL) return b->grow(b, cap);
    char *data = (char *)realloc(b->data, cap);
    if (data == NULL) return FJCS_E_NOMEM;
    b->data = data;
    b->cap = cap;
    return FJCS_OK;
}

/* The capacity, doubling from *cap (16 when 0), that holds `need` items of `size` bytes; 0 when it
 * would not fit in a size_t. */
static size_t doubled_cap(size_t cap, size_t need, size_t size) {
    size_t ncap = cap ? cap : 8;
    do {
        if (ncap > SIZE_MAX / 2 / size) return 0;
        ncap *= 2;
    } while (ncap < need);
    return ncap;
}

fjcs_code fjcs__grow(void **items, size_t *cap, size_t count, size_t size, void *local) {
    if (count < *cap) return FJCS_OK;
    size_t ncap = doubled_cap(*cap, count + 1, size);
    if (ncap == 0) return FJCS_E_NOMEM;
    void *p;
    if (local != NULL && *items == local) {
        p = malloc(ncap * size);
        if (p != NULL && count) memcpy(p, local, count * size);
    } else {
        p = realloc(*items, ncap * size);
    }
    if (p == NULL) return FJCS_E_NOMEM;
    *items = p;
    *cap = ncap;
    return FJCS_OK;
}

fjcs_code fjcs__grow_by_slow(void **items, size_t *cap, size_t count, size_t more, size_t size) {
    if (more > SIZE_MAX - count) return FJCS_E_NOMEM;
    size_t ncap = doubled_cap(*cap, count + more, size);
    void *p = ncap ? realloc(*items, ncap * size) : NULL;
    if (p == NULL) return FJCS_E_NOMEM;
    *items = p;
    *cap = ncap;
    return FJCS_OK;
}

void fjcs_buf_free(fjcs_buf *buf) {
    if (buf == NULL || buf->grow != NULL) return;
    free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
}

/* ---- Strings --------------------------------------------------------------------------------- */

/* Input bytes per reservation: a byte becomes at most 6 ("\u00xx"), so reserving per block keeps
 * a 100 MB string from asking for 600 MB up front. */
#define STRING_BLOCK 4096

static const char HEX[] = "0123456789abcdef";

char *fjcs__render_digest(const fjcs_hasher *h, const uint8_t *digest, char *dst) {
    if (h->prefix != NULL) {
        size_t n = strlen(h->prefix);
        memcpy(dst, h->prefix, n);
        dst += n;
    }
    size_t i = 0;
#if FJCS_HAVE_SSE2
    /* 16 bytes at a time: high and low nibbles interleaved, each n -> '0' + n, plus 'a' - '0' - 10
     * where n > 9. */
    const __m128i low4 = _mm_set1_epi8(0x0F), nine = _mm_set1_epi8(9);
    const __m128i zero = _mm_set1_epi8('0'), letters = _mm_set1_epi8('a' - '0' - 10);
    for (; i + 16 <= h->size; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(digest + i));
        __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4), lo = _mm_and_si128(v, low4);
        __m128i a = _mm_unpacklo_epi8(hi, lo), b = _mm_unpackhi_epi8(hi, lo);
        a = _mm_add_epi8(_mm_add_epi8(a, zero), _mm_and_si128(_mm_cmpgt_epi8(a, nine), letters));
        b = _mm_add_epi8(_mm_add_epi8(b, zero), _mm_and_si128(_mm_cmpgt_epi8(b, nine), letters));
        _mm_storeu_si128((__m128i *)(void *)dst, a);
        _mm_storeu_si128((__m128i *)(void *)(dst + 16), b);
        dst += 32;
    }
#endif
    for (; i < h->size; i++) {
        *dst++ = HEX[digest[i] >> 4];
        *dst++ = HEX[digest[i] & 15];
    }
    return dst;
}

/* The escape of a byte that needs one (RFC 8785 3.2.2.2); returns its length. */
static inline size_t escape_byte(uint8_t c, char *dst) {
    dst[0] = '\\';
    switch (c) {
    case '"': dst[1] = '"'; return 2;
    case '\\': dst[1] = '\\'; return 2;
    case '\b': dst[1] = 'b'; return 2;
    case '\t': dst[1] = 't'; return 2;
    case '\n': dst[1] = 'n'; return 2;
    case '\f': dst[1] = 'f'; return 2;
    case '\r': dst[1] = 'r'; return 2;
    default:
        dst[1] = 'u';
        dst[2] = '0';
        dst[3] = '0';
        dst[4] = HEX[c >> 4];
        dst[5] = HEX[c & 15];
        return 6;
    }
}

fjcs_code fjcs__write_string(fjcs_buf *out, const uint8_t *s, size_t n) {
    if (fjcs__buf_reserve(out, 1) != FJCS_OK) return FJCS_E_NOMEM;
    fjcs__buf_put(out, '"');
    while (n > 0) {
        size_t block = n < STRING_BLOCK ? n : STRING_BLOCK;
        if (fjcs__buf_reserve(out, block * 6 + 1) != FJCS_OK) return FJCS_E_NOMEM;
        char *dst = out->data + out->len;
        const uint8_t *p = s, *stop = s + block;
        while (p < stop) {
            /* Runs of bytes that need nothing, ASCII or not (the caller guarantees valid UTF-8),
             * 16 (SSE2) or 8 at a time: a block is copied whole, then the output moves on to its
             * first byte that needs an escape (later bytes of the block are copied again from
             * there). */
#if FJCS_HAVE_SSE2
            while (stop - p >= 16) { /* the same, 16 at a time */
                unsigned m = fjcs__copy16_escapes(dst, p);
                if (m) {
                    size_t k = (size_t)fjcs__ctz64(m);
                    dst += k;
                    p += k;
                    goto one;
                }
                dst += 16;
                p += 16;
            }
#endif
            while (stop - p >= 8) {
                uint64_t v = fjcs__load_u64(p);
                memcpy(dst, &v, 8);
                uint64_t m = fjcs__swar_needs_escape(v);
                if (m) {
#if FJCS_HAVE_LITTLE_ENDIAN
                    size_t k = (size_t)fjcs__ctz64(m) >> 3;
#else
                    size_t k = 0;
                    while (p[k] >= 0x20 && p[k] != '"' && p[k] != '\\') k++;
#endif
                    dst += k;
                    p += k;
                    break;
                }
                dst += 8;
                p += 8;
            }
            if (p >= stop) break;
#if FJCS_HAVE_SSE2
        one:;
#endif
            uint8_t c = *p++;
            if (c >= 0x20 && c != '"' && c != '\\') *dst++ = (char)c;
            else dst += escape_byte(c, dst);
        }
        out->len = (size_t)(dst - out->data);
        s += block;
        n -= block;
    }
    if (fjcs__buf_reserve(out, 1) != FJCS_OK) return FJCS_E_NOMEM;
    fjcs__buf_put(out, '"');
    return FJCS_OK;
}

size_t fjcs_quote_count(const char *data, size_t len) {
    const uint8_t *p = (const uint8_t *)data, *end = p + len;
    size_t quotes = 0;
#if FJCS_HAVE_SSE2
    while (end - p >= 16) {
        /* Each byte of `count` counts the quotes of its lane, one per block at most: summed every
         * 255 blocks, before it could wrap. */
        size_t blocks = (size_t)(end - p) / 16;
        if (blocks > 255) blocks = 255;
        __m128i count = _mm_setzero_si128();
        for (; blocks > 0; blocks--, p += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v); /* v <= 0x1F */
            __m128i bslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
            if (_mm_movemask_epi8(_mm_or_si128(ctl, bslash))) return SIZE_MAX;
            count = _mm_sub_epi8(count, _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))); /* -(-1) per quote */
        }
        __m128i sums = _mm_sad_epu8(count, _mm_setzero_si128()); /* two sums, in bits 0 and 64 */
        quotes += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; p < end; p++) {
        if (*p < 0x20 || *p == '\\') return SIZE_MAX;
        quotes += *p == '"';
    }
    return quotes;
}

/* ---- Numbers --------------------------------------------------------------------------------- */

fjcs_code fjcs__write_int(fjcs_buf *out, int64_t v) {
    /* Written in place (fjcs__format_int: the digit count first, then pairs from the table). */
    if (fjcs__buf_reserve(out, FJCS_INT_CHARS) != FJCS_OK) return FJCS_E_NOMEM;
    out->len = (size_t)(fjcs__format_int(out->data + out->len, v) - out->data);
    return FJCS_OK;
}

fjcs_code fjcs__write_double(fjcs_buf *out, double v) {
    if (fjcs__buf_reserve(out, FJCS_NUMBER_BUFSIZE) != FJCS_OK) return FJCS_E_NOMEM;
    size_t n;
    fjcs_code rc = fjcs_format_double(v, out->data + out->len, &n);
    if (rc == FJCS_OK) out->len += n;
    return rc;
}

/* ---- Member order ---------------------------------------------------------------------------- */

/* The one member sort (member_sort.h), for fjcs__member. */
#define FJCS_SORT_FN sort_members
#define FJCS_SORT_T fjcs__member
#include "member_sort.h"

static fjcs_code place_members(fjcs_buf *out, const fjcs__member *m, const uint8_t *perm, size_t n,
                               fjcs__nest *nest, fjcs__order *o);

/* The memo slot for a sequence of n names starting with `first` (a cheap mix: records of one
 * shape meet the same slot, nested objects of other shapes mostly others). */
static fjcs__order_memo *memo_slot(fjcs__order *o, const fjcs__member *m, size_t n) {
    if (o->memo == NULL) {
        o->memo = (fjcs__order_memo *)calloc(FJCS_MEMO_SLOTS, sizeof *o->memo);
        if (o->memo == NULL) return NULL;
    }
    size_t h = n * 31 + m[0].key_len * 7 + (m[0].key_len ? m[0].key[0] : 0);
    return &o->memo[h % FJCS_MEMO_SLOTS];
}

/* Whether a[0..n) and b[0..n) are the same bytes: names are short, and a call to memcmp costs
 * more than comparing them a word at a time here. The last bytes are compared as one word that
 * ends at n (overlapping the words before it), or as two half-words that overlap, never one at a
 * time: one byte a time cost ~120 instructions a line on digest --jsonl's EAB lines. */
static inline int same_bytes(const uint8_t *a, const uint8_t *b, size_t n) {
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8)
            if (fjcs__load_u64(a + i) != fjcs__load_u64(b + i)) return 0;
        return fjcs__load_u64(a + n - 8) == fjcs__load_u64(b + n - 8);
    }
    if (n >= 4) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, a, 4);
        memcpy(&y0, b, 4);
        memcpy(&x1, a + n - 4, 4);
        memcpy(&y1, b + n - 4, 4);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* Whether the names of m[0..n) are exactly those remembered in e, in the same order. */
static int memo_matches(const fjcs__order_memo *e, const fjcs__member *m, size_t n) {
    if (e->n != n) return 0;
    const uint8_t *names = e->names;
    for (size_t i = 0; i < n; i++) {
        if (m[i].key_len != e->len[i] || !same_bytes(m[i].key, names, m[i].key_len)) return 0;
        names += m[i].key_len;
    }
    return 1;
}

/* Remember the canonical order of m[0..n) (sorted, with input positions in `input`). */
static void memo_store(fjcs__order_memo *e, const fjcs__member *input, const fjcs__member *sorted,
                       size_t n, int changed) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += input[i].key_len;
    if (total > FJCS_MEMO_BYTES) return;
    uint8_t *names = e->names;
    for (size_t i = 0; i < n; i++) {
        e->len[i] = (uint16_t)input[i].key_len;
        memcpy(names, input[i].key, input[i].key_len);
        names += input[i].key_len;
        /* Members are told apart by where they sit in the output, which is unique. */
        for (size_t j = 0; j < n; j++)
            if (sorted[i].start == input[j].start) e->perm[i] = (uint8_t)j;
    }
    e->n = (uint8_t)n;
    e->changed = (uint8_t)changed;
}

fjcs_code fjcs__order_members(fjcs_buf *out, fjcs__member *m, size_t n, int sorted, fjcs__nest *nest,
                        fjcs__order *o, size_t *dup_pos) {
    if (sorted || n < 2) return FJCS_OK;
    fjcs__order_memo *memo = n <= FJCS_MEMO_MEMBERS ? memo_slot(o, m, n) : NULL;
    fjcs__member input[FJCS_MEMO_MEMBERS];
    if (memo != NULL && memo_matches(memo, m, n)) {
        if (!memo->changed) return FJCS_OK;
        return place_members(out, m, memo->perm, n, nest, o);
    }
    if (memo != NULL) memcpy(input, m, n * sizeof *m);
    size_t tmp_bytes = n > FJCS_SMALL_SORT ? n * sizeof(fjcs__member) : 0;
    if (tmp_bytes) { /* the merge sort's space */
        o->scratch.len = 0;
        if (fjcs__buf_reserve(&o->scratch, tmp_bytes) != FJCS_OK) return FJCS_E_NOMEM;
    }
    sort_members(m, n, tmp_bytes ? (fjcs__member *)(void *)o->scratch.data : NULL);

    /* The earliest member (in input order) whose name repeats one seen before it: after a stable
     * sort, equal names are adjacent and in input order, so that is the smallest position among
     * the second-and-later members of each run. */
    size_t dup = SIZE_MAX;
    int changed = 0;
    for (size_t i = 1; i < n; i++) {
        if (m[i].key_len == m[i - 1].key_len && memcmp(m[i].key, m[i - 1].key, m[i].key_len) == 0 &&
            m[i].pos < dup)
            dup = m[i].pos;
    }
    if (dup != SIZE_MAX) {
        *dup_pos = dup;
        return FJCS_E_DUPKEY;
    }
    for (size_t i = 1; i < n; i++) changed |= m[i].start < m[i - 1].start;
    if (memo != NULL) memo_store(memo, input, m, n, changed);
    if (!changed) return FJCS_OK;
    return place_members(out, m, NULL, n, nest, o);
}

/* Write the members m[0..n), now in canonical order, in place of the region they sit in, in
 * input order, separated by single commas (or record them for fjcs__order_finish). */
static fjcs_code place_members(fjcs_buf *out, const fjcs__member *m, const uint8_t *perm, size_t n,
                               fjcs__nest *nest, fjcs__order *o) {
    /* Member i in canonical order is m[perm[i]] (a remembered order), or m[i] (m sorted). */
#define MEMBER(i) (perm ? &m[perm[i]] : &m[i])
    size_t region = SIZE_MAX, region_end = 0;
    for (size_t i = 0; i < n; i++) {
        if (m[i].start < region) region = m[i].start;
        if (m[i].end > region_end) region_end = m[i].end;
    }
    size_t region_len = region_end - region;
    int defer = nest->deferred || nest->moved > region_len - region_len / 8;
    fjcs_buf *scratch = &o->scratch;
    scratch->len = 0;
    if (!defer && fjcs__buf_reserve(scratch, region_len) != FJCS_OK) return FJCS_E_NOMEM;

    if (defer) { /* record it: fjcs__order_finish moves it with everything inside */
        if (fjcs__grow((void **)&o->recs, &o->recs_cap, o->nrecs, sizeof *o->recs, NULL) != FJCS_OK)
            return FJCS_E_NOMEM;
        for (size_t i = 0; i < n; i++) {
            if (fjcs__grow((void **)&o->spans, &o->spans_cap, o->nspans, sizeof *o->spans, NULL) !=
                FJCS_OK)
                return FJCS_E_NOMEM;
            fjcs__span *sp = &o->spans[o->nspans++];
            sp->start = MEMBER(i)->start;
            sp->end = MEMBER(i)->end;
        }
        fjcs__reorder *r = &o->recs[o->nrecs++];
        r->start = region;
        r->end = region + region_len;
        r->first = o->nspans - n;
        r->n = n;
        nest->deferred = 1;
        return FJCS_OK;
    }

    char *copy = scratch->data;
    memcpy(copy, out->data + region, region_len);
    char *dst = out->data + region;
    for (size_t i = 0; i < n; i++) {
        if (i) *dst++ = ',';
        const fjcs__member *mi = MEMBER(i);
        size_t len = mi->end - mi->start;
        memcpy(dst, copy + (mi->start - region), len);
        dst += len;
    }
    nest->moved = region_len;
    return FJCS_OK;
#undef MEMBER
}

/* ---- Deferred member order ------------------------------------------------------------------- */

static int reorder_cmp(const void *a, const void *b) {
    size_t x = ((const fjcs__reorder *)a)->start, y = ((const fjcs__reorder *)b)->start;
    return (x > y) - (x < y);
}

/* The first of recs[lo..hi) (sorted by start) that starts at or after pos; hi if none. */
static size_t first_from(const fjcs__reorder *recs, size_t lo, size_t hi, size_t pos) {
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (recs[mid].start < pos) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A step of the writing walk: a run of bytes [pos, end) to copy, which holds the recorded objects
 * recs[i..hi) (and what they hold), or a recorded object whose members are written from the k-th. */
typedef struct walk {
    size_t pos, end, i, hi; /* a run */
    size_t rec, k;          /* an object, when is_rec */
    int is_rec;
} walk;

fjcs_code fjcs__order_finish(fjcs_buf *out, fjcs__order *o) {
    if (o->nrecs == 0) return FJCS_OK;
    /* Recorded objects nest or are disjoint, so sorted by start they are in document order
     * (an object before the objects inside it), and those inside a run are contiguous. */
    qsort(o->recs, o->nrecs, sizeof *o->recs, reorder_cmp);
    const fjcs__reorder *recs = o->recs;
    size_t nrecs = o->nrecs, first = recs[0].start;
    fjcs_buf *to = &o->scratch;
    to->len = 0;
    if (fjcs__buf_reserve(to, out->len) != FJCS_OK) return FJCS_E_NOMEM;
    memcpy(to->data, out->data, first);
    char *dst = to->data + first;
    const char *src = out->data;

    walk local[32], *st = local;
    size_t cap = sizeof local / sizeof local[0], depth = 0;
    st[depth++] = (walk){.pos = first, .end = out->len, .i = 0, .hi = nrecs};
    while (depth) {
        walk *w = &st[depth - 1], next;
        if (!w->is_rec) {
            if (w->i == w->hi) { /* the rest of the run */
                memcpy(dst, src + w->pos, w->end - w->pos);
                dst += w->end - w->pos;
                depth--;
                continue;
            }
            const fjcs__reorder *r = &recs[w->i];
            memcpy(dst, src + w->pos, r->start - w->pos);
            dst += r->start - w->pos;
            next = (walk){.rec = w->i, .k = 0, .is_rec = 1};
            w->pos = r->end;
            w->i = first_from(recs, w->i + 1, w->hi, r->end); /* past the objects inside r */
        } else {
            const fjcs__reorder *r = &recs[w->rec];
            if (w->k == r->n) {
                depth--;
                continue;
            }
            const fjcs__span *s = &o->spans[r->first + w->k];
            if (w->k++) *dst++ = ',';
            size_t lo = first_from(recs, w->rec + 1, nrecs, s->start);
            next = (walk){.pos = s->start, .end = s->end, .i = lo,
                          .hi = first_from(recs, lo, nrecs, s->end)};
        }
        if (fjcs__grow((void **)&st, &cap, depth, sizeof *st, local) != FJCS_OK) {
            fjcs__release(st, local);
            return FJCS_E_NOMEM;
        }
        st[depth++] = next;
    }
    fjcs__release(st, local);
    /* The walk wrote out->len bytes (reordering keeps the length): trade the buffers. */
    fjcs_buf done = *to;
    done.len = out->len;
    to->data = out->data;
    to->cap = out->cap;
    to->len = 0;
    *out = done;
    fjcs__order_reset(o);
    return FJCS_OK;
}

void fjcs__order_free(fjcs__order *o) {
    fjcs_buf_free(&o->scratch);
    free(o->memo);
    free(o->spans);
    free(o->recs);
    memset(o, 0, sizeof *o);
}

/* The cdef needs a literal array size in fjcs_item; keep it equal to the named constant. */
_Static_assert(sizeof(((fjcs_item *)0)->digest) == FJCS_MAX_DIGEST, "fjcs_item.digest size");
