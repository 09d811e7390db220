/*
 * member_sort.h: the one member sort of the core. Every path that puts an object's members in
 * RFC 8785 order (section 3.2.3) sorts with it: writer.c the members of a text or a marshal
 * encoding (fjcs__member), cpython/walker.c the members of a Python dict (its wpair).
 *
 * A template: define FJCS_SORT_FN (the function's name) and FJCS_SORT_T (an element type with the
 * fields `const uint8_t *key` and `size_t key_len`), then include this file; it defines
 *
 *     static inline void FJCS_SORT_FN(FJCS_SORT_T *m, size_t n, FJCS_SORT_T *tmp);
 *
 * and undefines both, so it may be included again for another type. FJCS_SORT_CMP(x, y) (pointers to
 * two elements; <0, 0, >0), when defined, compares in place of fjcs__key_cmp on their names: an
 * element type that carries more of its name (cpython/walker.c's wpair, its first 8 bytes as an
 * integer) compares faster, in the same order. The sort is stable (equal
 * names keep their input order, which the duplicate check after it relies on): insertion sort
 * when n <= FJCS_SMALL_SORT (no call per comparison, nothing allocated, inlined into the caller:
 * most objects are small), else, out of line, runs of FJCS_SMALL_SORT by insertion sort and then
 * bottom-up merge passes through tmp, room for n elements (NULL is allowed only when n <=
 * FJCS_SMALL_SORT): n log n comparisons, each fjcs__key_cmp inlined. Each element is moved as its
 * own type, so the compiler copies it as a few words rather than through memcpy of a runtime size.
 */
#if !defined(FJCS_SORT_FN) || !defined(FJCS_SORT_T)
#error "define FJCS_SORT_FN and FJCS_SORT_T before including member_sort.h"
#endif

#include "fjcs_internal.h"

#define FJCS__SORT_CAT2(a, b) a##b
#define FJCS__SORT_CAT(a, b) FJCS__SORT_CAT2(a, b)
#define FJCS__SORT_INSERTION FJCS__SORT_CAT(FJCS_SORT_FN, _insertion)
#define FJCS__SORT_MERGE FJCS__SORT_CAT(FJCS_SORT_FN, _merge)
#ifndef FJCS_SORT_CMP
#define FJCS_SORT_CMP(x, y) fjcs__key_cmp((x)->key, (x)->key_len, (y)->key, (y)->key_len)
#endif
#define FJCS__SORT_LESS(x, y) (FJCS_SORT_CMP(x, y) < 0)

/* Inlined where it is called: most objects are small, and their sort is this loop alone. */
FJCS_INLINE void FJCS__SORT_INSERTION(FJCS_SORT_T *m, size_t n) {
    for (size_t i = 1; i < n; i++) {
        FJCS_SORT_T cur = m[i];
        size_t j = i;
        /* m[j - 1] > cur, which is cur < m[j - 1] (the order is total) */
        while (j > 0 && FJCS_SORT_CMP(&m[j - 1], &cur) > 0) {
            m[j] = m[j - 1];
            j--;
        }
        m[j] = cur;
    }
}

/* Out of line: a large object's sort, kept out of the caller's loop. */
static void FJCS__SORT_MERGE(FJCS_SORT_T *m, size_t n, FJCS_SORT_T *tmp) {
    for (size_t lo = 0; lo < n; lo += FJCS_SMALL_SORT)
        FJCS__SORT_INSERTION(m + lo, n - lo < FJCS_SMALL_SORT ? n - lo : FJCS_SMALL_SORT);
    FJCS_SORT_T *src = m, *dst = tmp;
    for (size_t width = FJCS_SMALL_SORT; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            /* src[j] first only when strictly less: stable */
            while (i < mid && j < hi) dst[k++] = FJCS__SORT_LESS(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        FJCS_SORT_T *t = src;
        src = dst;
        dst = t;
    }
    if (src != m) memcpy(m, src, n * sizeof *m);
}

FJCS_INLINE void FJCS_SORT_FN(FJCS_SORT_T *m, size_t n, FJCS_SORT_T *tmp) {
    if (n <= FJCS_SMALL_SORT)
        FJCS__SORT_INSERTION(m, n);
    else
        FJCS__SORT_MERGE(m, n, tmp);
}

#undef FJCS__SORT_LESS
#undef FJCS__SORT_INSERTION
#undef FJCS__SORT_MERGE
#undef FJCS__SORT_CAT
#undef FJCS__SORT_CAT2
#undef FJCS_SORT_FN
#undef FJCS_SORT_T
#undef FJCS_SORT_CMP
