"""Vector files and manifests are read for a verdict: a repeated top-level name, or nesting deeper
than Python can read, is a refusal of the file (ValueError, one line in the CLI), never a verdict
taken from one of two `expected` members, and never a RecursionError (issue 32, findings 6 and 7)."""

from __future__ import annotations

import platform

import pytest
from _cli import fastjcs, one_line_error

from fastjcs.conformance.reader import member_texts, read_document

DEEP = ('{"id": "deep", "input": ' + "[" * 1200 + "]" * 1200 + "}").encode()


def test_a_repeated_top_level_name_is_refused():
    with pytest.raises(ValueError, match="'expected' is repeated at the top level"):
        read_document(b'{"input": {"a": 1}, "expected": "x", "expected": "y"}')
    with pytest.raises(ValueError, match="repeated"):
        member_texts(b'{"a": 1, "a": 2}', unique=True)
    assert member_texts(b'{"a": 1, "a": 2}') == {"a": b"2"}  # the last wins, where a caller asks no more


def test_names_repeated_inside_a_value_are_the_vector_s_business():
    # a must-fail vector's input embeds a repeated name on purpose (jcs-n kat 37)
    assert read_document(b'{"input": {"a": 1, "a": 2}}') == {"input": {"a": 2}}


@pytest.mark.skipif(
    platform.python_implementation() != "CPython", reason="PyPy's json reads this nesting without a RecursionError"
)
def test_deep_nesting_is_a_value_error():
    with pytest.raises(ValueError, match="nested too deep"):
        read_document(DEEP)
    with pytest.raises(ValueError, match="nested too deep"):
        member_texts(DEEP)


@pytest.mark.parametrize(
    "argv",
    [
        ["vectors", "{dir}"],
        ["vectors", "{file}"],
        ["serve-vector", "{file}"],
        ["crosscheck", "--impl", "true", "--vectors", "{dir}"],
    ],
    ids=["vectors-dir", "vectors-file", "serve-vector", "crosscheck"],
)
@pytest.mark.skipif(
    platform.python_implementation() != "CPython", reason="PyPy's json reads this nesting without a RecursionError"
)
def test_the_cli_says_one_line_for_a_deep_vector_file(tmp_path, argv):
    # each was a RecursionError traceback, exit 1
    (tmp_path / "v.json").write_bytes(DEEP)
    args = [a.format(dir=tmp_path, file=tmp_path / "v.json") for a in argv]
    p = fastjcs(*args)
    assert p.returncode == 2, p
    one_line_error(p)
    assert b"Traceback" not in p.stderr and b"RecursionError" not in p.stderr
