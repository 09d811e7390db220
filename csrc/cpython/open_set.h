/*
 * cpython/open_set.h: the set of the walker's open containers deeper than SCAN_FRAMES, for its
 * cycle check (the frames above are compared one by one): an open-addressing hash set of object
 * addresses, at most half full, in the walk's state (s->set). Included by walker.c alone.
 */
#ifndef FJCS_CPYTHON_OPEN_SET_H
#define FJCS_CPYTHON_OPEN_SET_H

#include "walker.h"

static size_t slot_of(const PyObject *o, size_t cap) {
    uintptr_t h = (uintptr_t)o >> 4;
    h *= (uintptr_t)UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 7) & (cap - 1);
}

static int set_has(const state *s, const PyObject *o) {
    if (s->set_len == 0) return 0;
    for (size_t i = slot_of(o, s->set_cap);; i = (i + 1) & (s->set_cap - 1)) {
        if (s->set[i] == NULL) return 0;
        if (s->set[i] == o) return 1;
    }
}

static int set_add(state *s, PyObject *o) {
    if ((s->set_len + 1) * 2 > s->set_cap) { /* at most half full */
        size_t cap = s->set_cap ? s->set_cap * 2 : 64;
        PyObject **old = s->set, **set = (PyObject **)calloc(cap, sizeof *set);
        if (set == NULL) return WK_NOMEM;
        for (size_t j = 0; j < s->set_cap; j++) {
            if (old[j] == NULL) continue;
            size_t i = slot_of(old[j], cap);
            while (set[i] != NULL) i = (i + 1) & (cap - 1);
            set[i] = old[j];
        }
        free(old);
        s->set = set;
        s->set_cap = cap;
    }
    size_t i = slot_of(o, s->set_cap);
    while (s->set[i] != NULL) i = (i + 1) & (s->set_cap - 1);
    s->set[i] = o;
    s->set_len++;
    return WK_OK;
}

/* Remove o (present), keeping every probe chain whole (backward-shift deletion). */
static void set_remove(state *s, const PyObject *o) {
    size_t mask = s->set_cap - 1, i = slot_of(o, s->set_cap);
    while (s->set[i] != o) i = (i + 1) & mask;
    for (size_t j = (i + 1) & mask; s->set[j] != NULL; j = (j + 1) & mask) {
        size_t home = slot_of(s->set[j], s->set_cap);
        /* s->set[j] may move to the hole at i when its home is not in (i, j] cyclically */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            s->set[i] = s->set[j];
            i = j;
        }
    }
    s->set[i] = NULL;
    s->set_len--;
}

#endif
