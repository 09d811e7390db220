/*
 * local.c: the per-thread entry points (fjcs_local_*), for one small document per call.
 *
 * A call from Python costs more around the work than in it when the document is small: an
 * output buffer to allocate and free, a second call to free it, an error record. These entry
 * points keep the calling thread's output buffer and text parser from one call to the next and
 * return a pointer to the result, so a call is one crossing that allocates nothing once the
 * thread has warmed up.
 *
 * The result is lent to the caller: it stays valid until the caller hands it back by clearing
 * the byte just before it (result[-1] = 0), after copying it. A call that finds the previous
 * result of its thread still lent (the caller never handed it back, or a second call was made
 * before the first was copied: a signal handler or a finalizer running between the two) leaves
 * that buffer alone, keeps it aside, and writes into a new one; a buffer kept aside is freed by a
 * later call once it has been handed back, and in any case when the thread ends. So a result is
 * not overwritten or freed while it is lent; the one exception bounds what a thread keeps: at
 * most RETIRED buffers are kept aside, and the oldest is freed to make room (a result is lost
 * only when a caller never hands it back, or under RETIRED calls nested before the first copy).
 * A buffer that a call left larger than FJCS_LOCAL_KEEP bytes is freed by the next call.
 *
 * Canonical JSON never contains a NUL byte (RFC 8785 escapes every control character), nor does a
 * rendered number or digest, so each result is NUL-terminated and its length is its strlen.
 *
 * Where a call fails, it returns NULL and describes nothing: the caller runs the ordinary entry
 * point (fjcs_canonicalize, ...) on the same input for the error record. Failures are the rare
 * path, and this keeps an error record out of the shared state.
 *
 * The thread's state is freed when the thread ends (a POSIX thread-specific key's destructor, a
 * fiber-local slot's callback on Windows).
 */
#include <stddef.h>
#include <stdlib.h>

#include "fjcs_internal.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
#endif

/* The most a thread keeps between calls, per buffer: a call that left more is trimmed by the next. */
#ifndef FJCS_LOCAL_KEEP
#define FJCS_LOCAL_KEEP ((size_t)1 << 16)
#endif

/* The most lent buffers a thread keeps aside; past that, the oldest is freed. */
#define RETIRED 8

/* A thread's state. */
typedef struct local {
    fjcs_buf out;       /* out.data[0] is the lent flag; the result starts at out.data + 1 */
    fjcs_buf canon;     /* the canonical bytes a digest hashes (never lent) */
    fjcs__text text;    /* the text parser, its stacks kept */
    fjcs__order order;  /* the marshal reader's member ordering, its buffers kept */
    char *retired[RETIRED]; /* buffers still lent when a call needed one, oldest first */
    size_t nretired;
} local;

static void local_free(void *p) {
    local *c = (local *)p;
    if (c == NULL) return;
    fjcs_buf_free(&c->out);
    fjcs_buf_free(&c->canon);
    fjcs__text_free(&c->text);
    fjcs__order_free(&c->order);
    for (size_t i = 0; i < c->nretired; i++) free(c->retired[i]);
    free(c);
}

/* ---- The thread's state: created on first use, freed when the thread ends ------------------ */

#if defined(_WIN32)
static DWORD slot = FLS_OUT_OF_INDEXES;
static INIT_ONCE slot_once = INIT_ONCE_STATIC_INIT;

static void WINAPI slot_free(void *p) { local_free(p); }

static BOOL CALLBACK slot_init(PINIT_ONCE once, PVOID param, PVOID *ctx) {
    (void)once;
    (void)param;
    (void)ctx;
    slot = FlsAlloc(slot_free);
    return TRUE;
}

static local *get_local(void) {
    InitOnceExecuteOnce(&slot_once, slot_init, NULL, NULL);
    if (slot == FLS_OUT_OF_INDEXES) return NULL;
    local *c = (local *)FlsGetValue(slot);
    if (c != NULL) return c;
    c = (local *)calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    fjcs__text_init(&c->text, 0, 0);
    if (!FlsSetValue(slot, c)) {
        free(c);
        return NULL;
    }
    return c;
}
#else
static pthread_key_t key;
static int key_ok;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void key_init(void) { key_ok = pthread_key_create(&key, local_free) == 0; }

static local *get_local(void) {
    pthread_once(&key_once, key_init);
    if (!key_ok) return NULL;
    local *c = (local *)pthread_getspecific(key);
    if (c != NULL) return c;
    c = (local *)calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    fjcs__text_init(&c->text, 0, 0);
    if (pthread_setspecific(key, c) != 0) {
        free(c);
        return NULL;
    }
    return c;
}
#endif

/* ---- One call ---------------------------------------------------------------------------- */

/* Free the retired buffers the caller has handed back. */
static void sweep(local *c) {
    size_t kept = 0;
    for (size_t i = 0; i < c->nretired; i++) {
        if (c->retired[i][0]) c->retired[kept++] = c->retired[i];
        else free(c->retired[i]);
    }
    c->nretired = kept;
}

/* Drop a buffer larger than what a thread keeps. */
static void trim(fjcs_buf *b) {
    if (b->cap > FJCS_LOCAL_KEEP) fjcs_buf_free(b);
}

/* The thread's state with an empty output buffer, its lent flag clear; NULL if out of memory. */
static local *begin(void) {
    local *c = get_local();
    if (c == NULL) return NULL;
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
    if (fjcs__buf_reserve(&c->out, 1) != FJCS_OK) return NULL;
    fjcs__buf_put(&c->out, 0);
    return c;
}

/* Lend the result (rc FJCS_OK) or report the failure (NULL). */
static const char *lend(local *c, int rc) {
    if (rc != FJCS_OK || fjcs__buf_reserve(&c->out, 1) != FJCS_OK) return NULL;
    c->out.data[c->out.len] = 0;
    c->out.data[0] = 1;
    return c->out.data + 1;
}

/* Whether member ordering's buffers grew past what a thread keeps. */
static int order_is_large(const fjcs__order *o) {
    return o->scratch.cap > FJCS_LOCAL_KEEP || o->spans_cap * sizeof *o->spans > FJCS_LOCAL_KEEP ||
           o->recs_cap * sizeof *o->recs > FJCS_LOCAL_KEEP;
}

/* Forget a parser's buffers when they grew past what a thread keeps. */
static void trim_text(local *c) {
    fjcs__text *t = &c->text;
    if (t->arena.cap > FJCS_LOCAL_KEEP || order_is_large(&t->order) ||
        t->frames_cap * sizeof *t->frames > FJCS_LOCAL_KEEP ||
        t->members_cap * sizeof *t->members > FJCS_LOCAL_KEEP) {
        fjcs__text_free(t);
        fjcs__text_init(t, 0, 0);
    }
}

static int run_marshal(local *c, const char *data, size_t len, size_t max_depth, int flags,
                       fjcs_buf *out) {
    int rc = fjcs__marshal_run(data, len, max_depth, flags, out, NULL, &c->order);
    if (order_is_large(&c->order)) fjcs__order_free(&c->order);
    return rc;
}

static int run_text(local *c, const char *text, size_t len, size_t max_depth, int flags,
                    fjcs_buf *out) {
    fjcs__text_set_limits(&c->text, max_depth, flags);
    int rc = fjcs__text_run(&c->text, text, len, out, NULL);
    trim_text(c);
    return rc;
}

/* Render prefix and the digest of c->canon in lowercase hex into c->out. */
static int put_digest(local *c, fjcs_hash_fn hash, size_t digest_size, const char *prefix,
                      size_t prefix_len) {
    static const char hex[] = "0123456789abcdef";
    uint8_t digest[FJCS_MAX_DIGEST];
    if (digest_size > FJCS_MAX_DIGEST) return FJCS_E_HASH;
    if (hash((const uint8_t *)c->canon.data, c->canon.len, digest, digest_size) != 0) return FJCS_E_HASH;
    if (fjcs__buf_reserve(&c->out, prefix_len + 2 * digest_size) != FJCS_OK) return FJCS_E_NOMEM;
    fjcs__buf_put_n(&c->out, prefix, prefix_len);
    for (size_t i = 0; i < digest_size; i++) {
        fjcs__buf_put(&c->out, hex[digest[i] >> 4]);
        fjcs__buf_put(&c->out, hex[digest[i] & 15]);
    }
    return FJCS_OK;
}

/* ---- Entry points ------------------------------------------------------------------------ */

const char *fjcs_local_canonicalize(const char *text, size_t len, size_t max_depth, int flags) {
    local *c = begin();
    if (c == NULL) return NULL;
    return lend(c, run_text(c, text, len, max_depth, flags, &c->out));
}

const char *fjcs_local_canonicalize_marshal(const char *data, size_t len, size_t max_depth,
                                            int flags) {
    local *c = begin();
    if (c == NULL) return NULL;
    return lend(c, run_marshal(c, data, len, max_depth, flags, &c->out));
}

const char *fjcs_local_digest_marshal(const char *data, size_t len, size_t max_depth,
                                      int flags, fjcs_hash_fn hash, size_t digest_size,
                                      const char *prefix, size_t prefix_len) {
    local *c = begin();
    if (c == NULL) return NULL;
    c->canon.len = 0;
    int rc = run_marshal(c, data, len, max_depth, flags, &c->canon);
    if (rc == FJCS_OK) rc = put_digest(c, hash, digest_size, prefix, prefix_len);
    return lend(c, rc);
}

const char *fjcs_local_digest_text(const char *text, size_t len, size_t max_depth, int flags,
                                   fjcs_hash_fn hash, size_t digest_size, const char *prefix,
                                   size_t prefix_len) {
    local *c = begin();
    if (c == NULL) return NULL;
    c->canon.len = 0;
    int rc = run_text(c, text, len, max_depth, flags, &c->canon);
    if (rc == FJCS_OK) rc = put_digest(c, hash, digest_size, prefix, prefix_len);
    return lend(c, rc);
}

const char *fjcs_local_format_double(double v) {
    local *c = begin();
    if (c == NULL) return NULL;
    if (fjcs__buf_reserve(&c->out, FJCS_NUMBER_BUFSIZE) != FJCS_OK) return NULL;
    size_t n;
    if (fjcs_format_double(v, c->out.data + c->out.len, &n) != FJCS_OK) return NULL;
    c->out.len += n;
    return lend(c, FJCS_OK);
}
