/*
 * cpython/dict_layout.c: where CPython's dicts hold their members, probed once on sample dicts
 * against the API (cpython/dict_layout.h says what is read; walk_dict_layout is the test hook).
 */
#include "dict_layout.h"

int fjcs__dict_probed = -1;
int fjcs__dict_layout = 0;

/* 1 when d's members read from the object are PyDict_Next's, in its order, and as many as
 * PyDict_Size says; 0 when not; -1 when d's table is split (the sample is not one to judge by). */
static int dict_reads_as_api(PyObject *d) {
    dict_entries e;
    Py_ssize_t used, pos = 0, count = 0;
    /* ma_used first: a layout that does not even hold there is not followed into the keys */
    memcpy(&used, (const unsigned char *)d + DICT_USED_AT, sizeof used);
    if (used != PyDict_Size(d)) return 0;
    if (!dict_entries_of_layout(d, &e, &used)) return -1;
    PyObject *key, *value, *k, *v;
    while (PyDict_Next(d, &pos, &key, &value)) {
        if (!dict_next_of_layout(&e, &k, &v) || k != key || v != value) return 0;
        count++;
    }
    return count == used && !dict_next_of_layout(&e, &k, &v);
}

/* Sample dicts, each checked: str keys (kind 1) and any keys (kind 0: an int key put in, then
 * taken out, leaves a dict of str keys of that kind), members deleted (holes among the entries:
 * the first, one in the middle, the last), sizes whose index has 1 and 2 bytes, the empty dict;
 * -1 when a sample cannot be made. A member's value is its key (what is compared is identity). */
static int samples_read_as_api(void) {
    enum { MOST = 203 };
    static const Py_ssize_t sizes[] = {0, 3, 4, 12, MOST}; /* (0: the shared empty keys; 3: all deleted) */
    PyObject *keys = PyList_New(0);
    int ok = keys != NULL ? 1 : -1;
    for (Py_ssize_t i = 0; ok > 0 && i < MOST; i++) {
        PyObject *key = PyUnicode_FromFormat("m%zd", i);
        if (key == NULL || PyList_Append(keys, key) < 0) ok = -1;
        Py_XDECREF(key);
    }
    for (int general = 0; ok > 0 && general < 2; general++) {
        for (size_t s = 0; ok > 0 && s < sizeof sizes / sizeof *sizes; s++) {
            Py_ssize_t n = sizes[s], gone[] = {0, n / 2, n - 1};
            PyObject *d = PyDict_New(), *one = PyLong_FromLong(1);
            if (d == NULL || one == NULL) ok = -1;
            if (ok > 0 && general && (PyDict_SetItem(d, one, one) < 0 || PyDict_DelItem(d, one) < 0)) ok = -1;
            for (Py_ssize_t i = 0; ok > 0 && i < n; i++) {
                PyObject *key = PyList_GetItem(keys, i);
                if (PyDict_SetItem(d, key, key) < 0) ok = -1;
            }
            for (size_t g = 0; ok > 0 && n > 0 && g < 3; g++) {
                PyObject *key = PyList_GetItem(keys, gone[g]);
                if (PyDict_Contains(d, key) == 1 && PyDict_DelItem(d, key) < 0) ok = -1;
            }
            if (ok > 0) ok = dict_reads_as_api(d) == 1;
            Py_XDECREF(d);
            Py_XDECREF(one);
        }
    }
    Py_XDECREF(keys);
    return ok;
}

/* 1 when the layout holds on every sample of a CPython 3.11 to 3.14 (and PyObject is as large as
 * the layout says); else 0. */
static int probe_dict_layout(void) {
    int minor = fjcs__python_minor(); /* (3.10's keys object is laid out otherwise: not read at all) */
    if (minor < 11 || minor > 14) return 0;
    if (sizeof(PyObject) != 2 * sizeof(void *) || sizeof(Py_ssize_t) != sizeof(void *)) return 0;
    int ok = samples_read_as_api();
    if (ok < 0) PyErr_Clear();
    return ok > 0;
}

void fjcs__dict_probe_once(void) {
    if (FJCS_UNLIKELY(fjcs__dict_probed < 0)) fjcs__dict_probed = fjcs__dict_layout = probe_dict_layout();
}

int walk_dict_layout(int flag) {
    fjcs__dict_probe_once();
    int previous = fjcs__dict_layout;
    if (flag == 1 && !fjcs__dict_probed) return -1;
    if (flag >= 0) fjcs__dict_layout = flag ? fjcs__dict_probed : 0;
    return previous;
}

/* dict_layout([flag]), the direct module's test hook (see its methods in direct.c). */
PyObject *direct_dict_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    return layout_switch(args, nargs, "dict_layout", walk_dict_layout, "dicts are not laid out as cpython/dict_layout.c reads them");
}
