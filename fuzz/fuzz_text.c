/*
 * fuzz_text.c: libFuzzer harness for the C text canonicalizer (csrc/text.c) and the batch
 * functions over texts (csrc/batch.c: fjcs_digest_lines_hex, fjcs_digest_texts).
 *
 * Built by .ci/fuzz.sh straight from the .c files of csrc/ with
 * -fsanitize=fuzzer,address,undefined. Any bytes are valid input. Besides "no crash, no sanitizer
 * report, no leak", it checks:
 *   - an error has a known code for the text path, an offset within the input and a message;
 *   - an accepted text gives canonical output: canonicalizing the output gives the same bytes;
 *   - FJCS_STRICT_INTEGERS only adds FJCS_E_INT_DOMAIN: otherwise the same answer;
 *   - FJCS_INTEGERS_ONLY only adds FJCS_E_NOT_INTEGER and FJCS_E_INT_DOMAIN (it implies
 *     FJCS_STRICT_INTEGERS): otherwise the same answer;
 *   - a small max_depth gives the same answer or FJCS_E_DEPTH, before any other error;
 *   - an allocation failure anywhere gives FJCS_E_NOMEM or the same answer (and leaks nothing);
 *   - fjcs_digest_lines_hex and fjcs_digest_texts give, per line, what fjcs_canonicalize gives
 *     (canonical lines are hashed where they lie: csrc/canonical.c);
 *   - a text canonical.c's check takes (fjcs__text_is_canonical) is accepted and given back
 *     unchanged, under each flag set and depth limit above; on the input, and on the output.
 */
#include "fuzz_common.h"
#include "fjcs_internal.h" /* fjcs__text_is_canonical */

static result run(const char *text, size_t len, size_t max_depth, int flags) {
    result r;
    fjcs_error err = {(fjcs_code)-1, (fjcs_expect)-1, (size_t)-1, NULL};
    memset(&r.out, 0, sizeof r.out);
    r.rc = fjcs_canonicalize(text, len, max_depth, flags, &r.out, &err);
    take_error(&r, &err, len);
    return r;
}

static void check_code(int rc, int flags) {
    switch (rc) {
    case FJCS_OK: case FJCS_E_SYNTAX: case FJCS_E_UTF8: case FJCS_E_SURROGATE: case FJCS_E_DUPKEY:
    case FJCS_E_DEPTH: case FJCS_E_FLOAT_DOMAIN: case FJCS_E_ESCAPE: case FJCS_E_CONTROL:
    case FJCS_E_LEADING_ZERO: case FJCS_E_UNTERMINATED:
        return;
    case FJCS_E_INT_DOMAIN:
        CHECK(flags & (FJCS_STRICT_INTEGERS | FJCS_INTEGERS_ONLY));
        return;
    case FJCS_E_NOT_INTEGER:
        CHECK(flags & FJCS_INTEGERS_ONLY);
        return;
    default:
        CHECK(!"an error code the text path never returns");
    }
}

/* canonical.c's check: what it takes, the parser gives back as it is (r: the parser's answer). */
static void check_taken(const char *text, size_t len, size_t max_depth, int flags, const result *r) {
    if (!fjcs__text_is_canonical(text, len, max_depth, flags)) return;
    if (r->rc != FJCS_OK || r->out.len != len || memcmp(r->out.data, text, len) != 0) {
        fprintf(stderr, "taken as canonical (depth %zu, flags %d), parser rc %d\n", max_depth, flags, r->rc);
        CHECK(!"the canonical check took a text the parser changes or refuses");
    }
}

/* ---- Batches ------------------------------------------------------------------------------- */

/* An item of a batch holds what fjcs_canonicalize says of its text (the digest of the output). */
static void check_item(const fjcs_item *item, const char *line, size_t len, int flags) {
    char *copy = fuzz_copy(line, len);
    result r = run(copy, len, DEFAULT_DEPTH, flags);
    CHECK(r.rc != FJCS_E_NOMEM);
    if (r.rc != FJCS_OK) {
        CHECK(item->err.code == (fjcs_code)r.rc);
        CHECK(item->err.offset == r.offset);
        CHECK(item->err.expected == r.expected);
        CHECK(item->err.message != NULL);
    } else {
        uint8_t digest[FJCS_MAX_DIGEST];
        if (fuzz_digest_of(&r.out, digest, 32) != 0) {
            CHECK(item->err.code == FJCS_E_HASH);
        } else {
            CHECK(item->err.code == FJCS_OK);
            CHECK(memcmp(item->digest, digest, 32) == 0);
        }
    }
    fjcs_buf_free(&r.out);
    free(copy);
}

/* fjcs_digest_lines_hex's output line for an item that canonicalized: "p:<hex>\n". */
static void check_hex_line(const fjcs_buf *out, size_t at, const fjcs_item *item) {
    static const char hex[] = "0123456789abcdef";
    CHECK(at + 2 + 64 + 1 <= out->len);
    CHECK(memcmp(out->data + at, "p:", 2) == 0);
    for (size_t i = 0; i < 32; i++) {
        CHECK(out->data[at + 2 + 2 * i] == hex[item->digest[i] >> 4]);
        CHECK(out->data[at + 3 + 2 * i] == hex[item->digest[i] & 15]);
    }
    CHECK(out->data[at + 66] == '\n');
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

    /* fjcs_digest_texts: one item per text, each what fjcs_canonicalize says. */
    fjcs_item *items = (fjcs_item *)malloc(capacity * sizeof *items); /* exactly the documented room */
    CHECK(items != NULL);
    if (nlines > 0) {
        int rc = fjcs_digest_texts((const char *const *)copies, lens, nlines, DEFAULT_DEPTH,
                                   flags, &FUZZ_HASHER, items);
        CHECK(rc == FJCS_OK);
        for (size_t i = 0; i < nlines; i++) {
            CHECK(items[i].start == 0 && items[i].len == lens[i]);
            check_item(&items[i], starts[i], lens[i], flags);
        }
    }

    /* fjcs_digest_lines_hex, with room for 2 failures a call (so a text with more needs several
     * calls): a hex line for each line that canonicalized, a failure record for each other, and
     * the same answers as fjcs_digest_texts. */
    fjcs_item failures[2];
    fjcs_buf out = {0};
    size_t line = 0, done = 0;
    while (done < len) {
        fjcs_failures failed = {failures, 2, (size_t)-1};
        size_t nl = (size_t)-1, consumed = (size_t)-1, out_before = out.len;
        int rc = fjcs_digest_lines_hex(text + done, len - done, DEFAULT_DEPTH, flags, &FUZZ_HASHER,
                                       &out, &failed, &nl, &consumed);
        size_t nf = failed.count;
        CHECK(rc == FJCS_OK);
        CHECK(nf <= 2 && nl >= 1 && consumed >= 1 && consumed <= len - done);
        size_t f = 0, at = out_before;
        for (size_t i = 0; i < nl; i++, line++) {
            CHECK(line < nlines);
            if (f < nf && failures[f].index == i) {
                CHECK(items[line].err.code != FJCS_OK);
                CHECK(failures[f].start == (size_t)(starts[line] - (text + done)));
                CHECK(failures[f].len == lens[line]);
                CHECK(failures[f].out_at == at);
                CHECK(failures[f].err.code == items[line].err.code);
                CHECK(failures[f].err.offset == items[line].err.offset);
                CHECK(failures[f].err.expected == items[line].err.expected);
                f++;
            } else {
                CHECK(items[line].err.code == FJCS_OK);
                check_hex_line(&out, at, &items[line]);
                at += 2 + 64 + 1;
            }
        }
        CHECK(f == nf && at == out.len);
        done += consumed;
    }
    CHECK(line == nlines);
    fjcs_buf_free(&out);

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
    check_taken(text, size, DEFAULT_DEPTH, 0, &base);

    /* Canonical output is a fixed point. The output is re-read from an exact-size copy. */
    if (base.rc == FJCS_OK) {
        char *copy = fuzz_copy(base.out.data, base.out.len);
        result again = run(copy, base.out.len, DEFAULT_DEPTH, 0);
        check_taken(copy, base.out.len, DEFAULT_DEPTH, 0, &again);
        result ints_again = run(copy, base.out.len, DEFAULT_DEPTH, FJCS_INTEGERS_ONLY);
        check_taken(copy, base.out.len, DEFAULT_DEPTH, FJCS_INTEGERS_ONLY, &ints_again);
        fjcs_buf_free(&ints_again.out);
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
    check_taken(text, size, DEFAULT_DEPTH, FJCS_STRICT_INTEGERS, &strict);
    if (strict.rc != FJCS_E_INT_DOMAIN) CHECK(same(&strict, &base));
    fjcs_buf_free(&strict.out);

    /* Integers only: the refusals of strict integers plus its own, nothing else changes. */
    result ints = run(text, size, DEFAULT_DEPTH, FJCS_INTEGERS_ONLY);
    check_code(ints.rc, FJCS_INTEGERS_ONLY);
    check_taken(text, size, DEFAULT_DEPTH, FJCS_INTEGERS_ONLY, &ints);
    if (ints.rc != FJCS_E_NOT_INTEGER && ints.rc != FJCS_E_INT_DOMAIN) CHECK(same(&ints, &base));
    fjcs_buf_free(&ints.out);

    /* A small depth limit: the same answer, or the depth error first. */
    size_t depth = size % 5;
    result shallow = run(text, size, depth, 0);
    check_code(shallow.rc, 0);
    check_taken(text, size, depth, 0, &shallow);
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

    check_batches(text, size, size & 8 ? FJCS_STRICT_INTEGERS : size & 16 ? FJCS_INTEGERS_ONLY : 0);

    fjcs_buf_free(&base.out);
    return 0;
}
