/*
 * fjcs_config.h: the build switches of the C core and the compiler macros its files share,
 * defined once here (every .c file of csrc/ includes it through fjcs_internal.h).
 *
 * Platform switches are named FJCS_HAVE_<feature> and are 0 or 1. Each defaults to what the
 * compiler says it has; a build may turn one off with -DFJCS_HAVE_<feature>=0 to compile the
 * portable code instead (the sanitizer builds of tests/c do, so that code runs on every test run,
 * and CI's portable step builds both extensions so and runs tests/core and tests/digests on them
 * under ASan and UBSan). The code a switch off selects is right on any byte order: a
 * little-endian target whose compiler does not say so compiles it too. The switches:
 *
 *   FJCS_HAVE_INT128          unsigned __int128 for 64x64->128 products (else four 32x32->64)
 *   FJCS_HAVE_BUILTINS        GNU C's __builtin_clzll and __builtin_expect (else plain C)
 *   FJCS_HAVE_LITTLE_ENDIAN   the target is little-endian: digits are read and written as
 *                             64-bit words (else byte by byte)
 *   FJCS_HAVE_SSE2            x86-64's SSE2 (every x86-64 has it): number_format.c makes sixteen
 *                             digits in one 128-bit register, text.c and the walker's strings are
 *                             scanned for bytes to escape and copied 16 bytes at a time, digests
 *                             are rendered in hex 16 bytes at a time (else 64-bit words, and byte
 *                             by byte)
 *
 * Every other switch of the core is here too, each with its default (a build may set any with
 * -D): the algorithm switches (FJCS_PARSE_*, FJCS_INTEGER_FAST_PATH), the sizes (FJCS_BUF_MIN,
 * FJCS_SMALL_SORT, FJCS_KEEP), and the test hooks, which only a build with -DFJCS_TESTING=1 may
 * set (tests/c builds them; any other build that sets one fails to compile).
 */
#ifndef FJCS_CONFIG_H
#define FJCS_CONFIG_H

#include <stdint.h>

/* ---- Platform switches ----------------------------------------------------------------------- */

#ifndef FJCS_HAVE_INT128
#ifdef __SIZEOF_INT128__
#define FJCS_HAVE_INT128 1
#else
#define FJCS_HAVE_INT128 0
#endif
#endif

#ifndef FJCS_HAVE_BUILTINS
#if defined(__GNUC__) || defined(__clang__)
#define FJCS_HAVE_BUILTINS 1
#else
#define FJCS_HAVE_BUILTINS 0
#endif
#endif

#ifndef FJCS_HAVE_LITTLE_ENDIAN
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FJCS_HAVE_LITTLE_ENDIAN 1
#elif defined(_M_X64) || defined(_M_IX86) || defined(_M_ARM64)
#define FJCS_HAVE_LITTLE_ENDIAN 1
#else
#define FJCS_HAVE_LITTLE_ENDIAN 0
#endif
#endif

#ifndef FJCS_HAVE_SSE2
#if (defined(__SSE2__) && defined(__x86_64__)) || defined(_M_X64) /* 64-bit moves to and from */
#define FJCS_HAVE_SSE2 1
#else
#define FJCS_HAVE_SSE2 0
#endif
#endif

#if FJCS_HAVE_INT128
__extension__ typedef unsigned __int128 fjcs__u128;
#endif

/* ---- Algorithm switches ---------------------------------------------------------------------- */

/* number_format.c. 1: doubles that are integers below 2^53 skip Schubfach and print their integer
 * digits (the same result, as their rounding interval is narrower than 1); 0: everything goes
 * through Schubfach (the tests build both ways). */
#ifndef FJCS_INTEGER_FAST_PATH
#define FJCS_INTEGER_FAST_PATH 1
#endif

/* number_parse.c, path 1 (Clinger's fast path): 0 disables it, so that tests reach paths 2 and 3
 * with short tokens. */
#ifndef FJCS_PARSE_CLINGER
#define FJCS_PARSE_CLINGER 1
#endif

/* number_parse.c, path 2 (Eisel-Lemire): 0 disables it: every token then goes through the exact
 * path (tests build it this way). */
#ifndef FJCS_PARSE_EISEL_LEMIRE
#define FJCS_PARSE_EISEL_LEMIRE 1
#endif

/* number_parse.c: significant digits the exact path keeps; the rest only count as a sticky "more
 * than zero". Why 768 suffice is at the exact path's banner; 800 leaves a margin. */
#ifndef FJCS_PARSE_MAX_DIGITS
#define FJCS_PARSE_MAX_DIGITS 800
#endif

/* number_parse.c: 1 reads eight digits at a time with 64-bit loads (Lemire 2021, after W. Mula);
 * needs a little-endian load, so it defaults to FJCS_HAVE_LITTLE_ENDIAN. */
#ifndef FJCS_PARSE_SWAR
#define FJCS_PARSE_SWAR FJCS_HAVE_LITTLE_ENDIAN
#endif

/* ---- Sizes ----------------------------------------------------------------------------------- */

/* writer.c: initial capacity of an output buffer; it doubles from there. */
#ifndef FJCS_BUF_MIN
#define FJCS_BUF_MIN 256
#endif

/* member_sort.h: insertion sort up to this many members; a stable merge sort above. */
#ifndef FJCS_SMALL_SORT
#define FJCS_SMALL_SORT 16
#endif

/* lender.c and cpython/direct.c: the most a small-call state (a lender, the direct entry's
 * module state) keeps between calls, per buffer: a call that left more is trimmed by the next. */
#ifndef FJCS_KEEP
#define FJCS_KEEP ((size_t)1 << 16)
#endif

/* cpython/direct.c and bytes_out.c: the largest first allocation made for an output from the size
 * of the one before (past it, the output grows by doubling): one 2 GB output must not make every
 * later call that outgrows FJCS_KEEP (or bytes_out.c's 4 KB) ask for 2 GB first. */
#ifndef FJCS_HINT_MAX
#define FJCS_HINT_MAX ((size_t)1 << 24)
#endif

/* ---- Test hooks (FJCS_TESTING) --------------------------------------------------------------- */

#ifndef FJCS_TESTING
#define FJCS_TESTING 0
#endif

#if FJCS_TESTING
/* number_parse.c: ulps added to the exact path's first candidate, to check that the correction
 * loop converges from either side (tests/c/run_parse_sanitized.sh). */
#ifndef FJCS_PARSE_TEST_SKEW
#define FJCS_PARSE_TEST_SKEW 0
#endif
/* number_parse.c: called with the FJCS_PATH_* that decided each token; a test driver defines it
 * (before #including number_parse.c: tests/c/parse_check.c) to prove that its inputs exercise
 * every path. */
#ifndef FJCS_PARSE_TEST_HOOK
#define FJCS_PARSE_TEST_HOOK(path) ((void)0)
#endif
#else
#if defined(FJCS_PARSE_TEST_SKEW) || defined(FJCS_PARSE_TEST_HOOK)
#error "a test hook (FJCS_PARSE_TEST_*) is set in a build without -DFJCS_TESTING=1"
#endif
#define FJCS_PARSE_TEST_SKEW 0
#define FJCS_PARSE_TEST_HOOK(path) ((void)0)
#endif

/* ---- Compiler macros ------------------------------------------------------------------------- */

/* FJCS_INLINE: a static function inlined wherever it is called (the hot paths are written as
 * small functions); FJCS_COLD: a rare path kept out of line, so its callers stay small;
 * FJCS_NOINLINE: a path kept out of line for the same reason, not a rare one. */
#if defined(__GNUC__) || defined(__clang__)
#define FJCS_INLINE static inline __attribute__((always_inline))
#define FJCS_COLD __attribute__((noinline, cold))
#define FJCS_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define FJCS_INLINE static __forceinline
#define FJCS_COLD __declspec(noinline)
#define FJCS_NOINLINE __declspec(noinline)
#else
#define FJCS_INLINE static inline
#define FJCS_COLD
#define FJCS_NOINLINE
#endif

/* Branch hints. */
#if FJCS_HAVE_BUILTINS
#define FJCS_LIKELY(x) __builtin_expect(!!(x), 1)
#define FJCS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define FJCS_LIKELY(x) (x)
#define FJCS_UNLIKELY(x) (x)
#endif

/* The number of leading zero bits of x != 0. */
static inline int fjcs__clz64(uint64_t x) {
#if FJCS_HAVE_BUILTINS
    return __builtin_clzll(x);
#else
    int n = 0;
    if (!(x >> 32)) { n += 32; x <<= 32; }
    if (!(x >> 48)) { n += 16; x <<= 16; }
    if (!(x >> 56)) { n += 8; x <<= 8; }
    if (!(x >> 60)) { n += 4; x <<= 4; }
    if (!(x >> 62)) { n += 2; x <<= 2; }
    if (!(x >> 63)) { n += 1; }
    return n;
#endif
}

/* The number of trailing zero bits of x != 0. */
static inline int fjcs__ctz64(uint64_t x) {
#if FJCS_HAVE_BUILTINS
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

#endif /* FJCS_CONFIG_H */
