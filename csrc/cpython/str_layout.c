/*
 * cpython/str_layout.c: where CPython's compact ASCII strs hold their characters and compact
 * non-ASCII ones the UTF-8 they keep, probed once on sample strs against the API (cpython/str_layout.h says what is read; walk_str_layout is the
 * test hook).
 */
#include "str_layout.h"

size_t fjcs__str_probed = SIZE_MAX;
size_t fjcs__str_offset = 0;

/* Whether the readers, with the header `offset` bytes long, answer as the API does for str v: the
 * same pointer and length for an ASCII one, "not compact ASCII" for any other, and for a
 * non-ASCII one no UTF-8 before the API is asked for it (or the one it answers with: 3.12 makes
 * the one-character latin-1 strs with their UTF-8) and its very pointer and length after. -1: no
 * str. */
static int reads_as_api(size_t offset, PyObject *v, int ascii) {
    if (v == NULL) return -1;
    Py_ssize_t n = -1, kept = -1, want = -1;
    const char *before = ascii ? NULL : utf8_of_layout(offset, v, &kept);
    const char *got = ascii_of_layout(offset, v, &n);
    const char *api = PyUnicode_AsUTF8AndSize(v, &want);
    if (api == NULL) return -1;
    const char *after = utf8_of_layout(offset, v, &kept);
    if (ascii) return got == api && after == api && n == want && kept == want && n == PyUnicode_GetLength(v);
    return got == NULL && (before == NULL || before == api) && after == api && kept == want;
}

/* The offset of a compact ASCII str's characters, which is also that of a compact non-ASCII
 * str's UTF-8 length and pointer (0 when neither candidate reads all samples as the API does). */
static size_t probe_str_layout(void) {
    static const char *const ascii[] = {"", "a", "ab", "abc", "name", "id_7", "abcdefg", "abcdefgh",
                                        "a longer name, with spaces", "0123456789abcdef0123456789abcdef0"};
    static const char *const other[] = {"\xc3\xa9", "a\xc3\xa9", "\xe2\x82\xac", "abcdefgh\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80", "\xef\xbf\xbf", "\xc2\x80"};
    size_t nascii = sizeof ascii / sizeof *ascii, nother = sizeof other / sizeof *other;
    static const size_t offsets[] = {sizeof(PyObject) + 4 * sizeof(Py_ssize_t), sizeof(PyObject) + 3 * sizeof(Py_ssize_t)};
    for (size_t k = 0; k < sizeof offsets / sizeof *offsets; k++) {
        int ok = 1;
        for (size_t i = 0; ok && i < nascii + nother + 1; i++) {
            PyObject *v = i < nascii ? PyUnicode_FromString(ascii[i])
                          : i < nascii + nother ? PyUnicode_FromString(other[i - nascii])
                                                : PyUnicode_InternFromString("an interned name");
            int read = reads_as_api(offsets[k], v, i < nascii || i == nascii + nother);
            Py_XDECREF(v);
            if (read < 0) {
                PyErr_Clear();
                return 0;
            }
            ok = read;
        }
        if (ok) return offsets[k];
    }
    return 0;
}

void fjcs__str_probe_once(void) {
    if (FJCS_UNLIKELY(fjcs__str_probed == SIZE_MAX)) fjcs__str_probed = fjcs__str_offset = probe_str_layout();
}

int walk_str_layout(int flag) {
    fjcs__str_probe_once();
    int previous = fjcs__str_offset != 0;
    if (flag == 1 && fjcs__str_probed == 0) return -1;
    if (flag >= 0) fjcs__str_offset = flag ? fjcs__str_probed : 0;
    return previous;
}

/* str_layout([flag]), the direct module's test hook (see its methods in direct.c). */
PyObject *direct_str_layout(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    return layout_switch(args, nargs, "str_layout", walk_str_layout, "strs are not laid out as cpython/str_layout.c reads them");
}
