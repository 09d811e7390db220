/*
 * stream.c: one JSON document on a file, canonicalized in bounded memory (fjcs_stream_*).
 *
 * The file is read with pread through a window (1 MiB by default, grown only to hold a token
 * longer than it) and the canonical form leaves in parts of about CHUNK bytes, so neither the document
 * nor its canonical form is ever held whole. The text canonicalizer (text.c) does all the work on
 * values that fit the window, and so every token, every error and every small object's order are
 * its own; this file walks only the containers larger than the window:
 *
 *  - a value that fits the window is canonicalized by fjcs__text_run on the window from its first
 *    byte: the run stops where the value ends (it reports "expected end of input" at what follows,
 *    which is where the walk goes on), and its output is the value's canonical form;
 *  - an array larger than the window is written as it is read, element by element;
 *  - an object larger than the window is read once to check it (its members' values canonicalized
 *    into a scratch buffer that is thrown away, their names kept): the walk keeps, for each open
 *    object, its members' spans (where the name's quote is, where the value starts and what
 *    follows it), unescaped names and, for values whose canonical form is at most INLINE bytes,
 *    that form. When it closes, the names are sorted by UTF-16 code units
 *    (fjcs__key_cmp), a repeated name is refused as text.c refuses it, and the members are written
 *    in canonical order, each longer value read again from the file (a nested large object is
 *    walked again the same way: its members are ordered when it closes, inside the walk of the
 *    outer one).
 *
 * Memory: the window (1 MiB, or the longest token) and its table of brackets (8 bytes per
 * window byte), one part of output (CHUNK plus one value's canonical form), the member index of
 * the large objects open or being written (48 bytes per member, its unescaped name, and its
 * canonical value when that is at most INLINE bytes; twice the 48 while the largest is sorted),
 * and a frame per open large container. Time: each byte is read once, plus once more for each
 * large object around it; objects larger than the window nested more than 8 deep (by default)
 * in one another give FJCS_E_STREAM_LIMIT (the caller takes the in-memory path), as that cost
 * would grow with the depth. Nothing recurses on the C stack.
 *
 * A file that changes while it is read gives FJCS_E_IO where it shows: a short read, or a value
 * that is not where the first pass saw it (the caller compares the file's size and modification
 * time before and after: this file calls nothing of the C library newer than glibc 2.17).
 *
 * Kept whole (about 680 lines): one walk over one window; reading, the walk of large containers
 * and the member index share the window's invariants.
 */
#ifndef _WIN32
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pread */
#endif
#endif
#include <errno.h>
#include <stdlib.h>

#include "fjcs_internal.h"

#ifndef _WIN32
#include <unistd.h>
#endif

#define WINDOW_DEFAULT ((size_t)1 << 20) /* bytes read at a time */
#define MAX_OBJECTS_DEFAULT 8           /* large objects nested in one another */
#define JUMP_READ ((size_t)4 << 10) /* bytes read at least when a member's value is read again */
#define INLINE 256 /* a large object's member values up to this long (canonical) are kept */
#define CHUNK ((size_t)256 << 10)  /* output handed out per call (at least, but for the last) */
#define EDGE 32                    /* an error this near the window's end may be the window's */
#define NONE UINT32_MAX

enum { K_ARRAY, K_OBJECT, K_EMIT };
enum { S_VALUE, S_AFTER, S_NAME, S_EMIT, S_DONE };

/* A large container being read (K_ARRAY, K_OBJECT) or an object being written (K_EMIT). */
typedef struct sframe {
    uint64_t resume;   /* K_EMIT: where the input goes on after the object's '}' */
    size_t mbase;      /* the object's first member in the member index */
    size_t names_mark; /* names' length when it opened */
    size_t next;       /* K_EMIT: the next member to write, in canonical order */
    unsigned char kind;
    unsigned char emit;   /* what this container holds is output (else checked and thrown away) */
    unsigned char sorted; /* K_OBJECT: names strictly increasing so far */
} sframe;

/* A member of a large object: its span in the input and its unescaped name. */
typedef struct smember {
    uint64_t pos;       /* the opening quote of its name */
    uint64_t value;     /* its value's first byte */
    uint64_t value_end; /* what follows its value (after whitespace) */
    size_t key, key_len; /* the name: names.data[key .. key + key_len) */
    size_t kept;         /* the canonical value kept after the name (at most INLINE bytes), or
                            SIZE_MAX: it is read again from the input */
} smember;

struct fjcs_stream {
    int fd;
    uint64_t size;
    /* the window: file bytes [wpos, wpos + wlen) */
    uint8_t *win;
    size_t win_cap, wlen;
    uint64_t wpos;
    /* the bracket table of the window, from match_from on: match[i] is the window index of the
     * bracket closing the one at window index i, NONE when it does not close in the window */
    uint32_t *match;
    size_t match_cap;
    uint32_t *stack;
    uint64_t match_from, match_to; /* the table holds [match_from, match_to) */
    int match_valid;
    fjcs__text text;
    fjcs_buf out, scratch, names, sortbuf;
    sframe *frames;
    size_t nframes, frames_cap;
    smember *members;
    size_t nmembers, members_cap;
    size_t objects; /* K_OBJECT and K_EMIT frames */
    size_t max_depth;
    fjcs_flags flags;
    size_t window, max_objects;
    uint64_t p;
    int state;
    fjcs_code failed; /* sticky: a failed stream says so again */
    fjcs_error failure;
};

/* ---- Errors ---------------------------------------------------------------------------------- */

static fjcs_code fail(fjcs_stream *s, fjcs_error *err, fjcs_code code, uint64_t at, const char *msg) {
    s->failed = code;
    fjcs__fail(&s->failure, code, (size_t)at, msg);
    if (err) *err = s->failure;
    return code;
}

static fjcs_code unexpected(fjcs_stream *s, fjcs_error *err, uint64_t at, fjcs_expect what) {
    fail(s, err, FJCS_E_SYNTAX, at, at >= s->size ? "unexpected end of input" : "unexpected character");
    s->failure.expected = what;
    if (err) err->expected = what;
    return FJCS_E_SYNTAX;
}

static fjcs_code io_error(fjcs_stream *s, fjcs_error *err, int errnum) {
    /* the offset is the errno value (0: the file changed while it was read) */
    return fail(s, err, FJCS_E_IO, (uint64_t)errnum,
                errnum ? "reading the input failed" : "the input changed while it was read");
}

static fjcs_code nomem(fjcs_stream *s, fjcs_error *err, uint64_t at) {
    return fail(s, err, FJCS_E_NOMEM, at, "out of memory");
}

/* ---- The window ------------------------------------------------------------------------------ */

#ifndef _WIN32
static int read_at(int fd, uint8_t *buf, size_t n, uint64_t off) {
    while (n > 0) {
        ssize_t r = pread(fd, buf, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return errno ? errno : EIO;
        }
        if (r == 0) return -1; /* shorter than it was */
        buf += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}
#endif

/* Make the window hold [at, at + need) (less at the end of the file), reading at least `ahead`
 * bytes from `at` when it must read; the window then starts at `at`. */
static fjcs_code fill(fjcs_stream *s, fjcs_error *err, uint64_t at, size_t need, size_t ahead) {
    uint64_t avail = s->size - at;
    if (need > avail) need = (size_t)avail;
    if (at >= s->wpos && at + need <= s->wpos + s->wlen) return FJCS_OK;
    size_t want = need > ahead ? need : ahead;
    if (want > avail) want = (size_t)avail;
    if (want > s->win_cap) {
        uint8_t *w = (uint8_t *)realloc(s->win, want);
        if (w == NULL) return nomem(s, err, at);
        s->win = w;
        s->win_cap = want;
    }
    size_t keep = 0;
    if (at >= s->wpos && at < s->wpos + s->wlen) { /* keep what was read from `at` on */
        keep = (size_t)(s->wpos + s->wlen - at);
        memmove(s->win, s->win + (at - s->wpos), keep);
    }
    s->wpos = at;
    s->wlen = keep;
    s->match_valid = 0;
#ifndef _WIN32
    int r = read_at(s->fd, s->win + keep, want - keep, at + keep);
    if (r != 0) return io_error(s, err, r < 0 ? 0 : r);
#else
    return io_error(s, err, ENOSYS);
#endif
    s->wlen = want;
    return FJCS_OK;
}

static inline int is_ws(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* Step *p over whitespace (the window then holds *p, unless it is the end of the file). */
static fjcs_code skip_ws(fjcs_stream *s, fjcs_error *err, uint64_t *p) {
    while (*p < s->size) {
        fjcs_code rc = fill(s, err, *p, 1, s->window);
        if (rc != FJCS_OK) return rc;
        const uint8_t *b = s->win + (*p - s->wpos), *e = s->win + s->wlen;
        while (b < e && is_ws(*b)) b++;
        *p = s->wpos + (uint64_t)(b - s->win);
        if (b < e) break;
    }
    return FJCS_OK;
}

/* The byte at p, which the window holds. */
static inline uint8_t byte_at(const fjcs_stream *s, uint64_t p) { return s->win[p - s->wpos]; }

/*
 * Fill the bracket table of the window from `from` (a place outside any string) to its end:
 * strings are stepped over (a backslash escapes the byte after it), and each '{' or '[' gets the
 * index of the bracket that closes it, or NONE. The table only says which values to try on the
 * text canonicalizer: a wrong entry (in a text that is not JSON) costs time, never an answer.
 */
static fjcs_code skim(fjcs_stream *s, fjcs_error *err, uint64_t from) {
    size_t n = s->wlen;
    if (n > s->match_cap) {
        uint32_t *m = (uint32_t *)calloc(n, sizeof *m), *st = (uint32_t *)malloc(n * sizeof *st);
        if (m == NULL || st == NULL) {
            free(m);
            free(st);
            return nomem(s, err, from);
        }
        free(s->match);
        free(s->stack);
        s->match = m;
        s->stack = st;
        s->match_cap = n;
    }
    const uint8_t *w = s->win;
    uint32_t *match = s->match, *stack = s->stack;
    size_t depth = 0, i = (size_t)(from - s->wpos);
    while (i < n) {
        uint8_t c = w[i];
        if (c == '"') {
            i++;
            for (;;) {
                while (i + 8 <= n && fjcs__swar_string_special(fjcs__load_u64(w + i)) == 0) i += 8;
                if (i >= n) break;
                if (w[i] == '"') break;
                i += w[i] == '\\' ? 2 : 1;
            }
            if (i >= n) break; /* the string goes on past the window */
            i++;
        } else if (c == '{' || c == '[') {
            match[i] = NONE;
            stack[depth++] = (uint32_t)i++;
        } else if (c == '}' || c == ']') {
            if (depth) match[stack[--depth]] = (uint32_t)i;
            i++;
        } else {
            i++;
        }
    }
    while (depth) match[stack[--depth]] = NONE;
    s->match_from = from;
    s->match_to = s->wpos + i;
    s->match_valid = 1;
    return FJCS_OK;
}

/* ---- Values that fit the window -------------------------------------------------------------- */

#define FIT ((fjcs_code)-1) /* piece(): the value may go on past the window */

/* Does the number token at `at` (in the window) run to the window's end? */
static int number_reaches_end(const fjcs_stream *s, uint64_t at) {
    const uint8_t *q = s->win + (at - s->wpos), *end = s->win + s->wlen;
    while (q < end && ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' || *q == '.' || *q == 'e' || *q == 'E'))
        q++;
    return q == end;
}

/*
 * Canonicalize the value at p (the window holds p) with the text canonicalizer, appending its
 * canonical form to out: FJCS_OK with *next where what follows it starts (after whitespace), FIT
 * when it may go on past the window (nothing appended), or its error.
 */
static fjcs_code piece(fjcs_stream *s, fjcs_error *err, uint64_t p, fjcs_buf *out, uint64_t *next) {
    size_t mark = out->len, at = (size_t)(p - s->wpos), n = s->wlen - at;
    int at_eof = s->wpos + s->wlen == s->size;
    fjcs_error e;
    fjcs__text_set_limits(&s->text, s->max_depth - s->nframes, s->flags);
    fjcs_code rc = fjcs__text_run(&s->text, (const char *)s->win + at, n, out, &e);
    if (rc == FJCS_OK) {
        /* the value and whitespace fill the window: a number may go on past it */
        uint8_t c = s->win[at];
        if (!at_eof && (c == '-' || (c >= '0' && c <= '9'))) {
            out->len = mark;
            return FIT;
        }
        *next = s->wpos + s->wlen;
        return FJCS_OK;
    }
    if (rc == FJCS_E_SYNTAX && e.expected == FJCS_EXPECT_END) {
        /* the value ended, and text.c stopped at what follows: put the objects it recorded in
         * order (fjcs__text_run does so only at the end of a whole text) */
        if (fjcs__order_finish(out, &s->text.order) != FJCS_OK) return nomem(s, err, p);
        *next = p + e.offset;
        return FJCS_OK;
    }
    out->len = mark;
    if (rc == FJCS_E_NOMEM) return nomem(s, err, p);
    uint64_t where = p + e.offset;
    if (!at_eof && where + EDGE >= s->wpos + s->wlen) return FIT;
    if (!at_eof && (rc == FJCS_E_FLOAT_DOMAIN || rc == FJCS_E_INT_DOMAIN || rc == FJCS_E_NOT_INTEGER) &&
        number_reaches_end(s, where))
        return FIT; /* judged on the part of a number the window holds */
    s->failed = rc;
    s->failure = e;
    s->failure.offset = (size_t)where;
    if (err) *err = s->failure;
    return rc;
}

/*
 * The value (or member name) at p: canonicalized into out (FJCS_OK, *next as piece's), or *big
 * set for a container larger than the window (the walk reads it). A token longer than the window
 * grows the window to hold it. `need`: the bytes the value is known to span, when known.
 */
static fjcs_code value_at(fjcs_stream *s, fjcs_error *err, uint64_t p, size_t need, fjcs_buf *out,
                          uint64_t *next, int *big) {
    *big = 0;
    fjcs_code rc = fill(s, err, p, need ? need : 1, need ? JUMP_READ : s->window);
    if (rc != FJCS_OK) return rc;
    uint8_t c = byte_at(s, p);
    int container = c == '{' || c == '[';
    if (container && s->match_valid && p >= s->match_from && p < s->match_to &&
        s->match[p - s->wpos] == NONE) {
        *big = 1;
        return FJCS_OK;
    }
    for (;;) {
        rc = piece(s, err, p, out, next);
        if (rc != FIT) return rc;
        size_t have = (size_t)(s->wpos + s->wlen - p);
        if (container && have >= s->window) {
            *big = 1;
            return skim(s, err, p);
        }
        size_t want = have < s->window ? s->window : 2 * have;
        if (want < have) return nomem(s, err, p);
        if ((rc = fill(s, err, p, want, want)) != FJCS_OK) return rc;
    }
}

/* ---- Large objects ----------------------------------------------------------------------------- */

static inline int member_less(const fjcs_stream *s, const smember *a, const smember *b) {
    const uint8_t *names = (const uint8_t *)s->names.data;
    return fjcs__key_cmp(names + a->key, a->key_len, names + b->key, b->key_len) < 0;
}

/* Stable sort of m[0..n) by name: bottom-up merge sort through tmp (n members). */
static void sort_members(const fjcs_stream *s, smember *m, size_t n, smember *tmp) {
    smember *src = m, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = member_less(s, &src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        smember *t = src;
        src = dst;
        dst = t;
    }
    if (src != m) memcpy(m, src, n * sizeof *m);
}

/* Put the members of the object on top in canonical order; FJCS_E_DUPKEY at the earliest name
 * that repeats one before it, as writer.c's fjcs__order_members reports it. */
static fjcs_code order_object(fjcs_stream *s, fjcs_error *err, const sframe *f) {
    size_t n = s->nmembers - f->mbase;
    smember *m = s->members + f->mbase;
    if (f->sorted || n < 2) return FJCS_OK;
    s->sortbuf.len = 0;
    if (n > SIZE_MAX / sizeof *m || fjcs__buf_reserve(&s->sortbuf, n * sizeof *m) != FJCS_OK)
        return nomem(s, err, m[0].pos);
    sort_members(s, m, n, (smember *)(void *)s->sortbuf.data);
    const uint8_t *names = (const uint8_t *)s->names.data;
    uint64_t dup = UINT64_MAX;
    for (size_t i = 1; i < n; i++) {
        if (m[i].key_len == m[i - 1].key_len &&
            memcmp(names + m[i].key, names + m[i - 1].key, m[i].key_len) == 0 && m[i].pos < dup)
            dup = m[i].pos;
    }
    if (dup != UINT64_MAX) return fail(s, err, FJCS_E_DUPKEY, dup, "duplicate member name");
    return FJCS_OK;
}

/* Unescape a canonical string's body (text.c's output: only \" \\ \b \t \n \f \r and \u00xx
 * escapes) onto names. */
static fjcs_code keep_name(fjcs_stream *s, const char *q, size_t n, size_t *len) {
    if (fjcs__buf_reserve(&s->names, n + 1) != FJCS_OK) return FJCS_E_NOMEM; /* + 1: never NULL */
    char *dst = s->names.data + s->names.len, *start = dst;
    for (size_t i = 0; i < n; i++) {
        char c = q[i];
        if (c != '\\') {
            *dst++ = c;
            continue;
        }
        c = q[++i];
        switch (c) {
        case 'b': *dst++ = '\b'; break;
        case 't': *dst++ = '\t'; break;
        case 'n': *dst++ = '\n'; break;
        case 'f': *dst++ = '\f'; break;
        case 'r': *dst++ = '\r'; break;
        case 'u': {
            int hi = q[i + 3], lo = q[i + 4];
            hi = hi <= '9' ? hi - '0' : hi - 'a' + 10;
            lo = lo <= '9' ? lo - '0' : lo - 'a' + 10;
            *dst++ = (char)(hi * 16 + lo);
            i += 4;
            break;
        }
        default: *dst++ = c; break; /* '"', '\\' */
        }
    }
    *len = (size_t)(dst - start);
    s->names.len += *len;
    return FJCS_OK;
}

/* ---- The walk -------------------------------------------------------------------------------- */

static inline fjcs_code put(fjcs_stream *s, fjcs_error *err, const char *bytes, size_t n, uint64_t at) {
    if (fjcs__buf_reserve(&s->out, n) != FJCS_OK) return nomem(s, err, at);
    fjcs__buf_put_n(&s->out, bytes, n);
    return FJCS_OK;
}

/* Is what the top container holds output? */
static inline int emitting(const fjcs_stream *s) {
    if (s->nframes == 0) return 1;
    const sframe *f = &s->frames[s->nframes - 1];
    return f->kind == K_EMIT || (f->kind == K_ARRAY && f->emit);
}

static void pop_frame(fjcs_stream *s) {
    sframe *f = &s->frames[--s->nframes];
    if (f->kind != K_ARRAY) {
        s->nmembers = f->mbase;
        s->names.len = f->names_mark;
        s->objects--;
    }
}

/* A value at s->p (after whitespace). */
static fjcs_code step_value(fjcs_stream *s, fjcs_error *err, size_t need) {
    uint64_t p = s->p;
    if (p >= s->size) return unexpected(s, err, p, FJCS_EXPECT_VALUE);
    int emit = emitting(s), big;
    fjcs_buf *out = emit ? &s->out : &s->scratch;
    if (!emit) s->scratch.len = 0;
    uint64_t next;
    fjcs_code rc = value_at(s, err, p, need, out, &next, &big);
    if (rc != FJCS_OK) return rc;
    if (!big) {
        if (s->nframes && s->frames[s->nframes - 1].kind == K_OBJECT && s->scratch.len <= INLINE) {
            /* a short member value of a large object: kept, not read again */
            smember *m = &s->members[s->nmembers - 1];
            if (fjcs__buf_reserve(&s->names, s->scratch.len) != FJCS_OK) return nomem(s, err, p);
            fjcs__buf_put_n(&s->names, s->scratch.data, s->scratch.len);
            m->kept = s->scratch.len;
        }
        s->p = next;
        s->state = S_AFTER;
        return FJCS_OK;
    }
    /* a container larger than the window */
    uint8_t c = byte_at(s, p);
    if (s->nframes >= s->max_depth) return fail(s, err, FJCS_E_DEPTH, p, "nesting deeper than max_depth");
    if (c == '{' && s->objects >= s->max_objects)
        return fail(s, err, FJCS_E_STREAM_LIMIT, p, "large objects nested too deep to stream");
    if (fjcs__grow((void **)&s->frames, &s->frames_cap, s->nframes, sizeof *s->frames, NULL) != FJCS_OK)
        return nomem(s, err, p);
    sframe *f = &s->frames[s->nframes++];
    memset(f, 0, sizeof *f);
    f->emit = (unsigned char)emit;
    if (c == '[') {
        f->kind = K_ARRAY;
        if (emit && (rc = put(s, err, "[", 1, p)) != FJCS_OK) return rc;
    } else {
        f->kind = K_OBJECT;
        f->sorted = 1;
        f->mbase = s->nmembers;
        f->names_mark = s->names.len;
        s->objects++;
    }
    s->p = p + 1;
    if ((rc = skip_ws(s, err, &s->p)) != FJCS_OK) return rc;
    if (s->p < s->size && byte_at(s, s->p) == (c == '[' ? ']' : '}')) { /* empty (and spaced out) */
        if (emit && (rc = put(s, err, c == '[' ? "]" : "{}", c == '[' ? 1 : 2, s->p)) != FJCS_OK) return rc;
        pop_frame(s);
        s->p++;
        s->state = S_AFTER;
        return FJCS_OK;
    }
    s->state = c == '[' ? S_VALUE : S_NAME;
    return FJCS_OK;
}

/* A member name at s->p (after whitespace), its ':' and the whitespace after it. */
static fjcs_code step_name(fjcs_stream *s, fjcs_error *err) {
    uint64_t p = s->p;
    fjcs_code rc;
    if (p >= s->size || byte_at(s, p) != '"') return unexpected(s, err, p, FJCS_EXPECT_NAME);
    if (fjcs__grow((void **)&s->members, &s->members_cap, s->nmembers, sizeof *s->members, NULL) != FJCS_OK)
        return nomem(s, err, p);
    s->scratch.len = 0;
    uint64_t next;
    int big;
    if ((rc = value_at(s, err, p, 0, &s->scratch, &next, &big)) != FJCS_OK) return rc;
    sframe *f = &s->frames[s->nframes - 1];
    smember *m = &s->members[s->nmembers++];
    m->pos = p;
    m->kept = SIZE_MAX;
    m->key = s->names.len;
    if (keep_name(s, s->scratch.data + 1, s->scratch.len - 2, &m->key_len) != FJCS_OK) return nomem(s, err, p);
    if (f->sorted && s->nmembers - f->mbase > 1 && !member_less(s, m - 1, m)) f->sorted = 0;
    s->p = next;
    if ((rc = skip_ws(s, err, &s->p)) != FJCS_OK) return rc;
    if (s->p >= s->size || byte_at(s, s->p) != ':') return unexpected(s, err, s->p, FJCS_EXPECT_COLON);
    s->p++;
    if ((rc = skip_ws(s, err, &s->p)) != FJCS_OK) return rc;
    m->value = s->p;
    s->state = S_VALUE;
    return FJCS_OK;
}

/* After a value: the separator or the end of its container, or the end of the document. */
static fjcs_code step_after(fjcs_stream *s, fjcs_error *err) {
    fjcs_code rc = skip_ws(s, err, &s->p);
    if (rc != FJCS_OK) return rc;
    uint64_t p = s->p;
    if (s->nframes == 0) {
        if (p != s->size) return unexpected(s, err, p, FJCS_EXPECT_END);
        s->state = S_DONE;
        return FJCS_OK;
    }
    sframe *f = &s->frames[s->nframes - 1];
    if (f->kind == K_EMIT) { /* a member's value, read again: it must end where it did */
        if (p != s->members[f->mbase + f->next - 1].value_end) return io_error(s, err, 0);
        s->state = S_EMIT;
        return FJCS_OK;
    }
    uint8_t c = p < s->size ? byte_at(s, p) : 0;
    if (f->kind == K_ARRAY) {
        if (c == ',') {
            if (f->emit && (rc = put(s, err, ",", 1, p)) != FJCS_OK) return rc;
            s->p = p + 1;
            s->state = S_VALUE;
            return skip_ws(s, err, &s->p);
        }
        if (c != ']') return unexpected(s, err, p, FJCS_EXPECT_COMMA_OR_BRACKET);
        if (f->emit && (rc = put(s, err, "]", 1, p)) != FJCS_OK) return rc;
        pop_frame(s);
        s->p = p + 1;
        return FJCS_OK; /* S_AFTER again */
    }
    s->members[s->nmembers - 1].value_end = p;
    if (c == ',') {
        s->p = p + 1;
        s->state = S_NAME;
        return skip_ws(s, err, &s->p);
    }
    if (c != '}') return unexpected(s, err, p, FJCS_EXPECT_COMMA_OR_BRACE);
    if ((rc = order_object(s, err, f)) != FJCS_OK) return rc;
    if (!f->emit) { /* inside an object being checked: it is written when that one is */
        pop_frame(s);
        s->p = p + 1;
        return FJCS_OK;
    }
    f->kind = K_EMIT;
    f->next = 0;
    f->resume = p + 1;
    s->state = S_EMIT;
    return put(s, err, "{", 1, p);
}

/* The next member of the object being written, or its end. */
static fjcs_code step_emit(fjcs_stream *s, fjcs_error *err) {
    sframe *f = &s->frames[s->nframes - 1];
    fjcs_code rc;
    if (f->next == s->nmembers - f->mbase) {
        uint64_t resume = f->resume;
        if ((rc = put(s, err, "}", 1, resume - 1)) != FJCS_OK) return rc;
        pop_frame(s);
        s->p = resume;
        s->state = S_AFTER;
        return FJCS_OK;
    }
    const smember *m = &s->members[f->mbase + f->next];
    if (f->next++ && (rc = put(s, err, ",", 1, m->pos)) != FJCS_OK) return rc;
    if (fjcs__write_string(&s->out, (const uint8_t *)s->names.data + m->key, m->key_len) != FJCS_OK ||
        fjcs__buf_reserve(&s->out, 1) != FJCS_OK)
        return nomem(s, err, m->pos);
    fjcs__buf_put(&s->out, ':');
    if (m->kept != SIZE_MAX) /* kept: written from the index */
        return put(s, err, s->names.data + m->key + m->key_len, m->kept, m->pos);
    s->p = m->value;
    uint64_t span = m->value_end - m->value + 1; /* and the byte after it */
    return step_value(s, err, span < s->window ? (size_t)span : s->window);
}

/* ---- Entry points ---------------------------------------------------------------------------- */

fjcs_code fjcs_stream_open(int fd, uint64_t size, size_t max_depth, fjcs_flags flags, size_t window,
                           size_t max_objects, fjcs_stream **stream, fjcs_error *err) {
    *stream = NULL;
    fjcs__fail(err, FJCS_OK, 0, NULL);
#ifdef _WIN32
    (void)fd;
    (void)size;
    (void)max_depth;
    (void)flags;
    (void)window;
    (void)max_objects;
    return fjcs__fail(err, FJCS_E_IO, ENOSYS, "streaming needs pread");
#else
    fjcs_stream *s = (fjcs_stream *)calloc(1, sizeof *s);
    if (s == NULL) return fjcs__fail(err, FJCS_E_NOMEM, 0, "out of memory");
    s->fd = fd;
    s->size = size;
    s->max_depth = max_depth;
    s->flags = flags;
    s->window = window ? window : WINDOW_DEFAULT;
    s->max_objects = max_objects ? max_objects : MAX_OBJECTS_DEFAULT;
    s->state = S_VALUE;
    fjcs__text_init(&s->text, max_depth, flags);
    *stream = s;
    return FJCS_OK;
#endif
}

fjcs_code fjcs_stream_next(fjcs_stream *s, const char **data, size_t *len, fjcs_error *err) {
    *data = NULL;
    *len = 0;
    if (s->failed != FJCS_OK) {
        if (err) *err = s->failure;
        return s->failed;
    }
    fjcs__fail(err, FJCS_OK, 0, NULL);
    s->out.len = 0;
    fjcs_code rc = FJCS_OK;
    if (s->state == S_VALUE && s->nframes == 0 && s->p == 0) rc = skip_ws(s, err, &s->p); /* the start */
    while (rc == FJCS_OK && s->state != S_DONE && s->out.len < CHUNK) {
        switch (s->state) {
        case S_VALUE: rc = step_value(s, err, 0); break;
        case S_NAME: rc = step_name(s, err); break;
        case S_AFTER: rc = step_after(s, err); break;
        default: rc = step_emit(s, err); break;
        }
    }
    if (rc != FJCS_OK) return rc;
    *data = s->out.data;
    *len = s->out.len;
    return FJCS_OK;
}

void fjcs_stream_close(fjcs_stream *s) {
    if (s == NULL) return;
    free(s->win);
    free(s->match);
    free(s->stack);
    fjcs__text_free(&s->text);
    fjcs_buf_free(&s->out);
    fjcs_buf_free(&s->scratch);
    fjcs_buf_free(&s->names);
    fjcs_buf_free(&s->sortbuf);
    free(s->frames);
    free(s->members);
    free(s);
}
