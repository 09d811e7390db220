/*
 * cpython/long_layout.c: which layout CPython's int objects have, probed once on sample ints
 * against the API (cpython/long_layout.h says what is read; walk_int_layout is the test hook).
 */
#include "long_layout.h"

int fjcs__long_probed = LONG_UNPROBED;
int fjcs__long_layout = LONG_UNPROBED;

/* Which layout sample ints have (LONG_API when neither reads them all right). */
static int probe_long_layout(void) {
    static const long long fit[] = {0, 1, -1, 7, 255, 256, -257, (1LL << 30) - 1, 1LL << 30, -(1LL << 30) - 3,
                                    (1LL << 31) + 5, 1234567890123LL, -1234567890123LL, MAX_SAFE_INT,
                                    -MAX_SAFE_INT, (1LL << 60) - 1, -((1LL << 60) - 1)};
    static const long long past[] = {1LL << 60, -(1LL << 60), (1LL << 62) + 1, LLONG_MIN};
    for (int layout = LONG_SIZE; layout <= LONG_TAG; layout++) {
        int ok = 1;
        for (size_t i = 0; ok && i < sizeof fit / sizeof *fit + sizeof past / sizeof *past; i++) {
            int fits = i < sizeof fit / sizeof *fit;
            long long want = fits ? fit[i] : past[i - sizeof fit / sizeof *fit], got = 0;
            PyObject *v = PyLong_FromLongLong(want);
            if (v == NULL) {
                PyErr_Clear();
                return LONG_API;
            }
            int read = long_of_layout(layout, v, &got);
            ok = fits ? read && got == want : !read;
            Py_DECREF(v);
        }
        if (ok) return layout;
    }
    return LONG_API;
}

void fjcs__long_probe_once(void) {
    if (FJCS_UNLIKELY(fjcs__long_probed == LONG_UNPROBED)) fjcs__long_probed = fjcs__long_layout = probe_long_layout();
}

int walk_int_layout(int flag) {
    fjcs__long_probe_once();
    int previous = fjcs__long_layout >= LONG_SIZE;
    if (flag == 1 && fjcs__long_probed < LONG_SIZE) return -1;
    if (flag >= 0) fjcs__long_layout = flag ? fjcs__long_probed : LONG_API;
    return previous;
}

/* int_layout([flag]), the direct module's test hook (see its methods in direct.c). */
PyObject *direct_int_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    return layout_switch(args, nargs, "int_layout", walk_int_layout, "ints are not laid out as cpython/walker.c reads them");
}
