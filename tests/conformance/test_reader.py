"""The conformance reader's `member_texts`: the raw text of a vector file's top-level members, as
written (the runner and the serve-vector protocol read a vector's embedded JSON text with it)."""

from __future__ import annotations

import pytest

from fastjcs.conformance.reader import member_texts


def test_member_texts_are_the_bytes_as_written():
    raw = b'{ "n" : -0 , "s": "\\u00e9\xc3\xa9", "a" :[1.0, {"x":1E2, "x":2}]\n, "e": {}, "n": 12.50 }'
    assert member_texts(raw) == {
        "n": b"12.50",  # the last of a repeated name wins
        "s": b'"\\u00e9\xc3\xa9"',
        "a": b'[1.0, {"x":1E2, "x":2}]',
        "e": b"{}",
    }
    assert member_texts(b" {} ") == {}
    assert member_texts(b'{"\\u0041": true}') == {"A": b"true"}


@pytest.mark.parametrize(
    "raw",
    [b"[]", b"", b"{", b'{"a" 1}', b'{"a": 1 "b": 2}', b'{"a": }', b"{a: 1}", b'{"a": 1,}', b"\xff{}"],
)
def test_member_texts_refuse_what_is_not_one_json_object(raw):
    with pytest.raises(ValueError):
        member_texts(raw)
