"""Number rendering (docs/contract.md "The canonical form", RFC 8785 section 3.2.2.3) on both backends.

Expected values never come from the code under test. They come from:
  * RFC 8785 Appendix B, typed from the RFC;
  * Python's repr() digits (David Gay's correctly rounded shortest digits), laid out by `es_layout`
    below, written for these tests from ECMA-262 and independent of fastjcs.core.python_backend;
  * exact arithmetic: every rendering is read back with fractions.Fraction and checked to round-trip,
    to have no shorter round-tripping neighbour, and to be the nearest of the shortest (`check_exact`).
"""

from __future__ import annotations

import math
import random
import struct
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fastjcs import FloatDomainError


def from_bits(bits: int) -> float:
    return struct.unpack(">d", bits.to_bytes(8, "big"))[0]


def to_bits(x: float) -> int:
    return int.from_bytes(struct.pack(">d", x), "big")


# ---- independent oracles ---------------------------------------------------------------------------


def es_layout(negative: bool, digits: str, n: int) -> str:
    """ECMA-262 Number::toString for the value 0.<digits> x 10^n (digits has no trailing zero)."""
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        exponent = n - 1
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("-" if exponent < 0 else "+")
        body += str(abs(exponent))
    return ("-" if negative else "") + body


def digits_and_n(text: str) -> tuple[bool, str, int]:
    """(negative, significant digits without trailing zeros, n) with |value| = 0.digits x 10^n."""
    sign, digit_tuple, exponent = Decimal(text).as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return bool(sign), stripped, exponent + len(stripped)


def expected_from_repr(x: float) -> str:
    """The ECMAScript rendering built from repr()'s shortest digits (finite, non-zero x)."""
    negative, digits, n = digits_and_n(repr(x))
    return es_layout(negative, digits, n)


def reads_back(value: Fraction, x: float) -> bool:
    """Does the exact decimal `value` round to the double x? (Fraction -> float rounds correctly.)"""
    try:
        return float(value) == x
    except OverflowError:
        return False


def check_exact(x: float, text: str) -> None:
    """text is the shortest, nearest, ties-to-even decimal of x, checked in exact arithmetic."""
    if x == 0:
        assert text == "0"
        return
    assert float(text) == x and math.copysign(1, float(text)) == math.copysign(1, x)
    negative, digits, n = digits_and_n(text)
    assert text == es_layout(negative, digits, n), "layout"
    exact = abs(Fraction(x))
    k = len(digits)
    # No string of k - 1 digits reads back: the two (k-1)-digit decimals around x are the only
    # candidates, since the set of reals that read back as x is an interval around x (a (k-1)-digit
    # decimal below a power of ten at x's lower edge is farther from x than that power itself).
    if k > 1:
        unit = Fraction(10) ** (n - k + 1)
        below = (exact // unit) * unit
        for candidate in (below, below + unit):
            assert not reads_back(candidate if not negative else -candidate, x), (text, candidate)
    # Nearest of the k-digit candidates, ties to the even digit.
    unit = Fraction(10) ** (n - k)
    chosen = Fraction(int(digits)) * unit
    below = (exact // unit) * unit
    assert chosen in (below, below + unit), (text, "not adjacent to x")
    other = below + unit if chosen == below else below
    if reads_back(other if not negative else -other, x):
        d_chosen, d_other = abs(chosen - exact), abs(other - exact)
        assert d_chosen <= d_other, (text, "a nearer shortest candidate exists")
        if d_chosen == d_other:
            assert int(digits[-1]) % 2 == 0, (text, "tie not to even")


def check(backend, x: float, expected: str | None = None) -> str:
    text = backend.format_double(x)
    if expected is None:
        expected = "0" if x == 0 else expected_from_repr(x)
    assert text == expected, (x.hex(), text, expected)
    check_exact(x, text)
    return text


# ---- RFC 8785 Appendix B ---------------------------------------------------------------------------

APPENDIX_B = [
    (0x0000000000000000, "0"),
    (0x8000000000000000, "0"),
    (0x0000000000000001, "5e-324"),
    (0x8000000000000001, "-5e-324"),
    (0x7FEFFFFFFFFFFFFF, "1.7976931348623157e+308"),
    (0xFFEFFFFFFFFFFFFF, "-1.7976931348623157e+308"),
    (0x4340000000000000, "9007199254740992"),
    (0xC340000000000000, "-9007199254740992"),
    (0x4430000000000000, "295147905179352830000"),
    (0x44B52D02C7E14AF5, "9.999999999999997e+22"),
    (0x44B52D02C7E14AF6, "1e+23"),
    (0x44B52D02C7E14AF7, "1.0000000000000001e+23"),
    (0x444B1AE4D6E2EF4E, "999999999999999700000"),
    (0x444B1AE4D6E2EF4F, "999999999999999900000"),
    (0x444B1AE4D6E2EF50, "1e+21"),
    (0x3EB0C6F7A0B5ED8C, "9.999999999999997e-7"),
    (0x3EB0C6F7A0B5ED8D, "0.000001"),
    (0x41B3DE4355555553, "333333333.3333332"),
    (0x41B3DE4355555554, "333333333.33333325"),
    (0x41B3DE4355555555, "333333333.3333333"),
    (0x41B3DE4355555556, "333333333.3333334"),
    (0x41B3DE4355555557, "333333333.33333343"),
    (0xBECBF647612F3696, "-0.0000033333333333333333"),
    (0x43143FF3C1CB0959, "1424953923781206.2"),  # the tie goes to the even digit
]
APPENDIX_B_INVALID = [0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000]  # NaN, Infinity


@pytest.mark.parametrize("bits,expected", APPENDIX_B, ids=[f"{b:016x}" for b, _ in APPENDIX_B])
def test_rfc8785_appendix_b(backend, bits, expected):
    check(backend, from_bits(bits), expected)


@pytest.mark.parametrize(
    "bits", APPENDIX_B_INVALID + [0xFFF0000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF]
)
def test_nan_and_infinities_are_refused(backend, bits):
    with pytest.raises(FloatDomainError):
        backend.format_double(from_bits(bits))


def test_layout_boundaries(backend):
    """Each branch of Number::toString at its edges (docs/contract.md, "Numbers"), from the ECMA-262 rules."""
    cases = {
        1e20: "100000000000000000000",
        1e21: "1e+21",
        123e18: "123000000000000000000",
        1.5: "1.5",
        0.000001: "0.000001",
        1e-7: "1e-7",
        1.5e-7: "1.5e-7",
        0.0000015: "0.0000015",
        -0.0: "0",
        -1.0: "-1",
        0.1: "0.1",
        100.0: "100",
        1e16: "10000000000000000",
        2.0**-25: "2.9802322387695312e-8",
        0.1 + 0.2: "0.30000000000000004",
        5e-324: "5e-324",
        1e-323: "1e-323",
        1.5e-323: "1.5e-323",
    }
    for x, expected in cases.items():
        check(backend, x, expected)


# ---- the classic edges -----------------------------------------------------------------------------


def test_every_power_of_two_both_signs(backend):
    """2^-1074 .. 2^1023: at a power-of-two significand the lower neighbour is twice as close."""
    for e in range(-1074, 1024):
        x = math.ldexp(1.0, e)
        check(backend, x)
        check(backend, -x)


def test_every_power_of_ten_and_neighbours(backend):
    for e in range(-323, 309):
        x = float(f"1e{e}")
        for y in (math.nextafter(x, 0.0), x, math.nextafter(x, math.inf)):
            if math.isfinite(y):
                check(backend, y)
    assert backend.format_double(1e-323) == "1e-323"
    assert backend.format_double(1e308) == "1e+308"


def test_integers_around_2_53_and_1e21(backend):
    for base in (2**53, 10**21):
        x = float(base)
        values = {x}
        lo = hi = x
        for _ in range(64):
            lo, hi = math.nextafter(lo, 0.0), math.nextafter(hi, math.inf)
            values.update((lo, hi))
        for i in range(-3000, 3000):
            values.add(float(base + i))
        for y in sorted(values):
            check(backend, y)
            check(backend, -y)
    assert backend.format_double(2.0**53) == "9007199254740992"
    assert backend.format_double(2.0**53 + 2) == "9007199254740994"
    assert backend.format_double(2.0**53 - 1) == "9007199254740991"
    assert backend.format_double(math.nextafter(1e21, 0.0)) == "999999999999999900000"


def test_extremes(backend):
    largest_subnormal = from_bits(0x000FFFFFFFFFFFFF)
    smallest_normal = from_bits(0x0010000000000000)
    check(backend, 5e-324, "5e-324")
    check(backend, largest_subnormal, "2.225073858507201e-308")
    check(backend, smallest_normal, "2.2250738585072014e-308")
    check(backend, from_bits(0x7FEFFFFFFFFFFFFF), "1.7976931348623157e+308")
    # the smallest subnormals, c * 2^-1074 for c < 200: few digits, where a one-digit d * 10^k
    # competes with 10^(k+1) (c = 2: 1e-323, not 9e-324)
    for c in range(1, 200):
        check(backend, from_bits(c))


def test_negative_two_to_the_63_plus_one_ulp(backend):
    """-(2^63 + 2^11): shortest digits ...7856 -> 9223372036854778000 (2^63 itself -> ...776000)."""
    check(backend, from_bits(0xC3E0000000000001), "-9223372036854778000")
    check(backend, from_bits(0xC3E0000000000000), "-9223372036854776000")


def test_exact_ties_go_to_even(backend):
    """In [2^50, 2^51) the spacing is 1/4, so m + 1/4 and m + 3/4 sit exactly between two
    17-digit decimals (m.2 | m.3 and m.7 | m.8): the even one wins."""
    rng = random.Random(325)
    ms = [2**50, 2**51 - 1] + [rng.randrange(2**50, 2**51) for _ in range(3000)]
    for m in ms:
        check(backend, m + 0.25, f"{m}.2")
        check(backend, m + 0.75, f"{m}.8")
        check(backend, -(m + 0.25), f"-{m}.2")
    # 2^-25 = 2.98023223876953125e-8 exactly: ...312 and ...313 are equally near.
    check(backend, 2.0**-25, "2.9802322387695312e-8")


def test_values_needing_seventeen_digits(backend):
    values = [
        0.1 + 0.2,
        1.0000000000000002,
        2.0000000000000004,
        1.7976931348623157e308,
        2.2250738585072014e-308,
        9.999999999999999e22 * 1.0000000000000002,
    ]
    rng = random.Random(17)
    while len(values) < 500:
        x = from_bits(rng.getrandbits(64))
        if math.isfinite(x) and len(digits_and_n(repr(x))[1]) == 17:
            values.append(x)
    for x in values:
        text = check(backend, x)
        assert len(digits_and_n(text)[1]) == 17, text


def test_integers_and_short_decimals(backend):
    """The shapes of everyday JSON numbers: small integers (the C integer path), integers of every
    digit count below 2^53, and short decimals m / 10^j in every layout branch."""
    rng = random.Random(8785)
    values = [float(i) for i in range(1, 2000)]
    values += [float(rng.randrange(10 ** (d - 1), 10**d)) for d in range(1, 17) for _ in range(50)]
    values += [float(2**53 - rng.randrange(1, 1000)) for _ in range(200)]
    values += [rng.randrange(1, 10**7) / 10 ** rng.randrange(0, 12) for _ in range(5000)]
    values += [rng.randrange(1, 10**7) * 10.0 ** rng.randrange(0, 16) for _ in range(2000)]
    for x in values:
        check(backend, x)
        check(backend, -x)


# ---- properties ------------------------------------------------------------------------------------

# The backend fixtures hold no per-example state (a module, and one attribute set for the test).
fixture_ok = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])

finite_bits = st.integers(min_value=0, max_value=2**64 - 1).filter(lambda b: (b >> 52) & 0x7FF != 0x7FF)


@given(finite_bits)
@example(0x0000000000000001)
@example(0x0010000000000000)
@example(0x000FFFFFFFFFFFFF)
@example(0x7FEFFFFFFFFFFFFF)
@example(0x4340000000000001)
def test_property_exact(bits):
    """On the Python backend the exact checks; the native one is compared against it below."""
    from fastjcs.core import python_backend as _python

    x = from_bits(bits)
    check_exact(x, _python.format_double(x))


@fixture_ok
@given(finite_bits)
def test_property_native_equals_python_and_exact(native, bits):
    from fastjcs.core import python_backend as _python

    x = from_bits(bits)
    text = native.format_double(x)
    assert text == _python.format_double(x)
    check_exact(x, text)


@fixture_ok
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_property_floats(backend, x):
    check(backend, x)


# ---- the batch -------------------------------------------------------------------------------------


def test_format_doubles_batch(native):
    rng = random.Random(5)
    values = [from_bits(rng.getrandbits(64)) for _ in range(20000)]
    values = [x for x in values if math.isfinite(x)]
    values += [0.0, -0.0, 5e-324, 1e21, 1e-7, 123.456]
    values += [from_bits(0xBECBF647612F3696)] * 1000  # the longest rendering, 25 bytes
    assert native.format_doubles(values) == [native.format_double(x) for x in values]
    assert native.format_doubles([]) == []
    assert len(native.format_double(from_bits(0xBECBF647612F3696))) == 25
    with pytest.raises(FloatDomainError):
        native.format_doubles([1.0, math.nan])
    with pytest.raises(FloatDomainError):
        native.format_doubles([math.inf])


# ---- the oracle itself -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x,wrong",
    [
        (5e-324, "4.9e-324"),  # Java's two digits: not the shortest
        (0.1, "0.10000000000000001"),  # round-trips, but not the shortest
        (from_bits(0x43143FF3C1CB0959), "1424953923781206.3"),  # the tie to the odd digit
        (2.0**-25, "2.9802322387695313e-8"),  # the tie to the odd digit
        (0.1 + 0.2, "0.30000000000000005"),  # round-trips, but not the nearest
        (1e23, "9.999999999999999e+22"),  # does not round-trip
        (1.0, "1.0"),  # layout: no ".0"
        (1e21, "1000000000000000000000"),  # layout: 1e21 is exponent form
        (1e-7, "0.0000001"),  # layout: 1e-7 is exponent form
        (1e-6, "1e-6"),  # layout: 1e-6 is plain
        (-1.5, "1.5"),  # the sign
    ],
)
def test_oracle_rejects_wrong_renderings(x, wrong):
    """Each exact check above catches the mistake it is there for."""
    with pytest.raises(AssertionError):
        check_exact(x, wrong)
