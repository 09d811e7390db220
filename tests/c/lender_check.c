/*
 * lender_check.c: the lender (csrc/lender.c) under AddressSanitizer with leak detection, built and
 * run by tests/c/run_sanitized.sh.
 *
 * Four threads each open a lender, make calls of every kind through it (results handed back, a
 * result left lent while the lender is called again, results never handed back, more of those
 * than the lender keeps aside, a result larger than what it keeps, refusals lent with their
 * error records), and close it: a lender that
 * forgot a buffer (lent, kept aside or grown) on close is a leak, which fails the run at exit. The
 * answers are checked against fixed expectations.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastjcs.h"

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* A stand-in hash: the first size bytes of the input, zero-padded (the lender only renders it). */
static int copy_hash(const uint8_t *in, size_t len, uint8_t *digest, size_t size) {
    for (size_t i = 0; i < size; i++) digest[i] = i < len ? in[i] : 0;
    return 0;
}

static void give_back(const char *p) { ((char *)p)[-1] = 0; }

static void *work(void *arg) {
    (void)arg;
    const fjcs_hasher hasher = {copy_hash, 2, "h:"};
    for (int round = 0; round < 50; round++) {
        fjcs_lender *lender = fjcs_lender_open();
        CHECK(lender != NULL);
        const char *a = fjcs_lender_canonicalize(lender, "{\"b\":1,\"a\":[2]}", 15, 10, 0);
        CHECK(a != NULL && strcmp(a, "{\"a\":[2],\"b\":1}") == 0);
        /* a still lent: the next calls write elsewhere */
        const char *d = fjcs_lender_digest_text(lender, "[1]", 3, 10, 0, &hasher);
        CHECK(d != NULL && strcmp(d, "h:5b31") == 0); /* "[1" in hex */
        fjcs_error none;
        CHECK(fjcs_lender_error(d, &none) == FJCS_OK && none.code == FJCS_OK); /* a result, not a refusal */
        give_back(d);
        CHECK(strcmp(a, "{\"a\":[2],\"b\":1}") == 0);
        give_back(a);
        const char *m = fjcs_lender_canonicalize_marshal(lender, "N", 1, 10, 0); /* None */
        CHECK(m != NULL && strcmp(m, "null") == 0);
        give_back(m);
        const char *x = fjcs_lender_digest_marshal(lender, "T", 1, 10, 0, &hasher); /* True */
        CHECK(x != NULL && strcmp(x, "h:7472") == 0); /* "tr" */
        give_back(x);
        /* a refusal: an empty result lent with its record, which a later call leaves alone */
        const char *r = fjcs_lender_canonicalize(lender, "{\"a\":1,\"a\":2}", 13, 10, 0);
        CHECK(r != NULL && r[0] == 0);
        const char *r2 = fjcs_lender_digest_text(lender, "[1,", 3, 10, 0, &hasher);
        CHECK(r2 != NULL && r2[0] == 0);
        fjcs_error err;
        CHECK(fjcs_lender_error(r, &err) == FJCS_E_DUPKEY && err.offset == 7);
        give_back(r);
        CHECK(fjcs_lender_error(r2, &err) == FJCS_E_SYNTAX && err.offset == 3 && err.expected == FJCS_EXPECT_VALUE);
        give_back(r2);
        const char *r3 = fjcs_lender_canonicalize_marshal(lender, "g", 1, 10, 0); /* a float, cut short */
        CHECK(r3 != NULL && r3[0] == 0 && fjcs_lender_error(r3, &err) == FJCS_E_ENCODING);
        give_back(r3);
        /* results never handed back, more than a lender keeps aside (the oldest are freed) */
        for (int k = 0; k < 12; k++) CHECK(fjcs_lender_format_double(lender, 0.5 + k) != NULL);
        if (round % 10 == 0) { /* a result larger than a lender keeps, left lent at close */
            size_t n = 100000;
            char *big = malloc(n + 2);
            CHECK(big != NULL);
            big[0] = '"';
            memset(big + 1, 'x', n);
            big[n + 1] = '"';
            CHECK(fjcs_lender_canonicalize(lender, big, n + 2, 10, 0) != NULL);
            free(big);
        }
        fjcs_lender_close(lender);
    }
    fjcs_lender_close(NULL);
    CHECK(fjcs_lender_canonicalize(NULL, "1", 1, 10, 0) == NULL);
    return NULL;
}

int main(void) {
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&threads[i], NULL, work, NULL) == 0);
    for (int i = 0; i < 4; i++) CHECK(pthread_join(threads[i], NULL) == 0);
    puts("lender_check: ok");
    return 0;
}
