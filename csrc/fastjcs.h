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
#define FJCS_E_HASH 13          /* a hash function reported failure */

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
 * Read a JSON number token (RFC 8259 section 6 grammar) of len bytes at tok as the nearest double,
 * ties to even, without depending on the C locale. Stores it in *out and returns FJCS_OK; returns
 * FJCS_E_FLOAT_DOMAIN (storing nothing) when the magnitude rounds to infinity, and FJCS_E_SYNTAX
 * (storing nothing) for bytes that are not a number token. Values too small for a subnormal
 * become a signed zero. Allocates nothing; any length works, in time linear in it.
 */
int fjcs_parse_double(const char *tok, size_t len, double *out);

/* ---- Canonicalization ---- */

/* A growable output buffer. Zero-initialise it ({0}); the library grows it with realloc; the caller
 * frees it with fjcs_buf_free whether the call succeeded or not. */
typedef struct fjcs_buf {
    char *data;
    size_t len;
    size_t cap;
} fjcs_buf;

void fjcs_buf_free(fjcs_buf *buf);

/* Flags for fjcs_canonicalize. */
#define FJCS_STRICT_INTEGERS 1  /* refuse integer tokens outside +/-(2^53-1) (I-JSON, RFC 7493 2.2) */

/*
 * Canonicalize the JSON text text[0..len) (RFC 8785) and append the result to out.
 * The text is parsed strictly: RFC 8259 plus I-JSON (UTF-8 only, no duplicate member names after
 * unescaping, no lone surrogate escapes); no byte-order mark. Containers nest at most max_depth
 * deep. Nothing recurses on the C stack. Returns FJCS_OK, or an error code with err (if not NULL)
 * holding the byte offset of the error, by the rules of src/fastjcs/_python.py.
 */
int fjcs_canonicalize(const char *text, size_t len, size_t max_depth, int flags, fjcs_buf *out,
                      fjcs_error *err);

/*
 * Canonicalize a Python value given as its marshal encoding (format version 2 to 4, as made by
 * marshal.dumps(value, 4)): the type codes read are None, True, False, int ('i' and 'l'), float
 * ('g'), str ('u', 't', 'a', 'A', 'z', 'Z'), tuple ('(' and ')'), list ('['), dict ('{'), and
 * back-references ('r' and the 0x80 flag). Other codes of the format (bytes, sets, complex,
 * code objects, ...) give FJCS_E_TYPE; bytes that are not a well-formed encoding give
 * FJCS_E_ENCODING (any input is safe to pass). Appends the canonical form to out.
 */
int fjcs_canonicalize_marshal(const char *data, size_t len, size_t max_depth, fjcs_buf *out,
                              fjcs_error *err);

/* ---- Digests in bulk ---- */

/* A one-shot hash function, the shape of pycryptodome's compiled SHA256_oneshot and
 * SHA384_oneshot: hash in[0..len) into digest (digest_size bytes); 0 on success. */
typedef int (*fjcs_hash_fn)(const uint8_t *in, size_t len, uint8_t *digest, size_t digest_size);

#define FJCS_MAX_DIGEST 48

/* The result for one text of a batch. */
typedef struct fjcs_item {
    int code;                        /* FJCS_OK, or the error for this text */
    size_t offset;                   /* the error's byte offset within this text */
    const char *message;             /* the error's static message, or NULL */
    size_t start, len;               /* fjcs_digest_lines: where this line is in the input */
    size_t index;                    /* fjcs_digest_lines_hex: the line's 0-based number */
    size_t out_at;                   /* fjcs_digest_lines_hex: where its line would be in out */
    uint8_t digest[48];              /* FJCS_MAX_DIGEST: the first digest_size bytes are the digest */
} fjcs_item;

/*
 * Canonicalize each item of a marshalled list or tuple (marshal.dumps(values, 4)) and hash it:
 * item i's digest goes to digests[i * digest_size] (caller-owned, capacity items). Stops at the
 * first item that fails and returns its error code; *count is the number of items digested.
 */
int fjcs_digest_marshal_items(const char *data, size_t len, size_t max_depth, fjcs_hash_fn hash,
                              size_t digest_size, uint8_t *digests, size_t capacity, size_t *count,
                              fjcs_error *err);

/*
 * Split text[0..len) into lines at newline bytes (a final newline ends the last line rather than
 * starting an empty one; empty input has no lines), canonicalize each line as a JSON text
 * (fjcs_canonicalize's rules and flags) and hash it. One fjcs_item per line goes to items
 * (caller-owned; capacity at least the number of newlines plus one). Per-line errors are in the
 * items; the call returns FJCS_OK, or FJCS_E_NOMEM. *count receives the number of lines.
 */
int fjcs_digest_lines(const char *text, size_t len, size_t max_depth, int flags, fjcs_hash_fn hash,
                      size_t digest_size, fjcs_item *items, size_t capacity, size_t *count);

/*
 * fjcs_digest_lines for JSON Lines tools, rendering as it goes: for each line that canonicalizes,
 * appends prefix[0..prefix_len), the digest in lowercase hex and '\n' to out; a line that fails
 * appends nothing to out and gets an fjcs_item in failures (with index and out_at set). Stops
 * after the line that fills failures (capacity items); *consumed is the number of input bytes
 * whose lines were done (call again from there), *nlines the lines done, *nfailures the items
 * written. Returns FJCS_OK or FJCS_E_NOMEM.
 */
int fjcs_digest_lines_hex(const char *text, size_t len, size_t max_depth, int flags,
                          fjcs_hash_fn hash, size_t digest_size, const char *prefix,
                          size_t prefix_len, fjcs_buf *out, fjcs_item *failures, size_t capacity,
                          size_t *nfailures, size_t *nlines, size_t *consumed);

/*
 * The same for n separate texts: texts[i][0..lens[i]) gives items[i].
 */
int fjcs_digest_texts(const char *const *texts, const size_t *lens, size_t n, size_t max_depth,
                      int flags, fjcs_hash_fn hash, size_t digest_size, fjcs_item *items);

/* ---- cffi:end ---- */

#ifdef __cplusplus
}
#endif

#endif /* FASTJCS_H */
