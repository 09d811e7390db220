/*
 * lines_bench.c: fjcs_digest_lines_hex over a JSON Lines file, in C, against its bound (the same
 * one-shot hash over the whole file once). Built and run by benchmarks/lines_bench.py.
 *
 *   lines_bench FILE HASHLIB [REPEATS]
 *
 * HASHLIB is a shared library with SHA256_oneshot (pycryptodome's _SHA256 or _SHA256_shani, the
 * function the Python binding hands the core), loaded with dlopen; "none" for no hash at all (a
 * digest of zeros: the time of everything but the hash; the bound is then 0). The file is read whole; each
 * pass digests every line (failures collected as the binding does, 256 at a time) and then hashes
 * the whole file once, then hashes each line as it stands (its bytes before the b"\n": of a
 * canonical line, what fjcs_digest_lines_hex hashes, so the hash's share of its time). Prints, for
 * the best pass of each: "lines N", "bytes N", "digest_ns N", "bound_ns N", "hash_lines_ns N",
 * "failed N", and "out_sum N" (a sum over the output, so that it is used).
 *
 * Under callgrind (benchmarks/lines_bench.py --callgrind) the instructions of fjcs_digest_lines_hex
 * and of SHA256_oneshot inside it give the core's cost per line outside the hash.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fastjcs.h"

/* HASHLIB "none": no hash (a digest of zeros), for the time of everything else. */
static int no_hash(const uint8_t *in, size_t len, uint8_t *digest, size_t digest_size) {
    (void)in;
    (void)len;
    memset(digest, 0, digest_size);
    return 0;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE HASHLIB [REPEATS]\n", argv[0]);
        return 2;
    }
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    fjcs_hash_fn fn = no_hash;
    if (strcmp(argv[2], "none") != 0) {
        void *lib = dlopen(argv[2], RTLD_NOW);
        if (!lib) {
            fprintf(stderr, "%s\n", dlerror());
            return 2;
        }
        *(void **)&fn = dlsym(lib, "SHA256_oneshot");
    }
    if (!fn) {
        fprintf(stderr, "no SHA256_oneshot in %s\n", argv[2]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    fclose(f);

    fjcs_hasher hasher = {fn, 32, "sha256:"};
    fjcs_item items[256];
    fjcs_failures failures = {items, 256, 0};
    double best = 1e300, best_bound = 1e300, best_lines = 1e300;
    size_t lines = 0, failed = 0;
    unsigned long sum = 0;
    for (int r = 0; r < repeats; r++) {
        fjcs_buf out = {0};
        size_t done = 0;
        lines = failed = 0;
        double t0 = now_ns();
        while (done < (size_t)size) {
            size_t n = 0, consumed = 0;
            if (fjcs_digest_lines_hex(text + done, (size_t)size - done, 10000, 0, &hasher, &out,
                                      &failures, &n, &consumed) != FJCS_OK) {
                fprintf(stderr, "out of memory\n");
                return 2;
            }
            lines += n;
            failed += failures.count;
            done += consumed;
        }
        double t = now_ns() - t0;
        if (t < best) best = t;
        for (size_t i = 0; i < out.len; i += 64) sum += (unsigned char)out.data[i];
        fjcs_buf_free(&out);
        uint8_t digest[32];
        t0 = now_ns();
        fn((const uint8_t *)text, (size_t)size, digest, 32);
        t = now_ns() - t0;
        if (t < best_bound) best_bound = t;
        sum += digest[0];
        t0 = now_ns();
        for (const char *p = text, *end = text + size; p < end;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (nl == NULL) nl = end;
            fn((const uint8_t *)p, (size_t)(nl - p), digest, 32);
            sum += digest[0];
            p = nl + 1;
        }
        t = now_ns() - t0;
        if (t < best_lines) best_lines = t;
    }
    printf("lines %zu\nbytes %ld\ndigest_ns %.0f\nbound_ns %.0f\nhash_lines_ns %.0f\nfailed %zu\nout_sum %lu\n",
           lines, size, best, best_bound, best_lines, failed, sum);
    free(text);
    return 0;
}
