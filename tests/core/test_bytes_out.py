"""dumps's output written into the bytes object it returns (cpython/bytes_out.c, issue 31): an
output past a few KB moves from the module's buffer into a bytes object when the buffer would grow,
the walk goes on writing there, and the call returns that object shrunk to size; the fallback
(`_direct.bytes_output(False)`, as where _PyBytes_Resize is not found) copies the finished output
into a new bytes object, as before.

Expected values: json.dumps(ensure_ascii=False, sort_keys=True) (the values here are strs, ints
and lists, whose forms json and RFC 8785 agree on) and the other route. Walks that stop after the
output moved (default raising, a value refused and left to python_backend.resume, a nested dumps
from default) free the object: tracemalloc sees no growth over repeated failing calls.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest
from _direct import direct_or_skip
from _markers import rss_is_meaningful

import fastjcs

_, direct = direct_or_skip()
# (after the skip: PyPy, whose run skips this module, has no tracemalloc)
tracemalloc = pytest.importorskip("tracemalloc")


def expected(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


@pytest.fixture(params=[True, False], ids=["into-bytes", "copied"])
def route(request):
    if request.param and not direct.bytes_output():
        pytest.skip("_PyBytes_Resize was not found here: only the copy")
    previous = direct.bytes_output(request.param)
    yield request.param
    direct.bytes_output(previous)


def sized(n: int) -> list:
    """A list whose canonical form is exactly n >= 8 bytes: a non-ASCII str and an int."""
    value = ["", 7]  # ["",7]: 6 bytes
    pad = n - 6
    value[0] = "é" * (pad // 2) + "a" * (pad % 2)  # é: 2 bytes of UTF-8
    assert len(expected(value)) == n
    return value


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="dlsym in the process's symbols")
def test_resize_is_found_on_linux_cpython():
    # a lookup that finds nothing (a misspelt name) would leave every output copied, silently
    assert direct.bytes_output() is True


# Around the 4 KB the module keeps in its buffer, where an output moves, and around the growths
# after it (each doubles the capacity), in the first call and after calls that left another hint.
SIZES = [8, 255, 256, 257, 4095, 4096, 4097, 4098, 8191, 8192, 8193, 65536, 65537, 1 << 20, (1 << 20) + 3]


def test_every_size_gives_the_canonical_bytes(route):
    for n in SIZES:
        value = sized(n)
        out = fastjcs.dumps(value)
        assert out == expected(value), n
        assert type(out) is bytes


def test_the_last_output_sizes_the_next_one(route):
    # the object made is as large as the last output that went into one: larger, smaller and
    # equal outputs after it, each shrunk (or grown) to its own length
    for n in [1 << 20, 5000, 1 << 20, (1 << 20) + 1, 9000, (3 << 20) + 5, 4097, 300, 70000, 70000]:
        value = sized(n)
        assert fastjcs.dumps(value) == expected(value), n


def test_a_huge_output_does_not_size_every_later_one():
    # The next bytes object is made as large as the last output that moved, up to FJCS_HINT_MAX
    # (16 MiB): after a 40 MB output, a 5 KB one must not ask for 40 MB first. tracemalloc sees
    # bytes objects (PyObject_Malloc); without the cap the peak here is about 41 MB.
    if not direct.bytes_output():
        pytest.skip("_PyBytes_Resize was not found here: only the copy")
    huge = ["x" * (10 << 20)] * 4
    assert len(fastjcs.dumps(huge)) == 4 * (10 << 20) + 4 * 3 - 1 + 2
    small = sized(5000)
    tracemalloc.start()
    try:
        assert fastjcs.dumps(small) == expected(small)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < (16 << 20) + (1 << 20)


_FAULTS = """
import resource, sys
import fastjcs
value = [{"n": i, "s": "r\u00e9cord " * 4, "x": i / 8} for i in range(int(sys.argv[1]))]
out = fastjcs.dumps(value)
for _ in range(20):
    fastjcs.dumps(value)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(200):
    fastjcs.dumps(value)
print(len(out), (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 200)
"""


@rss_is_meaningful  # (ASan's allocator is not glibc's)
@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mapping of large blocks")
@pytest.mark.parametrize("records", [2500, 4000])
def test_an_output_made_again_reuses_its_memory(records):
    # In a fresh interpreter, dumps of the same ~150-240 KB output in a loop: the next object is
    # sized to fit in the block glibc freed (next_hint), so it comes from the heap, not a fresh
    # mapping whose every page faults in (about 45 faults a call for 178 KB before). Mutant: the
    # hint a little past the output (len + len / 32 + 256) gives 61 faults a call for 4,000 records.
    run = subprocess.run([sys.executable, "-c", _FAULTS, str(records)], capture_output=True, text=True, check=True)
    size, faults = run.stdout.split()
    assert int(size) > 128 << 10  # (glibc maps a block from 128 KiB on)
    assert float(faults) < 4, run.stdout


def test_many_values_and_members(route):
    value = {f"k{i:05d}": [i, -i, f"välue {i}", {"z": i, "a": [i] * (i % 7)}] for i in range(3000)}
    assert fastjcs.dumps(value) == expected(value)
    assert fastjcs.dumps(list(range(-5000, 5000))) == expected(list(range(-5000, 5000)))


def test_the_result_is_held_by_its_caller_alone(route):
    out = fastjcs.dumps(sized(200_000))
    assert sys.getrefcount(out) == 2  # out, and getrefcount's argument


def test_default_runs_mid_walk_and_sees_only_finished_objects(route):
    seen = []

    def default(v):
        # a nested dumps of a large value (a state of its own, its own object) in the middle of
        # a walk whose output already moved
        inner = fastjcs.dumps(sized(300_000 + len(seen)))
        seen.append(inner)
        return len(inner)

    value = [sized(10_000), object(), sized(50_000), object()]
    out = fastjcs.dumps(value, default=default)
    assert out == expected([value[0], 300_000, value[2], 300_001])
    assert [len(x) for x in seen] == [300_000, 300_001]
    assert all(sys.getrefcount(x) == 3 for x in seen)  # seen's, the loop's, getrefcount's


class Boom(Exception):
    pass


def raising(v):
    raise Boom


def failing_calls():
    """Calls that stop after their output moved into a bytes object, each ~1 MB written."""
    big = sized(1 << 20)
    return [
        lambda: fastjcs.dumps([big, object()], default=raising),  # default raises (WK_ERROR)
        lambda: fastjcs.dumps([big, object()]),  # refused: resume raises UnsupportedTypeError
        lambda: fastjcs.dumps([big, {1: 2}]),  # a name of another type: resume words the error
        lambda: fastjcs.dumps([big, float("nan")]),  # FloatDomainError
    ]


@pytest.mark.parametrize("which", range(4))
def test_a_walk_that_stops_frees_its_object(route, which):
    call = failing_calls()[which]
    with pytest.raises((Boom, fastjcs.FastJCSError, TypeError)):
        call()  # warm: the module's buffers, resume imported
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            with pytest.raises((Boom, fastjcs.FastJCSError, TypeError)):
                call()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < (4 << 20), grown  # 20 objects of 1 MB left behind would be 20 MB


def test_after_a_stop_the_next_call_is_whole(route):
    for call in failing_calls():
        with pytest.raises((Boom, fastjcs.FastJCSError, TypeError)):
            call()
        for n in (100, 5000, 1 << 20):
            value = sized(n)
            assert fastjcs.dumps(value) == expected(value)


def test_digest_and_canonicalize_are_unchanged(route):
    value = sized(200_000)
    text = expected(value)
    assert fastjcs.canonicalize(text) == text
    assert fastjcs.digest(value) == fastjcs.digest_text(text)


def test_bytes_output_switch():
    previous = direct.bytes_output()
    try:
        assert direct.bytes_output(False) is previous
        assert direct.bytes_output() is False
        with pytest.raises(TypeError):
            direct.bytes_output(1, 2)
    finally:
        direct.bytes_output(previous)
