/*
 * text_check.c: canonicalize texts with the core's text parser (csrc/text.c), for
 * tests/c/test_text_builds.py, which builds it with the build switches of fjcs_config.h set
 * several ways (SSE2 or not, little-endian words or not) and holds every build to the same
 * expected answers.
 *
 * stdin: one text a line, in hex. stdout, a line per text: "ok <canonical form in hex>", or
 * "err <fjcs_code> <offset>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastjcs.h"

static int nibble(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int main(void) {
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strcspn(line, "\n") / 2;
        char *text = (char *)malloc(n ? n : 1); /* exactly the text: ASan sees a read past it */
        if (text == NULL) return 2;
        for (size_t i = 0; i < n; i++) {
            int hi = nibble(line[2 * i]), lo = nibble(line[2 * i + 1]);
            if (hi < 0 || lo < 0) return 2;
            text[i] = (char)(hi * 16 + lo);
        }
        fjcs_buf out = {0};
        fjcs_error err;
        fjcs_code rc = fjcs_canonicalize(text, n, 1000, 0, &out, &err);
        if (rc == FJCS_OK) {
            fputs("ok ", stdout);
            for (size_t i = 0; i < out.len; i++) printf("%02x", (unsigned char)out.data[i]);
            putchar('\n');
        } else {
            printf("err %d %zu\n", (int)rc, err.offset);
        }
        fjcs_buf_free(&out);
        free(text);
    }
    return 0;
}
