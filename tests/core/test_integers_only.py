"""Integer-only JCS (`integers_only=True`, docs/contract.md "Integer-only JCS"): floats and number
tokens with a fraction or an exponent part are NonIntegerNumberError, integers outside
+/-(2^53-1) IntegerDomainError; the same class, message and offset on both backends.

The expectations are written from the rule itself (RFC 8259's number grammar; 2^53 - 1 by
arithmetic), and the property test computes them from the text's number tokens with a regex of
its own, never from fastjcs.
"""

from __future__ import annotations

import json
import marshal
import re

import pytest
import rfc8785
from _strategies import with_backend
from hypothesis import given
from hypothesis import strategies as st

import fastjcs
from fastjcs import IntegerDomainError, NonIntegerNumberError

LIMIT = 2**53 - 1  # 9007199254740991
NOT_INTEGER = "number with a fraction or an exponent part (integers_only)"
UNSAFE = "integer outside +/-(2^53-1)"


class FloatSub(float):
    pass


# ---- Python values ----


@pytest.mark.parametrize(
    "value",
    [
        1.0,
        -0.0,
        0.0,
        0.5,
        1e300,
        1e-7,
        float("nan"),
        float("inf"),
        FloatSub(2.0),
        [1, 2.0],
        {"a": {"b": [3, 4.5]}},
        (1.0,),
        {"a": FloatSub(1.0)},
    ],
)
def test_a_float_value_is_refused(backend, value):
    with pytest.raises(NonIntegerNumberError) as info:
        fastjcs.dumps(value, integers_only=True)
    assert info.value.offset is None
    assert str(info.value).endswith("is a float; integers_only allows integers only")


def test_the_float_message_names_the_float(backend):
    with pytest.raises(NonIntegerNumberError, match=r"^-0\.0 is a float; integers_only allows integers only$"):
        fastjcs.dumps({"x": [1, -0.0]}, integers_only=True)
    with pytest.raises(NonIntegerNumberError, match=r"^2\.0 is a float"):
        fastjcs.dumps([FloatSub(2.0)], integers_only=True)  # a subclass: float's own repr


@pytest.mark.parametrize("value", [LIMIT + 1, -(LIMIT + 1), 2**64, -(2**200), [1, {"a": 2**53}]])
def test_an_unsafe_int_value_is_refused(backend, value):
    with pytest.raises(IntegerDomainError):
        fastjcs.dumps(value, integers_only=True)


def test_ints_up_to_the_limit_are_accepted(backend):
    value = {"max": LIMIT, "min": -LIMIT, "zero": 0, "t": True, "n": None, "s": "1.5", "l": [1, -1]}
    assert (
        fastjcs.dumps(value, integers_only=True)
        == b'{"l":[1,-1],"max":9007199254740991,"min":-9007199254740991,"n":null,"s":"1.5","t":true,"zero":0}'
    )


def test_the_default_takes_floats_as_before(backend):
    assert fastjcs.dumps([1.0, -0.0, 0.5]) == b"[1,0,0.5]"
    assert fastjcs.dumps([1.0], integers_only=False) == b"[1]"


def test_dump_takes_the_option(backend):
    import io

    out = io.BytesIO()
    with pytest.raises(NonIntegerNumberError):
        fastjcs.dump([1.5], out, integers_only=True)
    assert out.getvalue() == b""


# ---- JSON text ----


@pytest.mark.parametrize(
    "text, offset",
    [
        (b"1.0", 0),
        (b"1e2", 0),
        (b"-0.0", 0),
        (b"0.5", 0),
        (b"1E+2", 0),
        (b"1e-0", 0),
        (b"1.5e400", 0),  # would overflow: the shape is judged first
        (b"[1, 2, 3.0]", 7),
        (b'{"a": 1e2}', 6),
        (b'{"a": [0, -1.25]}', 10),
    ],
)
def test_a_fraction_or_exponent_token_is_refused_at_its_first_byte(backend, text, offset):
    with pytest.raises(NonIntegerNumberError) as info:
        fastjcs.canonicalize(text, integers_only=True)
    err = info.value
    assert (err.msg, err.offset, err.lineno, err.colno) == (NOT_INTEGER, offset, 1, offset + 1)


def test_the_position_counts_lines(backend):
    text = b'{\n  "a": 1,\n  "b": 2.50\n}'
    with pytest.raises(NonIntegerNumberError) as info:
        fastjcs.canonicalize(text, integers_only=True)
    assert (info.value.offset, info.value.lineno, info.value.colno) == (text.index(b"2.50"), 3, 8)
    assert str(info.value) == f"{NOT_INTEGER}: line 3 column 8 (byte {text.index(b'2.50')})"


@pytest.mark.parametrize("text", [b"9007199254740992", b"-9007199254740992", b"1" * 400, b"[0, 12345678901234567]"])
def test_an_unsafe_integer_token_is_refused(backend, text):
    with pytest.raises(IntegerDomainError) as info:
        fastjcs.canonicalize(text, integers_only=True)  # strict_integers is implied
    assert info.value.msg == UNSAFE
    assert info.value.offset == (4 if text.startswith(b"[") else 0)


@pytest.mark.parametrize(
    "text, canonical",
    [
        (b"9007199254740991", b"9007199254740991"),
        (b"-9007199254740991", b"-9007199254740991"),
        (b"-0", b"0"),
        (b"0", b"0"),
        (b'{"b": [1, -2], "a": "3.5"}', b'{"a":"3.5","b":[1,-2]}'),
    ],
)
def test_integer_tokens_in_range_are_accepted(backend, text, canonical):
    # -0 is an integer token (no fraction, no exponent) whose value is 0: accepted, written 0.
    assert fastjcs.canonicalize(text, integers_only=True) == canonical
    assert fastjcs.canonicalize(text) == canonical


def test_the_default_and_strict_integers_take_fractions_as_before(backend):
    assert fastjcs.canonicalize(b"[1.0, 1e2, -0.0]") == b"[1,100,0]"
    assert fastjcs.canonicalize(b"[1.0, 1e2, -0.0]", strict_integers=True) == b"[1,100,0]"
    assert fastjcs.canonicalize(b"9007199254740993") == b"9007199254740992"


def test_other_errors_come_first_in_document_order(backend):
    with pytest.raises(fastjcs.InvalidJSONError):
        fastjcs.canonicalize(b"[01, 1.5]", integers_only=True)
    with pytest.raises(NonIntegerNumberError):
        fastjcs.canonicalize(b"[1.5, 01]", integers_only=True)


def test_canonicalize_to_and_str_input(backend):
    chunks = []
    write = lambda view: chunks.append(bytes(view))  # noqa: E731 - the view lives during the call
    with pytest.raises(NonIntegerNumberError) as info:
        fastjcs.canonicalize_to('["\u20ac", 1.5]', write, integers_only=True)
    assert chunks == [] and info.value.offset == 8  # the euro sign is 3 bytes of UTF-8
    fastjcs.canonicalize_to(b"[1]", write, integers_only=True)
    assert chunks == [b"[1]"]


# ---- Digests and batches ----


def test_digest_and_digest_text(backend):
    with pytest.raises(NonIntegerNumberError):
        fastjcs.digest({"a": 1.0}, integers_only=True)
    with pytest.raises(NonIntegerNumberError):
        fastjcs.digest_text(b'{"a": 1.0}', integers_only=True)
    with pytest.raises(IntegerDomainError):
        fastjcs.digest_text(b'{"a": 9007199254740993}', integers_only=True)
    assert (
        fastjcs.digest_text(b'{"a": 1}', integers_only=True)
        == fastjcs.digest({"a": 1})
        == fastjcs.digest({"a": 1}, integers_only=True)
    )


@pytest.mark.parametrize(
    "bad, cls", [(1.5, NonIntegerNumberError), (FloatSub(1.0), NonIntegerNumberError), (2**53, IntegerDomainError)]
)
def test_digest_many_refuses_the_item(backend, bad, cls):
    with pytest.raises(cls) as info:
        fastjcs.digest_many([{"a": 1}, [2, {"b": bad}], 3], integers_only=True)
    assert info.value.index == 1
    assert len(fastjcs.digest_many([{"a": 1.5}, 2.0])) == 2  # the default takes floats


def test_digest_texts_refuses_per_item(backend):
    results = fastjcs.digest_texts([b"1", b"[1, 1.0]", b"9007199254740992", b"-0", b"1e2"], integers_only=True)
    assert results[0] == fastjcs.digest(1) and results[3] == fastjcs.digest(0)
    for i, cls, offset in ((1, NonIntegerNumberError, 4), (2, IntegerDomainError, 0), (4, NonIntegerNumberError, 0)):
        assert type(results[i]) is cls
        assert (results[i].index, results[i].offset) == (i, offset)
    assert all(isinstance(r, str) for r in fastjcs.digest_texts([b"1.0", b"1e2"]))


def test_digest_lines_hex_words_the_failure(backend):
    out, lines, failures = backend.digest_lines_hex(b"1\n[2.5]\n9007199254740992\n", 100, False, "sha256", "", True)
    assert lines == 3
    assert out == fastjcs.digest(1).split(":")[1].encode() + b"\n"
    assert [(f[0], f[3], f[4]) for f in failures] == [
        (1, 1, f"NonIntegerNumberError: {NOT_INTEGER}"),
        (2, 0, f"IntegerDomainError: {UNSAFE}"),
    ]


# ---- The C object path itself (the Python fallback would hide a missing check) ----


def test_the_marshal_reader_refuses_a_float_under_the_flag(native):
    from fastjcs._native_ext import ffi, lib

    data = marshal.dumps([1, 2.0], 4)
    for flags, code in ((0, lib.FJCS_OK), (lib.FJCS_INTEGERS_ONLY, lib.FJCS_E_NOT_INTEGER)):
        out, err = ffi.new("fjcs_buf *"), ffi.new("fjcs_error *")
        try:
            assert lib.fjcs_canonicalize_marshal(data, len(data), 10, flags, out, err) == code
        finally:
            lib.fjcs_buf_free(out)
    assert data[err.offset] & 0x7F == ord("g")  # at the float's type code


# ---- The property: accepted exactly when every number token is a safe integer token ----

_digits = st.text("0123456789", min_size=1, max_size=20)
_int_part = st.one_of(
    st.just("0"),
    st.builds(lambda a, b: a + b, st.sampled_from("123456789"), st.text("0123456789", max_size=18)),
    st.sampled_from(["9007199254740991", "9007199254740992", "9007199254740993"]),
)
_tokens = st.builds(
    lambda sign, i, frac, exp: sign + i + frac + exp,
    st.sampled_from(["", "", "-"]),
    _int_part,
    st.one_of(st.just(""), st.just(""), _digits.map(lambda d: "." + d)),
    st.one_of(
        st.just(""),
        st.just(""),
        st.builds(lambda e, s, d: e + s + d[:3], st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), _digits),
    ),
)
_tree = st.recursive(
    st.one_of(_tokens, st.sampled_from(['"s"', "true", "null"])),
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text("abc", min_size=1, max_size=3), kids, max_size=4)
    ),
    max_leaves=12,
)


def _render(node) -> str:
    if isinstance(node, list):
        return "[" + " , ".join(_render(n) for n in node) + "]"
    if isinstance(node, dict):
        return "{" + ",".join(f'"{k}": {_render(v)}' for k, v in node.items()) + "}"
    return node


# A number token of RFC 8259 outside strings (the texts have no digits in their strings).
_TOKEN = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def _expected(text: str):
    """(error class, offset) of the first refused token, or None: from the tokens alone."""
    for m in _TOKEN.finditer(text):
        if m.group(1) or m.group(2):
            return NonIntegerNumberError, m.start()
        if abs(int(m.group(0))) > LIMIT:
            return IntegerDomainError, m.start()
    return None


@with_backend
@given(_tree.map(_render))
def test_integers_only_refuses_exactly_the_non_integer_tokens(backend, text):
    expected = _expected(text)
    data = text.encode()
    if expected is None:
        canonical = fastjcs.canonicalize(data, integers_only=True)
        assert canonical == fastjcs.canonicalize(data)
        assert canonical == rfc8785.dumps(json.loads(text))  # ints only: rfc8785 agrees
    else:
        with pytest.raises(expected[0]) as info:
            fastjcs.canonicalize(data, integers_only=True)
        assert type(info.value) is expected[0] and info.value.offset == expected[1]
        assert info.value.msg == (NOT_INTEGER if expected[0] is NonIntegerNumberError else UNSAFE)


@with_backend
@given(
    st.recursive(
        st.one_of(st.integers(-(2**60), 2**60), st.floats(), st.none(), st.booleans()),
        lambda kids: st.one_of(
            st.lists(kids, max_size=4), st.dictionaries(st.text("ab", max_size=2), kids, max_size=4)
        ),
        max_leaves=10,
    )
)
def test_integers_only_values_match_their_leaves(backend, value):
    leaves = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(v[k] for k in sorted(v, reverse=True))
        else:
            leaves.append(v)
    floats = [v for v in leaves if type(v) is float]
    unsafe = [v for v in leaves if type(v) is int and abs(v) > LIMIT]
    if not floats and not unsafe:
        assert fastjcs.dumps(value, integers_only=True) == rfc8785.dumps(value)
    else:
        with pytest.raises((NonIntegerNumberError, IntegerDomainError)) as info:
            fastjcs.dumps(value, integers_only=True)
        assert type(info.value) is (
            NonIntegerNumberError if not unsafe else IntegerDomainError if not floats else type(info.value)
        )
