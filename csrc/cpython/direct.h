/*
 * cpython/direct.h: what the module (cpython/direct.c) and the public functions' fast path
 * (cpython/api.c) share.
 */
#ifndef FJCS_CPYTHON_DIRECT_H
#define FJCS_CPYTHON_DIRECT_H

#include "walker.h"

static inline state *get_state(PyObject *module) { return (state *)PyModule_GetState(module); }

/* A size_t argument; 0 with an exception set when o is not one. */
static inline int size_arg(PyObject *o, size_t *v) {
    *v = PyLong_AsSize_t(o);
    return !(*v == (size_t)-1 && PyErr_Occurred());
}

/* The hasher of args (fn address, digest size, prefix bytes or None). */
typedef fjcs_hasher hasher;

/* fastjcs.DEFAULT_MAX_DEPTH (fastjcs.core.api's; a test checks the two agree): the depth of a call
 * that gives none. */
#define FJCS_DEFAULT_MAX_DEPTH 10000

/* The longest text this module parses (held_text_limit sets another): up to it the GIL is held for
 * the whole call; a longer text goes through cffi, which releases it so that other threads run.
 * Taking the GIL back after costs up to the switch interval (5 ms by default) when another thread
 * holds it, so it is released only where the call itself takes at least twice that (10 ms: about 8
 * MiB of text), where the wait costs at most half of the call (docs/decisions.md, "The direct
 * entry"; benchmarks/contention.py measures both routes). */
#define FJCS_HELD_TEXT ((size_t)8 << 20)

/* Canonicalize text[0..len) in the module's parser: its canonical bytes (h NULL) or prefix + hex
 * digest (h); when the text is refused, its error record as (code, expected, offset), which
 * native_errors words (the text is parsed once); None for a text longer than the held-text limit
 * (FJCS_HELD_TEXT), which is not parsed here; NULL with an exception set. A text that is already its
 * own canonical form is answered without parsing: itself (`source`, an exact bytes object holding
 * the text, or NULL: a copy) or its digest. */
PyObject *text_result(PyObject *module, const char *text, Py_ssize_t len, size_t max_depth, int flags,
                      const hasher *h, PyObject *source);

/* dumps of obj (h NULL) or its digest (h), going on through python_backend.resume where the
 * walker stops (direct.c). */
PyObject *dumps_result(PyObject *module, PyObject *obj, size_t max_depth, PyObject *max_depth_obj /* or NULL */,
                       int integers_only, PyObject *dflt, const hasher *h);

/* The digests of items (an exact list) until one is refused or left to the Python side (*rc:
 * WK_OK when all were digested, else WK_REFUSE or WK_BAIL, and *stop the item and where its walk
 * stopped, for python_backend.resume); NULL with an exception set (direct.c). */
PyObject *digest_items(PyObject *module, PyObject *items, size_t max_depth, int flags, const hasher *h, int rendered,
                       int *rc, PyObject **stop);

/* The keyword arguments of a call (kwargs[k] named kwnames[k]) matched to names[0..n): values[i]
 * set for each, 1 when every keyword is one of names and names a value not set already. */
int keywords_of(PyObject *kwnames, PyObject *const *kwargs, const char *const *names, int n, PyObject **values);

/* The hasher register_hasher registered for algorithm (see direct.c). */
const hasher *named_hasher(state *s, PyObject *algorithm);

/* The public functions (api.c): fastjcs.format_double, dumps, dump, canonicalize, digest,
 * digest_text and digest_many, and serve_public. */
PyObject *api_format_double(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *api_dumps(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *api_dump(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *api_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *api_canonicalize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *api_digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *api_digest_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *direct_serve_public(PyObject *module, PyObject *flag);

/* dumps's output written into the bytes object it returns (bytes_out.c): bytes_out_begin sets
 * s->out (emptied) up for a walk, bytes_out_end gives its result: the bytes (ok) or NULL, and puts
 * s->out back as it was (the state's buffer, without the hook). bytes_out_init looks up
 * _PyBytes_Resize (at module exec); without it (bytes_grow NULL), the output is copied from s->out.
 * Inline, the hook in a variable of the module's own: a small output (EAB's) pays a few
 * instructions for it. */
typedef struct bytes_out bytes_out;
#if defined(__GNUC__) && !defined(_WIN32)
#define FJCS_HIDDEN __attribute__((visibility("hidden"))) /* (no GOT load for it) */
#else
#define FJCS_HIDDEN
#endif
extern FJCS_HIDDEN fjcs_code (*bytes_grow)(fjcs_buf *b, size_t cap);
void bytes_out_init(void);
PyObject *bytes_out_moved(state *s, int ok);

static inline void bytes_out_begin(state *s) {
    s->out.len = 0;
    s->out.grow = bytes_grow; /* (which finds s from &s->out; s->bout.moved is 0 between calls) */
}

static inline PyObject *bytes_out_end(state *s, int ok) {
    s->out.grow = NULL;
    if (s->bout.moved) return bytes_out_moved(s, ok);
    if (!ok) return NULL;
    return PyBytes_FromStringAndSize(s->out.data, (Py_ssize_t)s->out.len);
}

/* The module's switches for tests and benchmarks, datetime_layout([flag]) and held_text_limit([n])
 * (hooks.c; direct.c's methods document them). */
PyObject *direct_datetime_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_decimal_layout(PyObject *module, PyObject *unused);
extern const char direct_datetime_layout_doc[], direct_decimal_layout_doc[]; /* (hooks.c) */
PyObject *direct_held_text_limit(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_bytes_output(PyObject *module, PyObject *const *args, Py_ssize_t nargs); /* bytes_out.c */

#endif
