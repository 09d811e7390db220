/*
 * parse_check.c: a test driver for fjcs__parse_double (csrc/number_parse.c), built by
 * tests/c/run_parse_sanitized.sh under ASan/UBSan and by tests/c/test_parse_double.py.
 *
 * It #includes number_parse.c with FJCS_PARSE_TEST_HOOK defined, so it also learns which path
 * decided each token (the hook is not in the public header; real builds compile it to nothing).
 *
 *   parse_check [--require-paths LIST] < lines
 *       Runs the built-in edge cases, then checks lines "token,expected" from stdin, where expected
 *       is the 16 hex digits of the double's bits or "overflow". Exits 1 at the first mismatch.
 *       Prints how many tokens each path decided; with --require-paths (comma-separated path
 *       names), exits 1 if one of them decided none.
 *   parse_check --paths < tokens
 *       For each line (a token), prints "path bits" (or "path overflow", "- syntax").
 *
 * Compile with -Icsrc; the knobs of number_parse.c (-DFJCS_PARSE_EISEL_LEMIRE=0, ...) and the
 * switches of fjcs_config.h (-DFJCS_HAVE_INT128=0, ...) pass through.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fjcs_test_path;
#define FJCS_TESTING 1
#define FJCS_PARSE_TEST_HOOK(path) (fjcs_test_path = (path))
#include "number_parse.c"

static const char *const path_names[] = {
    "-", "zero", "range", "clinger", "el", "el_wide", "exact_ambiguous", "exact_truncated",
    "exact_forced",
};
#define NPATHS ((int)(sizeof path_names / sizeof path_names[0]))

static long path_counts[NPATHS];

/* Expected outcome: rc FJCS_OK with these bits, or another rc. */
typedef struct {
    const char *token;
    int rc;
    uint64_t bits;
} edge_case;

static const edge_case edge_cases[] = {
    {"0", FJCS_OK, 0},
    {"-0", FJCS_OK, UINT64_C(0x8000000000000000)},
    {"-0.0", FJCS_OK, UINT64_C(0x8000000000000000)},
    {"-0e5", FJCS_OK, UINT64_C(0x8000000000000000)},
    {"0e99999", FJCS_OK, 0},
    {"0.000e-99999999999999999999999", FJCS_OK, 0},
    {"1", FJCS_OK, UINT64_C(0x3FF0000000000000)},
    {"0.1", FJCS_OK, UINT64_C(0x3FB999999999999A)},
    {"1e23", FJCS_OK, UINT64_C(0x44B52D02C7E14AF6)},
    {"123e30", FJCS_OK, UINT64_C(0x469841E9BD604769)},
    {"9007199254740993", FJCS_OK, UINT64_C(0x4340000000000000)},   /* tie -> even, down */
    {"9007199254740995", FJCS_OK, UINT64_C(0x4340000000000002)},   /* tie -> even, up */
    {"9007199254740993.0", FJCS_OK, UINT64_C(0x4340000000000000)},
    {"9007199254740993.00000000000000000000000000001", FJCS_OK, UINT64_C(0x4340000000000001)},
    {"5e-324", FJCS_OK, 1},
    {"2.4703282292062327e-324", FJCS_OK, 0},
    {"2.4703282292062328e-324", FJCS_OK, 1},
    {"2.2250738585072011e-308", FJCS_OK, UINT64_C(0x000FFFFFFFFFFFFF)},
    {"2.2250738585072014e-308", FJCS_OK, UINT64_C(0x0010000000000000)},
    {"1.7976931348623157e308", FJCS_OK, UINT64_C(0x7FEFFFFFFFFFFFFF)},
    {"1.7976931348623158e308", FJCS_OK, UINT64_C(0x7FEFFFFFFFFFFFFF)},
    {"-1.7976931348623157e308", FJCS_OK, UINT64_C(0xFFEFFFFFFFFFFFFF)},
    {"1.7976931348623159e308", FJCS_E_FLOAT_DOMAIN, 0},
    {"1e309", FJCS_E_FLOAT_DOMAIN, 0},
    {"1e400", FJCS_E_FLOAT_DOMAIN, 0},
    {"-1e400", FJCS_E_FLOAT_DOMAIN, 0},
    {"1e-400", FJCS_OK, 0},
    {"-1e-400", FJCS_OK, UINT64_C(0x8000000000000000)},
    {"1e+99999999999999999999", FJCS_E_FLOAT_DOMAIN, 0},
    {"1e-99999999999999999999", FJCS_OK, 0},
    {"1E+0000000000000000000000000000000000000001", FJCS_OK, UINT64_C(0x4024000000000000)},
    {"18446744073709551615", FJCS_OK, UINT64_C(0x43F0000000000000)},
    {"", FJCS_E_SYNTAX, 0},
    {"-", FJCS_E_SYNTAX, 0},
    {"01", FJCS_E_SYNTAX, 0},
    {"1.", FJCS_E_SYNTAX, 0},
    {".5", FJCS_E_SYNTAX, 0},
    {"1e", FJCS_E_SYNTAX, 0},
    {"1e+", FJCS_E_SYNTAX, 0},
    {"+1", FJCS_E_SYNTAX, 0},
    {"1x", FJCS_E_SYNTAX, 0},
    {"--1", FJCS_E_SYNTAX, 0},
    {"1.5e3.0", FJCS_E_SYNTAX, 0},
};

/* Parses tok and compares with the expectation; prints the mismatch and returns 0 on failure. */
static int check(const char *tok, size_t len, int want_rc, uint64_t want_bits) {
    double value = -12345.0;  /* must stay untouched unless FJCS_OK */
    fjcs_test_path = 0;
    int rc = fjcs__parse_double(tok, len, &value);
    path_counts[fjcs_test_path]++;
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    int ok = rc == want_rc;
    if (ok && rc == FJCS_OK) ok = bits == want_bits;
    if (ok && rc != FJCS_OK) ok = value == -12345.0;
    if (!ok) {
        fprintf(stderr, "MISMATCH %.*s%s: rc %d bits %016" PRIx64 " (path %s), want rc %d bits %016"
                PRIx64 "\n", len > 200 ? 200 : (int)len, tok, len > 200 ? "..." : "", rc, bits,
                path_names[fjcs_test_path], want_rc, want_bits);
    }
    return ok;
}

/* The whole of stdin, NUL-terminated; exits on allocation failure. */
static char *read_all(size_t *size) {
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        n += fread(buf + n, 1, cap - n - 1, stdin);
        if (n < cap - 1) break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    buf[n] = 0;
    *size = n;
    return buf;
}

static int path_index(const char *name, size_t len) {
    for (int i = 1; i < NPATHS; i++) {
        if (strlen(path_names[i]) == len && memcmp(path_names[i], name, len) == 0) return i;
    }
    return -1;
}

static int run_paths(void) {
    size_t size;
    char *text = read_all(&size);
    for (char *line = text; line < text + size;) {
        char *nl = memchr(line, '\n', (size_t)(text + size - line));
        size_t len = nl ? (size_t)(nl - line) : (size_t)(text + size - line);
        double value;
        fjcs_test_path = 0;
        int rc = fjcs__parse_double(line, len, &value);
        uint64_t bits;
        memcpy(&bits, &value, sizeof bits);
        if (rc == FJCS_OK) {
            printf("%s %016" PRIx64 "\n", path_names[fjcs_test_path], bits);
        } else {
            printf("%s %s\n", path_names[fjcs_test_path],
                   rc == FJCS_E_FLOAT_DOMAIN ? "overflow" : "syntax");
        }
        line += len + 1;
    }
    free(text);
    return 0;
}

int main(int argc, char **argv) {
    const char *require = NULL;
    if (argc == 2 && strcmp(argv[1], "--paths") == 0) return run_paths();
    if (argc == 3 && strcmp(argv[1], "--require-paths") == 0) {
        require = argv[2];
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [--paths | --require-paths a,b,...] < input\n", argv[0]);
        return 2;
    }

    long checked = 0;
    for (size_t i = 0; i < sizeof edge_cases / sizeof edge_cases[0]; i++) {
        const edge_case *c = &edge_cases[i];
        if (!check(c->token, strlen(c->token), c->rc, c->bits)) return 1;
        checked++;
    }

    size_t size;
    char *text = read_all(&size);
    for (char *line = text; line < text + size;) {
        char *nl = memchr(line, '\n', (size_t)(text + size - line));
        size_t len = nl ? (size_t)(nl - line) : (size_t)(text + size - line);
        if (len == 0) {
            line++;
            continue;
        }
        char *comma = NULL;
        for (size_t j = len; j-- > 0;) {
            if (line[j] == ',') {
                comma = line + j;
                break;
            }
        }
        if (!comma) {
            fprintf(stderr, "bad line %ld: no comma\n", checked);
            return 2;
        }
        size_t tok_len = (size_t)(comma - line);
        const char *want = comma + 1;
        size_t want_len = len - tok_len - 1;
        int ok;
        if (want_len == 8 && memcmp(want, "overflow", 8) == 0) {
            ok = check(line, tok_len, FJCS_E_FLOAT_DOMAIN, 0);
        } else {
            char hex[17];
            if (want_len != 16) {
                fprintf(stderr, "bad line %ld: expected 16 hex digits\n", checked);
                return 2;
            }
            memcpy(hex, want, 16);
            hex[16] = 0;
            ok = check(line, tok_len, FJCS_OK, strtoull(hex, NULL, 16));
        }
        if (!ok) return 1;
        checked++;
        line += len + 1;
    }
    free(text);

    printf("%ld tokens ok;", checked);
    for (int i = 1; i < NPATHS; i++) printf(" %s=%ld", path_names[i], path_counts[i]);
    printf("\n");
    if (require) {
        for (const char *p = require; *p;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            int idx = path_index(p, n);
            if (idx < 0) {
                fprintf(stderr, "unknown path %.*s\n", (int)n, p);
                return 2;
            }
            if (path_counts[idx] == 0) {
                fprintf(stderr, "path %s decided no token\n", path_names[idx]);
                return 1;
            }
            p += n + (comma != NULL);
        }
    }
    return 0;
}
