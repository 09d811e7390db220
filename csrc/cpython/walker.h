/*
 * cpython/walker.h: what the direct entry's two files share (walker.c reads Python values;
 * direct.c is the module: its state, arguments, hashing and results).
 */
#ifndef FJCS_CPYTHON_WALKER_H
#define FJCS_CPYTHON_WALKER_H

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

#define MAX_SAFE_INT 9007199254740991LL /* 2^53 - 1: the ints JCS carries exactly */

/* One open container. */
typedef struct wframe {
    PyObject *obj;      /* a strong reference, released when the frame is popped */
    Py_ssize_t pos, n;  /* the next member or item, and how many there are */
    size_t base;        /* dict: its first member in the member stack (in canonical order) */
    size_t calls;       /* the walk's callouts when it opened (a dict is read again after one) */
    size_t made_at;     /* a dataclass's members (obj the instance, never read again): 1 + where its
                         * group is in the walk's log (cpython/dataclass.c); 0: any other frame */
    unsigned char kind;
} wframe;

/* A member of an open dict: its name (the key's UTF-8, which the key keeps alive) and value, both
 * held by strong references while the dict is open: Python code that runs during the walk (a
 * finalizer, another hook) may remove them from the dict. */
typedef struct wpair {
    const uint8_t *key;
    size_t key_len;
    uint64_t head;      /* the name's first 8 bytes, big-endian, zeros past its end (walker.c) */
    PyObject *name;     /* strong */
    PyObject *value;    /* strong */
} wpair;

/* A member order a walk met, for dicts of 2 to SHAPE_MAX members (one kept per count): the names
 * in the order such a dict held them (strong references, released when the walk ends: names are
 * compared as objects, which cannot then be other names at the same address) and their places in
 * canonical order. A dict holding the same names, the same objects in the same order, takes that
 * order without a sort (rows of records: one sort per shape), each member read into its place. */
#define SHAPE_MAX 16
typedef struct wshape {
    PyObject *names[SHAPE_MAX]; /* names[0] NULL: none kept */
    unsigned char rank[SHAPE_MAX]; /* rank[i]: the place in canonical order of the i-th name */
    unsigned char seen; /* a dict of this count was sorted in the walk (kept from the second on) */
} wshape;

/* Cycle check: the first SCAN_FRAMES open containers are compared one by one; deeper ones are
 * also entered in an open-addressing set of addresses (a power-of-two table), so a deep value
 * costs O(1) per container. */
#define SCAN_FRAMES 32

/* Classes whose honest __class__ is kept (a power of two). */
#define HONEST_SLOTS 16

/* cpython/dataclass.c's cache of the canonical order of each dataclass's member names. */
#define DC_SLOTS 32
typedef struct dc_entry dc_entry;

/* What fastjcs.core.stdlib_types registers (register_types): the StdlibTypes class, whose
 * instances, given as default=, the walker recognizes, and the types it writes itself for them
 * (cpython/types.c). Registered once per interpreter; `held` owns every reference below. */
typedef struct stdtypes {
    PyObject *held;     /* a tuple of the registered objects (NULL: nothing registered) */
    PyObject *cls, *unsupported, *field_marker, *tz_utcoffset;
    PyTypeObject *datetime, *date, *time, *timezone, *timedelta, *uuid, *decimal, *enumeration;
    /* interned attribute names */
    PyObject *year, *month, *day, *hour, *minute, *second, *microsecond, *tzinfo, *days, *seconds,
        *microseconds, *int_, *value_, *fields, *field_type, *name, *fallback, *str_;
    PyObject *sixty_four; /* the int 64 */
    PyObject *uuid_int, *uuid_str; /* UUID's `int` (its slot) and `__str__` as registered */
    unsigned uuid_tag;  /* UUID's version tag when they were last found so (0: none; type_version.h) */
    unsigned uuid_sealed_tag; /* UUID's version tag when types_sealed last found it sealed (0: none) */
    /* datetime, date, time and Decimal, each where it was immutable when registered (a type's
     * Py_TPFLAGS_IMMUTABLETYPE is never taken back), else NULL: types_sealed */
    PyTypeObject *sealed[4];
    Py_ssize_t uuid_at; /* where a UUID object keeps its int (the slot `int` reads; 0: not found) */
    int layout_ok;      /* datetime, date and time objects are laid out as types.c reads them */
    int layout;         /* ... and it reads them so, and Decimals (datetime_layout turns it off for tests) */
    int decimal_ok;     /* Decimal objects are laid out as types.c reads them */
    PyObject *tz_last;  /* the timezone whose offset was written last (strong), and its text */
    char tz_text[24];
    size_t tz_len;
    dc_entry *dc[DC_SLOTS]; /* (cpython/dataclass.c) */
    /* dataclasses.Field, its descriptors of name and _field_type (held), and where they keep
     * them in the object (0: not found; cpython/dataclass.c, probe_field) */
    PyObject *field_cls, *field_name, *field_kind;
    Py_ssize_t name_at, kind_at;
    unsigned field_tag; /* Field's version tag when it was last found intact (0: none) */
} stdtypes;

/* Algorithms the public digest functions can serve at most (fastjcs has two: sha256, sha384). */
#define FJCS_NAMED_HASHERS 8
/* The Python functions the public ones hand calls to, and native_errors' wording (api.c). */
#define FJCS_PYTHON_FUNCTIONS 9

typedef struct state {
    int busy;
    int heap;           /* a state of one re-entrant call (see enter), freed when it ends */
    PyObject *class_name; /* "__class__", interned (made when the module is) */
    stdtypes own_types; /* the module state's registration (a re-entrant call's state: empty) */
    stdtypes *types;    /* the module state's own_types (a re-entrant call's state borrows them) */
    PyObject *resume;   /* python_backend.resume, which goes on from where the walker stopped */
    /* the public functions (api.c) */
    int handing_over;   /* each call goes to the API's Python function (serve_public) */
    size_t held_text;   /* the longest text parsed here, the GIL held (held_text_limit) */
    struct {
        PyObject *name, *prefix; /* the algorithm (str) and its rendered prefix (bytes), strong */
        fjcs_hasher h;           /* its prefix points into the bytes */
    } hashers[FJCS_NAMED_HASHERS]; /* register_hasher: the algorithms the public digests serve */
    int nhashers;
    PyObject *python_fns[FJCS_PYTHON_FUNCTIONS]; /* api.c's hand_over: each imported at first use */
    fjcs_buf out;
    size_t out_hint;    /* the last output's length when its buffer was given back (see out_ready) */
    fjcs__text text;
    int text_ready;
    wframe *frames;
    size_t frames_cap;
    wpair *pairs;       /* the members of the open dicts, each dict's in canonical order */
    size_t pairs_cap, npairs;
    wpair *pairs_tmp;   /* the member sort's space (member_sort.h) */
    size_t pairs_tmp_cap;
    PyObject **set;     /* deep open containers (NULL: empty slot); set_cap slots */
    size_t set_cap, set_len;
    wshape shapes[SHAPE_MAX - 1]; /* for dicts of 2 .. SHAPE_MAX members (walker.c's take_shape) */
    unsigned shapes_used; /* bit n - 2: dicts of n members were sorted in this walk (walk_done) */
    int shaping;        /* the walk has sorted a dict: shapes are looked for and kept from then on */
    /* classes whose objects' __class__ is their type, each at the version tag it had when this
     * was found (walker.c's honest_class; cpython/type_version.h); no reference held */
    struct {
        PyTypeObject *type;
        unsigned tag;
    } honest[HONEST_SLOTS];
    struct bytes_out {  /* dumps's output in the bytes object it returns (bytes_out.c, direct.h) */
        PyObject *bytes; /* the object the output moved into (NULL: none, or a resize failed) */
        int moved;      /* the output moved (out's data is or was the object's) */
        char *kept;     /* ... out's own data and capacity, put back at the end */
        size_t kept_cap;
        size_t hint;    /* the size of the object to make: the last such output's and a little more */
    } bout;
} state;

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
    /* the dataclasses whose members the walk wrote itself, each a group: where w->made was, the
     * instance, the tuple of its names, a value each (held; cpython/dataclass.c) */
    union dc_item *log;
    size_t log_len, log_cap;
} walk;

static inline walk walk_init(state *s, size_t max_depth, int flags, fjcs_buf *out) {
    walk w = {s, out, 0, max_depth, flags, NULL, NULL, 0, NULL, 0, NULL, 0, 0};
    return w;
}

/* Whether the walker reads small exact ints from the object (the layout its probe found) or
 * through the API; flag 1 or 0 sets it (-1: only asks). Returns the previous setting, or -1 when
 * flag is 1 and the probe found no layout it reads (cpython/long_layout.c). */
int walk_int_layout(int flag);

/* The same for the characters of compact ASCII strs (cpython/str_layout.c). */
int walk_str_layout(int flag);

/* The direct module's test hooks int_layout([flag]) and str_layout([flag]) over the two above
 * (cpython/long_layout.c, cpython/str_layout.c; direct.c's methods document them). */
PyObject *direct_int_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *direct_str_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* A reading's test hook (int_layout, str_layout, list_layout, dict_layout: direct.c's methods
 * document them), `name`([flag]) over `reading`, its switch: whether the walker reads by it;
 * with flag, sets it and returns the previous setting, ValueError(refused) where the probe found
 * no layout to read by (cpython/hooks.c). */
PyObject *layout_switch(PyObject *const *args, Py_ssize_t nargs, const char *name, int (*reading)(int),
                        const char *refused);

/* The running Python's minor version (3.x: x), 0 when not 3: the layout probes read objects only
 * on the versions whose layout they know (cpython/type_version.c). */
int fjcs__python_minor(void);

/* Canonicalize obj into w->out (appended), w set up by the caller (walk_init): WK_OK, or what
 * the walk says when it does not give canonical bytes. */
int walk_run(walk *w, PyObject *obj);

/* Release what a walk holds: its open frames, where it stopped, what default made. */
void walk_done(walk *w);

/* walk_init, walk_run and walk_done in one, for a walk without default. */
int walk_value(state *s, PyObject *obj, size_t max_depth, int flags, fjcs_buf *out);

/* The value v (of no type the walker reads itself) given to default=, when default is a
 * StdlibTypes (w->s->types->cls): written here (WK_OK) when it is of a type written natively;
 * TY_RESULT with *result (a new reference) the value to walk in its place (an enum's value, a
 * dataclass's members as a dict); TY_CALL when default must be called; WK_NOMEM, WK_ERROR
 * (cpython/types.c). */
enum { TY_RESULT = 16, TY_CALL = 17 };
int types_convert(walk *w, PyObject *v, PyObject **result);

/* A value of no type types_convert writes itself, as StdlibTypes.__call__ reads a dataclass: WK_OK
 * when its members' frame is opened (their "{" written; they are the walker's to write), TY_RESULT
 * with *result the dict the reference makes, TY_CALL when it is no dataclass, WK_REFUSE at the
 * depth limit (nothing read), WK_NOMEM, WK_ERROR (cpython/dataclass.c). */
int types_dataclass(walk *w, PyObject *v, PyObject **result);
/* Whether type was found a dataclass by types_dataclass and has kept the version tag it had then
 * (its MRO unchanged; cpython/dataclass.c). Such a class is of none of the types before a
 * dataclass in StdlibTypes.__call__'s order, nor a subclass of int, float, str, dict, list or
 * tuple: the walker reads those before it asks types_convert, the only caller of types_dataclass
 * for a class not known so, and a class's subclass flags and MRO do not change while it keeps
 * its tag. */
dc_entry *types_dataclass_known(const stdtypes *t, PyTypeObject *type);
/* types_dataclass of v, whose class's entry is e (types_dataclass_known, asked just before). */
int types_known_dataclass(walk *w, PyObject *v, dc_entry *e, PyObject **result);
void types_dataclass_clear(stdtypes *t);
/* Find where dataclasses.Field objects keep their name and _field_type (at registration). */
void types_dataclass_register(stdtypes *t);

/* Before walk_stopped_at: the dataclasses' members the walk wrote itself made the dicts the
 * reference makes, in w->made and in their open frames. 0, or -1 with an exception set. */
int types_stopped(walk *w);
/* Release the walk's log (walk_done). */
void types_walk_done(walk *w);

/* Whether the walk's default= is a StdlibTypes (its exact class: a subclass may change __call__). */
static inline int stdlib_default(const walk *w) {
    return w->dflt != NULL && w->s->types->held != NULL && Py_TYPE(w->dflt) == (PyTypeObject *)w->s->types->cls;
}

/* Whether the exception default raised (set) is StdlibTypes' "no conversion" for a value of
 * another type with no fallback: the walk then stops there, for python_backend.resume to word
 * the error with its path (the exception is cleared). */
int types_no_conversion(walk *w);

/* register_types(cls, unsupported, datetime, date, time, timezone, timedelta, UUID, Decimal, Enum,
 * FIELD): see direct.c's methods. */
PyObject *types_register(stdtypes *t, PyObject *const *args, Py_ssize_t nargs);
void types_clear(stdtypes *t);

/* An exact Decimal in plain notation read from its object (cpython/decimal_layout.c): str(v)
 * written into text (DEC_TEXT bytes), its length; 0 when it is not read so (str() is asked then).
 * probe_decimal: whether sample Decimals read so give their str() (at registration). */
#define DEC_TEXT 96 /* 4 words of 19 digits, a sign, "0." and 5 zeros */
size_t decimal_text(PyObject *v, char *text);
int probe_decimal(PyTypeObject *decimal);

/* Where a walk stopped, for python_backend.resume: (written, frames, pending, chain, made), the
 * text written as a str and the open containers outermost first, each (list or tuple, the index
 * of its next item) or (dict, its names not yet written, in order). NULL with an exception set. */
PyObject *walk_stopped_at(walk *w);

#endif
