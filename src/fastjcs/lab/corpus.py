"""Corpora for the interop lab: documents to put to a canonicalizer, each with the answer it owes.

A `Case` is one document (bytes, possibly invalid UTF-8), the category and the RFC clause it
tests, and its expected canonical bytes (None: it must be refused). Four sources, all deterministic:

- `generate(seed, per_category)`: documents by category (`CATEGORIES`): number spellings and
  boundaries, strings, member order, structure, whitespace, syntax errors; valid and invalid. The
  expected bytes are fastjcs's, and they are checked as they are made: every case's validity must
  match what its category meant it to be, and every number case's whole canonical document is
  rebuilt independently (`es6_layout` over Python's shortest round-trip digits); a mismatch raises
  `CorpusCheckError` rather than yield a wrong expectation.
- `vector_cases(paths)`: the repository's JCS vectors (vectors/rfc8785, text-canonical,
  text-must-fail), expected bytes read from the vector files.
- `es6_cases(lines)`: the ES6 number corpus (its bit patterns are defined here), checked line by
  line against `es6_layout` and against the published SHA-256 at every published count it reaches.
- `user_cases(path)`: a JSON Lines file (a document per line) or a folder (a document per file).

`load` combines them from source names ("gen", "vectors", "es6:N", a path).
"""

from __future__ import annotations

import json
import math
import random
import re
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Optional

import fastjcs

from ..core.hashing import hash_module

#: The ES6 corpus's hash: its chain of blocks and its published digests (pycryptodome's SHA-256)
_SHA256 = hash_module("sha256")


@dataclass(frozen=True)
class Case:
    """One document for a canonicalizer, with the answer it owes."""

    id: str  # stable and unique in a run, e.g. "gen/number-halfway/17"
    category: str  # e.g. "number-halfway"; its family is category.split("-")[0]
    clause: str  # the clause it tests, e.g. "RFC 8785 3.2.2.3"
    text: bytes  # the document put to the peer
    expected: bytes | None  # the canonical bytes; None: the document must be refused
    note: str = ""  # one line: what the case is about
    #: non-empty when fastjcs refuses the document only for one of its own limits (its default
    #: depth): no RFC sets that limit, so a peer may refuse it too (class `limit`, not a failure)
    #: or give `expected`, the canonical bytes without the limit
    limit: str = ""


class CorpusError(ValueError):
    """A corpus cannot be loaded (a missing path, an empty corpus, an unknown source)."""


class CorpusCheckError(RuntimeError):
    """An expected answer failed its independent check: a bug in the generator or in fastjcs."""


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


# ---------------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------------

_NUM = "RFC 8785 3.2.2.3"
_STR = "RFC 8785 3.2.2.2"
_SORT = "RFC 8785 3.2.3"

#: A raw generated case: text, meant to be valid, note, the whole canonical document when it is
#: known independently of fastjcs (number cases), else None.
_Raw = tuple[bytes, bool, str, Optional[bytes]]
_Maker = Callable[[random.Random], _Raw]
#: The listed cases of a category: every entry of its lists once, whatever the seed.
_Lister = Callable[[random.Random], Sequence[_Raw]]


@dataclass(frozen=True)
class _Category:
    clause: str
    description: str
    make: _Maker | None  # None: a category of listed cases only
    cap: int | None = None  # at most this many sampled cases per run (big documents)
    listed: _Lister | None = None


_REGISTRY: dict[str, _Category] = {}


def _category(name: str, clause: str, description: str, cap: int | None = None) -> Callable[[_Maker], _Maker]:
    def register(make: _Maker) -> _Maker:
        _REGISTRY[name] = _Category(clause, description, make, cap)
        return make

    return register


def _lists(name: str, clause: str = "", description: str = "") -> Callable[[_Lister], _Lister]:
    """Register the listed cases of a category (a new one of listed cases only when a clause is
    given): they come first in every run, each entry once, whatever the seed or --per-category."""

    def register(listed: _Lister) -> _Lister:
        old = _REGISTRY.get(name)
        if old is None:
            _REGISTRY[name] = _Category(clause, description, None, None, listed)
        else:
            _REGISTRY[name] = _Category(old.clause, old.description, old.make, old.cap, listed)
        return listed

    return register


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


# --- strings ------------------------------------------------------------------------------------

_FILLER = "abcxyzAZ09 é€-_"
_SHORT_ESCAPES = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"}
# (document prefix, suffix) around a JSON string token: top level, value, element, member name.
_STRING_SLOTS = [
    (b"", b""),
    (b"[", b"]"),
    (b'{"k":', b"}"),
    (b"{", b":0}"),
    (b"[1,{", b":[]}]"),
    (b'{"a":[', b',"x"]}'),
    (b" ", b"\n"),
]


def _hex4(rng: random.Random, cp: int) -> str:
    h = f"{cp:04x}"
    return "\\u" + "".join(c.upper() if rng.random() < 0.5 else c for c in h)


def _escape(rng: random.Random, ch: str) -> str:
    """ch as a \\u escape (a surrogate pair beyond the BMP), in random hex case."""
    cp = ord(ch)
    if cp < 0x10000:
        return _hex4(rng, cp)
    cp -= 0x10000
    return _hex4(rng, 0xD800 + (cp >> 10)) + _hex4(rng, 0xDC00 + (cp & 0x3FF))


def _jstr(rng: random.Random, s: str, escape: float = 0.0) -> bytes:
    """s as a JSON string token; characters that must be escaped are (short forms or \\u00xx),
    any other one with probability `escape`."""
    out = []
    for ch in s:
        cp = ord(ch)
        if cp < 0x20 or cp in (0x22, 0x5C):
            out.append(_SHORT_ESCAPES[cp] if rng.random() < 0.7 and cp in _SHORT_ESCAPES else _hex4(rng, cp))
        elif escape and rng.random() < escape:
            out.append(_escape(rng, ch))
        else:
            out.append(ch)
    return ('"' + "".join(out) + '"').encode("utf-8")


def _filler(rng: random.Random, most: int = 4) -> str:
    return "".join(rng.choice(_FILLER) for _ in range(rng.randint(0, most)))


def _string(rng: random.Random, middle: bytes, valid: bool, note: str) -> _Raw:
    """A document holding a string whose body has the raw bytes `middle` among filler, in a
    random slot."""
    pre, post = rng.choice(_STRING_SLOTS)
    body = _filler(rng).encode("utf-8") + middle + _filler(rng).encode("utf-8")
    return pre + b'"' + body + b'"' + post, valid, note, None


@_category(
    "string-control",
    f"{_STR}; RFC 8259 7",
    "U+0000-U+001F raw (refused) and escaped every way (short forms, \\u00XX in either "
    "case, rendered lowercase), and U+007F raw (kept)",
)
def _string_control(rng: random.Random) -> _Raw:
    cp = rng.randrange(0x20) if rng.random() < 0.95 else 0x7F
    r = rng.random()
    if cp == 0x7F:
        return _string(rng, b"\x7f", True, "U+007F raw (not a control for JSON)")
    if r < 0.35:
        return _string(rng, bytes([cp]), False, f"U+{cp:04X} raw")
    esc = _SHORT_ESCAPES[cp] if cp in _SHORT_ESCAPES and r < 0.6 else _hex4(rng, cp)
    return _string(rng, esc.encode("ascii"), True, f"U+{cp:04X} escaped as {esc}")


_UNICODE = [
    0x2028,
    0x2029,
    0xFFFE,
    0xFFFF,
    0xFDD0,
    0xFDEF,
    0x1FFFE,
    0x1FFFF,
    0x10FFFE,
    0x10FFFF,
    0xE000,
    0xF8FF,
    0x0080,
    0x0085,
    0x00A0,
    0x200B,
    0x200E,
    0x1F600,
    0x10000,
    0xFFFD,
    0x00AD,
    0x0300,
    0x00E9,
]


@_category(
    "string-unicode",
    _STR,
    "U+2028/U+2029, noncharacters (U+FFFE, U+FFFF, U+FDD0...; fastjcs keeps them, see the "
    "notes), U+10FFFF and other astral characters, raw or escaped: rendered as raw UTF-8",
)
def _string_unicode(rng: random.Random) -> _Raw:
    chars = "".join(chr(rng.choice(_UNICODE)) for _ in range(rng.randint(1, 3)))
    escaped = rng.random() < 0.5
    middle = "".join(_escape(rng, c) for c in chars) if escaped else chars
    names = " ".join(f"U+{ord(c):04X}" for c in chars)
    return _string(rng, middle.encode("utf-8"), True, f"{names} {'escaped' if escaped else 'raw'}")


_BAD_ESCAPES = [
    "\\x41",
    "\\u12",
    "\\u12G4",
    "\\U0041",
    "\\'",
    "\\a",
    "\\0",
    "\\v",
    "\\ ",
    "\\u{41}",
    "\\e",
    "\\U00000041",
    "\\u-123",
    "\\\u00e9",
    "\\N",
]


@_category(
    "string-escape",
    f"RFC 8259 7; {_STR}",
    "escapes of printable characters (\\/, \\u0041, \\u00e9, uppercase hex) decoded and "
    "rendered raw; malformed escapes (\\x, \\u12, \\', \\U...) refused",
)
def _string_escape(rng: random.Random) -> _Raw:
    if rng.random() < 0.3:
        bad = rng.choice(_BAD_ESCAPES)  # then "!": hex digits of the filler could complete it
        return _string(rng, (bad + "!").encode("utf-8"), False, f"malformed escape {bad}")
    if rng.random() < 0.4:
        esc = rng.choice(
            (
                "\\/",
                '\\"',
                "\\\\",
                "\\b",
                "\\f",
                "\\n",
                "\\r",
                "\\t",
                "\\u0041",
                "\\u00e9",
                "\\u00E9",
                "\\u20AC",
                "\\u002F",
                "\\u005C",
                "\\u0022",
            )
        )
    else:
        cp = rng.randrange(0x20, 0xD800) if rng.random() < 0.8 else rng.randrange(0xE000, 0x10000)
        esc = _hex4(rng, cp)
    return _string(rng, esc.encode("ascii"), True, f"escape {esc}")


@_category(
    "string-surrogate",
    "RFC 7493 2.1; RFC 8259 7",
    "surrogate pairs as escapes (valid, any hex case) and lone, reversed or broken surrogate escapes (refused)",
)
def _string_surrogate(rng: random.Random) -> _Raw:
    hi = rng.randrange(0xD800, 0xDC00)
    lo = rng.randrange(0xDC00, 0xE000)
    kind = rng.randrange(8)
    if kind < 3:
        cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        return _string(rng, (_hex4(rng, hi) + _hex4(rng, lo)).encode("ascii"), True, f"U+{cp:04X} as a surrogate pair")
    middle, note = [
        (_hex4(rng, hi), "lone high surrogate"),
        (_hex4(rng, lo), "lone low surrogate"),
        (_hex4(rng, lo) + _hex4(rng, hi), "reversed pair"),
        (_hex4(rng, hi) + "x" + _hex4(rng, lo), "high, a character, then low"),
        (_hex4(rng, hi) + _hex4(rng, hi), "two high surrogates"),
    ][kind - 3]
    return _string(rng, middle.encode("ascii"), False, note)


_BAD_UTF8 = [
    ("c0 80", "overlong NUL"),
    ("c1 bf", "overlong 2-byte"),
    ("e0 80 80", "overlong 3-byte"),
    ("e0 9f bf", "overlong 3-byte (E0 9F)"),
    ("f0 80 80 80", "overlong 4-byte"),
    ("f0 8f bf bf", "overlong 4-byte (F0 8F)"),
    ("ed a0 80", "encoded surrogate U+D800"),
    ("ed bf bf", "encoded surrogate U+DFFF"),
    ("ed a0 bd ed b8 80", "encoded surrogate pair"),
    ("f4 90 80 80", "above U+10FFFF"),
    ("f5 80 80 80", "byte F5"),
    ("f8 88 80 80 80", "byte F8"),
    ("fe", "byte FE"),
    ("ff", "byte FF"),
    ("80", "stray continuation"),
    ("bf", "stray continuation"),
    ("c3", "truncated 2-byte"),
    ("e2 82", "truncated 3-byte"),
    ("f0 9f 98", "truncated 4-byte"),
    ("c3 28", "bad continuation"),
    ("e2 28 a1", "bad continuation"),
]
_GOOD_UTF8 = [0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF]


@_category(
    "string-utf8",
    "RFC 8259 8.1; RFC 3629 3",
    "ill-formed UTF-8 (overlong, truncated, encoded surrogates, above U+10FFFF, bytes "
    "F5-FF, stray continuation bytes) refused, in or out of strings; boundary code points",
)
def _string_utf8(rng: random.Random) -> _Raw:
    if rng.random() < 0.25:
        cp = rng.choice(_GOOD_UTF8)
        return _string(rng, chr(cp).encode("utf-8"), True, f"U+{cp:04X} raw (a UTF-8 boundary)")
    seq, what = rng.choice(_BAD_UTF8)
    raw = bytes.fromhex(seq)
    if rng.random() < 0.15:  # outside a string
        pre, post = rng.choice(_NUMBER_SLOTS)[:2]
        return pre + raw + post, False, f"{what} ({seq}) outside a string", None
    return _string(rng, raw, False, f"{what} ({seq})")


@_category(
    "string-bom",
    "RFC 8259 8.1",
    "U+FEFF inside a string (kept) and as a byte-order mark before or between tokens "
    "(fastjcs refuses it: RFC 8259 lets a parser ignore a leading one, fastjcs chooses not "
    "to); a UTF-16 mark",
)
def _string_bom(rng: random.Random) -> _Raw:
    r = rng.random()
    if r < 0.35:
        return _string(rng, b"\xef\xbb\xbf", True, "U+FEFF inside a string")
    pre, post = rng.choice(_STRING_SLOTS)
    doc = pre + _jstr(rng, _filler(rng)) + post
    if r < 0.75:
        return b"\xef\xbb\xbf" + doc, False, "a leading UTF-8 byte-order mark (fastjcs's choice)", None
    if r < 0.85:
        return b"\xff\xfe" + doc, False, "a leading UTF-16 byte-order mark", None
    return b"[1,\xef\xbb\xbf2]", False, "U+FEFF between tokens", None


# --- values, whitespace ---------------------------------------------------------------------------

_WS = None  # a whitespace slot in a list of parts
_LEGAL_WS = ["", " ", "\t", "\n", "\r", "\r\n", " \t", "\n  ", "\t\r\n "]
_Parts = list[Optional[bytes]]


def _key_text(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefgAB_é€😀\ue000") for _ in range(rng.randint(0, 5)))


def _scalar(rng: random.Random) -> bytes:
    r = rng.random()
    if r < 0.3:
        return str(rng.randint(-1000, 1000)).encode("ascii")
    if r < 0.45:
        return repr(_random_double(rng) * rng.choice((1, -1))).encode("ascii")
    if r < 0.8:
        return _jstr(rng, _filler(rng, 6), 0.1)
    return rng.choice((b"true", b"false", b"null"))


def _value(rng: random.Random, depth: int, out: _Parts, nonempty: bool = False) -> None:
    """Append a random JSON value as parts, with a whitespace slot wherever one is legal."""
    r = rng.random()
    if depth <= 0 or (r < 0.45 and not nonempty):
        out.append(_scalar(rng))
        return
    is_array = r < 0.72
    n = rng.randint(1 if nonempty else 0, 4)
    out.append(b"[" if is_array else b"{")
    if n == 0:
        out += [_WS, b"]" if is_array else b"}"]
        return
    keys: list[str] = []
    while len(keys) < n and not is_array:
        k = _key_text(rng)
        if k not in keys:
            keys.append(k)
    for i in range(n):
        out.append(_WS)
        if not is_array:
            out += [_jstr(rng, keys[i], 0.1), _WS, b":", _WS]
        _value(rng, depth - 1, out)
        out += [_WS, b"," if i < n - 1 else (b"]" if is_array else b"}")]


def _document(rng: random.Random, depth: int = 3, nonempty: bool = False) -> _Parts:
    parts: _Parts = [_WS]
    _value(rng, depth, parts, nonempty)
    parts.append(_WS)
    return parts


def _fill(rng: random.Random, parts: _Parts, slots: dict[int, bytes] | None = None, blank: float = 0.3) -> bytes:
    """The document: each whitespace slot legal whitespace (none with probability `blank`),
    except the slots (by number) given in `slots`."""
    slots = slots or {}
    out = []
    slot = 0
    for p in parts:
        if p is _WS:
            w = slots.get(slot)
            out.append(w if w is not None else b"" if rng.random() < blank else rng.choice(_LEGAL_WS).encode("ascii"))
            slot += 1
        else:
            out.append(p)
    return b"".join(out)


@_category(
    "whitespace-legal",
    "RFC 8259 2; RFC 8785 3.2.1",
    "space, tab, CR and LF in every legal position (around values, brackets, colons, commas): all removed",
)
def _whitespace_legal(rng: random.Random) -> _Raw:
    return _fill(rng, _document(rng), blank=0.1), True, "whitespace in every slot", None


_BAD_WS = [
    ("c2 a0", "U+00A0"),
    ("0b", "vertical tab"),
    ("0c", "form feed"),
    ("00", "NUL"),
    ("e2 80 a8", "U+2028"),
    ("e3 80 80", "U+3000"),
    ("ef bb bf", "U+FEFF"),
    ("c2 85", "U+0085"),
    ("e1 9a 80", "U+1680"),
    ("e2 80 89", "U+2009"),
    ("1c", "U+001C"),
]


@_category(
    "whitespace-illegal",
    "RFC 8259 2",
    "characters that are whitespace elsewhere but not in JSON (U+00A0, VT, FF, NUL, U+2028, "
    "U+3000...) outside strings: refused",
)
def _whitespace_illegal(rng: random.Random) -> _Raw:
    parts = _document(rng)
    seq, what = rng.choice(_BAD_WS)
    slot = rng.randrange(sum(p is _WS for p in parts))
    return _fill(rng, parts, {slot: bytes.fromhex(seq)}), False, f"{what} as whitespace", None


# --- order ----------------------------------------------------------------------------------------


def _object(rng: random.Random, keys: Sequence[str], escape: float = 0.1) -> bytes:
    members = [_jstr(rng, k, escape) + b":" + str(i).encode("ascii") for i, k in enumerate(keys)]
    return b"{" + b",".join(members) + b"}"


def _in_slot(rng: random.Random, obj: bytes) -> bytes:
    pre, post = rng.choice(_STRING_SLOTS[:3])
    return pre + obj + post


def _distinct(rng: random.Random, pool: Sequence[str], most: int) -> list[str]:
    keys = rng.sample(list(dict.fromkeys(pool)), min(len(set(pool)), rng.randint(2, most)))
    rng.shuffle(keys)
    return keys


_ASTRAL = ["\U00010000", "\U0001f600", "\U0001f602", "\U0010ffff", "\U00020000", "\U0001d11e"]
_HIGH_BMP = ["\ue000", "\uf8ff", "\ufb33", "\uff21", "\ufffd", "\uffff", "\ufeff", "\ue001"]


@_category(
    "order-utf16",
    _SORT,
    "keys beyond the BMP against U+E000-U+FFFF keys: UTF-16 code units put the astral ones "
    "first, code points would not",
)
def _order_utf16(rng: random.Random) -> _Raw:
    prefix = rng.choice(("", "", "a", "\u00e9"))
    pool = [prefix + c + rng.choice(("", "", "x")) for c in _ASTRAL + _HIGH_BMP + ["a", "\u00e9"]]
    keys = _distinct(rng, pool, 6)
    return _in_slot(rng, _object(rng, keys, 0.3)), True, f"{len(keys)} astral/high-BMP keys", None


def _variants(word: str) -> list[str]:
    accents = {"a": "\u00e0\u00e1", "e": "\u00e9\u00e8", "o": "\u00f6"}
    out = {word, word.upper(), word.lower(), word.capitalize(), word.swapcase()}
    for i, ch in enumerate(word):
        for alt in accents.get(ch.lower(), ""):
            out.add(word[:i] + alt + word[i + 1 :])
    return sorted(out)


@_category("order-case", _SORT, "keys that differ only in case or in accents (upper case sorts first; no collation)")
def _order_case(rng: random.Random) -> _Raw:
    word = "".join(rng.choice("aeobcxz") for _ in range(rng.randint(1, 4)))
    keys = _distinct(rng, _variants(word), 6)
    return _in_slot(rng, _object(rng, keys)), True, f"case/accent variants of {word!r}", None


@_category("order-prefix", _SORT, "keys that are prefixes of one another, the empty key, and a prefix plus U+0000")
def _order_prefix(rng: random.Random) -> _Raw:
    word = "".join(rng.choice("abz\u00e9\U0001f600") for _ in range(rng.randint(2, 5)))
    pool = [word[:i] for i in range(len(word) + 1)] + [word + "\u0000", word[:1] + "\u007f"]
    keys = _distinct(rng, pool, 6)
    return _in_slot(rng, _object(rng, keys)), True, f"prefixes of {word!r}", None


@_category("order-escaped", _SORT, "keys written with \\u escapes sort by their decoded value, not by their spelling")
def _order_escaped(rng: random.Random) -> _Raw:
    pool = [_key_text(rng) or "a" for _ in range(8)] + ["\\", '"', "/", "\u0001", "A", "a", "\u00e9"]
    keys = _distinct(rng, pool, 6)
    return _in_slot(rng, _object(rng, keys, 0.7)), True, f"{len(keys)} keys, mostly escaped", None


@_category("order-many", _SORT, "tens to hundreds of keys given in reverse or shuffled order, some objects nested")
def _order_many(rng: random.Random) -> _Raw:
    keys = list({_key_text(rng) + str(i % 7): None for i in range(rng.randint(20, 300))})
    reverse = rng.random() < 0.5
    if reverse:
        keys.sort(key=lambda k: k.encode("utf-16-be"), reverse=True)
    else:
        rng.shuffle(keys)
    members = [
        _jstr(rng, k, 0.05) + b":" + (_object(rng, keys[: rng.randint(0, 5)][::-1]) if rng.random() < 0.1 else b"0")
        for k in keys
    ]
    doc = b"{" + b",".join(members) + b"}"
    return doc, True, f"{len(keys)} keys {'reversed' if reverse else 'shuffled'}", None


# --- structure ----------------------------------------------------------------------------------


@_category(
    "structure-toplevel",
    "RFC 8259 2",
    "a scalar alone as the document: numbers, strings, true, false, null, with whitespace",
)
def _structure_toplevel(rng: random.Random) -> _Raw:
    doc = _fill(rng, [_WS, _scalar(rng), _WS])
    return doc, True, "a top-level scalar", None


def _respell(rng: random.Random, key: str) -> bytes:
    """Another spelling of the key's JSON string (escapes), where one exists."""
    if not key:
        return b'""'
    return _jstr(rng, key, 1.0 if rng.random() < 0.3 else 0.6)


@_category(
    "structure-duplicate",
    "RFC 7493 2.3; RFC 8785 3.1",
    'duplicate member names, plain or via escapes ("a" and "\\u0061"), nested '
    "(refused); the same name in different objects (valid); listed: a repeated name with every "
    "pair of value types (null, true, false, numbers, strings, empty and non-empty arrays and "
    "objects) in both positions, adjacent, 200 members apart, via an escape, nested",
)
def _structure_duplicate(rng: random.Random) -> _Raw:
    keys = list(dict.fromkeys(_key_text(rng) for _ in range(rng.randint(1, 4))))
    if rng.random() < 0.25:
        inner = _object(rng, keys)
        doc = _object(rng, keys).replace(b":0", b":" + inner, 1)
        return _in_slot(rng, doc), True, "the same names in an object and in its member", None
    dup = rng.choice(keys)
    plain = _jstr(rng, dup)
    second = _respell(rng, dup) if rng.random() < 0.6 else plain
    members = [_jstr(rng, k) + b":" + str(i).encode("ascii") for i, k in enumerate(keys)]
    members.insert(rng.randint(0, len(members)), second + b":true")
    doc = b"{" + b",".join(members) + b"}"
    for _ in range(rng.randint(0, 3)):
        doc = rng.choice((b'{"x":%s}', b"[%s]", b'[1,{"a":%s}]', b'{"b":[null,%s]}')) % doc
    how = "via escapes" if second != plain else "plainly"
    return doc, False, f"name {dup!r} repeated {how}", None


@_category(
    "structure-depth",
    "RFC 8259 9",
    "nesting up to fastjcs's default depth limit (fastjcs.DEFAULT_MAX_DEPTH), arrays and "
    "objects mixed; at most 200 cases per run",
    cap=200,
)
def _structure_depth(rng: random.Random) -> _Raw:
    limit = fastjcs.DEFAULT_MAX_DEPTH
    d = limit if rng.random() < 0.05 else int(math.exp(rng.uniform(0, math.log(limit))))
    opens, closes = [], []
    for _ in range(d):
        if rng.random() < 0.5:
            opens.append(b"[")
            closes.append(b"]")
        else:
            opens.append(rng.choice((b'{"a":', b'{"b":', b'{"":')))
            closes.append(b"}")
    doc = b"".join(opens) + b"0" + b"".join(reversed(closes))
    return doc, True, f"depth {d}", None


@_category(
    "structure-large",
    "RFC 8259 4-5; RFC 8785 3.2.3",
    "objects and arrays of 1,000 to 5,000 members; at most 40 cases per run",
    cap=40,
)
def _structure_large(rng: random.Random) -> _Raw:
    n = rng.randint(1000, 5000)
    if rng.random() < 0.5:
        return b"[" + b",".join(_scalar(rng) for _ in range(n)) + b"]", True, f"{n} elements", None
    keys = list({_key_text(rng) + str(i): None for i in range(n)})
    rng.shuffle(keys)
    return _object(rng, keys), True, f"{len(keys)} members", None


@_category(
    "structure-empty",
    "RFC 8259 4-5",
    "empty objects and arrays, alone, nested, as member values, with whitespace inside",
)
def _structure_empty(rng: random.Random) -> _Raw:
    parts: _Parts = []
    for _ in range(rng.randint(1, 4)):
        parts = (
            rng.choice(([b"[", _WS, b"]"], [b"{", _WS, b"}"]))
            if not parts
            else rng.choice(
                (
                    [b"[", _WS] + parts + [_WS, b"]"],
                    [b'{"', rng.choice((b"", b"a", b"e")), b'"', _WS, b":", _WS] + parts + [_WS, b"}"],
                    [b"[", _WS] + parts + [b",", _WS, b"{", _WS, b"}", b"]"],
                )
            )
        )
    return _fill(rng, [_WS] + parts + [_WS], blank=0.6), True, "empty containers", None


# --- syntax ---------------------------------------------------------------------------------------


def _container(rng: random.Random) -> bytes:
    """A random non-empty array or object at top level, without surrounding whitespace."""
    parts = _document(rng, nonempty=True)
    return _fill(rng, parts, {0: b"", sum(p is _WS for p in parts) - 1: b""})


@_category(
    "syntax-lenient",
    "RFC 8259 2-7",
    "what lenient parsers accept: trailing commas, comments, single quotes, unquoted keys, "
    "NaN/Infinity, Python and JavaScript literals",
)
def _syntax_lenient(rng: random.Random) -> _Raw:
    kind = rng.randrange(6)
    if kind == 0:
        doc = _container(rng)
        return doc[:-1] + rng.choice((b",", b", ", b",\n")) + doc[-1:], False, "trailing comma", None
    if kind == 1:
        parts = _document(rng)
        slot = rng.randrange(sum(p is _WS for p in parts))
        comment = rng.choice((b"/* c */", b"// c\n", b"/**/", b"# c\n"))
        return _fill(rng, parts, {slot: comment}), False, f"comment {comment!r}", None
    word = _filler(rng).replace(" ", "") or "k"
    if kind == 2:
        quoted = ("'" + word + "'").encode("utf-8")
        doc = rng.choice((b"%s", b"[%s]", b'{"a":%s}', b"{%s:1}")) % quoted
        return doc, False, "single quotes", None
    if kind == 3:
        key = rng.choice(("a", "key", "_x", "$y", "ab1", word.replace("-", "") or "k"))
        return b"{" + key.encode("utf-8") + b":1}", False, "unquoted key", None
    lit = rng.choice(_LENIENT_LITERALS)
    pre, post = rng.choice(_NUMBER_SLOTS)[:2]
    return pre + lit + post, False, f"literal {lit.decode()}", None


@_category(
    "syntax-broken",
    "RFC 8259 2",
    "unclosed containers and strings, trailing garbage, the empty document, two documents, "
    "missing colons and commas, mismatched brackets",
)
def _syntax_broken(rng: random.Random) -> _Raw:
    kind = rng.randrange(6)
    if kind == 0:
        doc = _container(rng)
        cut = rng.randrange(len(doc))
        return doc[:cut], False, f"cut after {cut} of {len(doc)} bytes", None
    if kind == 1:
        garbage = rng.choice((b"x", b"}", b"]", b",", b"1", b'"', b"null", b":", b"\\"))
        return _container(rng) + rng.choice((b"", b" ")) + garbage, False, "trailing garbage", None
    if kind == 2:
        first, second = _fill(rng, _document(rng)), _fill(rng, _document(rng))
        sep = rng.choice((b" ", b"\n", b"\r\n"))
        return first + sep + second, False, "two documents", None
    if kind == 3:
        return rng.choice((b"", b" ", b"\n", b"\t\r\n ")), False, "no value at all", None
    if kind == 4:
        doc = rng.choice(
            (
                b'{"a" 1}',
                b'{"a"::1}',
                b"[1 2]",
                b'{"a":1 "b":2}',
                b'{"a"}',
                b"[,1]",
                b'{,"a":1}',
                b"[1,,2]",
                b'{"a":}',
                b"[:]",
                b'["a":1]',
                b"{1:2}",
            )
        )
        return _in_slot(rng, doc), False, "a missing or misplaced separator", None
    doc = rng.choice((b"[}", b"{]", b"[1}", b'{"a":1]', b"]", b"}", b"[[]", b'"abc', b'["a]', b'{"a":"b}', b'["\\"]'))
    return doc, False, "unbalanced brackets or quotes", None


# --- listed cases: every entry of every list, once per run, whatever the seed -------------------
#
# Sampling draws from the lists above at random: at 50 cases a category it misses entries, and a
# peer wrong on one entry passes some seeds and fails others. Each category's listed cases put
# every entry once (numbers in an array, so a peer that takes only objects and arrays is still
# held to them); the sampled cases come on top. Their slots and filler are drawn from a Random
# of the category's name alone, never of the seed.


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


def _in_string(rng: random.Random, middle: bytes, valid: bool, note: str) -> _Raw:
    """`["middle"]` and `{"middle":0}`-free: the string as an element of an array."""
    return b'["' + middle + b'"]', valid, note, None


_GOOD_ESCAPES = ["\\/", '\\"', "\\\\", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u00E9", "\\u20AC"]


@_lists("string-control")
def _list_string_control(rng: random.Random) -> Sequence[_Raw]:
    out: list[_Raw] = []
    for cp in range(0x20):
        out.append(_in_string(rng, bytes([cp]), False, f"U+{cp:04X} raw"))
        out.append(_in_string(rng, f"\\u{cp:04x}".encode("ascii"), True, f"U+{cp:04X} as \\u{cp:04x}"))
        out.append(_in_string(rng, f"\\u{cp:04X}".encode("ascii"), True, f"U+{cp:04X} as \\u{cp:04X}"))
        if cp in _SHORT_ESCAPES:
            out.append(_in_string(rng, _SHORT_ESCAPES[cp].encode("ascii"), True, f"U+{cp:04X} as {_SHORT_ESCAPES[cp]}"))
    out.append(_in_string(rng, b"\x7f", True, "U+007F raw"))
    return out


@_lists("string-unicode")
def _list_string_unicode(rng: random.Random) -> Sequence[_Raw]:
    out: list[_Raw] = []
    for cp in _UNICODE:
        out.append(_in_string(rng, chr(cp).encode("utf-8"), True, f"U+{cp:04X} raw"))
        esc = _escape(random.Random(0), chr(cp)).lower()
        out.append(_in_string(rng, esc.encode("ascii"), True, f"U+{cp:04X} as {esc}"))
    return out


@_lists("string-escape")
def _list_string_escape(rng: random.Random) -> Sequence[_Raw]:
    return [_in_string(rng, (b + "!").encode("utf-8"), False, f"malformed escape {b}") for b in _BAD_ESCAPES] + [
        _in_string(rng, g.encode("ascii"), True, f"escape {g}") for g in _GOOD_ESCAPES
    ]


@_lists("string-surrogate")
def _list_string_surrogate(rng: random.Random) -> Sequence[_Raw]:
    good = ["\\ud800\\udc00", "\\uDBFF\\uDFFF", "\\ud83d\\ude00"]
    bad = [
        "\\ud800",
        "\\udbff",
        "\\udc00",
        "\\udfff",
        "\\udc00\\ud800",
        "\\ud800x\\udc00",
        "\\ud800\\ud800",
        "\\ud800\\u0041",
    ]
    return [_in_string(rng, g.encode("ascii"), True, f"pair {g}") for g in good] + [
        _in_string(rng, b.encode("ascii"), False, f"broken {b}") for b in bad
    ]


@_lists("string-utf8")
def _list_string_utf8(rng: random.Random) -> Sequence[_Raw]:
    out: list[_Raw] = []
    for seq, what in _BAD_UTF8:
        raw = bytes.fromhex(seq)
        out.append(_in_string(rng, raw, False, f"{what} ({seq})"))
        out.append((b"[" + raw + b"]", False, f"{what} ({seq}) outside a string", None))
    out += [_in_string(rng, chr(cp).encode("utf-8"), True, f"U+{cp:04X} raw") for cp in _GOOD_UTF8]
    return out


@_lists("string-bom")
def _list_string_bom(rng: random.Random) -> Sequence[_Raw]:
    return [
        (b'["\xef\xbb\xbf"]', True, "U+FEFF inside a string", None),
        (b'\xef\xbb\xbf["a"]', False, "a leading UTF-8 byte-order mark (fastjcs's choice)", None),
        (b'\xff\xfe["a"]', False, "a leading UTF-16 byte-order mark", None),
        (b"[1,\xef\xbb\xbf2]", False, "U+FEFF between tokens", None),
    ]


# A document with a whitespace slot (None) wherever RFC 8259 allows one.
_WS_FRAME: _Parts = [
    _WS,
    b"{",
    _WS,
    b'"a"',
    _WS,
    b":",
    _WS,
    b"[",
    _WS,
    b"1",
    _WS,
    b",",
    _WS,
    b"true",
    _WS,
    b"]",
    _WS,
    b"}",
    _WS,
]


@_lists("whitespace-legal")
def _list_whitespace_legal(rng: random.Random) -> Sequence[_Raw]:
    slots = sum(p is _WS for p in _WS_FRAME)
    return [
        (_fill(rng, _WS_FRAME, {i: w.encode("ascii") for i in range(slots)}), True, f"{w!r} in every slot", None)
        for w in _LEGAL_WS
        if w
    ]


@_lists("whitespace-illegal")
def _list_whitespace_illegal(rng: random.Random) -> Sequence[_Raw]:
    slots = sum(p is _WS for p in _WS_FRAME)
    out: list[_Raw] = []
    for seq, what in _BAD_WS:
        for slot in (0, slots // 2, slots - 1):
            blank = {i: b"" for i in range(slots)}
            blank[slot] = bytes.fromhex(seq)
            out.append((_fill(rng, _WS_FRAME, blank), False, f"{what} as whitespace (slot {slot})", None))
    return out


@_lists("order-utf16")
def _list_order_utf16(rng: random.Random) -> Sequence[_Raw]:
    return [
        (_object(rng, [a, b], 0.0), True, f"U+{ord(a):04X} and U+{ord(b):04X}", None)
        for a in _ASTRAL
        for b in _HIGH_BMP
    ]


@_lists("order-prefix")
def _list_order_prefix(rng: random.Random) -> Sequence[_Raw]:
    return [
        (b'{"ab":1,"a":2,"":3,"a\\u0000":4,"b":5}', True, "prefixes, the empty key and a NUL", None),
        (b'{"a\\u007f":1,"a":2}', True, "a prefix plus U+007F", None),
    ]


@_lists("order-case")
def _list_order_case(rng: random.Random) -> Sequence[_Raw]:
    return [(b'{"b":1,"a":2,"B":3,"A":4,"\xc3\xa9":5,"e":6,"E":7}', True, "case and accents", None)]


@_lists("structure-toplevel")
def _list_structure_toplevel(rng: random.Random) -> Sequence[_Raw]:
    return [
        (t, True, "a top-level scalar", None)
        for t in (b"0", b"-1.5", b"1e2", b'"s"', b'""', b"true", b"false", b"null", b" 7 ", b'\n"x"\t')
    ]


#: One value of each JSON type, for repeated names.
_DUPLICATE_VALUES = [b"null", b"true", b"false", b"0", b"-1.5", b'"s"', b"[]", b"{}", b"[null]", b'{"x":null}']


@_lists("structure-duplicate")
def _list_structure_duplicate(rng: random.Random) -> Sequence[_Raw]:
    far = b",".join(b'"m%d":%d' % (i, i) for i in range(200))
    out: list[_Raw] = []
    for v1 in _DUPLICATE_VALUES:
        for v2 in _DUPLICATE_VALUES:
            pair = f"{v1.decode()} then {v2.decode()}"
            out.append((b'{"a":' + v1 + b',"a":' + v2 + b"}", False, f"a repeated: {pair}", None))
            out.append((b'{"b":0,"a":' + v1 + b"," + far + b',"a":' + v2 + b"}", False, f"far apart: {pair}", None))
            out.append((b'{"key":' + v1 + b',"k\\u0065y":' + v2 + b"}", False, f"via an escape: {pair}", None))
            out.append((b'[1,{"z":' + v1 + b',"z":' + v2 + b"}]", False, f"nested: {pair}", None))
    return out


@_lists("structure-empty")
def _list_structure_empty(rng: random.Random) -> Sequence[_Raw]:
    return [
        (t, True, "empty containers", None) for t in (b"[]", b"{}", b"[ ]", b"{\n}", b"[{}]", b'{"a":[]}', b"[[],{}]")
    ]


#: Depths past fastjcs's default limit: a limit of the reference, no RFC rule.
DEEP_FACTORS = (2, 10)


@_lists(
    "structure-deep",
    "RFC 8259 9",
    "nesting past fastjcs's default depth limit (limit + 1, 2x and 10x it; arrays, "
    "objects, mixed): no RFC limits depth, so a peer may give the canonical bytes or refuse "
    "(class `limit`, reported, not a failure)",
)
def _list_structure_deep(rng: random.Random) -> Sequence[_Raw]:
    limit = fastjcs.DEFAULT_MAX_DEPTH
    out: list[_Raw] = []
    for depth in sorted({limit + 1} | {f * limit for f in DEEP_FACTORS if f * limit < 10**6}):
        out.append((b"[" * depth + b"0" + b"]" * depth, True, f"depth {depth}: arrays", None))
        out.append((b'{"a":' * depth + b"0" + b"}" * depth, True, f"depth {depth}: objects", None))
        half = depth // 2 + 1
        out.append((b'[{"a":' * half + b"0" + b"}]" * half, True, f"depth {2 * half}: mixed", None))
    return out


#: The sizes of the `large` family (members or elements).
LARGE_SIZES = (1_000, 10_000, 20_000, 50_000, 100_000)


@_lists(
    "large-object",
    "RFC 8785 3.2.3",
    'objects of 1,000 to 100,000 members {"k0":0,...} in shuffled order (1.2 MB at 10^5): a '
    "peer superlinear in the members shows as `slow` or `timeout`",
)
def _list_large_object(rng: random.Random) -> Sequence[_Raw]:
    out: list[_Raw] = []
    for n in LARGE_SIZES:
        keys = list(range(n))
        rng.shuffle(keys)
        doc = b"{" + b",".join(b'"k%d":%d' % (k, k) for k in keys) + b"}"
        out.append((doc, True, f"{n} members, shuffled", None))
    return out


@_lists(
    "large-array",
    "RFC 8259 5",
    "arrays of 1,000 to 100,000 elements (numbers, strings, small objects)",
)
def _list_large_array(rng: random.Random) -> Sequence[_Raw]:
    out: list[_Raw] = []
    for n in LARGE_SIZES:
        items = [(b"%d.5" % i, b'"s%d"' % i, b'{"b":%d,"a":1}' % i)[i % 3] for i in range(n)]
        out.append((b"[" + b",".join(items) + b"]", True, f"{n} elements", None))
    return out


_LENIENT_LITERALS = [
    b"NaN",
    b"-NaN",
    b"Infinity",
    b"-Infinity",
    b"+Infinity",
    b"nan",
    b"inf",
    b"True",
    b"False",
    b"None",
    b"undefined",
    b"NULL",
    b"tRue",
]
_COMMENTS = [b"/* c */", b"// c\n", b"/**/", b"# c\n"]


@_lists("syntax-lenient")
def _list_syntax_lenient(rng: random.Random) -> Sequence[_Raw]:
    out = [(b"[" + lit + b"]", False, f"literal {lit.decode()}", None) for lit in _LENIENT_LITERALS]
    out += [(b"[1," + c + b"2]", False, f"comment {c!r}", None) for c in _COMMENTS]
    out += [
        (b"[1,]", False, "trailing comma", None),
        (b'{"a":1,}', False, "trailing comma", None),
        (b"['a']", False, "single quotes", None),
        (b"{a:1}", False, "unquoted key", None),
    ]
    return out


_BROKEN = [
    b'{"a" 1}',
    b'{"a"::1}',
    b"[1 2]",
    b'{"a":1 "b":2}',
    b'{"a"}',
    b"[,1]",
    b'{,"a":1}',
    b"[1,,2]",
    b'{"a":}',
    b"[:]",
    b'["a":1]',
    b"{1:2}",
    b"[}",
    b"{]",
    b"[1}",
    b'{"a":1]',
    b"]",
    b"}",
    b"[[]",
    b'"abc',
    b'["a]',
    b'{"a":"b}',
    b'["\\"]',
    b"",
    b" ",
    b"\n",
    b"[1]x",
    b"[1]]",
    b"{} {}",
    b"[1] [2]",
    b"[1]\\",
]


@_lists("syntax-broken")
def _list_syntax_broken(rng: random.Random) -> Sequence[_Raw]:
    return [(t, False, "broken syntax", None) for t in _BROKEN]


#: category -> (clause, one-line description), for every category `generate` makes.
CATEGORIES: dict[str, tuple[str, str]] = {name: (c.clause, c.description) for name, c in _REGISTRY.items()}


def _utf16_sorted(output: bytes) -> bool:
    """Whether every object of a canonical output lists its members in UTF-16 code-unit order."""
    ok = True

    def check(pairs: list[tuple[str, object]]) -> None:
        nonlocal ok
        keys = [k.encode("utf-16-be", "surrogatepass") for k, _ in pairs]
        ok = ok and keys == sorted(keys)

    json.loads(output, object_pairs_hook=check)
    return ok


def _expected(text: bytes) -> bytes | None:
    try:
        return fastjcs.canonicalize(text)
    except fastjcs.FastJCSError:
        return None


def generate(seed: int, per_category: int) -> list[Case]:
    """`per_category` distinct documents of every category in `CATEGORIES` (fewer where a
    category has fewer distinct cases to give, or caps its big documents: its description says),
    deterministic for a seed: each category draws from its own random.Random(f"{seed}:{name}"),
    so adding a category does not change the others.

    Expected bytes are fastjcs's, checked as they are made (CorpusCheckError on a mismatch): a
    document meant invalid must be refused and one meant valid accepted; a number document's
    canonical bytes must equal its independent rebuilding (es6_layout of the token's value, read
    by Python); an object's members must come out in UTF-16 order.
    """
    cases: list[Case] = []
    for name, cat in _REGISTRY.items():
        seen: set[bytes] = set()
        if cat.listed is not None:
            for k, raw in enumerate(cat.listed(random.Random(f"listed:{name}"))):
                if raw[0] not in seen:
                    seen.add(raw[0])
                    cases.append(_checked(f"gen/{name}/listed-{k}", name, cat.clause, raw))
        if cat.make is None:
            continue
        rng = random.Random(f"{seed}:{name}")
        want_n = min(per_category, cat.cap if cat.cap is not None else per_category)
        drawn = misses = 0
        while drawn < want_n and misses < 4 * want_n + 100:
            raw = cat.make(rng)
            if raw[0] in seen:
                misses += 1
                continue
            seen.add(raw[0])
            cases.append(_checked(f"gen/{name}/{drawn}", name, cat.clause, raw))
            drawn += 1
    return cases


def _beyond_limit(text: bytes) -> bytes | None:
    """The canonical bytes of a text fastjcs refuses only for its default depth limit, else None."""
    try:
        fastjcs.canonicalize(text)
    except fastjcs.DepthLimitError:
        try:
            return fastjcs.canonicalize(text, max_depth=1 << 30)
        except fastjcs.FastJCSError:
            return None
    except fastjcs.FastJCSError:
        return None
    return None


def _limit_note(text: bytes) -> str:
    return f"deeper than fastjcs's default depth limit ({fastjcs.DEFAULT_MAX_DEPTH}), which no RFC sets"


def expectation(text: bytes) -> tuple[bytes | None, str]:
    """(expected bytes, limit) of a document: fastjcs's canonical bytes, or None when it must
    be refused; for a document fastjcs refuses only for its own depth limit, the canonical bytes
    without that limit and the limit in words (a peer may refuse it: see Case.limit)."""
    expected = _expected(text)
    if expected is None:
        beyond = _beyond_limit(text)
        if beyond is not None:
            return beyond, _limit_note(text)
    return expected, ""


def _checked(case_id: str, name: str, clause: str, raw: _Raw) -> Case:
    """The case of a generated document, its expected bytes checked (CorpusCheckError)."""
    text, valid, note, rebuilt = raw
    expected = _expected(text)
    limit = ""
    if expected is None and valid:
        beyond = _beyond_limit(text)
        if beyond is not None:
            expected, limit = beyond, _limit_note(text)
    case = Case(case_id, name, clause, text, expected, note, limit)
    if (expected is not None) != valid:
        raise CorpusCheckError(
            f"{case.id}: meant {'valid' if valid else 'invalid'}, fastjcs "
            f"{'refuses' if expected is None else 'accepts'} it: {text[:80]!r} ({note})"
        )
    if rebuilt is not None and expected != rebuilt:
        raise CorpusCheckError(
            f"{case.id}: fastjcs renders {text[:80]!r} as {expected!r}, the ES6 rules give {rebuilt!r}"
        )
    if name.startswith("order-") and expected is not None and not _utf16_sorted(expected):
        raise CorpusCheckError(f"{case.id}: members not in UTF-16 order: {expected[:80]!r}")
    if name == "structure-deep" and not limit:
        raise CorpusCheckError(f"{case.id}: meant past fastjcs's depth limit, but within it")
    return case


# ---------------------------------------------------------------------------------------------------
# The repository's JCS vectors
# ---------------------------------------------------------------------------------------------------

#: The JCS vector folders of the source tree (absent from an installed package).
VECTOR_FOLDERS = ("rfc8785", "text-canonical", "text-must-fail")
_CLAUSE = re.compile(r"RFC (\d{4})(?: (?:sections? (\d(?:[\d.]*\d)?(?:-\d+)?)|(Appendix [A-Z])))?")


def _source_vectors() -> Path:
    root = Path(__file__).resolve().parents[3] / "vectors"
    if not all((root / f).is_dir() for f in VECTOR_FOLDERS):
        raise CorpusError(
            "the JCS vectors (vectors/ of the fastjcs source tree) are not beside this "
            "installation: name their folder or files"
        )
    return root


def _clause(*texts: str) -> str:
    """The first RFC clause named in the texts (one with a section preferred), else a fallback."""
    bare = ""
    for text in texts:
        for m in _CLAUSE.finditer(text or ""):
            where = m.group(2) or m.group(3)
            if where:
                return f"RFC {m.group(1)} {where}"
            bare = bare or f"RFC {m.group(1)}"
    return bare or "fastjcs's own limits (no RFC clause)"


def _only_too_deep(text: bytes) -> bool:
    """Is the text a valid JSON text that fastjcs refuses only for its default depth limit?"""
    try:
        fastjcs.canonicalize(text, max_depth=1 << 30)
    except fastjcs.FastJCSError:
        return False
    return True


def _vector_files(paths: Sequence[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(p.rglob("*.json"))
        elif p.is_file():
            files.append(p)
        else:
            raise CorpusError(f"no such vector file or folder: {p}")
    return files


def _parts(parts: list[list[Any]]) -> bytes:
    return "".join(str(text) * int(count) for text, count in parts).encode("utf-8")


def _vector_input(v: dict[str, Any]) -> bytes:  # a vector as JSON gives it
    if "input_hex" in v:
        return bytes.fromhex(str(v["input_hex"]))
    if "input_str" in v:  # fastjcs encodes a str with surrogatepass: so does the peer's document
        return str(v["input_str"]).encode("utf-8", "surrogatepass")
    if "input_parts" in v:
        return _parts(v["input_parts"])
    return str(v["input"]).encode("utf-8")


def _cases_of_file(path: Path) -> list[Case]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{path}: not a readable JSON vector file ({exc})") from None
    folder = path.parent.name
    base = f"vectors/{folder}/{path.name}"
    category = f"vectors-{folder}"
    filewide = (str(data.get("about", "")), str(data.get("source", "")))
    out: list[Case] = []
    if "rows" in data:  # RFC 8785 Appendix B: a double and its rendering (none for NaN, Infinity)
        for i, row in enumerate(data["rows"]):
            if row.get("json") is None:
                continue
            x = struct.unpack(">d", bytes.fromhex(row["ieee754"]))[0]
            out.append(
                Case(
                    f"{base}#{i}",
                    category,
                    _clause(*filewide),
                    repr(x).encode("ascii"),
                    row["json"].encode("ascii"),
                    f"{row['ieee754']} {row.get('comment', '')}".strip(),
                )
            )
    elif "examples" in data:
        for i, ex in enumerate(data["examples"]):
            out.append(
                Case(
                    f"{base}#{i}",
                    category,
                    _clause(ex.get("source", ""), *filewide),
                    ex["input"].encode("utf-8"),
                    ex["output"].encode("utf-8"),
                    ex["name"],
                )
            )
    elif "vectors" in data:
        for i, v in enumerate(data["vectors"]):
            if v.get("options"):  # a keyword of fastjcs.canonicalize no peer is given
                continue
            if "output" in v or "output_parts" in v:
                want: bytes | None = _parts(v["output_parts"]) if "output_parts" in v else v["output"].encode("utf-8")
            elif "error" in v:
                want = None
                if v["error"] == "DepthLimitError" and _only_too_deep(_vector_input(v)):
                    continue  # refused for fastjcs's own depth limit only: no RFC asks a peer to
            else:
                raise CorpusError(f"{base}#{i}: a vector with neither an output nor an error")
            out.append(
                Case(
                    f"{base}#{i}",
                    category,
                    _clause(v.get("note", ""), *filewide),
                    _vector_input(v),
                    want,
                    v.get("name", ""),
                )
            )
    else:
        raise CorpusError(f"{path}: not a JCS vector file (no rows, examples or vectors)")
    return out


def vector_cases(paths: Sequence[str | Path] | None = None) -> list[Case]:
    """The JCS vectors of the given files or folders (default: the source tree's vectors/rfc8785,
    text-canonical and text-must-fail; CorpusError where fastjcs runs from an installed package
    without them). Expected bytes are the vector files' own (`output`, `json`; None for an
    `error`), never fastjcs's. Skipped, as no peer can be given them: vectors with `options`
    (fastjcs keywords) and Appendix B's NaN and Infinity rows (no JSON text holds them); and, as
    no RFC asks a peer for it, a valid text refused only for fastjcs's default depth limit.
    Appendix B's documents are repr() of the row's double."""
    if paths is None:
        root = _source_vectors()
        paths = [root / f for f in VECTOR_FOLDERS]
    cases = [c for f in _vector_files(paths) for c in _cases_of_file(f)]
    if not cases:
        raise CorpusError(f"no JCS vectors in {', '.join(map(str, paths))}")
    return cases


# ---------------------------------------------------------------------------------------------------
# The ES6 number corpus
# ---------------------------------------------------------------------------------------------------

#: The corpus's 168 static values (16 hex digits a line), shipped with the package.
ES6_STATIC_VALUES = Path(__file__).resolve().with_name("es6-static-values.txt")
#: SHA-256 of the corpus's first N "<hex>,<rendering>\n" lines, as published
#: (docs/contract.md#the-es6-number-corpus).
ES6_PUBLISHED = {
    1_000: "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687",
    10_000: "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892",
    100_000: "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7",
    1_000_000: "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16",
    100_000_000: "0f7dda6b0837dde083c5d6b896f7d62340c8a2415b0c7121d83145e08a755272",
}
_SMALLEST_NORMAL = 0x0010000000000000
_EXPONENT_MASK = 0x7FF0000000000000
_MAGNITUDE_MASK = 0x7FFFFFFFFFFFFFFF


def es6_static_values() -> list[int]:
    """The corpus's static values, as 64-bit patterns."""
    return [int(line, 16) for line in ES6_STATIC_VALUES.read_text(encoding="ascii").split()]


def es6_bit_patterns() -> Iterator[int]:
    """The corpus's bit patterns, in order, without end: the static values, 2000 patterns
    counting up from the smallest normal, then the four little-endian 64-bit words of each block
    of the chain block = SHA-256(block) from 32 zero bytes, skipping 0, NaN and the infinities."""
    yield from es6_static_values()
    yield from range(_SMALLEST_NORMAL, _SMALLEST_NORMAL + 2000)
    unpack = struct.Struct("<4Q").unpack
    block = bytes(32)
    while True:
        block = _SHA256.new(block).digest()
        for word in unpack(block):
            # Skip +0/-0 (magnitude 0) and NaN/infinities (all exponent bits set).
            if word & _MAGNITUDE_MASK and word & _EXPONENT_MASK != _EXPONENT_MASK:
                yield word


def es6_cases(lines: int) -> list[Case]:
    """The first `lines` lines of the ES6 number corpus as cases: the document is a one-element
    array of a token that reads back to the line's double (repr(), and every other line a
    17-significant-digit spelling), the expected bytes the array of its rendering (an array, not
    the bare number: peers that take only objects and arrays are held to their numbers too).
    Every rendering (fastjcs's) is checked against `es6_layout`, and the "<hex>,<rendering>\\n"
    lines against the published SHA-256 at every published count up to `lines`
    (CorpusCheckError on a mismatch)."""
    if lines < 1:
        raise CorpusError(f"es6: the number of lines must be positive, not {lines}")
    hasher = _SHA256.new()
    patterns = es6_bit_patterns()
    unpack = struct.Struct("<d").unpack
    pack = struct.Struct("<Q").pack
    cases: list[Case] = []
    for line in range(1, lines + 1):
        bits = next(patterns)
        x = unpack(pack(bits))[0]
        rendering = fastjcs.format_double(x)
        if rendering != es6_layout(x):
            raise CorpusCheckError(
                f"es6/{line}: fastjcs renders {x!r} as {rendering}, the ES6 rules give {es6_layout(x)}"
            )
        text = repr(x) if line % 2 else f"{x:.16e}"
        if float(text) != x:
            raise CorpusCheckError(f"es6/{line}: {text} does not read back to {x!r}")
        hasher.update(f"{bits:x},{rendering}\n".encode("ascii"))
        published = ES6_PUBLISHED.get(line)
        if published is not None and hasher.hexdigest() != published:
            raise CorpusCheckError(
                f"es6: the first {line} lines hash to {hasher.hexdigest()}, not the published {published}"
            )
        cases.append(
            Case(
                f"es6/{line}",
                "es6",
                _NUM,
                f"[{text}]".encode("ascii"),
                f"[{rendering}]".encode("ascii"),
                f"{bits:016x}",
            )
        )
    return cases


# ---------------------------------------------------------------------------------------------------
# User corpora, and loading by source name
# ---------------------------------------------------------------------------------------------------


def user_cases(path: str | Path) -> list[Case]:
    """A user corpus: a JSON Lines file (each line one document, its bytes as they are without
    the line ending, "\\n" or "\\r\\n"; lines of only ASCII whitespace skipped; ids
    "user/<file>:<line number>") or a folder (every regular file under it one document, in sorted
    order; ids "user/<folder>/<relative path>"). Category "user"; expected bytes are fastjcs's."""
    p = Path(path)
    docs: list[tuple[str, bytes]] = []
    if p.exists() and not p.is_dir():  # a regular file, or a pipe or FIFO read to its end
        for n, line in enumerate(p.read_bytes().split(b"\n"), 1):
            line = line[:-1] if line.endswith(b"\r") else line
            if line.strip():
                docs.append((f"user/{p.name}:{n}", line))
    elif p.is_dir():
        files = sorted((f for f in p.rglob("*") if f.is_file()), key=lambda f: f.relative_to(p).parts)
        docs = [(f"user/{p.name}/{f.relative_to(p).as_posix()}", f.read_bytes()) for f in files]
    else:
        raise CorpusError(f"no such corpus file or folder: {p}")
    if not docs:
        raise CorpusError(f"the corpus {p} holds no document")
    cases = []
    for case_id, text in docs:
        expected, limit = expectation(text)
        cases.append(Case(printable(case_id), "user", "RFC 8785", text, expected, "", limit))
    return cases


def printable(name: str) -> str:
    """A file name as reports can write it: a byte that is not UTF-8 (held by Python as a lone
    surrogate, which no UTF-8 encoder writes) shown as \\xNN."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


#: What `fastjcs interop` runs when no --corpus is given: every generated category and the first
#: 2,000 lines of the ES6 number corpus (the vectors live in a source tree, not in the package).
DEFAULT_SOURCES = ("gen", "es6:2000")


def load(sources: Sequence[str], seed: int, per_category: int) -> list[Case]:
    """The cases of the named sources, in order: "gen" (`generate(seed, per_category)`),
    "vectors" (`vector_cases()`), "vectors:PATH" (the vectors of a checkout's vectors/ folder, or
    of the files or folder PATH), "es6:N" (`es6_cases(N)`), else a path (`user_cases`).
    CorpusError for a malformed source or ids that repeat."""
    cases: list[Case] = []
    for source in sources:
        if source == "gen":
            cases += generate(seed, per_category)
        elif source == "vectors":
            cases += vector_cases()
        elif source.startswith("vectors:"):
            root = Path(source[len("vectors:") :])
            folders = [root / f for f in VECTOR_FOLDERS]
            cases += vector_cases(folders if all(f.is_dir() for f in folders) else [root])
        elif source.startswith("es6:") or source == "es6":
            count = source[4:]
            if not count.isdigit():
                raise CorpusError(f"es6 needs a number of lines, e.g. es6:100000, not {source!r}")
            cases += es6_cases(int(count))
        else:
            cases += user_cases(source)
    seen: dict[str, None] = {}
    for c in cases:
        if c.id in seen:
            raise CorpusError(f"case id {c.id} appears twice (a source named twice?)")
        seen[c.id] = None
    return cases
