"""Properties of the canonical form that hold for any value (STYLE: tests and benchmarks).

The expected side of each property comes from outside the code under test: the stdlib's json
module, Python's own UTF-16 codec, float equality.
"""

from __future__ import annotations

import json

import pytest
from _strategies import finite_floats, json_values, keys, lone_surrogate_text, with_backend
from hypothesis import example, given
from hypothesis import strategies as st

import fastjcs


def _same(a, b) -> bool:
    """Equality of JSON values with ints and floats compared by value, -0.0 == 0."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) or isinstance(b, float):
        numbers = (int, float)
        return (
            isinstance(a, numbers)
            and isinstance(b, numbers)
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and a == b
        )
    return type(a) is type(b) and a == b


@with_backend
@given(json_values)
def test_loads_of_dumps_is_the_value(backend, value):
    # parse_int=float: JCS writes 7.043792625951911e16 as 70437926259519110, an integer token
    # whose exact value is not the double's; JSON numbers are doubles.
    assert _same(json.loads(fastjcs.dumps(value), parse_int=float), value)


@with_backend
@given(finite_floats)
@example(5e-324)
@example(1.7976931348623157e308)
@example(-1e-7)
@example(-0.0)
def test_floats_round_trip(backend, x):
    out = fastjcs.dumps(x)
    assert json.loads(out, parse_int=float) == x
    assert float(out) == x
    if x == 0:
        assert out == b"0"  # -0.0 too


@with_backend
@given(json_values)
def test_canonicalize_of_dumps_is_a_fixed_point(backend, value):
    out = fastjcs.dumps(value)
    assert fastjcs.canonicalize(out) == out


@with_backend
@given(json_values, st.booleans(), st.sampled_from([None, 0, 2, "\t"]))
def test_canonicalize_of_json_dumps(backend, value, ensure_ascii, indent):
    # json.dumps writes floats as repr ('1e-07', '1e+16'), escapes as it likes, and unsorted
    # members: canonicalize must land on the same bytes as dumps of the value.
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    expected = fastjcs.dumps(value)
    assert fastjcs.canonicalize(text) == expected
    assert fastjcs.canonicalize(text.encode("utf-8")) == expected


@with_backend
@given(json_values, st.booleans(), st.sampled_from([None, 1]))
def test_canonicalize_is_idempotent(backend, value, ensure_ascii, indent):
    once = fastjcs.canonicalize(json.dumps(value, ensure_ascii=ensure_ascii, indent=indent))
    assert fastjcs.canonicalize(once) == once


@with_backend
@given(lone_surrogate_text, st.booleans())
def test_lone_surrogates_are_refused_on_both_paths(backend, s, ensure_ascii):
    with pytest.raises(fastjcs.CanonicalizationError):
        fastjcs.dumps([s])
    # ensure_ascii=True writes it as a \\udXXX escape; False leaves it in the str, which
    # canonicalize encodes with surrogatepass (invalid UTF-8).
    with pytest.raises(fastjcs.InvalidJSONError):
        fastjcs.canonicalize(json.dumps([s], ensure_ascii=ensure_ascii))


def member_names_in_order(out: bytes) -> list:
    names = []
    json.loads(out, object_pairs_hook=lambda pairs: names.append([k for k, _ in pairs]))
    return names[-1]


def check_utf16_order(dumps, names) -> None:
    """dumps orders the members of an object as an independent UTF-16 code-unit sort does."""
    d = {name: i for i, name in enumerate(names)}
    expected = sorted(d, key=lambda k: k.encode("utf-16-be"))
    assert member_names_in_order(dumps(d)) == expected


UTF16_WITNESSES = [
    "\U0001f600",
    "\ufb33",
    "\ue000",
    "\uffff",
    "\U00010000",
    "\ud7ff",
    "a",
    "",
    "aa",
    "\u20ac",
    "\r",
    "\U0010ffff",
]


@with_backend
@given(st.lists(keys.map(str), max_size=8))
@example(UTF16_WITNESSES)
@example(["\ue000", "\U00010000"])
def test_members_sorted_by_utf16_code_units(backend, names):
    check_utf16_order(fastjcs.dumps, names)
    check_utf16_order(lambda d: fastjcs.canonicalize(json.dumps(d)), names)


def test_utf16_order_witness(backend):
    # The pair that separates UTF-16 order from code-point order (docs/contract.md, "Member order").
    out = fastjcs.dumps({"\ufb33": 1, "\U0001f602": 2})
    assert out == '{"\U0001f602":2,"\ufb33":1}'.encode()
