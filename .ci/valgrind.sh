#!/usr/bin/env bash
# A valgrind memcheck sample run: a small workload through the C extension, every error fatal.
#
#   .ci/valgrind.sh
#
# The extension is built without sanitizers (valgrind checks the ordinary build) into
# build/valgrind/py. PYTHONMALLOC=malloc makes the interpreter use malloc for everything, so
# memcheck sees each allocation. Invalid reads and writes, uses of uninitialised values, bad
# frees, and memory definitely lost are errors (exit 99); "still reachable" and "possibly lost"
# memory is the interpreter's own at exit and is not. .ci/valgrind-python.supp suppresses what
# the interpreter and cffi's runtime report about themselves (no frame of fastjcs's own code).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=$root/build/valgrind
python=${PYTHON:-python}
started=$(date +%s)

command -v valgrind >/dev/null || { flock /tmp/fastjcs-ci-apt.lock apt-get update -qq && flock /tmp/fastjcs-ci-apt.lock apt-get install -y -qq valgrind >/dev/null; }

rm -rf "$out" && mkdir -p "$out/py"
cp -r src/fastjcs "$out/py/"
rm -f "$out"/py/fastjcs/_native_ext*.so "$out"/py/fastjcs/_direct*.so
FASTJCS_REQUIRE_NATIVE=1 FASTJCS_CFLAGS="-O1 -g" "$python" setup.py -q build_ext --force \
    -b "$out/py" -t "$out/tmp" >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }

cat >"$out/workload.py" <<'EOF'
"""Every C entry point, on successes and on each kind of failure: the seed corpora of the fuzz
harnesses, plus a few larger and deeper values."""
import marshal
import sys
from pathlib import Path

import fastjcs
from fastjcs.core import native_backend as _native
from fastjcs._native_ext import ffi, lib

assert fastjcs.backend() == "native"
fuzz = Path(sys.argv[1])
calls = 0
for kind in ("corpus", "regressions"):
    for path in sorted((fuzz / kind).glob("*_text/*")):
        data = path.read_bytes()
        for depth, strict, integers in ((10_000, False, False), (10_000, True, False), (3, False, False),
                                        (10_000, False, True)):
            try:
                fastjcs.canonicalize(data, max_depth=depth, strict_integers=strict, integers_only=integers)
            except fastjcs.CanonicalizationError:
                pass
            calls += 1
    for path in sorted((fuzz / kind).glob("fuzz_marshal/*")):
        data = path.read_bytes()
        for depth, flags in ((10_000, 0), (3, 0), (10_000, lib.FJCS_INTEGERS_ONLY)):
            out = ffi.new("fjcs_buf *")
            lib.fjcs_canonicalize_marshal(data, len(data), depth, flags, out, ffi.NULL)
            lib.fjcs_buf_free(out)
            calls += 1
value = {"b": [1, 2.5, "\u00e9\n", None, True, {"z": {}, "a": []}] * 50, "a": "x" * 10_000}
deep = []
for _ in range(1_500):
    deep = [deep, {"k": 1}]
cyclic = []
node = cyclic
for _ in range(100):  # a cycle 100 deep: the direct entry's set of deep open containers
    node.append([])
    node = node[0]
node.append(cyclic)
for obj in (value, deep, {1: 2}, [value, {"s"}], "\ud800", cyclic, [float("nan")], 2**60):
    try:
        fastjcs.dumps(obj)
    except fastjcs.CanonicalizationError:
        pass
    calls += 1
lines = b"\n".join([b'{"b":1,"a":[2,3]}', b"[1,", b'{"a":1,"a":2}', b'"\\u00e9"'] * 25)
_native.digest_lines(lines, 10_000, False, "sha256")
_native.digest_texts(lines.split(b"\n"), 10_000, True, "sha384")
_native.digest_many([value, deep, [1, 2]], 10_000, "sha256")
_native._dumps_marshal(value, 10_000)
fastjcs.digest(value)
fastjcs.digest_text(lines.split(b"\n")[0])
assert _native._direct is not None or sys.version_info < (3, 10), "the direct entry was not built"
try:
    _native.digest_many([value, {1: 2}], 10_000, "sha256")
except fastjcs.CanonicalizationError:
    pass
# default=fastjcs.stdlib_types: the types the walker writes itself (cpython/types.c), both readings
# of a datetime, a subclass and a tzinfo it hands to the reference, and a refusal it stops at
import dataclasses, datetime, decimal, uuid  # noqa: E401


@dataclasses.dataclass
class Point:
    x: int
    y: list


zone = datetime.timezone(datetime.timedelta(hours=-3, seconds=1))
record = {
    "at": [datetime.datetime(2026, 12, 4, 1, 2, 3, 4, tzinfo=z) for z in (None, datetime.timezone.utc, zone)],
    "day": datetime.date(1, 2, 3), "clock": datetime.time(4, 5, tzinfo=zone), "id": uuid.UUID(int=2**127 + 5),
    "amount": [decimal.Decimal("1.50"), decimal.Decimal("NaN")], "point": Point(1, [Point(2, [])]),
    "sub": type("D", (datetime.date,), {})(2026, 1, 1),
}
stdlib_types = fastjcs.stdlib_types  # (registers the types with the direct entry)
for layout in (True, False):
    if _native._direct is not None:
        _native._direct.datetime_layout(layout)
    fastjcs.dumps(record, default=stdlib_types)
    try:
        fastjcs.dumps([record, object()], default=stdlib_types)
    except fastjcs.UnsupportedTypeError:
        pass
    # a dataclass's members written by the walker (cpython/dataclass.c): a refusal inside two open
    # dataclass frames, a member handed over to the Python side inside one
    try:
        fastjcs.dumps([Point(1, [Point(2, [{3}])]), 4], default=stdlib_types)
    except fastjcs.UnsupportedTypeError:
        pass
    fastjcs.dumps({"p": Point(type("I", (int,), {"__int__": lambda s: 5})(1), [uuid.UUID(int=7)])}, default=stdlib_types)
    calls += 4
Point.__dataclass_fields__["y"].name = "x"  # the class changed: its names' order read again
fastjcs.dumps([Point(1, []), Point(2, [])], default=stdlib_types)
# dumps's output written into the bytes object it returns (cpython/bytes_out.c) and copied (the
# fallback): outputs past the held few KB, growing, and walks that stop after the output moved
# (default raising, a refusal left to resume), whose object must not be lost
big = ["\u00e9" * 300_000, list(range(20_000)), {"k": "v" * 5_000}]
for into_bytes in ((True, False) if _native._direct is not None and _native._direct.bytes_output() else (False,)):
    if _native._direct is not None:
        _native._direct.bytes_output(into_bytes)
    for obj in (big, [big, big], big[1], {"a": big, "b": [big]}):
        fastjcs.dumps(obj)
        calls += 1
    for obj, default in (([big, object()], None), ([big, object()], lambda v: 1 // 0), ([big, float("nan")], None)):
        try:
            fastjcs.dumps(obj, default=default)
        except (fastjcs.CanonicalizationError, ZeroDivisionError):
            pass
        calls += 1
print(f"valgrind workload: {calls + 5} calls")
EOF

# The interpreter itself, not a wrapper script (pyenv's shims are shell scripts).
interpreter=$("$python" -c 'import sys; print(sys.executable)')
status=0
PYTHONMALLOC=malloc PYTHONPATH=$out/py valgrind --tool=memcheck --error-exitcode=99 \
    --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --suppressions="$root/.ci/valgrind-python.supp" \
    --log-file="$out/memcheck.log" "$interpreter" "$out/workload.py" "$root/fuzz" || status=$?
grep -E 'ERROR SUMMARY|definitely lost|indirectly lost' "$out/memcheck.log" | sed 's/^==[0-9]*== //' || true
[ $status -eq 0 ] || { echo "valgrind: errors (exit $status), see $out/memcheck.log"; tail -60 "$out/memcheck.log"; }
echo "valgrind: exit $status, $(( $(date +%s) - started ))s"
exit $status
