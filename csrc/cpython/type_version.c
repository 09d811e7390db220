/*
 * cpython/type_version.c: where a type object keeps its version tag, probed once (what is read and
 * why it is sound: cpython/type_version.h), and type_versions, the test hook that turns reading it
 * off.
 */
#include "type_version.h"

size_t fjcs__tag_probed = SIZE_MAX;
size_t fjcs__tag_at = 0;
unsigned long fjcs__tag_flag = 0;

int fjcs__python_minor(void) {
    const char *v = Py_GetVersion();
    int minor = 0;
    if (v[0] != '3' || v[1] != '.') return 0;
    for (v += 2; *v >= '0' && *v <= '9'; v++) minor = minor * 10 + (*v - '0');
    return minor;
}

static void *word_at(PyTypeObject *type, size_t at) {
    void *p;
    memcpy(&p, (const char *)type + at, sizeof p);
    return p;
}

/* Whether the fields around the tag (tp_flags; tp_free and tp_is_gc before it; tp_finalize after
 * it) are where the layout has them, for type. */
static int anchors_hold(PyTypeObject *type, size_t head, size_t word) {
    unsigned long flags;
    memcpy(&flags, (const char *)type + FJCS_TYPE_FLAGS_AT, sizeof flags);
    return flags == PyType_GetFlags(type) && word_at(type, head + 37 * word) == PyType_GetSlot(type, Py_tp_free) &&
           word_at(type, head + 38 * word) == PyType_GetSlot(type, Py_tp_is_gc) &&
           word_at(type, head + 46 * word) == PyType_GetSlot(type, Py_tp_finalize);
}

/* A lookup of a name no class has, through type's MRO (which gives it and its bases a tag). */
static void look_up(PyObject *type) {
    PyObject *v = PyObject_GetAttrString(type, "fjcs_no_such_attribute");
    Py_XDECREF(v);
    PyErr_Clear();
}

/* Where the tag is, 0 when it does not read as one. */
static size_t probe_tag(void) {
    int minor = fjcs__python_minor();
    if (minor < 11 || minor > 13) return 0;
    size_t head = sizeof(PyVarObject), word = sizeof(void *), at = head + 45 * word;
    fjcs__tag_flag = minor <= 12 ? 1UL << 19 : 0; /* Py_TPFLAGS_VALID_VERSION_TAG */
    PyObject *dict = Py_BuildValue("{sO}", "__del__", (PyObject *)&PyBaseObject_Type); /* (never called) */
    PyObject *base = dict ? PyObject_CallFunction((PyObject *)&PyType_Type, "s(O)O", "fjcs_tag_probe",
                                                  (PyObject *)&PyBaseObject_Type, dict)
                          : NULL;
    PyObject *sub = base ? PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){}", "fjcs_tag_probe_sub", base) : NULL;
    int ok = sub != NULL && anchors_hold(&PyType_Type, head, word) && anchors_hold(&PyBaseObject_Type, head, word) &&
             anchors_hold((PyTypeObject *)base, head, word) && anchors_hold((PyTypeObject *)sub, head, word) &&
             PyType_GetSlot((PyTypeObject *)base, Py_tp_finalize) != NULL;
    if (ok) {
        size_t saved = fjcs__tag_at;
        fjcs__tag_at = at;
        look_up(sub);
        unsigned b1 = type_tag((PyTypeObject *)base), s1 = type_tag((PyTypeObject *)sub);
        ok = b1 != 0 && s1 != 0 && b1 != s1 && PyObject_SetAttrString(base, "fjcs_changed", Py_None) == 0;
        ok = ok && type_tag((PyTypeObject *)base) == 0 && type_tag((PyTypeObject *)sub) == 0;
        look_up(sub);
        unsigned b2 = type_tag((PyTypeObject *)base), s2 = type_tag((PyTypeObject *)sub);
        ok = ok && b2 != 0 && s2 != 0 && b2 != s2 && b2 != b1 && b2 != s1 && s2 != b1 && s2 != s1;
        fjcs__tag_at = saved;
    }
    Py_XDECREF(sub);
    Py_XDECREF(base);
    Py_XDECREF(dict);
    PyErr_Clear();
    return ok ? at : 0;
}

size_t fjcs__dict_version_at = 0;

/* The 64 bits at `at` in d. */
static uint64_t word64_at(PyObject *d, size_t at) {
    uint64_t v;
    memcpy(&v, (const char *)d + at, sizeof v);
    return v;
}

/* Where a dict keeps its version, 0 when it does not read as one: ma_used where the layout has it
 * (against PyDict_Size), and the word after it given a value never seen before by each change
 * of a dict made here (an item added, set to another object, deleted; the dict cleared), and by
 * the making of another dict, and left alone when nothing changes. */
static size_t probe_dict_version(void) {
    int minor = fjcs__python_minor();
    if (minor < 11 || minor > 13 || sizeof(void *) != 8) return 0;
    size_t used_at = sizeof(PyObject), at = used_at + sizeof(Py_ssize_t);
    PyObject *a = PyDict_New(), *key = PyUnicode_FromString("fjcs_probe"), *one = PyLong_FromLong(1);
    PyObject *two = PyLong_FromLong(2000), *b = NULL;
    uint64_t seen[8];
    int n = 0, ok = a && key && one && two;
    if (ok) {
        seen[n++] = word64_at(a, at);
        ok = PyDict_SetItem(a, key, one) == 0 && word64_at(a, used_at) == 1;
        seen[n++] = ok ? word64_at(a, at) : 0;
        ok = ok && PyDict_SetItem(a, key, one) == 0 && word64_at(a, at) == seen[n - 1]; /* (no change) */
        ok = ok && PyDict_SetItem(a, key, two) == 0;
        seen[n++] = ok ? word64_at(a, at) : 0;
        ok = ok && PyDict_SetItem(a, one, two) == 0 && word64_at(a, used_at) == 2;
        seen[n++] = ok ? word64_at(a, at) : 0;
        ok = ok && PyDict_DelItem(a, key) == 0 && word64_at(a, used_at) == 1;
        seen[n++] = ok ? word64_at(a, at) : 0;
        ok = ok && (b = PyDict_New()) != NULL;
        seen[n++] = ok ? word64_at(b, at) : 0;
        if (ok) PyDict_Clear(a);
        seen[n++] = ok ? word64_at(a, at) : 0;
        ok = ok && word64_at(a, used_at) == 0 && (Py_ssize_t)word64_at(b, used_at) == PyDict_Size(b);
    }
    for (int i = 0; ok && i < n; i++)
        for (int j = 0; j < i; j++) ok &= seen[i] != seen[j];
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(key);
    Py_XDECREF(one);
    Py_XDECREF(two);
    PyErr_Clear();
    return ok ? at : 0;
}

void fjcs__tag_probe_once(void) {
    if (FJCS_UNLIKELY(fjcs__tag_probed == SIZE_MAX)) {
        fjcs__tag_probed = fjcs__tag_at = probe_tag();
        fjcs__dict_version_at = probe_dict_version();
    }
}

/* type_versions([flag]) -> bool: whether the walker keeps its verdicts about classes (UUID's
 * __str__ and int, dataclasses.Field's attributes, a dataclass's __dataclass_fields__, a class's
 * __class__) against their version tags, read from the type objects (the layout probed once);
 * with flag, sets it and returns the previous setting (for tests: every verdict is made again at
 * each object when it is off). ValueError when flag is true and the probe found no tag. */
static PyObject *type_versions(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs > 1) return PyErr_Format(PyExc_TypeError, "type_versions takes at most 1 argument");
    fjcs__tag_probe_once();
    int previous = fjcs__tag_at != 0, flag = -1;
    if (nargs == 1 && (flag = PyObject_IsTrue(args[0])) < 0) return NULL;
    if (flag == 1 && fjcs__tag_probed == 0)
        return PyErr_Format(PyExc_ValueError, "type objects are not laid out as cpython/type_version.c reads them");
    if (flag >= 0) fjcs__tag_at = flag ? fjcs__tag_probed : 0;
    return PyBool_FromLong(previous);
}

static PyMethodDef type_versions_def = {"type_versions", (PyCFunction)(void (*)(void))type_versions, METH_FASTCALL,
                                        "type_versions([flag]) -> bool: see cpython/type_version.c."};

PyObject *type_versions_hook(void) {
    return PyCFunction_New(&type_versions_def, NULL);
}

int type_class_is_own(PyTypeObject *type, PyObject *name) {
    if (Py_TYPE(type) != &PyType_Type || PyType_GetSlot(type, Py_tp_getattro) != (void *)PyObject_GenericGetAttr)
        return 0;
    PyObject *mro = PyObject_GetAttrString((PyObject *)type, "__mro__");
    Py_ssize_t n = mro != NULL && PyTuple_CheckExact(mro) ? PyTuple_Size(mro) : 0;
    int own = n >= 1 && PyTuple_GetItem(mro, n - 1) == (PyObject *)&PyBaseObject_Type;
    for (Py_ssize_t i = 0; own && i < n - 1; i++) {
        PyObject *base = PyTuple_GetItem(mro, i);
        if (!PyType_Check(base) || Py_TYPE(base) != &PyType_Type) {
            own = 0;
            break;
        }
        PyObject *dict = PyObject_GetAttrString(base, "__dict__"); /* (a mappingproxy of its dict) */
        own = dict != NULL && PySequence_Contains(dict, name) == 0;
        Py_XDECREF(dict);
    }
    Py_XDECREF(mro);
    PyErr_Clear();
    return own;
}
