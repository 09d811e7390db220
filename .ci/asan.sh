#!/usr/bin/env bash
# The whole test suite against an ASan+UBSan build of the C extension.
#
#   .ci/asan.sh [pytest arguments...]
#
# FASTJCS_ASAN_DEFINES: more compiler flags for the build (CI's portable step: -DFJCS_HAVE_SSE2=0
# and the like), and FASTJCS_ASAN_OUT: the folder it goes to (build/asan).
#
# The extension is built with gcc from csrc/ into build/asan/py (a copy of the package, never the
# source tree's own build), with every sanitizer report fatal. The interpreter is not sanitized,
# so the sanitizer runtimes are preloaded (LD_PRELOAD) ahead of it; leak detection is off, as the
# interpreter keeps allocations alive on purpose until exit (the libFuzzer harnesses check the C
# core for leaks, .ci/fuzz.sh). Every report aborts its process (SIGABRT, never one of the exit
# codes a CLI test expects), ASan's go to files in build/asan/reports as well (UBSan's runtime
# ignores log_path when ASan's is loaded: its reports are found in pytest's output, which captures
# only sys.stdout/stderr so that a report written to file descriptor 2 is not lost), and any report
# fails the script, even if pytest passed. Note: the interpreter's -fwrapv makes signed overflow
# defined, so UBSan does not check it here (the libFuzzer harnesses do). The hypothesis profile is
# the default one (not CI's 2,000 examples).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${FASTJCS_ASAN_OUT:-build/asan}
case $out in /*) ;; *) out=$root/$out ;; esac
reports=$out/reports
cc=${CC:-gcc}
python=${PYTHON:-python}
started=$(date +%s)

flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1 ${FASTJCS_ASAN_DEFINES:-}"
rm -rf "$out" && mkdir -p "$out/py" "$reports"
cp -r src/fastjcs "$out/py/"
rm -f "$out"/py/fastjcs/_native_ext*.so "$out"/py/fastjcs/_direct*.so
CC=$cc FASTJCS_REQUIRE_NATIVE=1 FASTJCS_WERROR=1 FASTJCS_CFLAGS="$flags" FASTJCS_LDFLAGS="-fsanitize=address,undefined" \
    "$python" setup.py -q build_ext --force -b "$out/py" -t "$out/tmp" >"$out/build.log" 2>&1 ||
    { cat "$out/build.log"; exit 1; }
# Both extensions: the cffi one and the direct entry (CPython's C API, csrc/cpython/).
for so in "$out"/py/fastjcs/_native_ext*.so "$out"/py/fastjcs/_direct*.so; do
    [ -f "$so" ] || { echo "asan: $so was not built"; exit 1; }
    # A build that silently lost the flags would make this whole step meaningless.
    symbols=$(nm -D "$so")  # (not piped into grep -q: pipefail and SIGPIPE)
    grep -q ' U __asan_report_load' <<<"$symbols" || { echo "asan: $so is not instrumented"; exit 1; }
    grep -q ' U __ubsan_handle_' <<<"$symbols" || { echo "asan: $so has no UBSan checks"; exit 1; }
done

export LD_PRELOAD="$("$cc" -print-file-name=libasan.so) $("$cc" -print-file-name=libubsan.so)"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$reports/ubsan"
# pycryptodome dlopens its modules with RTLD_DEEPBIND, which the sanitizer runtime refuses
# (google/sanitizers#611); this is pycryptodome's own switch to turn it off.
export PYCRYPTODOME_DISABLE_DEEPBIND=1
export PYTHONPATH=$out/py
export FASTJCS_REQUIRE_NATIVE=1 FASTJCS_BACKEND=native
export HYPOTHESIS_PROFILE=default
unset FASTJCS_ES6_LINES
# The registry's PostgreSQL storage is Python and psycopg, checked by the ordinary run; its tests
# restart the server, which would inherit the preloaded sanitizer runtime here.
unset FASTJCS_TEST_POSTGRES_URL FASTJCS_TEST_POSTGRES_CTL

"$python" - "$out/py" <<'EOF'
import sys, fastjcs
assert fastjcs.backend() == "native", fastjcs.backend()
assert fastjcs.__file__.startswith(sys.argv[1]), fastjcs.__file__
print("asan: testing", fastjcs.__file__)
EOF

status=0
"$python" -m pytest -p no:cacheprovider --capture=sys -q "$@" 2>&1 | tee "$out/pytest.log" || status=${PIPESTATUS[0]}

if compgen -G "$reports/*" >/dev/null; then
    echo "asan: sanitizer reports:"
    for f in "$reports"/*; do echo "---- $f"; cat "$f"; done
    status=1
fi
if grep -qE 'runtime error:|ERROR: (Address|Leak)Sanitizer|Sanitizer: undefined-behavior' "$out/pytest.log"; then
    echo "asan: a sanitizer report in pytest's output (above)"
    status=1
fi
echo "asan: pytest exit $status, $(( $(date +%s) - started ))s"
exit $status
