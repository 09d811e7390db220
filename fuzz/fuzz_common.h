/*
 * fuzz_common.h: what the libFuzzer harnesses share: a check that aborts (so libFuzzer reports it
 * as a crash with the input), a deterministic stand-in hash for the batch functions, and the
 * allocation hook the core is compiled with (see alloc_hook.h).
 *
 * Include it in exactly one translation unit: the harness.
 */
#ifndef FJCS_FUZZ_COMMON_H
#define FJCS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastjcs.h"

/* libFuzzer's entry point, which each harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                              \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);             \
            abort();                                                                             \
        }                                                                                        \
    } while (0)

/* ---- One call's outcome ---------------------------------------------------------------------- */

#define DEFAULT_DEPTH 10000

/* What a canonicalization returned: its code, the error offset (0 on success), the output. */
typedef struct result {
    int rc;
    size_t offset;
    fjcs_expect expected;
    fjcs_buf out;
} result;

/* Check the error record a call filled in (the code it returned, an offset within the input and a
 * message on failure) and keep the offset. */
static void take_error(result *r, const fjcs_error *err, size_t len) {
    CHECK(err->code == (fjcs_code)r->rc);
    /* what was expected is said for syntax errors, and only for them */
    CHECK((err->code == FJCS_E_SYNTAX) == (err->expected != FJCS_EXPECT_NOTHING));
    CHECK((unsigned)err->expected <= FJCS_EXPECT_END);
    r->offset = 0;
    r->expected = err->expected;
    if (r->rc != FJCS_OK) {
        CHECK(err->offset <= len);
        CHECK(err->message != NULL && err->message[0] != '\0');
        r->offset = err->offset;
    }
}

/* The same outcome: code and offset, and on success the same bytes. */
static int same(const result *a, const result *b) {
    if (a->rc != b->rc || a->offset != b->offset) return 0;
    if (a->rc != FJCS_OK) return 1;
    return a->out.len == b->out.len && (a->out.len == 0 || memcmp(a->out.data, b->out.data, a->out.len) == 0);
}

/* ---- Allocation hook ------------------------------------------------------------------------ */

/* A single allocation above this fails (the core then returns FJCS_E_NOMEM). Text input cannot
 * need that much (libFuzzer's inputs are small), but a marshal encoding can: back-references to a
 * container re-read it, so a few hundred bytes can stand for an exponentially large value, as a
 * Python object graph that shares lists can (rfc8785 expands it just the same). The bound keeps
 * each run short and turns that expansion into a clean FJCS_E_NOMEM. */
#define FUZZ_ALLOC_LIMIT ((size_t)8 << 20)

static long fuzz_fail_at = -1; /* fail the allocation with this index (0-based); -1: none */
static long fuzz_alloc_count;

void *fjcs__fuzz_realloc(void *p, size_t n) {
    if (n > FUZZ_ALLOC_LIMIT) return NULL;
    if (fuzz_fail_at >= 0 && fuzz_alloc_count++ == fuzz_fail_at) return NULL;
    return (realloc)(p, n); /* the parentheses keep the hook's macro out */
}

static void fuzz_inject_failure(long at) {
    fuzz_fail_at = at;
    fuzz_alloc_count = 0;
}

/* ---- A stand-in hash for the batch functions ------------------------------------------------ */

/* FNV-1a over the bytes, spread over digest_size bytes with the length mixed in. It fails (returns
 * nonzero) for lengths of 96 mod 97, so the FJCS_E_HASH path runs too. */
static int fuzz_hash(const uint8_t *in, size_t len, uint8_t *digest, size_t digest_size) {
    if (len % 97 == 96) return 1;
    uint64_t h = UINT64_C(0xcbf29ce484222325) ^ len;
    for (size_t i = 0; i < len; i++) h = (h ^ in[i]) * UINT64_C(0x100000001b3);
    for (size_t i = 0; i < digest_size; i++) {
        h = (h ^ i) * UINT64_C(0x100000001b3);
        digest[i] = (uint8_t)(h >> 56);
    }
    return 0;
}

/* fuzz_hash as the API's hasher: 32-byte digests, rendered after "p:". */
static const fjcs_hasher FUZZ_HASHER = {fuzz_hash, 32, "p:"};

static inline int fuzz_digest_of(const fjcs_buf *b, uint8_t *digest, size_t size) {
    return fuzz_hash((const uint8_t *)b->data, b->len, digest, size);
}

/* A malloc'd copy, so that ASan sees a read past its end (a slice of a larger buffer hides it). */
static char *fuzz_copy(const void *p, size_t n) {
    char *c = (char *)malloc(n ? n : 1);
    CHECK(c != NULL);
    if (n) memcpy(c, p, n);
    return c;
}

#endif /* FJCS_FUZZ_COMMON_H */
