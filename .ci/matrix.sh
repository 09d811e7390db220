#!/usr/bin/env bash
# The CPython matrix: one release wheel, installed into a fresh venv of every CPython 3.9-3.13 found
# on this machine, each running the suites that reach the C core and the public API with the C core
# required, and on 3.10 and later the direct entry required.
#
#     .ci/matrix.sh WHEEL [SOURCE]     SOURCE: the sdist unpacked (its tests/ and vectors/; default
#                                      the checkout), copied without src/ so that only the wheel
#                                      can be imported
#
# Interpreters: for each minor version, the newest `pyenv versions --bare` lists (pyenv prefix
# gives its folder), else python3.N on PATH; a version with neither is one line
# "SKIPPED: CPython 3.N ...". The route each takes is asserted before its tests: the C core in use
# (the wheel's, from the venv), the direct entry loaded from 3.10 on and absent on 3.9
# (fastjcs.core._direct_loader). The suites: tests/core, tests/digests, tests/eab, tests/cpb and
# a CLI smoke (every command once in a child and in-process, canon, digest), the default
# hypothesis profile, the slow tests deselected (the suite step runs them on the checkout's
# build). Versions run FASTJCS_MATRIX_JOBS at a time (default 2); each one's log is in
# build/matrix/<version>.log, its tail printed on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
wheel=$(realpath "${1:?usage: .ci/matrix.sh WHEEL [SOURCE]}")
source=$(realpath "${2:-$root}")
work=$root/build/matrix
jobs=${FASTJCS_MATRIX_JOBS:-2}
started=$(date +%s)
versions=(3.9 3.10 3.11 3.12 3.13)
suites=(tests/core tests/digests tests/eab tests/cpb
        tests/cli/test_cli_process.py tests/cli/test_cli_canon.py tests/cli/test_cli_digest.py)

rm -rf "$work" && mkdir -p "$work"
# the tests read ../shared/ beside the checkout (the upstream vectors): beside the run folders too
[ -e "$root/../shared" ] && ln -s "$(realpath "$root/../shared")" "$work/shared"
run_dir=$work/run
mkdir -p "$run_dir"
# (the whole source but src/: the tests read docs/, fuzz/, vectors/ and pyproject.toml too)
(cd "$source" && tar -cf - --exclude=./src --exclude=./build --exclude='./.venv*' --exclude='*.egg-info' \
    --exclude=./.git --exclude=./fuzz/build .) | tar -xf - -C "$run_dir"

unset PYTHONPATH FASTJCS_BACKEND FASTJCS_DIRECT FASTJCS_ES6_LINES FASTJCS_TEST_POSTGRES_URL FASTJCS_TEST_POSTGRES_CTL
export PIP_DISABLE_PIP_VERSION_CHECK=1 HYPOTHESIS_PROFILE=default FASTJCS_SLOW= FASTJCS_REQUIRE_NATIVE=1

interpreter() {  # 3.N -> the path of a CPython 3.N, or nothing
    local v=$1 found
    if command -v pyenv >/dev/null 2>&1; then
        found=$(pyenv versions --bare 2>/dev/null | grep -E "^${v//./\\.}\.[0-9]+$" | sort -V | tail -1 || true)
        if [ -n "$found" ] && [ -x "$(pyenv prefix "$found")/bin/python${v}" ]; then
            echo "$(pyenv prefix "$found")/bin/python${v}"
            return
        fi
    fi
    command -v "python${v}" 2>/dev/null || true
}

one() {  # version interpreter: its venv, the route, the suites (output to its log)
    local v=$1 py=$2 venv=$work/venv-$1 direct
    # (every command checked by hand: run as the condition of an `if`, `set -e` is off here)
    "$py" -m venv "$venv" || return 1
    "$venv/bin/python" -m pip install --quiet "$wheel[test]" || return 1
    if [ "$v" = 3.9 ]; then direct=0; else direct=1; fi
    (cd "$run_dir" && "$venv/bin/python" - "$venv" "$direct" <<'EOF'
import os, sys
import fastjcs
from fastjcs.core import _direct_loader
venv, want_direct = os.path.realpath(sys.argv[1]), sys.argv[2] == "1"
where = os.path.realpath(fastjcs.__file__)
assert where.startswith(venv + os.sep), f"fastjcs imported from {where}, not from {venv}"
assert fastjcs.backend() == "native", f"backend {fastjcs.backend()!r}: the C core did not load"
route = "direct" if _direct_loader.direct is not None else "cffi"
assert route == ("direct" if want_direct else "cffi"), f"route {route}: {_direct_loader.why}"
print(f"CPython {sys.version.split()[0]}: the wheel's C core, route {route} ({_direct_loader.why})")
EOF
    ) || return 1
    (cd "$run_dir" && "$venv/bin/python" -m pytest -p no:cacheprovider -q --durations=5 "${suites[@]}") || return 1
}

status=0
ran=()
for v in "${versions[@]}"; do
    py=$(interpreter "$v")
    if [ -z "$py" ]; then
        echo "SKIPPED: CPython $v (not in pyenv versions, no python$v on PATH): the wheel not tested on it"
        continue
    fi
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    echo "matrix: CPython $v ($py)"
    { if one "$v" "$py" >"$work/$v.log" 2>&1; then echo 0; else echo 1; fi >"$work/$v.status"; } &
    ran+=("$v")
done
wait
for v in "${ran[@]}"; do
    if [ "$(cat "$work/$v.status")" = 0 ]; then
        echo "matrix: CPython $v: $(grep -m1 '^CPython ' "$work/$v.log" | cut -d: -f2-) -- $(tail -1 "$work/$v.log")"
    else
        echo "matrix: CPython $v FAILED; the end of $work/$v.log:"
        tail -40 "$work/$v.log"
        status=1
    fi
done
echo "matrix: $(( $(date +%s) - started ))s"
exit $status
