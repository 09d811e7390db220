"""JSON text in: MUST-FAIL vectors (vectors/text-must-fail/), positive ones (text-canonical/).

Every MUST-FAIL vector pins the exact exception class and the byte offset (and line/column where
given), counted by hand from the input per the rules in src/fastjcs/_python.py. Catches: a lenient
parser (duplicates, NaN, trailing commas, lone surrogates, BOM, overlong UTF-8 accepted), an error
reported at the wrong place (character index instead of byte offset, the start of the token instead
of the offending byte, the last duplicate instead of the first), a DuplicateKeyError where a syntax
error comes first, the wrong class (ValueError, InvalidJSONError for an overflow).
"""

from __future__ import annotations

import json

import pytest
from _strategies import json_values, with_backend
from _vectors import cases, input_of, output_of
from hypothesis import given
from hypothesis import strategies as st

import fastjcs

MUST_FAIL = cases("text-must-fail")
CANONICAL = cases("text-canonical")


def check_must_fail(canonicalize, v) -> None:
    """Assert that `canonicalize` refuses vector `v` exactly as the vector says."""
    cls = getattr(fastjcs, v["error"])
    with pytest.raises(fastjcs.CanonicalizationError) as info:
        canonicalize(input_of(v), **v.get("options", {}))
    err = info.value
    assert type(err) is cls, f"{type(err).__name__} ({err}), expected {cls.__name__}"
    assert err.offset == v["offset"], str(err)
    if "lineno" in v:
        assert (err.lineno, err.colno) == (v["lineno"], v["colno"]), str(err)
    if "key" in v:
        assert err.key == v["key"]
    # Every positioned error also says where in its message.
    assert f"byte {v['offset']}" in str(err)


@pytest.mark.parametrize("v", MUST_FAIL)
def test_must_fail(backend, v):
    check_must_fail(fastjcs.canonicalize, v)


@pytest.mark.parametrize("v", [p for p in MUST_FAIL if "input" in p.values[0]])
def test_must_fail_as_str(backend, v):
    # The same text given as a str: offsets still count the bytes of its UTF-8 encoding.
    check_must_fail(lambda data, **kw: fastjcs.canonicalize(data.decode("utf-8"), **kw), v)


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_must_fail_other_buffers(backend, kind):
    data = bytes.fromhex("7b 22 61 22 3a 31 2c 22 61 22 3a 32 7d")  # {"a":1,"a":2}
    with pytest.raises(fastjcs.DuplicateKeyError) as info:
        fastjcs.canonicalize(kind(data))
    assert info.value.offset == 7


def test_positions_are_computed_for_every_line(backend):
    # The default depth limit on line 3, column 5 of a multi-line text.
    text = b"[\n[\n   " + b"[" * 10_000
    with pytest.raises(fastjcs.DepthLimitError) as info:
        fastjcs.canonicalize(text)
    # '[' '\n' '[' '\n' then 3 spaces: offsets 0..6; the brackets on line 3 start at offset 7.
    # The 10,001st container opens at bracket number 10,001: the 9,999th on line 3.
    assert info.value.offset == 7 + 9_998
    assert (info.value.lineno, info.value.colno) == (3, 4 + 9_998)


def test_a_deep_text_never_recurses(backend):
    # 100,000 levels with a limit above them: no RecursionError, no crash; canonical output.
    depth = 100_000
    text = b"[" * depth + b"]" * depth
    assert fastjcs.canonicalize(text, max_depth=depth) == text
    with pytest.raises(fastjcs.DepthLimitError):
        fastjcs.canonicalize(text, max_depth=depth - 1)


@pytest.mark.parametrize("v", CANONICAL)
def test_canonical(backend, v):
    expected = output_of(v)
    options = v.get("options", {})
    assert fastjcs.canonicalize(input_of(v), **options) == expected
    # The output is canonical: canonicalizing it again changes nothing. (Not under
    # strict_integers: a fraction such as 9007199254740992.0 comes out as an integer token.)
    assert fastjcs.canonicalize(expected, max_depth=options.get("max_depth", 10_000)) == expected


@pytest.mark.parametrize("bad", ["1", 1.5, True, None, -1])
def test_max_depth_must_be_a_non_negative_int(backend, bad):
    with pytest.raises(ValueError):
        fastjcs.canonicalize(b"[]", max_depth=bad)
    with pytest.raises(ValueError):
        fastjcs.dumps([], max_depth=bad)


@pytest.mark.parametrize("bad", [1, None, ["[]"], object()])
def test_text_must_be_bytes_or_str(backend, bad):
    with pytest.raises(TypeError):
        fastjcs.canonicalize(bad)


# ---- any text: only CanonicalizationError, and agreement with json.loads where both accept ----

_JSONISH = st.sampled_from(
    list('{}[],:"\\ \n\t0123456789-+.eEtrufalsn')
    + ["u00e9", "ud83d", "ude00", "\u00e9", "\x01", "NaN", "\ufeff", "/", "x"]
)


def check_any_text(text) -> None:
    try:
        out = fastjcs.canonicalize(text)
    except fastjcs.CanonicalizationError as exc:
        assert exc.offset is not None and 0 <= exc.offset <= len(text.encode("utf-8", "surrogatepass"))
        return
    # Accepted: the stdlib accepts it too, and reads the same value (numbers as doubles).
    assert out == fastjcs.dumps(json.loads(text, parse_int=float))


@with_backend
@given(st.lists(_JSONISH, max_size=24).map("".join))
def test_any_text_fails_cleanly(backend, text):
    check_any_text(text)


@with_backend
@given(json_values, st.data())
def test_near_valid_text_fails_cleanly(backend, value, data):
    # One edit to a valid text: the errors a parser meets most.
    text = json.dumps(value, ensure_ascii=data.draw(st.booleans()))
    i = data.draw(st.integers(0, len(text)))
    edit = data.draw(st.sampled_from(["insert", "delete", "replace"]))
    c = data.draw(_JSONISH)
    tail = text[i + 1 :] if edit != "insert" else text[i:]
    check_any_text(text[:i] + ("" if edit == "delete" else c) + tail)
