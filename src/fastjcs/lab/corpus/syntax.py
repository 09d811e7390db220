"""Syntax categories: lenient and broken texts, which must be refused."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .cases import _category, _lists, _Raw
from .number import _NUMBER_SLOTS
from .order import _in_slot
from .string import _filler
from .whitespace import _WS, _document, _fill

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


#: Missing or misplaced separators, and unbalanced brackets or quotes: what the sampler draws
#: from, and the listed cases enumerate (with the other broken texts of _BROKEN).
_BAD_SEPARATORS = [
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
]
_UNBALANCED = [b"[}", b"{]", b"[1}", b'{"a":1]', b"]", b"}", b"[[]", b'"abc', b'["a]', b'{"a":"b}', b'["\\"]']


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
        return _in_slot(rng, rng.choice(_BAD_SEPARATORS)), False, "a missing or misplaced separator", None
    return rng.choice(_UNBALANCED), False, "unbalanced brackets or quotes", None


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
    *_BAD_SEPARATORS,
    *_UNBALANCED,
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
