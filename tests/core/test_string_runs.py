"""The string writer copies runs of plain bytes, ASCII or not, a word at a time, and escapes only
what RFC 8785 escapes; integers are written two digits at a time. Expected values from rfc8785
and Python's own str(int)."""

from __future__ import annotations

import pytest
import rfc8785

import fastjcs
from fastjcs.core import backends

PIECES = ["a", "\u00e9", "\u4e2d", "\U0001f600", "\x01", "\x1f", '"', "\\", "\n", "\x7f", " "]


@pytest.mark.parametrize("special", ["\x00", "\x1f", '"', "\\", "\t", "\b"])
@pytest.mark.parametrize("filler", ["a", "\u00e9", "\u4e2d", "\U0001f600"])
def test_escape_at_every_position_of_a_word(special, filler):
    # Catches a writer that takes a wrong byte of the word as the first to escape, or that flags
    # (or skips) bytes >= 0x80 around it.
    for before in range(0, 20):
        for after in (0, 1, 7, 8, 9):
            s = filler * before + special + filler * after
            assert fastjcs.dumps(s) == rfc8785.dumps(s), (before, after)
            assert fastjcs.dumps([s, {s: s}]) == rfc8785.dumps([s, {s: s}])


def test_mixed_strings_agree_with_rfc8785():
    import random

    rng = random.Random(31)
    for _ in range(2000):
        s = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 40)))
        assert fastjcs.dumps(s) == rfc8785.dumps(s)


def test_long_non_ascii_string_crosses_blocks():
    s = ("\u00e9\u4e2d" * 3000 + '"') * 3  # past the writer's 4096-byte blocks, escapes inside
    assert fastjcs.dumps(s) == rfc8785.dumps(s)


def test_integers_at_every_digit_count():
    values = [0]
    for k in range(1, 16):
        values += [10**k - 1, 10**k, 10**k + 1]
    values += [2**53 - 1]
    values += [-v for v in values]
    assert fastjcs.dumps(values) == ("[" + ",".join(str(v) for v in values) + "]").encode()


def test_format_double_is_a_c_function_on_the_direct_route():
    impl = backends.impl()
    if getattr(impl, "_direct", None) is None:
        pytest.skip("no direct entry (PyPy, 3.9, or the Python backend)")
    assert type(fastjcs.format_double).__name__ == "builtin_function_or_method"
    assert fastjcs.format_double(1e21) == "1e+21"

    class F(float):
        pass

    assert fastjcs.format_double(F(0.5)) == "0.5"
    with pytest.raises(TypeError):
        fastjcs.format_double(1)
    with pytest.raises(fastjcs.FloatDomainError):
        fastjcs.format_double(float("inf"))
    with pytest.raises(TypeError):
        fastjcs.format_double()
