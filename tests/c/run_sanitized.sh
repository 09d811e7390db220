#!/bin/sh
# Build csrc/number_format.c with tests/c/number_check.c under AddressSanitizer and
# UndefinedBehaviorSanitizer (every finding fatal) and feed it 10^5 lines of the ES6 corpus as the
# pure-Python renderer writes them, in three configurations of its compile-time knobs, so the
# portable fallbacks run under the sanitizers too; then the lender (tests/c/lender_check.c), with
# leak detection.
# Exits non-zero on any failure. Usage: tests/c/run_sanitized.sh [lines]   (CC, PYTHON respected)
set -eu

cd "$(dirname "$0")/../.."
CC=${CC:-gcc}
PYTHON=${PYTHON:-python3}
LINES=${1:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

flags="-std=c11 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=all -Icsrc"
# Three configurations of the knobs of number_format.c: the default; everything portable (no
# unsigned __int128, no integer fast path, byte-by-byte digits); and the word-wise digits without
# SSE2 (two 64-bit words), with the portable multiply and no fast path.
configs="default:
portable:-DFJCS_HAVE_INT128=0 -DFJCS_INTEGER_FAST_PATH=0 -DFJCS_HAVE_LITTLE_ENDIAN=0
mixed:-DFJCS_HAVE_INT128=0 -DFJCS_INTEGER_FAST_PATH=0 -DFJCS_HAVE_SSE2=0"
echo "$configs" | while IFS=: read -r name defs; do
  # shellcheck disable=SC2086
  $CC $flags $defs -o "$work/check_$name" tests/c/number_check.c
done

PYTHONPATH=src "$PYTHON" tests/es6corpus.py --lines "$LINES" --renderer python > "$work/corpus.txt"
test "$(wc -l < "$work/corpus.txt")" -eq "$LINES"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "$configs" | while IFS=: read -r name defs; do
  echo "$name build ($defs):"
  "$work/check_$name" < "$work/corpus.txt"
done

# The lender (csrc/lender.c), with leak detection: four threads open, use and close lenders; a
# buffer a closed lender forgot is a leak, and fails the run.
# shellcheck disable=SC2086
$CC $flags -pthread -o "$work/lender_check" tests/c/lender_check.c csrc/*.c
"$work/lender_check"
