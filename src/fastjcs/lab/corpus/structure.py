"""Structure categories: top level, duplicate names, depth, large and empty containers."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import fastjcs

from .cases import _category, _lists, _Raw
from .order import _in_slot, _object
from .string import _jstr
from .whitespace import _WS, _fill, _key_text, _Parts, _scalar

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
