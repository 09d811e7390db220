"""Limits and hostile input, on both backends (docs/robustness.md).

Each test states what must happen past a limit: a clean error of the documented class, or a
correct answer, never a crash, a hang, or the wrong exception. The big ones are marked slow; the
plain test command (and CI) runs them. README.md ("Robustness") states the limits.
"""

from __future__ import annotations

import functools
import gc
import math
import os
import random
import time
from collections import OrderedDict
from decimal import Decimal
from types import MappingProxyType

import pytest
from _markers import rss_is_meaningful

import fastjcs
from fastjcs import (
    CanonicalizationError,
    CircularReferenceError,
    DepthLimitError,
    FloatDomainError,
    IntegerDomainError,
    InvalidJSONError,
    UnsupportedTypeError,
)

MB = 1 << 20


def _nested_list(depth: int) -> list:
    value: list = []
    gc.disable()  # building a million containers, each collection would walk them all
    try:
        for _ in range(depth - 1):
            value = [value]
    finally:
        gc.enable()
    return value


def _nested_dict(depth: int) -> dict:
    value: dict = {}
    gc.disable()
    try:
        for _ in range(depth - 1):
            value = {"a": value}
    finally:
        gc.enable()
    return value


# ---- nesting -----------------------------------------------------------------------------------


@pytest.mark.parametrize("opener,closer", [(b"[", b"]"), (b'{"a":', b"}")])
def test_million_deep_text_hits_the_default_limit(backend, opener, closer):
    n = 10**6
    data = opener * n + b"0" + closer * n
    with pytest.raises(DepthLimitError) as info:
        fastjcs.canonicalize(data)
    # At the bracket that opens the 10,001st container.
    assert info.value.offset == len(opener) * fastjcs.DEFAULT_MAX_DEPTH


@pytest.mark.slow
def test_million_deep_unterminated_text(backend):
    with pytest.raises(DepthLimitError):
        fastjcs.canonicalize(b"[" * 10**6)
    with pytest.raises(InvalidJSONError) as info:  # no limit reached: the end comes first
        fastjcs.canonicalize(b"[" * 10**6, max_depth=10**6)
    assert info.value.offset == 10**6


@pytest.mark.slow
def test_million_deep_text_with_the_limit_raised(backend):
    """max_depth=10**6: the text is accepted and comes back unchanged (it is canonical), in time
    linear in the depth. The time bounds are 10x what is measured here (C: 0.05-0.5 s, Python:
    6-18 s per text): loose enough for a loaded or sanitized machine, while anything quadratic
    in the depth (10^12 steps) would take hours."""
    n = 10**6
    shapes = [(b"[", b"]")]
    if backend.NAME == "native":
        shapes += [(b'{"a":', b"}"), (b'[{"a":', b"}]")]
    for opener, closer in shapes:
        data = opener * n + b"1" + closer * n
        start = time.perf_counter()
        assert fastjcs.canonicalize(data, max_depth=len(opener) * n) == data
        elapsed = time.perf_counter() - start
        assert elapsed < (5 if backend.NAME == "native" else 180), (opener, elapsed)
    if backend.NAME == "native":
        data = b"[" * n + b"]" * n
        with pytest.raises(DepthLimitError) as info:
            fastjcs.canonicalize(data, max_depth=n - 1)
        assert info.value.offset == n - 1


@pytest.mark.parametrize("make", [_nested_list, _nested_dict])
def test_million_deep_object_hits_the_default_limit(backend, make):
    value = make(10**6)
    with pytest.raises(DepthLimitError):
        fastjcs.dumps(value)


@pytest.mark.slow
def test_deep_object_with_the_limit_raised(backend):
    n = 2 * 10**5  # deeper than marshal's own limit: the native backend falls back cleanly
    assert fastjcs.dumps(_nested_list(n), max_depth=n) == b"[" * n + b"]" * n


# ---- sizes -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_100_mb_string_text(backend):
    body = b"a" * (100 * MB) + b"\\n\\u00e9"  # escapes at the end: the unescaping path all along
    out = fastjcs.canonicalize(b'"' + body + b'"')
    assert len(out) == 100 * MB + 6
    assert out[:4] == b'"aaa' and out[-5:] == b'\\n\xc3\xa9"'


@pytest.mark.slow
def test_100_mb_string_object(backend):
    value = "\u00e9" + "a" * (100 * MB) + "\x01"
    out = fastjcs.dumps(value)
    assert len(out) == 100 * MB + 10
    assert out[:4] == b'"\xc3\xa9a' and out[-7:] == b'\\u0001"'


@pytest.mark.parametrize("char", ["\x00", "\x1f", '"', "\\", "\n"])
def test_long_strings_that_all_need_escaping(backend, char):
    """Output up to 6x the input: the writer must reserve for the escapes, block by block."""
    n = 100_000
    expected = b'"' + _escape(char) * n + b'"'
    assert fastjcs.dumps(char * n) == expected
    assert fastjcs.canonicalize(expected) == expected


def _escape(char: str) -> bytes:
    short = {'"': b'\\"', "\\": b"\\\\", "\n": b"\\n"}
    return short.get(char, f"\\u{ord(char):04x}".encode())


@functools.cache
def _million_members() -> tuple:
    """(the names in canonical order, the same shuffled), built once for both backends."""
    keys = [f"k{i:07d}" for i in range(10**6)]
    shuffled = keys[:]
    random.Random(8785).shuffle(shuffled)
    return keys, shuffled


@functools.cache
def _million_members_text() -> tuple:
    keys, shuffled = _million_members()
    # The values follow the names: member k0000012 has the value 12 in both texts.
    value = {k: int(k[1:]) for k in keys}
    data = ("{" + ",".join([f'"{k}":{value[k]}' for k in shuffled]) + "}").encode()
    expected = ("{" + ",".join([f'"{k}":{value[k]}' for k in keys]) + "}").encode()
    return data, expected


@pytest.mark.slow
def test_million_members_text(backend):
    data, expected = _million_members_text()
    assert fastjcs.canonicalize(data) == expected
    if backend.NAME == "native":  # C finds duplicates by sorting: check it at scale (Python: a dict)
        with pytest.raises(fastjcs.DuplicateKeyError) as info:
            fastjcs.canonicalize(data[:-1] + b',"k0000000":1}')
        assert info.value.key == "k0000000" and info.value.offset == len(data)


@pytest.mark.slow
def test_million_members_object(backend):
    keys, shuffled = _million_members()
    out = fastjcs.dumps(dict.fromkeys(shuffled))
    assert out == ("{" + ",".join([f'"{k}":null' for k in keys]) + "}").encode()


@functools.cache
def _prefix_keys() -> tuple:
    """10^5 keys sharing a 256-character prefix, in groups of five that differ only in their last
    character, where UTF-16 order and code point order disagree (U+E000..U+FFFF against
    astral characters)."""
    prefix = "p" * 128 + "\u00e9" * 64 + "x" * 64
    tails = ["", "\ufb33", "\U0001f602", "\uffff", "\U00010000"]
    return tuple(f"{prefix}{i // 5:05d}{tails[i % 5]}" for i in range(10**5))


def _utf16_order(keys: list) -> list:
    return sorted(keys, key=lambda k: k.encode("utf-16-be"))


@pytest.mark.slow
def test_keys_sharing_a_long_prefix_text(backend):
    keys = _prefix_keys()
    shuffled = list(keys)
    random.Random(1).shuffle(shuffled)
    data = ("{" + ",".join(f'"{k}":1' for k in shuffled) + "}").encode()
    expected = ("{" + ",".join(f'"{k}":1' for k in _utf16_order(keys)) + "}").encode()
    assert fastjcs.canonicalize(data) == expected


def test_keys_sharing_a_long_prefix_object(backend):
    keys = _prefix_keys()
    shuffled = list(keys)
    random.Random(2).shuffle(shuffled)
    out = fastjcs.dumps(dict.fromkeys(shuffled, 0))
    assert out == ("{" + ",".join(f'"{k}":0' for k in _utf16_order(keys)) + "}").encode()


# ---- invalid UTF-8 -----------------------------------------------------------------------------

# Every kind of ill-formed sequence (Unicode Table 3-7, RFC 3629 section 4).
BAD_UTF8 = {
    "continuation-80": b"\x80",
    "continuation-bf": b"\xbf",
    "overlong-c0": b"\xc0\x80",
    "overlong-c1": b"\xc1\xbf",
    "overlong-e0": b"\xe0\x80\x80",
    "overlong-e0-9f": b"\xe0\x9f\xbf",
    "overlong-f0": b"\xf0\x80\x80\x80",
    "overlong-f0-8f": b"\xf0\x8f\xbf\xbf",
    "surrogate-high": b"\xed\xa0\x80",
    "surrogate-low": b"\xed\xbf\xbf",
    "above-10ffff": b"\xf4\x90\x80\x80",
    "lead-f5": b"\xf5\x80\x80\x80",
    "lead-ff": b"\xff",
    "truncated-2": b"\xc3",
    "truncated-3": b"\xe2\x82",
    "truncated-4": b"\xf0\x9f\x98",
    "bad-continuation-2": b"\xc3\x41",
    "bad-continuation-3": b"\xe2\x28\xa1",
    "bad-continuation-4": b"\xf0\x9f\x41\x82",
}


@pytest.mark.parametrize("name", sorted(BAD_UTF8))
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_invalid_utf8_in_a_string(backend, name, where):
    bad = BAD_UTF8[name]
    before = {"start": b"", "middle": b"ab\xc3\xa9", "end": b"abc\xe2\x82\xac"}[where]
    data = b'{"k":["' + before + bad + b'"]}'
    with pytest.raises(InvalidJSONError) as info:
        fastjcs.canonicalize(data)
    assert info.value.offset == 7 + len(before)


@pytest.mark.parametrize("name", sorted(BAD_UTF8))
def test_invalid_utf8_at_the_end_of_the_input(backend, name):
    data = b'["ok","' + BAD_UTF8[name]
    with pytest.raises(InvalidJSONError) as info:
        fastjcs.canonicalize(data)
    assert info.value.offset == 7


@pytest.mark.parametrize("name", sorted(BAD_UTF8))
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_invalid_utf8_outside_strings(backend, name, where):
    data = {"start": BAD_UTF8[name] + b"[1]", "middle": b"[1," + BAD_UTF8[name] + b"]", "end": b"[1]" + BAD_UTF8[name]}[
        where
    ]
    with pytest.raises(InvalidJSONError) as info:
        fastjcs.canonicalize(data)
    assert info.value.offset == {"start": 0, "middle": 3, "end": 3}[where]


def test_byte_order_mark_refused(backend):
    with pytest.raises(InvalidJSONError) as info:
        fastjcs.canonicalize(b"\xef\xbb\xbf[]")
    assert info.value.offset == 0


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_lone_surrogate_in_str_input(backend, where):
    s = {"start": "\ud800ab", "middle": "a\udfffb", "end": "ab\udbff"}[where]
    with pytest.raises(InvalidJSONError):
        fastjcs.canonicalize(f'["{s}"]')
    with pytest.raises(CanonicalizationError):
        fastjcs.dumps([s])
    with pytest.raises(CanonicalizationError):
        fastjcs.dumps({s: 1})


# ---- numbers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("token", [b"1e400", b"-1e400", b"1E+400", b"1.8e308", str(2**1024).encode()])
def test_overflowing_number_token(backend, token):
    with pytest.raises(FloatDomainError) as info:
        fastjcs.canonicalize(b"[0, " + token + b"]")
    assert info.value.offset == 4


def test_non_finite_floats_refused(backend):
    for x in (math.inf, -math.inf, math.nan):
        with pytest.raises(FloatDomainError):
            fastjcs.dumps({"x": [x]})


def test_underflow_is_zero(backend):
    assert fastjcs.canonicalize(b"[1e-400,0.0000e-99999]") == b"[0,0]"


def test_negative_underflow_is_zero(backend):
    assert fastjcs.canonicalize(b"[-1e-400,-0.0]") == b"[0,0]"


def test_hundred_thousand_digit_tokens(backend):
    n = 10**5
    with pytest.raises(FloatDomainError):
        fastjcs.canonicalize(b"1" + b"0" * n)
    with pytest.raises(FloatDomainError):
        fastjcs.canonicalize(b"-" + b"9" * n + b".5")
    assert fastjcs.canonicalize(b"0." + b"0" * n + b"1") == b"0"
    assert fastjcs.canonicalize(b"[0e" + b"9" * n + b"]") == b"[0]"
    with pytest.raises(IntegerDomainError):
        fastjcs.canonicalize(b"1" + b"0" * n, strict_integers=True)
    # The grammar is checked to the last digit.
    with pytest.raises(InvalidJSONError) as info:
        fastjcs.canonicalize(b"1" + b"0" * n + b".")
    assert info.value.offset == n + 2


def test_hundred_thousand_digit_tokens_read_exactly(backend):
    n = 10**5
    assert fastjcs.canonicalize(b"1" + b"0" * n + b"e-" + str(n).encode()) == b"1"
    assert fastjcs.canonicalize(b"0." + b"3" * n) == b"0.3333333333333333"
    assert fastjcs.canonicalize(b"1." + b"0" * n + b"1") == b"1"


def test_huge_python_ints(backend):
    for value in (2**53, -(2**53), 10**5000, -(10**5000), 1 << 100_000):
        with pytest.raises(IntegerDomainError):
            fastjcs.dumps([value])


# ---- cycles and types --------------------------------------------------------------------------


def _cycles() -> dict:
    direct_list: list = []
    direct_list.append(direct_list)
    direct_dict: dict = {}
    direct_dict["self"] = direct_dict
    deep: dict = {"a": [{"b": []}]}
    deep["a"][0]["b"].append(deep)
    mid: list = [1, {"x": [2, [3]]}]
    mid[1]["x"][1].append(mid[1])
    via_tuple: tuple = ([],)
    via_tuple[0].append(via_tuple)
    ordered = OrderedDict(k=[])
    ordered["k"].append(ordered)
    return {
        "direct-list": direct_list,
        "direct-dict": direct_dict,
        "dict-list-dict": deep,
        "inner": mid,
        "tuple": via_tuple,
        "ordered-dict": ordered,
    }


@pytest.mark.parametrize("name", sorted(_cycles()))
def test_cycles(backend, name):
    with pytest.raises(CircularReferenceError):
        fastjcs.dumps(_cycles()[name])


def test_shared_is_not_a_cycle(backend):
    leaf = {"z": [1, "s"]}
    level = [leaf, leaf]
    for _ in range(10):  # 2^10 paths to the same leaf
        level = [level, level]
    out = fastjcs.dumps(level)
    assert out.count(b'{"z":[1,"s"]}') == 2**11


UNSUPPORTED = {
    "set": {1},
    "frozenset": frozenset({1}),
    "bytes": b"x",
    "bytearray": bytearray(b"x"),
    "memoryview": memoryview(b"x"),
    "complex": 1j,
    "decimal": Decimal("1.5"),
    "ellipsis": ...,
    "object": object(),
    "mapping-proxy": MappingProxyType({"a": 1}),
    "range": range(3),
    "type": int,
    "function": len,
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_types_json_cannot_carry(backend, name):
    value = UNSUPPORTED[name]
    for wrapped in (value, [1, value], {"k": (value,)}):
        with pytest.raises(UnsupportedTypeError):
            fastjcs.dumps(wrapped)


@pytest.mark.parametrize("key", [1, 1.5, None, True, (1, 2), b"k", frozenset()])
def test_keys_that_are_not_str(backend, key):
    with pytest.raises(UnsupportedTypeError):
        fastjcs.dumps({key: 1})
    with pytest.raises(UnsupportedTypeError):
        fastjcs.dumps([{"a": 1, key: 2}])


# ---- memory over many calls --------------------------------------------------------------------


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


_GOOD = (
    b'{"z":[1,2,{"y":"\\u00e9\\n","x":null}],"b":true,"a":"'
    + b"s" * 300
    + b'",'
    + b",".join(b'"k%d":%d' % (i, i) for i in range(40, 0, -1))
    + b"}"
)
_VALUE = {
    "z": [1, 2, {"y": "\u00e9\n", "x": None}],
    "b": True,
    "a": "s" * 300,
    **{f"k{i}": i for i in range(40, 0, -1)},
}
_CYCLE: list = [{"a": 1}]
_CYCLE.append(_CYCLE)


def _calls():
    """One round of calls, successes and every kind of failure, each after allocations."""
    yield lambda: fastjcs.canonicalize(_GOOD)
    yield lambda: fastjcs.canonicalize(_GOOD[:-1] + b',"k1":0}')  # duplicate: found at the close
    yield lambda: fastjcs.canonicalize(_GOOD[:-1] + b",}")  # syntax, at the very end
    yield lambda: fastjcs.canonicalize(_GOOD, max_depth=2)  # depth
    yield lambda: fastjcs.canonicalize(_GOOD[:-1] + b',"n":1e999}')  # number domain
    yield lambda: fastjcs.dumps(_VALUE)
    yield lambda: fastjcs.dumps(_CYCLE)
    yield lambda: fastjcs.dumps([_VALUE, {1: 2}])
    yield lambda: fastjcs.dumps([_VALUE, "\ud800"])


@rss_is_meaningful
def test_no_memory_growth(backend):
    funcs = list(_calls())
    calls = 10**5 if backend.NAME == "native" else 10**4  # the C core is the one to watch
    rounds = calls // len(funcs)

    def run(n: int) -> None:
        for _ in range(n):
            for f in funcs:
                try:
                    f()
                except CanonicalizationError:
                    pass

    run(500)  # warm up: caches, interned strings, allocator pools
    gc.collect()
    before = _rss()
    run(rounds)
    gc.collect()
    grown = _rss() - before
    # A leak of the smallest buffer the core allocates (256 bytes) on any one path would be
    # more than 2.5 MB here; the interpreter itself wanders by far less.
    assert grown < 2 * MB, f"RSS grew by {grown / MB:.1f} MB over {rounds * len(funcs)} calls"


@rss_is_meaningful
def test_no_memory_growth_in_batches(native):
    lines = b"\n".join([_GOOD, _GOOD[:-1] + b",}", b"[1,2]", b"{", b'{"a":1,"a":2}'] * 20)
    values = [_VALUE, [1, 2], "x"] * 20

    def run(n: int) -> None:
        for _ in range(n):
            native.digest_lines(lines, 10_000, False, "sha256")
            native.digest_many(values, 10_000, "sha256")
            try:
                native.digest_many(values + [{1: 2}], 10_000, "sha384")
            except CanonicalizationError:
                pass

    run(100)
    gc.collect()
    before = _rss()
    run(1000)  # 10^5 texts and 6 x 10^4 values
    gc.collect()
    grown = _rss() - before
    assert grown < 2 * MB, f"RSS grew by {grown / MB:.1f} MB"
