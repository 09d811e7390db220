/*
 * arrow.c: canonical forms and digests of a column of JSON texts held in Arrow buffers (the
 * variable-size binary layout of the Arrow columnar format: an offsets buffer, a data buffer and
 * an optional validity bitmap). The rows are read in place, one text canonicalizer (fjcs__text,
 * text.c) is reused from row to row, and the results are written into column buffers the caller
 * hands over, so a column costs one call and no allocation per row. A row that is already its own
 * canonical form (canonical.c's check, tried as batch.c tries it) is hashed where it lies; its
 * canonical form is written by the parser all the same (the check costs as much: 1,486 -> 1,780
 * instructions a canonical EAB row when it was copied instead).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fjcs_internal.h"

static inline int is_null(const fjcs_arrow_texts *t, size_t slot) {
    return t->validity != NULL && !((t->validity[slot >> 3] >> (slot & 7)) & 1);
}

static inline void set_valid(uint8_t *validity, size_t i) {
    validity[i >> 3] = (uint8_t)(validity[i >> 3] | (1u << (i & 7)));
}

/* Where row i's bytes are in the data buffer; 0 when its offsets are out of order or out of the
 * buffer (a malformed array: the call stops there). */
static inline int row_span(const fjcs_arrow_texts *t, size_t i, size_t *begin, size_t *len) {
    size_t slot = t->offset + i;
    int64_t a, b;
    /* Read with memcpy: an array's offsets need not be aligned (a buffer that crossed a process
     * boundary, e.g. between Dask workers, can start at any byte). */
    const unsigned char *o = (const unsigned char *)t->offsets;
    if (t->large) {
        memcpy(&a, o + slot * 8, 8);
        memcpy(&b, o + slot * 8 + 8, 8);
    } else {
        int32_t x, y;
        memcpy(&x, o + slot * 4, 4);
        memcpy(&y, o + slot * 4 + 4, 4);
        a = x;
        b = y;
    }
    if (a < 0 || b < a || (uint64_t)b > (uint64_t)t->data_len) return 0;
    *begin = (size_t)a;
    *len = (size_t)(b - a);
    return 1;
}

/* The item describing row i's failure (err is already filled in by the parser). */
static void record_failure(fjcs_item *item, const fjcs_error *err, size_t i, size_t begin,
                           size_t len) {
    item->err = *err;
    item->start = begin;
    item->len = len;
    item->index = i;
    item->out_at = 0;
}

fjcs_code fjcs_arrow_canonicalize(const fjcs_arrow_texts *texts, size_t start, size_t stop,
                                  size_t max_depth, fjcs_flags flags, fjcs_buf *out,
                                  int64_t *offsets, uint8_t *validity, fjcs_failures *failures,
                                  size_t *done) {
    fjcs__text ps;
    fjcs_error err;
    fjcs__text_init(&ps, max_depth, flags);
    size_t i = start;
    fjcs_code rc = FJCS_OK;
    failures->count = 0;
    while (i < stop && failures->count < failures->capacity) {
        size_t mark = out->len;
        if (!is_null(texts, texts->offset + i)) {
            size_t begin, len;
            if (!row_span(texts, i, &begin, &len)) {
                rc = FJCS_E_ENCODING;
                break;
            }
            fjcs_code code = fjcs__text_run(&ps, texts->data + begin, len, out, &err);
            if (code == FJCS_E_NOMEM) {
                rc = code;
                break;
            }
            if (code == FJCS_OK) {
                set_valid(validity, i);
            } else {
                out->len = mark; /* what the parser wrote before it failed is not a result */
                record_failure(&failures->items[failures->count++], &err, i, begin, len);
            }
        }
        offsets[i + 1] = (int64_t)out->len;
        i++;
    }
    *done = i;
    fjcs__text_free(&ps);
    return rc;
}

fjcs_code fjcs_arrow_digest(const fjcs_arrow_texts *texts, size_t start, size_t stop,
                            size_t max_depth, fjcs_flags flags, const fjcs_hasher *hasher,
                            const fjcs_arrow_digests *out, fjcs_failures *failures, size_t *done) {
    size_t width = fjcs__rendered_size(hasher);
    fjcs__text ps;
    fjcs_buf canon = {0};
    fjcs_item item; /* (its err and digest: the row's) */
    fjcs__text_init(&ps, max_depth, flags);
    fjcs__canonical_tries tries = {0, 0};
    size_t i = start;
    fjcs_code rc = FJCS_OK;
    failures->count = 0;
    while (i < stop && failures->count < failures->capacity) {
        int ok = 0;
        if (!is_null(texts, texts->offset + i)) {
            size_t begin, len;
            if (!row_span(texts, i, &begin, &len)) {
                rc = FJCS_E_ENCODING;
                break;
            }
            /* a row already canonical is hashed where it lies */
            if (fjcs__digest_one(&ps, &canon, texts->data + begin, len, hasher, &item, &tries) == FJCS_E_NOMEM) {
                rc = FJCS_E_NOMEM;
                break;
            }
            if (item.err.code == FJCS_OK) {
                ok = 1;
                set_valid(out->validity, i);
            } else {
                record_failure(&failures->items[failures->count++], &item.err, i, begin, len);
            }
        }
        if (hasher->prefix == NULL) {
            if (ok) memcpy(out->data + i * hasher->size, item.digest, hasher->size);
        } else {
            int64_t at = out->offsets[i];
            if (ok) {
                fjcs__render_digest(hasher, item.digest, (char *)out->data + at);
                at += (int64_t)width;
            }
            out->offsets[i + 1] = at;
        }
        i++;
    }
    *done = i;
    fjcs__text_free(&ps);
    fjcs_buf_free(&canon);
    return rc;
}
