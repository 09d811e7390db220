/*
 * cpython/bytes_out.c: dumps's output written into the bytes object it returns (issue 31).
 *
 * The walk writes into the module state's buffer (s->out, malloc memory kept between calls), and
 * the result used to be a copy of it in a new bytes object: for 1 MB of output, the copy and the
 * buffer's growth copies were 1.26M of the call's 4.03M instructions. Now, once an output outgrows
 * OUT_HELD bytes (and the buffer it has), the buffer's grow hook (fjcs_buf.grow) moves what is
 * written into a bytes object made for it, the walk goes on writing there (the object resized in
 * place of realloc), and the finished call returns that object shrunk to the output's length: no
 * final copy. A smaller output (EAB's, ~300 bytes) is copied as before, which costs less than a
 * bytes object resized twice.
 *
 * The limited API has no way to resize a bytes object: _PyBytes_Resize, which every CPython since
 * 2.6 exports from its own binary (libpython or the executable, or pythonXY.dll), is taken once
 * (bytes_out_init: a weak reference with gcc and clang, GetProcAddress on Windows), and where it
 * is not found the output is copied as before. The object under construction is referenced by
 * the call's state alone (s->bout): no Python code the walk runs (default=, a __class__, a
 * finalizer, a nested dumps, which has a state of its own) can reach it, bytes objects are not
 * tracked by the collector, and a walk that does not finish frees it (bytes_out_end, before the
 * walk's references are dropped).
 */
#include <stddef.h>

#include "direct.h"

#if defined(_WIN32)
#include <windows.h>
#elif defined(__GNUC__)
/* Not declared under the limited API. A weak reference: resolved when the module is loaded, from
 * the interpreter's own symbols as every Py* function the module calls is; NULL where it is not
 * there. (Not dlsym, which glibc 2.34 and later bind to GLIBC_2.34, past manylinux2014's 2.17.) */
extern int _PyBytes_Resize(PyObject **bytes, Py_ssize_t size) __attribute__((weak));
#endif

/* An output up to this size stays in the state's buffer and is copied into its bytes object at the
 * end; one past it moves into a bytes object when the buffer would grow. */
#define OUT_HELD ((size_t)4096)

typedef int (*resize_fn)(PyObject **bytes, Py_ssize_t size);

static resize_fn bytes_resize; /* _PyBytes_Resize, or NULL where it was not found */
static fjcs_code grow(fjcs_buf *b, size_t cap);
/* the hook dumps's walks grow s->out with: grow when bytes_resize was found (and bytes_output has
 * not turned it off), else NULL (the output copied) */
fjcs_code (*bytes_grow)(fjcs_buf *b, size_t cap);

void bytes_out_init(void) {
    if (bytes_resize != NULL) return;
#if defined(_WIN32)
    /* The module links python3.dll, whose stable functions are forwarded to pythonXY.dll: the
     * module that holds PyBytes_FromStringAndSize's code is the one that exports the rest. */
    HMODULE python = NULL;
    if (GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                           (LPCWSTR)(void *)&PyBytes_FromStringAndSize, &python))
        bytes_resize = (resize_fn)(void (*)(void))GetProcAddress(python, "_PyBytes_Resize");
#elif defined(__GNUC__)
    bytes_resize = _PyBytes_Resize;
#endif
    bytes_grow = bytes_resize != NULL ? grow : NULL;
}

/* The grow hook (bytes_grow): room for cap bytes, in s->out's malloc memory up to OUT_HELD, in the
 * bytes object past it (made at the first such growth, as large as the last output that went into
 * one and a little more). */
static fjcs_code grow(fjcs_buf *b, size_t cap) {
    bytes_out *o = &((state *)(void *)((char *)b - offsetof(state, out)))->bout; /* b is &s->out */
    if (!o->moved && cap <= OUT_HELD) {
        char *data = (char *)realloc(b->data, cap);
        if (data == NULL) return FJCS_E_NOMEM;
        b->data = data;
        b->cap = cap;
        return FJCS_OK;
    }
    if (cap > (size_t)PY_SSIZE_T_MAX) return FJCS_E_NOMEM;
    if (!o->moved) {
        if (cap < o->hint) cap = o->hint;
        PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
        if (bytes == NULL) {
            PyErr_Clear(); /* the walk's WK_NOMEM: dumps raises MemoryError */
            return FJCS_E_NOMEM;
        }
        char *data = PyBytes_AsString(bytes);
        if (b->len) memcpy(data, b->data, b->len);
        o->moved = 1;
        o->bytes = bytes;
        o->kept = b->data;
        o->kept_cap = b->cap;
        b->data = data;
        b->cap = cap;
        return FJCS_OK;
    }
    if (o->bytes == NULL || bytes_resize(&o->bytes, (Py_ssize_t)cap) < 0) {
        /* the object is freed (o->bytes NULL): nothing is read from the buffer after WK_NOMEM */
        PyErr_Clear();
        b->data = NULL;
        b->len = b->cap = 0;
        return FJCS_E_NOMEM;
    }
    b->data = PyBytes_AsString(o->bytes);
    b->cap = cap;
    return FJCS_OK;
}

/*
 * The size of the next object, from this output's length: as large and a little more (the walk
 * reserves ahead of what it writes: a value's longest form, a string's length, 6 x 4096 for a block
 * of escapes, so an object of the output's length alone would grow, copying, near its end); not as
 * large as this one grew to, which may be twice the output; at most FJCS_HINT_MAX.
 *
 * Past 64 KiB the little more stays within this object's last page where it can (at least 256
 * bytes of it): glibc maps a block of 128 KiB or more on its own (mmap), this one is shrunk to
 * whole pages (mremap), and when it is freed glibc raises the size it maps blocks from to this
 * block's. An object of the same output's size then comes from the heap, whose pages are there,
 * where one a few bytes larger was mapped afresh each call and each page it wrote faulted in: 45
 * faults a call for 178 KB of records, a quarter of dumps's time (docs/performance.md). The 128
 * bytes held back cover the bytes object's head and malloc's. (Another allocator gets a size as
 * good as the other.)
 */
static size_t next_hint(size_t len) {
    if (len >= FJCS_HINT_MAX) return FJCS_HINT_MAX;
    size_t in_page = ((len + 64 + 4095) & ~(size_t)4095) - 128;
    if (len >= ((size_t)64 << 10) && in_page >= len + 256) return in_page;
    return len + len / 32 + 256;
}

PyObject *bytes_out_moved(state *s, int ok) {
    bytes_out *o = &s->bout;
    size_t len = s->out.len;
    o->moved = 0;
    s->out.data = o->kept;
    s->out.cap = o->kept_cap;
    s->out.len = 0;
    if (o->bytes == NULL) return NULL; /* a resize failed mid-walk (WK_NOMEM) */
    if (ok) {
        o->hint = next_hint(len);
        if (bytes_resize(&o->bytes, (Py_ssize_t)len) == 0) return o->bytes;
        return NULL; /* freed, MemoryError raised */
    }
    Py_CLEAR(o->bytes);
    return NULL;
}

/* bytes_output([flag]): see direct.c's methods. */
PyObject *direct_bytes_output(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    int previous = bytes_grow != NULL;
    if (nargs > 1) return PyErr_Format(PyExc_TypeError, "bytes_output takes at most 1 argument");
    if (nargs == 1) {
        int flag = PyObject_IsTrue(args[0]);
        if (flag < 0) return NULL;
        if (flag && bytes_resize == NULL)
            return PyErr_Format(PyExc_ValueError, "_PyBytes_Resize was not found: outputs are copied");
        bytes_grow = flag ? grow : NULL;
    }
    return PyBool_FromLong(previous);
}
