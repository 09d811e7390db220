/*
 * cpython/list_layout.c: where CPython's lists and tuples hold their items (and floats their
 * double), probed once on sample lists, tuples and floats against the API (cpython/list_layout.h
 * says what is read; walk_list_layout is the test hook).
 */
#include "list_layout.h"

int fjcs__list_probed = -1;
int fjcs__list_layout = 0;
size_t fjcs__tuple_items_at = sizeof(PyVarObject);

/* Whether every item of sample lists and tuples of 0 to 5 items reads as the API gives it, with
 * the offsets set; -1 when a sample cannot be made. */
static int reads_as_api(void) {
    for (Py_ssize_t n = 0; n <= 5; n++) {
        PyObject *list = PyList_New(0), *tuple = PyTuple_New(n);
        int ok = list != NULL && tuple != NULL ? 1 : -1;
        for (Py_ssize_t i = 0; ok > 0 && i < n; i++) {
            PyObject *item = PyLong_FromSsize_t(1000 + i);
            if (item == NULL || PyList_Append(list, item) < 0) ok = -1;
            else PyTuple_SetItem(tuple, i, Py_NewRef(item)); /* (steals the new reference) */
            Py_XDECREF(item);
        }
        for (Py_ssize_t i = 0; ok > 0 && i < n; i++)
            ok = list_item_of_layout(list, i) == PyList_GetItem(list, i) &&
                 tuple_item_of_layout(tuple, i) == PyTuple_GetItem(tuple, i);
        Py_XDECREF(list);
        Py_XDECREF(tuple);
        if (ok <= 0) return ok;
    }
    return 1;
}

/* Whether sample floats' doubles read from the object as the API gives them, bit for bit (a
 * sign, a subnormal, an infinity, a NaN's payload: a value read from the wrong word would differ);
 * -1 when a sample cannot be made. */
static int floats_read_as_api(void) {
    static const uint64_t samples[] = {0, UINT64_C(0x8000000000000000), 1, UINT64_C(0x3FF0000000000000),
                                       UINT64_C(0xC09DB8A3D70A3D71), UINT64_C(0x7FEFFFFFFFFFFFFF),
                                       UINT64_C(0x7FF0000000000000), UINT64_C(0x7FF8000000000123)};
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        double d;
        memcpy(&d, &samples[i], sizeof d);
        PyObject *v = PyFloat_FromDouble(d);
        if (v == NULL) return -1;
        int ok = float_bits_of_layout(v) == samples[i] && float_bits_of_api(v) == samples[i];
        Py_DECREF(v);
        if (!ok) return 0;
    }
    return 1;
}

/* 1 with the offsets set when a candidate reads all samples as the API does (and floats read so
 * too); else 0. */
static int probe_list_layout(void) {
    int floats = floats_read_as_api();
    if (floats <= 0) {
        if (floats < 0) PyErr_Clear();
        return 0;
    }
    const size_t head = sizeof(PyVarObject), tuple_at[] = {head, head + sizeof(Py_hash_t)};
    for (size_t k = 0; k < sizeof tuple_at / sizeof *tuple_at; k++) {
        fjcs__tuple_items_at = tuple_at[k];
        int read = reads_as_api();
        if (read < 0) {
            PyErr_Clear();
            return 0;
        }
        if (read) return 1;
    }
    return 0;
}

void fjcs__list_probe_once(void) {
    if (FJCS_UNLIKELY(fjcs__list_probed < 0)) fjcs__list_probed = fjcs__list_layout = probe_list_layout();
}

int walk_list_layout(int flag) {
    fjcs__list_probe_once();
    int previous = fjcs__list_layout;
    if (flag == 1 && !fjcs__list_probed) return -1;
    if (flag >= 0) fjcs__list_layout = flag ? fjcs__list_probed : 0;
    return previous;
}

/* list_layout([flag]), the direct module's test hook (see its methods in direct.c). */
PyObject *direct_list_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    return layout_switch(args, nargs, "list_layout", walk_list_layout, "lists are not laid out as cpython/list_layout.c reads them");
}
