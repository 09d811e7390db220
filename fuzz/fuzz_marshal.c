/*
 * fuzz_marshal.c: libFuzzer harness for the C reader of Python values in their marshal encoding
 * (csrc/object.c: fjcs_canonicalize_marshal, fjcs_digest_marshal_items).
 *
 * The reader must survive arbitrary bytes, not only what marshal.dumps writes: the seeds are
 * marshal encodings (fuzz/make_corpus.py), and libFuzzer mutates them into anything. Besides "no
 * crash, no sanitizer report, no leak", it checks:
 *   - an error has a known code for the object path, an offset within the input and a message;
 *   - accepted input gives canonical JSON: the text canonicalizer returns it unchanged;
 *   - FJCS_INTEGERS_ONLY only adds FJCS_E_NOT_INTEGER (a float): otherwise the same answer;
 *   - the batch reader over a list agrees with reading the whole list (same error, or digests of
 *     exactly the items of the list's canonical form);
 *   - an allocation failure anywhere gives FJCS_E_NOMEM or the same answer (and leaks nothing).
 * FJCS_E_NOMEM is a legitimate answer here (see FUZZ_ALLOC_LIMIT in fuzz_common.h).
 */
#include "fuzz_common.h"

static result run_flags(const char *data, size_t len, size_t max_depth, int flags) {
    result r;
    fjcs_error err = {(fjcs_code)-1, (fjcs_expect)-1, (size_t)-1, NULL};
    memset(&r.out, 0, sizeof r.out);
    r.rc = fjcs_canonicalize_marshal(data, len, max_depth, flags, &r.out, &err);
    switch (r.rc) {
    case FJCS_OK: case FJCS_E_NOMEM: case FJCS_E_SURROGATE: case FJCS_E_DUPKEY: case FJCS_E_DEPTH:
    case FJCS_E_FLOAT_DOMAIN: case FJCS_E_INT_DOMAIN: case FJCS_E_TYPE: case FJCS_E_KEY_TYPE:
    case FJCS_E_CYCLE: case FJCS_E_ENCODING:
        break;
    case FJCS_E_NOT_INTEGER:
        CHECK(flags & FJCS_INTEGERS_ONLY);
        break;
    default:
        CHECK(!"an error code the object path never returns");
    }
    take_error(&r, &err, len);
    return r;
}

static result run(const char *data, size_t len, size_t max_depth) {
    return run_flags(data, len, max_depth, 0);
}

/* The canonical form of a list, "[v1,v2,...]": call f on each top-level item. The text is our own
 * canonical output, so a string is '"' up to the first '"' not escaped. */
static size_t for_each_item(const char *s, size_t n, const char **items, size_t *lens, size_t max) {
    CHECK(n >= 2 && s[0] == '[' && s[n - 1] == ']');
    size_t count = 0, depth = 0, start = 1;
    int in_string = 0;
    if (n == 2) return 0;
    for (size_t i = 1; i < n - 1; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = 0;
            continue;
        }
        if (c == '"') in_string = 1;
        else if (c == '[' || c == '{') depth++;
        else if (c == ']' || c == '}') depth--;
        else if (c == ',' && depth == 0) {
            CHECK(count < max);
            items[count] = s + start;
            lens[count++] = i - start;
            start = i + 1;
        }
    }
    CHECK(count < max);
    items[count] = s + start;
    lens[count++] = n - 1 - start;
    return count;
}

static void check_batch(const char *data, size_t size, const result *whole) {
    /* The batch reads the items of a top-level list at depth 0, the whole read at depth 1. */
    enum { CAPACITY = 4096, DEPTH = 64 };
    uint8_t *digests = (uint8_t *)malloc(CAPACITY * 32);
    CHECK(digests != NULL);
    size_t count = (size_t)-1;
    fjcs_error err = {(fjcs_code)-1, (fjcs_expect)-1, (size_t)-1, NULL};
    int rc = fjcs_digest_marshal_items(data, size, DEPTH - 1, 0, &FUZZ_HASHER, digests, CAPACITY, &count, &err);
    CHECK(err.code == (fjcs_code)rc);
    CHECK(count <= CAPACITY);
    CHECK(rc == FJCS_OK || err.offset <= size);

    uint8_t top = size ? (uint8_t)(data[0] & 0x7F) : 0;
    uint32_t declared = 0;
    if (top == ')' && size >= 2) declared = (uint8_t)data[1];
    else if ((top == '[' || top == '(') && size >= 5)
        declared = (uint32_t)(uint8_t)data[1] | (uint32_t)(uint8_t)data[2] << 8 |
                   (uint32_t)(uint8_t)data[3] << 16 | (uint32_t)(uint8_t)data[4] << 24;
    else top = 0;

    if (rc == FJCS_E_NOMEM || whole->rc == FJCS_E_NOMEM || top == 0 || declared > CAPACITY) {
        free(digests);
        return;
    }
    /* A hash failure (FJCS_E_HASH) stops the batch at an item the whole read accepts; the items
     * after it are never read, so the whole read may still fail later. */
    if (rc != FJCS_E_HASH) {
        CHECK(rc == whole->rc);
        CHECK(rc == FJCS_OK || err.offset == whole->offset);
    }
    if (whole->rc == FJCS_OK) {
        const char **items = (const char **)malloc(CAPACITY * sizeof *items);
        size_t *lens = (size_t *)malloc(CAPACITY * sizeof *lens);
        CHECK(items && lens);
        size_t n = for_each_item(whole->out.data, whole->out.len, items, lens, CAPACITY);
        CHECK(n == declared);
        CHECK(count <= n);
        CHECK(rc != FJCS_OK || count == n);
        for (size_t i = 0; i < count; i++) {
            uint8_t digest[32];
            CHECK(fuzz_hash((const uint8_t *)items[i], lens[i], digest, 32) == 0);
            CHECK(memcmp(digest, digests + i * 32, 32) == 0);
        }
        free(lens);
        free(items);
    }
    free(digests);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *bytes = (const char *)data;

    result base = run(bytes, size, DEFAULT_DEPTH);
    CHECK(base.rc != FJCS_E_DEPTH); /* far too small an input to nest 10,000 deep */

    /* Accepted values come out canonical: the text canonicalizer leaves them as they are. */
    if (base.rc == FJCS_OK) {
        char *copy = fuzz_copy(base.out.data, base.out.len);
        fjcs_buf again = {0};
        fjcs_error err;
        int rc = fjcs_canonicalize(copy, base.out.len, DEFAULT_DEPTH, 0, &again, &err);
        if (rc != FJCS_OK || again.len != base.out.len || memcmp(again.data, copy, again.len) != 0) {
            fprintf(stderr, "output: %.*s\ntext path: rc %d at %zu\n", (int)base.out.len,
                    base.out.data, rc, rc ? err.offset : 0);
            CHECK(!"the object path wrote text that is not canonical JSON");
        }
        fjcs_buf_free(&again);
        free(copy);
    }

    /* The same at depth 64 (what the batch check compares with), where the depth error may come
     * first. */
    result limited = run(bytes, size, 64);
    if (limited.rc != FJCS_E_DEPTH && limited.rc != FJCS_E_NOMEM && base.rc != FJCS_E_NOMEM)
        CHECK(same(&limited, &base));
    check_batch(bytes, size, &limited);
    fjcs_buf_free(&limited.out);

    /* Integers only: a float is refused (FJCS_E_NOT_INTEGER), nothing else changes. */
    result ints = run_flags(bytes, size, DEFAULT_DEPTH, FJCS_INTEGERS_ONLY);
    if (ints.rc != FJCS_E_NOT_INTEGER && ints.rc != FJCS_E_NOMEM && base.rc != FJCS_E_NOMEM)
        CHECK(same(&ints, &base));
    fjcs_buf_free(&ints.out);

    /* One allocation fails. */
    fuzz_inject_failure((long)(size % 11));
    result starved = run(bytes, size, DEFAULT_DEPTH);
    fuzz_inject_failure(-1);
    if (starved.rc != FJCS_E_NOMEM && base.rc != FJCS_E_NOMEM) CHECK(same(&starved, &base));
    fjcs_buf_free(&starved.out);

    fjcs_buf_free(&base.out);
    return 0;
}
