"""The positions `check` reports: line and column of each finding, and the incremental helper
(LineIndex) that keeps them linear in the number of findings, checked against the direct count.
(That `check` is linear is held by tests/core/test_complexity.py.)
"""

from __future__ import annotations

import random

import pytest

from fastjcs import cli, cpb
from fastjcs.core import errors as _errors
from fastjcs.core.errors import LineIndex


def test_cli_check_positions(tmp_path, capsys):
    path = tmp_path / "doc.json"
    path.write_bytes(b'[\n {"a": null},\n\n   {"b": 1.5, "a": []}]')
    assert cli.main(["check", str(path)]) == cpb.EXIT_NON_CONFORMING
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        f'P $[0]["a"] empty-member {path}:2:3',
        f'R $[1]["b"] non-integer-number {path}:4:10',
        f'P $[1]["a"] empty-member {path}:4:15',
    ]


def _direct_line_col(data: bytes, offset: int):
    before = data[:offset]
    return before.count(b"\n") + 1, offset - (before.rfind(b"\n") + 1) + 1


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_line_index_matches_direct_count(monkeypatch, kind):
    monkeypatch.setattr(_errors, "_CHUNK", 7)  # many chunk boundaries for the memoryview path
    rng = random.Random(5)
    data = bytes(rng.choice(b"ab\n\xc3") for _ in range(3_000))
    offsets = sorted(rng.randrange(len(data) + 1) for _ in range(300))
    offsets += [rng.randrange(len(data) + 1) for _ in range(100)]  # then in any order
    where = LineIndex(kind(data))
    for offset in offsets:
        assert where(offset) == _direct_line_col(data, offset), offset
        assert _errors._line_col(kind(data), offset) == _direct_line_col(data, offset)
