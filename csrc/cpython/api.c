/*
 * cpython/api.c: the public functions' fast path of the direct entry (cpython/direct.c is the
 * module, with the backend's functions).
 */
#include "direct.h"

/*
 * fastjcs.dumps(obj) and fastjcs.canonicalize(data), the calls most programs make, cost a Python
 * frame of the API's (argument checks, the chosen backend) and one of the backend's before the walk:
 * more than the walk itself on an EAB-size object. So where the native backend is chosen, the
 * public functions (those two, dump, format_double, digest, digest_text, digest_many) are these,
 * with the Python functions' signatures: a call with valid arguments (the flags True or False,
 * max_depth an int >= 0, default None or a callable; for canonicalize a text of bytes up to the
 * held-text limit) is served here, default= included (the walker calls it: one crossing). Any
 * other call, and every call while the Python backend is in use (serve_public, which
 * fastjcs.core.backends.use sets), is handed unchanged to the Python function of the same name
 * (fastjcs.core.api's, digests'), which converts, raises the TypeError or ValueError of a wrong
 * argument, or takes the route a large text needs. The route is decided here, from the module's
 * own state and the arguments; no Python state is read to decide it.
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

/* The Python functions calls are handed to, by index: the module (loaded by then, since it binds
 * these functions) and the name. */
enum {
    PY_DUMPS, PY_DUMP, PY_CANONICALIZE, PY_FORMAT_DOUBLE, PY_DIGEST, PY_DIGEST_TEXT, PY_DIGEST_MANY,
    PY_REFUSED_TEXT, PY_DIGEST_MANY_REST
};
static const char *const python_fn_names[FJCS_PYTHON_FUNCTIONS][2] = {
    {"fastjcs.core.api", "_python_dumps"},
    {"fastjcs.core.api", "_python_dump"},
    {"fastjcs.core.api", "_python_canonicalize"},
    {"fastjcs.core.api", "_python_format_double"},
    {"fastjcs.core.digests", "_python_digest"},
    {"fastjcs.core.digests", "_python_digest_text"},
    {"fastjcs.core.digests", "_python_digest_many"},
    {"fastjcs.core.native_errors", "refused_text"},
    {"fastjcs.core.native_backend", "digest_many_rest"},
};

/* The Python function `which` (a new reference), imported at its first use and kept in the module's
 * state (an import per call cost more than the call itself: 5,000 instructions). */
static PyObject *python_fn(PyObject *module, int which) {
    state *s = get_state(module);
    if (s->python_fns[which] == NULL) {
        PyObject *where = PyImport_ImportModule(python_fn_names[which][0]);
        if (where == NULL) return NULL;
        PyObject *fn = PyObject_GetAttrString(where, python_fn_names[which][1]);
        Py_DECREF(where);
        if (fn == NULL) return NULL;
        if (s->python_fns[which] == NULL) /* the import may have run a call that set it */
            s->python_fns[which] = fn;
        else
            Py_DECREF(fn);
    }
    Py_INCREF(s->python_fns[which]); /* held through the call, whatever it does to the state */
    return s->python_fns[which];
}

/* The call, handed to the Python function `which`. */
static PyObject *hand_over(PyObject *module, int which, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *fn = python_fn(module, which);
    if (fn == NULL) return NULL;
    PyObject *result = call_with(fn, args, nargs, kwnames);
    Py_DECREF(fn);
    return result;
}

/* serve_public(flag): see the module's methods. */
PyObject *direct_serve_public(PyObject *module, PyObject *flag) {
    state *s = get_state(module);
    int serve = PyObject_IsTrue(flag);
    if (serve < 0) return NULL;
    PyObject *previous = s->handing_over ? Py_False : Py_True;
    s->handing_over = !serve;
    Py_INCREF(previous);
    return previous;
}

/* Whether a call takes the fast path with one positional argument and no keyword. */
static int fast_call(state *s, Py_ssize_t nargs, PyObject *kwnames) {
    return nargs == 1 && (kwnames == NULL || PyTuple_Size(kwnames) == 0) && !s->handing_over;
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

/* The public fastjcs.format_double: an exact finite float is formatted here; any other call (a
 * float subclass, another type, NaN or an infinity, keywords) goes to the Python function, which
 * converts or raises (TypeError, FloatDomainError) exactly as before. */
PyObject *api_format_double(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (fast_call(get_state(module), nargs, kwnames) && PyFloat_CheckExact(args[0])) {
        char buf[FJCS_NUMBER_BUFSIZE];
        size_t n;
        if (fjcs_format_double(PyFloat_AsDouble(args[0]), buf, &n) == FJCS_OK)
            return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
    }
    return hand_over(module, PY_FORMAT_DOUBLE, args, nargs, kwnames);
}

/* The public fastjcs.dumps(obj, *, max_depth, integers_only, default): the walker's own call. */
PyObject *api_dumps(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"max_depth", "integers_only", "default"};
    state *s = get_state(module);
    if (fast_call(s, nargs, kwnames))
        return dumps_result(module, args[0], FJCS_DEFAULT_MAX_DEPTH, NULL, 0, Py_None, NULL);
    PyObject *given[3] = {NULL, NULL, NULL};
    size_t depth = FJCS_DEFAULT_MAX_DEPTH;
    int integers_only = 0;
    if (nargs == 1 && !s->handing_over && keywords_of(kwnames, args + 1, names, 3, given) &&
        (given[0] == NULL || depth_of(given[0], &depth)) && flag_of(given[1], &integers_only) &&
        (given[2] == NULL || given[2] == Py_None || PyCallable_Check(given[2])))
        return dumps_result(module, args[0], depth, NULL, integers_only, given[2] ? given[2] : Py_None, NULL);
    return hand_over(module, PY_DUMPS, args, nargs, kwnames);
}

/* The public fastjcs.dump(obj, fp, *, max_depth, integers_only, default): dumps's call, its bytes
 * given to fp.write whole (looked up first, as the Python function's fp.write(...) looks it up). */
PyObject *api_dump(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"max_depth", "integers_only", "default"};
    state *s = get_state(module);
    PyObject *given[3] = {NULL, NULL, NULL};
    size_t depth = FJCS_DEFAULT_MAX_DEPTH;
    int integers_only = 0;
    if (nargs == 2 && !s->handing_over && keywords_of(kwnames, args + 2, names, 3, given) &&
        (given[0] == NULL || depth_of(given[0], &depth)) && flag_of(given[1], &integers_only) &&
        (given[2] == NULL || given[2] == Py_None || PyCallable_Check(given[2]))) {
        PyObject *write = PyObject_GetAttrString(args[1], "write");
        if (write == NULL) return NULL;
        PyObject *canonical = dumps_result(module, args[0], depth, NULL, integers_only, given[2] ? given[2] : Py_None, NULL);
        PyObject *written = canonical ? PyObject_CallFunctionObjArgs(write, canonical, NULL) : NULL;
        Py_DECREF(write);
        Py_XDECREF(canonical);
        if (written == NULL) return NULL;
        Py_DECREF(written);
        Py_RETURN_NONE;
    }
    return hand_over(module, PY_DUMP, args, nargs, kwnames);
}

/* What text_result answered for the public functions: the canonical bytes or digest, or, for a
 * refused text's record, its exception raised, worded by native_errors (the text is read once). */
static PyObject *text_answer(PyObject *module, PyObject *result, PyObject *data, size_t depth) {
    if (result == NULL || !PyTuple_Check(result)) return result;
    PyObject *refused_text = python_fn(module, PY_REFUSED_TEXT);
    PyObject *exc = refused_text ? PyObject_CallFunction(refused_text, "OOn", result, data, (Py_ssize_t)depth) : NULL;
    Py_XDECREF(refused_text);
    Py_DECREF(result);
    if (exc == NULL) return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
}

/* The public fastjcs.canonicalize(data, *, max_depth, strict_integers, integers_only): the parser's
 * own call, a refused text's error worded from its record by native_errors (the text is read once). */
PyObject *api_canonicalize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"max_depth", "strict_integers", "integers_only"};
    state *s = get_state(module);
    PyObject *given[3] = {NULL, NULL, NULL};
    size_t depth = FJCS_DEFAULT_MAX_DEPTH;
    int strict = 0, integers_only = 0;
    if (nargs == 1 && !s->handing_over && PyBytes_CheckExact(args[0]) &&
        keywords_of(kwnames, args + 1, names, 3, given) && (given[0] == NULL || depth_of(given[0], &depth)) &&
        flag_of(given[1], &strict) && flag_of(given[2], &integers_only)) {
        int flags = (strict ? FJCS_STRICT_INTEGERS : 0) | (integers_only ? FJCS_INTEGERS_ONLY : 0);
        char *text;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0) return NULL;
        PyObject *result = text_result(module, text, len, depth, flags, NULL, args[0]);
        if (result != Py_None) return text_answer(module, result, args[0], depth);
        Py_DECREF(result); /* longer than the held-text limit: the Python function takes cffi's route */
    }
    return hand_over(module, PY_CANONICALIZE, args, nargs, kwnames);
}

/* The public fastjcs.digest(obj, algorithm="sha256", *, max_depth, integers_only, default): with an
 * algorithm register_hasher registered, dumps's call hashed in C; any other call goes to the Python
 * function (which checks the algorithm before the value, as it says). */
PyObject *api_digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"algorithm", "max_depth", "integers_only", "default"};
    state *s = get_state(module);
    PyObject *given[4] = {nargs == 2 ? args[1] : NULL, NULL, NULL, NULL};
    size_t depth = FJCS_DEFAULT_MAX_DEPTH;
    int integers_only = 0;
    const hasher *h;
    if ((nargs == 1 || nargs == 2) && !s->handing_over && keywords_of(kwnames, args + nargs, names, 4, given) &&
        (h = named_hasher(s, given[0])) != NULL && (given[1] == NULL || depth_of(given[1], &depth)) &&
        flag_of(given[2], &integers_only) && (given[3] == NULL || given[3] == Py_None || PyCallable_Check(given[3])))
        return dumps_result(module, args[0], depth, NULL, integers_only, given[3] ? given[3] : Py_None, h);
    return hand_over(module, PY_DIGEST, args, nargs, kwnames);
}

/* The public fastjcs.digest_text(data, algorithm="sha256", *, max_depth, strict_integers,
 * integers_only): a text of bytes up to the held-text limit with a registered algorithm, parsed
 * and hashed in C; any other call goes to the Python function. */
PyObject *api_digest_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"algorithm", "max_depth", "strict_integers", "integers_only"};
    state *s = get_state(module);
    PyObject *given[4] = {nargs == 2 ? args[1] : NULL, NULL, NULL, NULL};
    size_t depth = FJCS_DEFAULT_MAX_DEPTH;
    int strict = 0, integers_only = 0;
    const hasher *h;
    if ((nargs == 1 || nargs == 2) && !s->handing_over && PyBytes_CheckExact(args[0]) &&
        keywords_of(kwnames, args + nargs, names, 4, given) && (h = named_hasher(s, given[0])) != NULL &&
        (given[1] == NULL || depth_of(given[1], &depth)) && flag_of(given[2], &strict) &&
        flag_of(given[3], &integers_only)) {
        int flags = (strict ? FJCS_STRICT_INTEGERS : 0) | (integers_only ? FJCS_INTEGERS_ONLY : 0);
        char *text;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0) return NULL;
        PyObject *result = text_result(module, text, len, depth, flags, h, NULL);
        if (result != Py_None) return text_answer(module, result, args[0], depth);
        Py_DECREF(result); /* longer than the held-text limit: the Python function takes cffi's route */
    }
    return hand_over(module, PY_DIGEST_TEXT, args, nargs, kwnames);
}

/* The public fastjcs.digest_many(objs, algorithm="sha256", *, max_depth, integers_only, default):
 * a list of values with a registered algorithm and no default, each walked and hashed in C; where
 * the walker stops at an item (refused, or one it does not read), the Python side is handed the
 * digests made so far, the item and where its walk stopped (native_backend.digest_many_rest):
 * python_backend.resume finishes that item from there, giving its digest or raising its error with
 * its index, and the rest are digested one by one. Nothing is walked twice. Any other call goes
 * to the Python function. */
PyObject *api_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"algorithm", "max_depth", "integers_only", "default"};
    state *s = get_state(module);
    PyObject *given[4] = {nargs == 2 ? args[1] : NULL, NULL, NULL, NULL};
    size_t depth = FJCS_DEFAULT_MAX_DEPTH;
    int integers_only = 0, rc;
    const hasher *h;
    if ((nargs == 1 || nargs == 2) && !s->handing_over && PyList_CheckExact(args[0]) &&
        keywords_of(kwnames, args + nargs, names, 4, given) && (h = named_hasher(s, given[0])) != NULL &&
        (given[1] == NULL || depth_of(given[1], &depth)) && flag_of(given[2], &integers_only) &&
        (given[3] == NULL || given[3] == Py_None)) {
        PyObject *stop;
        PyObject *results = digest_items(module, args[0], depth, integers_only ? FJCS_INTEGERS_ONLY : 0, h, 1, &rc, &stop);
        if (results == NULL || rc == WK_OK) return results;
        PyObject *rest = python_fn(module, PY_DIGEST_MANY_REST);
        PyObject *algorithm = given[0] ? Py_NewRef(given[0]) : PyUnicode_FromString("sha256");
        PyObject *answer = rest && algorithm ? PyObject_CallFunction(rest, "OOnOOO", results, args[0], (Py_ssize_t)depth,
                                                                     algorithm, integers_only ? Py_True : Py_False, stop)
                                             : NULL;
        Py_XDECREF(rest);
        Py_XDECREF(algorithm);
        Py_DECREF(results);
        Py_DECREF(stop);
        return answer;
    }
    return hand_over(module, PY_DIGEST_MANY, args, nargs, kwnames);
}
