"""The writer's pieces on their own (csrc/writer.c, through a test build of the core): integers
over the whole int64 range, which no Python value reaches (the walker and the marshal reader stop
at 2^53 - 1), and strings with a byte to escape at every position of every length around the
16- and 8-byte blocks the writer copies. Expected values: Python's str(int) and rfc8785.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import rfc8785

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "c"))
import cbuild  # noqa: E402

_test_build = cbuild.load_or_skip(
    "_fjcs_test_writer",
    "fjcs_code fjcs__write_int(fjcs_buf *out, int64_t v);\n"
    "fjcs_code fjcs__write_string(fjcs_buf *out, const uint8_t *s, size_t n);",
)
ffi, lib = _test_build.ffi, _test_build.lib


def written(fill) -> bytes:
    buf = ffi.new("fjcs_buf *")
    try:
        assert fill(buf) == lib.FJCS_OK
        return bytes(ffi.buffer(buf.data, buf.len))
    finally:
        lib.fjcs_buf_free(buf)


def int_text(v: int) -> bytes:
    return written(lambda buf: lib.fjcs__write_int(buf, v))


def string_text(data: bytes) -> bytes:
    return written(lambda buf: lib.fjcs__write_string(buf, data, len(data)))


def test_integers_at_every_digit_count_and_the_ends_of_int64():
    # Catches a digit count off by one at any power of ten (a branch of fjcs__format_int taken
    # one value too early or late) and a wrong magnitude at INT64_MIN.
    values = [0, 2**63 - 1, -(2**63), -(2**63) + 1, 2**53 - 1, 2**53]
    for k in range(1, 19):
        values += [10**k - 1, 10**k, 10**k + 1]
    values += [-v for v in values if -(2**63) <= -v < 2**63]
    rng = random.Random(31)
    values += [rng.randrange(-(2**63), 2**63) >> rng.randrange(64) for _ in range(3000)]
    for v in values:
        assert int_text(v) == str(v).encode(), v


def test_several_integers_append():
    buf = ffi.new("fjcs_buf *")
    try:
        for v in (7, -12345678, 10**17):
            assert lib.fjcs__write_int(buf, v) == lib.FJCS_OK
        assert bytes(ffi.buffer(buf.data, buf.len)) == b"7-12345678100000000000000000"
    finally:
        lib.fjcs_buf_free(buf)


@pytest.mark.parametrize("special", ["\x00", "\x1f", '"', "\\", "\n"])
@pytest.mark.parametrize("filler", ["a", "\x7f", "\u00e9", "\u4e2d"])
def test_strings_with_an_escape_at_every_position(special, filler):
    for length in range(0, 50):
        text = filler * length
        assert string_text(text.encode()) == rfc8785.dumps(text)
        for at in range(length + 1):
            s = filler * at + special + filler * (length - at)
            assert string_text(s.encode()) == rfc8785.dumps(s), (length, at)


def test_a_string_past_the_writers_blocks():
    s = ("\u00e9" * 2500 + "\x01" + "x" * 17) * 3
    assert string_text(s.encode()) == rfc8785.dumps(s)


def test_a_grow_hook_is_asked_in_place_of_realloc():
    # fjcs_buf.grow (the direct entry writes into a bytes object with it): the writer asks the hook
    # for room, keeps what it wrote, and fjcs_buf_free leaves the hook's memory alone. Catches a
    # writer that reallocs the hook's memory (glibc aborts on a pointer it did not make), a hook
    # asked for less than it needs, and fjcs_buf_free freeing it.
    blocks, asked = [], []

    @ffi.callback("fjcs_code(fjcs_buf *, size_t)")
    def grow(buf, cap):
        assert cap > buf.len
        asked.append((buf.len, cap))
        block = ffi.new("char[]", cap)
        if buf.len:
            ffi.memmove(block, buf.data, buf.len)
        blocks.append(block)  # held here, as the bytes object is by the direct entry
        buf.data, buf.cap = block, cap
        return lib.FJCS_OK

    buf = ffi.new("fjcs_buf *")
    buf.grow = grow
    text = "\u00e9t\u00e9 \x01 " * 300
    assert lib.fjcs__write_string(buf, text.encode(), len(text.encode())) == lib.FJCS_OK
    for v in range(-500, 500):
        assert lib.fjcs__write_int(buf, v) == lib.FJCS_OK
    assert bytes(ffi.buffer(buf.data, buf.len)) == rfc8785.dumps(text) + "".join(map(str, range(-500, 500))).encode()
    assert len(asked) >= 2 and buf.data == blocks[-1]
    assert all(cap >= 2 * prev_cap for (_, prev_cap), (_, cap) in zip(asked, asked[1:]))  # doubling
    lib.fjcs_buf_free(buf)
    assert buf.data == blocks[-1]  # not freed: the hook's

    @ffi.callback("fjcs_code(fjcs_buf *, size_t)")
    def refuse(buf, cap):
        return lib.FJCS_E_NOMEM

    full = ffi.new("fjcs_buf *")
    full.grow = refuse
    assert lib.fjcs__write_int(full, 12345) == lib.FJCS_E_NOMEM
