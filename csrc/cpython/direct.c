/*
 * cpython/direct.c: fastjcs._direct, the C core reached through CPython's own C API (issue 22).
 *
 * The cffi extension (fastjcs._native_ext) releases the GIL on every call and must take it back
 * after; when another thread holds it, the caller waits up to the switch interval (5 ms), which
 * is a thousand times a small call. This module is a plain CPython extension (limited API 3.10,
 * one abi3 build) linking the same C core, whose functions hold the GIL for the whole call: the
 * entry for small work on CPython. It also reads Python values directly, instead of through
 * marshal.dumps as the cffi route must.
 *
 * The walker (cpython/walker.c) reads dict, list, tuple, str, int, float, bool and None; this file
 * is the module around it: its state, the arguments, hashing and the results.
 *
 * Buffers (output, member order, stacks, the text parser) live in the module's state: one set per
 * interpreter, used only with that interpreter's GIL held, trimmed after a call that grew them
 * past FJCS_KEEP. A call made while another runs in the same interpreter (fastjcs.dumps from a
 * finalizer, a signal handler or a hook that ran during a walk) has a fresh state of its own,
 * freed when it ends (enter, leave).
 */
#include "direct.h"
#include "dict_layout.h"
#include "list_layout.h"

static void state_clear(state *s) {
    Py_CLEAR(s->resume);
    for (int i = 0; i < s->nhashers; i++) {
        Py_CLEAR(s->hashers[i].name);
        Py_CLEAR(s->hashers[i].prefix);
    }
    s->nhashers = 0;
    for (int i = 0; i < FJCS_PYTHON_FUNCTIONS; i++) Py_CLEAR(s->python_fns[i]);
    Py_CLEAR(s->class_name);
    types_clear(&s->own_types);
    fjcs_buf_free(&s->out);
    if (s->text_ready) fjcs__text_free(&s->text);
    s->text_ready = 0;
    free(s->frames);
    free(s->pairs);
    free(s->pairs_tmp);
    free(s->set);
    s->frames = NULL;
    s->pairs = s->pairs_tmp = NULL;
    s->set = NULL;
    s->frames_cap = s->pairs_cap = s->pairs_tmp_cap = s->set_cap = s->set_len = s->npairs = 0;
}

/* After a call: give back what grew past what is kept between calls. */
static void state_trim(state *s) {
    s->out_hint = s->out.cap <= FJCS_KEEP ? 0 : s->out.len < FJCS_HINT_MAX ? s->out.len : FJCS_HINT_MAX; /* out_ready */
    if (s->out.cap > FJCS_KEEP) fjcs_buf_free(&s->out);
    if (s->frames_cap * sizeof(wframe) > FJCS_KEEP) {
        free(s->frames);
        s->frames = NULL;
        s->frames_cap = 0;
    }
    if (s->pairs_cap * sizeof(wpair) > FJCS_KEEP) {
        free(s->pairs);
        s->pairs = NULL;
        s->pairs_cap = 0;
    }
    if (s->pairs_tmp_cap * sizeof(wpair) > FJCS_KEEP) {
        free(s->pairs_tmp);
        s->pairs_tmp = NULL;
        s->pairs_tmp_cap = 0;
    }
    if (s->set_cap * sizeof(PyObject *) > FJCS_KEEP) {
        free(s->set);
        s->set = NULL;
        s->set_cap = s->set_len = 0;
    }
    if (s->text_ready) {
        fjcs__text *t = &s->text;
        if (t->arena.cap > FJCS_KEEP || t->order.scratch.cap > FJCS_KEEP ||
            t->frames_cap * sizeof *t->frames > FJCS_KEEP ||
            t->members_cap * sizeof *t->members > FJCS_KEEP ||
            t->order.spans_cap * sizeof *t->order.spans > FJCS_KEEP ||
            t->order.recs_cap * sizeof *t->order.recs > FJCS_KEEP) {
            fjcs__text_free(t);
            s->text_ready = 0;
        }
    }
}

/* ---- Arguments and results ------------------------------------------------------------------- */

/* The output buffer emptied for a call, as large as the last output when that one outgrew what
 * is kept (state_trim): one allocation, not doubling reallocations that copy (failure: the walk's). */
static void out_ready(state *s) {
    s->out.len = 0;
    if (s->out_hint > s->out.cap) (void)fjcs__buf_reserve(&s->out, s->out_hint);
}

/* The buffers for one call: the module state's; or, for a call made while another is running
 * in this interpreter (from a finalizer the walk ran, a signal handler, a hook), a state of its
 * own, empty, freed when the call ends (NULL, MemoryError set, when it cannot be had). */
static state *enter(PyObject *module) {
    state *s = get_state(module);
    if (s->busy) {
        s = (state *)calloc(1, sizeof *s);
        if (s == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        s->heap = 1;
        s->class_name = Py_NewRef(get_state(module)->class_name);
        s->types = get_state(module)->types; /* the module's, alive for the call */
    }
    s->busy = 1;
    return s;
}

static void leave(state *s) {
    if (s->heap) {
        state_clear(s);
        free(s);
        return;
    }
    state_trim(s);
    s->busy = 0;
}

/* The longest prefix rendered (a digest's rendering is built on the stack). */
#define PREFIX_MAX 256

static int hasher_arg(PyObject *const *args, hasher *h) {
    void *p = PyLong_AsVoidPtr(args[0]);
    if (p == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "no hash function");
        return 0;
    }
    h->fn = (fjcs_hash_fn)(uintptr_t)p;
    if (!size_arg(args[1], &h->size)) return 0;
    if (h->size > FJCS_MAX_DIGEST) {
        PyErr_SetString(PyExc_ValueError, "digest size too large");
        return 0;
    }
    h->prefix = NULL;
    if (args[2] != Py_None) {
        char *prefix;
        /* no length pointer: a prefix with a NUL byte raises ValueError (fjcs_hasher's prefix is
         * NUL-terminated) */
        if (PyBytes_AsStringAndSize(args[2], &prefix, NULL) < 0) return 0;
        if (strlen(prefix) > PREFIX_MAX) {
            PyErr_SetString(PyExc_ValueError, "prefix too long");
            return 0;
        }
        h->prefix = prefix;
    }
    return 1;
}

/* The digest of data[0..len) into digest; 0 (RuntimeError set) when the hash function failed. */
static int hash_arg(const hasher *h, const char *data, size_t len, uint8_t *digest) {
    if (fjcs__hash(h, data, len, digest) != FJCS_OK) {
        PyErr_SetString(PyExc_RuntimeError, "the hash function failed");
        return 0;
    }
    return 1;
}

/* prefix + lowercase hex of the digest of data[0..len), as a str; NULL (RuntimeError or
 * MemoryError set) on failure. */
static PyObject *hex_digest(const hasher *h, const char *data, size_t len) {
    uint8_t digest[FJCS_MAX_DIGEST];
    char text[PREFIX_MAX + 2 * FJCS_MAX_DIGEST];
    if (!hash_arg(h, data, len, digest)) return NULL;
    char *end = fjcs__render_digest(h, digest, text);
    return PyUnicode_FromStringAndSize(text, end - text);
}

/* The module's text parser, ready for max_depth and flags. */
static fjcs__text *text_parser(state *s, size_t max_depth, int flags) {
    if (!s->text_ready) {
        fjcs__text_init(&s->text, max_depth, flags);
        s->text_ready = 1;
    }
    fjcs__text_set_limits(&s->text, max_depth, flags);
    return &s->text;
}

/* RFC 8259's whitespace: space, tab, line feed, carriage return. */
static int json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Canonicalize text[0..len) in the module's parser: its canonical bytes (h NULL) or prefix + hex
 * digest (h); when the text is refused, its error record as (code, expected, offset), which
 * native_errors words (the text is parsed once); NULL with an exception set. A text that is its
 * own canonical form (canonical.c's one pass, exact when it says so), but for whitespace around it,
 * is not parsed: hashed as it lies, or answered as itself (source, when the caller has the text as
 * an exact bytes object and there was no whitespace to drop). */
PyObject *text_result(PyObject *module, const char *text, Py_ssize_t len, size_t max_depth, int flags,
                      const hasher *h, PyObject *source) {
    if ((size_t)len > get_state(module)->held_text) Py_RETURN_NONE;
    /* JSON's whitespace around the value (a file's last newline) is not part of the canonical form:
     * what it surrounds may be */
    const char *start = text, *end = text + len;
    while (start < end && json_space(*start)) start++;
    while (end > start && json_space(end[-1])) end--;
    if (fjcs__text_is_canonical(start, (size_t)(end - start), max_depth, (fjcs_flags)flags)) {
        if (h) return hex_digest(h, start, (size_t)(end - start));
        if (source && end - start == len) return Py_NewRef(source);
        return PyBytes_FromStringAndSize(start, end - start);
    }
    state *s = enter(module);
    if (s == NULL) return NULL;
    out_ready(s);
    fjcs_error err;
    memset(&err, 0, sizeof err); /* as cffi's ffi.new gives the other route's */
    int rc = fjcs__text_run(text_parser(s, max_depth, flags), text, (size_t)len, &s->out, &err);
    PyObject *result;
    if (rc == FJCS_OK)
        result = h ? hex_digest(h, s->out.data, s->out.len)
                   : PyBytes_FromStringAndSize(s->out.data, (Py_ssize_t)s->out.len);
    else if (rc == FJCS_E_NOMEM)
        result = PyErr_NoMemory();
    else
        result = Py_BuildValue("(iin)", (int)err.code, (int)err.expected, (Py_ssize_t)err.offset);
    leave(s);
    return result;
}

/* fastjcs.core.python_backend.resume, imported when a walk first stops (by then the package is
 * loaded: this module is imported by it) and kept in the module's state; NULL with an exception
 * set when it cannot be had. */
static PyObject *resume_function(PyObject *module) {
    state *m = get_state(module);
    if (m->resume == NULL) {
        PyObject *python_backend = PyImport_ImportModule("fastjcs.core.python_backend");
        if (python_backend == NULL) return NULL;
        PyObject *resume = PyObject_GetAttrString(python_backend, "resume");
        Py_DECREF(python_backend);
        if (resume == NULL) return NULL;
        if (m->resume == NULL) /* the import may have run a call that set it */
            m->resume = resume;
        else
            Py_DECREF(resume);
    }
    return m->resume;
}

/* The canonical bytes `canonical` (a bytes object, taken) as the result: themselves (h NULL) or
 * prefix + hex of their digest (h). */
static PyObject *bytes_result(PyObject *canonical, const hasher *h) {
    if (canonical == NULL || h == NULL) return canonical;
    char *data;
    Py_ssize_t len;
    PyObject *result = PyBytes_AsStringAndSize(canonical, &data, &len) < 0 ? NULL : hex_digest(h, data, (size_t)len);
    Py_DECREF(canonical);
    return result;
}

/* dumps of obj (h NULL) or its digest (h): the walker's bytes, or, where it stopped (a value it
 * refuses or does not read), python_backend.resume's, which goes on from there, so that nothing
 * is walked twice: default (None: none) is called by the walker for a value of another type, and
 * by resume after. */
PyObject *dumps_result(PyObject *module, PyObject *obj, size_t max_depth, PyObject *max_depth_obj /* or NULL */,
                              int integers_only, PyObject *dflt, const hasher *h) {
    state *s = enter(module);
    if (s == NULL) return NULL;
    if (h)
        out_ready(s);
    else
        bytes_out_begin(s); /* dumps: the output goes into the bytes object returned */
    walk w = walk_init(s, max_depth, integers_only ? FJCS_INTEGERS_ONLY : 0, &s->out);
    w.dflt = dflt == Py_None ? NULL : dflt;
    int rc = walk_run(&w, obj);
    PyObject *result = NULL, *at = NULL;
    if (rc == WK_OK) {
        result = h ? hex_digest(h, s->out.data, s->out.len) : bytes_out_end(s, 1);
    } else {
        if (rc == WK_NOMEM)
            PyErr_NoMemory();
        else if (rc == WK_REFUSE || rc == WK_BAIL)
            at = types_stopped(&w) < 0 ? NULL : walk_stopped_at(&w);
        /* before walk_done, which may run Python code: a half-built bytes object is freed here */
        if (!h) (void)bytes_out_end(s, 0);
    }
    walk_done(&w);
    leave(s);
    if (at == NULL) return result;
    PyObject *resume = resume_function(module);
    PyObject *head = resume == NULL ? NULL
                     : max_depth_obj ? Py_BuildValue("(OOOO)", obj, max_depth_obj, integers_only ? Py_True : Py_False, dflt)
                                     : Py_BuildValue("(OnOO)", obj, (Py_ssize_t)max_depth, integers_only ? Py_True : Py_False, dflt);
    PyObject *args = head ? PySequence_Concat(head, at) : NULL;
    result = args ? PyObject_Call(resume, args, NULL) : NULL;
    Py_XDECREF(head);
    Py_XDECREF(args);
    Py_DECREF(at);
    return bytes_result(result, h);
}

/* The keyword arguments of a call (kwargs[k] named kwnames[k]) matched to names[0..n): values[i]
 * set for each name given, left as it was for the others. 1 when every keyword is one of names
 * and names a value not set already; 0 otherwise. */
int keywords_of(PyObject *kwnames, PyObject *const *kwargs, const char *const *names, int n,
                PyObject **values) {
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GetItem(kwnames, k);
        int i = 0;
        while (i < n && PyUnicode_CompareWithASCIIString(name, names[i]) != 0) i++;
        if (i == n || values[i] != NULL) return 0;
        values[i] = kwargs[k];
    }
    return 1;
}

/* dumps(obj, max_depth, integers_only=False, default=None) -> bytes: the native backend's dumps
 * itself (no Python frame between the API and the walker). A value the walker refuses or leaves
 * (a value of another type, for `default` among others) is python_backend.resume's to go on from
 * where the walker stopped. */
static PyObject *direct_dumps(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    /* The arguments by position or by name, as the Python signature in the docstring says. */
    static const char *const names[] = {"obj", "max_depth", "integers_only", "default"};
    PyObject *given[4] = {NULL, NULL, NULL, NULL};
    if (nargs > 4) return PyErr_Format(PyExc_TypeError, "dumps takes at most 4 arguments");
    for (Py_ssize_t i = 0; i < nargs; i++) given[i] = args[i];
    if (!keywords_of(kwnames, args + nargs, names, 4, given))
        return PyErr_Format(PyExc_TypeError, "dumps: an unexpected or repeated argument");
    if (given[2] == NULL) given[2] = Py_False;
    if (given[3] == NULL) given[3] = Py_None;
    if (given[0] == NULL || given[1] == NULL) return PyErr_Format(PyExc_TypeError, "dumps needs obj and max_depth");
    size_t max_depth;
    if (!size_arg(given[1], &max_depth)) return NULL;
    int integers_only = PyObject_IsTrue(given[2]);
    if (integers_only < 0) return NULL;
    if (given[3] != Py_None && !PyCallable_Check(given[3]))
        return PyErr_Format(PyExc_TypeError, "default must be callable or None");
    return dumps_result(module, given[0], max_depth, given[1], integers_only, given[3], NULL);
}

/* digest(obj, max_depth, flags, fn, size, prefix) -> "prefix" + hex: dumps's walk, hashed; where
 * the walker stops, python_backend.resume goes on (or raises the error) and its bytes are hashed. */
static PyObject *direct_digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    hasher h;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "backend_digest takes 6 arguments");
    if (!size_arg(args[1], &max_depth) || !hasher_arg(args + 3, &h)) return NULL;
    long flags = PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    if (flags & ~(long)FJCS_INTEGERS_ONLY) return PyErr_Format(PyExc_ValueError, "digest: flags other than integers_only");
    return dumps_result(module, args[0], max_depth, args[1], (flags & FJCS_INTEGERS_ONLY) != 0, Py_None, &h);
}

/* The digests of items (an exact list), one per item, until one is refused or left to the Python
 * side: raw (rendered 0) or prefix + hex as a str. *rc is WK_OK when every item was digested, else
 * WK_REFUSE or WK_BAIL for the item after the last result, and *stop (else NULL) is where the walk
 * of that item stopped, (item, written, frames, pending, chain, made): the item and then what
 * python_backend.resume goes on from (walk_stopped_at), so that the Python side finishes that item
 * without walking it again. NULL with an exception set. */
PyObject *digest_items(PyObject *module, PyObject *items, size_t max_depth, int flags, const hasher *h, int rendered,
                       int *rc, PyObject **stop) {
    *stop = NULL;
    PyObject *results = PyList_New(0);
    if (results == NULL) return NULL;
    state *s = enter(module);
    if (s == NULL) {
        Py_DECREF(results);
        return NULL;
    }
    *rc = WK_OK;
    /* The list is read again at each item: Python code run by a walk may change it. */
    for (Py_ssize_t i = 0; i < PyList_Size(items); i++) {
        PyObject *item = PyList_GetItem(items, i);
        s->out.len = 0;
        Py_INCREF(item); /* held: code run by the walk may remove it from the list */
        walk w = walk_init(s, max_depth, flags, &s->out);
        *rc = walk_run(&w, item);
        if (*rc == WK_REFUSE || *rc == WK_BAIL) {
            /* read before walk_done and leave, which drop the frames and the member stack */
            PyObject *at = walk_stopped_at(&w);
            PyObject *head = at ? PyTuple_Pack(1, item) : NULL;
            *stop = head ? PySequence_Concat(head, at) : NULL;
            Py_XDECREF(head);
            Py_XDECREF(at);
            if (*stop == NULL) *rc = WK_ERROR;
        }
        walk_done(&w);
        Py_DECREF(item);
        if (*rc != WK_OK) break;
        PyObject *one;
        if (rendered) {
            one = hex_digest(h, s->out.data, s->out.len);
        } else {
            uint8_t digest[FJCS_MAX_DIGEST];
            one = hash_arg(h, s->out.data, s->out.len, digest)
                      ? PyBytes_FromStringAndSize((const char *)digest, (Py_ssize_t)h->size)
                      : NULL;
        }
        if (one == NULL || PyList_Append(results, one) < 0) {
            Py_XDECREF(one);
            leave(s);
            Py_DECREF(results);
            return NULL;
        }
        Py_DECREF(one);
    }
    leave(s);
    if (*rc == WK_NOMEM || *rc == WK_ERROR) {
        Py_DECREF(results);
        return *rc == WK_NOMEM ? PyErr_NoMemory() : NULL;
    }
    return results;
}

/* backend_digest_many(list, max_depth, flags, fn, size, prefix) -> (results, code, stop):
 * digest_items, rendered when prefix is not None; code 0 (stop None) when every item was
 * digested, else 1 / 2 for the item after the last result, which the Python side finishes from
 * where its walk stopped (stop: the item, then resume's arguments), with the rest. */
static PyObject *direct_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    hasher h;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "backend_digest_many takes 6 arguments");
    PyObject *items = args[0];
    if (!PyList_CheckExact(items)) return PyErr_Format(PyExc_TypeError, "backend_digest_many takes a list");
    if (!size_arg(args[1], &max_depth) || !hasher_arg(args + 3, &h)) return NULL;
    int flags = (int)PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    int rc;
    PyObject *stop;
    PyObject *results = digest_items(module, items, max_depth, flags, &h, args[5] != Py_None, &rc, &stop);
    if (results == NULL) return NULL;
    PyObject *answer = Py_BuildValue("(OiO)", results, rc, stop ? stop : Py_None);
    Py_DECREF(results);
    Py_XDECREF(stop);
    return answer;
}

/* format_double(x) -> the ECMAScript rendering of the float x as a str, or None for NaN and the
 * infinities (the Python side raises). */
static PyObject *direct_format_double(PyObject *module, PyObject *x) {
    (void)module;
    double v = PyFloat_AsDouble(x);
    if (v == -1.0 && PyErr_Occurred()) return NULL;
    char buf[FJCS_NUMBER_BUFSIZE];
    size_t n;
    if (fjcs_format_double(v, buf, &n) != FJCS_OK) Py_RETURN_NONE;
    return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)n);
}

/* canonicalize(bytes, max_depth, flags) -> bytes, or (code, expected, offset): the text is refused
 * (its error record); None: longer than the held-text limit, not parsed. */
static PyObject *direct_canonicalize(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    char *text;
    Py_ssize_t len;
    if (nargs != 3) return PyErr_Format(PyExc_TypeError, "canonicalize takes 3 arguments");
    if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0 || !size_arg(args[1], &max_depth)) return NULL;
    int flags = (int)PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    return text_result(module, text, len, max_depth, flags, NULL, PyBytes_CheckExact(args[0]) ? args[0] : NULL);
}

/* digest_text(bytes, max_depth, flags, fn, size, prefix) -> "prefix" + hex, or the error record as
 * canonicalize gives it (refused). */
static PyObject *direct_digest_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    char *text;
    Py_ssize_t len;
    hasher h;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "backend_digest_text takes 6 arguments");
    if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0 || !size_arg(args[1], &max_depth) ||
        !hasher_arg(args + 3, &h))
        return NULL;
    int flags = (int)PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    return text_result(module, text, len, max_depth, flags, &h, NULL);
}

/* register_hasher(algorithm, fn, size, prefix): see methods. */
static PyObject *direct_register_hasher(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    state *s = get_state(module);
    hasher h;
    if (nargs != 4) return PyErr_Format(PyExc_TypeError, "register_hasher takes 4 arguments");
    if (!PyUnicode_CheckExact(args[0]) || !PyBytes_CheckExact(args[3]))
        return PyErr_Format(PyExc_TypeError, "register_hasher takes a str algorithm and a bytes prefix");
    if (!hasher_arg(args + 1, &h)) return NULL;
    /* An algorithm is registered once: a later registration of it changes nothing, since a digest
     * in progress (whose default= may have run this) holds a pointer to its entry. */
    for (int i = 0; i < s->nhashers; i++)
        if (PyUnicode_Compare(s->hashers[i].name, args[0]) == 0) Py_RETURN_NONE;
    if (s->nhashers == FJCS_NAMED_HASHERS) return PyErr_Format(PyExc_ValueError, "register_hasher: too many algorithms");
    int i = s->nhashers++;
    Py_INCREF(args[0]);
    Py_INCREF(args[3]);
    s->hashers[i].name = args[0];
    s->hashers[i].prefix = args[3];
    s->hashers[i].h = h; /* h.prefix points into args[3], now held */
    Py_RETURN_NONE;
}

/* The hasher registered for algorithm (an exact str; NULL: "sha256", the public functions'
 * default), or NULL, nothing raised, for an algorithm none is registered for. */
const hasher *named_hasher(state *s, PyObject *algorithm) {
    if (algorithm != NULL && !PyUnicode_CheckExact(algorithm)) return NULL;
    for (int i = 0; i < s->nhashers; i++) {
        PyObject *name = s->hashers[i].name;
        if (algorithm == NULL ? PyUnicode_CompareWithASCIIString(name, "sha256") == 0
                              : name == algorithm || PyUnicode_Compare(name, algorithm) == 0)
            return &s->hashers[i].h;
    }
    return NULL;
}

/* register_types(...): see methods (cpython/types.c). */
static PyObject *direct_register_types(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    return types_register(&get_state(module)->own_types, args, nargs);
}

/* ---- The module ------------------------------------------------------------------------------ */

/* The public functions' docstrings: the Python functions', with their signatures (generated) */
#include "direct_docs.h"

static PyMethodDef methods[] = {
    {"backend_dumps", (PyCFunction)(void (*)(void))direct_dumps, METH_FASTCALL | METH_KEYWORDS,
     "backend_dumps($module, obj, max_depth, integers_only=False, default=None)\n--\n\n"
     "The canonical form of obj (the native backend's dumps)."},
    {"backend_digest", (PyCFunction)(void (*)(void))direct_digest, METH_FASTCALL,
     "backend_digest(obj, max_depth, flags, fn, size, prefix) -> str: prefix + hex of dumps(obj)."},
    {"backend_digest_many", (PyCFunction)(void (*)(void))direct_digest_many, METH_FASTCALL,
     "backend_digest_many(list, max_depth, flags, fn, size, prefix) -> (results, code, stop)."},
    {"backend_canonicalize", (PyCFunction)(void (*)(void))direct_canonicalize, METH_FASTCALL,
     "canonicalize(bytes, max_depth, flags) -> bytes, or (code, expected, offset) when the text is refused, "
     "or None when it is longer than held_text_limit()."},
    {"backend_digest_text", (PyCFunction)(void (*)(void))direct_digest_text, METH_FASTCALL,
     "backend_digest_text(bytes, max_depth, flags, fn, size, prefix) -> str, or (code, expected, offset) when refused, "
     "or None when longer than held_text_limit()."},
    {"format_float", direct_format_double, METH_O,
     "format_float(x) -> str: the ECMAScript rendering of a float, or None for NaN and infinities."},
    {"format_double", (PyCFunction)(void (*)(void))api_format_double, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_FORMAT_DOUBLE},
    {"serve_public", direct_serve_public, METH_O,
     "serve_public(flag) -> bool: whether the public functions (dumps, dump, canonicalize, format_double, "
     "digest, digest_text, digest_many) serve calls themselves (the native backend in use) or hand each to "
     "the Python function of fastjcs.core.api or fastjcs.core.digests "
     "(the Python backend in use); returns the previous setting. fastjcs.core.backends.use sets it."},
    {"register_hasher", (PyCFunction)(void (*)(void))direct_register_hasher, METH_FASTCALL,
     "register_hasher(algorithm, fn, size, prefix): the public digest and digest_text serve "
     "`algorithm` themselves from now on, hashing with fn (an fjcs_hash_fn's address) into size "
     "bytes rendered after prefix (registered once: a later call for it changes nothing); until an algorithm is registered (native_hash does it when it "
     "first finds pycryptodome's one-shot), they hand its calls to the Python functions."},
    {"register_types", (PyCFunction)(void (*)(void))direct_register_types, METH_FASTCALL,
     "register_types(StdlibTypes, unsupported, datetime, date, time, timezone, timedelta, UUID, Decimal, Enum, "
     "FIELD): from then on, when default= is a StdlibTypes, the walker writes the exact types it converts "
     "itself (cpython/types.c) and hands it the rest; an `unsupported` it raises, when it has no fallback, "
     "stops the walk for python_backend.resume to word. Registered once: a later call changes nothing "
     "(fastjcs.core.stdlib_types makes it)."},
    {"digest", (PyCFunction)(void (*)(void))api_digest, METH_FASTCALL | METH_KEYWORDS, FJCS_DOC_DIGEST},
    {"digest_text", (PyCFunction)(void (*)(void))api_digest_text, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_DIGEST_TEXT},
    {"datetime_layout", (PyCFunction)(void (*)(void))direct_datetime_layout, METH_FASTCALL, direct_datetime_layout_doc},
    {"decimal_layout", (PyCFunction)(void (*)(void))direct_decimal_layout, METH_NOARGS, direct_decimal_layout_doc},
    {"int_layout", (PyCFunction)(void (*)(void))direct_int_layout, METH_FASTCALL,
     "int_layout([flag]) -> bool: whether the walker reads small exact ints (below 2^60) from the "
     "object's layout (checked once against the API on sample ints) rather than through the API; "
     "with flag, sets it and returns the previous setting (for tests: both readings give the same "
     "text)."},
    {"str_layout", (PyCFunction)(void (*)(void))direct_str_layout, METH_FASTCALL,
     "str_layout([flag]) -> bool: whether the walker reads the characters of compact ASCII strs from "
     "the object's layout (checked once against the API on sample strs) rather than through the API; "
     "with flag, sets it and returns the previous setting (for tests: both readings give the same "
     "text)."},
    {"list_layout", (PyCFunction)(void (*)(void))direct_list_layout, METH_FASTCALL, FJCS_DOC_LIST_LAYOUT},
    {"dict_layout", (PyCFunction)(void (*)(void))direct_dict_layout, METH_FASTCALL, FJCS_DOC_DICT_LAYOUT},
    {"bytes_output", (PyCFunction)(void (*)(void))direct_bytes_output, METH_FASTCALL,
     "bytes_output([flag]) -> bool: whether dumps writes an output past a few KB into the bytes object "
     "it returns (_PyBytes_Resize found at import) rather than copying it there at the end; with flag, "
     "sets it and returns the previous setting (for tests: both give the same bytes)."},
    {"held_text_limit", (PyCFunction)(void (*)(void))direct_held_text_limit, METH_FASTCALL,
     "held_text_limit([n]) -> int: the longest text (bytes) parsed here with the GIL held; a longer "
     "one is answered None and goes through cffi, which releases it. With n (an int >= 0), sets the "
     "limit and returns the previous one (for tests and benchmarks/contention.py)."},
    {"dumps", (PyCFunction)(void (*)(void))api_dumps, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_DUMPS},
    {"dump", (PyCFunction)(void (*)(void))api_dump, METH_FASTCALL | METH_KEYWORDS, FJCS_DOC_DUMP},
    {"canonicalize", (PyCFunction)(void (*)(void))api_canonicalize, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_CANONICALIZE},
    {"digest_many", (PyCFunction)(void (*)(void))api_digest_many, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_DIGEST_MANY},
    {NULL, NULL, 0, NULL},
};

static int module_clear(PyObject *module) {
    state *s = get_state(module);
    if (s != NULL) state_clear(s);
    return 0;
}

static void module_free(void *module) { module_clear((PyObject *)module); }

static int module_traverse(PyObject *module, visitproc visit, void *arg) {
    state *s = get_state(module);
    if (s != NULL) {
        Py_VISIT(s->resume);
        for (int i = 0; i < s->nhashers; i++) {
            Py_VISIT(s->hashers[i].name);
            Py_VISIT(s->hashers[i].prefix);
        }
        for (int i = 0; i < FJCS_PYTHON_FUNCTIONS; i++) Py_VISIT(s->python_fns[i]);
        Py_VISIT(s->own_types.held);
    }
    return 0;
}

static int module_exec(PyObject *module) {
    state *s = get_state(module);
    s->class_name = PyUnicode_InternFromString("__class__");
    if (s->class_name == NULL) return -1;
    s->held_text = FJCS_HELD_TEXT;
    s->types = &s->own_types;
    bytes_out_init();
    if (PyModule_AddIntConstant(module, "DEFAULT_MAX_DEPTH", FJCS_DEFAULT_MAX_DEPTH) < 0) return -1;
    return 0;
}

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, (void *)module_exec},
    {0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "fastjcs._direct",
    "fastjcs's C core through CPython's C API, holding the GIL for the whole call (csrc/cpython/direct.c).",
    sizeof(state),
    methods,
    slots,
    module_traverse,
    module_clear,
    module_free,
};

PyMODINIT_FUNC PyInit__direct(void);

PyMODINIT_FUNC PyInit__direct(void) { return PyModuleDef_Init(&moduledef); }
