/*
 * cpython/str_layout.h: an ASCII str's bytes read from the object, for the walker's hot loops
 * (cpython/str_layout.c probes the layout once).
 */
#ifndef FJCS_CPYTHON_STR_LAYOUT_H
#define FJCS_CPYTHON_STR_LAYOUT_H

#include "walker.h"

/*
 * A compact ASCII str (what CPython makes of ASCII text, whatever its source) holds its
 * characters, which are its UTF-8, right after its header, NUL-terminated; PyUnicode_AsUTF8AndSize
 * answers with that very pointer, after a call and its checks that cost as much as copying a short
 * name. The str's layout is not part of the limited API: the header is PyObject, the length, the
 * hash, a 32-bit state (bits 0-1 interned, 2-4 the kind, 5 compact, 6 ascii) and, on 3.10 and
 * 3.11, a wchar_t pointer, so the characters start 48 bytes (3.10, 3.11) or 40 bytes (3.12 on) in.
 * A compact str that is not ASCII (kind 1, 2 or 4) has two more fields right after that header:
 * the length of its UTF-8 and a pointer to it, which CPython fills the first time the UTF-8 is
 * asked for (PyUnicode_AsUTF8AndSize keeps it for the str's life; 3.12 makes some strs with it)
 * and which is that call's answer from then on; while it is NULL, the walker asks the API, which makes it. Where the header ends
 * and that the two fields follow are checked once, on sample strs against the API, pointer for
 * pointer (probe_str_layout); where they do not hold (a debug build, another CPython), every str
 * goes through the API. Any other str (a legacy or non-compact one, a subclass's) goes through it
 * too.
 */
extern size_t fjcs__str_probed; /* the offset the probe found (0: none; SIZE_MAX: not probed yet) */
extern size_t fjcs__str_offset; /* the one the walker reads by: fjcs__str_probed, or 0 (the API) */

/* The state bits of a compact ASCII str: kind 1 (1-byte), compact, ascii; and their mask. */
#define FJCS_STR_ASCII_BITS 0x64u
#define FJCS_STR_ASCII_MASK 0x7Cu
/* The compact and ascii bits. */
#define FJCS_STR_COMPACT 0x20u
#define FJCS_STR_ASCII 0x40u

FJCS_INLINE uint32_t str_state(PyObject *v) {
    uint32_t bits;
    memcpy(&bits, (const unsigned char *)v + sizeof(PyObject) + 2 * sizeof(Py_ssize_t), sizeof bits);
    return bits;
}

/* The characters of str v (laid out with its characters `offset` bytes in) and their count in *n,
 * when it is a compact ASCII str; else NULL. */
FJCS_INLINE const char *ascii_of_layout(size_t offset, PyObject *v, Py_ssize_t *n) {
    if ((str_state(v) & FJCS_STR_ASCII_MASK) != FJCS_STR_ASCII_BITS) return NULL;
    memcpy(n, (const unsigned char *)v + sizeof(PyObject), sizeof *n);
    return (const char *)v + offset;
}

/* The UTF-8 of str v (laid out with its header `offset` bytes long) and its length in *n, read
 * from the object: a compact ASCII str's characters, or the UTF-8 a compact non-ASCII one keeps
 * once made; else NULL (nothing kept yet, or another str). */
FJCS_INLINE const char *utf8_of_layout(size_t offset, PyObject *v, Py_ssize_t *n) {
    const unsigned char *o = (const unsigned char *)v;
    /* (an ascii str is of kind 1: the two bits tell the three cases apart) */
    uint32_t bits = str_state(v) & (FJCS_STR_COMPACT | FJCS_STR_ASCII);
    if (FJCS_LIKELY(bits == (FJCS_STR_COMPACT | FJCS_STR_ASCII))) {
        memcpy(n, o + sizeof(PyObject), sizeof *n);
        return (const char *)v + offset;
    }
    if (bits != FJCS_STR_COMPACT) return NULL;
    const char *s;
    memcpy(&s, o + offset + sizeof(Py_ssize_t), sizeof s);
    memcpy(n, o + offset, sizeof *n);
    return s;
}

/* An exact str's UTF-8 and its length in *n: PyUnicode_AsUTF8AndSize's answer, read from the
 * object when it is there (NULL, with an exception set, for a lone surrogate). */
FJCS_INLINE const char *utf8_of_exact(PyObject *v, Py_ssize_t *n) {
    if (FJCS_LIKELY(fjcs__str_offset != 0)) {
        const char *s = utf8_of_layout(fjcs__str_offset, v, n);
        if (FJCS_LIKELY(s != NULL)) return s;
    }
    return PyUnicode_AsUTF8AndSize(v, n);
}

/* Probe the layout, once per process (before the first walk). */
void fjcs__str_probe_once(void);

#endif
