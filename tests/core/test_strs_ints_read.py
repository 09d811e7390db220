"""Strs and ints as the walker reads them from the objects (cpython/str_layout.c: a compact ASCII
str's characters and the UTF-8 a compact non-ASCII str keeps; cpython/list_layout.c: a list's and
a tuple's items; cpython/long_layout.c: an int's digits) or through the API, each reading turned
on and off: the same bytes as an RFC 8785 string writer written here from section 3.2.2.2, as
json.dumps(ensure_ascii=False) and rfc8785, and as the cffi route (the marshal reader) and the
pure-Python backend, for every str kind (latin-1, BMP, astral), escapes at the edges of the 16- and
8-byte blocks, the UTF-8 not yet kept by CPython and kept, lone surrogates (refused as before),
subclasses, long strs; ints at every digit count and sign, CPython's digit boundaries, bools,
subclasses.
"""

from __future__ import annotations

import itertools
import json
import sys

import pytest
import rfc8785
from _direct import direct_or_skip

import fastjcs
from fastjcs.core import python_backend

native, direct = direct_or_skip()

HOOKS = ("str_layout", "list_layout", "int_layout")


def _readings():
    """Every combination of the three readings this CPython allows (the object's, the API)."""
    options = [[True, False] if getattr(direct, hook)() else [False] for hook in HOOKS]
    return list(itertools.product(*options))


@pytest.fixture(params=_readings(), ids=lambda r: "-".join(("obj" if on else "api") for on in r))
def reading(request):
    previous = [getattr(direct, hook)(on) for hook, on in zip(HOOKS, request.param)]
    yield request.param
    for hook, on in zip(HOOKS, previous):
        getattr(direct, hook)(on)


# ---- An RFC 8785 string, from section 3.2.2.2 ---------------------------------------------------

SHORT = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"}


def jcs_string(s: str) -> bytes:
    """The canonical form of s: '"' and '\\' and the controls below U+0020 escaped (the five short
    forms, else \\u00 and two lowercase hex digits), every other character as its UTF-8."""
    out = []
    for ch in s:
        c = ord(ch)
        if c in SHORT:
            out.append(SHORT[c])
        elif c < 0x20:
            out.append(f"\\u{c:04x}")
        else:
            out.append(ch)
    return ('"' + "".join(out) + '"').encode("utf-8")


def jcs_list(items) -> bytes:
    return b"[" + b",".join(jcs_string(s) if isinstance(s, str) else str(int(s)).encode() for s in items) + b"]"


def fresh(s: str) -> str:
    """A new str object equal to s (CPython keeps no UTF-8 for it yet)."""
    return "".join(list(s))


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))


def agree(doc):
    """The walker's bytes (twice: the UTF-8 of its strs not kept, then kept), equal to the cffi
    route's and the pure-Python backend's."""
    first = fastjcs.dumps(doc)
    assert fastjcs.dumps(doc) == first
    assert native._dumps_marshal(doc, 100, False) == first
    assert python_backend.dumps(doc, 100, False) == first
    return first


# ---- Strs -----------------------------------------------------------------------------------------

FILLERS = {
    "ascii": "a",
    "latin1": "\u00e9",  # kind 1, 2 bytes of UTF-8
    "bmp2": "\u0436",  # kind 2, 2 bytes
    "bmp3": "\u4e2d",  # kind 2, 3 bytes
    "top_bmp": "\uffff",
    "astral": "\U0001f600",  # kind 4, 4 bytes
}
ESCAPED = ['"', "\\", "\x00", "\x08", "\t", "\n", "\x0b", "\x0c", "\r", "\x1f"]
NOT_ESCAPED = ["\x20", "\x7f", "\u0080", "\u2028", "/"]


def edge_strs(filler: str):
    """Strs of filler whose UTF-8 puts a character at the edges of the 4-, 8- and 16-byte blocks
    the writers read (and past them)."""
    for n in (0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 65):
        body = filler * n
        yield body
        for ch in ESCAPED + NOT_ESCAPED:
            for at in {0, n // 2, n}:
                yield body[:at] + ch + body[at:]


@pytest.mark.parametrize("kind", sorted(FILLERS))
def test_strs_of_every_kind_with_escapes_at_the_block_edges(reading, kind):
    # Catches a UTF-8 pointer or length read from the wrong field (a kept UTF-8 read as another
    # str's, or cut), a non-ASCII str taken for an ASCII one (its code units written as bytes), and
    # an escape missed or added at a block's edge.
    strs = [fresh(s) for s in edge_strs(FILLERS[kind])]
    for s in strs:
        want = jcs_string(s)
        assert want == json.dumps(s, ensure_ascii=False).encode()
        assert agree(s) == want
        assert agree([s]) == b"[" + want + b"]"
        assert agree((s, s)) == b"[" + want + b"," + want + b"]"
        assert agree({"k": s}) == b'{"k":' + want + b"}"
    assert agree(strs) == jcs_list(strs) == rfc8785.dumps(strs)


def test_dict_members_of_every_kind(reading):
    # A dict's plain members are written in a loop of their own (members() in fast_paths.h), a
    # str's UTF-8 read from the object there too: catches a member's value taken from another's,
    # or written without its escapes.
    for kind, filler in sorted(FILLERS.items()):
        values = [fresh(s) for s in list(edge_strs(filler))[:60]]
        doc = {f"m{i:03d}": v for i, v in enumerate(values)}
        doc["n"] = 7
        want = (
            "{"
            + ",".join(
                f'"{k}":' + jcs_string(doc[k]).decode() if isinstance(doc[k], str) else f'"{k}":7' for k in sorted(doc)
            )
            + "}"
        ).encode()
        assert agree(doc) == want, kind
        assert agree([doc, doc]) == b"[" + want + b"," + want + b"]", kind


def test_a_str_whose_utf8_is_kept_before_the_walk(reading):
    # CPython keeps a str's UTF-8 once asked for it (here, as a dict's name): the walker then reads
    # that; catches a kept UTF-8 of the wrong length or from another str.
    strs = [fresh("\u00e9t\u00e9 \u4e2d\u6587 " + str(i) + "\U0001f600" * (i % 3)) for i in range(50)]
    fastjcs.dumps({s: 0 for s in strs})  # the names' UTF-8, kept
    assert agree(strs) == jcs_list(strs)
    assert agree(strs * 3) == jcs_list(strs * 3)


def test_long_strs_of_every_kind(reading):
    for filler in FILLERS.values():
        s = fresh((filler * 997 + "\n") * 40 + '"')
        assert agree([s, s[:-1]]) == jcs_list([s, s[:-1]])


def test_str_subclasses_as_their_str(reading):
    class S(str):
        pass

    values = [S("plain"), S("\u00e9\n"), S('\u4e2d"'), S("\U0001f600\\")]
    assert agree(values) == jcs_list([str(v) for v in values])
    assert agree({"k": values[1]}) == b'{"k":' + jcs_string(str(values[1])) + b"}"


@pytest.mark.parametrize("lone", ["\ud800", "\udfff", "\udbff", "\udc00"])
@pytest.mark.parametrize("around", ["", "a", "\u00e9", "\u4e2d", "\U0001f600"])
def test_lone_surrogates_are_refused_as_before(reading, lone, around):
    # A str holding a lone surrogate has no UTF-8 (none is kept): the API's UnicodeEncodeError,
    # and the walker refuses it; the error is the Python backend's, in every place.
    s = around + lone + around
    for doc in (s, [s], ["x", s], (1, s), {"k": s}, [around, [s]]):
        got = outcome(fastjcs.dumps, doc)
        assert got[0] == "error", doc
        assert got == outcome(python_backend.dumps, doc, 100), doc
        assert got == outcome(native._dumps_marshal, doc, 100, False), doc
    with pytest.raises(fastjcs.CanonicalizationError):
        fastjcs.dumps([s])
    with pytest.raises(rfc8785.CanonicalizationError):
        rfc8785.dumps([s])


# ---- Ints -----------------------------------------------------------------------------------------


def int_values():
    values = [0]
    for digits in range(1, 17):
        low, high = 10 ** (digits - 1), 10**digits - 1
        values += [low, low + 1, (low + high) // 2, high]
    for bits in (29, 30, 31, 32, 52, 53):
        values += [2**bits - 1, 2**bits, 2**bits + 1]
    values = sorted({v for v in values if v <= 2**53 - 1})
    return values + [-v for v in values if v]


def test_ints_at_every_digit_count_and_sign(reading):
    # Catches a sign lost or doubled (a one-digit int read as its digit alone), a digit count
    # written wrongly (a leading zero, a digit dropped) and the second digit shifted wrongly.
    values = int_values()
    want = b"[" + ",".join(str(v) for v in values).encode() + b"]"
    assert want == rfc8785.dumps(values)
    assert agree(values) == want
    assert agree(tuple(values)) == want
    for v in values:
        assert agree(v) == str(v).encode()
        assert agree([v]) == b"[" + str(v).encode() + b"]"
        assert agree({"k": v}) == b'{"k":' + str(v).encode() + b"}"
    small = list(range(-10_001, 10_001))
    assert agree(small) == json.dumps(small, separators=(",", ":")).encode()


@pytest.mark.parametrize("big", [2**53, -(2**53), 2**60 - 1, 2**60, 2**64, 10**30, -(10**30)])
def test_ints_past_the_safe_range_are_refused(reading, big):
    for doc in (big, [big], [1, big], (big,), {"k": big}):
        got = outcome(fastjcs.dumps, doc)
        assert got[0] == "error", doc
        assert got == outcome(python_backend.dumps, doc, 100), doc


def test_bools_are_not_ints_and_int_subclasses_are_their_value(reading):
    class Int(int):
        pass

    doc = [True, False, 1, 0, Int(5), Int(-(2**40)), [True, 1], (False, 0)]
    assert agree(doc) == b"[true,false,1,0,5,-1099511627776,[true,1],[false,0]]"
    assert agree({"a": True, "b": 1, "c": Int(7)}) == b'{"a":true,"b":1,"c":7}'


def test_mixed_items_of_lists_and_tuples(reading):
    # Catches an item read from the wrong place in a list's array or a tuple (each item is distinct)
    for n in range(0, 12):
        items = [i if i % 3 else fresh(f"\u00e9{i}") if i % 2 else None for i in range(n)]
        want = json.dumps(items, ensure_ascii=False, separators=(",", ":")).encode()
        assert agree(items) == want
        assert agree(tuple(items)) == want
        assert agree([tuple(items), items]) == b"[" + want + b"," + want + b"]"


def test_the_walker_reads_items_and_kept_utf8_from_the_object_on_cpython():
    # Where CPython lays lists, tuples, strs and ints out as the walker reads them, the checks of
    # the layouts pass; catches a reading the checks (samples against the API) turn off: a tuple's
    # items read 8 bytes off, a latin-1 str read as ASCII, a one-digit int's sign lost.
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 15) or hasattr(sys, "gettotalrefcount"):
        pytest.skip("a CPython whose objects the walker may not read")
    assert direct.list_layout() is True
    assert direct.str_layout() is True
    if sys.int_info.bits_per_digit == 30:
        assert direct.int_layout() is True


def test_the_list_layout_hook():
    previous = direct.list_layout()
    try:
        assert direct.list_layout(False) is previous
        assert direct.list_layout() is False
        assert fastjcs.dumps([1, (2, "\u00e9")]) == '[1,[2,"\u00e9"]]'.encode()
    finally:
        direct.list_layout(previous)
    with pytest.raises(TypeError):
        direct.list_layout(1, 2)
