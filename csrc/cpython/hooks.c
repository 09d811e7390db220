/*
 * cpython/hooks.c: the direct module's switches for tests and benchmarks (cpython/direct.c's
 * methods document them; the first two's docstrings are here): datetime_layout([flag]),
 * decimal_layout() and held_text_limit([n]). The walker's other
 * readings have theirs beside their probes (long_layout.c, str_layout.c, list_layout.c,
 * dict_layout.c), each over layout_switch.
 */
#include "direct.h"

const char direct_datetime_layout_doc[] =
    "datetime_layout([flag]) -> bool: whether the walker reads datetime, date and time objects' fields "
    "from their layout (checked against their attributes when the types are registered) rather than "
    "as attributes, and Decimals (checked against their str()) rather than by str(); with flag, sets "
    "it and returns the previous setting (for tests: both readings give the same text).";

const char direct_decimal_layout_doc[] =
    "decimal_layout() -> bool: whether Decimals are read from their layout when datetime_layout() "
    "is on: sample Decimals read so gave their str() when the types were registered (False before "
    "then, and where the probe failed: str() is asked).";

/* datetime_layout([flag]): see methods. */
PyObject *direct_datetime_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    stdtypes *t = &get_state(module)->own_types;
    int previous = t->layout;
    if (nargs > 1) return PyErr_Format(PyExc_TypeError, "datetime_layout takes at most 1 argument");
    if (nargs == 1) {
        int flag = PyObject_IsTrue(args[0]);
        if (flag < 0) return NULL;
        if (t->held == NULL)
            return PyErr_Format(PyExc_ValueError, "no types are registered yet (fastjcs.stdlib_types registers them)");
        if (flag && !t->layout_ok)
            return PyErr_Format(PyExc_ValueError, "datetime objects are not laid out as cpython/types.c reads them");
        t->layout = flag;
    }
    return PyBool_FromLong(previous);
}

/* decimal_layout(): see methods. */
PyObject *direct_decimal_layout(PyObject *module, PyObject *unused) {
    (void)unused;
    const stdtypes *t = &get_state(module)->own_types;
    return PyBool_FromLong(t->held != NULL && t->decimal_ok);
}

/* held_text_limit([n]): see methods. */
PyObject *direct_held_text_limit(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    state *s = get_state(module);
    size_t previous = s->held_text, limit;
    if (nargs > 1) return PyErr_Format(PyExc_TypeError, "held_text_limit takes at most 1 argument");
    if (nargs == 1) {
        if (!size_arg(args[0], &limit)) return NULL;
        s->held_text = limit;
    }
    return PyLong_FromSize_t(previous);
}

PyObject *layout_switch(PyObject *const *args, Py_ssize_t nargs, const char *name, int (*reading)(int),
                        const char *refused) {
    if (nargs > 1) return PyErr_Format(PyExc_TypeError, "%s takes at most 1 argument", name);
    int flag = -1;
    if (nargs == 1 && (flag = PyObject_IsTrue(args[0])) < 0) return NULL;
    int previous = reading(flag);
    if (previous < 0) return PyErr_Format(PyExc_ValueError, "%s", refused);
    return PyBool_FromLong(previous);
}
