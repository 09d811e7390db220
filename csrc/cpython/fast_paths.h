/*
 * cpython/fast_paths.h: the walker's fast paths, included by cpython/walker.c alone (static
 * functions, inlined into its loops): a dict's member names as 8-byte integer heads and their
 * comparison (the member sort's), and the plain values (exact str, int, float, None, True, False,
 * whose reading runs no Python code) written without the general dispatch: one at a time
 * (scalar), a list's or tuple's in a row (items), a dict's members in a row (members, which gives
 * a member of another type to value() or other_value() after its name). Moved out of walker.c to
 * keep it whole within the project's file length; walker.c's banner says what may run in between.
 */
#ifndef FJCS_CPYTHON_FAST_PATHS_H
#define FJCS_CPYTHON_FAST_PATHS_H

/* (walker.c's put_string_after, put_int_after and put_word come first, and number_format.c's
 * put_double_bits) */
#include "walker.h"
#include "list_layout.h"
#include "long_layout.h"
#include "str_layout.h"

/* ---- Member names: heads and order ----------------------------------------------------------- */

/* A name's first 8 bytes as a big-endian integer, zeros past its end (a wpair's head): below 8
 * bytes, read as two overlapping blocks (4 to 7 bytes) or its first, middle and last bytes, which
 * agree where they overlap (the reading of fjcs__copy_plain: no byte past the name is read). */
#if FJCS_HAVE_BUILTINS && FJCS_HAVE_LITTLE_ENDIAN
FJCS_INLINE uint64_t big_endian_64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
FJCS_INLINE uint64_t big_endian_32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}
#else
FJCS_INLINE uint64_t big_endian_64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}
FJCS_INLINE uint64_t big_endian_32(const uint8_t *p) {
    return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
}
#endif

/* The bytes of a head moved so that comparing heads as integers is comparing their names in
 * UTF-16 order: UTF-8 byte order is code point order, which agrees with UTF-16 order except
 * between a supplementary character (lead byte F0..F4; in UTF-16 a surrogate pair, D800..DBFF
 * first) and one in U+E000..U+FFFF (lead byte EE or EF), where UTF-16 puts the supplementary one
 * first. Lead bytes EE and EF become FE and FF, which UTF-8 never holds (a continuation byte is
 * below C0, so only a lead byte changes): above F0..F4, in their order, and the head stays one
 * name's alone (two heads are equal exactly when their bytes are). ASCII heads are left as read. */
static uint64_t lift_ee_ef(uint64_t h) {
    for (int shift = 0; shift < 64; shift += 8)
        if (((h >> shift) & 0xFE) == 0xEE) h += (uint64_t)0x10 << shift;
    return h;
}

FJCS_INLINE uint64_t head_of(const uint8_t *s, size_t n) {
    uint64_t h;
    if (n >= 8) h = big_endian_64(s);
    else if (n >= 4) h = big_endian_32(s) << 32 | big_endian_32(s + n - 4) << (8 * (8 - n));
    else if (n == 0) return 0;
    else h = (uint64_t)s[0] << 56 | (uint64_t)s[n >> 1] << (56 - 8 * (n >> 1)) | (uint64_t)s[n - 1] << (56 - 8 * (n - 1));
    return FJCS_LIKELY((h & FJCS_HIGHS) == 0) ? h : lift_ee_ef(h);
}

/* fjcs__key_cmp of two members' names (RFC 8785's order: UTF-16 code units), most often from
 * their heads alone: where they differ, their order is the names' (a zero past a name's end is
 * below any byte of the other's, so a proper prefix comes first); where they agree, a name of 8
 * bytes or fewer is a prefix of the other (or equal to it), and longer ones are compared from
 * their 9th byte on. */
FJCS_INLINE int pair_cmp(const wpair *a, const wpair *b) {
    if (FJCS_LIKELY(a->head != b->head)) return a->head < b->head ? -1 : 1;
    if (a->key_len <= 8 || b->key_len <= 8) return (a->key_len > b->key_len) - (a->key_len < b->key_len);
    return fjcs__key_cmp(a->key + 8, a->key_len - 8, b->key + 8, b->key_len - 8);
}

/* The one member sort (member_sort.h), for a dict's members (names are distinct: dict keys that
 * are exact str, so its stability does not matter here), comparing by pair_cmp. */
#define FJCS_SORT_FN sort_pairs
#define FJCS_SORT_T wpair
#define FJCS_SORT_CMP pair_cmp
#include "member_sort.h"

/* ---- Plain values ---------------------------------------------------------------------------- */

/* What scalar() says of a value it leaves to value() (having written nothing). */
#define NOT_FAST (-1)

/* v refused, noted as value() notes it. */
static int refuse_at(walk *w, PyObject *v) {
    if (w->pending == NULL) {
        w->pending = Py_NewRef(v);
        w->chain = 0;
    }
    return WK_REFUSE;
}

/* After `sep` (0: none), a value of the exact types whose reading runs no Python code (str, int,
 * float, None, True, False), written without value_in's dispatch: a dict's members while no
 * Python code has run since it opened are mostly these (items() writes the items of lists and
 * tuples alike). NOT_FAST, nothing written, for any other value and for a number refused, which
 * value() reads again, refuses and notes. A str with a lone surrogate is refused here (noted as
 * value() notes it): its exception may run the collector, and so finalizers, which may mend the
 * value; the walker's answer is what it read (v is held by the caller). */
FJCS_INLINE int scalar(walk *w, PyObject *v, char sep) {
    fjcs_buf *out = w->out;
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type) {
        Py_ssize_t n;
        const char *s = utf8_of_exact(v, &n);
        if (FJCS_LIKELY(s != NULL)) return put_string_after(out, sep, s, n);
        PyErr_Clear();
        return refuse_at(w, v);
    }
    if (t == &PyLong_Type) {
        int rc = put_int_after(out, sep, v);
        return rc == WK_REFUSE ? NOT_FAST : rc;
    }
    const char *word;
    size_t len;
    if (t == &PyFloat_Type) {
        if (w->flags & FJCS_INTEGERS_ONLY) return NOT_FAST;
        if (fjcs__buf_reserve(out, FJCS_NUMBER_BUFSIZE + 1) != FJCS_OK) return WK_NOMEM;
        char *dst = out->data + out->len;
        if (sep) *dst++ = sep;
        if ((dst = fjcs__put_double_bits(float_bits_of(v), dst)) == NULL) return NOT_FAST;
        out->len = (size_t)(dst - out->data);
        return WK_OK;
    }
    if (v == Py_None) word = "null", len = 4;
    else if (v == Py_True) word = "true", len = 4;
    else if (v == Py_False) word = "false", len = 5;
    else return NOT_FAST;
    if (fjcs__buf_reserve(out, 6) != FJCS_OK) return WK_NOMEM;
    if (sep) fjcs__buf_put(out, sep);
    fjcs__buf_put_n(out, word, len);
    return WK_OK;
}

/* Room for `need` more bytes at dst (the output's end, kept in a local with lim, its capacity):
 * the buffer grown when short, dst and lim read again, then `grown` run; rc = WK_NOMEM and break
 * when it cannot grow (items_of and members, in their loops). */
#define ROOM_AND(need, grown)                                                                      \
    if (FJCS_UNLIKELY((size_t)(lim - dst) < (size_t)(need))) {                                     \
        out->len = (size_t)(dst - out->data);                                                      \
        if (fjcs__buf_reserve(out, (size_t)(need)) != FJCS_OK) {                                   \
            rc = WK_NOMEM;                                                                         \
            break;                                                                                 \
        }                                                                                          \
        dst = out->data + out->len;                                                                \
        lim = out->data + out->cap;                                                                \
        grown;                                                                                     \
    }
#define ROOM(need) ROOM_AND(need, (void)0)

/* Room for a number or a word and its comma (at most SHORT_ITEM bytes) in items_of: one compare
 * against `near`, lim less that much, made again whenever the buffer grows (as an address: no
 * pointer before the buffer is formed when its capacity is smaller). */
#define SHORT_ITEM (FJCS_NUMBER_BUFSIZE + 1)
#define NEAR_AGAIN near = (uintptr_t)lim - SHORT_ITEM
#define ROOM_SHORT()                                                                               \
    if (FJCS_UNLIKELY((uintptr_t)dst > near)) {                                                    \
        ROOM_AND(SHORT_ITEM, NEAR_AGAIN)                                                           \
    }

/* The items of the innermost list or tuple, from f->pos on, while they are of the types
 * scalar() writes (the same bytes; a list's length read again at each item, as run() reads it):
 * the output's end is kept in locals here, as a store through a char pointer would otherwise make
 * the compiler read every field again. The items, and floats' doubles, are read from the object when
 * in_place is 1; ints as `layout` says (fjcs__long_layout, passed as a constant where the caller
 * makes one). */
FJCS_INLINE int items_of(walk *w, wframe *f, const int list, const int in_place, const int layout) {
    fjcs_buf *out = w->out;
    PyObject *obj = f->obj;
    Py_ssize_t i = f->pos;
    char *dst = out->data + out->len, *lim = out->data + out->cap; /* (data: the '[' is in it) */
    uintptr_t near = (uintptr_t)lim - SHORT_ITEM;
    /* (read once: the stores through dst may alias them, and no Python code changes them) */
    const size_t offset = fjcs__str_offset;
    /* a float under FJCS_INTEGERS_ONLY is no item of this loop: value() refuses it */
    const PyTypeObject *const float_type = w->flags & FJCS_INTEGERS_ONLY ? NULL : &PyFloat_Type;
    int rc = WK_OK;
    for (; i < (list ? Py_SIZE(obj) : f->n); i++) {
        PyObject *v = in_place ? list ? list_item_of_layout(obj, i) : tuple_item_of_layout(obj, i)
                      : list                ? PyList_GetItem(obj, i)
                                            : PyTuple_GetItem(obj, i);
        PyTypeObject *t = Py_TYPE(v);
        if (t == &PyUnicode_Type) {
            Py_ssize_t n;
            const char *s = offset != 0 ? utf8_of_layout(offset, v, &n) : NULL;
            if (FJCS_UNLIKELY(s == NULL)) { /* the API's (it may make the UTF-8) */
                Py_INCREF(v); /* held: a lone surrogate's exception may run a finalizer (see scalar()) */
                s = PyUnicode_AsUTF8AndSize(v, &n);
                if (FJCS_UNLIKELY(s == NULL)) { /* refused where value() refuses it, after the comma */
                    PyErr_Clear();
                    out->len = (size_t)(dst - out->data);
                    rc = i > 0 && put_word(out, ",", 1) != WK_OK ? WK_NOMEM : refuse_at(w, v);
                    Py_DECREF(v);
                    f->pos = i + 1;
                    return rc;
                }
                Py_DECREF(v); /* (the list holds it: no Python code ran) */
            }
            ROOM_AND(n + 3, NEAR_AGAIN)
            *dst = ',';
            dst += i != 0;
            *dst = '"';
            if (FJCS_LIKELY(fjcs__copy_plain(dst + 1, (const uint8_t *)s, (size_t)n))) {
                dst[1 + n] = '"';
                dst += n + 2;
                continue;
            }
            out->len = (size_t)(dst - out->data);
            if (fjcs__write_string(out, (const uint8_t *)s, (size_t)n) != FJCS_OK) {
                rc = WK_NOMEM;
                break;
            }
            dst = out->data + out->len;
            lim = out->data + out->cap;
            NEAR_AGAIN;
        } else if (t == &PyLong_Type) {
            long long x;
            /* below 2^30 read first (within 2^53 - 1), by a reading made for each layout (a
             * constant there: no select between the two in the loop); past +/-(2^53 - 1): value()
             * refuses it */
            if (!(layout == LONG_SIZE   ? small_long_of_layout(LONG_SIZE, v, &x)
                  : layout == LONG_TAG ? small_long_of_layout(LONG_TAG, v, &x)
                                       : 0) &&
                (!exact_long_as(layout, v, &x) || (unsigned long long)x + MAX_SAFE_INT > 2 * (unsigned long long)MAX_SAFE_INT))
                break;
            ROOM_SHORT()
            *dst = ',';
            dst = fjcs__format_int(dst + (i != 0), (int64_t)x);
        } else if (t == float_type) {
            ROOM_SHORT()
            *dst = ',';
            char *end = put_double_bits(in_place ? float_bits_of_layout(v) : float_bits_of_api(v), dst + (i != 0));
            if (FJCS_UNLIKELY(end == NULL)) break; /* NaN, an infinity: value() refuses it */
            dst = end;
        } else {
            const char *word;
            size_t len;
            if (v == Py_None) word = "null", len = 4;
            else if (v == Py_True) word = "true", len = 4;
            else if (v == Py_False) word = "false", len = 5;
            else break;
            ROOM_SHORT()
            *dst = ',';
            dst += i != 0;
            memcpy(dst, word, 5); /* (its 5 bytes: a string literal holds them with its NUL) */
            dst += len;
        }
    }
    out->len = (size_t)(dst - out->data);
    f->pos = i;
    return rc;
}

/* items_of, made for lists and for tuples, their items read from the object (cpython/list_layout.h)
 * or through the API; for lists read in place on CPython 3.12 and later, with the int tag's reading
 * made for that layout (a constant in the loop: about 4 instructions an int fewer there). */
static int items(walk *w, wframe *f) {
    const int layout = fjcs__long_layout;
    if (FJCS_LIKELY(fjcs__list_layout)) {
        if (f->kind != K_LIST) return items_of(w, f, 0, 1, layout);
        return layout == LONG_TAG ? items_of(w, f, 1, 1, LONG_TAG) : items_of(w, f, 1, 1, layout);
    }
    return f->kind == K_LIST ? items_of(w, f, 1, 0, layout) : items_of(w, f, 0, 0, layout);
}


/* What plain_members() says at a member whose value is of none of the types it writes. */
#define OTHER_VALUE (-2)

/* A comma when `comma`, the quoted name s[0..n) and its colon, at dst (room made): the end, or
 * NULL when the name needs an escape (put_name writes it then). */
FJCS_INLINE char *put_plain_name(char *dst, int comma, const uint8_t *s, size_t n) {
    *dst = ',';
    dst += comma;
    *dst = '"';
    if (FJCS_UNLIKELY(!fjcs__copy_plain(dst + 1, s, n))) return NULL;
    dst[1 + n] = '"';
    dst[2 + n] = ':';
    return dst + n + 3;
}

/* The members of the innermost dict, from f->pos on, while no Python code has run since it was
 * read (run() checks: the values are the ones read then, held) and each name needs no escape and
 * its value is one written here: a str needing no escape whose UTF-8 is read from the object, an
 * int within 2^53 - 1, a float ECMAScript writes, None, True, False; the bytes of run()'s
 * put_name and scalar(), the output's end kept in locals as in items_of. At a value of another
 * type, its name is written and OTHER_VALUE said, f->pos past it (the caller writes the value).
 * At any other member nothing of it is written (what was is taken back), and run() writes it as
 * before. No function that may run Python code is called here (the loop's values stay in
 * registers). */
FJCS_INLINE int plain_members(walk *w, wframe *f) {
    fjcs_buf *out = w->out;
    const wpair *p = w->s->pairs + f->base;
    const size_t offset = fjcs__str_offset;
    const PyTypeObject *const float_type = w->flags & FJCS_INTEGERS_ONLY ? NULL : &PyFloat_Type; /* (as in items_of) */
    Py_ssize_t i = f->pos;
    char *dst = out->data + out->len, *lim = out->data + out->cap; /* (data: the '{' is in it) */
    int rc = WK_OK;
    for (; i < f->n; i++) {
        PyObject *v = p[i].value;
        PyTypeObject *t = Py_TYPE(v);
        const char *s = NULL;
        Py_ssize_t sn = 0;
        if (t == &PyUnicode_Type) {
            if (offset == 0 || (s = utf8_of_layout(offset, v, &sn)) == NULL) break;
        } else if (t == float_type) {
        } else if (t != &PyLong_Type && v != Py_None && v != Py_True && v != Py_False) {
            ROOM(p[i].key_len + 4) /* its name written here, its value by the caller */
            char *end = put_plain_name(dst, i != 0, p[i].key, p[i].key_len);
            if (end != NULL) {
                dst = end;
                i++;
                rc = OTHER_VALUE;
            }
            break;
        }
        size_t kn = p[i].key_len;
        /* the comma, the quoted name and its colon, then the quoted str or at most
         * FJCS_NUMBER_BUFSIZE bytes (a number, a word) */
        ROOM(kn + 4 + (size_t)sn + 2 + FJCS_NUMBER_BUFSIZE)
        char *start = dst;
        if (FJCS_UNLIKELY((dst = put_plain_name(dst, i != 0, p[i].key, kn)) == NULL)) {
            dst = start;
            break;
        }
        if (s != NULL) {
            *dst = '"';
            if (FJCS_UNLIKELY(!fjcs__copy_plain(dst + 1, (const uint8_t *)s, (size_t)sn))) {
                dst = start;
                break;
            }
            dst[1 + sn] = '"';
            dst += sn + 2;
        } else if (t == &PyLong_Type) {
            long long x;
            /* past +/-(2^53 - 1): value() refuses it */
            if (!exact_long(v, &x) || (unsigned long long)x + MAX_SAFE_INT > 2 * (unsigned long long)MAX_SAFE_INT) {
                dst = start;
                break;
            }
            dst = fjcs__format_int(dst, (int64_t)x);
        } else if (t == &PyFloat_Type) {
            char *end = put_double_bits(float_bits_of(v), dst);
            if (FJCS_UNLIKELY(end == NULL)) {
                dst = start;
                break;
            }
            dst = end;
        } else {
            size_t len = v == Py_False ? 5 : 4;
            memcpy(dst, v == Py_None ? "null" : v == Py_True ? "true" : "false", 5); /* (with its NUL) */
            dst += len;
        }
    }
#undef ROOM
#undef ROOM_AND
#undef ROOM_SHORT
#undef NEAR_AGAIN
#undef SHORT_ITEM
    out->len = (size_t)(dst - out->data);
    f->pos = i;
    return rc;
}

/* plain_members, and a member's value of another type (a container, a datetime, what default=
 * converts) given to value() after the name it wrote, as run() gives it: the members go on after it
 * unless it opened a container (whose items come next: run() sees the frame count grow), ran
 * Python code (run() then reads the members again from the dict) or stopped the walk. */
FJCS_INLINE int members(walk *w, wframe *f) {
    int rc;
    while ((rc = plain_members(w, f)) == OTHER_VALUE) {
        size_t depth = w->nframes, calls = w->calls;
        PyObject *v = w->s->pairs[f->base + (size_t)f->pos - 1].value; /* (held by the frame's pairs) */
        PyTypeObject *t = Py_TYPE(v); /* (no str, int, None, True or False: plain_members writes those) */
        rc = t == &PyDict_Type || t == &PyList_Type || t == &PyTuple_Type || t == &PyFloat_Type ? value(w, v, 0)
                                                                                               : other_value(w, v);
        if (rc != WK_OK || w->nframes != depth || w->calls != calls) return rc; /* (f, p: maybe moved) */
    }
    return rc;
}

#endif
