"""String categories (RFC 8785 3.2.2.2)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .cases import _STR, _category, _lists, _Raw
from .number import _NUMBER_SLOTS

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
