/*
 * fuzz_text.c: libFuzzer harness for the C text canonicalizer (csrc/text.c) and the batch
 * functions over texts (fjcs_digest_lines, fjcs_digest_texts).
 *
 * Built by .ci/fuzz.sh straight from the .c files of csrc/ with
 * -fsanitize=fuzzer,address,undefined. Any bytes are valid input. Besides "no crash, no sanitizer
 * report, no leak", it checks:
 *   - an error has a known code for the text path, an offset within the input and a message;
 *   - an accepted text gives canonical output: canonicalizing the output gives the same bytes;
 *   - FJCS_STRICT_INTEGERS only adds FJCS_E_INT_DOMAIN: otherwise the same answer;
 *   - a small max_depth gives the same answer or FJCS_E_DEPTH, before any other error;
 *   - an allocation failure anywhere gives FJCS_E_NOMEM or the same answer (and leaks nothing);
 *   - fjcs_digest_lines and fjcs_digest_texts give, per line, what fjcs_canonicalize gives.
 */
#include "fuzz_common.h"

static result run(const char *text, size_t len, size_t max_depth, int flags) {
    result r;
    fjcs_error err = {-1, (size_t)-1, NULL};
    memset(&r.out, 0, sizeof r.out);
    r.rc = fjcs_canonicalize(text, len, max_depth, flags, &r.out, &err);
    take_error(&r, &err, len);
    return r;
}

static void check_code(int rc, int flags) {
    switch (rc) {
    case FJCS_OK: case FJCS_E_SYNTAX: case FJCS_E_UTF8: case FJCS_E_SURROGATE: case FJCS_E_DUPKEY:
    case FJCS_E_DEPTH: case FJCS_E_FLOAT_DOMAIN:
        return;
    case FJCS_E_INT_DOMAIN:
        CHECK(flags & FJCS_STRICT_INTEGERS);
        return;
    default:
        CHECK(!"an error code the text path never returns");
    }
}

/* ---- Batches ------------------------------------------------------------------------------- */

static void check_item(const fjcs_item *item, const char *line, size_t len, int flags) {
    char *copy = fuzz_copy(line, len);
    result r = run(copy, len, DEFAULT_DEPTH, flags);
    CHECK(r.rc != FJCS_E_NOMEM);
    if (r.rc != FJCS_OK) {
        CHECK(item->code == r.rc);
        CHECK(item->offset == r.offset);
        CHECK(item->message != NULL);
    } else {
        uint8_t digest[FJCS_MAX_DIGEST];
        if (fuzz_digest_of(&r.out, digest, 32) != 0) {
            CHECK(item->code == FJCS_E_HASH);
        } else {
            CHECK(item->code == FJCS_OK);
            CHECK(memcmp(item->digest, digest, 32) == 0);
        }
    }
    fjcs_buf_free(&r.out);
    free(copy);
}

static void check_batches(const char *text, size_t len, int flags) {
    /* The lines, by the header's rule: a final newline ends the last line; no input, no lines. */
    size_t newlines = 0;
    for (size_t i = 0; i < len; i++) newlines += text[i] == '\n';
    size_t capacity = newlines + 1, nlines = 0;
    const char **starts = (const char **)malloc(capacity * sizeof *starts);
    char **copies = (char **)malloc(capacity * sizeof *copies);
    size_t *lens = (size_t *)malloc(capacity * sizeof *lens);
    CHECK(starts && copies && lens);
    for (size_t start = 0; start < len;) {
        const char *nl = (const char *)memchr(text + start, '\n', len - start);
        size_t stop = nl ? (size_t)(nl - text) : len;
        starts[nlines] = text + start;
        lens[nlines] = stop - start;
        copies[nlines] = fuzz_copy(text + start, stop - start); /* exact size: ASan sees overreads */
        nlines++;
        if (nl == NULL) break;
        start = stop + 1;
    }

    fjcs_item *items = (fjcs_item *)malloc(capacity * sizeof *items); /* exactly the documented room */
    CHECK(items != NULL);
    size_t count = (size_t)-1;
    int rc = fjcs_digest_lines(text, len, DEFAULT_DEPTH, flags, fuzz_hash, 32, items, capacity, &count);
    CHECK(rc == FJCS_OK);
    CHECK(count == nlines);
    for (size_t i = 0; i < count; i++) {
        CHECK(items[i].start == (size_t)(starts[i] - text));
        CHECK(items[i].len == lens[i]);
        check_item(&items[i], starts[i], lens[i], flags);
    }

    if (nlines > 0) {
        fjcs_item *items2 = (fjcs_item *)malloc(nlines * sizeof *items2);
        CHECK(items2 != NULL);
        rc = fjcs_digest_texts((const char *const *)copies, lens, nlines, DEFAULT_DEPTH, flags,
                               fuzz_hash, 48, items2);
        CHECK(rc == FJCS_OK);
        for (size_t i = 0; i < nlines; i++) {
            CHECK(items2[i].code == items[i].code);
            CHECK(items2[i].code == FJCS_OK || items2[i].offset == items[i].offset);
            CHECK(items2[i].code != FJCS_OK || memcmp(items2[i].digest, items[i].digest, 32) == 0);
        }
        free(items2);
    }
    for (size_t i = 0; i < nlines; i++) free(copies[i]);
    free(items);
    free(lens);
    free(copies);
    free(starts);
}

/* ---- The harness --------------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;

    result base = run(text, size, DEFAULT_DEPTH, 0);
    check_code(base.rc, 0);
    CHECK(base.rc != FJCS_E_NOMEM); /* a fuzz input is far too small to exhaust anything */
    CHECK(base.rc != FJCS_E_DEPTH);  /* nor deep enough for the default limit */

    /* Canonical output is a fixed point. The output is re-read from an exact-size copy. */
    if (base.rc == FJCS_OK) {
        char *copy = fuzz_copy(base.out.data, base.out.len);
        result again = run(copy, base.out.len, DEFAULT_DEPTH, 0);
        if (!same(&base, &again)) {
            fprintf(stderr, "output: %.*s\nagain (rc %d): %.*s\n", (int)base.out.len, base.out.data,
                    again.rc, again.rc == FJCS_OK ? (int)again.out.len : 0, again.out.data);
            CHECK(!"canonical output is not a fixed point");
        }
        fjcs_buf_free(&again.out);
        free(copy);
    }

    /* Strict integers: an extra refusal, nothing else changes. */
    result strict = run(text, size, DEFAULT_DEPTH, FJCS_STRICT_INTEGERS);
    check_code(strict.rc, FJCS_STRICT_INTEGERS);
    if (strict.rc != FJCS_E_INT_DOMAIN) CHECK(same(&strict, &base));
    fjcs_buf_free(&strict.out);

    /* A small depth limit: the same answer, or the depth error first. */
    size_t depth = size % 5;
    result shallow = run(text, size, depth, 0);
    check_code(shallow.rc, 0);
    if (shallow.rc == FJCS_E_DEPTH) {
        if (base.rc != FJCS_OK && base.rc != FJCS_E_DUPKEY) CHECK(base.offset > shallow.offset);
    } else {
        CHECK(same(&shallow, &base));
    }
    fjcs_buf_free(&shallow.out);

    /* One allocation fails: out of memory, or (if the call needed fewer) the same answer. */
    fuzz_inject_failure((long)(size % 7));
    result starved = run(text, size, DEFAULT_DEPTH, 0);
    fuzz_inject_failure(-1);
    if (starved.rc != FJCS_E_NOMEM) CHECK(same(&starved, &base));
    fjcs_buf_free(&starved.out);

    check_batches(text, size, size & 8 ? FJCS_STRICT_INTEGERS : 0);

    fjcs_buf_free(&base.out);
    return 0;
}
