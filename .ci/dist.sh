#!/usr/bin/env bash
# The release artifacts, built once: the sdist (from the files git knows) and, from it, the release
# wheel (.ci/wheel.sh: the C extension required, cp39-abi3, repaired by auditwheel to a manylinux
# tag, its tags and contents inspected); then a check that the sdist carries what the source tree
# has of csrc/ (every .c, .h and the table generators gen_*.py), build_ffi.py, setup.py,
# pyproject.toml, README.md (which pyproject.toml names, so it must exist), vectors/, tests/, fuzz/;
# and that the wheel carries both extensions and py.typed.
#
#     .ci/dist.sh OUTDIR
#
# OUTDIR gets the sdist, the wheel, the files `sdist` and `wheel` (their paths), the sdist unpacked
# (`unpacked`: its path) and `.done` once all of it passed. .ci/matrix.sh and .ci/install-check.sh
# test what it built.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:?usage: .ci/dist.sh OUTDIR}")
python=${PYTHON:-python3}
started=$(date +%s)
step() { printf '\n==== dist: %s (%ss)\n' "$1" "$(( $(date +%s) - started ))"; }
fail() { echo "dist: FAILED: $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work"
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset PYTHONPATH FASTJCS_BACKEND

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

echo "$sdist" >"$work/sdist"
echo "$wheel" >"$work/wheel"
echo "$unpacked" >"$work/unpacked"
touch "$work/.done"
