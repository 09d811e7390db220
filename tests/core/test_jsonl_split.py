"""One JSON Lines split rule (fastjcs.core.jsonl_split): a line ends at each b"\\n" and nowhere else, a
final newline ends the last line, empty input has no lines, and nothing else leaves a line.

The expected lines below are written by hand from that rule (JSON Lines, jsonlines.org: "each
line is terminated by \\n"; "\\r\\n" reads the same since "\\r" is JSON whitespace, RFC 8259 section
2). The C core splits in csrc/batch.c (fjcs_digest_lines_hex) and bulk.jsonl cuts a stream into
chunks of whole lines: both are held here to the same lines on hostile inputs."""

from __future__ import annotations

import io
import random

import pytest

from fastjcs.bulk import jsonl as bulk_jsonl
from fastjcs.core import jsonl_split as jsonl
from fastjcs.core import python_backend as _python

#: (input, its lines), by hand.
HOSTILE = [
    (b"", []),
    (b"\n", [b""]),
    (b"\n\n", [b"", b""]),
    (b"1", [b"1"]),  # a last line without a newline
    (b"1\n", [b"1"]),
    (b"1\n2", [b"1", b"2"]),
    (b"1\r\n2\r\n", [b"1\r", b"2\r"]),  # CRLF: the CR stays, as whitespace
    (b"\r", [b"\r"]),  # a lone CR ends no line
    (b"1\r2\n", [b"1\r2"]),
    (b"\r\r\n\r", [b"\r\r", b"\r"]),
    (b"[1]\n\n{}\n", [b"[1]", b"", b"{}"]),  # an empty line is a line
    (b"  \n\t \n", [b"  ", b"\t "]),  # blank lines of spaces
    (b"\x00\n1\x00\n\x00", [b"\x00", b"1\x00", b"\x00"]),  # NUL bytes end nothing
    (b"\x0b\x0c\x1c\x1d\x1e\x85\n", [b"\x0b\x0c\x1c\x1d\x1e\x85"]),  # what str.splitlines would split at
    (b"\n\n\n1", [b"", b"", b"", b"1"]),
    (b'"a\\n"\n"\\r"\r\n', [b'"a\\n"', b'"\\r"\r']),  # escaped newlines are not newlines
]

ALPHABET = [b"1", b"[]", b"{}", b'"x"', b"\n", b"\n", b"\r", b"\r\n", b" ", b"\t", b"\x00", b"[", b"\xff"]


def _random_inputs(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    return [b"".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 24))) for _ in range(count)]


@pytest.mark.parametrize(("data", "lines"), HOSTILE)
def test_split_lines_follows_the_rule(data, lines):
    assert jsonl.split_lines(data) == lines
    starts = [sum(len(line) + 1 for line in lines[:i]) for i in range(len(lines))]
    assert jsonl.line_starts(data)[: len(lines)] == starts


def test_a_rule_that_also_splits_at_cr_is_caught():
    """bytes.splitlines (which also ends a line at a lone "\\r" and drops a CRLF's "\\r") is the
    wrong rule the table above tells apart."""
    assert any(data.splitlines() != lines for data, lines in HOSTILE)


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64])
def test_bulk_chunks_hold_whole_lines_at_every_chunk_size(chunk):
    """bulk.jsonl cuts the stream after a newline only: the lines of its chunks are the lines of
    the input, with a chunk boundary at every byte (chunk=1)."""
    for data in [d for d, _ in HOSTILE] + _random_inputs(200, chunk):
        chunks = [bytes(c) for c in bulk_jsonl.LineChunks(io.BytesIO(data), chunk)]
        assert b"".join(chunks) == data
        assert all(c.endswith(b"\n") for c in chunks[:-1])
        assert [line for c in chunks for line in jsonl.split_lines(c)] == jsonl.split_lines(data)


def _lines_of_c(native, data: bytes) -> list[tuple]:
    """What the C split gives, line by line: the digest lines and failures of
    fjcs_digest_lines_hex (a failure names its line's start and the error's offset in it)."""
    return native.digest_lines_hex(data, 100, False, "sha256", "sha256:")


def _lines_of_python(data: bytes) -> list[tuple]:
    return _python.digest_lines_hex(data, 100, False, "sha256", "sha256:")


def test_the_c_split_gives_the_lines_of_the_python_rule(native):
    """fjcs_digest_lines_hex (csrc/batch.c) against split_lines: the same number of lines, the
    same results in the same order, each failed line at the same start with the error at the same
    offset (a line that kept or lost a "\\r" or a NUL fails at another offset)."""
    for data in [d for d, _ in HOSTILE] + _random_inputs(500, 25):
        c, py = _lines_of_c(native, data), _lines_of_python(data)
        assert c == py, data
        assert c[1] == len(jsonl.split_lines(data)), data


def test_the_c_split_resumes_where_it_stopped(native):
    """The C call stops when its 256 failure records are full and is called again from the
    byte it reached: more failing lines than that (empty, blank and CR lines) split the same."""
    rng = random.Random(5)
    data = b"".join(rng.choice([b"\n", b" \n", b"\r\n", b"\r", b"\x00\n", b"1\n"]) for _ in range(2000))
    c, py = _lines_of_c(native, data), _lines_of_python(data)
    assert len(c[2]) > 600
    assert c == py


def test_the_c_split_gives_the_same_lines_at_a_one_byte_chunk_boundary(native, swap_backend):
    """digest --jsonl's whole path (bulk.jsonl.digest_stream, one backend call per chunk) on the C core,
    with a chunk boundary after every byte, writes what one call over the whole input writes."""
    swap_backend(native)
    settings = bulk_jsonl.Settings("sha256", "jcs", (), 100, False)
    for data in [d for d, _ in HOSTILE] + _random_inputs(100, 3):
        outputs = []
        for chunk in (1, 1 << 20):
            out: list[bytes] = []
            bulk_jsonl.digest_stream(io.BytesIO(data), settings, 1, out.append, lambda notes: None, False, chunk=chunk)
            outputs.append(b"".join(out))
        assert outputs[0] == outputs[1], data
        assert outputs[0].count(b"\n") == len(jsonl.split_lines(data)), data
