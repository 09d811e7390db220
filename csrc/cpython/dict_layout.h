/*
 * cpython/dict_layout.h: a dict's members read from the object, for the walker's loop over them
 * (cpython/dict_layout.c probes the layout once).
 */
#ifndef FJCS_CPYTHON_DICT_LAYOUT_H
#define FJCS_CPYTHON_DICT_LAYOUT_H

#include "walker.h"

/*
 * PyDict_Next, a call with its checks (the dict's kind, its table's, the index's bounds), cost
 * about 45 instructions a member in dumps of the records benchmark, a tenth of the whole call. The
 * layout is not part of the limited API. CPython 3.11 to 3.14 lay a dict out as its PyObject head,
 * ma_used, a 64-bit version (or watcher) tag, ma_keys and ma_values; the keys object as a count of
 * references, three bytes (log2 of the table's size, log2 of the index's bytes, the kind: 0 any
 * keys, 1 str keys only, 2 split), a 32-bit version, dk_usable, dk_nentries, then the index and,
 * past it, dk_nentries entries in insertion order: {hash, key, value} for kind 0, {key, value} for
 * kind 1, a deleted member's value NULL. A split dict (an instance's __dict__: ma_values not NULL)
 * is read through the API.
 *
 * That layout is checked once, on sample dicts against PyDict_Next and PyDict_Size, member for
 * member (probe_dict_layout: both kinds, deleted members, indexes of 1 and 2 bytes, the empty
 * dict's shared keys); where it does not hold (3.10, another CPython), every dict goes through the
 * API. The walker reads the members in one stretch in which no Python code runs (see push in
 * walker.c), as it did with PyDict_Next.
 */
extern int fjcs__dict_probed; /* 1: the probe found the layout; 0: not; -1: not probed yet */
extern int fjcs__dict_layout; /* what the walker reads by: fjcs__dict_probed, or 0 (the API) */

#define DICT_USED_AT (sizeof(PyObject))                       /* ma_used */
#define DICT_KEYS_AT (sizeof(PyObject) + 2 * sizeof(int64_t)) /* ma_keys, past ma_used and the tag */
#define KEYS_LOG2_INDEX_BYTES_AT 9
#define KEYS_KIND_AT 10
#define KEYS_NENTRIES_AT 24
#define KEYS_INDEX_AT 32

/* A dict's members as laid out: entries (a key at key_at, its value a pointer after) every
 * `stride` bytes up to `end`. */
typedef struct dict_entries {
    const unsigned char *at, *end;
    size_t stride;
} dict_entries;

/* 1 with d's entries in *e and its member count in *used when d (a dict, laid out as the probe
 * found) has a combined table; 0 (read it through the API) when its table is split. */
FJCS_INLINE int dict_entries_of_layout(PyObject *d, dict_entries *e, Py_ssize_t *used) {
    const unsigned char *p = (const unsigned char *)d, *keys;
    const void *values;
    memcpy(&keys, p + DICT_KEYS_AT, sizeof keys);
    memcpy(&values, p + DICT_KEYS_AT + sizeof keys, sizeof values);
    unsigned kind = keys[KEYS_KIND_AT];
    if (values != NULL || kind > 1) return 0;
    Py_ssize_t n;
    memcpy(&n, keys + KEYS_NENTRIES_AT, sizeof n);
    memcpy(used, p + DICT_USED_AT, sizeof *used);
    e->stride = kind ? 2 * sizeof(PyObject *) : 3 * sizeof(PyObject *);
    /* the first entry's key: past the index, and past the hash of kind 0's entries */
    e->at = keys + KEYS_INDEX_AT + ((size_t)1 << keys[KEYS_LOG2_INDEX_BYTES_AT]) + (kind ? 0 : sizeof(PyObject *));
    e->end = e->at + (size_t)n * e->stride;
    return 1;
}

/* The next member (key and value, borrowed) of e, skipping deleted ones; 0 past the last. */
FJCS_INLINE int dict_next_of_layout(dict_entries *e, PyObject **key, PyObject **value) {
    for (; e->at < e->end; e->at += e->stride) {
        memcpy(value, e->at + sizeof(PyObject *), sizeof *value);
        if (*value != NULL) {
            memcpy(key, e->at, sizeof *key);
            e->at += e->stride;
            return 1;
        }
    }
    return 0;
}

/* Probe the layout, once per process (before the first walk). */
void fjcs__dict_probe_once(void);

/* The test hook: whether dicts' members are read from the object; flag 1 or 0 sets it (-1: only
 * asks). The previous setting, or -1 when flag is 1 and the probe found no layout. */
int walk_dict_layout(int flag);
PyObject *direct_dict_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
#define FJCS_DOC_DICT_LAYOUT                                                                        \
    "dict_layout([flag]) -> bool: whether the walker reads dicts' members from the objects' layout " \
    "(checked once against the API on sample dicts) rather than through PyDict_Next; with flag, "   \
    "sets it and returns the previous setting (for tests: both readings give the same text)."

#endif
