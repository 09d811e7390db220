#!/usr/bin/env bash
# Checks csrc/number_parse.c under AddressSanitizer and UndefinedBehaviorSanitizer against
# CPython's float() on a few hundred thousand tokens (tests/c/gen_parse_corpus.py, fixed seed).
#
# Five builds of tests/c/parse_check.c (which #includes number_parse.c):
#   default      all three paths, unsigned __int128; must see every path decide some token
#   portable     what a compiler without GCC extensions or a little-endian target gets: the
#                portable 64x64->128 multiply, leading-zero count and one-digit-at-a-time scan
#   exact-only   paths 1 and 2 disabled: the exact path alone decides every token
#   skewed       exact-only, its first candidate moved 3 ulps up / down: the correction loop
#                converges from either side
# Exits non-zero at the first failure. Usage: tests/c/run_parse_sanitized.sh [CC]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cc="${1:-${CC:-cc}}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

flags=(-std=c11 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer
       -fsanitize=address,undefined -fno-sanitize-recover=all -I"$root/csrc")
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

python3 "$here/gen_parse_corpus.py" > "$work/corpus.txt"
echo "corpus: $(wc -l < "$work/corpus.txt") tokens"

build() {  # name, extra flags...
    local name="$1"
    shift
    "$cc" "${flags[@]}" "$@" "$here/parse_check.c" -o "$work/$name"
}

build default
build portable -DFJCS_HAVE_INT128=0 -DFJCS_HAVE_BUILTINS=0 -DFJCS_PARSE_SWAR=0
build exact-only -DFJCS_PARSE_CLINGER=0 -DFJCS_PARSE_EISEL_LEMIRE=0
build skew-up -DFJCS_PARSE_CLINGER=0 -DFJCS_PARSE_EISEL_LEMIRE=0 -DFJCS_TESTING=1 -DFJCS_PARSE_TEST_SKEW=3
build skew-down -DFJCS_PARSE_CLINGER=0 -DFJCS_PARSE_EISEL_LEMIRE=0 -DFJCS_TESTING=1 -DFJCS_PARSE_TEST_SKEW=-3

all_paths=zero,range,clinger,el,el_wide,exact_ambiguous,exact_truncated
run() {  # name, parse_check arguments...
    local name="$1"
    shift
    printf '%-11s ' "$name"
    "$work/$name" "$@" < "$work/corpus.txt"
}

run default --require-paths "$all_paths"
run portable --require-paths "$all_paths"
run exact-only --require-paths zero,range,exact_forced
run skew-up --require-paths exact_forced
run skew-down --require-paths exact_forced
echo "all sanitized builds agree with float()"
