/*
 * number_bench.c: nanoseconds per double for fjcs_format_double against snprintf("%.17g").
 *
 * Reads little-endian doubles from the file named by argv[1] (benchmarks/number_bench.py writes
 * them: one data set per run), renders each with both functions, best of argv[2] repetitions
 * (default 5), and prints one line "fjcs <ns> snprintf <ns> roundtrip <ok|FAILED>". The round-trip
 * check (strtod of fjcs's text gives back the same bits) runs once, outside the timing.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fastjcs.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The sink keeps the compiler from dropping the renderings. */
static volatile unsigned long long sink;

static double time_fjcs(const double *v, size_t n) {
    char buf[FJCS_NUMBER_BUFSIZE];
    unsigned long long acc = 0;
    double t0 = now_ns();
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        fjcs_format_double(v[i], buf, &len); /* the inputs are finite: FJCS_OK */
        acc += (unsigned long long)len + (unsigned char)buf[len - 1];
    }
    double t1 = now_ns();
    sink += acc;
    return (t1 - t0) / (double)n;
}

static double time_snprintf(const double *v, size_t n) {
    char buf[40];
    unsigned long long acc = 0;
    double t0 = now_ns();
    for (size_t i = 0; i < n; i++) {
        int len = snprintf(buf, sizeof buf, "%.17g", v[i]);
        acc += (unsigned long long)len + (unsigned char)buf[len - 1];
    }
    double t1 = now_ns();
    sink += acc;
    return (t1 - t0) / (double)n;
}

static int roundtrip(const double *v, size_t n) {
    char buf[FJCS_NUMBER_BUFSIZE + 1];
    for (size_t i = 0; i < n; i++) {
        size_t len;
        if (fjcs_format_double(v[i], buf, &len) != FJCS_OK) return 0;
        buf[len] = '\0';
        double back = strtod(buf, NULL);
        if (memcmp(&back, &v[i], sizeof back) != 0 && !(v[i] == 0 && back == 0)) {
            fprintf(stderr, "number_bench: %s does not read back as %.17g\n", buf, v[i]);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DOUBLES_FILE [REPEAT]\n", argv[0]);
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f) / sizeof(double);
    fseek(f, 0, SEEK_SET);
    double *v = malloc(n * sizeof *v);
    if (v == NULL || fread(v, sizeof *v, n, f) != n) {
        fprintf(stderr, "number_bench: cannot read %s\n", argv[1]);
        return 2;
    }
    fclose(f);

    double best_fjcs = 1e30, best_snprintf = 1e30;
    for (int r = 0; r < repeat; r++) {
        double a = time_fjcs(v, n), b = time_snprintf(v, n);
        if (a < best_fjcs) best_fjcs = a;
        if (b < best_snprintf) best_snprintf = b;
    }
    printf("fjcs %.2f snprintf %.2f roundtrip %s\n", best_fjcs, best_snprintf,
           roundtrip(v, n) ? "ok" : "FAILED");
    free(v);
    return 0;
}
