"""A \\u escape takes exactly four hex digits (RFC 8259 section 7), on every interpreter.

The pure-Python backend reads strings with json's scanstring. CPython's is C and strict; json's
pure-Python one (what PyPy runs, and CPython without its accelerator) reads the four characters
with int(..., 16), which also takes whitespace, a sign and underscores: on PyPy the pure-Python
backend accepted '"\\u\\t000"' as U+0000 where the C core refuses it (found by
test_native_differential's corruption property on PyPy 7.3.11).
"""

from __future__ import annotations

import json.decoder

import pytest

import fastjcs
from fastjcs.core import parser

LOOSE = [
    (b'["0\\u\\t000"]', 3),
    (b'["\\u 123"]', 2),
    (b'["\\u+123"]', 2),
    (b'["\\u1_23"]', 2),
    (b'["\\u12 3"]', 2),
    (b'["ok", "\\\\\\u+041"]', 10),  # an escaped backslash, then a loose \u
]
STRICT = [
    (b'["\\u0041"]', b'["A"]'),
    (b'["\\\\u+123"]', b'["\\\\u+123"]'),  # an escaped backslash and the letters u+123
    (b'["\\u00e9\\\\u"]', '["\u00e9\\\\u"]'.encode()),
]


@pytest.fixture(params=["interpreter's", "pure-Python"])
def scanstring(request, monkeypatch):
    if request.param == "pure-Python":
        monkeypatch.setattr(parser, "_scanstring", json.decoder.py_scanstring)
    return request.param


@pytest.mark.parametrize(("text", "offset"), LOOSE)
def test_a_loose_u_escape_is_refused(backend, scanstring, text, offset):
    with pytest.raises(fastjcs.InvalidJSONError, match="invalid escape sequence") as info:
        fastjcs.canonicalize(text)
    assert info.value.offset == offset


@pytest.mark.parametrize(("text", "expected"), STRICT)
def test_four_hex_digits_and_escaped_backslashes_still_pass(backend, scanstring, text, expected):
    assert fastjcs.canonicalize(text) == expected
