/*
 * lender.c: the lender (fjcs_lender_*), for one small document per call, its result lent.
 *
 * A call from Python costs more around the work than in it when the document is small: an
 * output buffer to allocate and free, a second call to free it, an error record. A lender keeps
 * its output buffer and text parser from one call to the next and returns a pointer to the
 * result, so a call is one crossing that allocates nothing once the lender has warmed up.
 *
 * The lender is the caller's (fjcs_lender_open, fjcs_lender_close): the Python binding keeps one
 * per Python thread, in a threading.local, and closes it when the thread ends. It replaces state
 * the core kept per thread behind a pthread key, whose functions link at GLIBC_2.34 and kept the
 * wheel from being manylinux2014 (glibc 2.17); C11 thread-locals would need glibc's thread-exit
 * destructor hook (added in GLIBC_2.18, for C++'s thread_local) to free a thread's state when it ends.
 *
 * The result is lent to the caller: it stays valid until the caller hands it back by clearing
 * the byte just before it (result[-1] = 0), after copying it. A caller-held lender does not make
 * this unnecessary: between the call and the copy, the same thread can call the same lender
 * again (a signal handler or a finalizer that Python runs between the two). A call that finds the
 * previous result still lent leaves that buffer alone, keeps it aside, and writes into a new
 * one; a buffer kept aside is freed by a later call once it has been handed back, and in any
 * case when the lender is closed. So a result is not overwritten or freed while it is lent; the
 * one exception bounds what a lender keeps: at most RETIRED buffers are kept aside, and the
 * oldest is freed to make room (a result is lost only when a caller never hands it back, or under
 * RETIRED calls nested before the first copy). A buffer that a call left larger than
 * FJCS_KEEP bytes is freed by the next call.
 *
 * Canonical JSON never contains a NUL byte (RFC 8785 escapes every control character), nor does a
 * rendered number or digest, so each result is NUL-terminated and its length is its strlen.
 *
 * A refused input (an error of the input: invalid JSON, a duplicate name, a value JCS cannot
 * carry) is lent as a result too: an empty one (a canonical form is never empty), its error
 * record stored after its NUL, which fjcs_lender_error copies out. So the caller words the error
 * from the record without reading the input again, and the record, lent as any result is, is not
 * overwritten by a call made before it is read (a finalizer's, a signal handler's). A call that
 * runs out of memory or whose hash function fails returns NULL and describes nothing: the caller
 * runs the ordinary entry point (fjcs_canonicalize, ...) on the same input.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fjcs_internal.h"


/* The most lent buffers a lender keeps aside; past that, the oldest is freed. */
#define RETIRED 8

/* A lender's state. */
struct fjcs_lender {
    fjcs_buf out;       /* out.data[0] is the lent flag; the result starts at out.data + 1 */
    fjcs_buf canon;     /* the canonical bytes a digest hashes (never lent) */
    fjcs__text text;    /* the text parser, its stacks kept */
    fjcs__order order;  /* the marshal reader's member ordering, its buffers kept */
    char *retired[RETIRED]; /* buffers still lent when a call needed one, oldest first */
    size_t nretired;
};

/* ---- Opening and closing --------------------------------------------------------------------- */

fjcs_lender *fjcs_lender_open(void) {
    fjcs_lender *c = (fjcs_lender *)calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    fjcs__text_init(&c->text, 0, 0);
    return c;
}

void fjcs_lender_close(fjcs_lender *c) {
    if (c == NULL) return;
    fjcs_buf_free(&c->out);
    fjcs_buf_free(&c->canon);
    fjcs__text_free(&c->text);
    fjcs__order_free(&c->order);
    for (size_t i = 0; i < c->nretired; i++) free(c->retired[i]);
    free(c);
}

/* ---- One call -------------------------------------------------------------------------------- */

/* Free the retired buffers the caller has handed back. */
static void sweep(fjcs_lender *c) {
    size_t kept = 0;
    for (size_t i = 0; i < c->nretired; i++) {
        if (c->retired[i][0]) c->retired[kept++] = c->retired[i];
        else free(c->retired[i]);
    }
    c->nretired = kept;
}

/* Drop a buffer larger than what a lender keeps. */
static void trim(fjcs_buf *b) {
    if (b->cap > FJCS_KEEP) fjcs_buf_free(b);
}

/* Ready the lender for a call: an empty output buffer, its lent flag clear. FJCS_OK, or
 * FJCS_E_NOMEM (also for a NULL lender: fjcs_lender_open failed). */
static fjcs_code begin(fjcs_lender *c) {
    if (c == NULL) return FJCS_E_NOMEM;
    if (c->nretired) sweep(c);
    if (c->out.data != NULL && c->out.data[0]) { /* still lent: keep it until handed back */
        if (c->nretired == RETIRED) { /* never handed back (the caller stopped between the two) */
            free(c->retired[0]);
            memmove(c->retired, c->retired + 1, (RETIRED - 1) * sizeof c->retired[0]);
            c->nretired--;
        }
        c->retired[c->nretired++] = c->out.data;
        c->out.data = NULL;
        c->out.len = c->out.cap = 0;
    }
    trim(&c->out);
    trim(&c->canon);
    c->out.len = 0;
    if (fjcs__buf_reserve(&c->out, 1) != FJCS_OK) return FJCS_E_NOMEM;
    fjcs__buf_put(&c->out, 0);
    return FJCS_OK;
}

/* Lend the result (rc FJCS_OK), or the refusal of the input (rc its error, recorded in *err): an
 * empty result, the record after its NUL (copied byte by byte: the buffer's place for it is not
 * aligned); NULL when out of memory or the hash function failed. */
static const char *lend(fjcs_lender *c, fjcs_code rc, const fjcs_error *err) {
    /* (a code the record does not hold is described by the ordinary entry point: NULL) */
    if (rc == FJCS_E_NOMEM || rc == FJCS_E_HASH || (rc != FJCS_OK && err->code != rc)) return NULL;
    if (rc != FJCS_OK) {
        c->out.len = 1; /* drop what the refused call wrote: the result starts empty */
        if (fjcs__buf_reserve(&c->out, 1 + sizeof *err) != FJCS_OK) return NULL;
        c->out.data[1] = 0;
        memcpy(c->out.data + 2, err, sizeof *err);
        c->out.data[0] = 1;
        return c->out.data + 1;
    }
    if (fjcs__buf_reserve(&c->out, 1) != FJCS_OK) return NULL;
    c->out.data[c->out.len] = 0;
    c->out.data[0] = 1;
    return c->out.data + 1;
}

fjcs_code fjcs_lender_error(const char *result, fjcs_error *err) {
    if (result[0] != 0) return fjcs__fail(err, FJCS_OK, 0, NULL); /* a result, not a refusal */
    memcpy(err, result + 1, sizeof *err);
    return err->code;
}

/* Whether member ordering's buffers grew past what a lender keeps. */
static int order_is_large(const fjcs__order *o) {
    return o->scratch.cap > FJCS_KEEP || o->spans_cap * sizeof *o->spans > FJCS_KEEP ||
           o->recs_cap * sizeof *o->recs > FJCS_KEEP;
}

/* Forget a parser's buffers when they grew past what a lender keeps. */
static void trim_text(fjcs_lender *c) {
    fjcs__text *t = &c->text;
    if (t->arena.cap > FJCS_KEEP || order_is_large(&t->order) ||
        t->frames_cap * sizeof *t->frames > FJCS_KEEP ||
        t->members_cap * sizeof *t->members > FJCS_KEEP) {
        fjcs__text_free(t);
        fjcs__text_init(t, 0, 0);
    }
}

static fjcs_code run_marshal(fjcs_lender *c, const char *data, size_t len, size_t max_depth,
                             fjcs_flags flags, fjcs_buf *out, fjcs_error *err) {
    fjcs_code rc = fjcs__marshal_run(data, len, max_depth, flags, out, err, &c->order);
    if (order_is_large(&c->order)) fjcs__order_free(&c->order);
    return rc;
}

static fjcs_code run_text(fjcs_lender *c, const char *text, size_t len, size_t max_depth,
                          fjcs_flags flags, fjcs_buf *out, fjcs_error *err) {
    fjcs__text_set_limits(&c->text, max_depth, flags);
    fjcs_code rc = fjcs__text_run(&c->text, text, len, out, err);
    trim_text(c);
    return rc;
}

/* Render the hasher's prefix and the digest of c->canon in lowercase hex into c->out. */
static fjcs_code put_digest(fjcs_lender *c, const fjcs_hasher *hasher) {
    uint8_t digest[FJCS_MAX_DIGEST];
    if (fjcs__hash(hasher, c->canon.data, c->canon.len, digest) != FJCS_OK) return FJCS_E_HASH;
    if (fjcs__buf_reserve(&c->out, fjcs__rendered_size(hasher)) != FJCS_OK) return FJCS_E_NOMEM;
    char *end = fjcs__render_digest(hasher, digest, c->out.data + c->out.len);
    c->out.len = (size_t)(end - c->out.data);
    return FJCS_OK;
}

/* ---- Entry points ---------------------------------------------------------------------------- */

const char *fjcs_lender_canonicalize(fjcs_lender *c, const char *text, size_t len,
                                     size_t max_depth, fjcs_flags flags) {
    fjcs_error err;
    if (begin(c) != FJCS_OK) return NULL;
    return lend(c, run_text(c, text, len, max_depth, flags, &c->out, &err), &err);
}

const char *fjcs_lender_canonicalize_marshal(fjcs_lender *c, const char *data, size_t len,
                                             size_t max_depth, fjcs_flags flags) {
    fjcs_error err;
    if (begin(c) != FJCS_OK) return NULL;
    return lend(c, run_marshal(c, data, len, max_depth, flags, &c->out, &err), &err);
}

const char *fjcs_lender_digest_marshal(fjcs_lender *c, const char *data, size_t len,
                                       size_t max_depth, fjcs_flags flags,
                                       const fjcs_hasher *hasher) {
    fjcs_error err;
    if (begin(c) != FJCS_OK) return NULL;
    c->canon.len = 0;
    fjcs_code rc = run_marshal(c, data, len, max_depth, flags, &c->canon, &err);
    if (rc == FJCS_OK) rc = put_digest(c, hasher);
    return lend(c, rc, &err);
}

const char *fjcs_lender_digest_text(fjcs_lender *c, const char *text, size_t len,
                                    size_t max_depth, fjcs_flags flags, const fjcs_hasher *hasher) {
    fjcs_error err;
    if (begin(c) != FJCS_OK) return NULL;
    c->canon.len = 0;
    fjcs_code rc = run_text(c, text, len, max_depth, flags, &c->canon, &err);
    if (rc == FJCS_OK) rc = put_digest(c, hasher);
    return lend(c, rc, &err);
}

const char *fjcs_lender_format_double(fjcs_lender *c, double v) {
    if (begin(c) != FJCS_OK) return NULL;
    if (fjcs__buf_reserve(&c->out, FJCS_NUMBER_BUFSIZE) != FJCS_OK) return NULL;
    size_t n;
    if (fjcs_format_double(v, c->out.data + c->out.len, &n) != FJCS_OK) return NULL;
    c->out.len += n;
    return lend(c, FJCS_OK, NULL);
}
