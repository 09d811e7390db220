"""A text that is already its own canonical form, given to canonicalize or digest_text on the direct
route, is answered without parsing (csrc/cpython/direct.c's text_result, through csrc/canonical.c's
check): itself, or the digest of its bytes, once JSON's whitespace around it is dropped. Every
answer and error must be the parser's.

Expected values: rfc8785.dumps of json.loads (RFC 8785's reference form), hashlib's SHA-256 of
it, and the pure-Python backend's answers and errors for the near-canonical texts.
"""

from __future__ import annotations

import hashlib
import json

import pytest
import rfc8785
from _canonical_cases import CANONICAL, NEAR
from _direct import direct_or_skip

import fastjcs
from fastjcs.core import python_backend

native, direct = direct_or_skip()

AROUND = [(b"", b""), (b"", b"\n"), (b" \t", b"\r\n"), (b"\n\n", b"  ")]


def outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))


def sha256(canonical: bytes) -> str:
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


@pytest.mark.parametrize("text", CANONICAL)
@pytest.mark.parametrize(("before", "after"), AROUND)
def test_a_canonical_text_gives_its_own_bytes(text, before, after):
    given = before + text + after
    expected = rfc8785.dumps(json.loads(text))
    assert expected == text
    assert fastjcs.canonicalize(given) == expected
    assert fastjcs.digest_text(given) == sha256(expected)
    assert native.canonicalize(given, 100, False) == expected  # the backend's call (no source object)


@pytest.mark.parametrize("text", CANONICAL)
def test_a_canonical_text_is_answered_as_itself(text):
    """The text, not a copy of it: the check took it (a parse would have made new bytes)."""
    assert fastjcs.canonicalize(text) is text


@pytest.mark.parametrize(("text", "wrong"), NEAR, ids=[w for _, w in NEAR])
@pytest.mark.parametrize(("before", "after"), AROUND[:2])
def test_a_near_canonical_text_is_parsed(text, wrong, before, after):
    given = before + text + after
    expected = outcome(python_backend.canonicalize, given, 100, False)
    assert outcome(fastjcs.canonicalize, given) == expected, wrong
    got = outcome(fastjcs.digest_text, given)
    assert got == (("ok", sha256(expected[1])) if expected[0] == "ok" else expected), wrong


def test_whitespace_alone_or_inside_is_the_parsers():
    for given in (b"", b" ", b"\n\r\t ", b"[1, 2]", b'{"a" :1}', b"[1]\x0b", b"\x0c[1]"):
        expected = outcome(python_backend.canonicalize, given, 100, False)
        assert outcome(fastjcs.canonicalize, given) == expected, given


def test_the_limits_are_the_parsers():
    """A canonical text deeper than max_depth, or holding a fraction under integers_only, is
    refused as the parser refuses it; within the limits it is taken."""
    deep = b"[" * 5 + b"]" * 5
    assert fastjcs.canonicalize(deep, max_depth=5) is deep
    for given, limits, args in (
        (deep, {"max_depth": 4}, (4, False)),
        (b"[1.5]", {"integers_only": True}, (100, False, True)),
    ):
        expected = outcome(python_backend.canonicalize, given, *args)
        assert expected[0] == "error"
        assert outcome(fastjcs.canonicalize, given, **limits) == expected
        assert outcome(fastjcs.digest_text, given, **limits) == expected
