/*
 * fastjcs.h: the public interface of the fastjcs C core.
 *
 * fastjcs renders JSON in the JSON Canonicalization Scheme of RFC 8785. This header is the only one
 * the Python binding (build_ffi.py) sees. Everything between the cffi markers below is read by
 * build_ffi.py as the cffi cdef (with each #define value replaced by "..." so the compiler supplies
 * it), and the same header is compiled into the extension, so the compiler checks the two agree.
 *
 * Layout: the error record (codes, what the grammar expected), numbers, canonicalization, digests
 * in bulk, the lender for small documents, Arrow columns. Conventions:
 *  - every exported name starts with fjcs_ / FJCS_; internal names shared between the core's files
 *    start with fjcs__ (fjcs_internal.h) and are not exported; all else is static;
 *  - one return convention: every exported function that can fail returns an fjcs_code (FJCS_OK
 *    or the error), and hands back lengths and counts through pointer arguments. fjcs_buf_free,
 *    which cannot fail, returns nothing. The exceptions are the lender's functions (fjcs_lender_*):
 *    fjcs_lender_open returns the lender (or NULL), fjcs_lender_close nothing, fjcs_lender_error
 *    a code, and the others their result lent from the lender's buffer, or NULL; and
 *    fjcs_quote_count, which cannot fail, returns its count (SIZE_MAX for "none: a byte to escape");
 *  - at most 10 parameters per function: what travels together is a struct (fjcs_hasher,
 *    fjcs_failures, fjcs_arrow_texts, fjcs_arrow_digests; tests/c/test_c_api.py checks);
 *  - an error is described by an fjcs_error record (code, what was expected, byte offset, static
 *    message), filled in where the caller passes one (the pointer may be NULL). Callers that word
 *    errors their own way (the Python binding) build the words from the code and the fields,
 *    never from the message, which is English for C callers and may change;
 *  - every exported function is one the Python binding (src/fastjcs) calls: nothing is exported
 *    for tests alone (tests reach internal functions through builds of their own);
 *  - no global mutable state: every function is safe to call from several threads at once (a
 *    fjcs_lender is the caller's state, used by one thread at a time).
 */
#ifndef FJCS_FASTJCS_H
#define FJCS_FASTJCS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- cffi:begin ---- */

/* ---- Errors ---------------------------------------------------------------------------------- */

/* Result codes. 0 is success; each error maps to one Python exception class
 * (src/fastjcs/core/native_backend.py). */
typedef enum fjcs_code {
    FJCS_OK = 0,
    FJCS_E_NOMEM = 1,          /* allocation failed */
    FJCS_E_SYNTAX = 2,         /* an unexpected character, or the end of the input, where the
                                  grammar wanted what fjcs_error.expected says (the end of the
                                  input: the offset is the text's length) */
    FJCS_E_UTF8 = 3,           /* text is not UTF-8 (invalid, overlong, surrogate, > U+10FFFF) */
    FJCS_E_SURROGATE = 4,      /* a string holds a lone surrogate (escape in text, code point in objects) */
    FJCS_E_DUPKEY = 5,         /* an object repeats a member name (after unescaping); the offset is
                                  the opening quote of the earliest repeating name */
    FJCS_E_DEPTH = 6,          /* nesting deeper than the caller's limit */
    FJCS_E_FLOAT_DOMAIN = 7,   /* NaN, an infinity, or a number token that overflows a double */
    FJCS_E_INT_DOMAIN = 8,     /* an integer outside +/-(2^53-1) */
    FJCS_E_TYPE = 9,           /* object path: a value of a type JSON cannot carry */
    FJCS_E_KEY_TYPE = 10,      /* object path: a member name that is not a string */
    FJCS_E_CYCLE = 11,         /* object path: a container that contains itself */
    FJCS_E_ENCODING = 12,      /* object path: the byte encoding of the object is malformed */
    FJCS_E_HASH = 13,          /* a hash function reported failure */
    FJCS_E_ESCAPE = 14,        /* a backslash that starts no escape of RFC 8259 section 7 */
    FJCS_E_CONTROL = 15,       /* a control character (below U+0020) unescaped in a string */
    FJCS_E_LEADING_ZERO = 16,  /* a digit after a leading zero */
    FJCS_E_UNTERMINATED = 17,  /* the input ends inside a string */
    FJCS_E_NOT_INTEGER = 18,   /* FJCS_INTEGERS_ONLY: a number token with a fraction or an exponent
                                  part (the offset is its first byte), or a float value */
    FJCS_E_IO = 19,            /* fjcs_stream: reading the file failed (the offset is the errno
                                  value) or the file changed while it was read (offset 0) */
    FJCS_E_STREAM_LIMIT = 20   /* fjcs_stream: objects larger than the window nested too deep in
                                  one another to stream (the offset is the '{'): use
                                  fjcs_canonicalize on the whole text */
} fjcs_code;

/* What the grammar wanted where an FJCS_E_SYNTAX error was found. */
typedef enum fjcs_expect {
    FJCS_EXPECT_NOTHING = 0,   /* the error is not FJCS_E_SYNTAX */
    FJCS_EXPECT_VALUE = 1,
    FJCS_EXPECT_DIGIT = 2,
    FJCS_EXPECT_FRACTION_DIGIT = 3,  /* a digit after the decimal point */
    FJCS_EXPECT_EXPONENT_DIGIT = 4,  /* a digit in the exponent */
    FJCS_EXPECT_TRUE = 5,      /* the rest of the literal true */
    FJCS_EXPECT_FALSE = 6,
    FJCS_EXPECT_NULL = 7,
    FJCS_EXPECT_COMMA_OR_BRACKET = 8,  /* ',' or ']' */
    FJCS_EXPECT_COMMA_OR_BRACE = 9,    /* ',' or '}' */
    FJCS_EXPECT_NAME = 10,     /* a member name */
    FJCS_EXPECT_COLON = 11,
    FJCS_EXPECT_END = 12       /* the end of the input, after the value */
} fjcs_expect;

/* An error, as yyjson's read error: what, where, and a message. */
typedef struct fjcs_error {
    fjcs_code code;        /* FJCS_OK, or the error */
    fjcs_expect expected;  /* for FJCS_E_SYNTAX, what the grammar wanted; else FJCS_EXPECT_NOTHING */
    size_t offset;         /* byte offset in the input where the error was found */
    const char *message;   /* a static English message (NULL on success); never freed */
} fjcs_error;

/* ---- Numbers --------------------------------------------------------------------------------- */

/* Room for any rendering of a double plus one byte (for a separator or a NUL of the caller's): the
 * longest renderings are 25 bytes ("-0.0000033333333333333333", 17 digits behind five zeros). */
#define FJCS_NUMBER_BUFSIZE 26

/*
 * Render v as ECMAScript Number::toString does (ECMA-262, RFC 8785 section 3.2.2.3): the shortest
 * digits that read back as v, the nearest of those to v, ties to the even digit; -0 and 0 as "0".
 * Writes into buf (caller-owned, at least FJCS_NUMBER_BUFSIZE bytes), without a NUL terminator,
 * stores the length (1..25) in *len and returns FJCS_OK; bytes of buf past that length, up to the
 * 25th, may be overwritten (the digits are written in fixed-size words). Returns
 * FJCS_E_FLOAT_DOMAIN for NaN and the infinities, writing nothing. Allocates nothing.
 */
fjcs_code fjcs_format_double(double v, char *buf, size_t *len);

/* ---- Checking text written elsewhere -------------------------------------------------------- */

/*
 * The number of '"' bytes in data[0..len), or SIZE_MAX when one of its bytes is below 0x20 or a
 * backslash. PyPy's writer of Python values (src/fastjcs/core/native_backend.py) writes strings
 * without escaping them and checks its whole output with one call: a JSON text whose strings needed
 * no escape (RFC 8785 section 3.2.2.2) has no such byte, and two quotes per string. Reads only
 * data[0..len); allocates nothing.
 */
size_t fjcs_quote_count(const char *data, size_t len);

/* ---- Canonicalization ------------------------------------------------------------------------ */

/* A growable output buffer. Zero-initialise it ({0}); the library grows it with realloc; the caller
 * frees it with fjcs_buf_free whether the call succeeded or not.
 *
 * grow (NULL when zero-initialised) lets a caller keep the bytes in storage of its own (the direct
 * entry writes into a Python bytes object): the library then calls grow(buf, cap) in place of
 * realloc, for room for cap bytes (cap > buf->len; the first len bytes kept), which returns FJCS_OK
 * with data and cap set, or FJCS_E_NOMEM (data, len and cap then as the hook leaves them: the call
 * fails; the hook finds its own state from buf, e.g. the struct buf is a member of). fjcs_buf_free
 * frees data only when grow is NULL. */
typedef struct fjcs_buf {
    char *data;
    size_t len;
    size_t cap;
    fjcs_code (*grow)(struct fjcs_buf *buf, size_t cap);
} fjcs_buf;

void fjcs_buf_free(fjcs_buf *buf);

/* The flags of every function that canonicalizes (the one flags type of the API): the values below,
 * or-ed together. An int, not an enum: cffi converts an int argument in a fraction of what an enum
 * costs, on every call. The marshal functions read only FJCS_INTEGERS_ONLY: their integers are
 * always checked. */
typedef int fjcs_flags;

/* Refuse integer tokens outside +/-(2^53-1) (I-JSON, RFC 7493 2.2). */
#define FJCS_STRICT_INTEGERS 1
/* Integer-only JCS: refuse number tokens with a fraction or an exponent part ("1.0", "1e2",
 * "-0.0"; FJCS_E_NOT_INTEGER) and, as FJCS_STRICT_INTEGERS (which it implies), integers outside
 * +/-(2^53-1); "-0" is an integer token (value 0). On the object path: refuse every float ('g'). */
#define FJCS_INTEGERS_ONLY 2

/*
 * Canonicalize the JSON text text[0..len) (RFC 8785) and append the result to out.
 * The text is parsed strictly: RFC 8259 plus I-JSON (UTF-8 only, no duplicate member names after
 * unescaping, no lone surrogate escapes); no byte-order mark. Containers nest at most max_depth
 * deep. Nothing recurses on the C stack. Returns FJCS_OK, or an error code with err (if not NULL)
 * describing the error, at the offset the pure-Python backend reports.
 */
fjcs_code fjcs_canonicalize(const char *text, size_t len, size_t max_depth, fjcs_flags flags,
                            fjcs_buf *out, fjcs_error *err);

/*
 * Canonicalize a Python value given as its marshal encoding (format version 2 to 4, as made by
 * marshal.dumps(value, 4)): the type codes read are None, True, False, int ('i' and 'l'), float
 * ('g'), str ('u', 't', 'a', 'A', 'z', 'Z'), tuple ('(' and ')'), list ('['), dict ('{'), and
 * back-references ('r' and the 0x80 flag). Other codes of the format (bytes, sets, complex,
 * code objects, ...) give FJCS_E_TYPE; bytes that are not a well-formed encoding give
 * FJCS_E_ENCODING (any input is safe to pass); with FJCS_INTEGERS_ONLY in flags, a float gives
 * FJCS_E_NOT_INTEGER at its type code. Appends the canonical form to out.
 */
fjcs_code fjcs_canonicalize_marshal(const char *data, size_t len, size_t max_depth,
                                    fjcs_flags flags, fjcs_buf *out, fjcs_error *err);

/* ---- Digests in bulk ------------------------------------------------------------------------- */

/* A one-shot hash function, the shape of pycryptodome's compiled SHA256_oneshot and
 * SHA384_oneshot: hash in[0..len) into digest (digest_size bytes); 0 on success. */
typedef int (*fjcs_hash_fn)(const uint8_t *in, size_t len, uint8_t *digest, size_t digest_size);

#define FJCS_MAX_DIGEST 48

/* How to hash a canonical form, and how to render its digest: the one description every digest
 * function takes. A hasher whose size is above FJCS_MAX_DIGEST, or whose fn fails, gives
 * FJCS_E_HASH. */
typedef struct fjcs_hasher {
    fjcs_hash_fn fn;
    size_t size;         /* the digest's size in bytes, at most FJCS_MAX_DIGEST */
    const char *prefix;  /* NUL-terminated, written before the digest in lowercase hex where a
                            function renders digests ("sha256:"); NULL: fjcs_arrow_digest writes
                            raw digests */
} fjcs_hasher;

/* The result for one text of a batch: its error record, where it is, and its digest. */
typedef struct fjcs_item {
    fjcs_error err;                  /* code FJCS_OK, or the error for this text */
    size_t start, len;               /* where this text is in the input (its line, for JSON Lines) */
    size_t index;                    /* its 0-based number (a line, a row) */
    size_t out_at;                   /* fjcs_digest_lines_hex: where its line would be in out */
    uint8_t digest[48];              /* FJCS_MAX_DIGEST: the first size bytes are the digest */
} fjcs_item;

/* Where a function that goes on past failures records them: items[0..capacity) (caller-owned, at
 * least 1); the function sets count to the items it wrote and stops after the one that fills it. */
typedef struct fjcs_failures {
    fjcs_item *items;
    size_t capacity;
    size_t count;
} fjcs_failures;

/*
 * Canonicalize each item of a marshalled list or tuple (marshal.dumps(values, 4)) and hash it:
 * item i's digest goes to digests[i * hasher->size] (caller-owned, capacity items). Stops at the
 * first item that fails and returns its error code; *count is the number of items digested.
 * flags as fjcs_canonicalize_marshal's.
 * (In object.c: the items share one marshal stream and its table of back-references.)
 */
fjcs_code fjcs_digest_marshal_items(const char *data, size_t len, size_t max_depth,
                                    fjcs_flags flags, const fjcs_hasher *hasher, uint8_t *digests,
                                    size_t capacity, size_t *count, fjcs_error *err);

/*
 * Digests of n separate JSON texts: texts[i][0..lens[i]) is canonicalized (fjcs_canonicalize's
 * rules and flags) and hashed into items[i] (caller-owned, n items; start 0, len lens[i]).
 * Per-text errors are in the items; the call returns FJCS_OK, or FJCS_E_NOMEM.
 */
fjcs_code fjcs_digest_texts(const char *const *texts, const size_t *lens, size_t n,
                            size_t max_depth, fjcs_flags flags, const fjcs_hasher *hasher,
                            fjcs_item *items);

/*
 * Digests of the lines of a JSON Lines text, rendered in the format of `fastjcs digest --jsonl`:
 * text[0..len) is split into lines at newline bytes (a final newline ends the last line rather
 * than starting an empty one; empty input has no lines), each line is canonicalized as
 * fjcs_digest_texts does, and for each line that canonicalizes the hasher's prefix, the digest in
 * lowercase hex and '\n' are appended to out. A line that fails appends nothing to out and gets an
 * item in failures (start, len, index and out_at set; no digest). Stops after the line that fills
 * failures; *consumed is the number of input bytes whose lines were done (call again from there),
 * *nlines the lines done. Returns FJCS_OK or FJCS_E_NOMEM.
 */
fjcs_code fjcs_digest_lines_hex(const char *text, size_t len, size_t max_depth, fjcs_flags flags,
                                const fjcs_hasher *hasher, fjcs_buf *out, fjcs_failures *failures,
                                size_t *nlines, size_t *consumed);

/* ---- One small document per call: results lent by a lender ----------------------------------- */

/*
 * A lender keeps an output buffer and a parser from one call to the next, so that a call allocates
 * nothing once it has warmed up, and lends its result instead of handing over a buffer to free.
 * It is the caller's: one per thread (the Python binding keeps one per Python thread, closed when
 * the thread ends), never used by two threads at once. It holds no thread-specific storage of the
 * C library (no pthread keys: the extension links nothing newer than glibc 2.17).
 *
 * Each fjcs_lender_* function does what the ordinary function named after it does and returns a
 * pointer to the result: NUL-terminated (a canonical form, a number or a digest never holds a NUL
 * byte), lent until the caller hands it back by setting the byte before it to 0 (result[-1] = 0)
 * once it has copied it. A result is not changed or freed while it is lent, even when the same
 * lender is called again first (a signal handler or a finalizer run by the same thread between the
 * call and the copy): that call writes into a new buffer; up to 8 such buffers are kept aside,
 * the oldest freed past that. A buffer a call left larger than 64 KiB is freed by the next call.
 * A refused input is lent as an empty result (a canonical form, a number or a digest is never
 * empty) whose error record fjcs_lender_error copies out: the input is not read again for it. On
 * any other failure (out of memory, the hash function failed) they return NULL and record
 * nothing: call the ordinary function on the same input for the error.
 */
typedef struct fjcs_lender fjcs_lender;

/* A new lender (NULL if out of memory); it allocates its buffers on first use. */
fjcs_lender *fjcs_lender_open(void);

/* Free a lender and every buffer it holds, lent or not (NULL is allowed). */
void fjcs_lender_close(fjcs_lender *lender);

/* fjcs_canonicalize. */
const char *fjcs_lender_canonicalize(fjcs_lender *lender, const char *text, size_t len,
                                     size_t max_depth, fjcs_flags flags);

/* fjcs_canonicalize_marshal. */
const char *fjcs_lender_canonicalize_marshal(fjcs_lender *lender, const char *data, size_t len,
                                             size_t max_depth, fjcs_flags flags);

/* fjcs_canonicalize_marshal, then hash the canonical form: the result is the hasher's prefix
 * followed by the digest in lowercase hex. */
const char *fjcs_lender_digest_marshal(fjcs_lender *lender, const char *data, size_t len,
                                       size_t max_depth, fjcs_flags flags,
                                       const fjcs_hasher *hasher);

/* fjcs_canonicalize, then hash, as fjcs_lender_digest_marshal. */
const char *fjcs_lender_digest_text(fjcs_lender *lender, const char *text, size_t len,
                                    size_t max_depth, fjcs_flags flags, const fjcs_hasher *hasher);

/* The error record of a lent result that is empty (a refused input) into *err, and its code;
 * FJCS_OK (a clean record) for a result that is not empty. Read it before handing the result back. */
fjcs_code fjcs_lender_error(const char *result, fjcs_error *err);

/* fjcs_format_double (NULL for NaN and the infinities). */
const char *fjcs_lender_format_double(fjcs_lender *lender, double v);

/* ---- Arrow columns --------------------------------------------------------------------------- */

/*
 * A column of JSON texts in the Arrow columnar format's variable-size binary layout (the string,
 * binary, large_string and large_binary types): row i of the array (0-based) is the bytes
 * data[offsets[offset + i] .. offsets[offset + i + 1]), and it is null when bit (offset + i) of the
 * validity bitmap is 0 (bits numbered from the least significant bit of byte 0). The buffers are
 * the array's own: nothing is copied. A row whose offsets decrease or pass data_len makes the call
 * return FJCS_E_ENCODING (a malformed array), with the rows before it done.
 */
typedef struct fjcs_arrow_texts {
    const void *offsets;      /* int32_t offsets, or int64_t when `large` is non-zero */
    int large;
    const char *data;
    size_t data_len;          /* the size of the data buffer */
    const uint8_t *validity;  /* NULL when no row is null */
    size_t offset;            /* the array's offset into its buffers, in rows */
} fjcs_arrow_texts;

/*
 * Canonicalize rows start..stop-1 of a column (fjcs_canonicalize's rules and flags, one parser
 * reused for every row). Row i's canonical form is appended to out and offsets[i + 1] is set to
 * out->len; offsets[start] must hold out->len when the call begins (0 for a first call with an
 * empty out). A row with a result gets bit i of validity set (the caller zeroes the bitmap); a
 * null row gets nothing (offsets[i + 1] = offsets[i]); a row that fails gets nothing in out and an
 * item in failures (err, and index i, start and len: the row's bytes in data). The call stops
 * after the row that fills failures: *done is the row after the last one handled (stop, or where
 * to call again). Returns FJCS_OK, FJCS_E_ENCODING (a malformed array: *done is the row at fault)
 * or FJCS_E_NOMEM.
 */
fjcs_code fjcs_arrow_canonicalize(const fjcs_arrow_texts *texts, size_t start, size_t stop,
                                  size_t max_depth, fjcs_flags flags, fjcs_buf *out,
                                  int64_t *offsets, uint8_t *validity, fjcs_failures *failures,
                                  size_t *done);

/* The column fjcs_arrow_digest writes: the caller's buffers. */
typedef struct fjcs_arrow_digests {
    uint8_t *data;      /* raw digests (hasher prefix NULL) or their renderings */
    int64_t *offsets;   /* renderings only: where each row's is in data (NULL for raw digests) */
    uint8_t *validity;  /* bit i set for a row with a digest (the caller zeroes the bitmap) */
} fjcs_arrow_digests;

/*
 * Digests of rows start..stop-1 of a column, as fjcs_arrow_canonicalize handles the rows (nulls,
 * failures, *done, validity). With the hasher's prefix NULL, row i's raw digest goes to
 * out->data[i * hasher->size] (a fixed-size binary column). Otherwise it is rendered (prefix then
 * lowercase hex) at out->data + out->offsets[i], and out->offsets[i + 1] is out->offsets[i] plus
 * that width for a row with a result, out->offsets[i] for any other; out->offsets[start] must be
 * set by the caller (0 first), and out->data must hold (stop - start) renderings past it.
 * Returns as fjcs_arrow_canonicalize does.
 */
fjcs_code fjcs_arrow_digest(const fjcs_arrow_texts *texts, size_t start, size_t stop,
                            size_t max_depth, fjcs_flags flags, const fjcs_hasher *hasher,
                            const fjcs_arrow_digests *out, fjcs_failures *failures, size_t *done);

/* ---- One large document on a file, in bounded memory (stream.c) ----------------------------- */

/*
 * A stream canonicalizes one JSON text held in a regular file of `size` bytes, read with pread
 * from offset 0 of fd (the caller keeps fd open until fjcs_stream_close), in memory bounded by a fixed window
 * (`window` bytes, 0 for 1 MiB; grown to hold a token longer than it), a part of output, and the member index of the objects larger
 * than the window that are open (about 48 bytes per member plus its unescaped name), not by the
 * document. Same rules, flags, canonical bytes, error records and offsets as fjcs_canonicalize
 * on the whole file, except: objects larger than the window nested more than max_objects (0
 * for 8) deep in one another give FJCS_E_STREAM_LIMIT; a file that fails to read or changes while it is read gives
 * FJCS_E_IO. Time: the file is read once, and the bytes inside a large object once more for each
 * large object around them. A file that changes while it is read gives FJCS_E_IO where the change
 * shows (a short read, a value not where it was); the caller compares the file's size and
 * modification time before and after. fjcs_stream_open allocates the stream only.
 */
typedef struct fjcs_stream fjcs_stream;

fjcs_code fjcs_stream_open(int fd, uint64_t size, size_t max_depth, fjcs_flags flags, size_t window,
                           size_t max_objects, fjcs_stream **stream, fjcs_error *err);

/* The next part of the canonical form: *data (lent until the next call on s) and *len, at least
 * 256 KiB but for the last part; *len 0 once all of it was given. After an error the stream gives
 * the same error again; output already given is then not the canonical form of anything. */
fjcs_code fjcs_stream_next(fjcs_stream *s, const char **data, size_t *len, fjcs_error *err);

/* Free a stream (NULL is allowed); the caller closes fd. */
void fjcs_stream_close(fjcs_stream *s);

/* ---- cffi:end ---- */

#ifdef __cplusplus
}
#endif

#endif /* FJCS_FASTJCS_H */
