"""RFC 8785's own examples, read from vectors/rfc8785/ (typed from the RFC), on both backends.

Catches: any number-layout slip (`1e-07`, `1e21` written plain, `0.0000033333333333333333` in
exponent form, a tie not going to even), NaN/Infinity rendered as text, a code-point member sort
(the 3.2.3 emoji and U+FB33 swap), uppercase or missing escapes (3.2.2's `\\u000f`), `/` escaped.
"""

from __future__ import annotations

import json
import struct

import pytest
from _vectors import load

import fastjcs

APPENDIX_B = load("rfc8785/appendix-b.json")["rows"]
EXAMPLES = {e["name"]: e for e in load("rfc8785/examples.json")["examples"]}


def _double(row) -> float:
    return struct.unpack(">d", bytes.fromhex(row["ieee754"]))[0]


FINITE = [pytest.param(r, id=r["ieee754"]) for r in APPENDIX_B if r["json"] is not None]
NOT_FINITE = [pytest.param(r, id=f"{r['ieee754']} {r['comment']}") for r in APPENDIX_B if r["json"] is None]


def test_appendix_b_is_complete():
    # 26 rows in the RFC's table, two of them (NaN, Infinity) without a rendering.
    assert len(APPENDIX_B) == 26 and len(NOT_FINITE) == 2


@pytest.mark.parametrize("row", FINITE)
def test_appendix_b_dumps(backend, row):
    x = _double(row)
    assert fastjcs.dumps(x) == row["json"].encode()
    assert fastjcs.dumps([x, {"n": x}]) == f'[{row["json"]},{{"n":{row["json"]}}}]'.encode()
    assert fastjcs.format_double(x) == row["json"]


@pytest.mark.parametrize("row", FINITE)
def test_appendix_b_canonicalize(backend, row):
    x = _double(row)
    # repr writes the shortest round-trip digits as a valid JSON number token (e.g. '1e-06').
    assert fastjcs.canonicalize(repr(x)) == row["json"].encode()
    assert fastjcs.canonicalize(f"[{x!r}]".encode()) == f"[{row['json']}]".encode()
    # The RFC's rendering is itself JSON text, and canonical: a fixed point.
    assert fastjcs.canonicalize(row["json"]) == row["json"].encode()


@pytest.mark.parametrize("row", NOT_FINITE)
def test_appendix_b_nan_and_infinity_are_errors(backend, row):
    x = _double(row)
    assert row["error"] == "FloatDomainError"
    for value in (x, -x, [x], {"a": x}):
        with pytest.raises(fastjcs.FloatDomainError):
            fastjcs.dumps(value)
    with pytest.raises(fastjcs.FloatDomainError):
        fastjcs.format_double(x)


def test_appendix_b_infinity_as_text(backend):
    # The infinity row written as text overflows: a FloatDomainError, not the string "Infinity".
    with pytest.raises(fastjcs.FloatDomainError):
        fastjcs.canonicalize(b"1e309")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_worked_example_canonicalize(backend, name):
    example = EXAMPLES[name]
    expected = example["output"].encode("utf-8")
    assert fastjcs.canonicalize(example["input"].encode("utf-8")) == expected
    assert fastjcs.canonicalize(example["input"]) == expected  # str input
    assert fastjcs.canonicalize(expected) == expected


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_worked_example_dumps(backend, name):
    example = EXAMPLES[name]
    value = json.loads(example["input"])  # the stdlib reads the RFC's input, not fastjcs
    assert fastjcs.dumps(value) == example["output"].encode("utf-8")


def test_values_example_matches_the_rfc_hex_dump(backend):
    example = EXAMPLES["values"]
    expected = bytes.fromhex(example["output_hex"])
    assert expected == example["output"].encode("utf-8")  # the two typings agree
    assert fastjcs.canonicalize(example["input"]) == expected


def test_sorting_example_order(backend):
    example = EXAMPLES["sorting"]
    out = fastjcs.canonicalize(example["input"])
    values = list(json.loads(out).values())  # dict keeps the order of the text
    assert values == example["sorted_values"]
    # The pair that only a UTF-16 sort gets right: the emoji (U+1F600) before U+FB33.
    assert out.index("\U0001f600".encode()) < out.index("\ufb33".encode())
