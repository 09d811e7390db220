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


def places(v):
    """v where the walker writes a value: alone, as a list's first and later item, a tuple's, a
    dict's value (and, for a str, its key), after and before other values."""
    out = [v, [v], ["x", v, 1], (v,), (0, v), {"k": v}, {"a": 1, "k": v, "z": [v, v]}]
    if isinstance(v, str):
        out += [{v: 0}, {"": 1, v: [v]}]
    return out


@pytest.mark.parametrize("special", ["\x00", "\x1f", '"', "\\", "\n"])
@pytest.mark.parametrize("filler", ["a", "\x7f", "\u00e9", "\u4e2d"])
def test_every_length_and_escape_position_in_every_place(special, filler):
    # The walker copies a string 16 (or 8, or 4) bytes at a time, the last block overlapping the
    # one before, and below 4 bytes its first, middle and last; catches a block or byte it skips
    # (an escape missed) or flags wrongly, wherever the string stands.
    for length in range(0, 41):
        strings = [filler * length] + [filler * at + special + filler * (length - at) for at in range(length + 1)]
        for s in strings:
            for v in places(s):
                assert fastjcs.dumps(v) == rfc8785.dumps(v), (length, s)


def test_scalars_in_every_place():
    values = [
        0,
        7,
        -7,
        99,
        100,
        -1000,
        4999,
        -5000,
        10**8 - 1,
        10**8,
        2**53 - 1,
        -(2**53 - 1),
        1.5,
        -0.0,
        1e21,
        None,
        True,
        False,
        "",
        "x",
    ]
    for v in values:
        for doc in places(v):
            assert fastjcs.dumps(doc) == rfc8785.dumps(doc), doc


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))


@pytest.mark.parametrize("bad", [2**53, -(2**53), 2**64, -(2**70), float("nan"), float("inf"), "\ud800", "a\udfffb"])
def test_a_refused_value_after_others_in_every_place(bad):
    # The walker writes a run of plain items without its general dispatch; catches a bound off by
    # one (2^53 taken) and a refusal at the wrong item or with the wrong error.
    from fastjcs.core import python_backend

    for doc in places(bad) + [[1, "a", 2.5, None, bad, 3], (True, bad), {"a": [0] * 20 + [bad]}]:
        got = outcome(fastjcs.dumps, doc)
        assert got[0] == "error", doc
        assert got == outcome(python_backend.dumps, doc, 100), doc


def test_floats_in_a_list_with_integers_only():
    with pytest.raises(fastjcs.CanonicalizationError):
        fastjcs.dumps([1, 2, 0.5], integers_only=True)
    assert fastjcs.dumps([1, 2, None], integers_only=True) == b"[1,2,null]"


def int_readings():
    """The walker's readings of small ints (the object's layout, the API) to test under: the one in
    use where there is no direct entry."""
    from fastjcs.core._direct_loader import direct

    if direct is None:
        return [None]
    return [True, False] if direct.int_layout() else [False]


def test_the_walker_reads_small_ints_from_the_object_on_cpython():
    # Where CPython lays ints out as the walker reads them (3.10 to 3.14, 30-bit digits), its check
    # of the layout passes; catches a reading the check (sample ints against the API) turns off.
    import sys

    from fastjcs.core._direct_loader import direct

    if direct is None:
        pytest.skip("no direct entry (PyPy, 3.9, FASTJCS_DIRECT=0)")
    if sys.implementation.name != "cpython" or sys.int_info.bits_per_digit != 30 or sys.version_info >= (3, 15):
        pytest.skip("a CPython whose ints the walker may not read from the object")
    assert direct.int_layout() is True


@pytest.mark.parametrize("layout", int_readings())
def test_integers_at_cpythons_digit_boundaries_in_every_place(layout):
    # The walker reads an exact int of one or two 30-bit digits from the object (its layout
    # checked once against the API), or through the API; catches a digit shifted wrongly, a sign
    # lost, and a third digit taken as read (2^60 and past go through the API, and are refused
    # past 2^53 - 1).
    from fastjcs.core import python_backend
    from fastjcs.core._direct_loader import direct

    previous = direct.int_layout(layout) if layout is not None else None
    try:
        values = [0, 1, 2**30 - 1, 2**30, 2**30 + 1, 2**31 - 1, 2**31, 2**32 + 7, 2**45 + 2**30 - 1, 2**53 - 1]
        values += [-v for v in values]
        for v in values:
            for doc in places(v):
                assert fastjcs.dumps(doc) == rfc8785.dumps(doc), doc
        assert fastjcs.dumps(values) == ("[" + ",".join(map(str, values)) + "]").encode()
        for bad in (2**53, 2**60 - 1, 2**60, 2**60 + 2**30, 2**90, -(2**60)):
            for doc in ([bad], [0, bad], {"k": bad}, (1, bad)):
                got = outcome(fastjcs.dumps, doc)
                assert got[0] == "error", doc
                assert got == outcome(python_backend.dumps, doc, 100), doc
    finally:
        if layout is not None:
            direct.int_layout(previous)
