"""The C core's stream (csrc/stream.c) against the in-memory path, byte for byte and error for
error (class, message, offset), on the lab corpus, the ES6 number lines, the hostile shapes and
random or corrupted documents.

The in-memory path (fjcs_canonicalize on the whole text, itself held to the pure-Python backend and
rfc8785 elsewhere) is the reference. Each document is streamed with windows from 1 byte up, so that
every container is "larger than the window" at some size and the walk (its member index, its
re-reading of values, its windows moving and growing) is exercised on small inputs, and with the
default window, where a small document goes through text.c whole.
"""

from __future__ import annotations

import json
import os

import pytest
import shapes
from conftest import VECTORS
from hypothesis import example, given, settings
from hypothesis import strategies as st

# Every test here needs the C backend.
pytestmark = pytest.mark.usefixtures("native")

#: Windows the documents are streamed with (0: the default, 1 MiB).
WINDOWS = (1, 2, 7, 64, 0)


def in_memory(native, data: bytes, max_depth: int = 10_000, flags: int = 0):
    try:
        return ("ok", native.canonicalize(data, max_depth, bool(flags & 1), bool(flags & 2)))
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        return ("error", type(exc).__name__, getattr(exc, "offset", None), str(exc))


def streamed(path, data: bytes, window: int, max_depth: int = 10_000, flags: int = 0, max_objects: int = 1 << 30):
    from fastjcs.core import native_stream

    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        return ("ok", b"".join(bytes(p) for p in native_stream.parts(fd, max_depth, flags, window, max_objects)))
    except Exception as exc:  # noqa: BLE001
        return ("error", type(exc).__name__, getattr(exc, "offset", None), str(exc))
    finally:
        os.close(fd)


def check(native, tmp_path, data: bytes, max_depth: int = 10_000, flags: int = 0, windows=WINDOWS):
    want = in_memory(native, data, max_depth, flags)
    for window in windows:
        got = streamed(tmp_path / "doc.json", data, window, max_depth, flags)
        assert got == want, (data[:200], window)


# ---- corpora ---------------------------------------------------------------------------------


def _lab_cases():
    from fastjcs.lab import corpus

    vectors = [VECTORS / f for f in corpus.VECTOR_FOLDERS]
    return corpus.generate(1, 20) + corpus.vector_cases(vectors) + corpus.es6_cases(2000)


def test_lab_corpus(native, tmp_path):
    cases = _lab_cases()
    assert len(cases) > 1000
    for case in cases:
        # tiny windows on small documents; on large ones (deep nests, long strings) a window of
        # an eighth of the document, so that the walk's re-reading (once per enclosing large
        # object) stays cheap
        n = len(case.text)
        check(native, tmp_path, case.text, windows=(1, 13, 0) if n <= 2000 else (n // 8 + 1, 0))


def test_es6_number_lines_as_one_document(native, tmp_path):
    """The first 20,000 ES6 corpus numbers, as one array and as one object: far larger than a
    64-byte window, so the array is written element by element and the object is ordered by the
    walk (its names sort differently from their input order)."""
    from fastjcs.lab import corpus

    numbers = [c.text for c in corpus.es6_cases(20_000)]
    array = b"[" + b",".join(numbers) + b"]"
    obj = b"{" + b",".join(b'"%d":%s' % (i * 7919 % 20011, n) for i, n in enumerate(numbers)) + b"}"
    for doc in (array, obj):
        check(native, tmp_path, doc, windows=(64, 4096, 0))


@pytest.mark.parametrize("name", sorted(shapes.SHAPES))
def test_hostile_shapes(native, tmp_path, name):
    data = shapes.SHAPES[name].text(1)
    check(native, tmp_path, data, max_depth=shapes.MAX_DEPTH, windows=(4096, 0))


# ---- random documents --------------------------------------------------------------------------

_chars = st.one_of(
    st.sampled_from(list('"\\/\b\f\n\r\t\x00\x1f\x7f\x80\u2028\ue000\uffff\U0001f602\U00010000')),
    st.characters(exclude_categories=["Cs"]),
)
_names = st.text(_chars, max_size=6)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(_chars, max_size=20),
)
_values = st.recursive(
    _scalars, lambda c: st.one_of(st.lists(c, max_size=6), st.dictionaries(_names, c, max_size=6)), max_leaves=40
)


def _mutate(data: bytes, kind: int, where: int, byte: int) -> bytes:
    i = where % (len(data) + 1)
    if kind == 0 and data:
        i = min(i, len(data) - 1)
        return data[:i] + bytes([byte]) + data[i + 1 :]
    if kind == 1 and data:
        i = min(i, len(data) - 1)
        return data[:i] + data[i + 1 :]
    return data[:i] + bytes([byte]) + data[i:]


_bytes = st.one_of(st.integers(0, 255), st.sampled_from(list(b'{}[]",:\\u0e.-+ \x00\x80\xbf\xc0\xed\xf0')))


@settings(max_examples=150, deadline=None)
@given(_values, st.booleans(), st.sampled_from([None, 1]), st.sampled_from([1, 3, 16, 0]))
def test_random_documents(native, tmp_path, value, ensure_ascii, indent, window):
    data = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent).encode()
    check(native, tmp_path, data, windows=(window,))


@settings(max_examples=150, deadline=None)
@given(
    _values,
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10**6), _bytes), min_size=1, max_size=3),
    st.sampled_from([1, 5, 32, 0]),
    st.sampled_from([0, 1, 2]),
)
@example({"b": 1, "a": {"b": 2, "a": 3}}, [(2, 30, 0x20)], 1, 0)
def test_corrupted_documents(native, tmp_path, value, edits, window, flags):
    data = json.dumps(value).encode()
    for kind, where, byte in edits:
        data = _mutate(data, kind, where, byte)
    check(native, tmp_path, data, flags=flags, windows=(window,))


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from('[]{}",:0123456789.eE-+ tfrunlase\\u\n'), max_size=40), st.sampled_from([1, 4, 0]))
def test_json_alphabet(native, tmp_path, text, window):
    check(native, tmp_path, text.encode(), max_depth=8, windows=(window,))


# ---- the refusals, wherever they are ---------------------------------------------------------


def test_duplicate_across_a_large_object(native, tmp_path):
    """A name repeated 100,000 members apart, in an object far larger than the window: refused at
    the second one's quote, as in memory."""
    members = [b'"k%06d":%d' % (i, i) for i in range(100_000)]
    members.insert(100_000, b'"k000003":0')
    data = b'{"a":[' + b"{" + b",".join(members) + b"}]}"
    want = in_memory(native, data)
    assert want[1] == "DuplicateKeyError"
    assert streamed(tmp_path / "d.json", data, 4096) == want


def test_error_at_the_end_of_a_large_document(native, tmp_path):
    data = b"[" + b",".join(b'{"b":%d,"a":"%d"}' % (i, i) for i in range(50_000)) + b",]"
    want = in_memory(native, data)
    assert want[0] == "error" and want[2] == len(data) - 1
    assert streamed(tmp_path / "e.json", data, 4096) == want


def test_depth_limit_inside_large_containers(native, tmp_path):
    data = b'{"x":' * 40 + b'"' + b"s" * 5000 + b'"' + b"}" * 40
    for depth in (10, 39, 40, 41):
        check(native, tmp_path, data, max_depth=depth, windows=(100, 0))
