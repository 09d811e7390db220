"""PyPy's writer of Python values (fastjcs.core.pypy_writer) against the pure-Python backend.

The writer answers only for values of exact JSON types and leaves everything else (raising one of
`LEAVES`, having called no hook and no `default`) to the marshal route, so two things are
checked: where it answers, the bytes are the Python backend's; where the Python backend raises, the
writer leaves rather than answer. It runs on PyPy; elsewhere (CPython) it is run here on a stand-in
for PyPy's StringBuilder (a list with StringBuilder's `build`), so that CI's CPython runs test it too.
"""

from __future__ import annotations

import enum
import importlib
from typing import Any

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st
from test_native_differential import any_values, json_values

from fastjcs.core import python_backend as _python
from fastjcs.core.errors import CircularReferenceError

pytestmark = pytest.mark.usefixtures("native")


class _Builder(list):
    """StringBuilder's interface: append, build."""

    def build(self) -> str:
        return "".join(self)


@pytest.fixture
def pypy_writer(native, monkeypatch):
    """The module, on PyPy's StringBuilder or the stand-in."""
    module = importlib.import_module("fastjcs.core.pypy_writer")
    if module.StringBuilder is None:
        monkeypatch.setattr(module, "StringBuilder", _Builder)
    return module


@pytest.fixture
def writer(native, pypy_writer):
    """dumps(value, max_depth, integers_only), with the backend's lender."""
    return lambda value, max_depth, integers_only: pypy_writer.dumps(value, max_depth, integers_only, native._lender)


def _written(native, writer, value: Any, max_depth: int = 10_000, integers_only: bool = False) -> Any:
    """The writer's bytes, or None where it leaves the value."""
    try:
        return writer(value, max_depth, integers_only)
    except importlib.import_module("fastjcs.core.pypy_writer").LEAVES:
        return None


@given(json_values, st.booleans())
def test_same_bytes(native, writer, value, integers_only):
    got = _written(native, writer, value, integers_only=integers_only)
    if integers_only and got is None:
        return  # a float (the marshal route raises NonIntegerNumberError)
    assert got is not None, "the writer left a value of exact JSON types"
    assert got == _python.dumps(value, 10_000, integers_only)


@given(any_values)
def test_answers_only_what_python_answers(native, writer, value):
    got = _written(native, writer, value)
    if got is not None:
        assert got == _python.dumps(value, 10_000)
    else:
        with pytest.raises(Exception):  # noqa: B017 - any refusal of the reference
            _python.dumps(value, 10_000)


@pytest.mark.parametrize(
    "value",
    [
        "lone \ud800 surrogate",
        {"k\udfff": 1},
        [2**53],
        -(2**53),
        10**400,
        float("nan"),
        [float("inf")],
        {1: "int name"},
        {None: 0},
        b"bytes",
        {"set": {1}},
        enum.IntEnum("E", "A").A,
        [True, enum.Enum("F", "B").B],
    ],
)
def test_leaves_refusals_and_other_types(native, writer, value):
    assert _written(native, writer, value) is None


def test_leaves_subclasses_without_running_their_code(native, writer):
    calls = []

    class Name(str):
        def __lt__(self, other):
            calls.append("lt")
            return str.__lt__(self, other)

        def __hash__(self):
            calls.append("hash")
            return str.__hash__(self)

    class Items(list):
        def __iter__(self):
            calls.append("iter")
            return list.__iter__(self)

    for value in ({Name("b"): 1, "a": 2}, [Items([1])], {"x": type("D", (dict,), {})(a=1)}):
        calls.clear()
        assert _written(native, writer, value) is None
        assert calls == [] or calls == ["hash"]  # building the dict above hashed the name, not the writer
    # and the whole backend answers as the Python one does
    value = {Name("b"): Items([1]), "a": 2}
    assert native.dumps(value, 100) == _python.dumps(value, 100)


def test_default_is_never_called_by_the_writer(native, writer):
    import datetime

    assert _written(native, writer, {"when": datetime.date(2026, 1, 1)}) is None
    seen = []
    assert native.dumps({"when": datetime.date(2026, 1, 1)}, 100, False, lambda v: seen.append(v) or "d") == (
        b'{"when":"d"}'
    )
    assert len(seen) == 1  # called once, by the route that answers


@pytest.mark.parametrize("limit", [0, 1, 2, 3])
def test_depth(native, writer, limit):
    value: Any = 1
    for depth in range(1, 5):
        value = [value] if depth % 2 else {"k": value}
        got = _written(native, writer, value, limit)
        if depth <= limit:
            assert got == _python.dumps(value, limit)
        else:
            assert got is None  # the marshal route raises DepthLimitError
    assert _written(native, writer, [], 0) is None  # an empty container counts too


def test_deep_and_cyclic(native, writer):
    deep: Any = "leaf"
    for level in range(5000):  # far beyond the recursion limit: the writer does not recurse
        deep = [deep] if level % 2 else {"a": deep, "b": level}
    assert _written(native, writer, deep) == _python.dumps(deep, 10_000)
    assert _written(native, writer, deep, 4999) is None
    cyclic: list = [1]
    cyclic.append({"c": cyclic})
    assert _written(native, writer, cyclic) is None
    with pytest.raises(CircularReferenceError):
        native.dumps(cyclic, 10_000)


def test_member_order_by_utf16(native, writer):
    # U+E000..U+FFFF sort after astral characters in UTF-16 (surrogates D800..DFFF), before them
    # by code point: the writer must sort by UTF-16 where the two differ.
    value = {"\ufb33": 1, "\U0001f602": 2, "a": 3, "\u20ac": 4, "\ue000": 5, "\U00010000": 6}
    got = _written(native, writer, value)
    assert got == _python.dumps(value, 100)
    assert (
        got == b'{"a":3,"\xe2\x82\xac":4,"\xf0\x90\x80\x80":6,"\xf0\x9f\x98\x82":2,"\xee\x80\x80":5,"\xef\xac\xb3":1}'
    )


def test_escapes(native, writer):
    value = {'q"': ["\\", "\x00\x1f\x7f\u2028", "\b\f\n\r\t", "plain", "é"]}
    assert _written(native, writer, value) == _python.dumps(value, 100)
    assert _written(native, writer, value) == (
        b'{"q\\"":["\\\\","\\u0000\\u001f\x7f\xe2\x80\xa8","\\b\\f\\n\\r\\t","plain","\xc3\xa9"]}'
    )


def test_names_table_is_bounded(native, writer, pypy_writer):
    kept = pypy_writer._NAMES_KEPT
    for i in range(kept + 10):
        assert _written(native, writer, {f"name{i}": i}) == b'{"name%d":%d}' % (i, i)
    assert len(pypy_writer._FIRST) <= kept and len(pypy_writer._NEXT) <= kept
    long = "n" * (pypy_writer._NAME_KEPT + 1)
    assert _written(native, writer, {long: 1, "a": {long: 2}}) == b'{"a":{"%s":2},"%s":1}' % (
        long.encode(),
        long.encode(),
    )
    assert long not in pypy_writer._FIRST and long not in pypy_writer._NEXT  # a long name is not kept


def test_pypy_takes_the_writer(native, writer):
    if native._pypy_dumps is None:
        pytest.skip("PyPy's route")
    eab = {"domain": "cmcp.execution-action-binding", "version": 1, "agent_id": "agent-0f", "x": [1.5, None]}
    assert native.dumps is native._dumps
    assert writer(eab, 10_000, False) == _python.dumps(eab, 10_000)


# The writer writes strings as they are and checks its whole output with one C call
# (fjcs_quote_count): no byte below 0x20, no backslash, two quotes per string and name. The expected
# values below come from rfc8785 and from counting bytes in Python, not from fastjcs.


def _count_by_hand(data: bytes) -> int:
    """fjcs_quote_count's answer, by Python's own byte counting."""
    if any(b < 0x20 or b == 0x5C for b in data):
        return 2**64 - 1
    return data.count(b'"')


@pytest.mark.parametrize("length", [0, 1, 15, 16, 17, 31, 32, 33, 64, 100])
def test_quote_count_finds_a_byte_to_escape_anywhere(pypy_writer, length):
    # each position of a block and of the tail: a check that skips the first byte, the last, a
    # block's last or the tail fails here
    plain = bytes(b'ab"c\x7f\x80\xff'[i % 7] for i in range(length))
    assert pypy_writer._quote_count(plain, len(plain)) == _count_by_hand(plain) == plain.count(b'"')
    for position in range(length):
        for bad in (b"\x00", b"\x1f", b"\\", b"\n"):
            data = plain[:position] + bad + plain[position + 1 :]
            assert pypy_writer._quote_count(data, len(data)) == 2**64 - 1, (length, position, bad)


@pytest.mark.parametrize("quotes", [255 * 16, 256 * 16, 256 * 16 + 7, 5000 * 16 + 3])
def test_quote_count_of_many_quotes(pypy_writer, quotes):
    # a byte lane counts at most 255 blocks before it is summed: without that, 256 wraps to 0
    data = b'"' * quotes + b"x"
    assert pypy_writer._quote_count(data, len(data)) == quotes


@pytest.mark.parametrize(
    "text",
    [
        'a"b',  # a quote alone: only the count of quotes sees it (no backslash, no control)
        '"',
        '"start',
        'end"',
        "\\",
        "\x00start",
        "end\x1f",
        "tab\there",
        "\x7f is not escaped",
        "x" * 40 + '"' + "y" * 40,
    ],
)
def test_a_string_to_escape_is_escaped_wherever_it_is(native, writer, text):
    for value in (text, [text], {"k": text}, {text: 1}, {"a": [1, {"b": text, "c": "plain"}], "z": None}):
        assert _written(native, writer, value) == rfc8785.dumps(value), value
        assert native.dumps(value, 100) == rfc8785.dumps(value)


def test_a_name_with_an_escape_is_escaped_when_its_text_is_kept(native, writer):
    # the second call takes the name's text from the table, escaped: the check must fail on it too
    for value in ({'q"': 1}, {"n\nl": [1]}, {'q"': "v", "a": "b"}):
        assert _written(native, writer, value) == rfc8785.dumps(value)
        assert _written(native, writer, value) == rfc8785.dumps(value)


def test_one_pass_for_plain_values_two_for_escapes(native, writer, pypy_writer, monkeypatch):
    # counting strings and names wrongly (e.g. names not counted) gives the right bytes, written
    # twice every time: this counts the passes, and follows the mode from one value to the next
    passes = []
    original = pypy_writer._write

    def counted(*args):
        passes.append(args[4])  # escape_each
        return original(*args)

    monkeypatch.setattr(pypy_writer, "_write", counted)
    monkeypatch.setattr(pypy_writer, "_escape_first", False)
    plain = {"domain": "d", "n": [1, 2.5, "é", None, True], "o": {"x": "\U0001f600"}, "e": {}, "l": []}
    escaped = {"domain": "d", "n": ["a\\b"]}
    flat = {"b": "x", "a": 1, "c": None, "d": True, "e": False, "\U0001f600": "é"}
    flat_escaped = {"b": "x\ny", "a": 1}
    expected_passes = [
        (flat, []),  # an object of strings, integers and literals: _write_flat alone
        (flat_escaped, [True]),  # _write_flat's check failed: escaped from the start
        (flat, [True]),  # the last one needed escapes
        (flat, []),
        (plain, [False]),  # checked, one pass
        (escaped, [False, True]),  # checked, failed, written again escaping
        (escaped, [True]),  # the last one needed escapes: escaped from the start
        (plain, [True]),  # ... and so is this one, which needed none
        (plain, [False]),  # so the next is checked again
    ]
    for value, expected in expected_passes:
        passes.clear()
        assert writer(value, 100, False) == rfc8785.dumps(value)
        assert passes == expected, value


def test_member_order_by_utf16_against_rfc8785(native, writer):
    # names equal up to a character where UTF-8 (code point) order and UTF-16 order disagree, and
    # names that share a prefix; the expected order is rfc8785's
    names = ["a\ue000", "a\U00010000", "a\uffff", "a\U0010ffff", "a", "ab", "\ufb33", "\U0001f602", "b"]
    value = {name: i for i, name in enumerate(names)}
    assert _written(native, writer, value) == rfc8785.dumps(value)
    nested = {"x": [value, {"\uffff": 1, "\U00010000": 2}]}
    assert _written(native, writer, nested) == rfc8785.dumps(nested)


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1.5, "a": "x"},  # a float: the whole writer's
        {"b": "x", "a": [1, {"c": "d"}]},  # a container after a string
        {"a": [], "b": "x"},
        {"z": 2**53 - 1, "a": -(2**53 - 1)},
        {"a": "x" * 1000, "b": ""},
        {"a": True, "b": False, "c": None},
    ],
)
def test_flat_objects_and_what_leaves_them(native, writer, value):
    assert _written(native, writer, value) == rfc8785.dumps(value)


@pytest.mark.parametrize("value", [{"a": 2**53}, {"b": "x", "a": float("nan")}, {"a": "\ud800"}, {"a": b"x"}])
def test_flat_objects_leave_what_jcs_refuses(native, writer, value):
    assert _written(native, writer, value) is None


def test_a_flat_object_counts_towards_max_depth(native, writer):
    # an object is one level: at max_depth 0 it is refused (the marshal route raises DepthLimitError)
    assert _written(native, writer, {"k": 1}, 0) is None
    assert _written(native, writer, {"k": 1}, 1) == b'{"k":1}'
