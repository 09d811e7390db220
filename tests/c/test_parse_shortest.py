"""fjcs__parse_shortest (csrc/number_parse.c): a token of at most 17 digits read, and proved, or not,
to be its double's ECMAScript digits, so that text.c copies it without Schubfach (16 and 17 digits;
and the subnormals, where 15 digits or fewer need not be shortest).

A wrong "proved" is a silent wrong answer (a token copied that is not canonical), so every claim is
held to an oracle that shares no code with fastjcs: Python's repr, which gives the shortest digits
that read back as the double and, of those, the nearest (the digits ECMA-262 Number::toString
chooses), and float(), correctly rounded, for the double itself. The tokens are the ones near the
proof's edges: repr's own digits (where the proof must hold, or the fast path is lost), the
nearest 17 digits of a double whose shortest form is shorter (0.1's 0.10000000000000001), the 17-digit
neighbours that read back as the same double without being nearest, and, found by exact
arithmetic, tokens whose shorter neighbour lies within a thousandth of an ulp of the rounding
interval's edge, or whose distance to the double is within a thousandth of an ulp of half a digit:
there the proof's margins (the truncated products' error) decide. Each condition of the proof, and
each margin, has a mutant the checks below catch (noted at the test that catches it).
"""

from __future__ import annotations

import math
import random
import struct
import sys
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cbuild  # noqa: E402

_build = cbuild.load_or_skip(
    "_fjcs_test_shortest",
    "fjcs_code fjcs__parse_shortest(uint64_t w, int64_t q, int negative, const char *tok, size_t len,"
    " double *out, int *shortest);",
)
ffi, lib = _build.ffi, _build.lib
_out = ffi.new("double *")
_shortest = ffi.new("int *")


def read(w: int, q: int) -> tuple[float, int]:
    """fjcs__parse_shortest on w * 10^q (its token "<w>e<q>"): the double and the claim."""
    token = f"{w}e{q}".encode()
    rc = lib.fjcs__parse_shortest(w, q, 0, token, len(token), _out, _shortest)
    assert rc == lib.FJCS_OK, (w, q)
    return _out[0], _shortest[0]


def repr_digits(x: float) -> tuple[int, int]:
    """The digits of repr(x) as an integer without trailing zeros, and q: x = digits * 10^q."""
    mant, _, exp = repr(x).partition("e")
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0").rstrip("0")
    q = int(exp or 0) - len(frac) + (len((whole + frac).lstrip("0")) - len(digits))
    return int(digits), q


def check(w: int, q: int) -> int:
    """Read w * 10^q; the double must be float()'s, and a claim must be repr's digits. The claim."""
    if w % 10 == 0 or not 0 < w < 10**17:
        return 0
    want = float(f"{w}e{q}")
    if want == 0 or math.isinf(want):
        return 0
    got, claim = read(w, q)
    assert struct.pack("<d", got) == struct.pack("<d", want), (w, q)
    if claim:
        assert repr_digits(want) == (w, q), (w, q, repr(want))
    return claim


def random_double(rng: random.Random) -> float:
    """A positive finite double: its bits at random, a subnormal one time in five."""
    if rng.random() < 0.2:
        return struct.unpack("<d", rng.getrandbits(52).to_bytes(8, "little"))[0] or 5e-324
    while True:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x) and x != 0:
            return abs(x)


def ulp_of(v: float) -> Fraction:
    """The spacing of the doubles at v (2^-1074 among the subnormals)."""
    return Fraction(2) ** max(math.frexp(v)[1] - 53, -1074)


def nearest(x: Fraction, digits: int) -> tuple[int, int]:
    """The nearest decimal of `digits` digits to x > 0 (ties: either), as (w, q)."""
    q = math.floor(math.log10(x)) - digits + 1
    while True:
        scale = Fraction(10) ** q
        w = round(x / scale)
        if w >= 10**digits:
            q += 1
        elif w < 10 ** (digits - 1):
            q -= 1
        else:
            return w, q


def test_repr_tokens_are_proved_and_only_repr_digits_are_claimed():
    """The fast path's reason to be: repr's tokens are proved (nearly all, subnormals among them;
    the rest go to Schubfach). A proof that never holds (`*shortest = 0` always) fails here, one that
    always holds in test_nearest_17_digits_of_a_shorter_double."""
    rng = random.Random(8785)
    proved = tried = 0
    for _ in range(20_000):
        x = random_double(rng)
        w, q = repr_digits(x)
        if w >= 128:  # below, no proof is tried
            tried += 1
            proved += check(w, q)
    assert tried > 19_000
    assert proved > 0.95 * tried, (proved, tried)


def test_nearest_17_digits_of_a_shorter_double():
    """0.1 read from 0.10000000000000001: nearest, but not shortest. Catches the proof without its
    test of the shorter neighbour below (a = x - r S), and, with the neighbours, above."""
    assert check(10000000000000001, -17) == 0
    rng = random.Random(31)
    for _ in range(20_000):
        x = random_double(rng)
        w, q = nearest(Fraction(x), 17)
        check(w, q)
        for delta in (-2, -1, 1, 2):  # read back as x but not nearest: the "closest" test
            check(w + delta, q)


def test_short_decimals_near_the_rounding_intervals_edge():
    """A shorter decimal a within a thousandth of an ulp of the edge of v's rounding interval (in
    it or not): whether a reads back as v decides, and only the proof's margin for the truncated
    products' error (F < 2 units) keeps a claim sound there. Catches `d + (10 - r) s > h` written
    with the error counted the wrong way (`d + (10 - r) s + 2 > h`), and either test left out;
    the random tokens of test_nearest_17_digits_of_a_shorter_double catch `r s - d - 2 > h` without
    its -2."""
    rng = random.Random(2021)
    near = 0
    for _ in range(40_000):
        v = random_double(rng)
        ulp = ulp_of(v)
        for edge in (Fraction(v) - ulp / 2, Fraction(v) + ulp / 2):
            a, qa = nearest(edge, 16)
            if abs(a * Fraction(10) ** qa - edge) > ulp / 1000:
                continue
            near += 1
            x, qx = nearest(Fraction(v), 17)  # v's nearest 17 digits, the token to prove
            check(x, qx)
            # and the 17-digit tokens on a's grid either side of it
            for r in range(1, 10):
                check(a * 10 + r, qa - 1)
                check(a * 10 - r, qa - 1)
    assert near > 50, near


def test_tokens_near_half_a_digit_from_the_double():
    """x - v within a thousandth of an ulp of +-S/2: the nearest 17 digits are then nearly a tie,
    and only the margin `2d + 4 <= s` keeps the claim sound. Catches it written `2d <= s`."""
    rng = random.Random(2023)
    near = 0
    for _ in range(40_000):
        v = random_double(rng)
        fv = Fraction(v)
        w, q = nearest(fv, 17)
        step = Fraction(10) ** q
        ulp = ulp_of(v)
        if abs(abs(w * step - fv) - step / 2) > ulp / 1000:
            continue
        near += 1
        for delta in (-1, 0, 1):
            check(w + delta, q)
    assert near > 20, near


def test_powers_of_two():
    """Every normal power of two, from its nearest 17 digits (and their neighbours) and its repr:
    the interval above 2^p is twice as wide as below, so a token below it that rounds up (a carry
    into the next binade) is left unproved. Catches the proof without that exclusion, which would
    measure the interval above with the half ulp below."""
    for p in range(-1022, 1024):
        v = math.ldexp(1.0, p)
        w, q = nearest(Fraction(v), 17)
        for delta in (-2, -1, 0, 1, 2):
            check(w + delta, q)
        rw, rq = repr_digits(v)
        if rw >= 10**15:
            check(rw, rq)
        for r in range(1, 10):  # on the 16-digit grid below 2^p
            a, qa = nearest(Fraction(v), 16)
            check(a * 10 - r, qa - 1)


@pytest.mark.parametrize(
    "token",
    [
        "5e-324",
        "2.2250738585072014e-308",
        "2.225073858507201e-308",
        "1.7976931348623157e308",
        "9007199254740993",
        "9007199254740992",
        "9223372036854775808",
        "0.30000000000000004",
        "1e23",
        "9.999999999999999e22",
        "1e21",
        "1e-7",
        "4.4501477170144023e-308",
        "1.0000000000000002",
        "0.9999999999999999",
        "123456789012345.67",
    ],
)
def test_edge_tokens(token):
    """The ends of the normal range, powers of two and of ten, 2^53 + 1, 2^63, 0.1 + 0.2."""
    mant, _, exp = token.partition("e")
    whole, _, frac = mant.partition(".")
    digits = (whole + frac).lstrip("0")
    w, q = int(digits), int(exp or 0) - len(frac)
    while w and w % 10 == 0:
        w, q = w // 10, q + 1
    check(w, q)
    check(w * 10 ** max(0, 16 - len(str(w))) + 1, q - max(0, 16 - len(str(w))))
