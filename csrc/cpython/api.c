/*
 * cpython/api.c: the public functions' fast path of the direct entry (cpython/direct.c is the
 * module, with the backend's functions).
 */
#include "direct.h"

/*
 * fastjcs.dumps(obj) and fastjcs.canonicalize(data), the calls most programs make, cost a Python
 * frame of the API's (argument checks, the chosen backend) and one of the backend's before the walk:
 * more than the walk itself on an EAB-size object. bind_api makes api_dumps and api_canonicalize
 * the public functions: with one positional argument and no other, while the chosen backend is the
 * native one (fastjcs.core.backends._impl, read on every call, so a test or a program that swaps the
 * backend still gets the one it chose), they do what the Python functions would do, in C;
 * any other call is handed to the Python function, unchanged.
 */

/* fn(*args, **kwnames), from a vectorcall's arguments (PyObject_Vectorcall is not in the limited
 * API of 3.10). */
static PyObject *call_with(PyObject *fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *tuple = PyTuple_New(nargs), *kw = NULL, *result = NULL;
    if (tuple == NULL) return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SetItem(tuple, i, args[i]);
    }
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    if (nkw > 0) {
        kw = PyDict_New();
        if (kw == NULL) goto done;
        for (Py_ssize_t k = 0; k < nkw; k++)
            if (PyDict_SetItem(kw, PyTuple_GetItem(kwnames, k), args[nargs + k]) < 0) goto done;
    }
    result = PyObject_Call(fn, tuple, kw);
done:
    Py_DECREF(tuple);
    Py_XDECREF(kw);
    return result;
}

/* Whether the public functions' fast path serves: bound, the native backend in use. */
static int native_in_use(state *s) {
    if (s->backends_dict == NULL) return 0;
    return PyDict_GetItemWithError(s->backends_dict, s->impl_key) == s->native; /* (NULL, no error: absent) */
}

/* Whether a call takes the fast path with one positional argument and no keyword. */
static int fast_call(state *s, Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs != 1 || (kwnames != NULL && PyTuple_Size(kwnames) != 0)) return 0;
    return native_in_use(s);
}

/* max_depth as api.check_depth takes it (an exact int >= 0, one above sys.maxsize taken as
 * sys.maxsize) into *depth; 0, nothing raised, for any other value (the Python function raises). */
static int depth_of(PyObject *v, size_t *depth) {
    if (!PyLong_CheckExact(v)) return 0;
    int overflow;
    long long d = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow > 0 || (overflow == 0 && (unsigned long long)d > (unsigned long long)PY_SSIZE_T_MAX && d >= 0)) {
        *depth = (size_t)PY_SSIZE_T_MAX;
        return 1;
    }
    if (overflow < 0 || d < 0) return 0;
    *depth = (size_t)d;
    return 1;
}

/* A flag given as True or False (absent: NULL, false) into *flag; 0 for any other value, whose
 * truth the Python function asks (it may run Python code, which must run once). */
static int flag_of(PyObject *v, int *flag) {
    if (v != NULL && v != Py_True && v != Py_False) return 0;
    *flag = v == Py_True;
    return 1;
}

/* The public fastjcs.format_double: an exact finite float with the native backend in use is
 * formatted here; any other call (a float subclass, another type, NaN or an infinity, the Python
 * backend in use, keywords) goes to fastjcs.core.api's Python function, which converts or raises
 * (TypeError, FloatDomainError) exactly as before. */
PyObject *api_format_double(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    state *s = get_state(module);
    if (fast_call(s, nargs, kwnames) && PyFloat_CheckExact(args[0])) {
        char buf[FJCS_NUMBER_BUFSIZE];
        size_t n;
        if (fjcs_format_double(PyFloat_AsDouble(args[0]), buf, &n) == FJCS_OK)
            return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
    } else if (PyErr_Occurred()) {
        return NULL;
    }
    PyObject *api = PyImport_ImportModule("fastjcs.core.api");
    if (api == NULL) return NULL;
    PyObject *fn = PyObject_GetAttrString(api, "_python_format_double");
    Py_DECREF(api);
    if (fn == NULL) return NULL;
    PyObject *result = call_with(fn, args, nargs, kwnames);
    Py_DECREF(fn);
    return result;
}

/* The public fastjcs.dumps(obj, *, max_depth, integers_only, default): with the native backend in
 * use and valid arguments (integers_only True or False), the walker's own call, default= included
 * (one crossing: the walker calls default itself); any other call goes to the Python function,
 * which raises the TypeError or ValueError of a wrong argument exactly as before. */
PyObject *api_dumps(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"max_depth", "integers_only", "default"};
    state *s = get_state(module);
    if (fast_call(s, nargs, kwnames)) return dumps_result(module, args[0], s->default_depth, NULL, 0, Py_None, NULL);
    if (PyErr_Occurred()) return NULL;
    PyObject *given[3] = {NULL, NULL, NULL};
    size_t depth = s->default_depth;
    int integers_only = 0;
    if (nargs == 1 && keywords_of(kwnames, args + 1, names, 3, given) && (given[0] == NULL || depth_of(given[0], &depth)) &&
        flag_of(given[1], &integers_only) &&
        (given[2] == NULL || given[2] == Py_None || PyCallable_Check(given[2]))) {
        if (native_in_use(s))
            return dumps_result(module, args[0], depth, NULL, integers_only, given[2] ? given[2] : Py_None, NULL);
        if (PyErr_Occurred()) return NULL;
    }
    return call_with(s->dumps_py, args, nargs, kwnames);
}

/* The public fastjcs.canonicalize(data, *, max_depth, strict_integers, integers_only): with the
 * native backend in use, a text of bytes up to its DIRECT_TEXT and valid arguments (the flags True
 * or False), the parser's own call, a refused text's error worded from its record by native_backend;
 * any other call goes to the Python function (which raises for a wrong argument). */
PyObject *api_canonicalize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"max_depth", "strict_integers", "integers_only"};
    state *s = get_state(module);
    PyObject *given[3] = {NULL, NULL, NULL};
    size_t depth = s->default_depth;
    int strict = 0, integers_only = 0;
    if (nargs == 1 && PyBytes_CheckExact(args[0]) && keywords_of(kwnames, args + 1, names, 3, given) &&
        (given[0] == NULL || depth_of(given[0], &depth)) && flag_of(given[1], &strict) &&
        flag_of(given[2], &integers_only) && native_in_use(s)) {
        PyObject *limit = PyDict_GetItemWithError(s->native_dict, s->threshold_key);
        if (limit == NULL) return PyErr_Occurred() ? NULL : call_with(s->canonicalize_py, args, nargs, kwnames);
        size_t threshold = PyLong_AsSize_t(limit);
        if (threshold == (size_t)-1 && PyErr_Occurred()) PyErr_Clear(); /* a negative limit: none */
        char *text;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0) return NULL;
        if ((size_t)len <= threshold && threshold != (size_t)-1) {
            int flags = (strict ? FJCS_STRICT_INTEGERS : 0) | (integers_only ? FJCS_INTEGERS_ONLY : 0);
            PyObject *result = text_result(module, text, len, depth, flags, NULL);
            if (result == NULL || !PyTuple_Check(result)) return result;
            /* refused: native_backend words the error from its record (the text is read once) */
            PyObject *exc = PyObject_CallMethod(s->native, "_refused_text", "OOn", result, args[0], (Py_ssize_t)depth);
            Py_DECREF(result);
            if (exc == NULL) return NULL;
            PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
            Py_DECREF(exc);
            return NULL;
        }
    } else if (PyErr_Occurred()) {
        return NULL;
    }
    return call_with(s->canonicalize_py, args, nargs, kwnames);
}

/* bind_api(backends, native_backend, dumps, canonicalize, default_depth): see above. */
PyObject *direct_bind_api(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "bind_api takes 5 arguments");
    state *s = get_state(module);
    size_t depth;
    if (!size_arg(args[4], &depth)) return NULL;
    PyObject *backends_dict = PyModule_GetDict(args[0]), *native_dict = PyModule_GetDict(args[1]);
    if (backends_dict == NULL || native_dict == NULL) return NULL;
    PyObject *impl_key = PyUnicode_InternFromString("_impl");
    PyObject *threshold_key = PyUnicode_InternFromString("DIRECT_TEXT");
    if (impl_key == NULL || threshold_key == NULL) {
        Py_XDECREF(impl_key);
        Py_XDECREF(threshold_key);
        return NULL;
    }
    state_clear_api(s);
    Py_INCREF(backends_dict);
    Py_INCREF(args[1]);
    Py_INCREF(native_dict);
    Py_INCREF(args[2]);
    Py_INCREF(args[3]);
    s->backends_dict = backends_dict;
    s->native = args[1];
    s->native_dict = native_dict;
    s->dumps_py = args[2];
    s->canonicalize_py = args[3];
    s->impl_key = impl_key;
    s->threshold_key = threshold_key;
    s->default_depth = depth;
    Py_RETURN_NONE;
}
