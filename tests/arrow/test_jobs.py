"""`fastjcs digest --output-dir`: jobs over many files in one process (fastjcs.tools.jobs).

The reference for a JSON Lines output is the single-file command, `fastjcs digest --jsonl FILE`,
run as its own process; for Parquet, `fastjcs.digest_text` per row. The cluster runs of the same
jobs are in test_cluster.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import _cli
import pytest

import fastjcs
from fastjcs.tools import jobs


def make_inputs(root: Path, lines: int = 300) -> dict[str, Path]:
    """JSON Lines files in two folders (two share a name), one with a bad line and a CRLF line."""
    files = {"a/one.jsonl": 0, "a/two.jsonl": 1, "b/one.jsonl": 2, "b/c/empty.jsonl": None}
    made = {}
    for name, k in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if k is None:
            path.write_bytes(b"")
        else:
            rows = [
                json.dumps({"k": k, "i": i, "v": [i / 7, "\u00e9\U0001f600"], "z": None}).encode() for i in range(lines)
            ]
            if k == 1:
                rows[100] = b'{"a": 1, "a": 2}'
                rows[200] = b'{"x": [1, 2}'
                rows[250] += b"\r"
            path.write_bytes(b"\n".join(rows) + b"\n")
        made[name] = path
    return made


def reference(path: Path) -> bytes:
    """What `fastjcs digest --jsonl FILE` prints."""
    return _cli.fastjcs("digest", "--jsonl", path).stdout


def test_a_jsonl_job_is_the_single_file_command_per_file(tmp_path, cli_backend):
    inputs = make_inputs(tmp_path / "in")
    p = _cli.fastjcs(
        "digest",
        "--jsonl",
        tmp_path / "in" / "**" / "*.jsonl",
        "--output-dir",
        tmp_path / "out",
        "--no-progress",
        extra_env=cli_backend,
    )
    assert p.returncode == 1, p.stderr  # a failed line: a negative verdict
    for name, path in inputs.items():
        out = tmp_path / "out" / (name + ".digests")
        assert out.read_bytes() == reference(path), name
    errors = p.stderr.decode().splitlines()
    two = inputs["a/two.jsonl"]
    duplicate = two.read_bytes().index(b'{"a": 1, "a"') + 9
    bracket = two.read_bytes().index(b"[1, 2}") + 5
    assert errors == [
        f"fastjcs digest: {two}:101:10: DuplicateKeyError: duplicate member name 'a' (byte {duplicate})",
        f"fastjcs digest: {two}:201:12: InvalidJSONError: unexpected character '}}', "
        f"expected ',' or ']' (byte {bracket})",
    ]
    assert p.stdout.decode().startswith("4 files (0 done by an earlier run), 900 lines, 2 failed")
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == [
        "a",
        "b",
        "c",
        "empty.jsonl.digests",
        "one.jsonl.digests",
        "one.jsonl.digests",
        "two.jsonl.digests",
    ]


def test_resume_skips_finished_files_and_still_reports_their_failures(tmp_path):
    make_inputs(tmp_path / "in")
    argv = ["digest", "--jsonl", tmp_path / "in" / "*" / "*.jsonl", "--output-dir", tmp_path / "out"]
    assert _cli.fastjcs(*argv).returncode == 1
    outputs = sorted((tmp_path / "out").rglob("*.digests"))
    before = {p: p.stat().st_mtime_ns for p in outputs}
    first = tmp_path / "out" / "a" / "one.jsonl.digests"
    kept = first.read_bytes()
    first.unlink()
    (tmp_path / "out" / "a" / ".one.jsonl.digests.123.part").write_bytes(b"half")  # a crash's leftover
    p = _cli.fastjcs(*argv, "--resume")
    assert p.returncode == 1
    assert p.stdout.decode().startswith("3 files (2 done by an earlier run), 900 lines, 2 failed")
    assert first.read_bytes() == kept
    assert all(p.stat().st_mtime_ns == t for p, t in before.items() if p != first)
    assert [line.split(": ", 2)[2] for line in p.stderr.decode().splitlines()] == [
        "DuplicateKeyError: duplicate member name 'a'",
        "InvalidJSONError: unexpected character '}', expected ',' or ']'",
    ]
    assert not list((tmp_path / "out").rglob("*.part"))


def test_an_output_is_written_whole_or_not_at_all(tmp_path):
    target = tmp_path / "x.digests"
    with pytest.raises(RuntimeError):
        with jobs.atomic(str(target)) as out:
            out.write(b"sha256:00\n")
            assert not target.exists()
            raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []
    with jobs.atomic(str(target)) as out:
        out.write(b"done\n")
    assert target.read_bytes() == b"done\n" and list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--parquet", "X", "--output-dir", "o"], "--parquet needs --column"),
        (["--jsonl", "X", "--output-dir", "o", "--parquet", "--column", "c"], "--jsonl or --parquet"),
        (["X", "--output-dir", "o"], "--jsonl or --parquet"),
        (["--jsonl", "X", "--cluster", "local:2"], "--cluster applies to a job over files"),
        (["--jsonl", "X", "--resume"], "--resume applies"),
        (["--jsonl", "--output-dir", "o"], "not stdin"),
        (["--jsonl", "X", "--output-dir", "o", "--jobs", "2"], "--jobs and --fail-fast"),
        (["--jsonl", "--output-dir", "o", "nothing/*.jsonl"], "no file matches nothing/*.jsonl"),
        (["--jsonl", "X", "--output-dir", "o", "--column", "c"], "apply to --parquet"),
        (["--jsonl", "X", "--output-dir", "o", "--cluster", "local:0"], "local:N"),
    ],
)
def test_usage_errors_are_one_line(tmp_path, argv, needle):
    p = _cli.fastjcs("digest", *argv, cwd=tmp_path)
    assert p.returncode == 2
    _cli.one_line_error(p, needle)


@pytest.mark.parametrize(
    "blocked, argv, needle",
    [
        ("pyarrow", ["--parquet", "--column", "c", "X", "--output-dir", "o"], "--parquet needs pyarrow"),
        ("distributed", ["--jsonl", "X", "--output-dir", "o", "--cluster", "local:2"], "--cluster needs distributed"),
    ],
)
def test_a_missing_extra_is_a_one_line_usage_error(tmp_path, blocked, argv, needle):
    """Where the arrow or dask extra is not installed (blocked here the way Python blocks an
    import), the job says which extra to install, on one line, before any work."""
    (tmp_path / "X").write_text("[1]\n")
    code = (
        f"import sys; sys.modules[{blocked!r}] = None; from fastjcs.cli import main; "
        f"sys.exit(main({['digest', *argv]!r}))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=tmp_path, env=_cli.env(), timeout=60)
    assert p.returncode == 2 and not (tmp_path / "o").exists()
    _cli.one_line_error(p, needle, f"fastjcs[{'arrow' if blocked == 'pyarrow' else 'dask'}]")


# ---- Parquet ---------------------------------------------------------------------------------


def _parquet_inputs(root: Path) -> list[Path]:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'fastjcs[arrow]')")
    import pyarrow.parquet as pq

    root.mkdir()
    texts = [['{"b": 1, "a": [1.0]}', None, '{"x": 1e400}', "[]"], ['"\\u00e9"']]
    paths = []
    for k, rows in enumerate(texts):
        path = root / f"part-{k}.parquet"
        pq.write_table(pa.table({"id": list(range(len(rows))), "payload": rows}), path, row_group_size=2)
        paths.append(path)
    return paths


@pytest.mark.parametrize("append", [False, True])
def test_a_parquet_job(tmp_path, cli_backend, append):
    pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'fastjcs[arrow]')")
    import pyarrow.parquet as pq

    paths = _parquet_inputs(tmp_path / "in")
    p = _cli.fastjcs(
        "digest",
        "--parquet",
        tmp_path / "in" / "*.parquet",
        "--column",
        "payload",
        "--output-dir",
        tmp_path / "out",
        *(["--append"] if append else []),
        extra_env=cli_backend,
    )
    assert p.returncode == 1
    assert p.stderr.decode() == (
        f"fastjcs digest: {paths[0]}: row 2: FloatDomainError: number overflows a double: line 1 column 7 (byte 6)\n"
    )
    for path in paths:
        source = pq.read_table(path).to_pylist()
        table = pq.read_table(tmp_path / "out" / (path.name + ".digests.parquet"))
        assert table.column_names == (["id", "payload"] if append else ["row"]) + ["digest", "error"]
        for i, (row, out) in enumerate(zip(source, table.to_pylist())):
            text = row["payload"]
            if text is not None and "1e400" in text:
                assert out["digest"] is None and out["error"].startswith("FloatDomainError")
                continue
            assert out["digest"] == (None if text is None else fastjcs.digest_text(text))
            assert out["error"] is None
            assert out.get("row", i) == i and out.get("id", i) == row["id"]


def test_a_parquet_column_that_is_not_there(tmp_path):
    _parquet_inputs(tmp_path / "in")
    p = _cli.fastjcs(
        "digest", "--parquet", tmp_path / "in" / "*.parquet", "--column", "body", "--output-dir", tmp_path / "out"
    )
    assert p.returncode == 2
    _cli.one_line_error(p, "no column 'body' (it has id, payload)")
    assert not [f for f in (tmp_path / "out").rglob("*") if f.is_file()]
    assert os.path.isdir(tmp_path / "out")
