/*
 * cpython/long_layout.h: small exact ints read from the object, for the walker's hot loops
 * (cpython/long_layout.c probes the layout once).
 */
#ifndef FJCS_CPYTHON_LONG_LAYOUT_H
#define FJCS_CPYTHON_LONG_LAYOUT_H

#include "walker.h"

/*
 * An exact int's value, read from the object (the int's layout is not part of the limited API,
 * and PyLong_AsLongLongAndOverflow, a call and its checks, cost more than the rest of writing a
 * small int). CPython 3.10 and 3.11 hold the signed digit count in ob_size, 3.12 on a tag (the
 * count << 3, then the sign: 0 positive, 1 zero, 2 negative), each followed by 30-bit digits. The
 * layout is checked once, on sample ints against the API (probe_long_layout); where neither
 * holds (another build, 15-bit digits, a later CPython), every int goes through the API. Ints of
 * 1 or 2 digits (below 2^60) are read; larger ones, through the API too.
 */
enum { LONG_UNPROBED, LONG_API, LONG_SIZE, LONG_TAG };
extern int fjcs__long_probed; /* what the probe found (the process's CPython) */
extern int fjcs__long_layout; /* what the walker reads by: fjcs__long_probed, or LONG_API */

/* 1 with v's value in *x when v (an int laid out as `layout` says) is below 2^30 (one digit, or
 * zero: most ints); else 0. The digit times the sign, -1 or 1; zero's digit is not read (3.10
 * may make a zero without one). */
FJCS_INLINE int small_long_of_layout(int layout, PyObject *v, long long *x) {
    const unsigned char *p = (const unsigned char *)v + sizeof(PyObject);
    uint64_t head;
    uint32_t d;
    memcpy(&head, p, sizeof head);
    /* ob_size -1 or 1 (3.10, 3.11); a tag of one digit, sign 0 (+) or 2 (-) (3.12 on) */
    if (layout == LONG_SIZE ? head + 1 == 0 || head == 1 : (head | 2) == 10) {
        memcpy(&d, p + sizeof head, sizeof d);
        /* the sign: ob_size itself; 9 - the tag (8: 1, 10: -1) */
        *x = (layout == LONG_SIZE ? (long long)(int64_t)head : 9 - (long long)head) * (long long)d;
        return 1;
    }
    if (head == (layout == LONG_SIZE ? 0u : 1u)) { /* zero: ob_size 0, or the tag's sign 1 */
        *x = 0;
        return 1;
    }
    return 0;
}

/* 1 with v's value in *x when v (an int laid out as `layout` says) has at most 2 digits; else 0. */
FJCS_INLINE int long_of_layout(int layout, PyObject *v, long long *x) {
    if (small_long_of_layout(layout, v, x)) return 1;
    const unsigned char *p = (const unsigned char *)v + sizeof(PyObject);
    uint64_t head, digits;
    uint32_t d[2];
    memcpy(&head, p, sizeof head);
    memcpy(&d[0], p + sizeof head, sizeof d[0]);
    int negative;
    if (layout == LONG_SIZE) {
        negative = (int64_t)head < 0;
        digits = negative ? (uint64_t)0 - head : head;
    } else {
        unsigned sign = (unsigned)(head & 3);
        digits = head >> 3;
        if (sign == 1) {
            *x = 0;
            return digits == 0;
        }
        if (sign == 3 || digits == 0) return 0;
        negative = sign == 2;
    }
    if (digits > 2) return 0;
    if (digits == 0) {
        *x = 0;
        return 1;
    }
    uint64_t u = d[0];
    if (digits == 2) {
        memcpy(&d[1], p + sizeof head + sizeof d[0], sizeof d[1]);
        u |= (uint64_t)d[1] << 30;
    }
    *x = negative ? -(long long)u : (long long)u;
    return 1;
}

/* An exact int's value in *x, read as `layout` says (fjcs__long_layout, read once by a loop); 0
 * when it does not fit a long long. */
FJCS_INLINE int exact_long_as(int layout, PyObject *v, long long *x) {
    if (FJCS_LIKELY(layout >= LONG_SIZE) && long_of_layout(layout, v, x)) return 1;
    int overflow = 0;
    *x = PyLong_AsLongLongAndOverflow(v, &overflow);
    return !overflow;
}

/* An exact int's value in *x; 0 when it does not fit a long long. */
FJCS_INLINE int exact_long(PyObject *v, long long *x) {
    return exact_long_as(fjcs__long_layout, v, x);
}

/* Probe the layout, once per process (before the first walk). */
void fjcs__long_probe_once(void);

#endif
