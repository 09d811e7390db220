/*
 * fastjcs.h: the public interface of the fastjcs C core.
 *
 * fastjcs renders JSON in the JSON Canonicalization Scheme of RFC 8785. This header is the only one
 * the Python binding (build_ffi.py) sees. Everything between the cffi markers below is read by
 * build_ffi.py as the cffi cdef (with each #define value replaced by "..." so the compiler supplies
 * it), and the same header is compiled into the extension, so the compiler checks the two agree.
 *
 * Conventions:
 *  - every exported name starts with fjcs_ / FJCS_; all else is static;
 *  - no global mutable state: every function is safe to call from several threads at once;
 *  - errors are an integer code plus, where the caller passes an fjcs_error, a byte offset and a
 *    static message. The error pointer may be NULL.
 */
#ifndef FASTJCS_H
#define FASTJCS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- cffi:begin ---- */

/* Error codes. 0 is success; every other code maps to one Python exception class (_native.py). */
#define FJCS_OK 0
#define FJCS_E_NOMEM 1          /* allocation failed */
#define FJCS_E_SYNTAX 2         /* text is not JSON: unexpected character or end of input */
#define FJCS_E_UTF8 3           /* text is not UTF-8 (invalid, overlong, surrogate, > U+10FFFF) */
#define FJCS_E_SURROGATE 4      /* a string holds a lone surrogate (escape in text, code point in objects) */
#define FJCS_E_DUPKEY 5         /* an object repeats a member name (after unescaping) */
#define FJCS_E_DEPTH 6          /* nesting deeper than the caller's limit */
#define FJCS_E_FLOAT_DOMAIN 7   /* NaN, an infinity, or a number token that overflows a double */
#define FJCS_E_INT_DOMAIN 8     /* an integer outside +/-(2^53-1) */
#define FJCS_E_TYPE 9           /* object path: a value of a type JSON cannot carry */
#define FJCS_E_KEY_TYPE 10      /* object path: a member name that is not a string */
#define FJCS_E_CYCLE 11         /* object path: a container that contains itself */
#define FJCS_E_ENCODING 12      /* object path: the byte encoding of the object is malformed */

typedef struct fjcs_error {
    int code;              /* one of FJCS_E_*, or FJCS_OK */
    size_t offset;         /* byte offset in the input where the error was found */
    const char *message;   /* a static string; never freed */
} fjcs_error;

/* ---- Numbers ---- */

/* Room for any rendering of a double plus one byte: the longest renderings are 25 bytes
 * ("-0.0000033333333333333333", 17 digits behind five zeros), and fjcs_format_doubles follows each
 * with a '\n', so 26 per value keeps its n * FJCS_NUMBER_BUFSIZE contract true. */
#define FJCS_NUMBER_BUFSIZE 26

/*
 * Render v as ECMAScript Number::toString does (ECMA-262, RFC 8785 section 3.2.2.3): the shortest
 * digits that read back as v, the nearest of those to v, ties to the even digit; -0 and 0 as "0".
 * Writes into buf (caller-owned, at least FJCS_NUMBER_BUFSIZE bytes), without a NUL terminator, and
 * returns the length (1..25); bytes of buf past that length, up to the 25th, may be overwritten
 * (the digits are written in fixed-size words). Returns -FJCS_E_FLOAT_DOMAIN for NaN and the
 * infinities, writing nothing. Allocates nothing.
 */
int fjcs_format_double(double v, char *buf);

/*
 * Render n doubles into out, each rendering followed by a '\n'. out is caller-owned and must hold
 * n * FJCS_NUMBER_BUFSIZE bytes. Returns the number of bytes written, or -1 (having written an
 * unspecified prefix) if any value is NaN or infinite.
 */
long long fjcs_format_doubles(const double *v, size_t n, char *out);

/*
 * Read a JSON number token (RFC 8259 section 6 grammar; the caller has checked the grammar) of len
 * bytes at tok as the nearest double, ties to even, without depending on the C locale. Stores it in
 * *out and returns FJCS_OK; returns FJCS_E_FLOAT_DOMAIN (storing nothing) when the magnitude rounds
 * to infinity. Values too small for a subnormal become a signed zero.
 */
int fjcs_parse_double(const char *tok, size_t len, double *out);

/* ---- cffi:end ---- */

#ifdef __cplusplus
}
#endif

#endif /* FASTJCS_H */
