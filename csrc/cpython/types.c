/*
 * cpython/types.c: the standard library's record types, written by the walker itself when
 * default= is fastjcs.stdlib_types (a StdlibTypes).
 *
 * fastjcs.core.stdlib_types is the reference: StdlibTypes.__call__ says what each type becomes
 * (datetime, date, time: isoformat(); UUID, Decimal: str(); an Enum member: its _value_; a
 * dataclass instance: a dict of its fields). Here the exact types are converted without calling
 * it: the datetimes, UUIDs and Decimals written straight into the output, an enum's value handed
 * back for the walker to walk, as it walks what default returns, a dataclass's members put on the
 * walker's member stack (cpython/dataclass.c). Any
 * other value, a subclass of these included, and any object here that is not as expected (a
 * tzinfo other than datetime.timezone, a UUID whose int is not an int of 128 bits), goes to
 * StdlibTypes.__call__ (TY_CALL), so the answer is the reference's by construction; a test holds
 * the two equal on every case (tests/core/test_stdlib_types.py).
 *
 * The limited API has no datetime C API: the fields are read from the objects' layout, checked
 * when the types are registered (or as attributes: C getters of the exact types, no Python code);
 * so are a Decimal's digits and a UUID's int. Python code can run where an object is made that the collector
 * tracks (a dict, a tuple) or where an attribute is read of an object that is not of an exact
 * built-in type (a dataclass's field): w->calls counts those, so the walker reads the containers
 * it has open again (walker.c, "Python code may run inside any call").
 */
#include "walker.h"
#include "long_layout.h"
#include "type_version.h"

/* ---- Registration ---------------------------------------------------------------------------- */

static int probe_layout(stdtypes *t);
static Py_ssize_t probe_uuid_int(const stdtypes *n);

void types_clear(stdtypes *t) {
    Py_CLEAR(t->held);
    types_dataclass_clear(t);
    PyObject **names[] = {&t->year, &t->month, &t->day, &t->hour, &t->minute, &t->second, &t->microsecond,
                          &t->tzinfo, &t->days, &t->seconds, &t->microseconds, &t->int_, &t->value_,
                          &t->fields, &t->field_type, &t->name, &t->fallback, &t->sixty_four, &t->tz_utcoffset,
                          &t->tz_last, &t->uuid_int, &t->str_, &t->uuid_str};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) Py_CLEAR(*names[i]);
}

PyObject *types_register(stdtypes *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 11) return PyErr_Format(PyExc_TypeError, "register_types takes 11 arguments");
    if (t->held != NULL) return type_versions_hook(); /* once: a walk in progress may be using them */
    for (int i = 0; i < 10; i++)
        if (i != 1 && !PyType_Check(args[i]))
            return PyErr_Format(PyExc_TypeError, "register_types: argument %d is not a type", i + 1);
    if (!PyType_Check(args[1]) || !PyType_IsSubtype((PyTypeObject *)args[1], (PyTypeObject *)PyExc_Exception))
        return PyErr_Format(PyExc_TypeError, "register_types: argument 2 is not an exception class");
    stdtypes n = {0};
    const char *words[] = {"year",    "month",   "day",      "hour",        "minute",      "second",
                           "microsecond", "tzinfo", "days",  "seconds",     "microseconds", "int",
                           "_value_", "__dataclass_fields__", "_field_type", "name", "_fallback", "__str__"};
    PyObject **slots[] = {&n.year,  &n.month,  &n.day,   &n.hour,    &n.minute,       &n.second,
                          &n.microsecond, &n.tzinfo, &n.days, &n.seconds, &n.microseconds, &n.int_,
                          &n.value_, &n.fields, &n.field_type, &n.name, &n.fallback, &n.str_};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if ((*slots[i] = PyUnicode_InternFromString(words[i])) == NULL) goto fail;
    if ((n.sixty_four = PyLong_FromLong(64)) == NULL) goto fail;
    /* timezone.utcoffset, called as a function (no bound method made) */
    if ((n.tz_utcoffset = PyObject_GetAttrString(args[5], "utcoffset")) == NULL) goto fail;
    if ((n.held = PyTuple_New(nargs)) == NULL) goto fail;
    for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SetItem(n.held, i, Py_NewRef(args[i]));
    n.cls = args[0];
    n.unsupported = args[1];
    n.datetime = (PyTypeObject *)args[2];
    n.date = (PyTypeObject *)args[3];
    n.time = (PyTypeObject *)args[4];
    n.timezone = (PyTypeObject *)args[5];
    n.timedelta = (PyTypeObject *)args[6];
    n.uuid = (PyTypeObject *)args[7];
    n.decimal = (PyTypeObject *)args[8];
    if ((n.uuid_int = PyObject_GetAttr(args[7], n.int_)) == NULL ||
        (n.uuid_str = PyObject_GetAttr(args[7], n.str_)) == NULL)
        goto fail;
    PyTypeObject *const c_types[4] = {n.datetime, n.date, n.time, n.decimal};
    for (int i = 0; i < 4; i++)
        n.sealed[i] = PyType_GetFlags(c_types[i]) & Py_TPFLAGS_IMMUTABLETYPE ? c_types[i] : NULL;
    n.enumeration = (PyTypeObject *)args[9];
    n.field_marker = args[10];
    n.layout = n.layout_ok = probe_layout(&n);
    n.decimal_ok = probe_decimal(n.decimal);
    n.uuid_at = probe_uuid_int(&n);
    types_dataclass_register(&n);
    *t = n;
    fjcs__tag_probe_once();
    return type_versions_hook();
fail:
    types_clear(&n);
    return NULL;
}

/* Where a UUID object keeps its int: the one place in a sample object that holds what its `int`
 * reads (0 when it is not found once, or the sample cannot be made). */
static Py_ssize_t probe_uuid_int(const stdtypes *n) {
    PyObject *big = PyLong_FromString("123456789012345678901234567890123", NULL, 10); /* (below 2^128) */
    PyObject *args = PyTuple_New(0), *kwargs = big ? Py_BuildValue("{sO}", "int", big) : NULL;
    PyObject *u = args && kwargs ? PyObject_Call((PyObject *)n->uuid, args, kwargs) : NULL;
    PyObject *got = u ? PyObject_GetAttr(u, n->int_) : NULL;
    PyObject *size = PyObject_GetAttrString((PyObject *)n->uuid, "__basicsize__");
    Py_ssize_t bytes = size ? PyLong_AsSsize_t(size) : -1, at = 0, found = 0;
    for (Py_ssize_t off = (Py_ssize_t)sizeof(PyObject); got && u && Py_TYPE(u) == n->uuid &&
                                                        off + (Py_ssize_t)sizeof(PyObject *) <= bytes;
         off += (Py_ssize_t)sizeof(PyObject *)) {
        PyObject *p;
        memcpy(&p, (const char *)u + off, sizeof p);
        if (p == got) {
            at = off;
            found++;
        }
    }
    Py_XDECREF(big);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(u);
    Py_XDECREF(got);
    Py_XDECREF(size);
    PyErr_Clear();
    return found == 1 ? at : 0;
}

/* ---- Writing --------------------------------------------------------------------------------- */

/* *x = the int attribute `name` of v (an object of an exact built-in type) when it is an int in
 * [lo, hi]: WK_OK; TY_CALL when it is not (the reference is then asked); WK_ERROR. */
static int int_attr(PyObject *v, PyObject *name, long lo, long hi, long *x) {
    PyObject *o = PyObject_GetAttr(v, name);
    if (o == NULL) return WK_ERROR;
    int exact = PyLong_CheckExact(o);
    *x = exact ? PyLong_AsLong(o) : 0;
    Py_DECREF(o);
    if (*x == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return WK_ERROR;
        PyErr_Clear();
        return TY_CALL;
    }
    return exact && lo <= *x && *x <= hi ? WK_OK : TY_CALL;
}

/* x (0 to 99) in two digits (the core's "00" to "99" table: the fields are small, and a division
 * by 10 costs more than a load) */
static char *two(char *p, long x) {
    memcpy(p, fjcs__digit_pairs + 2 * (unsigned)x, 2);
    return p + 2;
}

/* x (0 to 999999) in six digits */
static char *six(char *p, long x) {
    unsigned u = (unsigned)x;
    two(two(two(p, (long)(u / 10000)), (long)(u / 100 % 100)), (long)(u % 100));
    return p + 6;
}

/* ---- Datetimes ------------------------------------------------------------------------------- */

/* The fields of a date, time or datetime (those of its kind), and its tzinfo (borrowed, Py_None
 * when it has none; a date has none). */
typedef struct dt_fields {
    long year, month, day, hour, minute, second, microsecond;
    PyObject *tzinfo;
} dt_fields;

/*
 * CPython's datetime objects, as its datetime.h lays them out (the header is not part of the
 * limited API): after the object's head and a cached hash, a flag saying whether a tzinfo is held,
 * the fields packed in big-endian bytes (year in 2, month, day, hour, minute, second, microsecond
 * in 3; a date has the first 4, a time the last 6), then, only where the flag is set, the fold
 * and the tzinfo. Reading these bytes costs a few instructions where the attributes cost some
 * hundreds each; the layout is checked when the types are registered (probe_layout: the bytes of
 * sample objects against their attributes), and where it does not hold, the attributes are read.
 */
typedef struct dt_layout {
    PyObject head;
    Py_hash_t hash;
    char has_tzinfo;
    unsigned char data[10];
    unsigned char fold;
    PyObject *tzinfo;
} dt_layout;

typedef struct time_layout {
    PyObject head;
    Py_hash_t hash;
    char has_tzinfo;
    unsigned char data[6];
    unsigned char fold;
    PyObject *tzinfo;
} time_layout;

typedef struct date_layout {
    PyObject head;
    Py_hash_t hash;
    char has_tzinfo;
    unsigned char data[4];
} date_layout;

static void fields_of_layout(const stdtypes *t, PyObject *v, PyTypeObject *type, dt_fields *f) {
    memset(f, 0, sizeof *f);
    f->tzinfo = Py_None;
    const unsigned char *clock = NULL;
    if (type == t->time) {
        const time_layout *o = (const time_layout *)v;
        clock = o->data;
        if (o->has_tzinfo) f->tzinfo = o->tzinfo;
    } else {
        const unsigned char *date = type == t->date ? ((const date_layout *)v)->data : ((const dt_layout *)v)->data;
        f->year = date[0] << 8 | date[1];
        f->month = date[2];
        f->day = date[3];
        if (type == t->datetime) {
            const dt_layout *o = (const dt_layout *)v;
            clock = o->data + 4;
            if (o->has_tzinfo) f->tzinfo = o->tzinfo;
        }
    }
    if (clock != NULL) {
        f->hour = clock[0];
        f->minute = clock[1];
        f->second = clock[2];
        f->microsecond = (long)clock[3] << 16 | clock[4] << 8 | clock[5];
    }
}

/* The fields by attribute: WK_OK, TY_CALL (a field out of its range: not the datetime module's
 * object), WK_ERROR. f->tzinfo is a new reference when WK_OK for a time or a datetime (for a
 * date, Py_None, borrowed). */
static int fields_of_attributes(const stdtypes *t, PyObject *v, PyTypeObject *type, dt_fields *f) {
    memset(f, 0, sizeof *f);
    int rc = WK_OK;
    if (type != t->time && ((rc = int_attr(v, t->year, 1, 9999, &f->year)) != WK_OK ||
                            (rc = int_attr(v, t->month, 1, 12, &f->month)) != WK_OK ||
                            (rc = int_attr(v, t->day, 1, 31, &f->day)) != WK_OK))
        return rc;
    f->tzinfo = Py_None; /* (a date's: borrowed, as fields_of_layout gives it) */
    if (type == t->date) return WK_OK;
    if ((rc = int_attr(v, t->hour, 0, 23, &f->hour)) != WK_OK || (rc = int_attr(v, t->minute, 0, 59, &f->minute)) != WK_OK ||
        (rc = int_attr(v, t->second, 0, 59, &f->second)) != WK_OK ||
        (rc = int_attr(v, t->microsecond, 0, 999999, &f->microsecond)) != WK_OK)
        return rc;
    f->tzinfo = PyObject_GetAttr(v, t->tzinfo);
    return f->tzinfo == NULL ? WK_ERROR : WK_OK;
}

/* Whether sample objects read by layout give their attributes: the check that CPython lays out
 * datetime objects as dt_layout says (0 also when the samples cannot be made). */
static int probe_layout(stdtypes *t) {
    PyObject *utc = PyObject_GetAttrString((PyObject *)t->timezone, "utc");
    PyObject *samples[] = {
        utc ? PyObject_CallFunction((PyObject *)t->datetime, "iiiiiiiO", 1234, 5, 6, 7, 8, 9, 101112, utc) : NULL,
        PyObject_CallFunction((PyObject *)t->datetime, "iiiiiii", 9999, 12, 31, 23, 59, 58, 999999),
        PyObject_CallFunction((PyObject *)t->date, "iii", 2026, 11, 30),
        utc ? PyObject_CallFunction((PyObject *)t->time, "iiiiO", 21, 22, 23, 456789, utc) : NULL,
        PyObject_CallFunction((PyObject *)t->time, "iiii", 1, 2, 3, 4),
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        dt_fields a, b;
        PyObject *v = samples[i];
        if (v == NULL || fields_of_attributes(t, v, Py_TYPE(v), &a) != WK_OK) {
            ok = 0;
            continue;
        }
        fields_of_layout(t, v, Py_TYPE(v), &b);
        ok &= memcmp(&a, &b, sizeof a) == 0;
        if (Py_TYPE(v) != t->date) Py_DECREF(a.tzinfo);
    }
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) Py_XDECREF(samples[i]);
    Py_XDECREF(utc);
    PyErr_Clear();
    return ok;
}

/* The UTC offset of tzinfo (None: nothing written; an exact datetime.timezone), as isoformat()
 * writes it: +HH:MM, then :SS when there are seconds, then .ffffff when there are microseconds,
 * the sign that of the offset; the text of the last timezone is kept (timezones are immutable).
 * Another tzinfo: TY_CALL (its utcoffset is Python code: the reference's to call). */
static int put_offset(stdtypes *t, PyObject *tz, char **pp) {
    if (tz == Py_None) return WK_OK;
    if (Py_TYPE(tz) != t->timezone) return TY_CALL;
    if (tz != t->tz_last) {
        PyObject *off = PyObject_CallFunctionObjArgs(t->tz_utcoffset, tz, Py_None, NULL);
        if (off == NULL) return WK_ERROR;
        /* a timezone's offset: a timedelta normalized as (days, seconds, microseconds), with
         * -1 <= days <= 0 (|offset| < 24 h) */
        long days = 0, secs = 0, us = 0;
        int rc = Py_TYPE(off) != t->timedelta ? TY_CALL : int_attr(off, t->days, -1, 0, &days);
        if (rc == WK_OK) rc = int_attr(off, t->seconds, 0, 86399, &secs);
        if (rc == WK_OK) rc = int_attr(off, t->microseconds, 0, 999999, &us);
        Py_DECREF(off);
        if (rc != WK_OK) return rc;
        int64_t total = ((int64_t)days * 86400 + secs) * 1000000 + us;
        char *p = t->tz_text;
        *p++ = total < 0 ? '-' : '+';
        if (total < 0) total = -total;
        int64_t whole = total / 1000000;
        p = two(p, (long)(whole / 3600));
        *p++ = ':';
        p = two(p, (long)(whole / 60 % 60));
        if (total % 60000000) {
            *p++ = ':';
            p = two(p, (long)(whole % 60));
            if (total % 1000000) {
                *p++ = '.';
                p = six(p, (long)(total % 1000000));
            }
        }
        t->tz_len = (size_t)(p - t->tz_text);
        PyObject *last = t->tz_last;
        t->tz_last = Py_NewRef(tz);
        Py_XDECREF(last); /* (a timezone's dealloc runs no Python code) */
    }
    memcpy(*pp, t->tz_text, t->tz_len);
    *pp += t->tz_len;
    return WK_OK;
}

/* The longest isoformat(): a datetime with an offset of seconds and microseconds. */
#define ISO_MAX 48

static int put_ascii(walk *w, const char *s, size_t n) {
    if (fjcs__buf_reserve(w->out, n + 2) != FJCS_OK) return WK_NOMEM;
    char *dst = w->out->data + w->out->len;
    dst[0] = '"';
    memcpy(dst + 1, s, n);
    dst[n + 1] = '"';
    w->out->len += n + 2;
    return WK_OK;
}

/* isoformat() of an exact date, time or datetime: YYYY-MM-DD, HH:MM:SS[.ffffff][offset], or the
 * two joined by T. */
static int put_datetime(walk *w, PyObject *v, PyTypeObject *type) {
    stdtypes *t = w->s->types;
    dt_fields f;
    int rc = WK_OK, held = 0;
    if (t->layout) {
        fields_of_layout(t, v, type, &f);
    } else {
        if ((rc = fields_of_attributes(t, v, type, &f)) != WK_OK) return rc;
        held = type != t->date;
    }
    /* written in place, between its quotes (put_offset does not touch the output) */
    if (fjcs__buf_reserve(w->out, ISO_MAX + 2) != FJCS_OK) {
        if (held) Py_DECREF(f.tzinfo);
        return WK_NOMEM;
    }
    char *text = w->out->data + w->out->len + 1, *p = text;
    if (type != t->time) {
        p = two(two(p, f.year / 100), f.year % 100);
        *p++ = '-';
        p = two(p, f.month);
        *p++ = '-';
        p = two(p, f.day);
    }
    if (type != t->date) {
        if (type == t->datetime) *p++ = 'T';
        p = two(p, f.hour);
        *p++ = ':';
        p = two(p, f.minute);
        *p++ = ':';
        p = two(p, f.second);
        if (f.microsecond) {
            *p++ = '.';
            p = six(p, f.microsecond);
        }
        rc = put_offset(t, f.tzinfo, &p);
    }
    if (held) Py_DECREF(f.tzinfo);
    if (rc != WK_OK) return rc;
    text[-1] = *p++ = '"';
    w->out->len += (size_t)(p - text) + 1;
    return WK_OK;
}

/* The 128 bits of n (an exact int) in *hi, *lo, read from the object in the layout the int probe
 * found (cpython/long_layout.h: the digit count, then 30-bit digits): 1; 0 when n is negative,
 * 2^128 or above, or the layout is not read (the API is asked then). */
static int uuid_bits_of_layout(PyObject *n, uint64_t *hi, uint64_t *lo) {
    int layout = fjcs__long_layout;
    if (layout < LONG_SIZE) return 0;
    const unsigned char *p = (const unsigned char *)n + sizeof(PyObject);
    uint64_t head, count;
    memcpy(&head, p, sizeof head);
    if (layout == LONG_SIZE) {
        if ((int64_t)head < 0) return 0;
        count = head;
    } else {
        if ((head & 3) == 2 || (head & 3) == 3) return 0; /* negative (3: no such tag) */
        count = (head & 3) == 1 ? 0 : head >> 3;
    }
    if (count > 5) return 0; /* 5 digits: 150 bits */
    uint64_t h = 0, l = 0;
    for (uint64_t i = count; i-- > 0;) {
        uint32_t d;
        memcpy(&d, p + sizeof head + 4 * i, sizeof d);
        if (h >> 34) return 0; /* shifted 30 bits left, past 128 */
        h = h << 30 | l >> 34;
        l = l << 30 | d;
    }
    *hi = h;
    *lo = l;
    return 1;
}

/* The 128 bits of n (an exact int) through the API: 1; 0, nothing raised, when n is negative or
 * 2^128 and above; -1 with an exception set. */
static int uuid_bits_of_api(const stdtypes *t, PyObject *n, uint64_t *hi, uint64_t *lo) {
    PyObject *high = PyNumber_Rshift(n, t->sixty_four);
    if (high == NULL) return -1;
    *lo = PyLong_AsUnsignedLongLongMask(n);
    *hi = PyLong_AsUnsignedLongLong(high); /* OverflowError: negative, or 2^64 and above */
    Py_DECREF(high);
    if (*hi == (uint64_t)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
        return 0;
    }
    return 1;
}

#if FJCS_HAVE_SSE2
/* The 16 lowercase hex digits of x, most significant first, as the two 8-byte words that hold
 * them in memory order (*first the first eight): its bytes in that order (reversed), each split
 * into its two nibbles, interleaved high first into 16 bytes, made digits at once ('0' added, and
 * 'a' - '0' - 10 more where a nibble is above 9). */
static void hex16(uint64_t *first, uint64_t *second, uint64_t x) {
    x = (x >> 8 & UINT64_C(0x00ff00ff00ff00ff)) | (x & UINT64_C(0x00ff00ff00ff00ff)) << 8;
    x = (x >> 16 & UINT64_C(0x0000ffff0000ffff)) | (x & UINT64_C(0x0000ffff0000ffff)) << 16;
    x = x >> 32 | x << 32;
    const __m128i low = _mm_set1_epi8(0x0f), v = _mm_cvtsi64_si128((long long)x);
    __m128i n = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(v, 4), low), _mm_and_si128(v, low));
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
    __m128i digits = _mm_add_epi8(n, _mm_add_epi8(letter, _mm_set1_epi8('0')));
    *first = (uint64_t)_mm_cvtsi128_si64(digits);
    *second = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(digits, digits));
}
#else
/* The 8 lowercase hex digits of x (32 bits), most significant first: each nibble spread to a
 * byte of its own, all made digits at once ('0'-'9', 'a'-'f'), as the word that holds them in
 * memory order. */
static uint64_t hex8(uint64_t x) {
    uint64_t v = (x | x << 16) & UINT64_C(0x0000ffff0000ffff);
    v = (v | v << 8) & UINT64_C(0x00ff00ff00ff00ff);
    v = (v | v << 4) & UINT64_C(0x0f0f0f0f0f0f0f0f); /* the most significant nibble in the top byte */
    uint64_t letter = ((v + UINT64_C(0x0606060606060606)) >> 4) & UINT64_C(0x0101010101010101);
    v += UINT64_C(0x3030303030303030) + letter * ('a' - '0' - 10);
#if FJCS_HAVE_LITTLE_ENDIAN /* the top byte first: the bytes reversed */
    v = (v >> 8 & UINT64_C(0x00ff00ff00ff00ff)) | (v & UINT64_C(0x00ff00ff00ff00ff)) << 8;
    v = (v >> 16 & UINT64_C(0x0000ffff0000ffff)) | (v & UINT64_C(0x0000ffff0000ffff)) << 16;
    v = v >> 32 | v << 32;
#else /* any byte order (a target not known to be little-endian): the top byte stored first */
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)(v >> (56 - 8 * i));
    memcpy(&v, bytes, 8);
#endif
    return v;
}

static void hex16(uint64_t *first, uint64_t *second, uint64_t x) {
    *first = hex8(x >> 32);
    *second = hex8(x & 0xffffffffu);
}
#endif

/* str(uuid): its 128-bit int as 32 lowercase hex digits, 8-4-4-4-12. An int that is not one of
 * 128 bits (negative, or 2^128 and above: a UUID object tampered with) is the reference's. The
 * class is read as the standard library ships it (the walker asks no __class__: types_sealed),
 * checked against what was registered at each UUID, or once while the class keeps the version
 * tag it had when found so (cpython/type_version.h): a __str__ of its own since is the
 * reference's to call; while its `int` is the slot it was, whose read runs no Python code, the int
 * is read from the object (where probe_uuid_int found it) and w->calls is not counted, and an
 * `int` patched since (a property, say) is read through what the class has now, as the reference
 * reads it, and counted: that code may have changed what is being walked. */
static int put_uuid(walk *w, PyObject *v) {
    stdtypes *t = w->s->types;
    unsigned tag = type_tag(t->uuid);
    int registered = 1; /* (UUID's `int` is the slot it was) */
    if (tag == 0 || tag != t->uuid_tag) { /* (the class unchanged since both were found as registered) */
        PyObject *str = PyObject_GetAttr((PyObject *)t->uuid, t->str_);
        if (str == NULL) return WK_ERROR;
        Py_DECREF(str);
        if (str != t->uuid_str) return TY_CALL; /* (compared by address only: uuid_str is held) */
        PyObject *slot = PyObject_GetAttr((PyObject *)t->uuid, t->int_);
        if (slot == NULL) return WK_ERROR;
        Py_DECREF(slot);
        if (slot != t->uuid_int) w->calls++;
        registered = slot == t->uuid_int;
        /* kept when the class had its tag before both reads and still has it (a class given its
         * first tag by these reads is kept at the next UUID) */
        t->uuid_tag = registered && tag != 0 && type_tag(t->uuid) == tag ? tag : 0;
    }
    /* while `int` is the slot registered, what it reads is read from the object (held: a
     * finalizer run by an allocation below may set another); an empty slot raises by getattr */
    PyObject *n = NULL;
    if (registered && t->layout && t->uuid_at) memcpy(&n, (const char *)v + t->uuid_at, sizeof n);
    n = n != NULL ? Py_NewRef(n) : PyObject_GetAttr(v, t->int_);
    if (n == NULL) return WK_ERROR;
    uint64_t hi = 0, lo = 0;
    int ok = !PyLong_CheckExact(n) ? 0 : uuid_bits_of_layout(n, &hi, &lo) ? 1 : uuid_bits_of_api(t, n, &hi, &lo);
    Py_DECREF(n);
    if (ok <= 0) return ok < 0 ? WK_ERROR : TY_CALL;
    if (fjcs__buf_reserve(w->out, 38) != FJCS_OK) return WK_NOMEM;
    /* written in place, quoted, 8-4-4-4-12, from the digits' words in registers (made in a buffer
     * and copied from it, the copies' loads waited for its stores: store forwarding fails) */
    char *text = w->out->data + w->out->len;
    uint64_t a0, a1, b0, b1;
    hex16(&a0, &a1, hi);
    hex16(&b0, &b1, lo);
    text[0] = '"';
    memcpy(text + 1, &a0, 8);
    text[9] = '-';
    memcpy(text + 10, &a1, 4);
    text[14] = '-';
    memcpy(text + 15, (const char *)&a1 + 4, 4);
    text[19] = '-';
    memcpy(text + 20, &b0, 4);
    text[24] = '-';
    memcpy(text + 25, (const char *)&b0 + 4, 4);
    memcpy(text + 29, &b1, 8);
    text[37] = '"';
    w->out->len += 38;
    return WK_OK;
}

/* ---- Decimals (read from the object by cpython/decimal_layout.c) ----------------------------- */

/* str(decimal) (exact Decimal: its __str__ is C's and its text ASCII). */
static int put_decimal(walk *w, PyObject *v) {
    const stdtypes *t = w->s->types;
    if (t->layout && t->decimal_ok) { /* written in place, between its quotes */
        if (fjcs__buf_reserve(w->out, DEC_TEXT + 2) != FJCS_OK) return WK_NOMEM;
        char *dst = w->out->data + w->out->len;
        size_t len = decimal_text(v, dst + 1);
        if (len) {
            dst[0] = dst[len + 1] = '"';
            w->out->len += len + 2;
            return WK_OK;
        }
    }
    PyObject *s = PyObject_Str(v);
    if (s == NULL) return WK_ERROR;
    Py_ssize_t n;
    const char *text = PyUnicode_CheckExact(s) ? PyUnicode_AsUTF8AndSize(s, &n) : NULL;
    int rc = text == NULL ? (PyErr_Occurred() ? WK_ERROR : TY_CALL) : put_ascii(w, text, (size_t)n);
    Py_DECREF(s);
    return rc;
}

int types_convert(walk *w, PyObject *v, PyObject **result) {
    const stdtypes *t = w->s->types;
    PyTypeObject *type = Py_TYPE(v);
    *result = NULL;
    if (type == t->datetime || type == t->date || type == t->time) return put_datetime(w, v, type);
    if (type == t->uuid) return put_uuid(w, v);
    if (type == t->decimal) return put_decimal(w, v);
    /* (a class found a dataclass and unchanged since is the walker's to send to types_dataclass
     * before it asks this: types_dataclass_known) */
    /* StdlibTypes.__call__'s order: a subclass of those (an Enum that is also a date, say) is its */
    if (PyType_IsSubtype(type, t->date) || PyType_IsSubtype(type, t->time) || PyType_IsSubtype(type, t->uuid) ||
        PyType_IsSubtype(type, t->decimal))
        return TY_CALL;
    if (PyType_IsSubtype(type, t->enumeration)) { /* (the walker has checked v's __class__) */
        w->calls++; /* the member's __dict__ lookup may meet a descriptor of the enum's own */
        *result = PyObject_GetAttr(v, t->value_);
        return *result == NULL ? WK_ERROR : TY_RESULT;
    }
    return types_dataclass(w, v, result);
}

int types_no_conversion(walk *w) {
    const stdtypes *t = w->s->types;
    if (!PyErr_ExceptionMatches(t->unsupported)) return 0;
    /* Only StdlibTypes' own refusal, made when it has no fallback: a fallback's exception is the
     * fallback's to raise, whatever its class. */
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *fallback = PyObject_GetAttr(w->dflt, t->fallback);
    int own = fallback == Py_None;
    Py_XDECREF(fallback);
    PyErr_Clear(); /* (had the read failed) */
    if (own) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
    } else {
        PyErr_Restore(type, value, traceback);
    }
    return own;
}
