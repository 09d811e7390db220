#!/usr/bin/env bash
# Clean installs: the sdist and the wheel, each in a fresh virtual environment, tested as installed.
#
#   .ci/install-check.sh [pytest arguments...]     (default: -m "not slow")
#
#  1. the sdist and, from it, the release wheel, built and inspected by .ci/dist.sh (or taken from
#     $FASTJCS_DIST, where .ci/run's matrix step had it build them);
#  2. the wheel: the CPython matrix (.ci/matrix.sh; FASTJCS_MATRIX_DONE=1 when .ci/run's matrix step
#     has run it on the same wheel); the sdist installed into a fresh venv (pip builds it, the C core
#     required) and a smoke subset run against it, from a copy of the sdist's files without src/,
#     with fastjcs.__file__ checked to be inside the venv and the C backend in use;
#  4. PyPy (pypy3 on PATH, or $PYPY; PYPY= skips): the pp39 wheel (.ci/wheel.sh with PyPy:
#     manylinux2014, the cffi extension), installed into a fresh PyPy venv, and the whole suite
#     against it with the C core required: CI's one PyPy run, which tests PyPy and its wheel at once;
#  5. with no working C compiler (CC, CXX and LDSHARED set to `false`): the sdist still installs,
#     importing it announces the fallback once (one FallbackWarning line naming the cause), and
#     the suite passes on the pure-Python backend (fastjcs.backend() == "python"), while the same
#     install with FASTJCS_REQUIRE_NATIVE=1 fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$root/build/install-check
python=${PYTHON:-python3}
started=$(date +%s)
[ $# -gt 0 ] || set -- -m "not slow"
pytest_args=("$@")
step() { printf '\n==== install-check: %s (%ss)\n' "$1" "$(( $(date +%s) - started ))"; }
fail() { echo "install-check: FAILED: $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work"
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# Each step below says for itself whether the C core is required (CI exports FASTJCS_REQUIRE_NATIVE=1,
# which the compiler-less install must not inherit).
unset PYTHONPATH FASTJCS_BACKEND FASTJCS_REQUIRE_NATIVE
export HYPOTHESIS_PROFILE=quick  # this checks the installation; the properties are checked elsewhere
# The ES6 corpus at its default sample (10^5 lines): CI's 10^6 (the published hash) was checked by
# the README test command on the same C core; here it cost a second long run for nothing new.
unset FASTJCS_ES6_LINES

step "the sdist and the release wheel (.ci/dist.sh)"
dist=${FASTJCS_DIST:-$work/dist}
[ -f "$dist/.done" ] || PYTHON="$python" bash .ci/dist.sh "$dist"
sdist=$(cat "$dist/sdist") wheel=$(cat "$dist/wheel") unpacked=$(cat "$dist/unpacked")
echo "$(basename "$sdist") $(basename "$wheel")"

# A directory with the sdist's tests and data but no src/: the package can only come from the venv.
prepare_run() {  # name
    local dir=$work/run-$1
    mkdir -p "$dir"
    (cd "$unpacked" && tar -cf - --exclude=./src --exclude='*.egg-info' .) | tar -xf - -C "$dir"
    echo "$dir"
}
check_installed() {  # venv, expected backend
    "$1/bin/python" - "$1" "$2" <<'EOF'
import os, sys
import fastjcs
venv, backend = os.path.realpath(sys.argv[1]), sys.argv[2]
where = os.path.realpath(fastjcs.__file__)
assert where.startswith(venv + os.sep), f"fastjcs imported from {where}, not from {venv}"
assert fastjcs.backend() == backend, f"backend {fastjcs.backend()!r}, expected {backend!r}"
print(f"fastjcs {fastjcs.__version__} from {where}, backend {fastjcs.backend()}")
EOF
}

# The wheel: the CPython matrix (.ci/matrix.sh: a fresh venv of every CPython 3.9-3.13 found, the
# suites that reach the C core and the public API, the route each takes asserted), unless .ci/run's
# matrix step ran it on this wheel already (FASTJCS_MATRIX_DONE=1). The sdist, from which that
# wheel was built: the build on install (pip's own, with the C core required) and a smoke run.
# The whole suite runs on CPython in CI's suite step and on the PyPy wheel below.
pypy=${PYPY-$(command -v pypy3 || true)}
smoke=(tests/core/test_rfc8785_examples.py tests/core/test_numbers.py tests/cli/test_cli_canon.py
       tests/cli/test_cli_digest.py tests/cli/test_cli_version.py)
step "the wheel: the CPython matrix"
if [ "${FASTJCS_MATRIX_DONE:-}" = 1 ]; then
    echo "the matrix step of this run tested $(basename "$wheel")"
else
    bash .ci/matrix.sh "$wheel" "$unpacked" || fail "the CPython matrix on the wheel"
fi

step "install the sdist in a fresh venv and test it"
venv=$work/venv-sdist
"$python" -m venv "$venv"
FASTJCS_REQUIRE_NATIVE=1 "$venv/bin/pip" install --quiet "$sdist[test]" >"$work/pip-sdist.log" 2>&1 ||
    { tail -30 "$work/pip-sdist.log"; fail "pip install sdist"; }
dir=$(prepare_run sdist)
(cd "$dir" && check_installed "$venv" native)
(cd "$dir" && "$venv/bin/python" -m pytest -p no:cacheprovider -q "${smoke[@]}") ||
    fail "the smoke tests on the sdist install"

step "PyPy: the pp39 wheel, repaired to manylinux2014, in a fresh PyPy venv, and the suite on it (the CLI's and lab's process tests sampled)"
if [ -z "$pypy" ]; then
    echo "SKIPPED: no PyPy (pypy3 not on PATH, or PYPY= set empty); the PyPy wheel was not built or tested"
else
    ppwheel=$(PYTHON="$pypy" bash .ci/wheel.sh "$work/release" "$sdist" | tail -1)
    echo "$(basename "$ppwheel")"
    venv=$work/venv-pypy
    "$pypy" -m venv "$venv"
    FASTJCS_REQUIRE_NATIVE=1 "$venv/bin/pip" install --quiet "$ppwheel[test]" >"$work/pip-pypy.log" 2>&1 ||
        { tail -30 "$work/pip-pypy.log"; fail "pip install the PyPy wheel"; }
    dir=$(prepare_run pypy)
    (cd "$dir" && check_installed "$venv" native)
    # The only PyPy run: the default hypothesis profile (200 examples per property), not quick.
    # Every suite but the CLI's and the lab's, whose tests start a process per case (a PyPy start
    # each, most of this run's time): their code is the same Python on both interpreters, and it
    # runs whole on CPython; here a sample of the CLI runs (the commands users pipe through), so
    # that PyPy's whole run fits in CI's time.
    # (Two runs: given a folder and files inside an ignored one, pytest collects only the files.)
    # PYPY_GC_NURSERY: the resident-set checks that run in this process (tests/core/test_limits.py)
    # measure the product, not the host's cache, which PyPy sizes its nursery from (tests/_markers.py).
    (cd "$dir" && export HYPOTHESIS_PROFILE=default FASTJCS_REQUIRE_NATIVE=1 PYPY_GC_NURSERY=4MB &&
        "$venv/bin/python" -m pytest -p no:cacheprovider -q "${pytest_args[@]}" \
            --ignore=tests/cli --ignore=tests/lab tests &&
        "$venv/bin/python" -m pytest -p no:cacheprovider -q "${pytest_args[@]}" \
            tests/cli/test_cli_canon.py tests/cli/test_cli_digest.py tests/cli/test_cli_version.py \
            tests/cli/test_cli_several_files.py tests/cli/test_cli_check.py) ||
        fail "the test suite on the PyPy wheel install"
fi

step "no C compiler: the sdist installs, on the pure-Python backend"
venv=$work/venv-nocc
"$python" -m venv "$venv"
CC=false CXX=false LDSHARED=false "$venv/bin/pip" install --quiet "$sdist[test]" >"$work/pip-nocc.log" 2>&1 ||
    { tail -30 "$work/pip-nocc.log"; fail "pip install without a compiler"; }
ls "$venv"/lib/python*/site-packages/fastjcs/_native_ext* >/dev/null 2>&1 && fail "an extension was built with CC=false"
dir=$(prepare_run nocc)
(cd "$dir" && check_installed "$venv" python) 2>"$work/nocc-import.err"
# The fallback nobody asked for is announced, once, on one line, naming its cause.
[ "$(grep -c 'FallbackWarning: the C core is not available' "$work/nocc-import.err")" = 1 ] &&
    [ "$(wc -l <"$work/nocc-import.err")" = 1 ] ||
    { cat "$work/nocc-import.err"; fail "no one-line FallbackWarning on the compiler-less install"; }
# What this install adds is the absence of the C core: the fallback above, and the smoke tests and
# the backend's own report on an install that has no extension at all. Every test of the suite
# already runs on the pure-Python backend in CI's README step (the backends are a parameter of
# each test), so a whole run here would repeat that one (it took 12 of CI's minutes).
# The suite asks for the pure-Python backend, as a user who knows does: no warning in the way of
# the tests that read stderr.
(cd "$dir" && FASTJCS_BACKEND=python "$venv/bin/python" -m pytest -p no:cacheprovider -q "${pytest_args[@]}" \
    "${smoke[@]}" tests/core/test_backend_interface.py tests/core/test_exceptions.py) ||
    fail "the smoke tests on the compiler-less install"

step "no C compiler and FASTJCS_REQUIRE_NATIVE=1: the install fails"
venv=$work/venv-required
"$python" -m venv "$venv"
if CC=false CXX=false LDSHARED=false FASTJCS_REQUIRE_NATIVE=1 \
        "$venv/bin/pip" install --quiet "$sdist" >"$work/pip-required.log" 2>&1; then
    fail "pip install succeeded without a compiler although FASTJCS_REQUIRE_NATIVE=1"
fi
grep -m1 -iE 'error: command .false. failed|failed with exit|error' "$work/pip-required.log" || true
"$venv/bin/python" -c 'import fastjcs' 2>/dev/null && fail "fastjcs is importable after the failed install"
echo "refused, as it must be"

step "done: all install checks passed"
