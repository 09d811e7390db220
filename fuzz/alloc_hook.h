/*
 * alloc_hook.h: force-included (-include) into the core's sources when the fuzz harnesses are
 * built: every realloc of the core goes through fjcs__fuzz_realloc (fuzz_common.h), which caps the
 * size of one allocation and can fail a chosen one, so the out-of-memory paths run under the
 * sanitizers too (a leak on such a path is a LeakSanitizer report).
 */
#include <stdlib.h>

void *fjcs__fuzz_realloc(void *p, size_t n);
#define realloc(p, n) fjcs__fuzz_realloc((p), (n))
