/*
 * parse_bench.c: ns per token for fjcs__parse_double against strtod (C locale) on the same tokens.
 * Built and run by benchmarks/parse_bench.py, which writes the tokens.
 *
 *   parse_bench FILE [REPEATS]
 *
 * FILE holds tokens separated by '\n'. Each reader runs over all of them REPEATS times (default
 * 5); the best pass is reported, as "name ns_per_token" lines, then "agree 1" when both readers
 * produced the same bits for every token (strtod in the C locale is correctly rounded in glibc),
 * "agree 0" otherwise.
 */
#define _POSIX_C_SOURCE 199309L  /* clock_gettime */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fjcs_internal.h" /* fjcs__parse_double: internal, called here directly */

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [REPEATS]\n", argv[0]);
        return 2;
    }
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    setlocale(LC_NUMERIC, "C");

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
    text[size] = 0;

    /* Split in place: every '\n' becomes the NUL strtod needs; fjcs gets the lengths. */
    size_t n = 0;
    for (long i = 0; i < size; i++) n += text[i] == '\n';
    const char **tok = malloc(n * sizeof *tok);
    size_t *len = malloc(n * sizeof *len);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (!tok || !len || !a || !b) return 2;
    size_t k = 0;
    for (char *p = text; k < n; k++) {
        char *nl = strchr(p, '\n');
        *nl = 0;
        tok[k] = p;
        len[k] = (size_t)(nl - p);
        p = nl + 1;
    }

    double best_fjcs = 1e300, best_strtod = 1e300;
    for (int r = 0; r < repeats; r++) {
        double t0 = now_ns();
        for (size_t i = 0; i < n; i++) {
            if (fjcs__parse_double(tok[i], len[i], &a[i]) != FJCS_OK) a[i] = 0;
        }
        double t1 = now_ns();
        for (size_t i = 0; i < n; i++) b[i] = strtod(tok[i], NULL);
        double t2 = now_ns();
        if (t1 - t0 < best_fjcs) best_fjcs = t1 - t0;
        if (t2 - t1 < best_strtod) best_strtod = t2 - t1;
    }
    int agree = 1;
    for (size_t i = 0; i < n; i++) agree &= memcmp(&a[i], &b[i], sizeof a[i]) == 0;
    printf("tokens %zu\n", n);
    printf("fjcs__parse_double %.2f\n", best_fjcs / (double)n);
    printf("strtod %.2f\n", best_strtod / (double)n);
    printf("agree %d\n", agree);
    free(text);
    free(tok);
    free(len);
    free(a);
    free(b);
    return 0;
}
