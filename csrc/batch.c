/*
 * batch.c: the batch functions over JSON texts: canonicalize many texts (a list, or the lines of a
 * JSON Lines text) and hash each, with one text canonicalizer (fjcs__text, text.c) reused from
 * one text to the next.
 */
#include <stddef.h>
#include <stdlib.h>

#include "fjcs_internal.h"

/* After two texts in a row that the canonical check refuses, the next CANONICAL_RETRY - 1 texts
 * of the batch go straight to the parser: lines that are not canonical (json.dumps's ", " and
 * ": ") pay for the check (about 150 instructions, to the first space) about once in
 * CANONICAL_RETRY lines, and a canonical log loses the fast path neither at a line that is not
 * (one float written 1.0) nor after it. */
#define CANONICAL_RETRY 16

/* A text the check took: hashed where it lies. */
static void hash_in_place(const char *text, size_t len, const fjcs_hasher *hasher, fjcs_item *item,
                          fjcs__canonical_tries *tries) {
    tries->missed = 0;
    fjcs__fail(&item->err, FJCS_OK, 0, NULL);
    if (fjcs__hash(hasher, text, len, item->digest) != FJCS_OK)
        fjcs__fail(&item->err, FJCS_E_HASH, 0, "the hash function failed");
}

/* The check refused a text: after two refusals in a row, skip it for the next texts. */
static void refused(fjcs__canonical_tries *tries) {
    if (++tries->missed >= 2) {
        tries->skip = CANONICAL_RETRY - 1;
        tries->missed = 1; /* one more refusal after the skip skips again */
    }
}

/* Canonicalize the text with the parser and hash its canonical form. */
static fjcs_code digest_parsed(fjcs__text *ps, fjcs_buf *out, const char *text, size_t len,
                               const fjcs_hasher *hasher, fjcs_item *item) {
    out->len = 0;
    fjcs_code rc = fjcs__text_run(ps, text, len, out, &item->err);
    if (rc == FJCS_OK && fjcs__hash(hasher, out->data, out->len, item->digest) != FJCS_OK)
        fjcs__fail(&item->err, FJCS_E_HASH, 0, "the hash function failed");
    return rc == FJCS_E_NOMEM ? rc : FJCS_OK;
}

fjcs_code fjcs__digest_one(fjcs__text *ps, fjcs_buf *out, const char *text, size_t len,
                           const fjcs_hasher *hasher, fjcs_item *item, fjcs__canonical_tries *tries) {
    if (tries->skip) {
        tries->skip--;
    } else if (fjcs__text_is_canonical(text, len, ps->max_depth, ps->flags)) {
        hash_in_place(text, len, hasher, item, tries);
        return FJCS_OK;
    } else {
        refused(tries);
    }
    return digest_parsed(ps, out, text, len, hasher, item);
}

/* The rendering is the format of `fastjcs digest --jsonl`: prefix, the digest in lowercase hex, a
 * newline; rendered here, as the lines are done, it costs no Python per line. */
fjcs_code fjcs_digest_lines_hex(const char *text, size_t len, size_t max_depth, fjcs_flags flags,
                                const fjcs_hasher *hasher, fjcs_buf *out, fjcs_failures *failures,
                                size_t *nlines, size_t *consumed) {
    fjcs__text ps;
    fjcs_buf canon = {0};
    fjcs_item item;
    size_t width = fjcs__rendered_size(hasher) + 1;
    /* The prefix is the same on every line: its length found once, and a prefix of up to 16
     * bytes copied as one 16-byte block (the room reserved is 16 bytes more than a line's), so a
     * line costs no strlen and no memcpy call; the hex is rendered by a hasher without it. */
    fjcs_hasher bare = *hasher;
    bare.prefix = NULL;
    size_t plen = hasher->prefix ? strlen(hasher->prefix) : 0;
    char block[16] = {0};
    if (hasher->prefix && plen <= sizeof block) memcpy(block, hasher->prefix, plen);
    fjcs__text_init(&ps, max_depth, flags);
    size_t lines = 0, start = 0;
    fjcs__canonical_tries tries = {0, 0};
    failures->count = 0;
    fjcs_code rc = FJCS_OK;
    while (start < len && failures->count < failures->capacity) {
        /* fastjcs.core.jsonl's split rule: a line ends at '\n' only (tests/core/test_jsonl_split.py).
         * A canonical line is checked before its end is known: the check finds it (no '\n' within
         * a token it takes), so such a line is read once, not searched for '\n' first. */
        size_t stop, n;
        if (tries.skip) {
            tries.skip--;
        } else if (fjcs__line_is_canonical(text + start, len - start, max_depth, flags, &n)) {
            stop = start + n;
            hash_in_place(text + start, n, hasher, &item, &tries);
            goto done;
        } else {
            refused(&tries);
        }
        const char *nl = memchr(text + start, '\n', len - start);
        stop = nl ? (size_t)(nl - text) : len;
        rc = digest_parsed(&ps, &canon, text + start, stop - start, hasher, &item);
        if (rc != FJCS_OK) break;
    done:
        if (item.err.code == FJCS_OK) {
            if (fjcs__buf_reserve(out, width + sizeof block) != FJCS_OK) {
                rc = FJCS_E_NOMEM;
                break;
            }
            char *dst = out->data + out->len;
            if (plen <= sizeof block)
                memcpy(dst, block, sizeof block);
            else
                memcpy(dst, hasher->prefix, plen);
            char *end = fjcs__render_digest(&bare, item.digest, dst + plen);
            *end++ = '\n';
            out->len = (size_t)(end - out->data);
        } else {
            item.start = start;
            item.len = stop - start;
            item.index = lines;
            item.out_at = out->len;
            failures->items[failures->count++] = item;
        }
        lines++;
        start = stop < len ? stop + 1 : len;
    }
    *nlines = lines;
    *consumed = start;
    fjcs__text_free(&ps);
    fjcs_buf_free(&canon);
    return rc;
}

fjcs_code fjcs_digest_texts(const char *const *texts, const size_t *lens, size_t n,
                            size_t max_depth, fjcs_flags flags, const fjcs_hasher *hasher,
                            fjcs_item *items) {
    fjcs__text ps;
    fjcs_buf out = {0};
    fjcs__text_init(&ps, max_depth, flags);
    fjcs_code rc = FJCS_OK;
    fjcs__canonical_tries tries = {0, 0};
    for (size_t i = 0; i < n && rc == FJCS_OK; i++) {
        items[i].start = 0;
        items[i].len = lens[i];
        items[i].index = i;
        rc = fjcs__digest_one(&ps, &out, texts[i], lens[i], hasher, &items[i], &tries);
    }
    fjcs__text_free(&ps);
    fjcs_buf_free(&out);
    return rc;
}
