/*
 * cpython/list_layout.h: a list's or tuple's items read from the object, for the walker's loop
 * over them (cpython/list_layout.c probes the layout once).
 */
#ifndef FJCS_CPYTHON_LIST_LAYOUT_H
#define FJCS_CPYTHON_LIST_LAYOUT_H

#include "walker.h"

/*
 * PyList_GetItem and PyTuple_GetItem, calls with their checks, cost as much as the rest of
 * writing a small int. The layouts are not part of the limited API: a list is PyVarObject (its
 * length in ob_size) followed by a pointer to its array of items (ob_item), a tuple PyVarObject
 * followed by its items themselves (on 3.10 to 3.13; 3.14 puts a cached hash in between). Where
 * they are is checked once, on sample lists and tuples against the API, item for item
 * (probe_list_layout); where no candidate holds (another CPython), every item goes through the
 * API. The walker reads the item at an index below the length it has just read, and reads the
 * list's array again at each item (as it reads the length: Python code may change the list).
 *
 * The same probe and the same switch cover an exact float's value, which PyFloat_AsDouble (a call,
 * its type checks) reads for the walker at a fifth of the cost of writing the double: a float is
 * a PyObject head followed by its double (ob_fval) on every CPython the limited API serves, checked
 * on sample floats, bit for bit, against the API.
 */
extern int fjcs__list_probed;      /* 1: the probe found both offsets; 0: none; -1: not probed yet */
extern int fjcs__list_layout;      /* what the walker reads by: fjcs__list_probed, or 0 (the API) */
extern size_t fjcs__tuple_items_at; /* a tuple's first item, this many bytes in */

/* Item i (below its length) of list obj, read from the object (its ob_item pointer right after
 * its PyVarObject head). */
FJCS_INLINE PyObject *list_item_of_layout(PyObject *obj, Py_ssize_t i) {
    PyObject **items;
    memcpy(&items, (const unsigned char *)obj + sizeof(PyVarObject), sizeof items);
    return items[i];
}

/* Item i (below its length) of tuple obj, read from the object. */
FJCS_INLINE PyObject *tuple_item_of_layout(PyObject *obj, Py_ssize_t i) {
    PyObject *item;
    memcpy(&item, (const unsigned char *)obj + fjcs__tuple_items_at + (size_t)i * sizeof item, sizeof item);
    return item;
}

/* The bits of exact float v's double, read from the object (right after its PyObject head). */
FJCS_INLINE uint64_t float_bits_of_layout(PyObject *v) {
    uint64_t bits;
    memcpy(&bits, (const unsigned char *)v + sizeof(PyObject), sizeof bits);
    return bits;
}

/* The bits of exact float v's double, through the API. */
FJCS_INLINE uint64_t float_bits_of_api(PyObject *v) {
    double d = PyFloat_AsDouble(v); /* (cannot fail: v is an exact float) */
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

/* The bits of exact float v's double, read as fjcs__list_layout says. */
FJCS_INLINE uint64_t float_bits_of(PyObject *v) {
    return FJCS_LIKELY(fjcs__list_layout) ? float_bits_of_layout(v) : float_bits_of_api(v);
}

/* Probe the layout, once per process (before the first walk). */
void fjcs__list_probe_once(void);

/* The test hook: whether items are read from the object; flag 1 or 0 sets it (-1: only asks).
 * The previous setting, or -1 when flag is 1 and the probe found no layout. */
int walk_list_layout(int flag);
PyObject *direct_list_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
#define FJCS_DOC_LIST_LAYOUT                                                                        \
    "list_layout([flag]) -> bool: whether the walker reads lists' and tuples' items and floats' "  \
    "values from the objects' layout (checked once against the API on sample lists, tuples and "  \
    "floats) rather than through the API; with flag, sets it and returns the previous setting "   \
    "(for tests: both readings give the same text)."

#endif
