/*
 * fuzz_stream.c: libFuzzer harness for the stream over a file (csrc/stream.c), against the
 * in-memory text canonicalizer (csrc/text.c).
 *
 * Built by .ci/fuzz.sh like the other fuzz_*.c harnesses; any bytes are valid input (the document
 * is all of them: the text harness's seeds serve). The input is written to a temporary file and
 * streamed with a window chosen from its length (1 to 17 bytes, so that every container is
 * "larger than the window" and the walk runs, and the default window) and flags chosen from it
 * too. Besides "no crash, no sanitizer report, no leak", it checks that the stream gives what
 * fjcs_canonicalize gives on the same bytes: the same code, offset and expectation on failure,
 * the same bytes on success (FJCS_E_STREAM_LIMIT is not expected: the limit is lifted); and an
 * allocation failure anywhere gives FJCS_E_NOMEM or the same answer.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fileno, write */
#endif
#include <unistd.h>

#include "fuzz_common.h"

static result in_memory(const char *text, size_t len, int flags) {
    result r;
    fjcs_error err = {(fjcs_code)-1, (fjcs_expect)-1, (size_t)-1, NULL};
    memset(&r.out, 0, sizeof r.out);
    r.rc = fjcs_canonicalize(text, len, DEFAULT_DEPTH, flags, &r.out, &err);
    take_error(&r, &err, len);
    return r;
}

static result streamed(int fd, size_t len, int flags, size_t window) {
    result r;
    fjcs_error err = {(fjcs_code)-1, (fjcs_expect)-1, (size_t)-1, NULL};
    fjcs_stream *s = NULL;
    memset(&r.out, 0, sizeof r.out);
    r.rc = fjcs_stream_open(fd, len, DEFAULT_DEPTH, flags, window, SIZE_MAX, &s, &err);
    CHECK(r.rc == FJCS_OK && s != NULL);
    for (;;) {
        const char *data;
        size_t n;
        r.rc = fjcs_stream_next(s, &data, &n, &err);
        if (r.rc != FJCS_OK || n == 0) break;
        CHECK(n <= SIZE_MAX - r.out.len);
        char *grown = (char *)(realloc)(r.out.data, r.out.len + n);
        CHECK(grown != NULL);
        memcpy(grown + r.out.len, data, n);
        r.out.data = grown;
        r.out.len += n;
        r.out.cap = r.out.len;
    }
    fjcs_stream_close(s);
    if (r.rc == FJCS_E_NOMEM) {
        r.offset = 0;
        return r;
    }
    take_error(&r, &err, len);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    int fd = fileno(f);
    CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
    int flags = (int)(size / 17 % 3); /* 0, FJCS_STRICT_INTEGERS, FJCS_INTEGERS_ONLY */
    char *copy = fuzz_copy(data, size);
    result want = in_memory(copy, size, flags);
    size_t windows[2] = {1 + size % 17, 0};
    for (int i = 0; i < 2; i++) {
        result got = streamed(fd, size, flags, windows[i]);
        CHECK(got.rc != FJCS_E_STREAM_LIMIT && got.rc != FJCS_E_IO);
        if (got.rc != FJCS_E_NOMEM && want.rc != FJCS_E_NOMEM) CHECK(same(&got, &want));
        fjcs_buf_free(&got.out);
    }
    /* an allocation failure gives FJCS_E_NOMEM or the same answer, and leaks nothing */
    fuzz_inject_failure((long)(size % 7));
    result got = streamed(fd, size, flags, windows[0]);
    fuzz_inject_failure(-1);
    if (got.rc != FJCS_E_NOMEM && want.rc != FJCS_E_NOMEM) CHECK(same(&got, &want));
    fjcs_buf_free(&got.out);
    fjcs_buf_free(&want.out);
    free(copy);
    fclose(f);
    return 0;
}
