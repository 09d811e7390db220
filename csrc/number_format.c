/* PLACEHOLDER (issue 3 replaces this file): renders through snprintf, which is neither shortest
 * nor ECMAScript-shaped. It exists only so the skeleton links. */
#include <math.h>
#include <stdio.h>
#include "fastjcs.h"

int fjcs_format_double(double v, char *buf) {
    if (isnan(v) || isinf(v)) return -FJCS_E_FLOAT_DOMAIN;
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    for (int i = 0; i < n; i++) buf[i] = tmp[i];
    return n;
}

long long fjcs_format_doubles(const double *v, size_t n, char *out) {
    long long len = 0;
    for (size_t i = 0; i < n; i++) {
        int k = fjcs_format_double(v[i], out + len);
        if (k < 0) return -1;
        len += k;
        out[len++] = '\n';
    }
    return len;
}
