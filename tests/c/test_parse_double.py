"""fjcs__parse_double (csrc/number_parse.c): JSON number tokens to correctly rounded doubles.

Two oracles: CPython's float(), which rounds correctly whatever the token's length, and exact
rational arithmetic (fractions.Fraction), which builds the hard cases (midpoints between adjacent
doubles, printed exactly) and knows their answers by construction. Results are compared as bit
patterns, so -0.0 and 0.0 differ. The mutant section shows, for the checks that matter most, a
plausible wrong reader that they catch.

The reader is internal: the tests call it through a test build of the core (tests/c/cbuild.py),
made where the C extension is built; skipped (with the reason) when it is not, an error when
FASTJCS_REQUIRE_NATIVE=1. The path-coverage tests build tests/c/parse_check.c, which compiles
number_parse.c with a test hook reporting which path (Clinger, Eisel-Lemire, exact) decided.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Callable, Union

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

REQUIRE_NATIVE = os.environ.get("FASTJCS_REQUIRE_NATIVE", "") not in ("", "0")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "c"))
import cbuild  # noqa: E402
import gen_parse_corpus as corpus  # noqa: E402  (the sanitizer corpus shares these helpers)

# The reader is internal (text.c calls it): a test build of the core declares it.
_test_build = cbuild.load_or_skip(
    "_fjcs_test_parse", "fjcs_code fjcs__parse_double(const char *tok, size_t len, double *out);"
)
ffi, lib = _test_build.ffi, _test_build.lib

Outcome = Union[int, str]  # the bits of the double, or "overflow" / "syntax"

MAX_FINITE_BITS = 0x7FEFFFFFFFFFFFFF
NEG_ZERO_BITS = 0x8000000000000000
SENTINEL = 0x7FF8DEADBEEF0000  # a NaN: whatever fjcs__parse_double writes, it is never this

_out = ffi.new("double *")


def parse(token: str) -> Outcome:
    data = token.encode("ascii")
    _out[0] = corpus.double_of(SENTINEL)
    rc = lib.fjcs__parse_double(data, len(data), _out)
    stored = corpus.bits_of(_out[0])
    if rc == lib.FJCS_OK:
        return stored
    assert stored == SENTINEL, "an error must leave *out untouched"
    if rc == lib.FJCS_E_FLOAT_DOMAIN:
        return "overflow"
    assert rc == lib.FJCS_E_SYNTAX, rc
    return "syntax"


def by_float(token: str) -> Outcome:
    value = float(token)
    return "overflow" if math.isinf(value) else corpus.bits_of(value)


def check(token: str) -> None:
    assert parse(token) == by_float(token), token


def round_fraction(value: Fraction, ties: str = "even") -> Outcome:
    """value >= 0 rounded to a double, computed with integers only; ties "even" (IEEE) or "up"."""
    if value == 0:
        return 0
    n, d = value.numerator, value.denominator
    # e: the exponent of the last kept bit, so that n / (d 2^e) has 53 bits (or e = -1074).
    e = n.bit_length() - d.bit_length() - 53
    while (n << max(0, -e)) // (d << max(0, e)) >= 1 << 53:
        e += 1
    while e > -1074 and (n << max(0, -e)) // (d << max(0, e)) < 1 << 52:
        e -= 1
    e = max(e, -1074)
    m, r = divmod(n << max(0, -e), d << max(0, e))
    twice_r, den = 2 * r, d << max(0, e)
    if twice_r > den or (twice_r == den and (ties == "up" or m & 1)):
        m += 1
    bits = ((e + 1074) << 52) + m  # m == 2^53 carries into the exponent field by itself
    return "overflow" if bits >= 0x7FF0000000000000 else bits


def from_bits(bits: int) -> float:
    return corpus.double_of(bits)


# ---- Mutants: plausible wrong readers, each caught by some cases below ----


def mutant_half_up(token: str) -> Outcome:
    """Exact, but ties round up: what a reader that adds half an ulp and truncates does."""
    negative = token.startswith("-")
    out = round_fraction(Fraction(token.lstrip("-")), ties="up")
    return out | (NEG_ZERO_BITS if negative and isinstance(out, int) else 0)


def _truncated(token: str, keep: int) -> Outcome:
    """Exact on the first `keep` significant digits of the token, the rest dropped."""
    mantissa, _, exp = token.lower().partition("e")
    digits = mantissa.replace(".", "").lstrip("-")
    point = len(mantissa.lstrip("-").partition(".")[0])
    stripped = digits.lstrip("0")
    lead = len(digits) - len(stripped)
    kept = stripped[:keep]
    scale = int(exp or 0) + point - lead - len(kept)
    return round_fraction(Fraction(int(kept)) * Fraction(10) ** scale)


def mutant_19_digits(token: str) -> Outcome:
    """Exact on the first 19 significant digits, the rest dropped: Eisel-Lemire without the
    w / w + 1 check (or any reader that truncates the significand without a sticky bit)."""
    return _truncated(token, 19)


def mutant_no_sticky(token: str) -> Outcome:
    """Exact on the first 800 significant digits, the rest ignored (the exact path without its
    sticky bit)."""
    return _truncated(token, 800)


def mutant_double_arithmetic(token: str) -> Outcome:
    """The textbook reader: digits as a double times a power of ten, two roundings."""
    mantissa, _, exp = token.lower().partition("e")
    int_part, _, frac = mantissa.partition(".")
    try:
        value = float(int(int_part + frac)) * 10.0 ** (int(exp or 0) - len(frac))
    except OverflowError:
        return "overflow"
    return "overflow" if math.isinf(value) else corpus.bits_of(value)


def midpoint(bits: int, nudge: int = 0, places: int = 0) -> str:
    """The exact midpoint above the double `bits`, plus nudge units `places` decimal places past
    its last digit, as a token."""
    digits, exp = corpus.midpoint_digits(bits)
    return f"{digits * 10**places + nudge}e{exp - places}"


# (token, mutant it catches): the correct answer differs from the mutant's on each.
MUTANT_CASES = [
    # Ties to even, not up: 2^53 + 1 lies halfway between 2^53 (even) and 2^53 + 2.
    ("9007199254740993", mutant_half_up),
    (midpoint(0x0000000000000000), mutant_half_up),  # 2^-1075: between 0 and 5e-324 -> 0
    (midpoint(0x0000000000000002), mutant_half_up),  # subnormal tie, even side is below
    (midpoint(0x3FF0000000000000), mutant_half_up),  # 1 + 2^-53 -> 1
    # Digits past the 19th decide: the first 19 are at or below the midpoint (an exact tie in the
    # first case), a later nonzero digit puts the value above it.
    ("9007199254740993.00000000000000000000000000001", mutant_19_digits),
    (midpoint(0x3FF8000000000000, 1, 30), mutant_19_digits),
    (midpoint(0x0000000000000003, 1, 5), mutant_19_digits),
    # Digits past the 800th decide: an exact tie, then one nonzero digit far away.
    (midpoint(0x0010000000000000, 1, 40), mutant_no_sticky),
    (midpoint(0x3FF0000000000000, 1, 900), mutant_no_sticky),
    (midpoint(0x0000000000000002, 1, 100), mutant_no_sticky),
    # Two roundings (the digits to a double, then the power of ten) miss by an ulp.
    ("0.3", mutant_double_arithmetic),  # 3.0 * 10.0**-1 is 0.30000000000000004
    ("7.3177701707893310e+15", mutant_double_arithmetic),
    ("7.581454333883296e-148", mutant_double_arithmetic),
    ("2.2250738585072011e-308", mutant_double_arithmetic),
]


@pytest.mark.parametrize("token, mutant", MUTANT_CASES, ids=[f"{m.__name__}:{t[:30]}" for t, m in MUTANT_CASES])
def test_case_catches_its_mutant(token, mutant):
    assert parse(token) == by_float(token)
    assert mutant(token) != by_float(token), "this case would not catch the mutant"


# ---- Fixed edge cases ----

EDGE_CASES = [
    ("0", 0),
    ("-0", NEG_ZERO_BITS),
    ("-0.0", NEG_ZERO_BITS),
    ("-0e5", NEG_ZERO_BITS),
    ("0e99999", 0),
    ("-0.000E-99999999999999999999999", NEG_ZERO_BITS),
    ("0.0", 0),
    ("1", 0x3FF0000000000000),
    ("-1", 0xBFF0000000000000),
    ("0.1", 0x3FB999999999999A),
    ("1e23", 0x44B52D02C7E14AF6),
    ("8.98846567431158e307", 0x7FE0000000000000),
    # subnormals and the boundaries of the subnormal range
    ("5e-324", 0x0000000000000001),
    ("4.9406564584124654e-324", 0x0000000000000001),
    ("2.4703282292062327e-324", 0),
    ("2.4703282292062328e-324", 0x0000000000000001),
    ("-2.4703282292062327e-324", NEG_ZERO_BITS),
    ("1e-324", 0),
    ("3e-324", 0x0000000000000001),
    ("7.4109846876186982e-324", 0x0000000000000002),
    ("2.2250738585072009e-308", 0x000FFFFFFFFFFFFF),
    ("2.2250738585072011e-308", 0x000FFFFFFFFFFFFF),
    ("2.2250738585072012e-308", 0x0010000000000000),
    ("2.2250738585072014e-308", 0x0010000000000000),
    ("2.2250738585072013830902327173324040642192159804623318306e-308", 0x0010000000000000),
    # the overflow edge
    ("1.7976931348623157e308", MAX_FINITE_BITS),
    ("1.7976931348623158e308", MAX_FINITE_BITS),
    ("-1.7976931348623158e308", 0xFFEFFFFFFFFFFFFF),
    ("1.7976931348623159e308", "overflow"),
    ("1e309", "overflow"),
    ("1e400", "overflow"),
    ("-1e400", "overflow"),
    (
        "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589"
        "55863276687817154045895351438246423432132688946418276846754670353751698604991057655128"
        "20762454900903893289440758685084551339423045832369032229481658085593321233482747978262"
        "04144723168738177180919299881250404026184124858368",
        MAX_FINITE_BITS,
    ),
    ("1e-400", 0),
    ("-1e-400", NEG_ZERO_BITS),
    ("1e+99999999999999999999", "overflow"),
    ("-1e+99999999999999999999", "overflow"),
    ("1e-99999999999999999999", 0),
    ("-1e-99999999999999999999", NEG_ZERO_BITS),
    ("1E+0000000000000000000000000000000000000001", 0x4024000000000000),
    # significands at the edge of 64 bits
    ("18446744073709551615", 0x43F0000000000000),
    ("18446744073709551616", 0x43F0000000000000),
    ("9999999999999999999", 0x43E158E460913D00),
    ("10000000000000000000", 0x43E158E460913D00),
    ("9007199254740993", 0x4340000000000000),
    ("9007199254740995", 0x4340000000000002),
]


@pytest.mark.parametrize("token, want", EDGE_CASES, ids=[t[:40] for t, _ in EDGE_CASES])
def test_edge_cases(token, want):
    assert parse(token) == want
    assert by_float(token) == want  # the table itself is right


def test_signed_zero_has_the_sign_bit():
    for token in ("-0", "-0.0", "-0e5", "-0.0e-0", "-1e-400", "-0E+99999999999999999999999"):
        assert parse(token) == NEG_ZERO_BITS, token
        assert math.copysign(1.0, from_bits(parse(token))) == -1.0


@pytest.mark.parametrize(
    "token",
    [
        "",
        "-",
        "01",
        "-01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "1x",
        "--1",
        "1.5e3.0",
        "1..2",
        "1e5e5",
        "0x10",
        "NaN",
        "Infinity",
        " 1",
        "1 ",
        "1,5",
        "\u0661",
    ],
)
def test_tokens_outside_the_grammar_are_refused(token):
    # The caller checks the grammar; this only shows a wrong caller cannot make the reader
    # misbehave (no out-of-bounds read, no stored value).
    data = token.encode("utf-8")
    _out[0] = corpus.double_of(SENTINEL)
    assert lib.fjcs__parse_double(data, len(data), _out) == lib.FJCS_E_SYNTAX
    assert corpus.bits_of(_out[0]) == SENTINEL


def test_token_is_read_only_up_to_len():
    # No NUL terminator is needed and the bytes after len are never looked at.
    data = b"1.25e1XXXX"
    assert lib.fjcs__parse_double(data, 6, _out) == lib.FJCS_OK and _out[0] == 12.5
    assert lib.fjcs__parse_double(b"12345", 2, _out) == lib.FJCS_OK and _out[0] == 12.0


# ---- Clinger's range: significand <= 2^53, |exponent| <= 22 ----


@given(st.integers(0, 2**53), st.integers(-22, 22), st.integers(0, 16))
def test_clinger_range(w, q, shift):
    check(f"{w}e{q}")
    digits = str(w)
    if shift < len(digits) and digits[0] != "0":
        # The same value with the point moved into the digits.
        point = len(digits) - shift
        if point > 0:
            check(f"{digits[:point]}.{digits[point:]}e{q + shift}" if shift else digits)


@pytest.mark.parametrize(
    "token", ["123e30", "9007199254740992e22", "1e37", "99e35", "1e38", "9007199254740993e22", "4503599627370497e23"]
)
def test_clinger_extended_range(token):
    check(token)


# ---- Random doubles in their usual renderings ----

RENDERINGS: list[Callable[[float], str]] = [
    repr,
    lambda x: f"{x:.17g}",
    lambda x: f"{x:.25e}",
    lambda x: f"{x:.40e}",
    lambda x: f"{x:.16g}",
    lambda x: f"{x:.15g}",
]


@given(st.integers(0, 2**64 - 1))
@example(0x0000000000000001)
@example(0x000FFFFFFFFFFFFF)
@example(0x0010000000000000)
@example(MAX_FINITE_BITS)
@example(0x44B52D02C7E14AF6)
def test_random_doubles_round_trip(pattern):
    x = from_bits(pattern)
    if math.isnan(x) or math.isinf(x):
        return
    for render in RENDERINGS:
        token = render(x)
        assert parse(token) == by_float(token), token
    # The shortest and the 17-digit renderings read back to the double itself.
    assert parse(repr(x)) == pattern
    assert parse(f"{x:.17g}") == pattern


def test_many_random_doubles():
    # A fixed sweep on top of hypothesis' examples: 20,000 patterns, six renderings each.
    rnd = random.Random(8785)
    for _ in range(20000):
        x = corpus.random_double(rnd)
        for render in RENDERINGS:
            check(render(x))


# ---- Random digit strings with random exponents ----


@st.composite
def number_tokens(draw):
    sign = draw(st.sampled_from(["", "-"]))
    int_part = draw(st.one_of(st.just("0"), st.from_regex(r"\A[1-9][0-9]{0,40}\Z")))
    frac = draw(st.one_of(st.just(""), st.from_regex(r"\A\.[0-9]{1,40}\Z")))
    exp = draw(
        st.one_of(
            st.just(""),
            st.builds(
                lambda e, s, n: f"{e}{s}{n}",
                st.sampled_from("eE"),
                st.sampled_from(["", "+", "-"]),
                st.integers(0, 400),
            ),
        )
    )
    return sign + int_part + frac + exp


@given(number_tokens())
@example("0.000001")
@example("1.0e-7")
def test_random_digit_strings(token):
    want = by_float(token)
    assert parse(token) == want
    # The second oracle: exact rational arithmetic, rounded with integers only.
    value = Fraction(token)
    exact = round_fraction(abs(value))
    if token.startswith("-") and exact != "overflow":
        exact |= NEG_ZERO_BITS
    assert exact == want


# ---- Exact halfway cases, and the nudges that must break them ----


def halfway_expectation(bits: int) -> tuple[Outcome, Outcome, Outcome]:
    """(down neighbour, tie winner, up neighbour) for the midpoint above `bits`."""
    up: Outcome = bits + 1 if bits + 1 < 0x7FF0000000000000 else "overflow"
    tie = bits if bits % 2 == 0 else up
    return bits, tie, up


def assert_halfway(bits: int, places: int) -> None:
    down, tie, up = halfway_expectation(bits)
    exact = midpoint(bits)
    assert round_fraction(Fraction(exact)) == tie  # the two oracles agree on the construction
    assert parse(exact) == tie, exact
    assert parse(midpoint(bits, +1, places)) == up
    assert parse(midpoint(bits, -1, places)) == down


@given(st.integers(0, MAX_FINITE_BITS), st.sampled_from([1, 2, 17, 40, 300, 900]))
@example(0, 1)
@example(1, 900)
@example((1 << 52) - 1, 1)
@example(1 << 52, 1)
@example(MAX_FINITE_BITS - 1, 1)
@example(MAX_FINITE_BITS, 1)
@example(MAX_FINITE_BITS, 900)
@example(0x3FEFFFFFFFFFFFFF, 1)
def test_halfway_normal(bits, places):
    assert_halfway(bits, places)


@given(st.integers(0, (1 << 52) - 1), st.sampled_from([1, 2, 17, 40, 300, 900]))
def test_halfway_subnormal(bits, places):
    assert_halfway(bits, places)


def test_halfway_rendered_with_a_point():
    # The same midpoints written as plain decimals ("0.000...") and negative.
    rnd = random.Random(1075)
    for bits in [0, 1, 5, (1 << 52) - 1, 1 << 52] + [
        rnd.randrange(0x3C00000000000000, 0x4400000000000000) for _ in range(300)
    ]:
        digits, exp = corpus.midpoint_digits(bits)
        text = str(digits)
        if exp < 0:
            whole, frac = (text[:exp], text[exp:]) if len(text) > -exp else ("0", "0" * (-exp - len(text)) + text)
            token = f"{whole or '0'}.{frac}"
        else:
            token = text
        _, tie, _ = halfway_expectation(bits)
        assert parse(token) == tie, token
        assert parse("-" + token) == tie | NEG_ZERO_BITS


def test_overflow_threshold_is_a_tie_to_infinity():
    # 2^1024 - 2^970 is halfway between DBL_MAX (odd mantissa) and 2^1024: IEEE rounds it up,
    # to infinity; one unit less in any digit stays at DBL_MAX.
    threshold = 2**1024 - 2**970
    assert parse(str(threshold)) == "overflow"
    assert parse(str(threshold - 1)) == MAX_FINITE_BITS
    assert parse(f"{threshold * 10**50 - 1}e-50") == MAX_FINITE_BITS
    assert parse(f"{threshold}{'0' * 1000}e-1000") == "overflow"


def test_smallest_subnormal_threshold():
    # 2^-1075 is halfway between 0 (even) and 2^-1074: it rounds to 0; anything above to 5e-324.
    half = Fraction(1, 2**1075)
    digits, exp = half.numerator * 5**1075, -1075
    assert parse(f"{digits}e{exp}") == 0
    assert parse(f"{digits}0000000000001e{exp - 13}") == 1
    assert parse(f"{digits - 1}9999999999999e{exp - 13}") == 0
    assert parse(f"{digits}{'0' * 5000}1e{exp - 5001}") == 1


def test_kept_digit_bound_suffices():
    # number_parse.c keeps FJCS_PARSE_MAX_DIGITS significant digits and argues that 768 are
    # enough: the last kept digit, 10^(L - N + 1), must not be above the last digit 10^g of any
    # midpoint h 2^g (h < 2^54) within a few ulps of the value (so below 2^(g + 55)). Checked
    # here over every binary exponent, with L the exact floor(log10(2^(g + 55))).
    def floor_log10_pow2(x: int) -> int:
        if x >= 0:
            return len(str(2**x)) - 1
        return len(str(5**-x)) - 1 + x  # 2^x = 5^-x / 10^-x

    needed = max(floor_log10_pow2(g + 55) - g + 1 for g in range(-1075, 971))
    assert needed == 768
    source = (ROOT / "csrc" / "fjcs_config.h").read_text(encoding="utf-8")  # every switch's default
    kept = int(re.search(r"#define FJCS_PARSE_MAX_DIGITS (\d+)", source).group(1))
    assert kept >= needed


# ---- Significands of 19 and 20 digits: the truncation boundary of the 64-bit w ----


@pytest.mark.parametrize("base", [10**18, 10**19, 2**63, 2**64, 10**19 - 10**3])
@pytest.mark.parametrize("exp", ["", "e-5", "e-22", "e-300", "e-330", "e20", "e288"])
def test_significands_near_19_digits(base, exp):
    for delta in range(-200, 201):
        check(f"{base + delta}{exp}")


@given(st.integers(10**18, 10**20 - 1), st.integers(-340, 300))
def test_random_19_and_20_digit_significands(w, q):
    check(f"{w}e{q}")
    check(f"{w}.{w % 1000}e{q}")


def test_20_digit_truncation_straddles_a_midpoint():
    # The first 19 digits round one way and the 20th pulls across the midpoint: w and w + 1
    # disagree, so only the exact path can answer.
    rnd = random.Random(19)
    for _ in range(500):
        bits = rnd.randrange(0x3FF0000000000000, 0x4340000000000000)
        digits, exp = corpus.midpoint_digits(bits)
        text = str(digits)
        for cut in (19, 20, 21):
            for nudge in (0, 1, -1):
                token = f"{int(text[:cut]) + nudge}e{exp + len(text) - cut}"
                check(token)


# ---- Powers of ten, spelled several ways ----


def test_powers_of_ten_spelled_several_ways():
    for k in range(-350, 311):
        want = by_float(f"1e{k}")
        spellings = [
            f"1e{k}",
            f"10e{k - 1}",
            f"0.1e{k + 1}",
            f"1E{k:+d}",
            f"100e{k - 2}",
            f"0.01e{k + 2}",
            f"1.000e{k}",
            f"-1e{k}",
        ]
        spellings.append(("0." + "0" * (-k - 1) + "1") if k < 0 else "1" + "0" * k)
        for token in spellings:
            got = parse(token)
            if token.startswith("-"):
                assert got == (want if want == "overflow" else want | NEG_ZERO_BITS), token
            else:
                assert got == want, token
    assert parse("0.00001") == parse("1e-5") == parse("10e-6") == parse("0.1e-4") == corpus.bits_of(1e-5)


# ---- Long tokens: linear time, bounded memory ----

LONG = 100_000


@pytest.mark.parametrize(
    "token_fn, want",
    [
        (lambda: "1" + "0" * LONG, "overflow"),
        (lambda: "1" + "0" * LONG + "e-100000", 0x3FF0000000000000),
        (lambda: "1" + "0" * LONG + "e-99999999999999999999", 0),
        (lambda: "0." + "0" * LONG + "1", 0),
        (lambda: "0." + "0" * LONG + "1e100001", 0x3FF0000000000000),
        (lambda: "0." + "0" * LONG + "15e100001", 0x3FF8000000000000),
        (lambda: "0." + "3" * LONG, corpus.bits_of(1 / 3)),
        (lambda: "3" * LONG + "e-100000", corpus.bits_of(1 / 3)),
        (lambda: "1e" + "9" * LONG, "overflow"),
        (lambda: "1e-" + "9" * LONG, 0),
        (lambda: "1e+" + "0" * LONG + "5", 0x40F86A0000000000),
        (lambda: "-0." + "0" * LONG, NEG_ZERO_BITS),
    ],
    ids=[
        "int-1e100000",
        "int-scaled-back",
        "int-huge-negative-exp",
        "fraction-zeros",
        "fraction-zeros-scaled",
        "fraction-zeros-1.5",
        "fraction-thirds",
        "int-thirds",
        "exp-digits",
        "neg-exp-digits",
        "exp-leading-zeros",
        "negative-zero",
    ],
)
def test_long_tokens(token_fn, want):
    token = token_fn()
    assert parse(token) == want
    if len(token) < 3 * LONG and "e" + "9" * 10 not in token:
        assert by_float(token) == want


def test_long_token_decided_by_a_far_digit():
    # A midpoint followed by 10^5 zeros and a 1 (sticky -> up), or cut just below (down).
    bits = corpus.bits_of(1.5)
    digits, exp = corpus.midpoint_digits(bits)
    assert parse(f"{digits}{'0' * LONG}1e{exp - LONG - 1}") == bits + 1
    assert parse(f"{digits - 1}{'9' * LONG}e{exp - LONG}") == bits
    assert parse(f"{digits}{'0' * LONG}e{exp - LONG}") == bits  # the tie, to even


def test_random_long_tokens():
    rnd = random.Random(100)
    for _ in range(40):
        n = rnd.randint(800, 3000)
        digits = str(rnd.randint(1, 9)) + corpus.random_digits(rnd, n)
        exp = rnd.randint(-n - 330, -n + 300)
        check(f"{digits}e{exp}")
        check(f"0.{digits}e{exp + n + 1}")


# ---- Which path decided: the test build of tests/c/parse_check.c ----

PATHS = ["zero", "range", "clinger", "el", "el_wide", "exact_ambiguous", "exact_truncated"]

PATH_CASES = [
    ("0", "zero"),
    ("-0.0e5", "zero"),
    ("0e99999", "zero"),
    ("1e-400", "range"),
    ("1e400", "range"),
    ("1e+99999999999999999999", "range"),
    ("1.5", "clinger"),
    ("0.1", "clinger"),
    ("123e30", "clinger"),
    ("-9007199254740992", "clinger"),
    ("1.7976931348623157e308", "el"),
    ("5e-324", "el"),
    ("0.30000000000000004", "el"),
    ("12345678901234567890123", "el"),
    # An exact tie with an exact product: stage 2 sees R == 0 and rounds to even.
    ("9007199254740993", "el_wide"),
    # A tie with an inexact power of five (q < 0): the product cannot tell, the exact path can.
    ("9007199254740993.0", "exact_ambiguous"),
    ("9007199254740995.0", "exact_ambiguous"),
    # The first 19 digits of a 55-digit midpoint round down, w + 1 rounds up.
    (midpoint(0x3FF8000000000000), "exact_truncated"),
    (midpoint(0x3FF8000000000000, 1, 30), "exact_truncated"),
]


def _compiler() -> str | None:
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


@pytest.fixture(scope="module")
def parse_check(tmp_path_factory):
    cc = _compiler()
    if cc is None:
        if REQUIRE_NATIVE:
            pytest.fail("no C compiler to build tests/c/parse_check.c")
        pytest.skip("no C compiler to build tests/c/parse_check.c")
    exe = tmp_path_factory.mktemp("parse_check") / "parse_check"
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{ROOT / 'csrc'}",
            str(ROOT / "tests" / "c" / "parse_check.c"),
            "-o",
            str(exe),
        ],
        check=True,
    )
    return exe


def driver_paths(exe: Path, tokens: list[str]) -> list[tuple[str, Outcome]]:
    proc = subprocess.run(
        [str(exe), "--paths"], input="\n".join(tokens) + "\n", text=True, capture_output=True, check=True
    )
    rows = []
    for line in proc.stdout.splitlines():
        path, result = line.split()
        rows.append((path, result if result in ("overflow", "syntax") else int(result, 16)))
    assert len(rows) == len(tokens)
    return rows


@pytest.mark.parametrize("token, path", PATH_CASES, ids=[f"{p}:{t[:24]}" for t, p in PATH_CASES])
def test_path_that_decides(parse_check, token, path):
    [(got_path, got)] = driver_paths(parse_check, [token])
    assert got_path == path
    assert got == parse(token) == by_float(token)


def test_this_module_exercises_every_path(parse_check):
    # The deterministic tokens above, through the hook build: every path decides some of them,
    # and the driver agrees with the extension on each.
    tokens = [t for t, _ in EDGE_CASES] + [t for t, _ in MUTANT_CASES] + [t for t, _ in PATH_CASES]
    rnd = random.Random(5)
    for _ in range(300):
        bits = rnd.randrange(0, MAX_FINITE_BITS)
        tokens += [midpoint(bits), midpoint(bits, 1, 30), midpoint(bits, -1, 900)]
        x = corpus.random_double(rnd)
        tokens += [repr(x), f"{x:.17g}", f"{x:.40e}", "%.3f" % (rnd.random() * 1000)]
    seen: dict[str, int] = {}
    for token, (path, result) in zip(tokens, driver_paths(parse_check, tokens)):
        seen[path] = seen.get(path, 0) + 1
        assert result == parse(token), token
    assert set(PATHS) <= set(seen), f"paths never taken: {set(PATHS) - set(seen)}"


def test_sanitizer_corpus_with_exact_path_only(parse_check, tmp_path):
    # The same driver with paths 1 and 2 compiled out, and the portable helpers (no __int128, no
    # builtins, no eight-digit loads): the exact path alone must agree with float() on a slice
    # of the sanitizer corpus (the full corpus runs in run_parse_sanitized.sh).
    cc = _compiler()
    exe = tmp_path / "parse_check_exact"
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-DFJCS_PARSE_CLINGER=0",
            "-DFJCS_PARSE_EISEL_LEMIRE=0",
            "-DFJCS_HAVE_INT128=0",
            "-DFJCS_HAVE_BUILTINS=0",
            "-DFJCS_PARSE_SWAR=0",
            f"-I{ROOT / 'csrc'}",
            str(ROOT / "tests" / "c" / "parse_check.c"),
            "-o",
            str(exe),
        ],
        check=True,
    )
    lines = []
    for i, token in enumerate(corpus.corpus(1, 7)):
        if i % 20 == 0 and len(token) < 5000:
            lines.append(f"{token},{corpus.expected(token)}")
    proc = subprocess.run(
        [str(exe), "--require-paths", "exact_forced"], input="\n".join(lines) + "\n", text=True, capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
