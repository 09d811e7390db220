#!/usr/bin/env bash
# Clean installs: the sdist and the wheel, each in a fresh virtual environment, tested as installed.
#
#   .ci/install-check.sh [pytest arguments...]     (default: -m "not slow")
#
#  1. builds the sdist (python -m build, in a tools venv) and, from it, the release wheel
#     (.ci/wheel.sh: the C extension required, cp39-abi3, repaired by auditwheel to a manylinux
#     tag, its tags and contents inspected);
#  2. checks that the sdist carries what the source tree has of: csrc/ (every .c, .h and the table
#     generators gen_*.py), build_ffi.py, setup.py, pyproject.toml, README.md (which pyproject.toml
#     names, so it must exist), vectors/, tests/, fuzz/; and that the wheel carries the extension;
#  3. installs the wheel, then the sdist, each into a fresh venv, and runs the test suite against
#     the installed wheel (a smoke subset against the sdist install: the same files; and against the
#     CPython wheel when the whole suite runs on the PyPy wheel, step 4): from a copy
#     of the sdist's files without src/, with fastjcs.__file__ checked to be inside the venv and
#     the C backend in use;
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

step "build the sdist"
# From a copy of the files git knows (tracked, or new and not ignored): leftovers of earlier
# builds (an egg-info's SOURCES.txt, build/) must not stand in for a MANIFEST.in.
tree=$work/tree
mkdir -p "$tree"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$tree"
else
    tar -cf - --exclude=./build --exclude='*.egg-info' --exclude='./.venv*' . | tar -xf - -C "$tree"
fi
"$python" -m venv "$work/tools"
"$work/tools/bin/pip" install --quiet build
"$work/tools/bin/python" -m build --sdist --outdir "$work/dist" "$tree" >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log"; fail "python -m build --sdist"; }
sdist=$(ls "$work"/dist/*.tar.gz)
echo "$(basename "$sdist")"

step "the release wheel, from that sdist: cp39-abi3, repaired to manylinux, inspected (.ci/wheel.sh)"
wheel=$(PYTHON="$python" bash .ci/wheel.sh "$work/release" "$sdist" | tail -1)
echo "$(basename "$wheel")"

step "what the sdist and the wheel carry"
tar -xzf "$sdist" -C "$work"
unpacked=$work/$(basename "$sdist" .tar.gz)
[ -f README.md ] || fail "README.md is missing from the source tree (pyproject.toml names it)"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files() { git ls-files -- "$@"; }
else
    files() {  # the same patterns, by the shell's globbing
        local p
        for p in "$@"; do
            if [ -d "$p" ]; then find "$p" -type f; else ls -d $p 2>/dev/null || true; fi
        done | grep -v __pycache__ || true
    }
fi
missing=0
required=$( { files 'csrc/*.c' 'csrc/*.h' 'csrc/gen_*.py' vectors tests fuzz
              echo build_ffi.py; echo setup.py; echo pyproject.toml; echo README.md; } | sort -u)
for f in $required; do
    [ -e "$unpacked/$f" ] || { echo "not in the sdist: $f"; missing=1; }
done
[ $missing = 0 ] || fail "the sdist lacks files of the source tree (MANIFEST.in)"
[ -n "$(files 'csrc/gen_*.py')" ] || echo "note: no csrc/gen_*.py in the source tree yet"
[ -d vectors ] || echo "note: no vectors/ in the source tree yet"
echo "sdist: $(echo "$required" | wc -l) required files present"
listing=$("$python" -m zipfile -l "$wheel")  # (not piped into grep -q: pipefail and SIGPIPE)
grep -q 'fastjcs/_native_ext.*\.so' <<<"$listing" || fail "the wheel has no C extension"
grep -q 'fastjcs/_direct.*\.so' <<<"$listing" || fail "the wheel has no direct entry (fastjcs._direct)"
grep -q 'fastjcs/py.typed' <<<"$listing" || fail "the wheel has no py.typed"

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
run_suite() {  # venv, run dir, label
    (cd "$2" && "$1/bin/python" -m pytest -p no:cacheprovider -q "${pytest_args[@]}" tests) ||
        fail "the test suite on the $3 install"
}

# The wheel gets the whole suite; the sdist, from which that wheel was built, the build on install
# (pip's own, with the C core required) and a smoke run: the same files, a second full run would
# test nothing new. With PyPy, the whole suite runs on the PyPy wheel (below: the same sdist, the
# same package files, repaired the same way) and the CPython wheel gets the smoke run and its direct
# entry's tests: CI's README step has already run the whole suite on CPython against an installed
# build of the same sources, so a third whole run on the CPython side would test little new.
pypy=${PYPY-$(command -v pypy3 || true)}
smoke=(tests/core/test_rfc8785_examples.py tests/core/test_numbers.py tests/cli/test_cli_canon.py
       tests/cli/test_cli_digest.py tests/cli/test_cli_version.py)
for kind in wheel sdist; do
    step "install the $kind in a fresh venv and test it"
    venv=$work/venv-$kind
    artifact=$wheel
    [ $kind = sdist ] && artifact=$sdist
    "$python" -m venv "$venv"
    FASTJCS_REQUIRE_NATIVE=1 "$venv/bin/pip" install --quiet "$artifact[test]" >"$work/pip-$kind.log" 2>&1 ||
        { tail -30 "$work/pip-$kind.log"; fail "pip install $kind"; }
    dir=$(prepare_run $kind)
    (cd "$dir" && check_installed "$venv" native)
    if [ $kind = wheel ] && [ -z "$pypy" ]; then
        FASTJCS_REQUIRE_NATIVE=1 run_suite "$venv" "$dir" "$kind"
    elif [ $kind = wheel ]; then
        (cd "$dir" && FASTJCS_REQUIRE_NATIVE=1 "$venv/bin/python" -m pytest -p no:cacheprovider -q "${pytest_args[@]}" \
            "${smoke[@]}" tests/core/test_direct.py tests/core/test_small_calls.py) || fail "the smoke tests on the wheel install"
    else
        (cd "$dir" && "$venv/bin/python" -m pytest -p no:cacheprovider -q "${smoke[@]}") ||
            fail "the smoke tests on the sdist install"
    fi
done

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
    (cd "$dir" && export HYPOTHESIS_PROFILE=default FASTJCS_REQUIRE_NATIVE=1 &&
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
