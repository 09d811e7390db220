"""The walker's reading of strs and its member order (issue 31): names and values read from the
str object (compact ASCII: cpython/str_layout.c) or through the API, members compared by their
first 8 bytes as an integer before the rest (cpython/walker.c's pair_cmp).

RFC 8785 orders members by their names' UTF-16 code units. UTF-8 byte order agrees with it except
between a supplementary character (4-byte UTF-8, a surrogate pair D800.. in UTF-16) and one in
U+E000..U+FFFF (lead byte EE or EF), where UTF-16 puts the supplementary one first; names here put
that pair of characters before, across and after the 8th byte, after a shared prefix, and beside
NUL characters (a name's head is zero past its end). Expected values: rfc8785's bytes, Python's
sort by UTF-16-BE bytes, and bytes written out by hand.
"""

from __future__ import annotations

import ctypes
import itertools
import random
import sys
import warnings

import pytest
import rfc8785

import fastjcs
from fastjcs.core import python_backend
from fastjcs.core._direct_loader import direct

# around the corner: below the surrogates, U+E000..U+FFFF (EE, EF), supplementary (F0, F4)
CORNER = ["\ud7ff", "\ue000", "\uefff", "\uf000", "\uffff", "\U00010000", "\U0001f600", "\U0010ffff"]
PLAIN = ["", "a", "\x00", "\x7f", "\u00e9", "\u07ff", "\u0800"]
# shared prefixes that put the differing character in the head, across its end, and past it
PREFIXES = ["", "a", "abcdef", "abcdefg", "abcdefgh", "abcdefghijklmno"]


def str_readings():
    """The walker's readings of compact ASCII strs to test under (the object's layout, the API)."""
    if direct is None:
        return [None]
    return [True, False] if direct.str_layout() else [False]


@pytest.fixture(params=str_readings(), ids=lambda r: {True: "layout", False: "api", None: "python"}[r])
def reading(request):
    previous = direct.str_layout(request.param) if request.param is not None else None
    yield request.param
    if request.param is not None:
        direct.str_layout(previous)


def utf16_sorted(names):
    return sorted(names, key=lambda n: n.encode("utf-16-be", "surrogatepass"))


def expected_bytes(d: dict) -> bytes:
    return rfc8785.dumps({k: d[k] for k in utf16_sorted(d)})


def test_the_utf16_corner_written_out_by_hand(reading):
    # catches names compared as UTF-8 bytes alone (U+E000 would come before U+10000)
    assert fastjcs.dumps({"\ue000": 1, "\U00010000": 2}) == '{"\U00010000":2,"\ue000":1}'.encode()
    assert fastjcs.dumps({"\uffff": 1, "\U0010ffff": 2, "\ud7ff": 3}) == (
        '{"\ud7ff":3,"\U0010ffff":2,"\uffff":1}'.encode()
    )
    # the same corner 8 bytes in, where the heads agree and the rest decides
    a, b = "abcdefgh\uf000", "abcdefgh\U0001f600"
    assert fastjcs.dumps({a: 1, b: 2}) == f'{{"{b}":2,"{a}":1}}'.encode()
    # ... and across the head's end (the corner character's lead byte is the 8th byte)
    a, b = "abcdefg\ue000", "abcdefg\U00010000"
    assert fastjcs.dumps({a: 1, b: 2}) == f'{{"{b}":2,"{a}":1}}'.encode()


def test_names_that_are_prefixes_and_hold_nul(reading):
    # a head is zero past the name's end: catches a proper prefix not put first, and "a" and
    # "a\x00" taken as equal (their heads are) or compared by head alone
    names = ["a", "a\x00", "a\x00b", "a\x00\x00", "\x00", "", "abcdefgh", "abcdefgh\x00", "abcdefg", "abcdefgh\x01"]
    d = {n: i for i, n in enumerate(names)}
    assert fastjcs.dumps(d) == expected_bytes(d) == rfc8785.dumps(d)
    assert list(utf16_sorted(names))[:4] == ["", "\x00", "a", "a\x00"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_every_pair_around_the_corner(reading, prefix):
    # each pair of characters, after a shared prefix, in both orders of insertion: catches a
    # corner check made on the wrong byte of the head (the first differing one decides)
    chars = CORNER + PLAIN
    for x, y in itertools.combinations(chars, 2):
        for tail in ("", "z", "\ue000"):
            for names in ([prefix + x + tail, prefix + y], [prefix + y, prefix + x + tail]):
                d = {n: i for i, n in enumerate(names)}
                assert fastjcs.dumps(d) == expected_bytes(d), names


@pytest.mark.parametrize("seed", range(6))
def test_random_names_around_the_corner_match_rfc8785(reading, seed):
    # objects past the insertion sort's cutoff (16) too, so the merge sort compares them as well
    rng = random.Random(seed)
    alphabet = CORNER + PLAIN + ["b", "abcdefgh"]
    for _ in range(300):
        d = {}
        for j in range(rng.choice([2, 5, 16, 17, 40])):
            d["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))] = j
        assert fastjcs.dumps(d) == rfc8785.dumps(d) == expected_bytes(d), d


def test_ascii_strs_of_every_length_read_from_the_object(reading):
    # catches the length or the start of the characters read at the wrong offset, and a string
    # with a character that needs an escape taken as plain
    for n in range(0, 70):
        s = "".join(chr(0x21 + (i * 7) % 90) for i in range(n))
        fresh = "".join([s])  # made now, not interned
        for doc in ({fresh: fresh}, [fresh, fresh], {"k": [1, fresh]}, fresh):
            assert fastjcs.dumps(doc) == rfc8785.dumps(doc), doc
    for s in ("a\x00b", "\x1f", 'q"q', "back\\slash", "tab\there"):
        assert fastjcs.dumps({s: s}) == rfc8785.dumps({s: s})


def test_non_ascii_strs_are_not_read_as_ascii(reading):
    # the same lengths, one character past ASCII (Latin-1, BMP, supplementary): catches a reader
    # that takes a compact non-ASCII str (1-, 2- or 4-byte kind) as ASCII
    for extra in ("\u00e9", "\u20ac", "\U0001f600", "\x80"):
        for n in (0, 1, 7, 8, 15, 16, 40):
            s = "x" * n + extra
            assert fastjcs.dumps({s: [s]}) == rfc8785.dumps({s: [s]})


class Name(str):
    def __str__(self):
        return "not-the-name"


def test_str_subclass_names_and_values(reading):
    # a str subclass is not read by layout (its objects are not compact): the walker leaves a
    # subclass key to Python, and reads a subclass value through the API
    d = {Name("b"): Name("v"), "a": [Name("\u00e9x"), Name("")]}
    assert fastjcs.dumps(d) == rfc8785.dumps(d) == '{"a":["\u00e9x",""],"b":"v"}'.encode()
    assert fastjcs.dumps(d) == python_backend.dumps(d, 100)


@pytest.mark.skipif(
    sys.implementation.name != "cpython" or sys.version_info >= (3, 12),
    reason="legacy (non-compact) strs are made only on CPython 3.10 and 3.11",
)
def test_legacy_strs_are_read_through_the_api(reading):
    # A str made by PyUnicode_FromUnicode(NULL, n) and filled is an exact str whose characters
    # are in a block of their own (not compact, its ascii bit set): catches a reader that checks
    # the ascii bit alone and reads the header's next fields as characters.
    api = ctypes.pythonapi
    new = api.PyUnicode_FromUnicode
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_ssize_t]
    wide = api.PyUnicode_AsUnicode
    wide.restype, wide.argtypes = ctypes.c_void_p, [ctypes.py_object]
    ready = api._PyUnicode_Ready
    ready.restype, ready.argtypes = ctypes.c_int, [ctypes.py_object]

    def legacy(text: str) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # (deprecated since 3.3)
            s = new(None, len(text))
        units = text.encode("utf-32-le")
        ctypes.memmove(wide(s), units, len(units))
        assert ready(s) == 0
        assert type(s) is str and s == text
        return s

    names = [legacy(t) for t in ("beta", "alpha-longer-than-8", "\u00e9t\u00e9", "b")]
    d = {n: legacy("v" + n) for n in names}
    assert fastjcs.dumps(d) == rfc8785.dumps(dict(d))
    assert fastjcs.dumps([legacy("plain"), legacy("x" * 20)]) == b'["plain","' + b"x" * 20 + b'"]'


def test_the_walker_reads_ascii_strs_from_the_object_on_cpython():
    # Where CPython lays strs out as the walker reads them (3.10 to 3.13), its check of the
    # layout passes; catches a reading the check (sample strs against the API) turns off.
    if direct is None:
        pytest.skip("no direct entry (PyPy, 3.9, FASTJCS_DIRECT=0)")
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 14) or hasattr(sys, "gettotalrefcount"):
        pytest.skip("a CPython whose strs the walker may not read from the object")
    assert direct.str_layout() is True


def test_a_default_that_removes_fresh_names_not_yet_written(reading):
    # The names are made at run time (the dict holds the only reference): default empties the
    # dict, freeing them, while the walker still has to write the next name. It holds each name
    # (a freed one's bytes would be written, which the sanitizer build reports); the answer is
    # Python's: the removed member's RuntimeError.
    names = ["".join(["name-", str(i), "-long-enough"]) for i in range(3)]
    d: dict = {}

    def default(value):
        d.clear()
        return 0

    d[names[0]] = object()
    d[names[1]] = "one"
    d[names[2]] = 2
    del names
    with pytest.raises(RuntimeError, match="dictionary changed during canonicalization"):
        fastjcs.dumps(d, default=default)


def test_members_in_a_row_give_way_at_any_member(reading):
    # The walker writes a dict's plain members in a loop of its own and gives way, taking back
    # what it wrote of the member, at a name or str that needs an escape, a non-ASCII str, an int
    # past 2^53 - 1, NaN, a float under integers_only, or any other value; catches a member taken
    # back only in part (its comma or name left written) and one written twice.
    plain = {"a": 1, "b": "two", "c": 2.5, "d": None, "e": True, "f": False}
    others = ['q"q', "back\\slash", "\x01", "caf\u00e9", [1], {"x": "y"}, "", 2**53 - 1, -(2**53 - 1), 1e21]
    for other in others:
        for name in ("0", "ca", "m", "z", 'n"ame', "tab\tname", "n\u00e9"):
            d = dict(plain)
            d[name] = other
            assert fastjcs.dumps(d) == rfc8785.dumps(d), d
    for bad in (2**53, float("nan"), float("inf")):
        for name in ("0", "ca", "z"):
            d = dict(plain)
            d[name] = bad
            got = outcome(fastjcs.dumps, d)
            assert got[0] == "error" and got == outcome(python_backend.dumps, d, 100), d
    d = dict(plain, z=0.5)
    assert outcome(fastjcs.dumps, d, integers_only=True) == outcome(python_backend.dumps, d, 100, integers_only=True)


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))


def test_dicts_of_one_count_with_other_names_or_orders(reading):
    # The walker keeps the member order of a dict (per member count, from the second sorted in a
    # walk) for the dicts that hold the same names, the same objects in the same order; catches
    # an order taken for other names, for the same names in another order, or for names that
    # agree only in part (the first, the last).
    rows = [
        {"b": 1, "a": 2, "c": 3},
        {"b": 1, "a": 2, "c": 3},
        {"b": 1, "a": 2, "0": 3},
        {"b": 1, "a": 2, "c": 3},
        {"0": 1, "a": 2, "c": 3},
        {"c": 1, "a": 2, "b": 3},
        {"b": 1, "a": 2, "d": 3},
        {"x": 1, "a": 2, "c": 3},
        {"b": 1, "a": 2, "c": 3},
        {"a": 1, "b": 2, "c": 3},
        {"b": 1, "c": 2, "a": 3},
        {"b": 1, "a": 2, "\U0001f600": 3, "\ue000": 4},
        {"b": 1, "a": 2, "\ue000": 3, "\U0001f600": 4},
    ]
    doc = [rows, {"nested": rows}, rows[::-1]]
    assert fastjcs.dumps(doc) == rfc8785.dumps(doc)
    wide = [{f"k{(i * 7 + j) % 16:02d}": j for j in range(16)} for i in range(6)]
    assert fastjcs.dumps(wide + wide) == rfc8785.dumps(wide + wide)


def test_kept_orders_hold_their_names(reading):
    # A kept order's names are held until the walk ends: default frees the dict written last (and
    # its names, made at run time), then makes two names, which the allocator may place where the
    # freed ones were (the last freed first), and returns a dict of them in order. Compared by
    # address alone, the freed names' order would be taken for them; catches names not held.
    for attempt in range(20):
        heads, tails = ["y", "z", "a", "b"], [f"y{attempt}", f"z{attempt}", f"a{attempt}", f"b{attempt}"]
        rows = [{heads[1] + tails[1]: 0, heads[0] + tails[0]: 1} for _ in range(2)]
        later: list = []

        def default(value, rows=rows, later=later, heads=heads, tails=tails):
            rows.pop()  # frees its names: z..., then y...
            first = heads[3] + tails[3]  # "b...": where y... was, if anywhere
            second = heads[2] + tails[2]  # "a...": where z... was
            later.append({second: 0, first: 1})  # in order
            return later

        got = fastjcs.dumps([rows, object()], default=default)
        one = {f"yy{attempt}": 1, f"zz{attempt}": 0}
        assert got == rfc8785.dumps([[one, one], [{f"aa{attempt}": 0, f"bb{attempt}": 1}]])
