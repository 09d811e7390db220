/*
 * batch.c: the batch functions over JSON texts: canonicalize many texts (a list, or the lines of a
 * JSON Lines text) and hash each, with one text canonicalizer (fjcs__text, text.c) reused from
 * one text to the next.
 */
#include <stddef.h>
#include <stdlib.h>

#include "fjcs_internal.h"

/* Canonicalize one text of a batch with the batch's parser and buffer, and hash it. The parser's
 * stacks and buffers are reused from one text to the next: a batch allocates almost nothing. */
static int digest_one(fjcs__text *ps, fjcs_buf *out, const char *text, size_t len, fjcs_hash_fn hash,
                      size_t digest_size, fjcs_item *item) {
    out->len = 0;
    int rc = fjcs__text_run(ps, text, len, out, &item->err);
    if (rc == FJCS_OK && hash((const uint8_t *)out->data, out->len, item->digest, digest_size) != 0)
        fjcs__fail(&item->err, FJCS_E_HASH, 0, "the hash function failed");
    return rc == FJCS_E_NOMEM ? rc : FJCS_OK;
}

/* The rendering is the format of the JSON Lines tool (fastjcs digest --jsonl): prefix, the digest in
 * lowercase hex, a newline; rendered here, as the lines are done, it costs no Python per line. */
fjcs_code fjcs_digest_lines_hex(const char *text, size_t len, size_t max_depth, fjcs_flags flags,
                                fjcs_hash_fn hash, size_t digest_size, const char *prefix,
                                size_t prefix_len, fjcs_buf *out, fjcs_item *failures,
                                size_t capacity, size_t *nfailures, size_t *nlines,
                                size_t *consumed) {
    static const char hex[] = "0123456789abcdef";
    fjcs__text ps;
    fjcs_buf canon = {0};
    fjcs_item item;
    fjcs__text_init(&ps, max_depth, flags);
    size_t lines = 0, nf = 0, start = 0;
    int rc = FJCS_OK;
    while (start < len && nf < capacity) {
        /* fastjcs.core.jsonl's split rule: a line ends at '\n' only (tests/core/test_jsonl_split.py) */
        const char *nl = memchr(text + start, '\n', len - start);
        size_t stop = nl ? (size_t)(nl - text) : len;
        rc = digest_one(&ps, &canon, text + start, stop - start, hash, digest_size, &item);
        if (rc != FJCS_OK) break;
        if (item.err.code == FJCS_OK) {
            if (fjcs__buf_reserve(out, prefix_len + 2 * digest_size + 1) != FJCS_OK) {
                rc = FJCS_E_NOMEM;
                break;
            }
            fjcs__buf_put_n(out, prefix, prefix_len);
            for (size_t i = 0; i < digest_size; i++) {
                fjcs__buf_put(out, hex[item.digest[i] >> 4]);
                fjcs__buf_put(out, hex[item.digest[i] & 15]);
            }
            fjcs__buf_put(out, '\n');
        } else {
            item.start = start;
            item.len = stop - start;
            item.index = lines;
            item.out_at = out->len;
            failures[nf++] = item;
        }
        lines++;
        start = nl ? stop + 1 : len;
    }
    *nfailures = nf;
    *nlines = lines;
    *consumed = start;
    fjcs__text_free(&ps);
    fjcs_buf_free(&canon);
    return (fjcs_code)rc;
}

fjcs_code fjcs_digest_texts(const char *const *texts, const size_t *lens, size_t n,
                            size_t max_depth, fjcs_flags flags, fjcs_hash_fn hash,
                            size_t digest_size, fjcs_item *items) {
    fjcs__text ps;
    fjcs_buf out = {0};
    fjcs__text_init(&ps, max_depth, flags);
    int rc = FJCS_OK;
    for (size_t i = 0; i < n && rc == FJCS_OK; i++) {
        items[i].start = 0;
        items[i].len = lens[i];
        rc = digest_one(&ps, &out, texts[i], lens[i], hash, digest_size, &items[i]);
    }
    fjcs__text_free(&ps);
    fjcs_buf_free(&out);
    return (fjcs_code)rc;
}
