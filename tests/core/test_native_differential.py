"""The C backend against the pure-Python one: byte for byte, error class for error class, offset for
offset, on generated values, texts, and texts corrupted at random.

The Python backend is the reference (it is itself checked against rfc8785 and the RFC's tables in
the other test files); a disagreement here is a defect of one of the two.
"""

from __future__ import annotations

import json
import marshal
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from fastjcs.core import python_backend as _python

# Every test here needs both backends.
pytestmark = pytest.mark.usefixtures("native")

# ---- strategies ------------------------------------------------------------------------------

# Characters: the whole range, weighted towards the places where canonical JSON is delicate
# (controls, quote and backslash, U+007F, U+2028, U+E000..U+FFFF against astral characters).
_delicate = st.sampled_from(
    list('"\\/\b\f\n\r\t\x00\x1f\x7f\x80\u2028\u2029\ue000\uffff\ufb33\U0001f602\U00010000\U0010ffff\u20ac\u00f6')
)
_chars = st.one_of(_delicate, st.characters(exclude_categories=["Cs"]), st.characters(max_codepoint=0x7F))
text_strings = st.text(_chars, max_size=12)
surrogate_strings = st.text(st.one_of(_chars, st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)), max_size=6)
safe_ints = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
all_ints = st.one_of(
    safe_ints,
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([2**53, -(2**53), 2**53 - 1, 2**31, -(2**31) - 1, 2**60]),
)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)

json_scalars = st.one_of(st.none(), st.booleans(), safe_ints, finite_floats, text_strings)


def _containers(children):
    return st.one_of(st.lists(children, max_size=5), st.dictionaries(text_strings, children, max_size=5))


json_values = st.recursive(json_scalars, _containers, max_leaves=25)

# Values that exercise the refusals too: out-of-range ints, NaN/inf, lone surrogates, non-str
# keys, unsupported types, tuples.
any_scalars = st.one_of(
    st.none(),
    st.booleans(),
    all_ints,
    st.floats(),
    surrogate_strings,
    st.sampled_from([b"x", {1}, frozenset(), 1j, Ellipsis, bytearray(b"y")]),
)
any_keys = st.one_of(surrogate_strings, st.integers(0, 3), st.none())
any_values = st.recursive(
    any_scalars,
    lambda c: st.one_of(
        st.lists(c, max_size=4), st.lists(c, max_size=3).map(tuple), st.dictionaries(any_keys, c, max_size=4)
    ),
    max_leaves=15,
)


def outcome(fn, *args) -> tuple[str, Any, Any, str]:
    """("ok", bytes, None, "") or ("error", class name, offset, message): the backends word their
    errors the same way too."""
    try:
        return ("ok", fn(*args), None, "")
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        return ("error", type(exc).__name__, getattr(exc, "offset", None), str(exc))


# ---- objects ---------------------------------------------------------------------------------


@given(json_values)
def test_dumps_same_bytes(native, value):
    assert native.dumps(value, 10_000) == _python.dumps(value, 10_000)


@given(any_values)
def test_dumps_same_outcome(native, value):
    assert outcome(native.dumps, value, 10_000) == outcome(_python.dumps, value, 10_000)


@given(st.lists(st.sampled_from([[], {}, "s", 1]), min_size=1, max_size=6), st.integers(0, 6))
def test_dumps_depth_limit(native, shape, limit):
    value: Any = shape
    for _ in range(3):
        value = [value, {"k": value}]
    assert outcome(native.dumps, value, limit) == outcome(_python.dumps, value, limit)


def test_dumps_shared_and_cyclic(native):
    shared = {"z": [1, 2.5, "s"], "a": None}
    value = {"x": shared, "y": [shared, shared], "s": ["k", "k", "k"]}
    assert native.dumps(value, 100) == _python.dumps(value, 100)
    cyclic: list = [1]
    cyclic.append({"c": cyclic})
    assert outcome(native.dumps, cyclic, 100)[1] == "CircularReferenceError"


# ---- text ------------------------------------------------------------------------------------


@given(json_values, st.booleans(), st.sampled_from([None, 0, 2]))
def test_canonicalize_same_bytes(native, value, ensure_ascii, indent):
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent).encode("utf-8")
    assert native.canonicalize(text, 10_000, False) == _python.canonicalize(text, 10_000, False)


def _mutate(data: bytes, kind: int, where: int, byte: int) -> bytes:
    i = where % (len(data) + 1)
    if kind == 0 and data:  # flip
        i = min(i, len(data) - 1)
        return data[:i] + bytes([byte]) + data[i + 1 :]
    if kind == 1 and data:  # drop
        i = min(i, len(data) - 1)
        return data[:i] + data[i + 1 :]
    return data[:i] + bytes([byte]) + data[i:]  # insert


# Bytes the corruption prefers: structure, escapes, UTF-8 lead and continuation bytes.
_bytes = st.one_of(st.integers(0, 255), st.sampled_from(list(b'{}[]",:\\u0e.-+ \x00\x80\xbf\xc0\xed\xef\xf0\xf4\xf5')))


@given(
    json_values,
    st.booleans(),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6), _bytes), min_size=1, max_size=3),
)
@example({"a": [1, "b"]}, False, [(0, 2, 0x41)])
def test_corrupted_text_same_outcome(native, value, ensure_ascii, edits):
    data = json.dumps(value, ensure_ascii=ensure_ascii).encode("utf-8")
    for kind, where, byte in edits:
        data = _mutate(data, kind, where, byte)
    for strict in (False, True):
        assert outcome(native.canonicalize, data, 10_000, strict) == outcome(
            _python.canonicalize, data, 10_000, strict
        ), data


@given(st.binary(max_size=40))
def test_random_bytes_same_outcome(native, data):
    assert outcome(native.canonicalize, data, 50, False) == outcome(_python.canonicalize, data, 50, False)


@given(st.text(st.sampled_from('[]{}",:0123456789.eE-+ tfrunlase\\u\n'), max_size=30))
def test_json_alphabet_same_outcome(native, text):
    data = text.encode()
    assert outcome(native.canonicalize, data, 8, False) == outcome(_python.canonicalize, data, 8, False)


# The Python parser reads the input as latin-1 and decodes each string from its own bytes: raw
# non-ASCII characters, escapes giving non-ASCII characters, a backslash before a literal "u",
# undecodable bytes, lone and paired surrogate escapes, in names and in values.
_string_piece = st.sampled_from(
    [
        b"a",
        b"\xc3\xa9",
        b"\\u00e9",
        b"\xe2\x82\xac",
        b"\xf0\x9f\x98\x80",
        b"\\\\u00e9",
        b"\\\\",
        b"\\n",
        b'\\"',
        b"\\ud83d\\ude00",
        b"\\ud800",
        b"\\udc00",
        b"\\u0000",
        b"\\x",
        b"\\u12",
        b"\xff",
        b"\xc3",
        b"\xe2\x82",
        b"\x7f",
        b"\x1f",
        b"\xef\xbb\xbf",
        b"\n",
    ]
)
_string_body = st.lists(_string_piece, max_size=8).map(b"".join)


@given(_string_body, _string_body, st.booleans())
def test_strings_same_outcome(native, name, value, cut):
    data = b'{"' + name + b'": ["x", "' + value + b'"], "b\xc3\xa9": 1}'
    if cut:
        data = data[: len(data) // 2]
    assert outcome(native.canonicalize, data, 8, False) == outcome(_python.canonicalize, data, 8, False)


# ---- the object encoding survives arbitrary bytes ---------------------------------------------


def _raw_marshal(native_module, data: bytes):
    from fastjcs._native_ext import ffi, lib

    out = ffi.new("fjcs_buf *")
    try:
        rc = lib.fjcs_canonicalize_marshal(data, len(data), 64, 0, out, ffi.NULL)
        return rc, ffi.unpack(out.data, out.len) if rc == 0 else None
    finally:
        lib.fjcs_buf_free(out)


@given(any_values, st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6), st.integers(0, 255)), max_size=3))
def test_marshal_reader_survives_corruption(native, value, edits):
    try:
        data = marshal.dumps(value, 4)
    except ValueError:
        assume(False)
    for kind, where, byte in edits:
        data = _mutate(data, kind, where, byte)
    rc, out = _raw_marshal(native, data)
    if rc == 0:  # whatever it accepted must be canonical JSON that reads back
        assert _python.canonicalize(out, 10_000, False) == out


@given(st.binary(max_size=64))
def test_marshal_reader_survives_random_bytes(native, data):
    _raw_marshal(native, data)


# ---- number tokens in every spelling ------------------------------------------------------------
# The C text path renders tokens of at most 15 significant digits straight from their own digits
# (text.c, short_decimal); everything else goes through the double. Spell numbers every way
# (leading and trailing zeros, the point anywhere, exponents of both cases and signs) near the
# limits of that shortcut: 15 and 16 digits, the normal-range edges 1e-306 and 1e308.


@st.composite
def number_tokens(draw) -> str:
    digits = draw(st.text("0123456789", min_size=1, max_size=20))
    digits = draw(st.sampled_from(["", "0", "000"])) + digits + draw(st.sampled_from(["", "0", "00"]))
    point = draw(st.integers(0, len(digits)))
    whole, frac = digits[:point].lstrip("0") or "0", digits[point:]
    token = whole + ("." + frac if frac else "")
    exponent = draw(
        st.one_of(st.none(), st.integers(-330, 330), st.sampled_from([-306, -307, -305, 308, 307, 309, 20, 21, -7, -6]))
    )
    if exponent is not None:
        token += (
            draw(st.sampled_from(["e", "E"]))
            + draw(st.sampled_from(["", "+"]) if exponent >= 0 else st.just(""))
            + str(exponent)
        )
    return draw(st.sampled_from(["", "-"])) + token


@given(number_tokens())
@example("123.456")
@example("0.1e-305")
@example("9.99999999999999e307")
@example("100000000000000.0e-320")
def test_number_token_same_outcome(native, token):
    data = token.encode()
    assert outcome(native.canonicalize, data, 10, False) == outcome(_python.canonicalize, data, 10, False)
