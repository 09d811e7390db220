/* PLACEHOLDER (issue 3/4 replaces this file): strtod depends on the C locale. It exists only so
 * the skeleton links. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fastjcs.h"

int fjcs_parse_double(const char *tok, size_t len, double *out) {
    char tmp[512];
    if (len >= sizeof tmp) len = sizeof tmp - 1;
    memcpy(tmp, tok, len);
    tmp[len] = 0;
    double d = strtod(tmp, NULL);
    if (isinf(d)) return FJCS_E_FLOAT_DOMAIN;
    *out = d;
    return FJCS_OK;
}
