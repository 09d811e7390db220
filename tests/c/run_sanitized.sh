#!/bin/sh
# Build csrc/number_format.c with tests/c/number_check.c under AddressSanitizer and
# UndefinedBehaviorSanitizer (every finding fatal) and feed it 10^5 lines of the ES6 corpus as the
# pure-Python renderer writes them. Two builds: the default one, and the portable one (no
# unsigned __int128, no integer fast path), so the fallback code runs under the sanitizers too.
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
$CC $flags -o "$work/check" tests/c/number_check.c csrc/number_format.c
$CC $flags -DFJCS_HAVE_INT128=0 -DFJCS_INTEGER_FAST_PATH=0 \
  -o "$work/check_portable" tests/c/number_check.c csrc/number_format.c

PYTHONPATH=src "$PYTHON" tests/es6corpus.py --lines "$LINES" --renderer python > "$work/corpus.txt"
test "$(wc -l < "$work/corpus.txt")" -eq "$LINES"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "default build:"
"$work/check" < "$work/corpus.txt"
echo "portable build (FJCS_HAVE_INT128=0, FJCS_INTEGER_FAST_PATH=0):"
"$work/check_portable" < "$work/corpus.txt"
