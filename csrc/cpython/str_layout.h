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
 * Which one holds is checked once, on sample strs against the API, pointer for pointer
 * (probe_str_layout); where neither does (a debug build, another CPython), every str goes through
 * the API. Any other str (non-ASCII, a legacy or non-compact one, a subclass's) goes through it too.
 */
extern size_t fjcs__str_probed; /* the offset the probe found (0: none; SIZE_MAX: not probed yet) */
extern size_t fjcs__str_offset; /* the one the walker reads by: fjcs__str_probed, or 0 (the API) */

/* The state bits of a compact ASCII str: kind 1 (1-byte), compact, ascii; and their mask. */
#define FJCS_STR_ASCII_BITS 0x64u
#define FJCS_STR_ASCII_MASK 0x7Cu

/* The characters of str v (laid out with its characters `offset` bytes in) and their count in *n,
 * when it is a compact ASCII str; else NULL. */
FJCS_INLINE const char *ascii_of_layout(size_t offset, PyObject *v, Py_ssize_t *n) {
    const unsigned char *p = (const unsigned char *)v + sizeof(PyObject);
    uint32_t bits;
    memcpy(&bits, p + 2 * sizeof(Py_ssize_t), sizeof bits);
    if ((bits & FJCS_STR_ASCII_MASK) != FJCS_STR_ASCII_BITS) return NULL;
    memcpy(n, p, sizeof *n);
    return (const char *)v + offset;
}

/* An exact str's UTF-8 and its length in *n: PyUnicode_AsUTF8AndSize's answer, read from the
 * object when it is a compact ASCII str (NULL, with an exception set, for a lone surrogate). */
FJCS_INLINE const char *utf8_of_exact(PyObject *v, Py_ssize_t *n) {
    if (FJCS_LIKELY(fjcs__str_offset != 0)) {
        const char *s = ascii_of_layout(fjcs__str_offset, v, n);
        if (FJCS_LIKELY(s != NULL)) return s;
    }
    return PyUnicode_AsUTF8AndSize(v, n);
}

/* Probe the layout, once per process (before the first walk). */
void fjcs__str_probe_once(void);

#endif
