/*
 * cpython/walker.c: the direct entry's walker, which reads Python values (cpython/direct.c is
 * the module around it).
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
 * Where dumps stops, python_backend.resume goes on from that very point (walk_stopped_at: what was
 * written, the open containers and their positions, what default made), giving the answer or
 * raising the error rfc8785 raises, in rfc8785's order, without running anything twice (digest
 * too, which hashes what resume gives); digest_many hands the item it stopped at, and the rest,
 * to the Python side.
 *
 * Python code may run inside any call (docs/robustness.md): a __class__ property the walker asks,
 * a finalizer run by the collector when the walker makes an exception (a lone surrogate), and then
 * another thread. So the walker holds a strong reference to each container it has open and to
 * each member of an open dict (a list's item while it is read), and reads a list's length again
 * at each item, and a dict's member again when it is written once Python code has run since the
 * dict opened (the Python backend's reading): code that empties what is being walked cannot free
 * it under the walker (the names of the member orders it keeps for rows, too: wshape). When the
 * Python side of digest, run after a REFUSE, accepts the value, the value changed meanwhile and its
 * answer, a reading of the value as it is now, is the answer.
 */
#include "walker.h"
#include "dict_layout.h"
#include "list_layout.h"
#include "long_layout.h"
#include "str_layout.h"
#include "type_version.h"

#include "open_set.h" /* the set of deep open containers */

/* ---- Scalars --------------------------------------------------------------------------------- */

/* Append `sep` (when not 0) and the UTF-8 s[0..n) (well formed: it comes from a str) as a
 * canonical string. */
FJCS_INLINE int put_string_after(fjcs_buf *out, char sep, const char *s, Py_ssize_t n) {
    /* The common case, nothing to escape: checked 16 or 8 bytes at a time while copied
     * (fjcs__copy_plain); at a byte to escape, the core's writer writes the string again. */
    if (fjcs__buf_reserve(out, (size_t)n + 3) != FJCS_OK) return WK_NOMEM;
    char *dst = out->data + out->len;
    if (sep) {
        *dst++ = sep;
        out->len++;
    }
    *dst = '"';
    if (FJCS_LIKELY(fjcs__copy_plain(dst + 1, (const uint8_t *)s, (size_t)n))) {
        dst[1 + n] = '"';
        out->len += (size_t)n + 2;
        return WK_OK;
    }
    return fjcs__write_string(out, (const uint8_t *)s, (size_t)n) == FJCS_OK ? WK_OK : WK_NOMEM;
}

static int put_string(fjcs_buf *out, const char *s, Py_ssize_t n) {
    return put_string_after(out, 0, s, n);
}

/* A str's UTF-8 (NULL, nothing raised, when it holds a lone surrogate); an exact str's read from
 * the object when it is ASCII (cpython/str_layout.h). */
FJCS_INLINE const char *utf8_of(PyObject *str, Py_ssize_t *n) {
    const char *s = PyUnicode_CheckExact(str) ? utf8_of_exact(str, n) : PyUnicode_AsUTF8AndSize(str, n);
    if (s == NULL) PyErr_Clear(); /* UnicodeEncodeError: a lone surrogate */
    return s;
}

/* Append `sep` (when not 0) and int v, written in place. */
FJCS_INLINE int put_int_after(fjcs_buf *out, char sep, PyObject *v) {
    long long i;
    int overflow = 0;
    if (Py_TYPE(v) == &PyLong_Type) overflow = !exact_long(v, &i);
    else i = PyLong_AsLongLongAndOverflow(v, &overflow); /* a subclass (see value_in) */
    if (overflow || i > MAX_SAFE_INT || i < -MAX_SAFE_INT) return WK_REFUSE;
    if (fjcs__buf_reserve(out, FJCS_INT_CHARS + 1) != FJCS_OK) return WK_NOMEM;
    char *dst = out->data + out->len;
    if (sep) *dst++ = sep;
    out->len = (size_t)(fjcs__format_int(dst, (int64_t)i) - out->data);
    return WK_OK;
}

static int put_int(fjcs_buf *out, PyObject *v) {
    return put_int_after(out, 0, v);
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
 * may be given a __class__ after its first use: a __getattribute__, new bases), unless its class
 * is honest by its make (type_class_is_own) and has kept the version tag it had when found so
 * (cpython/type_version.h; s->honest); for a class that defines no __class__ and no
 * __getattribute__ of its own it is object's descriptor, read in C. A __class__ that raises is
 * also Python's to answer. */
static FJCS_COLD int honest_class_asked(state *s, size_t *calls, PyObject *v, size_t slot, unsigned tag);

FJCS_INLINE int honest_class(state *s, size_t *calls, PyObject *v) {
    PyTypeObject *type = Py_TYPE(v);
    size_t slot = ((uintptr_t)type >> 4 ^ (uintptr_t)type >> 10) & (HONEST_SLOTS - 1);
    unsigned tag = type_tag(type); /* (the class unchanged since its verdict was kept) */
    if (tag != 0 && s->honest[slot].type == type && s->honest[slot].tag == tag) return 1;
    return honest_class_asked(s, calls, v, slot, tag);
}

/* honest_class, the class's __class__ asked (its verdict kept where it can be). */
static int honest_class_asked(state *s, size_t *calls, PyObject *v, size_t slot, unsigned tag) {
    PyTypeObject *type = Py_TYPE(v);
    ++*calls; /* a __class__ of the class's own is Python code */
    fjcs__tag_probe_once();
    PyObject *cls = PyObject_GetAttr(v, s->class_name);
    if (cls == NULL) {
        PyErr_Clear();
        return 0;
    }
    int honest = cls == (PyObject *)type;
    Py_DECREF(cls);
    /* kept when the class had its tag before this and still has it, and is honest by its make */
    if (honest && tag != 0 && type_class_is_own(type, s->class_name) && type_tag(type) == tag) {
        s->honest[slot].type = type;
        s->honest[slot].tag = tag;
    }
    return honest;
}

/* The number core, compiled here rather than as its own object in this extension (setup.py), so
 * that fast_paths.h's loops inline put_double_bits: a call per double cost 10 more instructions
 * of the ~290 a double costs in dumps (saved registers, constants loaded again after it). */
#include "number_format.c"

/* (members() gives them the values it does not write) */
static int value_in(walk *w, PyObject *v, int chain);
static int value_other(walk *w, PyObject *v, int chain);
static int defaulted(walk *w, PyObject *v, PyObject *result, int chain, int stdlib);
static FJCS_NOINLINE int value_of_subclass(walk *w, PyObject *v, int chain);
/* value_in, noting where the walk stopped (the innermost value) for the Python side. */
static int value(walk *w, PyObject *v, int chain);
/* value() of a value of none of the exact types value_in reads itself (value_other, noted). */
static int other_value(walk *w, PyObject *v);

#include "fast_paths.h" /* member heads and order; plain values written without the dispatch */

/* Release the references pairs[0..n) hold. */
static void release_pairs(wpair *pairs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        Py_DECREF(pairs[i].name);
        Py_DECREF(pairs[i].value);
    }
}

/* The shape kept for dicts of n members, if any (looked for once the walk has sorted a dict). */
FJCS_INLINE const wshape *shape_for(const state *s, size_t n) {
    if (!s->shaping || n < 2 || n > SHAPE_MAX || s->shapes[n - 2].names[0] == NULL) return NULL;
    return &s->shapes[n - 2];
}

/* p[0..i) back in the order read, from where sh put them (their ranks). */
static void unshape(wpair *p, size_t i, const wshape *sh) {
    wpair tmp[SHAPE_MAX];
    for (size_t j = 0; j < i; j++) tmp[j] = p[sh->rank[j]];
    for (size_t j = 0; j < i; j++) p[j] = tmp[j];
}

/* Sort p[0..n) (2 or more members, their heads made, not in order), keeping its shape for the
 * dicts of n members that follow once one of that count was sorted before in the walk, after its
 * first dict sorted (a walk of one dict keeps nothing and looks for nothing). */
static int sort_members(state *s, wpair *p, size_t n) {
    PyObject *names[SHAPE_MAX];
    wshape *sh = NULL;
    if (n > FJCS_SMALL_SORT && /* the merge sort's space */
        fjcs__grow_by((void **)&s->pairs_tmp, &s->pairs_tmp_cap, 0, n, sizeof(wpair)) != FJCS_OK)
        return WK_NOMEM;
    if (!s->shaping) { /* the walk's first dict sorted: shapes from the next one on */
        s->shaping = 1;
    } else if (n <= SHAPE_MAX) {
        sh = &s->shapes[n - 2];
        s->shapes_used |= 1u << (n - 2);
        if (!sh->seen) {
            sh->seen = 1;
            sh = NULL;
        } else {
            for (size_t i = 0; i < n; i++) names[i] = p[i].name;
        }
    }
    sort_pairs(p, n, s->pairs_tmp);
    if (sh != NULL) {
        for (size_t j = 0; j < n; j++) {
            size_t i = 0;
            while (names[i] != p[j].name) i++;
            sh->rank[i] = (unsigned char)j;
        }
        for (size_t i = 0; i < n; i++) { /* (a str's release runs no Python code) */
            PyObject *old = sh->names[i];
            sh->names[i] = Py_NewRef(names[i]);
            Py_XDECREF(old);
        }
    }
    return WK_OK;
}

/* Release the shapes a walk kept (those of the counts it met alone). */
static void drop_shapes(state *s) {
    for (unsigned used = s->shapes_used; used != 0; used &= used - 1) {
        wshape *sh = &s->shapes[fjcs__ctz64(used)];
        if (sh->names[0] != NULL)
            for (size_t i = 0; i < SHAPE_MAX; i++) Py_CLEAR(sh->names[i]);
        sh->seen = 0;
    }
    s->shapes_used = 0;
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
    if (w->nframes >= s->frames_cap && /* (the call only to grow: a tenth of push's own cost) */
        fjcs__grow((void **)&s->frames, &s->frames_cap, w->nframes, sizeof(wframe), NULL) != FJCS_OK)
        return WK_NOMEM;
    size_t n, base = s->npairs;
    if (kind == K_DICT) {
        /* the members read from the object (cpython/dict_layout.h), or through PyDict_Next */
        dict_entries e = {NULL, NULL, 0};
        Py_ssize_t used;
        int laid_out = fjcs__dict_layout && dict_entries_of_layout(obj, &e, &used);
        n = (size_t)(laid_out ? used : PyDict_Size(obj));
        if (fjcs__grow_by((void **)&s->pairs, &s->pairs_cap, s->npairs, n, sizeof(wpair)) != FJCS_OK)
            return WK_NOMEM;
        wpair *p = s->pairs + base;
        Py_ssize_t pos = 0;
        PyObject *key, *item;
        int rc = WK_OK;
        size_t i = 0;
        /* While the names are a kept shape's, each member goes straight to its place in order. */
        const wshape *sh = shape_for(s, n);
        /* No Python code runs in this loop (the members are read, not converted), except on a
         * lone surrogate, whose UnicodeEncodeError may run the collector: the loop stops there. */
        for (; i < n && (laid_out ? dict_next_of_layout(&e, &key, &item) : PyDict_Next(obj, &pos, &key, &item)); i++) {
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
            size_t at = i;
            if (sh != NULL) {
                if (FJCS_LIKELY(sh->names[i] == key)) {
                    at = sh->rank[i];
                } else { /* another shape: the members so far back in the order read */
                    unshape(p, i, sh);
                    sh = NULL;
                }
            }
            p[at].key = (const uint8_t *)name;
            p[at].key_len = (size_t)len;
            p[at].name = key;
            p[at].value = item;
        }
        if (rc == WK_OK && i < n) rc = WK_BAIL; /* cannot happen: the size is fixed while no Python code runs */
        if (rc != WK_OK) {
            if (sh != NULL) unshape(p, i, sh);
            release_pairs(p, i);
            return rc;
        }
        if (sh == NULL && n >= 2) { /* (else in the kept shape's order) in order, or sorted */
            int sorted = 1;
            for (i = 0; i < n; i++) {
                p[i].head = head_of(p[i].key, p[i].key_len);
                if (sorted && i > 0 && pair_cmp(&p[i - 1], &p[i]) > 0) sorted = 0;
            }
            if (!sorted && (rc = sort_members(s, p, n)) != WK_OK) {
                release_pairs(p, n);
                return rc;
            }
        }
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
    f->made_at = 0;
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

/* Whether type is one of the exact types of stdlib_types whose objects cannot claim another
 * __class__: datetime, date, time, Decimal (C's types, immutable), and UUID while its attribute
 * lookup is the generic one (a class's dict takes no __class__ after it is made: setattr of
 * __class__ on a class sets its metaclass, which a class of `type` refuses). */
FJCS_INLINE int types_sealed(stdtypes *t, PyTypeObject *type) {
    if (type == t->uuid) { /* the verdict kept while UUID keeps its version tag (type_version.h) */
        unsigned tag = type_tag(type);
        if (tag != 0 && tag == t->uuid_sealed_tag) return 1;
        int sealed = PyType_GetSlot(type, Py_tp_getattro) == (void *)PyObject_GenericGetAttr;
        t->uuid_sealed_tag = sealed ? tag : 0; /* (the slot's read runs no Python code) */
        return sealed;
    }
    return type == t->sealed[0] || type == t->sealed[1] || type == t->sealed[2] || type == t->sealed[3];
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
    return value_other(w, v, chain);
}

/* A value of none of the exact types value_in reads itself: a type of stdlib_types, a subclass,
 * or what default= converts. */
static int value_other(walk *w, PyObject *v, int chain) {
    PyTypeObject *t = Py_TYPE(v);
    int stdlib = chain < DEFAULT_CHAIN && stdlib_default(w);
    if (stdlib && types_sealed(w->s->types, t)) {
        /* fastjcs.stdlib_types, and a datetime, date, time or Decimal: an immutable type, whose
         * objects' __class__ is their type (nothing to ask) */
        PyObject *none = NULL;
        int rc = types_convert(w, v, &none);
        if (rc != TY_CALL) return rc;
    }
    /* Any other object is read by type only when v's __class__ is its type: isinstance, which
     * the pure-Python backend and rfc8785 ask, follows __class__, so an object that claims
     * another class is Python's to answer. */
    if (!honest_class(w->s, &w->calls, v)) return WK_BAIL;
    dc_entry *known;
    if (stdlib && (known = types_dataclass_known(w->s->types, t)) != NULL) {
        /* fastjcs.stdlib_types, and a class found a dataclass and unchanged since: of none of
         * the types read below (types_dataclass_known), so it goes straight to its members */
        PyObject *result = NULL;
        int rc = types_known_dataclass(w, v, known, &result);
        return rc != TY_RESULT && rc != TY_CALL ? rc : defaulted(w, v, result, chain, 1);
    }
    return value_of_subclass(w, v, chain);
}

/* value_other of a value whose __class__ is its type, of no type written on the way there: a
 * subclass of a type value_in reads, or default's to convert (kept out of value_other, whose
 * common cases stay short). */
static int value_of_subclass(walk *w, PyObject *v, int chain) {
    fjcs_buf *out = w->out;
    PyTypeObject *t = Py_TYPE(v);
    /* Subclasses, read as the pure-Python backend reads them (int(v), float(v), the str's data)
     * where that calls no hook of theirs. */
    unsigned long kinds = PyType_GetFlags(t); /* (PyLong_Check and the others, in one call) */
    if (kinds & Py_TPFLAGS_LONG_SUBCLASS) return inherits_slot(t, &PyLong_Type, Py_nb_int) ? put_int(out, v) : WK_BAIL;
    if (PyFloat_Check(v))
        return inherits_slot(t, &PyFloat_Type, Py_nb_float) ? put_float(out, v, w->flags) : WK_BAIL;
    if (kinds & Py_TPFLAGS_UNICODE_SUBCLASS) {
        Py_ssize_t n;
        const char *s = utf8_of(v, &n);
        return s == NULL ? WK_REFUSE : put_string(out, s, n);
    }
    if (kinds & (Py_TPFLAGS_DICT_SUBCLASS | Py_TPFLAGS_LIST_SUBCLASS | Py_TPFLAGS_TUPLE_SUBCLASS))
        return WK_BAIL; /* copied through its hooks */
    /* A value of another type: default's answer, written in its place (the Python side says
     * UnsupportedTypeError, with the path, when there is no default or the chain is too long). */
    if (w->dflt == NULL || chain >= DEFAULT_CHAIN) return WK_BAIL;
    PyObject *result = NULL;
    int stdlib = stdlib_default(w);
    if (stdlib) { /* fastjcs.stdlib_types: the exact types it names are written here */
        int rc = types_convert(w, v, &result);
        if (rc != TY_RESULT && rc != TY_CALL) return rc;
    }
    return defaulted(w, v, result, chain, stdlib);
}

/* v given to default: result (a new reference) when a StdlibTypes gave it here, else default is
 * called now; what it gives is kept in w->made and walked in v's place. */
static int defaulted(walk *w, PyObject *v, PyObject *result, int chain, int stdlib) {
    if (w->made == NULL && (w->made = PyList_New(0)) == NULL) {
        Py_XDECREF(result);
        return WK_ERROR;
    }
    if (result == NULL) {
        w->calls++;
        result = PyObject_CallFunctionObjArgs(w->dflt, v, NULL);
        if (result == NULL) return stdlib && types_no_conversion(w) ? WK_BAIL : WK_ERROR;
    }
    PyObject *pair = PyTuple_Pack(2, v, result); /* made holds the result until the call ends */
    Py_DECREF(result);
    if (pair == NULL || PyList_Append(w->made, pair) < 0) {
        Py_XDECREF(pair);
        return WK_ERROR;
    }
    Py_DECREF(pair);
    return value_in(w, result, chain + 1);
}

/* Append `sep` (when not 0), a member's name (UTF-8, from a str key) and its colon. */
static int put_name(fjcs_buf *out, char sep, const uint8_t *s, size_t n) {
    if (fjcs__buf_reserve(out, n + 4) != FJCS_OK) return WK_NOMEM;
    char *dst = out->data + out->len;
    if (FJCS_LIKELY(fjcs__copy_plain(dst + 1 + (sep != 0), s, n))) {
        if (sep) *dst++ = sep;
        dst[0] = '"';
        dst[1 + n] = '"';
        dst[2 + n] = ':';
        out->len = (size_t)(dst + n + 3 - out->data);
        return WK_OK;
    }
    if (sep) fjcs__buf_put(out, sep);
    if (fjcs__write_string(out, s, n) != FJCS_OK) return WK_NOMEM;
    return put_word(out, ":", 1);
}

/* rc, what value_in or value_other said of v, noting where the walk stopped (the innermost value)
 * for the Python side. */
FJCS_INLINE int noted(walk *w, PyObject *v, int chain, int rc) {
    if ((rc == WK_REFUSE || rc == WK_BAIL) && w->pending == NULL) {
        w->pending = Py_NewRef(v);
        w->chain = chain;
    }
    return rc;
}

static int value(walk *w, PyObject *v, int chain) {
    return noted(w, v, chain, value_in(w, v, chain));
}

static int other_value(walk *w, PyObject *v) {
    return noted(w, v, 0, value_other(w, v, 0));
}

/* The members and items of the containers opened, until the stack is empty. */
static int run(walk *w) {
    state *s = w->s;
    fjcs_buf *out = w->out;
    int rc = WK_OK;
    while (rc == WK_OK && w->nframes) {
        wframe *f = &s->frames[w->nframes - 1];
        if (f->kind != K_DICT) {
            if ((rc = items(w, f)) != WK_OK) return rc; /* the scalars in a row */
        } else if (f->calls == w->calls) { /* the members in a row, while no Python code has run */
            size_t depth = w->nframes;
            if ((rc = members(w, f)) != WK_OK) return rc;
            if (w->nframes != depth) continue; /* a member's container opened: its items next */
        }
        /* A list is read as Python's list iterator reads it: its length again at each item
         * (Python code run by the walk may change it). */
        if (f->kind == K_LIST) f->n = PyList_Size(f->obj);
        if (f->pos >= f->n) {
            rc = pop(w);
            continue;
        }
        Py_ssize_t i = f->pos++;
        PyObject *item;
        if (f->kind == K_DICT) {
            const wpair *p = &s->pairs[f->base + (size_t)i];
            if (put_name(out, i > 0 ? ',' : 0, p->key, p->key_len) != WK_OK) return WK_NOMEM;
            if (f->calls == w->calls || f->made_at) { /* no Python code ran since the dict was read, or
                                                      * a dataclass's members (no dict to read) */
                rc = scalar(w, p->value, 0);
                if (rc == NOT_FAST) rc = value(w, p->value, 0);
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
            if (i > 0 && put_word(out, ",", 1) != WK_OK) return WK_NOMEM;
            item = f->kind == K_TUPLE ? PyTuple_GetItem(f->obj, i) : PyList_GetItem(f->obj, i);
        }
        Py_INCREF(item); /* held: code run while it is read may remove it from its container */
        rc = value(w, item, 0);
        Py_DECREF(item);
    }
    return rc;
}

int walk_run(walk *w, PyObject *obj) {
    state *s = w->s;
    s->npairs = 0;
    s->shaping = 0;
    if (s->set_len) { /* an earlier walk stopped with deep containers open */
        memset(s->set, 0, s->set_cap * sizeof *s->set);
        s->set_len = 0;
    }
    fjcs__long_probe_once();
    fjcs__str_probe_once();
    fjcs__list_probe_once();
    fjcs__dict_probe_once();
    int rc = value(w, obj, 0);
    if (rc == WK_OK) rc = run(w);
    return rc;
}


void walk_done(walk *w) {
    while (w->nframes) drop_frame(w);
    if (w->s->shapes_used) drop_shapes(w->s);
    Py_CLEAR(w->pending);
    Py_CLEAR(w->made);
    types_walk_done(w);
}

int walk_value(state *s, PyObject *obj, size_t max_depth, int flags, fjcs_buf *out) {
    walk w = walk_init(s, max_depth, flags, out);
    int rc = walk_run(&w, obj);
    walk_done(&w);
    return rc;
}


PyObject *walk_stopped_at(walk *w) {
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
