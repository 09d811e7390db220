"""The token-preserving JSON reader the tools share: numbers kept as their tokens, objects as
their member lists (order and duplicates kept). Independent of fastjcs's own parser, so the
tools can judge fastjcs (and other implementations) by it.

    >>> node = read('{"b": 1.0, "a": [1E2], "b": 2}')
    >>> node
    [('b', '1.0'), ('a', ['1E2']), ('b', '2')]
    >>> emit(node)
    '{"b":1.0,"a":[1E2],"b":2}'
"""

from __future__ import annotations

import json
from typing import Any, Callable, NoReturn

_WS = (" ", "\t", "\n", "\r")


class Token(str):
    """A number token, verbatim."""


class Members(list):
    """An object's members, (name, value) in order, duplicates kept."""


def read(text: bytes | str) -> Any:
    """The JSON text as nested lists, Members, Tokens, strs, bools and None (ValueError if it
    is not JSON)."""
    return json.loads(text, object_pairs_hook=Members, parse_float=Token, parse_int=Token)


def member_texts(raw: bytes, *, unique: bool = False) -> dict[str, bytes]:
    """The text of each top-level member's value of a JSON object, byte for byte as written:
    `{"n": -0}` gives `{"n": b"-0"}`. For reading a document that embeds JSON text (a vector file's
    `input`) without letting a collapsing parser see the embedded text first. The last of a repeated
    name wins, or with `unique` a repeated name is a ValueError. ValueError if `raw` is not one
    UTF-8 JSON object."""
    text = raw.decode("utf-8")
    decoder = json.JSONDecoder()
    members: dict[str, bytes] = {}
    try:
        return _member_texts(text, decoder, members, unique)
    except RecursionError:
        raise ValueError("nested too deep to read") from None


class NotAnObjectError(ValueError):
    """A document that is JSON, but not one object."""


def read_document(raw: bytes) -> dict[str, Any]:
    """A vector file's (or a manifest's) top-level object, as json.loads reads it, for a verdict:
    ValueError if it is not one UTF-8 JSON object, if a top-level name is repeated (which of two
    `expected` members a parser keeps must not decide a verdict), or if it nests deeper than Python
    can read. Values inside a member keep json.loads's reading: a vector's `input` may embed a
    repeated name on purpose (a must-fail case), and is read from its own text."""
    try:
        doc = json.loads(raw)
    except RecursionError:
        raise ValueError("nested too deep to read") from None
    if not isinstance(doc, dict):
        raise NotAnObjectError("not one JSON object")
    member_texts(raw, unique=True)  # refuses a repeated top-level name
    return doc


def _member_texts(text: str, decoder: json.JSONDecoder, members: dict[str, bytes], unique: bool) -> dict[str, bytes]:

    def skip(i: int) -> int:
        while text[i : i + 1] in _WS:
            i += 1
        return i

    def expect(i: int, what: str) -> NoReturn:
        raise ValueError(f"{what} expected at character {i}")

    i = skip(0)
    if text[i : i + 1] != "{":
        expect(i, "'{'")
    i = skip(i + 1)
    if text[i : i + 1] == "}":
        return members
    while True:
        if text[i : i + 1] != '"':
            expect(i, "a member name")
        name, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = skip(i)
        if text[i : i + 1] != ":":
            expect(i, "':'")
        start = skip(i + 1)
        _, end = decoder.raw_decode(text, start)
        if unique and name in members:
            raise ValueError(f"the member name {name!r} is repeated at the top level")
        members[name] = text[start:end].encode("utf-8")
        i = skip(end)
        if text[i : i + 1] == "}":
            return members
        if text[i : i + 1] != ",":
            expect(i, "',' or '}'")
        i = skip(i + 1)


def emit(node: Any) -> str:
    """The JSON text of a node `read` gave (compact; tokens and member order as read)."""
    if isinstance(node, Members):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + emit(v) for k, v in node) + "}"
    if isinstance(node, list):
        return "[" + ",".join(emit(v) for v in node) + "]"
    if isinstance(node, Token):
        return str(node)
    return json.dumps(node, ensure_ascii=False)


def rewrite(node: Any, leaf: Callable[[Any], Any], members: Callable[[Members], Members]) -> Any:
    """Children first: rewrite leaves with `leaf`, then each object's member list with `members`."""
    if isinstance(node, Members):
        return members(Members((k, rewrite(v, leaf, members)) for k, v in node))
    if isinstance(node, list):
        return [rewrite(v, leaf, members) for v in node]
    return leaf(node)
