/*
 * fjcs_config.h: the build switches of the C core and the compiler macros its files share,
 * defined once here (every .c file of csrc/ includes it through fjcs_internal.h).
 *
 * Platform switches are named FJCS_HAVE_<feature> and are 0 or 1. Each defaults to what the
 * compiler says it has; a build may turn one off with -DFJCS_HAVE_<feature>=0 to compile the
 * portable code instead (the sanitizer builds of tests/c do, so that code runs on every test run):
 *
 *   FJCS_HAVE_INT128          unsigned __int128 for 64x64->128 products (else four 32x32->64)
 *   FJCS_HAVE_BUILTINS        GNU C's __builtin_clzll and __builtin_expect (else plain C)
 *   FJCS_HAVE_LITTLE_ENDIAN   the target is little-endian: digits are read and written as
 *                             64-bit words (else byte by byte)
 *
 * Algorithm switches of one file (FJCS_PARSE_*, FJCS_INTEGER_FAST_PATH, ...) stay in that file.
 */
#ifndef FJCS_CONFIG_H
#define FJCS_CONFIG_H

#include <stdint.h>

/* ---- Platform switches ---------------------------------------------------------------------- */

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

#if FJCS_HAVE_INT128
__extension__ typedef unsigned __int128 fjcs__u128;
#endif

/* ---- Compiler macros ------------------------------------------------------------------------ */

/* FJCS_INLINE: a static function inlined wherever it is called (the hot paths are written as
 * small functions); FJCS_COLD: a rare path kept out of line, so its callers stay small. */
#if defined(__GNUC__) || defined(__clang__)
#define FJCS_INLINE static inline __attribute__((always_inline))
#define FJCS_COLD __attribute__((noinline, cold))
#elif defined(_MSC_VER)
#define FJCS_INLINE static __forceinline
#define FJCS_COLD __declspec(noinline)
#else
#define FJCS_INLINE static inline
#define FJCS_COLD
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

#endif /* FJCS_CONFIG_H */
