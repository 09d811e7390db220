/*
 * cpython/dataclass.c: a dataclass instance given to default=fastjcs.stdlib_types (a StdlibTypes),
 * its members written by the walker itself.
 *
 * The reference (StdlibTypes.__call__) makes a dict: the names of the fields in
 * type(value).__dataclass_fields__ (an exact dict) whose _field_type is dataclasses' _FIELD, all
 * read first, then {name: getattr(value, name)} in that order. Here the same reads are made, in the
 * same order, every time (so a field changed, added, renamed or replaced, a __dataclass_fields__
 * replaced or changed in place, is read as the reference reads it; a Field's name and _field_type
 * from its slots while dataclasses.Field is as registered: "Reading a Field" below); what is not
 * made is the dict: the members go straight onto the walker's member stack, as a dict's would,
 * under a frame whose object is the instance (wframe.made_at says so), in canonical order, and
 * the walker writes them.
 *
 * The canonical order of the names is what costs (their UTF-8, a sort in UTF-16 order): it is kept
 * per class, in a small cache (stdtypes.dc), as the order of a tuple of name objects. The cache
 * only memoizes a function of those objects (their order, checked distinct): an entry is used when
 * the names just read are the very objects its tuple holds, one by one; it holds them, so none can
 * be freed and another str made at its address. The class is only where to look: a class freed
 * and another made at its address finds an entry whose names are not its own, or are, and then the
 * order is right. Nothing can make an entry stale. The common case compares the names with an
 * entry's as they are read from the Field slots (names_in_slots), holding and copying nothing.
 *
 * What the walk wrote itself is logged (w->log) as a group, [where w->made was, instance, names,
 * value...] (names the tuple of the names in the fields' order, a value each: held), where the
 * reference records a pair (value, what default made) in made: no dict, no pair. When the walk
 * stops (python_backend.resume goes on from there), types_stopped puts each group's pair
 * (instance, the dict of its members) in w->made where the reference has it, and the open frames
 * of the instances refer to those dicts.
 *
 * Where this does not serve (a metaclass, a name that is not an exact str or not UTF-8, two fields
 * with one name, nesting past the frames compared one by one, more than DC_NAMES members), the
 * dict is made, as the reference makes it, and walked: what default returns.
 */
#include "type_version.h"

#define DC_NAMES 256 /* members of a class in the cache, at most */
#define DC_LOG_KEPT 65536 /* the most items of a log kept for the next walk (512 KB) */

/* A walk's log, kept when it ends for the next walk to log into: grown from 16 items, the log of
 * 1,000 records was copied ten times in each call. Taken whole by a walk (a re-entrant one, in
 * default=, makes its own); the GIL is held throughout (the module declares no interpreter of
 * its own GIL, and the free-threaded build loads no limited-API module). */
static union dc_item *spare_log;
static size_t spare_cap;

/* A member: where it goes (its canonical position), its name (held by names) and the name's UTF-8
 * (the str's). */
typedef struct dc_member {
    size_t rank;
    PyObject *name;
    const uint8_t *key;
    size_t len;
} dc_member;

struct dc_entry {
    PyTypeObject *type;  /* where it is looked up (not held: the names decide) */
    PyObject *names;     /* a tuple: the member names in the fields' order (held) */
    PyObject **name;     /* its items */
    Py_ssize_t n;
    dc_member *member;   /* member[i]: names[i]'s */
    unsigned tag;        /* type's version tag when `fields` was its __dataclass_fields__ (0: none) */
    int generic;         /* whether type's attribute lookup was the generic one then */
    PyObject *fields;    /* (not held: while the class keeps that tag, its MRO's dicts hold it) */
    /* the __dataclass_fields__ dict whose names were last found e's (not held), its version then
     * (type_version.h; 0: none) and its items then, in order (not held: while the dict has that
     * version it holds them) */
    PyObject *seen;
    uint64_t seen_version;
    PyObject **seen_field;
    Py_ssize_t nseen;
    unsigned pins;       /* walks reading its members now (open_members): not replaced meanwhile */
};

static void entry_free(dc_entry *e) {
    if (e == NULL) return;
    Py_DECREF(e->names); /* (a tuple of str: no Python code runs) */
    free(e->seen_field);
    free(e->member);
    free(e->name);
    free(e);
}

void types_dataclass_clear(stdtypes *t) {
    for (int i = 0; i < DC_SLOTS; i++) {
        entry_free(t->dc[i]);
        t->dc[i] = NULL;
    }
    Py_CLEAR(t->field_cls);
    Py_CLEAR(t->field_name);
    Py_CLEAR(t->field_kind);
    t->name_at = t->kind_at = 0;
}

/* ---- Reading a Field ------------------------------------------------------------------------- */

/*
 * The reference reads field._field_type and field.name: attributes of dataclasses.Field objects,
 * kept in slots (member descriptors of the class). An attribute read costs some hundred and fifty
 * instructions; the slot, read from the object, a few. Where the slots are is found at
 * registration (probe_field: sentinel objects set as the attributes of a Field, looked for in
 * the object), and a slot is read in place of the attribute only for an object of the exact class
 * whose attribute lookup is the generic one and whose two attributes are still the descriptors
 * found then (checked once per dataclass read, or once while Field keeps the version tag it had
 * when found so: cpython/type_version.h; a class changed since, a descriptor replaced by a
 * property, is read through the attributes). An empty slot (an attribute never set) is read
 * through the attribute too, which raises as the reference's read raises.
 */

/* Where in a `cls` object the attribute `name` keeps its value: found by setting it to a sentinel
 * and looking for it among the object's pointers; 0 when not found once. */
static Py_ssize_t slot_offset(PyObject *cls, PyObject *sample, const char *name, Py_ssize_t size) {
    PyObject *sentinel = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
    Py_ssize_t at = 0, found = 0;
    if (sentinel != NULL && PyObject_SetAttrString(sample, name, sentinel) == 0) {
        for (Py_ssize_t off = (Py_ssize_t)sizeof(PyObject); off + (Py_ssize_t)sizeof(PyObject *) <= size;
             off += (Py_ssize_t)sizeof(PyObject *)) {
            PyObject *p;
            memcpy(&p, (const char *)sample + off, sizeof p);
            if (p == sentinel) {
                at = off;
                found++;
            }
        }
    }
    (void)cls;
    Py_XDECREF(sentinel);
    return found == 1 ? at : 0;
}

void types_dataclass_register(stdtypes *t) {
    PyObject *module = PyImport_ImportModule("dataclasses");
    PyObject *cls = module ? PyObject_GetAttrString(module, "Field") : NULL;
    PyObject *make = module ? PyObject_GetAttrString(module, "field") : NULL;
    PyObject *sample = make ? PyObject_CallNoArgs(make) : NULL;
    PyObject *size = cls ? PyObject_GetAttrString(cls, "__basicsize__") : NULL;
    Py_ssize_t bytes = size ? PyLong_AsSsize_t(size) : -1;
    if (cls && sample && PyType_Check(cls) && Py_TYPE(sample) == (PyTypeObject *)cls && bytes > 0 &&
        Py_TYPE(cls) == &PyType_Type) {
        t->name_at = slot_offset(cls, sample, "name", bytes);
        t->kind_at = slot_offset(cls, sample, "_field_type", bytes);
        t->field_name = PyObject_GetAttrString(cls, "name");
        t->field_kind = PyObject_GetAttrString(cls, "_field_type");
        if (t->name_at && t->kind_at && t->name_at != t->kind_at && t->field_name && t->field_kind) {
            t->field_cls = Py_NewRef(cls);
        } else {
            Py_CLEAR(t->field_name);
            Py_CLEAR(t->field_kind);
            t->name_at = t->kind_at = 0;
        }
    }
    Py_XDECREF(module);
    Py_XDECREF(cls);
    Py_XDECREF(make);
    Py_XDECREF(sample);
    Py_XDECREF(size);
    PyErr_Clear();
}

/* Whether the Field class reads its objects' name and _field_type from the slots found: found
 * again only when the class has changed since it was last found so (its version tag). */
static int field_class_intact(stdtypes *t) {
    PyTypeObject *cls = (PyTypeObject *)t->field_cls;
    if (cls == NULL) return 0;
    unsigned tag = type_tag(cls);
    if (tag != 0 && tag == t->field_tag) return 1;
    if (PyType_GetSlot(cls, Py_tp_getattro) != (void *)PyObject_GenericGetAttr) return 0;
    PyObject *name = PyObject_GetAttr(t->field_cls, t->name), *kind = PyObject_GetAttr(t->field_cls, t->field_type);
    int intact = name == t->field_name && kind == t->field_kind;
    Py_XDECREF(name);
    Py_XDECREF(kind);
    if (name == NULL || kind == NULL) PyErr_Clear(); /* (a read that failed: not intact) */
    /* kept when the class had the tag before the reads and still has it */
    t->field_tag = intact && tag != 0 && type_tag(cls) == tag ? tag : 0;
    return intact;
}

/* The attribute of a Field (a new reference): from its slot when `slots`, else by getattr. */
static PyObject *field_attr(PyObject *field, PyObject *attr, Py_ssize_t at, int slots) {
    if (slots) {
        PyObject *v;
        memcpy(&v, (const char *)field + at, sizeof v);
        if (v != NULL) return Py_NewRef(v);
    }
    return PyObject_GetAttr(field, attr);
}

static size_t slot_of(const PyTypeObject *type) {
    uintptr_t h = (uintptr_t)type >> 4;
    return (size_t)(h ^ h >> 7) & (DC_SLOTS - 1);
}

/* The entry of `type` whose names are names[0..n), or NULL. */
static dc_entry *lookup(const stdtypes *t, PyTypeObject *type, PyObject *const *names, Py_ssize_t n) {
    dc_entry *e = t->dc[slot_of(type)];
    if (e == NULL || e->type != type || e->n != n) return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (e->name[i] != names[i]) return NULL;
    return e;
}

/* A new entry for names[0..n) of `type`, put in its slot: NULL when the names are not all exact
 * str of UTF-8 and distinct, or there are too many (nothing raised), or with an exception set. */
static dc_entry *entry_new(stdtypes *t, PyTypeObject *type, PyObject *const *names, Py_ssize_t n) {
    dc_entry *in_slot = t->dc[slot_of(type)];
    if (n > DC_NAMES || (in_slot != NULL && in_slot->pins)) return NULL; /* (a pinned one: no entry) */
    const uint8_t *key[DC_NAMES];
    size_t len[DC_NAMES];
    Py_ssize_t order[DC_NAMES];
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t k;
        if (!PyUnicode_CheckExact(names[i])) return NULL;
        if ((key[i] = (const uint8_t *)PyUnicode_AsUTF8AndSize(names[i], &k)) == NULL) {
            PyErr_Clear(); /* a lone surrogate: the walker refuses the name */
            return NULL;
        }
        len[i] = (size_t)k;
        /* insertion sort: order[0..i] by name, canonically (few names, sorted once per class) */
        Py_ssize_t j = i;
        for (; j > 0 && fjcs__key_cmp(key[order[j - 1]], len[order[j - 1]], key[i], len[i]) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (Py_ssize_t j = 1; j < n; j++)
        if (fjcs__key_cmp(key[order[j - 1]], len[order[j - 1]], key[order[j]], len[order[j]]) == 0)
            return NULL; /* two fields of one name: the reference's dict keeps one */
    dc_entry *e = (dc_entry *)malloc(sizeof *e);
    dc_member *member = (dc_member *)malloc((size_t)n * sizeof *member);
    PyObject **name = (PyObject **)malloc((size_t)n * sizeof *name);
    PyObject *tuple = PyTuple_New(n);
    if (e == NULL || member == NULL || name == NULL || tuple == NULL) {
        free(e);
        free(member);
        free(name);
        Py_XDECREF(tuple);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t j = 0; j < n; j++) member[order[j]].rank = (size_t)j;
    for (Py_ssize_t i = 0; i < n; i++) {
        member[i].name = names[i];
        member[i].key = key[i];
        member[i].len = len[i];
        name[i] = names[i];
        PyTuple_SetItem(tuple, i, Py_NewRef(names[i]));
    }
    e->type = type;
    e->tag = 0;
    e->generic = 0;
    e->fields = NULL;
    e->seen = NULL;
    e->seen_version = 0;
    e->seen_field = NULL;
    e->nseen = 0;
    e->pins = 0;
    e->names = tuple;
    e->name = name;
    e->n = n;
    e->member = member;
    dc_entry **slot = &t->dc[slot_of(type)];
    entry_free(*slot);
    *slot = e;
    return e;
}

/* Whether the name of `field` (an exact Field, its class intact: read from its slots, which runs
 * no Python code) is e's j-th, when it is a field: 1 and *j moved on; 0 when it is not; 1 and *j
 * left when it is no field (its _field_type not the marker). */
FJCS_INLINE int name_in_slot(const stdtypes *t, PyObject *field, const dc_entry *e, Py_ssize_t *j) {
    PyObject *kind, *name;
    if (Py_TYPE(field) != (PyTypeObject *)t->field_cls) return 0;
    memcpy(&kind, (const char *)field + t->kind_at, sizeof kind);
    if (kind != t->field_marker) return kind != NULL; /* (never set: the attribute read raises) */
    memcpy(&name, (const char *)field + t->name_at, sizeof name);
    if (*j >= e->n || name != e->name[*j]) return 0;
    (*j)++;
    return 1;
}

/* Whether the names the reference reads of `fields` (exact Field objects, their class intact)
 * are e's, one by one: the common case, read without holding or copying anything. While the dict
 * keeps the version it had when its names were last found e's (type_version.h), its items are
 * those found then, in that order: they are read from e (each Field's slots read again: a Field
 * changes without its dict), not through the dict (names_in_dict, out of line, reads the dict
 * and keeps its items in e). */
static FJCS_NOINLINE int names_in_dict(const stdtypes *t, PyObject *fields, dc_entry *e, uint64_t version);

static int names_in_slots(const stdtypes *t, PyObject *fields, dc_entry *e) {
    uint64_t version = dict_version(fields);
    if (version != 0 && fields == e->seen && version == e->seen_version) {
        Py_ssize_t j = 0;
        for (Py_ssize_t i = 0; i < e->nseen; i++)
            if (!name_in_slot(t, e->seen_field[i], e, &j)) return 0;
        return j == e->n;
    }
    return names_in_dict(t, fields, e, version);
}

/* names_in_slots, the names read through the dict (kept in e for the next instance where the
 * dict has a version). */
static int names_in_dict(const stdtypes *t, PyObject *fields, dc_entry *e, uint64_t version) {
    Py_ssize_t pos = 0, j = 0, k = 0;
    PyObject *key, *field, *few[16];
    Py_ssize_t count = PyDict_Size(fields);
    PyObject **items = version == 0 ? NULL : count <= 16 ? few : (PyObject **)malloc((size_t)count * sizeof *items);
    int same = 1;
    while (same && PyDict_Next(fields, &pos, &key, &field)) {
        same = name_in_slot(t, field, e, &j);
        if (items != NULL && k < count) items[k++] = field;
    }
    same = same && j == e->n;
    if (same && items != NULL && k == count && count > 0) { /* kept for the next instance */
        PyObject **kept = (PyObject **)realloc(e->seen_field, (size_t)count * sizeof *kept);
        if (kept != NULL) {
            memcpy(kept, items, (size_t)count * sizeof *kept);
            e->seen_field = kept;
            e->nseen = count;
            e->seen = fields;
            e->seen_version = version;
        }
    }
    if (items != few) free(items);
    return same;
}

/* Release the references of names[0..n) and the array, when on the heap. */
static void release_names(PyObject **names, Py_ssize_t n, PyObject **local) {
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(names[i]);
    fjcs__release(names, local);
}

/* The reference's reading of the names: each field of `fields` (its values as they are now, held:
 * Python code run by a read may change the dict) whose _field_type is the marker, its name.
 * *names (room for *cap, starting in local) holds them, new references, *n of them. WK_OK,
 * WK_ERROR, WK_NOMEM. */
static int read_names(const stdtypes *t, PyObject *fields, int intact, PyObject ***names, size_t *cap, Py_ssize_t *n,
                      PyObject **local) {
    Py_ssize_t count = PyDict_Size(fields), pos = 0, k = 0;
    PyObject *key, *field, *few[16];
    PyObject **all = count <= 16 ? few : (PyObject **)malloc((size_t)count * sizeof *all);
    if (all == NULL) return WK_NOMEM;
    int exact = t->field_cls != NULL;
    while (k < count && PyDict_Next(fields, &pos, &key, &field)) {
        exact &= Py_TYPE(field) == (PyTypeObject *)t->field_cls;
        all[k++] = Py_NewRef(field);
    }
    int rc = WK_OK, slots = exact && k > 0 && intact;
    *n = 0;
    if (k > 0 && fjcs__grow((void **)names, cap, (size_t)k - 1, sizeof **names, local) != FJCS_OK) rc = WK_NOMEM;
    for (Py_ssize_t i = 0; i < k && rc == WK_OK; i++) {
        if (slots && Py_TYPE(all[i]) != (PyTypeObject *)t->field_cls) slots = 0; /* (unchanged: held) */
        PyObject *kind = field_attr(all[i], t->field_type, t->kind_at, slots);
        if (kind == NULL) {
            rc = WK_ERROR;
            break;
        }
        int member = kind == t->field_marker;
        Py_DECREF(kind);
        if (!member) continue;
        PyObject *name = field_attr(all[i], t->name, t->name_at, slots);
        if (name == NULL) {
            rc = WK_ERROR;
        } else {
            (*names)[(*n)++] = name; /* (room for k made above) */
        }
    }
    for (Py_ssize_t i = 0; i < k; i++) Py_DECREF(all[i]);
    if (all != few) free(all);
    return rc;
}

/* The reference's dict, {name: getattr(v, name)} in order, walked as what default returned; a
 * name that is no str is the reference's to refuse (TY_CALL: Python 3.10's getattr() words its
 * TypeError otherwise than PyObject_GetAttr). */
static int members_dict(PyObject *v, PyObject *const *names, Py_ssize_t n, PyObject **result) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_Check(names[i])) return TY_CALL;
    PyObject *dict = PyDict_New();
    if (dict == NULL) return WK_ERROR;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyObject_GetAttr(v, names[i]);
        int failed = item == NULL || PyDict_SetItem(dict, names[i], item) < 0;
        Py_XDECREF(item);
        if (failed) {
            Py_DECREF(dict);
            return WK_ERROR;
        }
    }
    *result = dict;
    return TY_RESULT;
}

/* An item of the walk's log: a group is its `at` (where w->made was), then its objects. */
union dc_item {
    size_t at;
    PyObject *o;
};

/* Write "{" and open a frame for the members of v (e's names), read now into the member stack in
 * canonical order, and logged as a group; `generic`: whether v's class's attribute lookup is the
 * generic one (-1: not known). WK_OK, WK_ERROR, WK_NOMEM. */
static int open_members(walk *w, PyObject *v, dc_entry *e, int generic) {
    state *s = w->s;
    Py_ssize_t n = e->n;
    size_t base = s->npairs, group = w->log_len;
    if (w->log_cap == 0 && spare_log != NULL) { /* the last walk's log, its size kept */
        w->log = spare_log;
        w->log_cap = spare_cap;
        spare_log = NULL;
        spare_cap = 0;
    }
    if ((w->nframes >= s->frames_cap &&
         fjcs__grow((void **)&s->frames, &s->frames_cap, w->nframes, sizeof(wframe), NULL) != FJCS_OK) ||
        fjcs__grow_by((void **)&s->pairs, &s->pairs_cap, base, (size_t)n, sizeof(wpair)) != FJCS_OK ||
        fjcs__grow_by((void **)&w->log, &w->log_cap, group, (size_t)n + 3, sizeof *w->log) != FJCS_OK ||
        fjcs__buf_reserve(w->out, 2) != FJCS_OK)
        return WK_NOMEM;
    /* getattr runs Python code, which may walk (a call of its own, sharing the cache): e is
     * pinned meanwhile (no entry replaces it), its names held by the log */
    e->pins++;
    const dc_member *member = e->member;
    union dc_item *log = w->log + group; /* (s->pairs, w->log: this walk's alone) */
    log[0].at = w->made ? (size_t)PyList_Size(w->made) : 0;
    log[1].o = Py_NewRef(v);
    log[2].o = Py_NewRef(e->names);
    w->log_len += 3;
    int rc = WK_OK;
    Py_ssize_t i = 0;
    /* getattr(v, name) is the class's tp_getattro on an exact str: the generic one called itself */
    if (generic < 0) generic = PyType_GetSlot(Py_TYPE(v), Py_tp_getattro) == (void *)PyObject_GenericGetAttr;
    for (; i < n; i++) {
        PyObject *name = member[i].name;
        PyObject *item = generic ? PyObject_GenericGetAttr(v, name) : PyObject_GetAttr(v, name);
        if (item == NULL) {
            rc = WK_ERROR; /* (the walk ends: walk_done releases the log) */
            break;
        }
        w->log[w->log_len++].o = Py_NewRef(item);
        wpair *p = &s->pairs[base + member[i].rank];
        p->key = member[i].key;
        p->key_len = member[i].len;
        p->name = Py_NewRef(name);
        p->value = item;
    }
    if (rc == WK_OK) {
        s->npairs = base + (size_t)n;
        wframe *f = &s->frames[w->nframes++];
        f->obj = Py_NewRef(v);
        f->calls = w->calls;
        f->kind = K_DICT;
        f->pos = 0;
        f->n = n;
        f->base = base;
        f->made_at = group + 1;
        fjcs__buf_put(w->out, '{');
    } else {
        for (Py_ssize_t j = 0; j < i; j++) {
            wpair *p = &s->pairs[base + member[j].rank];
            Py_DECREF(p->name);
            Py_DECREF(p->value);
        }
    }
    e->pins--;
    return rc;
}

dc_entry *types_dataclass_known(const stdtypes *t, PyTypeObject *type) {
    dc_entry *e = t->dc[slot_of(type)];
    return e != NULL && e->type == type && e->tag != 0 && type_tag(type) == e->tag ? e : NULL;
}

int types_known_dataclass(walk *w, PyObject *v, dc_entry *e, PyObject **result) {
    stdtypes *t = w->s->types;
    unsigned tag;
    /* The common case, read as types_dataclass reads it, with what it finds again known: the class
     * keeps its tag (so e->fields is its __dataclass_fields__, an exact dict its MRO holds, and the
     * class is plain, no class of classes), the Field class has kept the tag it was found intact
     * with, the frame is compared one by one and below the limit, and the names are e's. Nothing
     * here runs Python code, nor holds anything, before open_members. */
    if (w->nframes < SCAN_FRAMES && w->nframes < w->max_depth && t->field_cls != NULL &&
        (tag = type_tag((PyTypeObject *)t->field_cls)) != 0 && tag == t->field_tag &&
        names_in_slots(t, e->fields, e)) {
        w->calls++; /* getattr may run Python code */
        return open_members(w, v, e, e->generic);
    }
    return types_dataclass(w, v, result);
}

/* e is its class's while the class keeps tag, with fields its __dataclass_fields__. */
static void keep(dc_entry *e, unsigned tag, PyObject *fields) {
    e->tag = tag;
    e->fields = fields;
    /* (the class's slot, read as it is with that tag or later: a class that has changed since
     * has another tag, and the entry is not found) */
    e->generic = PyType_GetSlot(e->type, Py_tp_getattro) == (void *)PyObject_GenericGetAttr;
}

int types_dataclass(walk *w, PyObject *v, PyObject **result) {
    stdtypes *t = w->s->types;
    PyTypeObject *type = Py_TYPE(v);
    int plain = Py_TYPE(type) == &PyType_Type;
    if (!plain) w->calls++; /* a metaclass's __getattr__ is Python code */
    /* The class's __dataclass_fields__: an exact dict (no __get__) found through its MRO, the same
     * object while the class keeps its version tag (type_version.h), as its entry remembers it. */
    unsigned tag = plain ? type_tag(type) : 0, kept = 0;
    dc_entry *at = t->dc[slot_of(type)];
    PyObject *fields;
    if (tag != 0 && at != NULL && at->type == type && at->tag == tag) {
        fields = Py_NewRef(at->fields);
    } else {
        fields = PyObject_GetAttr((PyObject *)type, t->fields);
        if (fields == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return WK_ERROR;
            PyErr_Clear();
            return TY_CALL;
        }
        kept = tag != 0 && type_tag(type) == tag && PyDict_CheckExact(fields) ? tag : 0;
    }
    if (!PyDict_CheckExact(fields) || PyType_Check(v)) {
        Py_DECREF(fields);
        return TY_CALL;
    }
    /* A dataclass instance, as the reference sees it. Its members' frame is opened here while the
     * frames are compared one by one (walker.c's cycle check: the instance is never one of them)
     * and below the depth limit; past the limit the walk stops before anything is read. */
    int here = plain && w->nframes < SCAN_FRAMES;
    if (here && w->nframes >= w->max_depth) {
        Py_DECREF(fields);
        return WK_REFUSE;
    }
    w->calls++; /* a field's attributes, and getattr, may run Python code */
    int intact = t->field_cls != NULL && field_class_intact(t);
    dc_entry *e = here && intact ? t->dc[slot_of(type)] : NULL;
    if (e != NULL && e->type == type && names_in_slots(t, fields, e)) {
        if (kept) keep(e, kept, fields);
        int rc = open_members(w, v, e, -1);
        Py_DECREF(fields);
        return rc;
    }
    PyObject *few[16], **names = few;
    size_t cap = 16;
    Py_ssize_t n = 0;
    int rc = read_names(t, fields, intact, &names, &cap, &n, few);
    if (rc == WK_OK) {
        e = here ? lookup(t, type, names, n) : NULL;
        if (e == NULL && here && n > 0) e = entry_new(t, type, names, n);
        if (e != NULL && kept) keep(e, kept, fields); /* (a class changed by the reads since has
                                                         * another tag: never found) */
        if (e != NULL) rc = open_members(w, v, e, -1);
        else if (PyErr_Occurred()) rc = WK_ERROR;
        else rc = members_dict(v, names, n, result);
    }
    Py_DECREF(fields);
    release_names(names, n, few);
    return rc;
}

void types_walk_done(walk *w) {
    for (size_t k = 0; k < w->log_len;) {
        PyObject *names = w->log[k + 2].o;
        Py_ssize_t n = PyTuple_Size(names);
        size_t end = k + 3 + (size_t)n < w->log_len ? k + 3 + (size_t)n : w->log_len; /* (cut by an error) */
        for (size_t j = k + 1; j < end; j++) Py_DECREF(w->log[j].o);
        k = end;
    }
    if (w->log_cap > spare_cap && w->log_cap <= DC_LOG_KEPT) { /* the larger kept */
        free(spare_log);
        spare_log = w->log;
        spare_cap = w->log_cap;
    } else {
        free(w->log);
    }
    w->log = NULL;
    w->log_len = w->log_cap = 0;
}

/* The pair (instance, dict of its members) of the group at w->log[k]. */
static PyObject *group_pair(const walk *w, size_t k, PyObject **dict) {
    PyObject *names = w->log[k + 2].o;
    Py_ssize_t n = PyTuple_Size(names);
    *dict = PyDict_New();
    for (Py_ssize_t i = 0; *dict != NULL && i < n; i++)
        if (PyDict_SetItem(*dict, PyTuple_GetItem(names, i), w->log[k + 3 + (size_t)i].o) < 0) Py_CLEAR(*dict);
    return *dict ? PyTuple_Pack(2, w->log[k + 1].o, *dict) : NULL;
}

int types_stopped(walk *w) {
    if (w->log_len == 0) return 0;
    PyObject *made = w->made, *pairs = PyList_New(0);
    Py_ssize_t size = made ? PyList_Size(made) : 0, at = 0;
    size_t k = 0;
    while (pairs != NULL && (k < w->log_len || at < size)) {
        /* default's pairs before the next group, then the group's */
        size_t upto = k < w->log_len ? w->log[k].at : (size_t)size;
        for (; pairs != NULL && (size_t)at < upto && at < size; at++)
            if (PyList_Append(pairs, PyList_GetItem(made, at)) < 0) Py_CLEAR(pairs);
        if (pairs == NULL || k >= w->log_len) break;
        PyObject *dict, *pair = group_pair(w, k, &dict);
        if (pair == NULL || PyList_Append(pairs, pair) < 0) Py_CLEAR(pairs);
        for (size_t j = 0; pairs != NULL && j < w->nframes; j++) {
            wframe *f = &w->s->frames[j];
            if (f->made_at != k + 1) continue;
            PyObject *instance = f->obj; /* (the log holds it) */
            f->obj = Py_NewRef(dict); /* the frame of a dict, as the walker opens default's */
            f->made_at = 0;
            Py_DECREF(instance);
        }
        Py_XDECREF(dict);
        Py_XDECREF(pair);
        k += 3 + (size_t)PyTuple_Size(w->log[k + 2].o);
    }
    if (pairs == NULL) return -1;
    w->made = pairs;
    Py_XDECREF(made);
    return 0;
}
