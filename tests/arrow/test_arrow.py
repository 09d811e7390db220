"""fastjcs.arrow: canonical forms and digests of Arrow columns of JSON texts, on both backends.

The expected answers come from outside the Arrow code: `fastjcs.digest_texts` and
`fastjcs.canonicalize` row by row (each held to the vectors and rfc8785 by the core's tests), and
the vector files' own canonical bytes. Each layout check builds a column whose rows differ, so an
implementation that ignored the array's offset, its validity bitmap or its offsets width would
give other rows' answers.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[arrow]' from a checkout)")

from conftest import REPO, VECTORS  # noqa: E402

import fastjcs  # noqa: E402
from fastjcs.arrow import Results, canonicalize_array, digest_array  # noqa: E402
from fastjcs.lab.corpus import VECTOR_FOLDERS, vector_cases  # noqa: E402

TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]
TYPE_IDS = [str(t) for t in TYPES]


def _benchmark_corpus() -> Any:
    name = "fastjcs_benchmark_corpus"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / "corpus.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # (its dataclass looks itself up there)
        spec.loader.exec_module(module)
    return sys.modules[name]


def corpus_rows() -> list[bytes]:
    """Every document of the benchmark corpora, and every element of the documents that are
    lists (the records one by one, the floats one by one), as non-canonical JSON text."""
    bench = _benchmark_corpus()
    rows: list[bytes] = []
    for name in bench.NAMES:
        c = bench.load(name)
        rows += c.texts
        for obj in c.objects:
            if isinstance(obj, list) and name != "deep":
                rows += [json.dumps(item, ensure_ascii=False, indent=1).encode("utf-8") for item in obj]
    return rows


@pytest.fixture(scope="module")
def rows() -> list[bytes]:
    return corpus_rows()


def _column(texts: list[Any], t: Any) -> Any:
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        texts = [x.decode("utf-8") if isinstance(x, bytes) else x for x in texts]
    return pa.array(texts, t)


# ---- agreement with digest_texts and canonicalize ---------------------------------------------


@pytest.mark.parametrize("t", TYPES, ids=TYPE_IDS)
def test_corpora_agree_with_digest_texts(backend, rows, t):
    assert len(rows) > 20_000
    col = _column(rows, t)
    expected = fastjcs.digest_texts(rows)
    assert all(isinstance(d, str) for d in expected)
    got = digest_array(col)
    assert got.type == (pa.large_string() if "large" in str(t) else pa.string())
    assert got.to_pylist() == expected
    raw = digest_array(col, raw=True, algorithm="sha384")
    assert raw.type == pa.binary(48)
    assert raw.to_pylist() == [bytes.fromhex(d.split(":")[1]) for d in fastjcs.digest_texts(rows, "sha384")]


def test_corpora_canonical_forms(backend, rows):
    # Rows appended one after another in one output buffer: an object reordered in row k must not
    # disturb the bytes of rows before it.
    got = canonicalize_array(pa.array(rows, pa.binary()))
    assert got.type == pa.binary()
    assert got.to_pylist() == [fastjcs.canonicalize(r) for r in rows]
    assert canonicalize_array(pa.array(rows, pa.large_binary())).type == pa.large_binary()


def _vector_cases() -> list[Any]:
    return vector_cases([VECTORS / f for f in VECTOR_FOLDERS])


def test_the_jcs_vectors(backend):
    cases = _vector_cases()
    valid = [c for c in cases if c.expected is not None]
    refused = [c for c in cases if c.expected is None]
    assert len(valid) > 50 and len(refused) > 50
    texts = [c.text for c in cases]
    col = pa.array(texts, pa.binary())
    canon = canonicalize_array(col, errors="null")
    assert isinstance(canon, Results)
    for c, value, message in zip(cases, canon.values.to_pylist(), canon.errors.to_pylist()):
        if c.expected is None:
            assert value is None and message, c.id
        else:
            assert (value, message) == (c.expected, None), c.id
    # Digests: row for row what digest_texts gives, the refused rows' messages as its errors say.
    digests = digest_array(col, errors="null")
    for i, (expected, value, message) in enumerate(
        zip(fastjcs.digest_texts(texts), digests.values.to_pylist(), digests.errors.to_pylist())
    ):
        if isinstance(expected, str):
            assert (value, message) == (expected, None), cases[i].id
        else:
            assert value is None
            assert message == f"{type(expected).__name__}: {expected}", cases[i].id


# ---- nulls, slices, chunks, types -------------------------------------------------------------

TEXTS = [b'{"b":2,"a":1}', b"[1.0, 2e0]", None, b'"\\u00e9"', b"  3  ", None, b'{"z":{"y":[]}}', b"true"]


@pytest.mark.parametrize("t", TYPES, ids=TYPE_IDS)
def test_nulls_stay_null(backend, t):
    col = _column(TEXTS, t)
    assert col.null_count == 2
    expected = [None if x is None else fastjcs.digest_text(x) for x in TEXTS]
    assert digest_array(col).to_pylist() == expected
    values, errors = digest_array(col, errors="null")
    assert values.to_pylist() == expected and errors.to_pylist() == [None] * len(TEXTS)
    assert canonicalize_array(col).to_pylist() == [None if x is None else fastjcs.canonicalize(x) for x in TEXTS]


def test_all_null_and_empty_arrays(backend):
    assert digest_array(pa.array([None, None], pa.string())).to_pylist() == [None, None]
    assert canonicalize_array(pa.array([None], pa.binary())).to_pylist() == [None]
    empty = digest_array(pa.array([], pa.large_string()))
    assert len(empty) == 0 and empty.type == pa.large_string()
    assert digest_array(pa.chunked_array([], pa.string())).num_chunks == 0


@pytest.mark.parametrize("t", TYPES, ids=TYPE_IDS)
def test_sliced_arrays_read_from_their_offset(backend, t):
    col = _column(TEXTS, t)
    for start, length in ((1, 5), (2, 6), (3, 1), (7, 1), (5, 0)):
        part = col.slice(start, length)
        assert part.offset == start
        want = [None if x is None else fastjcs.digest_text(x) for x in TEXTS[start : start + length]]
        assert digest_array(part).to_pylist() == want
        assert digest_array(part, raw=True).to_pylist() == [None if d is None else bytes.fromhex(d[7:]) for d in want]
        assert canonicalize_array(part).to_pylist() == [
            None if x is None else fastjcs.canonicalize(x) for x in TEXTS[start : start + length]
        ]


def test_chunked_arrays_keep_their_chunks(backend):
    col = _column(TEXTS, pa.string())
    chunked = pa.chunked_array([col.slice(0, 3), col.slice(3, 0), col.slice(3)])
    got = digest_array(chunked)
    assert isinstance(got, pa.ChunkedArray)
    assert [len(c) for c in got.chunks] == [3, 0, 5]
    assert got.to_pylist() == digest_array(col).to_pylist()
    values, errors = canonicalize_array(chunked, errors="null")
    assert [len(c) for c in errors.chunks] == [3, 0, 5]
    assert values.to_pylist() == canonicalize_array(col).to_pylist()


def test_a_row_of_any_bytes(backend):
    # binary columns may hold what is not UTF-8, or not JSON: each such row is refused alone.
    texts = [b"\xff", b"[1]", b"\xef\xbb\xbf[]", b'{"a":1,"a":2}', b"", b"[1e400]"]
    values, errors = digest_array(pa.array(texts, pa.binary()), errors="null")
    assert values.to_pylist() == [None, fastjcs.digest_text(b"[1]"), None, None, None, None]
    names = [None if m is None else m.split(":")[0] for m in errors.to_pylist()]
    assert names == [
        "InvalidJSONError",
        None,
        "InvalidJSONError",
        "DuplicateKeyError",
        "InvalidJSONError",
        "FloatDomainError",
    ]


def test_the_text_options_are_passed_on(backend):
    col = pa.array(["[9007199254740993]", "[1.5]", "[[[1]]]"])
    assert digest_array(col, errors="null").errors.null_count == 3
    strict = digest_array(col, errors="null", strict_integers=True).errors.to_pylist()
    assert strict[0].startswith("IntegerDomainError") and strict[1:] == [None, None]
    only = digest_array(col, errors="null", integers_only=True).errors.to_pylist()
    assert only[1].startswith("NonIntegerNumberError")
    deep = canonicalize_array(col, errors="null", max_depth=2).errors.to_pylist()
    assert deep[:2] == [None, None] and deep[2].startswith("DepthLimitError")


def test_canonical_rows_are_taken_as_they_lie(backend):
    # Rows already canonical (rfc8785's own output) are copied and hashed as they lie; rows that
    # look canonical and are not, between them and in runs (after two refusals in a row the check
    # is skipped for the next rows), go through the parser. Expected: rfc8785 and pycryptodome.
    rfc8785 = pytest.importorskip("rfc8785")
    from Crypto.Hash import SHA256

    canonical = [rfc8785.dumps(o) for o in _benchmark_corpus().load("eab").objects[:60]]
    near = {  # a text that is not its own canonical form, and its canonical form (None: refused)
        b'{"a":1.0}': b'{"a":1}',
        b'{"b":1,"a":2}': b'{"a":2,"b":1}',
        b'["\\u00e9"]': '["\u00e9"]'.encode(),
        b'{"a":1} ': b'{"a":1}',
        b"[1E2]": b"[100]",
        b"[-0]": b"[0]",
        b'{"a":1,"a":2}': None,
        b'["\\ud800"]': None,
        b'{"a":1,}': None,
    }
    rows, want = [], []
    for i, text in enumerate(canonical):
        rows.append(text)
        want.append(text)
        if i % 3 == 0:  # one row that is not canonical, or a run of them
            for bad, form in list(near.items())[: 1 if i % 2 else len(near)]:
                rows.append(bad)
                want.append(form)
    values, errors = canonicalize_array(pa.array(rows, pa.binary()), errors="null")
    assert values.to_pylist() == want
    assert [e is None for e in errors.to_pylist()] == [w is not None for w in want]
    digests, _ = digest_array(pa.array(rows, pa.binary()), errors="null")
    assert digests.to_pylist() == [None if w is None else "sha256:" + SHA256.new(w).hexdigest() for w in want]


# ---- errors ----------------------------------------------------------------------------------


def test_raise_names_the_row_and_the_byte(backend):
    chunked = pa.chunked_array([pa.array(['{"a":1}', None, "[]"]), pa.array(["[2]", '{"a": 1,}', "{"])])
    with pytest.raises(fastjcs.InvalidJSONError) as info:
        digest_array(chunked)
    assert info.value.index == 4  # the row in the whole array, chunks counted
    assert info.value.offset == 8  # '}' where a member name was expected
    with pytest.raises(fastjcs.InvalidJSONError) as direct:
        fastjcs.canonicalize('{"a": 1,}')
    assert str(info.value) == str(direct.value)
    with pytest.raises(fastjcs.InvalidJSONError) as again:
        canonicalize_array(chunked.combine_chunks().slice(1))
    assert (again.value.index, again.value.offset) == (3, 8)


def test_null_reports_every_failed_row_in_parallel(backend):
    texts = ['{"a":1}', "[1,]", None, '{"a":1,"a":1}', "[]", "nul"]
    values, errors = digest_array(pa.array(texts), errors="null")
    assert values.is_null().to_pylist() == [False, True, True, True, False, True]
    messages = errors.to_pylist()
    for i, text in enumerate(texts):
        if text is None or i in (0, 4):
            assert messages[i] is None
            continue
        with pytest.raises(fastjcs.CanonicalizationError) as info:
            fastjcs.canonicalize(text)
        assert messages[i] == f"{type(info.value).__name__}: {info.value}"


def test_a_failed_row_leaves_nothing_in_the_data(backend):
    # The parser has written "[1,2," when it finds the end: the failed row's slot stays empty.
    texts = ["[1,2,", '{"b":[true],"a":1}', '{"c":3,"d":[', "[1]"]
    values, errors = canonicalize_array(pa.array(texts), errors="null")
    assert values.to_pylist() == [None, b'{"a":1,"b":[true]}', None, b"[1]"]
    assert memoryview(values.buffers()[1]).cast("i")[:5].tolist() == [0, 0, 18, 18, 21]


def test_more_failures_than_one_c_call_records(backend):
    texts = ["[1]" if i % 3 else "[" for i in range(1000)]
    values, errors = digest_array(pa.array(texts), errors="null")
    assert values.null_count == len(errors) - errors.null_count == 334
    assert values.to_pylist() == [None if t == "[" else fastjcs.digest_text(t) for t in texts]


def test_arguments_are_checked(backend):
    with pytest.raises(TypeError, match="string, large_string, binary or large_binary"):
        digest_array(pa.array([1, 2]))
    with pytest.raises(TypeError, match="digest_many"):
        digest_array(['{"a":1}'])
    with pytest.raises(ValueError, match="errors must be"):
        digest_array(pa.array(["1"]), errors="skip")
    with pytest.raises(fastjcs.UnsupportedAlgorithmError):
        digest_array(pa.array(["1"]), algorithm="SHA256")
    with pytest.raises(ValueError, match="max_depth"):
        canonicalize_array(pa.array(["1"]), max_depth=-1)


@pytest.mark.parametrize("large", [False, True])
def test_malformed_offsets_are_refused_not_read(backend, large):
    width, kind = (8, pa.large_binary()) if large else (4, pa.binary())

    def offsets(*values: int) -> Any:
        return pa.py_buffer(b"".join(v.to_bytes(width, "little", signed=True) for v in values))

    data = pa.py_buffer(b"[1][2]")
    # Decreasing, and past the data buffer before the last offset: pyarrow checks only the ends.
    for bad, row in ((offsets(0, 3, 2), 1), (offsets(0, 7, 6), 0), (offsets(2, 1, 6), 0)):
        arr = pa.Array.from_buffers(kind, 2, [None, bad, data])
        with pytest.raises(ValueError, match=f"malformed Arrow array: the offsets of row {row} "):
            digest_array(arr)
        with pytest.raises(ValueError, match="malformed Arrow array"):
            canonicalize_array(arr, errors="null")


def test_buffers_too_small_for_the_length_are_refused(backend):
    # pyarrow refuses to build such an array; one imported from elsewhere is checked all the same.
    class Short:
        offset, type = 0, pa.binary()

        def __len__(self) -> int:
            return 5

        def buffers(self) -> list:
            return [None, pa.py_buffer(bytes(12)), pa.py_buffer(b"[1][2]")]

    with pytest.raises(ValueError, match="smaller than its length"):
        fastjcs.bulk.arrow._chunk(
            Short(), fastjcs.bulk.arrow._job(True, "sha256", False, "raise", 9, False, False), False, pa.string()
        )


@pytest.mark.parametrize("t, width", [(pa.binary(), 4), (pa.large_binary(), 8)])
def test_offsets_at_any_byte(backend, t, width):
    """A column whose offsets buffer starts at an odd address (as one that crossed between Dask
    workers can): read byte by byte, the same rows; the ASan suite's UBSan flagged the misaligned
    loads (csrc/arrow.c) before."""
    rows = [b'{"b":1,"a":2}', b"[1.0]", b'"x"']
    offsets, at = [0], 0
    for r in rows:
        at += len(r)
        offsets.append(at)
    raw = b"".join(o.to_bytes(width, "little") for o in offsets)
    misaligned = pa.py_buffer(b"\0" + raw)[1:]
    col = pa.Array.from_buffers(t, len(rows), [None, misaligned, pa.py_buffer(b"".join(rows))])
    assert canonicalize_array(col).to_pylist() == [fastjcs.canonicalize(r) for r in rows]
    assert digest_array(col).to_pylist() == [fastjcs.digest_text(r) for r in rows]
