/*
 * cpython/type_version.h: a type's version tag, read from the type object, for the verdicts the
 * walker keeps about a class (cpython/type_version.c probes where it is, once).
 *
 * CPython gives each class a version tag (tp_version_tag, 32 bits) when its attributes are first
 * looked up through its MRO, and takes it away (sets it to 0) whenever the class or any of its
 * bases is modified: PyType_Modified, which setattr and delattr on a class, __bases__ and a slot
 * changed through its dunder call, recursively through the subclasses. Its own attribute cache and
 * its specializing interpreter rely on it: while a class keeps the tag it had, every lookup
 * through its MRO (the class's __getattribute__ slot included) gives what it gave then. From 3.11
 * on, the tags come from a counter that never wraps (a class whose tags run out, or on 3.13 one
 * modified a thousand times, keeps 0: no tag, nothing cached); 3.11 and 3.12 also clear the flag
 * Py_TPFLAGS_VALID_VERSION_TAG with it, which is asked too there. 3.10's counter wraps around, so a
 * tag may come back: there, and on any version not checked (3.14 on), nothing is read.
 *
 * The struct is not part of the limited API: on 3.11-3.13 the tag follows tp_del, 45 pointer-sized
 * fields after the PyVarObject head; the probe checks the fields around it against the API
 * (tp_flags, tp_free, tp_is_gc, tp_finalize) and that the tag read there behaves as a tag on a
 * class made for it (given on a lookup, distinct, gone when the class or its base is modified).
 * A verdict kept against (type, tag) holds no reference: a class freed and another made at its
 * address has another tag (or none).
 */
#ifndef FJCS_CPYTHON_TYPE_VERSION_H
#define FJCS_CPYTHON_TYPE_VERSION_H

#include "walker.h"

extern size_t fjcs__tag_probed; /* where the probe found the tag (0: nowhere; SIZE_MAX: not probed yet) */
extern size_t fjcs__tag_at;     /* where it is read (fjcs__tag_probed, or 0: never read) */
extern unsigned long fjcs__tag_flag; /* the flag that must be set too (3.11, 3.12), or 0 */

/* Where tp_flags is (the probe checks it against PyType_GetFlags before any tag is read). */
#define FJCS_TYPE_FLAGS_AT (sizeof(PyVarObject) + 18 * sizeof(void *))

/* The version tag of type, 0 when it has none or tags are not read. */
FJCS_INLINE unsigned type_tag(PyTypeObject *type) {
    if (fjcs__tag_at == 0) return 0;
    if (fjcs__tag_flag) { /* (PyType_GetFlags's answer, read in place: a call costs more than the rest) */
        unsigned long flags;
        memcpy(&flags, (const char *)type + FJCS_TYPE_FLAGS_AT, sizeof flags);
        if (!(flags & fjcs__tag_flag)) return 0;
    }
    unsigned tag;
    memcpy(&tag, (const char *)type + fjcs__tag_at, sizeof tag);
    return tag;
}

/*
 * A dict's version (ma_version_tag, PEP 509), read from the dict object on 3.11-3.13 where the
 * probe finds it (after the head and ma_used): a 64-bit value CPython sets afresh from a counter
 * that never repeats whenever the dict is made or changed (an item set to another object, added,
 * deleted, the dict cleared or merged into); 3.12 and 3.13 keep watchers' bits in its low bits,
 * which only change it more often. An address and a version read twice the same are the same dict
 * with the same items in the same order (a dict made at a freed one's address has a new version).
 * 3.14 has no version: nothing is read there, nor where the probe fails or the tags are turned off.
 */
extern size_t fjcs__dict_version_at; /* where (0: not read) */

/* The version of d (an exact dict), 0 when it is not read. */
FJCS_INLINE uint64_t dict_version(PyObject *d) {
    if (fjcs__dict_version_at == 0 || fjcs__tag_at == 0) return 0;
    uint64_t v;
    memcpy(&v, (const char *)d + fjcs__dict_version_at, sizeof v);
    return v;
}

/* Probe once per process (where a verdict is first made). */
void fjcs__tag_probe_once(void);

/* Whether every object of type has type as its __class__, by the class's own make: its attribute
 * lookup the generic one, and no class of its MRO but object (whose __class__ descriptor, a data
 * descriptor, gives the object's type) with a `name` ("__class__") of its own; every class in it
 * of the metaclass `type`. A verdict that holds while type keeps its version tag. (Python code
 * may run: a key of a class's dict compared with `name`.) */
int type_class_is_own(PyTypeObject *type, PyObject *name);

/* type_versions([flag]), the test hook: a builtin function, handed back by register_types. */
PyObject *type_versions_hook(void);

#endif
