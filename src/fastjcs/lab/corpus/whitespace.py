"""Values and whitespace: the documents other categories fill, and the whitespace categories."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Optional

from .cases import _category, _lists, _Raw
from .number import _random_double
from .string import _filler, _jstr

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
