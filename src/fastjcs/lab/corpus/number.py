"""Number categories (RFC 8785 3.2.2.3) and `es6_layout`, the ES6 number rules written
independently of fastjcs."""

from __future__ import annotations

import math
import random
import re
import struct
from collections.abc import Sequence
from fractions import Fraction

from .cases import _NUM, CorpusCheckError, _category, _lists, _Raw

# ---------------------------------------------------------------------------------------------------
# The ES6 number layout, from ECMA-262 Number::toString (RFC 8785 section 3.2.2.3)
# ---------------------------------------------------------------------------------------------------


def es6_layout(x: float) -> str:
    """The ECMAScript Number::toString of a finite double, written from the ECMA-262 rules over
    Python's repr() (the shortest digits that read back to x): with s the k significant digits
    and n the decimal exponent (x = s * 10^(n-k)), plain digits for k <= n <= 21, a decimal point
    inside for 0 < n <= 21, "0.000ddd" for -6 < n <= 0, else d.ddde+/-(n-1). Independent of
    fastjcs: it checks fastjcs's answers.

    >>> [es6_layout(v) for v in (1e21, 1e20, 1e-7, 1e-6, -0.0, 123.0, 5e-324)]
    ['1e+21', '100000000000000000000', '1e-7', '0.000001', '0', '123', '5e-324']
    """
    if not math.isfinite(x):
        raise ValueError(f"no ES6 layout for {x!r}")
    if x == 0:
        return "0"
    if x < 0:
        return "-" + es6_layout(-x)
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    significant = digits.lstrip("0")
    n = len(whole) + int(exponent or 0) - (len(digits) - len(significant))
    s = significant.rstrip("0")
    k = len(s)
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + s
    e = f"e{'+' if n > 1 else '-'}{abs(n - 1)}"
    return s + e if k == 1 else f"{s[0]}.{s[1:]}{e}"


# --- numbers ------------------------------------------------------------------------------------

_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# (document prefix, suffix, canonical prefix, suffix): no digit outside the number token, so the
# token is the only number of the document.
_NUMBER_SLOTS = [
    (b"", b"", b"", b""),
    (b" ", b"\n", b"", b""),
    (b"[", b"]", b"[", b"]"),
    (b"[true, ", b" ,null]", b"[true,", b",null]"),
    (b'{"n":', b"}", b'{"n":', b"}"),
    (b'{"z":[', b'],"a":"x"}', b'{"a":"x","z":[', b"]}"),
    (b'[{"v" : ', b" }]", b'[{"v":', b"}]"),
    (b'{"a":{"b":[[', b"]]}}", b'{"a":{"b":[[', b"]]}}"),
]
#: The overflow threshold: the largest double plus half its spacing; a decimal at or above it
#: rounds (to even) to infinity.
_OVERFLOW = Fraction(2**1024 - 2**970)


def _number(rng: random.Random, token: str, valid: bool, note: str) -> _Raw:
    """A document holding the number token in a random slot; for a valid token, its whole
    canonical document (the slot's canonical frame around es6_layout(float(token)))."""
    pre, post, cpre, cpost = rng.choice(_NUMBER_SLOTS)
    text = pre + token.encode("utf-8") + post
    if not valid:
        return text, False, note, None
    if not _JSON_NUMBER.fullmatch(token):
        raise CorpusCheckError(f"generator bug: {token!r} is meant valid but is no JSON number")
    x = float(token)
    if not math.isfinite(x):
        raise CorpusCheckError(f"generator bug: {token!r} is meant valid but overflows")
    return text, True, note, cpre + es6_layout(x).encode("ascii") + cpost


def _exponent(rng: random.Random, e: int) -> str:
    sign = "-" if e < 0 else rng.choice(("", "+"))
    return rng.choice("eE") + sign + rng.choice(("", "", "", "0", "00")) + str(abs(e))


def _spell(rng: random.Random, digits: int, e: int, negative: bool = False) -> str:
    """A JSON number token for digits * 10^e, in a random legal spelling."""
    ds = str(digits)
    n = len(ds)
    styles = ["sci", "int"]
    if -30 <= e and n + e <= 40:
        styles += ["plain", "plain"]
    style = rng.choice(styles)
    if style == "sci":
        body = ds[0] + ("." + ds[1:] if n > 1 else "") + _exponent(rng, e + n - 1)
    elif style == "int":
        body = ds + (_exponent(rng, e) if e else "")
    elif e >= 0:
        body = ds + "0" * e
    elif n + e > 0:
        body = ds[: n + e] + "." + ds[n + e :]
    else:
        body = "0." + "0" * -(n + e) + ds
    return ("-" if negative else "") + body


def _decimal(value: Fraction) -> tuple[int, int]:
    """(D, E) with value == D * 10^E exactly and D not a multiple of 10 (value > 0, its
    denominator a power of two)."""
    j = value.denominator.bit_length() - 1
    d, e = value.numerator * 5**j, -j
    while d % 10 == 0:
        d //= 10
        e += 1
    return d, e


def _random_double(rng: random.Random) -> float:
    """A positive finite double at a magnitude drawn to favour the interesting ranges."""
    r = rng.random()
    if r < 0.05:  # subnormal
        return struct.unpack("<d", struct.pack("<Q", rng.randrange(1, 1 << 52)))[0]
    lo, hi = (-30, 70) if r < 0.65 else (53, 90) if r < 0.85 else (900, 1023) if r < 0.92 else (-1022, -900)
    return math.ldexp(1 + rng.getrandbits(52) / 2**52, rng.randint(lo, hi))


def _midpoint(rng: random.Random) -> tuple[Fraction, float, float]:
    """A decimal exactly halfway between two adjacent finite doubles, and the two."""
    while True:
        x = _random_double(rng)
        y = math.nextafter(x, math.inf if rng.random() < 0.5 else 0.0)
        if math.isfinite(y) and y > 0:
            return (Fraction(x) + Fraction(y)) / 2, x, y


@_category(
    "number-halfway",
    _NUM,
    "decimal tokens exactly halfway between two adjacent doubles (rounded half to even), "
    "at every magnitude, in random spellings",
)
def _number_halfway(rng: random.Random) -> _Raw:
    m, x, y = _midpoint(rng)
    token = _spell(rng, *_decimal(m), negative=rng.random() < 0.3)
    return _number(rng, token, True, f"exactly halfway between {x!r} and {y!r}")


@_category(
    "number-nearhalf",
    _NUM,
    "tokens one unit in the last digit above or below a halfway decimal, or past it by a "
    "long tail of zeros and a 1 (or nines)",
)
def _number_nearhalf(rng: random.Random) -> _Raw:
    m, x, y = _midpoint(rng)
    d, e = _decimal(m)
    kind = rng.randrange(4)
    if kind == 0 or (kind == 1 and d == 1):
        d, what = d + 1, "one unit above"
    elif kind == 1:
        d, what = d - 1, "one unit below"
    else:
        t = rng.randint(1, 20)
        d, e = d * 10**t + (1 if kind == 2 else -1), e - t
        what = "a long tail above" if kind == 2 else "a long tail below"
    token = _spell(rng, d, e, negative=rng.random() < 0.3)
    return _number(rng, token, True, f"{what} the midpoint of {x!r} and {y!r}")


@_category("number-digits", _NUM, "tokens of 17 to 40 significant digits, read correctly rounded, rendered shortest")
def _number_digits(rng: random.Random) -> _Raw:
    n = rng.randint(17, 40)
    d = rng.randrange(10 ** (n - 1), 10**n)
    e = rng.randint(-40, 10) if rng.random() < 0.85 else rng.randint(-340, 307 - n)
    return _number(rng, _spell(rng, d, e, rng.random() < 0.3), True, f"{n} significant digits")


@_category(
    "number-bits",
    _NUM,
    "doubles of uniformly random 64-bit patterns (every exponent equally likely, subnormals "
    "included), written shortest or with 17 significant digits",
)
def _number_bits(rng: random.Random) -> _Raw:
    while True:
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(x):
            break
    token = repr(x) if rng.random() < 0.5 else f"{x:.16e}"
    return _number(rng, token, True, f"bits {struct.unpack('<Q', struct.pack('<d', x))[0]:016x}")


_BOUNDARY_TOKENS = [
    "5e-324",
    "4.9406564584124654e-324",
    "3e-324",
    "2.4703282292062328e-324",
    "2.4703282292062327e-324",
    "1e-324",
    "2.225073858507201e-308",
    "2.2250738585072009e-308",
    "2.2250738585072014e-308",
    "2.2250738585072011e-308",
    "2.2250738585072012e-308",
    "1.7976931348623157e308",
    "1.7976931348623157E+308",
    "1.7976931348623158e308",
    "4.4501477170144023e-308",
    "1e-323",
    "1e-310",
]


@_category(
    "number-boundary", _NUM, "subnormals, the smallest and largest normal and their neighbours, underflow to zero"
)
def _number_boundary(rng: random.Random) -> _Raw:
    r = rng.random()
    if r < 0.3:
        token = rng.choice(_BOUNDARY_TOKENS)
        return _number(rng, ("-" if rng.random() < 0.3 else "") + token, True, "a named boundary")
    if r < 0.7:
        x = struct.unpack("<d", struct.pack("<Q", rng.randrange(1, 1 << 52)))[0]
        what = "a subnormal"
    else:
        x = rng.choice((2.2250738585072014e-308, 1.7976931348623157e308, 5e-324))
        for _ in range(rng.randint(0, 3)):
            x = math.nextafter(x, 0.0)
        what = "near the smallest normal, the largest double or the smallest subnormal"
    # Fewer than 17 digits could round past the largest double: only subnormals get them.
    places = rng.randint(0 if x < 2.2250738585072014e-308 else 16, 24)
    spelling = repr(x) if rng.random() < 0.5 else f"{x:.{places}e}"
    return _number(rng, ("-" if rng.random() < 0.3 else "") + spelling, True, what)


# (token, below the threshold); the threshold's own digits round to even, that is to infinity.
_OVERFLOW_TOKENS = [
    (t, False)
    for t in (
        "1e400",
        "1E400",
        "1e309",
        "2e308",
        "1.8e308",
        "1e+400",
        "1000e306",
        str(2**1024),
        str(2**1024 - 2**970),
        "1.797693134862315807937289714054e308",
        "1e99999999999999999999",
        "123e18446744073709551617",
    )
] + [
    (t, True)
    for t in (
        "0e99999999999999999999",
        "1e-99999999999999999999",
        "1e-18446744073709551617",
        "100e306",
        str(2**1024 - 2**970 - 1),
        "1.7976931348623158e308",
        "1.797693134862315807937289714053e308",
    )
]


@_category(
    "number-overflow",
    f"{_NUM}; RFC 7493 2.2",
    "tokens at or beyond the overflow threshold (1e400, 2^1024, exponents past 64 bits) "
    "must be refused, never rendered as Infinity or null; just below it they are valid",
)
def _number_overflow(rng: random.Random) -> _Raw:
    if rng.random() < 0.3:
        token, valid = rng.choice(_OVERFLOW_TOKENS)
    else:
        n = rng.randint(1, 25)
        d = rng.randrange(10 ** (n - 1), 10**n)
        e = rng.randint(306, 309) - n + 1
        if rng.random() < 0.3:  # within a few units in the 310th digit of the threshold
            d, e = _decimal(_OVERFLOW)
            d, e = d * 10 + rng.randint(-9, 9), e - 1
        token, valid = _spell(rng, d, e), Fraction(d) * Fraction(10) ** e < _OVERFLOW
    token = ("-" if rng.random() < 0.4 else "") + token
    return _number(rng, token, valid, "below the overflow threshold" if valid else "overflows")


@_category("number-zero", _NUM, "minus zero in every spelling (-0, -0.0, -0e5, -0E-0...) and negative underflow: all 0")
def _number_zero(rng: random.Random) -> _Raw:
    if rng.random() < 0.15:
        token = rng.choice(("-1e-400", "-4e-325", "-2.4703282292062327e-324", "-0e-400"))
        return _number(rng, token, True, "a negative number that underflows to -0")
    token = rng.choice(("-0", "-0", "0"))
    if rng.random() < 0.6:
        token += "." + "0" * rng.randint(1, 20)
    if rng.random() < 0.6:
        token += _exponent(rng, rng.randint(-400, 400))
    return _number(rng, token, True, "a spelling of (minus) zero")


@_category(
    "number-integer",
    f"{_NUM}; RFC 7493 2.2",
    "exact integer tokens at and above 2^53, 2^63, 2^64 (rounded to a double, rendered in "
    "ES6 layout) and long random integers",
)
def _number_integer(rng: random.Random) -> _Raw:
    if rng.random() < 0.6:
        base = rng.choice((2**53, 2**53, 2**63, 2**63, 2**64, 2**64, 2**68, 10**21, 10**20, 2**72))
        i = base + rng.randint(-4, 4)
    else:
        i = rng.randrange(10**15, 10 ** rng.randint(17, 30))
    note = f"integer {'-' if i < 0 else ''}{i}" if i < 10**22 else f"{len(str(i))}-digit integer"
    return _number(rng, ("-" if rng.random() < 0.3 else "") + str(i), True, note)


_BAD_NUMBERS = [
    "01",
    "-01",
    "00",
    "00.5",
    "+1",
    ".5",
    "-.5",
    "1.",
    "1.e3",
    "1e",
    "1e+",
    "1E-",
    "-",
    "--1",
    "0x1F",
    "1_000",
    "1e1_0",
    "0_1",
    "1.5.2",
    "1e5.2",
    "- 1",
    "0.e1",
    "1ee2",
    "Inf",
    "\u0661",
    "012e3",
    "1e+-2",
    "0b1",
    "1.0f",
    "2.",
    "-0x0",
]


@_category(
    "number-spelling",
    "RFC 8259 6",
    "legal spellings (E, e+, e-, zero-padded exponents, long fractions, trailing zeros) and "
    "illegal ones (leading zeros, a plus sign, a bare point, hex, missing digits)",
)
def _number_spelling(rng: random.Random) -> _Raw:
    if rng.random() < 0.55:
        x = _random_double(rng) if rng.random() < 0.7 else float(rng.randint(0, 10**6))
        d, e = _decimal(Fraction(x)) if x else (0, 0)
        if rng.random() < 0.5 and d:  # trailing zeros
            t = rng.randint(1, 8)
            d, e = d * 10**t, e - t
        token = _spell(rng, d, e, rng.random() < 0.3)
        return _number(rng, token, True, "a legal spelling")
    bad = rng.choice(_BAD_NUMBERS)
    if rng.random() < 0.5 and bad[:1] in "0-1.+":  # vary the digits after the faulty start
        bad += str(rng.randint(0, 999)) if bad[-1:].isdigit() else ""
    return _number(rng, bad, False, f"illegal spelling {bad!r}")


@_category(
    "number-layout",
    _NUM,
    "the plain/exponent boundaries of the ES6 layout: 1e20 vs 1e21, 1e-6 vs 1e-7, "
    "21-digit integers, 1 to 17 digits at every decimal exponent from -9 to 24",
)
def _number_layout(rng: random.Random) -> _Raw:
    if rng.random() < 0.3:
        token = rng.choice(_LAYOUT_TOKENS)
        return _number(rng, token, True, "a named layout boundary")
    k = rng.randint(1, 17)
    d = rng.randrange(10 ** (k - 1), 10**k)
    while d % 10 == 0:
        d //= 10
    n = rng.randint(-9, 24)
    token = _spell(rng, d, n - len(str(d)), rng.random() < 0.3)
    return _number(rng, token, True, f"decimal exponent n={n}")


def _in_array(token: str, valid: bool, note: str) -> _Raw:
    """`[token]`, with its independently rebuilt canonical form when valid."""
    text = f"[{token}]".encode()
    if not valid:
        return text, False, note, None
    if not _JSON_NUMBER.fullmatch(token) or not math.isfinite(float(token)):
        raise CorpusCheckError(f"generator bug: {token!r} is meant valid but is no finite JSON number")
    return text, True, note, b"[" + es6_layout(float(token)).encode("ascii") + b"]"


#: The decimal sweep: k x 10^e for every k and e below (both signs in one document).
SWEEP_DIGITS = range(1, 100)
SWEEP_EXPONENTS = range(-330, 310)


@_lists(
    "number-sweep",
    _NUM,
    "every k x 10^e for k = 1..99 and e = -330..309, both signs: one document per exponent of "
    "its finite values `[1eE,-1eE,2eE,...]`, and each value past the largest double alone "
    "(refused): short digits at every exponent, subnormals and underflow to 0 included",
)
def _list_number_sweep(rng: random.Random) -> Sequence[_Raw]:
    out: list[_Raw] = []
    for e in SWEEP_EXPONENTS:
        tokens, layouts = [], []
        for k in SWEEP_DIGITS:
            token = f"{k}e{e}"
            x = float(token)  # Python reads it correctly rounded: inf past the threshold
            for sign in ("", "-"):
                if math.isfinite(x):
                    tokens.append(sign + token)
                    layouts.append(es6_layout(-x if sign else x))
                else:
                    out.append((f"[{sign}{token}]".encode("ascii"), False, f"{sign}{k} x 10^{e} overflows", None))
        if tokens:
            text = ("[" + ",".join(tokens) + "]").encode("ascii")
            out.append(
                (text, True, f"k x 10^{e}, k = 1..99, both signs", ("[" + ",".join(layouts) + "]").encode("ascii"))
            )
    return out


@_lists("number-spelling")
def _list_number_spelling(rng: random.Random) -> Sequence[_Raw]:
    legal = ["1E2", "1e+2", "1e-2", "1e002", "1E-002", "1.50", "0.0", "0e0", "-0.5e-0", "10.000e-1"]
    return [_in_array(t, True, f"legal spelling {t!r}") for t in legal] + [
        _in_array(t, False, f"illegal spelling {t!r}") for t in _BAD_NUMBERS
    ]


@_lists("number-boundary")
def _list_number_boundary(rng: random.Random) -> Sequence[_Raw]:
    return [_in_array(s + t, True, f"named boundary {s}{t}") for t in _BOUNDARY_TOKENS for s in ("", "-")]


@_lists("number-overflow")
def _list_number_overflow(rng: random.Random) -> Sequence[_Raw]:
    return [
        _in_array(s + t, valid, f"{s}{t[:40]} {'below' if valid else 'at or above'} the threshold")
        for t, valid in _OVERFLOW_TOKENS
        for s in ("", "-")
    ]


_ZERO_TOKENS = [
    "-0",
    "-0.0",
    "-0e5",
    "-0E-0",
    "-0.000e+400",
    "0e-400",
    "-1e-400",
    "-4e-325",
    "-2.4703282292062327e-324",
]
_LAYOUT_TOKENS = [
    "1e21",
    "1e20",
    "1e-7",
    "1e-6",
    "999999999999999999999",
    "100000000000000000000",
    "123456789012345678901",
    "0.000001",
    "0.0000001",
    "9.999999999999999e-7",
    "0.0000012345",
    "1.2345e-7",
    "999999999999999868928",
    "999999999999999868929",
    "1e+21",
    "1E20",
]
_INTEGER_TOKENS = [str(b + d) for b in (2**53, 2**63, 2**64, 10**21) for d in (-1, 0, 1)]


@_lists("number-zero")
def _list_number_zero(rng: random.Random) -> Sequence[_Raw]:
    return [_in_array(t, True, f"zero spelled {t}") for t in _ZERO_TOKENS]


@_lists("number-layout")
def _list_number_layout(rng: random.Random) -> Sequence[_Raw]:
    return [_in_array(s + t, True, f"layout boundary {s}{t}") for t in _LAYOUT_TOKENS for s in ("", "-")]


@_lists("number-integer")
def _list_number_integer(rng: random.Random) -> Sequence[_Raw]:
    return [_in_array(s + t, True, f"integer {s}{t}") for t in _INTEGER_TOKENS for s in ("", "-")]
