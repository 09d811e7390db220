"""Number tokens copied as they are: the C text path (csrc/text.c, number_token) writes a token
unchanged when it proves the token is already its value's ECMAScript rendering, from its digits
alone (at most 15 significant digits in the normal range) or by comparing them with the double's
Schubfach digits (16 and 17). A token copied that is not canonical is a silent wrong answer, so
every token here is checked against a reference that shares no code with fastjcs: Python's
correctly rounded float() and rfc8785's own ECMAScript formatting, and against the pure-Python
backend. The token shapes cover each of the conditions of the copy (es_spelled): digit counts 15,
16, 17 and more, trailing zeros, a point anywhere, the plain range's ends (1e-7 / 0.000001,
1e21 / 1e+21), exponents of every spelling (e/E, with and without '+', leading zeros), the
normal range's ends (1e-306, 1e308), subnormals, -0, and 17-digit tokens that read back as their
double without being its nearest shortest decimal.
"""

from __future__ import annotations

import math
import random
import struct

import pytest
import rfc8785
from _number_shapes import reference, spellings, tokens
from hypothesis import example, given
from hypothesis import strategies as st

import fastjcs
from fastjcs.core import python_backend as _python

pytestmark = pytest.mark.usefixtures("native")


def check(native, token: str) -> None:
    data = token.encode()
    want = reference(token)
    for name, fn in (
        ("native", lambda t: native.canonicalize(t, 10, False)),
        ("python", lambda t: _python.canonicalize(t, 10, False)),
        ("public", fastjcs.canonicalize),  # the direct entry (csrc/cpython)
    ):
        if want is None:
            with pytest.raises(Exception):  # noqa: B017 - the class is compared in test_native_differential
                fn(data)
        else:
            got = fn(data)
            assert got == want, (name, token, got, want)
    # inside an array too: the token followed by more input (the 32-byte copy) and at the end
    if want is not None:
        assert native.canonicalize(b"[" + data + b"," + data + b"]", 10, False) == b"[" + want + b"," + want + b"]"


def test_every_shape_at_every_boundary(native):
    for token in tokens():
        check(native, token)


@pytest.mark.parametrize(
    "token",
    [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "0e5",
        "-0E-5",
        "0.000e+0",
        "1.0",
        "1E5",
        "1e5",
        "1e+5",
        "1e21",
        "1e+21",
        "1E+21",
        "1e+021",
        "100000000000000000000",
        "1000000000000000000000",
        "1e20",
        "0.000001",
        "0.0000001",
        "1e-6",
        "1e-7",
        "1e-07",
        "1.5e-7",
        "0.00000015",
        "1.50",
        "123456789012345",
        "1234567890123456",
        "12345678901234567",
        "9007199254740993",
        "5e-324",
        "4.9e-324",
        "4.9406564584124654e-324",
        "2.2250738585072014e-308",
        "2.225073858507201e-308",
        "1e-306",
        "1e-307",
        "1e308",
        "1.7976931348623157e+308",
        "1.7976931348623158e308",
        "1.8e308",
        "1e309",
        "1e-400",
        "-1e-400",
        "0.1",
        "0.10000000000000001",
        "0.30000000000000004",
        "9.999999999999999e22",
        "1e23",
        "1.0000000000000001",
        "123.456e-2",
        "1.2345678901234567e-200",
        "-1.2345678901234567e+200",
        "1e+0",
        "1e-0",
        "10e-1",
    ],
)
def test_named_tokens(native, token):
    check(native, token)


def _random_double(rng: random.Random) -> float:
    while True:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            return x


def test_random_doubles_in_their_canonical_and_repr_forms(native):
    """ES6 forms (copied) and repr() forms (laid out again), and the 17-digit neighbours that read
    back as the same double but are not its nearest shortest decimal (never copied)."""
    rng = random.Random(8785)
    for _ in range(20_000):
        if rng.random() < 0.7:
            x = _random_double(rng)
        else:  # a subnormal
            x = struct.unpack("<d", rng.getrandbits(52).to_bytes(8, "little"))[0]
        for token in (rfc8785.dumps(x).decode(), repr(x)):
            check(native, token)
        mant, _, exp = f"{x:.16e}".partition("e")  # 17 significant digits
        for delta in (-1, 1):
            last = int(mant[-1]) + delta
            if 0 <= last <= 9:
                check(native, f"{mant[:-1]}{last}e{int(exp)}")


@st.composite
def decimal_tokens(draw) -> str:
    """Random decimals of 1 to 19 significant digits near the copy's limits, in ES6 spelling (the
    copies' candidates) or not."""
    k = draw(st.integers(1, 19))
    digits = str(draw(st.integers(10 ** (k - 1), 10**k - 1)))
    exp10 = draw(st.one_of(st.integers(-330, 310), st.sampled_from([-306, -305, -5, -6, 0, 1, 21, 22, 308, 309])))
    token = draw(st.sampled_from(spellings(digits, exp10)))
    return draw(st.sampled_from(["", "-"])) + token


@given(decimal_tokens())
@example("1.000000000000001e-7")
@example("9.99999999999999e-7")
def test_random_decimal_tokens(native, token):
    check(native, token)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_double_in_its_canonical_form_is_copied_unchanged(native, x):
    text = rfc8785.dumps(x)
    assert native.canonicalize(text, 10, False) == text
