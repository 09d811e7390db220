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
 * The walker (`dumps`, `digest`, `digest_many`) reads dict, list, tuple, str, int, float, bool and
 * None with an explicit stack (no recursion), writing the canonical form as it goes: a dict's
 * members are put in canonical order (the core's UTF-16 comparison) when it opens, as pointers to
 * their names and values, so that no output byte moves. It reads exact types, and the subclasses
 * of int, float and str whose conversion (int(), float(), the str data) calls no hook of theirs
 * and whose objects' __class__ is their type (honest_class); a value it cannot read so (a dict,
 * list or tuple subclass, a hook, a __class__ that claims another class, a key that is a str
 * subclass, a value of another type with no `default=` or past its chain) makes it answer BAIL,
 * and one it refuses (NaN, a huge int, a lone surrogate, a cycle, the depth limit) REFUSE. A value
 * of another type with `default=` is given to default, and what it returns is walked in place.
 * Where dumps stops, python_backend.resume goes on from that very point (stopped_at: what was
 * written, the open containers and their positions, what default made), giving the answer or
 * raising the error rfc8785 raises, in rfc8785's order, without running anything twice; digest
 * and digest_many hand the whole value to the pure-Python backend (set_answer).
 *
 * Python code may run inside any call (docs/robustness.md): a __class__ property the walker asks,
 * a finalizer run by the collector when the walker makes an exception (a lone surrogate), and then
 * another thread. So the walker holds a strong reference to each container it has open and to
 * each member of an open dict (a list's item while it is read), and reads a list's length again
 * at each item, and a dict's member again when it is written once Python code has run since the
 * dict opened (the Python backend's reading): code that empties what is being walked cannot free
 * it under the walker. When the Python side of digest, run after a REFUSE, accepts the value, the
 * value changed meanwhile and its answer, a reading of the value as it is now, is the answer.
 *
 * Buffers (output, member order, stacks, the text parser) live in the module's state: one set per
 * interpreter, used only with that interpreter's GIL held, trimmed after a call that grew them
 * past FJCS_KEEP. A call made while another runs in the same interpreter (fastjcs.dumps from a
 * finalizer, a signal handler or a hook that ran during a walk) has a fresh state of its own,
 * freed when it ends (enter, leave).
 */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030A0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "fjcs_internal.h"

/* What a walk says when it does not give canonical bytes. */
enum { WK_OK = 0, WK_REFUSE = 1, WK_BAIL = 2, WK_NOMEM = 3, WK_ERROR = 4 /* a Python exception, set */ };

/* How many times in a row `default` is asked about what it returned itself (python_backend's
 * DEFAULT_CHAIN, orjson's bound). */
#define DEFAULT_CHAIN 254

enum { K_DICT, K_LIST, K_TUPLE };

/* One open container. */
typedef struct wframe {
    PyObject *obj;      /* a strong reference, released when the frame is popped */
    Py_ssize_t pos, n;  /* the next member or item, and how many there are */
    size_t base;        /* dict: its first member in the member stack (in canonical order) */
    size_t calls;       /* the walk's callouts when it opened (a dict is read again after one) */
    unsigned char kind;
} wframe;

/* A member of an open dict: its name (the key's UTF-8, which the key keeps alive) and value, both
 * held by strong references while the dict is open: Python code that runs during the walk (a
 * finalizer, another hook) may remove them from the dict. */
typedef struct wpair {
    const uint8_t *key;
    size_t key_len;
    PyObject *name;     /* strong */
    PyObject *value;    /* strong */
} wpair;

/* Cycle check: the first SCAN_FRAMES open containers are compared one by one; deeper ones are
 * also entered in an open-addressing set of addresses (a power-of-two table), so a deep value
 * costs O(1) per container. */
#define SCAN_FRAMES 32

typedef struct state {
    int busy;
    int heap;           /* a state of one re-entrant call (see enter), freed when it ends */
    PyObject *class_name; /* "__class__", interned (made when the module is) */
    PyObject *answer;   /* digest: the Python side's answer for a value the walker does not give */
    PyObject *resume;   /* dumps: python_backend.resume, which goes on from where the walker stopped */
    /* bind_api: the public functions' fast path (see api_dumps) */
    PyObject *backends_dict, *native, *native_dict, *dumps_py, *canonicalize_py;
    PyObject *impl_key, *threshold_key;
    size_t default_depth;
    fjcs_buf out;
    fjcs__text text;
    int text_ready;
    wframe *frames;
    size_t frames_cap;
    wpair *pairs;       /* the members of the open dicts, each dict's in canonical order */
    size_t pairs_cap, npairs;
    PyObject **set;     /* deep open containers (NULL: empty slot); set_cap slots */
    size_t set_cap, set_len;
} state;

/* Forget what bind_api bound. */
static void state_clear_api(state *s) {
    Py_CLEAR(s->backends_dict);
    Py_CLEAR(s->native);
    Py_CLEAR(s->native_dict);
    Py_CLEAR(s->dumps_py);
    Py_CLEAR(s->canonicalize_py);
    Py_CLEAR(s->impl_key);
    Py_CLEAR(s->threshold_key);
}

static void state_clear(state *s) {
    Py_CLEAR(s->answer);
    Py_CLEAR(s->resume);
    Py_CLEAR(s->class_name);
    state_clear_api(s);
    fjcs_buf_free(&s->out);
    if (s->text_ready) fjcs__text_free(&s->text);
    s->text_ready = 0;
    free(s->frames);
    free(s->pairs);
    free(s->set);
    s->frames = NULL;
    s->pairs = NULL;
    s->set = NULL;
    s->frames_cap = s->pairs_cap = s->set_cap = s->set_len = s->npairs = 0;
}

/* After a call: give back what grew past what is kept between calls. */
static void state_trim(state *s) {
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

/* ---- The set of deep open containers --------------------------------------------------------- */

static size_t slot_of(const PyObject *o, size_t cap) {
    uintptr_t h = (uintptr_t)o >> 4;
    h *= (uintptr_t)UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 7) & (cap - 1);
}

static int set_has(const state *s, const PyObject *o) {
    if (s->set_len == 0) return 0;
    for (size_t i = slot_of(o, s->set_cap);; i = (i + 1) & (s->set_cap - 1)) {
        if (s->set[i] == NULL) return 0;
        if (s->set[i] == o) return 1;
    }
}

static int set_add(state *s, PyObject *o) {
    if ((s->set_len + 1) * 2 > s->set_cap) { /* at most half full */
        size_t cap = s->set_cap ? s->set_cap * 2 : 64;
        PyObject **old = s->set, **set = (PyObject **)calloc(cap, sizeof *set);
        if (set == NULL) return WK_NOMEM;
        for (size_t j = 0; j < s->set_cap; j++) {
            if (old[j] == NULL) continue;
            size_t i = slot_of(old[j], cap);
            while (set[i] != NULL) i = (i + 1) & (cap - 1);
            set[i] = old[j];
        }
        free(old);
        s->set = set;
        s->set_cap = cap;
    }
    size_t i = slot_of(o, s->set_cap);
    while (s->set[i] != NULL) i = (i + 1) & (s->set_cap - 1);
    s->set[i] = o;
    s->set_len++;
    return WK_OK;
}

/* Remove o (present), keeping every probe chain whole (backward-shift deletion). */
static void set_remove(state *s, const PyObject *o) {
    size_t mask = s->set_cap - 1, i = slot_of(o, s->set_cap);
    while (s->set[i] != o) i = (i + 1) & mask;
    for (size_t j = (i + 1) & mask; s->set[j] != NULL; j = (j + 1) & mask) {
        size_t home = slot_of(s->set[j], s->set_cap);
        /* s->set[j] may move to the hole at i when its home is not in (i, j] cyclically */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            s->set[i] = s->set[j];
            i = j;
        }
    }
    s->set[i] = NULL;
    s->set_len--;
}

/* ---- Scalars --------------------------------------------------------------------------------- */

#define MAX_SAFE_INT 9007199254740991LL /* 2^53 - 1 */

/* Nonzero when one of the 8 bytes of v needs an escape in a JSON string: below 0x20, '"' or '\\'
 * (bytes >= 0x80 need none: the UTF-8 of a str is well formed). Exact as "is there any" (SWAR). */
static inline uint64_t needs_escape(uint64_t v) {
    return fjcs__swar_needs_escape(v); /* the core's predicate, so the two cannot drift apart */
}

/* Append UTF-8 s[0..n) (well formed: it comes from a str) as a canonical string. */
static int put_string(fjcs_buf *out, const char *s, Py_ssize_t n) {
    /* The common case, nothing to escape: checked 8 bytes at a time while copied, the last 8 bytes
     * of a string of 8 or more read as one word that may overlap the one before. */
    if (fjcs__buf_reserve(out, (size_t)n + 2) != FJCS_OK) return WK_NOMEM;
    const uint8_t *p = (const uint8_t *)s;
    char *dst = out->data + out->len;
    *dst = '"';
    if (n >= 8) {
        Py_ssize_t i = 0;
        for (; i + 8 < n; i += 8) {
            uint64_t v = fjcs__load_u64(p + i);
            if (needs_escape(v)) goto escape;
            memcpy(dst + 1 + i, &v, 8);
        }
        uint64_t v = fjcs__load_u64(p + n - 8);
        if (needs_escape(v)) goto escape;
        memcpy(dst + 1 + n - 8, &v, 8);
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            uint8_t c = p[i];
            if (c < 0x20 || c == '"' || c == '\\') goto escape;
            dst[1 + i] = (char)c;
        }
    }
    dst[1 + n] = '"';
    out->len += (size_t)n + 2;
    return WK_OK;
escape:
    return fjcs__write_string(out, p, (size_t)n) == FJCS_OK ? WK_OK : WK_NOMEM;
}

/* A str's UTF-8 (NULL, nothing raised, when it holds a lone surrogate). */
static const char *utf8_of(PyObject *str, Py_ssize_t *n) {
    const char *s = PyUnicode_AsUTF8AndSize(str, n);
    if (s == NULL) PyErr_Clear(); /* UnicodeEncodeError: a lone surrogate */
    return s;
}

static int put_int(fjcs_buf *out, PyObject *v) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || i > MAX_SAFE_INT || i < -MAX_SAFE_INT) return WK_REFUSE;
    return fjcs__write_int(out, (int64_t)i) == FJCS_OK ? WK_OK : WK_NOMEM;
}

static int put_float(fjcs_buf *out, PyObject *v, int flags) {
    if (flags & FJCS_INTEGERS_ONLY) return WK_REFUSE;
    int rc = fjcs__write_double(out, PyFloat_AsDouble(v));
    return rc == FJCS_OK ? WK_OK : rc == FJCS_E_NOMEM ? WK_NOMEM : WK_REFUSE;
}

static int put_word(fjcs_buf *out, const char *word, size_t n) {
    if (fjcs__buf_reserve(out, n) != FJCS_OK) return WK_NOMEM;
    fjcs__buf_put_n(out, word, n);
    return WK_OK;
}

/* Does type t take its slot `slot` from `base`, unchanged (so converting calls no hook)? */
static int inherits_slot(PyTypeObject *t, PyTypeObject *base, int slot) {
    return PyType_GetSlot(t, slot) == PyType_GetSlot(base, slot);
}

/* Whether v.__class__ is v's type, so that isinstance(v, C) is PyObject_TypeCheck(v, C) (isinstance
 * asks __class__ when the type check fails). Asked of each object whose type is not exact (a class
 * may be given a __class__ after its first use, and the limited API shows no type version to
 * cache a verdict against); for a class that defines no __class__ and no __getattribute__ of its
 * own it is object's descriptor, read in C. A __class__ that raises is also Python's to answer. */
static int honest_class(state *s, size_t *calls, PyObject *v) {
    ++*calls; /* a __class__ of the class's own is Python code */
    PyObject *cls = PyObject_GetAttr(v, s->class_name);
    if (cls == NULL) {
        PyErr_Clear();
        return 0;
    }
    int honest = cls == (PyObject *)Py_TYPE(v);
    Py_DECREF(cls);
    return honest;
}

/* ---- The walker ------------------------------------------------------------------------------ */

typedef struct walk {
    state *s;
    fjcs_buf *out;
    size_t nframes, max_depth;
    int flags;
    /* dumps only (NULL elsewhere): default= (NULL: none) and what it made, [(value, result)] */
    PyObject *dflt, *made;
    size_t calls;       /* Python code the walk ran: default, a __class__ (honest_class) */
    PyObject *pending;  /* where a walk stopped (REFUSE, BAIL): the value it was to write, held */
    int chain;          /* ... the chain-th result of default in a row */
} walk;

/* Compare two members by name, RFC 8785 order (names are distinct: dict keys that are exact str). */
static int pair_cmp(const void *a, const void *b) {
    const wpair *x = (const wpair *)a, *y = (const wpair *)b;
    return fjcs__key_cmp(x->key, x->key_len, y->key, y->key_len);
}

/* Put pairs[0..n) in canonical order: insertion sort for small objects (no call per comparison),
 * qsort beyond (n log n; names are distinct, so stability does not matter). */
static void sort_pairs(wpair *pairs, size_t n) {
    if (n > 16) {
        qsort(pairs, n, sizeof *pairs, pair_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        wpair p = pairs[i];
        size_t j = i;
        while (j > 0 && fjcs__key_cmp(pairs[j - 1].key, pairs[j - 1].key_len, p.key, p.key_len) > 0) {
            pairs[j] = pairs[j - 1];
            j--;
        }
        pairs[j] = p;
    }
}

/* Release the references pairs[0..n) hold. */
static void release_pairs(wpair *pairs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        Py_DECREF(pairs[i].name);
        Py_DECREF(pairs[i].value);
    }
}

/* Open a container: check the depth and for a cycle, push a frame; a dict's members are read and
 * put in canonical order now (their names as UTF-8, their values), so that they are written in
 * order and never moved. */
static int push(walk *w, PyObject *obj, int kind) {
    state *s = w->s;
    if (w->nframes >= w->max_depth) return WK_REFUSE; /* the depth limit (Python words it) */
    size_t scan = w->nframes < SCAN_FRAMES ? w->nframes : SCAN_FRAMES;
    for (size_t i = 0; i < scan; i++)
        if (s->frames[i].obj == obj) return WK_REFUSE; /* a cycle */
    if (set_has(s, obj)) return WK_REFUSE;
    if (fjcs__grow((void **)&s->frames, &s->frames_cap, w->nframes, sizeof(wframe), NULL) != FJCS_OK)
        return WK_NOMEM;
    size_t n, base = s->npairs;
    if (kind == K_DICT) {
        n = (size_t)PyDict_Size(obj);
        if (s->pairs_cap - s->npairs < n) {
            size_t cap = s->pairs_cap ? s->pairs_cap : 64;
            while (cap - s->npairs < n) cap *= 2;
            wpair *pairs = (wpair *)realloc(s->pairs, cap * sizeof *pairs);
            if (pairs == NULL) return WK_NOMEM;
            s->pairs = pairs;
            s->pairs_cap = cap;
        }
        wpair *p = s->pairs + base;
        Py_ssize_t pos = 0;
        PyObject *key, *item;
        int sorted = 1, rc = WK_OK;
        size_t i = 0;
        /* No Python code runs in this loop (the members are read, not converted), except on a
         * lone surrogate, whose UnicodeEncodeError may run the collector: the loop stops there. */
        for (; i < n && PyDict_Next(obj, &pos, &key, &item); i++) {
            Py_ssize_t len;
            const char *name;
            if (!PyUnicode_CheckExact(key)) {
                rc = PyUnicode_Check(key) ? WK_BAIL : WK_REFUSE;
                break;
            }
            if ((name = utf8_of(key, &len)) == NULL) {
                rc = WK_REFUSE;
                break;
            }
            Py_INCREF(key);
            Py_INCREF(item);
            p[i].key = (const uint8_t *)name;
            p[i].key_len = (size_t)len;
            p[i].name = key;
            p[i].value = item;
            if (sorted && i > 0 && fjcs__key_cmp(p[i - 1].key, p[i - 1].key_len, p[i].key, p[i].key_len) > 0)
                sorted = 0;
        }
        if (rc == WK_OK && i < n) rc = WK_BAIL; /* cannot happen: the size is fixed while no Python code runs */
        if (rc != WK_OK) {
            release_pairs(p, i);
            return rc;
        }
        if (!sorted) sort_pairs(p, n);
        s->npairs += n;
    } else {
        n = (size_t)(kind == K_LIST ? PyList_Size(obj) : PyTuple_Size(obj));
    }
    if (w->nframes >= SCAN_FRAMES && set_add(s, obj) != WK_OK) {
        if (kind == K_DICT) {
            release_pairs(s->pairs + base, n);
            s->npairs = base;
        }
        return WK_NOMEM;
    }
    wframe *f = &s->frames[w->nframes++];
    Py_INCREF(obj);
    f->obj = obj;
    f->calls = w->calls;
    f->kind = (unsigned char)kind;
    f->pos = 0;
    f->n = (Py_ssize_t)n;
    f->base = base;
    return put_word(w->out, kind == K_DICT ? "{" : "[", 1);
}

/* Close the innermost container, releasing what its frame holds (which may free it, and run
 * Python code, when that code has already removed it from its parent). */
static void drop_frame(walk *w) {
    state *s = w->s;
    wframe *f = &s->frames[w->nframes - 1];
    if (f->kind == K_DICT) {
        release_pairs(s->pairs + f->base, s->npairs - f->base);
        s->npairs = f->base;
    }
    if (w->nframes > SCAN_FRAMES) set_remove(s, f->obj);
    w->nframes--;
    Py_DECREF(f->obj);
}

static int pop(walk *w) {
    int kind = w->s->frames[w->nframes - 1].kind;
    drop_frame(w);
    return put_word(w->out, kind == K_DICT ? "}" : "]", 1);
}

/* Write a scalar, or open a container (its items follow in run()); v is the chain-th result of
 * default in a row. */
static int value_in(walk *w, PyObject *v, int chain) {
    fjcs_buf *out = w->out;
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type) {
        Py_ssize_t n;
        const char *s = utf8_of(v, &n);
        return s == NULL ? WK_REFUSE : put_string(out, s, n);
    }
    if (t == &PyLong_Type) return put_int(out, v);
    if (t == &PyFloat_Type) return put_float(out, v, w->flags);
    if (v == Py_None) return put_word(out, "null", 4);
    if (v == Py_True) return put_word(out, "true", 4);
    if (v == Py_False) return put_word(out, "false", 5);
    if (t == &PyDict_Type) return push(w, v, K_DICT);
    if (t == &PyList_Type) return push(w, v, K_LIST);
    if (t == &PyTuple_Type) return push(w, v, K_TUPLE);
    /* Any other object is read by type only when v's __class__ is its type: isinstance, which
     * the pure-Python backend and rfc8785 ask, follows __class__, so an object that claims
     * another class is Python's to answer. */
    if (!honest_class(w->s, &w->calls, v)) return WK_BAIL;
    /* Subclasses, read as the pure-Python backend reads them (int(v), float(v), the str's data)
     * where that calls no hook of theirs. */
    if (PyLong_Check(v)) return inherits_slot(t, &PyLong_Type, Py_nb_int) ? put_int(out, v) : WK_BAIL;
    if (PyFloat_Check(v))
        return inherits_slot(t, &PyFloat_Type, Py_nb_float) ? put_float(out, v, w->flags) : WK_BAIL;
    if (PyUnicode_Check(v)) {
        Py_ssize_t n;
        const char *s = utf8_of(v, &n);
        return s == NULL ? WK_REFUSE : put_string(out, s, n);
    }
    if (PyDict_Check(v) || PyList_Check(v) || PyTuple_Check(v)) return WK_BAIL; /* copied through its hooks */
    /* A value of another type: default's answer, written in its place (the Python side says
     * UnsupportedTypeError, with the path, when there is no default or the chain is too long). */
    if (w->dflt == NULL || chain >= DEFAULT_CHAIN) return WK_BAIL;
    if (w->made == NULL && (w->made = PyList_New(0)) == NULL) return WK_ERROR;
    w->calls++;
    PyObject *result = PyObject_CallFunctionObjArgs(w->dflt, v, NULL);
    if (result == NULL) return WK_ERROR;
    PyObject *pair = PyTuple_Pack(2, v, result); /* made holds the result until the call ends */
    Py_DECREF(result);
    if (pair == NULL || PyList_Append(w->made, pair) < 0) {
        Py_XDECREF(pair);
        return WK_ERROR;
    }
    Py_DECREF(pair);
    return value_in(w, result, chain + 1);
}

/* value_in, noting where the walk stopped (the innermost value) for the Python side. */
static int value(walk *w, PyObject *v, int chain) {
    int rc = value_in(w, v, chain);
    if ((rc == WK_REFUSE || rc == WK_BAIL) && w->pending == NULL) {
        w->pending = Py_NewRef(v);
        w->chain = chain;
    }
    return rc;
}

/* The members and items of the containers opened, until the stack is empty. */
static int run(walk *w) {
    state *s = w->s;
    fjcs_buf *out = w->out;
    int rc = WK_OK;
    while (rc == WK_OK && w->nframes) {
        wframe *f = &s->frames[w->nframes - 1];
        /* A list is read as Python's list iterator reads it: its length again at each item
         * (Python code run by the walk may change it). */
        if (f->kind == K_LIST) f->n = PyList_Size(f->obj);
        if (f->pos >= f->n) {
            rc = pop(w);
            continue;
        }
        Py_ssize_t i = f->pos++;
        if (i > 0 && put_word(out, ",", 1) != WK_OK) return WK_NOMEM;
        PyObject *item;
        if (f->kind == K_DICT) {
            const wpair *p = &s->pairs[f->base + (size_t)i];
            if (put_string(out, (const char *)p->key, (Py_ssize_t)p->key_len) != WK_OK ||
                put_word(out, ":", 1) != WK_OK)
                return WK_NOMEM;
            if (f->calls == w->calls) { /* no Python code ran since the dict was read */
                rc = value(w, p->value, 0);
                continue;
            }
            /* It may have changed: its member now, as the Python backend reads it (source[key]). */
            item = PyDict_GetItemWithError(f->obj, p->name);
            if (item == NULL) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_RuntimeError,
                                    "dictionary changed during canonicalization: a member was removed");
                return WK_ERROR;
            }
        } else {
            item = f->kind == K_TUPLE ? PyTuple_GetItem(f->obj, i) : PyList_GetItem(f->obj, i);
        }
        Py_INCREF(item); /* held: code run while it is read may remove it from its container */
        rc = value(w, item, 0);
        Py_DECREF(item);
    }
    return rc;
}

/* Canonicalize obj into w->out (appended), w set up by the caller (walk_init). */
static int walk_run(walk *w, PyObject *obj) {
    state *s = w->s;
    s->npairs = 0;
    if (s->set_len) { /* an earlier walk stopped with deep containers open */
        memset(s->set, 0, s->set_cap * sizeof *s->set);
        s->set_len = 0;
    }
    int rc = value(w, obj, 0);
    if (rc == WK_OK) rc = run(w);
    return rc;
}

static walk walk_init(state *s, size_t max_depth, int flags, fjcs_buf *out) {
    walk w = {s, out, 0, max_depth, flags, NULL, NULL, 0, NULL, 0};
    return w;
}

/* Release what a walk holds: its open frames, where it stopped, what default made. */
static void walk_done(walk *w) {
    while (w->nframes) drop_frame(w);
    Py_CLEAR(w->pending);
    Py_CLEAR(w->made);
}

static int walk_value(state *s, PyObject *obj, size_t max_depth, int flags, fjcs_buf *out) {
    walk w = walk_init(s, max_depth, flags, out);
    int rc = walk_run(&w, obj);
    walk_done(&w);
    return rc;
}

/* Where a walk stopped, for python_backend.resume: (written, frames, pending, chain, made), the
 * text written as a str and the open containers outermost first, each (list or tuple, the index
 * of its next item) or (dict, its names not yet written, in order). NULL with an exception set. */
static PyObject *stopped_at(walk *w) {
    state *s = w->s;
    PyObject *frames = PyList_New((Py_ssize_t)w->nframes);
    if (frames == NULL) return NULL;
    for (size_t k = 0; k < w->nframes; k++) {
        wframe *f = &s->frames[k];
        PyObject *where;
        if (f->kind == K_DICT) {
            size_t end = k + 1 < w->nframes ? s->frames[k + 1].base : s->npairs;
            size_t from = f->base + (size_t)f->pos;
            where = PyList_New((Py_ssize_t)(end - from));
            for (size_t j = from; where != NULL && j < end; j++)
                PyList_SetItem(where, (Py_ssize_t)(j - from), Py_NewRef(s->pairs[j].name));
        } else {
            where = PyLong_FromSsize_t(f->pos);
        }
        PyObject *one = where ? PyTuple_Pack(2, f->obj, where) : NULL;
        Py_XDECREF(where);
        if (one == NULL) {
            Py_DECREF(frames);
            return NULL;
        }
        PyList_SetItem(frames, (Py_ssize_t)k, one);
    }
    PyObject *written = PyUnicode_DecodeUTF8(w->out->data, (Py_ssize_t)w->out->len, "strict");
    PyObject *made = w->made ? Py_NewRef(w->made) : PyList_New(0);
    PyObject *at = written && made ? Py_BuildValue("(OOOiO)", written, frames, w->pending, w->chain, made) : NULL;
    Py_XDECREF(written);
    Py_XDECREF(made);
    Py_DECREF(frames);
    return at;
}

/* ---- Arguments and results ------------------------------------------------------------------- */

static state *get_state(PyObject *module) { return (state *)PyModule_GetState(module); }

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

static int size_arg(PyObject *o, size_t *v) {
    *v = PyLong_AsSize_t(o);
    return !(*v == (size_t)-1 && PyErr_Occurred());
}

/* The hasher of args (fn address, digest size, prefix bytes or None). */
typedef fjcs_hasher hasher;

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

/* Walk obj in the module's state: its canonical bytes (h NULL) or prefix + hex digest (h), with
 * *rc WK_OK; NULL with *rc WK_REFUSE or WK_BAIL (nothing raised: the Python side answers), or
 * NULL with an exception set. */
static PyObject *value_result(PyObject *module, PyObject *obj, size_t max_depth, int flags, const hasher *h,
                              int *rc) {
    state *s = enter(module);
    *rc = WK_NOMEM;
    if (s == NULL) return NULL;
    s->out.len = 0;
    *rc = walk_value(s, obj, max_depth, flags, &s->out);
    PyObject *result = NULL;
    if (*rc == WK_OK)
        result = h ? hex_digest(h, s->out.data, s->out.len)
                   : PyBytes_FromStringAndSize(s->out.data, (Py_ssize_t)s->out.len);
    else if (*rc == WK_NOMEM)
        PyErr_NoMemory();
    leave(s);
    return result;
}

/* Canonicalize text[0..len) in the module's parser: its canonical bytes (h NULL) or prefix + hex
 * digest (h); None when the text is refused (the cffi entry gives the error record); NULL with
 * an exception set. */
static PyObject *text_result(PyObject *module, const char *text, Py_ssize_t len, size_t max_depth, int flags,
                             const hasher *h) {
    state *s = enter(module);
    if (s == NULL) return NULL;
    s->out.len = 0;
    int rc = fjcs__text_run(text_parser(s, max_depth, flags), text, (size_t)len, &s->out, NULL);
    PyObject *result;
    if (rc == FJCS_OK)
        result = h ? hex_digest(h, s->out.data, s->out.len)
                   : PyBytes_FromStringAndSize(s->out.data, (Py_ssize_t)s->out.len);
    else if (rc == FJCS_E_NOMEM)
        result = PyErr_NoMemory();
    else
        result = Py_NewRef(Py_None);
    leave(s);
    return result;
}

/* dumps of obj: the walker's bytes, or, where it stopped (a value it refuses or does not read),
 * python_backend.resume's, which goes on from there (set_answer's second function): default
 * (None: none) is called by the walker for a value of another type, and by resume after. */
static PyObject *dumps_result(PyObject *module, PyObject *obj, size_t max_depth, PyObject *max_depth_obj /* or NULL */,
                              int integers_only, PyObject *dflt) {
    state *s = enter(module);
    if (s == NULL) return NULL;
    PyObject *resume = get_state(module)->resume;
    if (resume == NULL) {
        leave(s);
        return PyErr_Format(PyExc_RuntimeError, "fastjcs._direct: set_answer was not called");
    }
    s->out.len = 0;
    walk w = walk_init(s, max_depth, integers_only ? FJCS_INTEGERS_ONLY : 0, &s->out);
    w.dflt = dflt == Py_None ? NULL : dflt;
    int rc = walk_run(&w, obj);
    PyObject *result = NULL, *at = NULL;
    if (rc == WK_OK)
        result = PyBytes_FromStringAndSize(s->out.data, (Py_ssize_t)s->out.len);
    else if (rc == WK_NOMEM)
        PyErr_NoMemory();
    else if (rc == WK_REFUSE || rc == WK_BAIL)
        at = stopped_at(&w);
    walk_done(&w);
    leave(s);
    if (at == NULL) return result;
    PyObject *head = max_depth_obj ? Py_BuildValue("(OOOO)", obj, max_depth_obj, integers_only ? Py_True : Py_False, dflt)
                                   : Py_BuildValue("(OnOO)", obj, (Py_ssize_t)max_depth, Py_False, dflt);
    PyObject *args = head ? PySequence_Concat(head, at) : NULL;
    result = args ? PyObject_Call(resume, args, NULL) : NULL;
    Py_XDECREF(head);
    Py_XDECREF(args);
    Py_DECREF(at);
    return result;
}

/* dumps(obj, max_depth, integers_only=False, default=None) -> bytes: the native backend's dumps
 * itself (no Python frame between the API and the walker). A value the walker refuses or leaves
 * (a value of another type, for `default` among others) is answered by the function given to
 * set_answer, called as answer(obj, code, max_depth, integers_only, default). */
static PyObject *direct_dumps(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    /* The arguments by position or by name, as the Python signature in the docstring says. */
    static const char *const names[] = {"obj", "max_depth", "integers_only", "default"};
    PyObject *given[4] = {NULL, NULL, Py_False, Py_None};
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    if (nargs > 4) return PyErr_Format(PyExc_TypeError, "dumps takes at most 4 arguments");
    for (Py_ssize_t i = 0; i < nargs; i++) given[i] = args[i];
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GetItem(kwnames, k);
        int i = 0;
        while (i < 4 && PyUnicode_CompareWithASCIIString(name, names[i]) != 0) i++;
        if (i == 4 || i < nargs) return PyErr_Format(PyExc_TypeError, "dumps: unexpected or repeated argument %R", name);
        given[i] = args[nargs + k];
    }
    if (given[0] == NULL || given[1] == NULL) return PyErr_Format(PyExc_TypeError, "dumps needs obj and max_depth");
    size_t max_depth;
    if (!size_arg(given[1], &max_depth)) return NULL;
    int integers_only = PyObject_IsTrue(given[2]);
    if (integers_only < 0) return NULL;
    if (given[3] != Py_None && !PyCallable_Check(given[3]))
        return PyErr_Format(PyExc_TypeError, "default must be callable or None");
    return dumps_result(module, given[0], max_depth, given[1], integers_only, given[3]);
}

/* set_answer(answer, resume): the functions that answer for a value the walker refuses or leaves
 * (digest, digest_many) and go on from where it stopped (dumps). */
static PyObject *direct_set_answer(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "set_answer takes 2 arguments");
    state *s = get_state(module);
    PyObject *old_answer = s->answer, *old_resume = s->resume;
    s->answer = Py_NewRef(args[0]);
    s->resume = Py_NewRef(args[1]);
    Py_XDECREF(old_answer);
    Py_XDECREF(old_resume);
    Py_RETURN_NONE;
}

/* digest(obj, max_depth, flags, fn, size, prefix) -> "prefix" + hex, or 1 / 2 as dumps. */
static PyObject *direct_digest(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    hasher h;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "digest takes 6 arguments");
    if (!size_arg(args[1], &max_depth) || !hasher_arg(args + 3, &h)) return NULL;
    int flags = (int)PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    int rc;
    PyObject *result = value_result(module, args[0], max_depth, flags, &h, &rc);
    return result != NULL || (rc != WK_REFUSE && rc != WK_BAIL) ? result : PyLong_FromLong(rc);
}

/* digest_many(list, max_depth, flags, fn, size, prefix) -> (results, code): one result per item
 * digested, the raw digest (prefix None) or prefix + hex as a str; code 0 when every item was
 * digested, else 1 / 2 for the item after the last result, which the Python side answers (with
 * the rest). */
static PyObject *direct_digest_many(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    hasher h;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "digest_many takes 6 arguments");
    PyObject *items = args[0];
    if (!PyList_CheckExact(items)) return PyErr_Format(PyExc_TypeError, "digest_many takes a list");
    if (!size_arg(args[1], &max_depth) || !hasher_arg(args + 3, &h)) return NULL;
    int flags = (int)PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    int rendered = args[5] != Py_None;
    PyObject *results = PyList_New(0);
    if (results == NULL) return NULL;
    state *s = enter(module);
    if (s == NULL) {
        Py_DECREF(results);
        return NULL;
    }
    int rc = WK_OK;
    /* The list is read again at each item: Python code run by a walk may change it. */
    for (Py_ssize_t i = 0; i < PyList_Size(items); i++) {
        PyObject *item = PyList_GetItem(items, i);
        s->out.len = 0;
        Py_INCREF(item);
        rc = walk_value(s, item, max_depth, flags, &s->out);
        Py_DECREF(item);
        if (rc != WK_OK) break;
        PyObject *one;
        if (rendered) {
            one = hex_digest(&h, s->out.data, s->out.len);
        } else {
            uint8_t digest[FJCS_MAX_DIGEST];
            one = hash_arg(&h, s->out.data, s->out.len, digest)
                      ? PyBytes_FromStringAndSize((const char *)digest, (Py_ssize_t)h.size)
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
    if (rc == WK_NOMEM) {
        Py_DECREF(results);
        return PyErr_NoMemory();
    }
    PyObject *answer = Py_BuildValue("(Oi)", results, rc);
    Py_DECREF(results);
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

/* canonicalize(bytes, max_depth, flags) -> bytes, or None: the text is refused (the cffi route
 * gives the error record). */
static PyObject *direct_canonicalize(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    char *text;
    Py_ssize_t len;
    if (nargs != 3) return PyErr_Format(PyExc_TypeError, "canonicalize takes 3 arguments");
    if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0 || !size_arg(args[1], &max_depth)) return NULL;
    int flags = (int)PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    return text_result(module, text, len, max_depth, flags, NULL);
}

/* digest_text(bytes, max_depth, flags, fn, size, prefix) -> "prefix" + hex, or None (refused). */
static PyObject *direct_digest_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    size_t max_depth;
    char *text;
    Py_ssize_t len;
    hasher h;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "digest_text takes 6 arguments");
    if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0 || !size_arg(args[1], &max_depth) ||
        !hasher_arg(args + 3, &h))
        return NULL;
    int flags = (int)PyLong_AsLong(args[2]);
    if (flags == -1 && PyErr_Occurred()) return NULL;
    return text_result(module, text, len, max_depth, flags, &h);
}

/* ---- The public functions' fast path --------------------------------------------------------- */

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

/* Whether a call takes the fast path: one positional argument, bound, the native backend in use. */
static int fast_call(state *s, Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs != 1 || (kwnames != NULL && PyTuple_Size(kwnames) != 0) || s->backends_dict == NULL) return 0;
    return PyDict_GetItemWithError(s->backends_dict, s->impl_key) == s->native; /* (NULL, no error: absent) */
}

/* The public fastjcs.format_double: an exact finite float with the native backend in use is
 * formatted here; any other call (a float subclass, another type, NaN or an infinity, the Python
 * backend in use, keywords) goes to fastjcs.core.api's Python function, which converts or raises
 * (TypeError, FloatDomainError) exactly as before. */
static PyObject *api_format_double(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
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

static PyObject *api_dumps(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    state *s = get_state(module);
    if (!fast_call(s, nargs, kwnames)) {
        if (PyErr_Occurred()) return NULL;
        return call_with(s->dumps_py, args, nargs, kwnames);
    }
    return dumps_result(module, args[0], s->default_depth, NULL, 0, Py_None);
}

static PyObject *api_canonicalize(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    state *s = get_state(module);
    if (fast_call(s, nargs, kwnames) && PyBytes_CheckExact(args[0])) {
        PyObject *limit = PyDict_GetItemWithError(s->native_dict, s->threshold_key);
        if (limit == NULL) return PyErr_Occurred() ? NULL : call_with(s->canonicalize_py, args, nargs, kwnames);
        size_t threshold = PyLong_AsSize_t(limit);
        if (threshold == (size_t)-1 && PyErr_Occurred()) PyErr_Clear(); /* a negative limit: none */
        char *text;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(args[0], &text, &len) < 0) return NULL;
        if ((size_t)len <= threshold && threshold != (size_t)-1) {
            PyObject *result = text_result(module, text, len, s->default_depth, 0, NULL);
            if (result != Py_None) return result;
            Py_DECREF(result); /* refused: the Python function raises the error (the cffi entry's record) */
        }
    } else if (PyErr_Occurred()) {
        return NULL;
    }
    return call_with(s->canonicalize_py, args, nargs, kwnames);
}

/* bind_api(backends, native_backend, dumps, canonicalize, default_depth): see above. */
static PyObject *direct_bind_api(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
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

/* ---- The module ------------------------------------------------------------------------------ */

/* The public functions' docstrings: the Python functions', with their signatures (generated) */
#include "direct_docs.h"

static PyMethodDef methods[] = {
    {"backend_dumps", (PyCFunction)(void (*)(void))direct_dumps, METH_FASTCALL | METH_KEYWORDS,
     "backend_dumps($module, obj, max_depth, integers_only=False, default=None)\n--\n\n"
     "The canonical form of obj (the native backend's dumps)."},
    {"set_answer", (PyCFunction)(void (*)(void))direct_set_answer, METH_FASTCALL,
     "set_answer(answer, resume): answer(obj, code, max_depth, integers_only, default) answers for a value digest does not "
     "give (code 1: refused, 2: not read here)."},
    {"digest", (PyCFunction)(void (*)(void))direct_digest, METH_FASTCALL,
     "digest(obj, max_depth, flags, fn, size, prefix) -> str, or 1 / 2 as dumps."},
    {"digest_many", (PyCFunction)(void (*)(void))direct_digest_many, METH_FASTCALL,
     "digest_many(list, max_depth, flags, fn, size, prefix) -> (results, code)."},
    {"backend_canonicalize", (PyCFunction)(void (*)(void))direct_canonicalize, METH_FASTCALL,
     "canonicalize(bytes, max_depth, flags) -> bytes, or None when the text is refused."},
    {"digest_text", (PyCFunction)(void (*)(void))direct_digest_text, METH_FASTCALL,
     "digest_text(bytes, max_depth, flags, fn, size, prefix) -> str, or None when refused."},
    {"format_float", direct_format_double, METH_O,
     "format_float(x) -> str: the ECMAScript rendering of a float, or None for NaN and infinities."},
    {"format_double", (PyCFunction)(void (*)(void))api_format_double, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_FORMAT_DOUBLE},
    {"bind_api", (PyCFunction)(void (*)(void))direct_bind_api, METH_FASTCALL,
     "bind_api(backends, native_backend, dumps, canonicalize, default_depth): the fast path of "
     "dumps and canonicalize (the public functions; backend_dumps is the backend's)."},
    {"dumps", (PyCFunction)(void (*)(void))api_dumps, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_DUMPS},
    {"canonicalize", (PyCFunction)(void (*)(void))api_canonicalize, METH_FASTCALL | METH_KEYWORDS,
     FJCS_DOC_CANONICALIZE},
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
        Py_VISIT(s->answer);
        Py_VISIT(s->resume);
        Py_VISIT(s->backends_dict);
        Py_VISIT(s->native);
        Py_VISIT(s->native_dict);
        Py_VISIT(s->dumps_py);
        Py_VISIT(s->canonicalize_py);
    }
    return 0;
}

static int module_exec(PyObject *module) {
    state *s = get_state(module);
    s->class_name = PyUnicode_InternFromString("__class__");
    return s->class_name == NULL ? -1 : 0;
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
