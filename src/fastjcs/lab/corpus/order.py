"""Member-order categories (RFC 8785 3.2.3)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .cases import _SORT, _category, _lists, _Raw
from .string import _STRING_SLOTS, _jstr
from .whitespace import _key_text

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
