"""`fastjcs digest --output-dir`: jobs over many files in one process (fastjcs.bulk.jobs).

The reference for a JSON Lines output is the single-file command, `fastjcs digest --jsonl FILE`,
run as its own process; for Parquet, `fastjcs.digest_text` per row. The cluster runs of the same
jobs are in test_cluster.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import _cli
import pytest
import rfc8785

import fastjcs
from fastjcs.bulk import jobs


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
    assert p.returncode == 2, p.stderr  # a failed line: bad input
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
    assert sorted(p.name for p in (tmp_path / "out").rglob("*") if not p.name.startswith(".")) == [
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
    assert _cli.fastjcs(*argv).returncode == 2
    outputs = sorted((tmp_path / "out").rglob("*.digests"))
    before = {p: p.stat().st_mtime_ns for p in outputs}
    first = tmp_path / "out" / "a" / "one.jsonl.digests"
    kept = first.read_bytes()
    first.unlink()
    (tmp_path / "out" / "a" / ".one.jsonl.digests.123.part").write_bytes(b"half")  # a crash's leftover
    p = _cli.fastjcs(*argv, "--resume")
    assert p.returncode == 2
    assert p.stdout.decode().startswith("3 files (2 done by an earlier run), 900 lines, 2 failed")
    assert first.read_bytes() == kept
    assert all(p.stat().st_mtime_ns == t for p, t in before.items() if p != first)
    assert [line.split(": ", 2)[2] for line in p.stderr.decode().splitlines()] == [
        "DuplicateKeyError: duplicate member name 'a'",
        "InvalidJSONError: unexpected character '}', expected ',' or ']'",
    ]
    assert not list((tmp_path / "out").rglob("*.part"))


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_an_output_never_overwrites_an_input_nor_is_globbed_again(tmp_path, cli_backend):
    """Finding 1 of issue 23: `digest --jsonl 'logs/*' --output-dir logs` replaced the user's
    logs/a.jsonl.digests with a digest and digested that too; a second run digested its own
    outputs (a.jsonl.digests.digests). Now an output that is an input, or that an input pattern
    matches, is refused before anything is written."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(b'{"a":1}\n')
    (logs / "a.jsonl.digests").write_bytes(b"my notes\n")
    before = _tree(tmp_path)
    for pattern, out, needle in (
        ("logs/*", "logs", "the output logs/a.jsonl.digests is one of the inputs"),
        ("logs/a.jsonl.digests", "logs", "the output logs/a.jsonl.digests.digests"),  # see below
        ("logs/**", "logs/out", "matches the input pattern logs/**"),
        ("logs/*.jsonl*", "logs", "is one of the inputs"),
    ):
        p = _cli.fastjcs("digest", "--jsonl", pattern, "--output-dir", out, cwd=tmp_path, extra_env=cli_backend)
        if pattern == "logs/a.jsonl.digests":  # one named file: its output is not an input
            assert p.returncode == 2, p.stderr
            (logs / "a.jsonl.digests.digests").unlink()
            (logs / ".a.jsonl.digests.digests.fastjcs.json").unlink()
            continue
        assert p.returncode == 2, (pattern, p.stderr)
        _cli.one_line_error(p, f"--output-dir {out}: ", needle, "choose an output folder outside the inputs")
        assert _tree(tmp_path) == before and not (logs / "out").exists()
    # Digests beside their inputs stay possible when the pattern cannot name them: twice.
    for _ in range(2):
        p = _cli.fastjcs("digest", "--jsonl", "logs/*.jsonl", "--output-dir", "logs", cwd=tmp_path)
        assert p.returncode == 0 and p.stdout.startswith(b"1 files (0 done"), p.stderr
    assert (logs / "a.jsonl.digests").read_bytes() == _cli.fastjcs("digest", "--jsonl", logs / "a.jsonl").stdout
    assert sorted(p.name for p in logs.iterdir()) == [".a.jsonl.digests.fastjcs.json", "a.jsonl", "a.jsonl.digests"]


def _resume(tmp_path: Path, *extra: str, backend: dict | None = None) -> subprocess.CompletedProcess:
    return _cli.fastjcs(
        "digest", "--jsonl", "in/*.jsonl", "--output-dir", "out", "--resume", *extra, cwd=tmp_path, extra_env=backend
    )


def test_resume_redoes_an_output_made_from_other_bytes_or_settings(tmp_path, cli_backend):
    """Finding 2 of issue 23: resuming with another --algorithm or --profile, after the input was
    rewritten, or over a 0-byte output kept the old digests ("1 done by an earlier run", exit 0).
    Now each output's record (input size, time and SHA-256, the settings, the version) must match,
    or the file is done again; the expected outputs are the single-file command's."""
    (tmp_path / "in").mkdir()
    src = tmp_path / "in" / "a.jsonl"
    other = tmp_path / "in" / "b.jsonl"
    src.write_bytes(b'{"a":1}\n[1,2]\n')
    other.write_bytes(b'{"b":1}\n')
    out = tmp_path / "out" / "a.jsonl.digests"

    def expect(*args: str) -> bytes:
        return _cli.fastjcs("digest", "--jsonl", src, *args).stdout

    p = _resume(tmp_path, backend=cli_backend)
    assert p.stdout.startswith(b"2 files (0 done by an earlier run)") and out.read_bytes() == expect()
    p = _resume(tmp_path, backend=cli_backend)
    assert p.returncode == 0 and p.stdout.startswith(b"2 files (2 done by an earlier run)")
    for extra in (["--algorithm", "sha384"], ["--profile", "jcs-n"], ["--integers-only"], ["--max-depth", "5"]):
        p = _resume(tmp_path, *extra, backend=cli_backend)
        assert p.returncode == 0 and p.stdout.startswith(b"2 files (0 done by an earlier run)"), (extra, p.stdout)
        assert out.read_bytes() == expect(*extra), extra
        p = _resume(tmp_path, *extra, backend=cli_backend)  # and now kept
        assert p.stdout.startswith(b"2 files (2 done by an earlier run)"), (extra, p.stdout)
    _resume(tmp_path, backend=cli_backend)
    stat = src.stat()
    src.write_bytes(b'{"a":2}\n[1,3]\n')  # rewritten: same size, same time
    os.utime(src, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    p = _resume(tmp_path, backend=cli_backend)
    assert p.stdout.startswith(b"2 files (1 done by an earlier run)") and out.read_bytes() == expect()
    out.write_bytes(b"")  # an output emptied (a crash of another tool, a full disk)
    p = _resume(tmp_path, backend=cli_backend)
    assert p.stdout.startswith(b"2 files (1 done by an earlier run)") and out.read_bytes() == expect()
    record = tmp_path / "out" / ".a.jsonl.digests.fastjcs.json"
    record.unlink()  # an output without its record (an older fastjcs, or a crash before it)
    p = _resume(tmp_path, backend=cli_backend)
    assert p.stdout.startswith(b"2 files (1 done by an earlier run)") and record.exists()
    record.write_text(record.read_text().replace('"fastjcs": "', '"fastjcs": "0.0.0-'))  # another version
    p = _resume(tmp_path, backend=cli_backend)
    assert p.stdout.startswith(b"2 files (1 done by an earlier run)")
    assert json.loads(record.read_text())["fastjcs"] == fastjcs.__version__


def test_two_jobs_on_one_output_folder(tmp_path):
    """Finding 13 of issue 23: job B's start deleted job A's half-written `.part`, and A failed
    after doing all its work. Now B is refused (one line, exit 2) naming the job that holds the
    folder, A ends as if B never ran, and a third job after A is free to run."""
    (tmp_path / "in").mkdir()
    rows = b"".join(json.dumps({"i": i, "v": ["x" * 40, i / 3]}).encode() + b"\n" for i in range(150000))
    (tmp_path / "in" / "big.jsonl").write_bytes(rows)
    (tmp_path / "other.jsonl").write_bytes(b"[1]\n")
    argv = [sys.executable, "-m", "fastjcs", "digest", "--jsonl", "in/big.jsonl", "--output-dir", "out"]
    slow = _cli.env({"FASTJCS_BACKEND": "python"})
    a = subprocess.Popen(argv, cwd=tmp_path, env=slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list((tmp_path / "out").glob(".*.part")) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert list((tmp_path / "out").glob(".*.part")), "job A did not start"
        b = _cli.fastjcs("digest", "--jsonl", "other.jsonl", "--output-dir", "out", cwd=tmp_path)
        assert a.poll() is None, "job A ended before job B tried: make its input bigger"
        assert b.returncode == 2
        _cli.one_line_error(b, "--output-dir out: another job is writing there (pid", str(a.pid), "in/big.jsonl")
        assert list((tmp_path / "out").glob(".*.part")), "job B removed job A's temporary file"
        out, err = a.communicate(timeout=300)
    finally:
        if a.poll() is None:
            a.kill()
    assert a.returncode == 0, err
    assert (tmp_path / "out" / "big.jsonl.digests").read_bytes() == reference(tmp_path / "in" / "big.jsonl")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".big.jsonl.digests.fastjcs.json",
        "big.jsonl.digests",
    ]
    c = _cli.fastjcs("digest", "--jsonl", "other.jsonl", "--output-dir", "out", cwd=tmp_path)
    assert c.returncode == 0, c.stderr


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
    extra = "arrow" if blocked == "pyarrow" else "dask"
    _cli.one_line_error(p, needle, f"install the {extra} extra: pip install '.[{extra}]' from a fastjcs checkout")


# ---- Parquet ---------------------------------------------------------------------------------


def _parquet_inputs(root: Path) -> list[Path]:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[arrow]' from a checkout)")
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
    pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[arrow]' from a checkout)")
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
    assert p.returncode == 2  # a row that is not JSON: bad input
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


def _typed_inputs(root: Path) -> dict[str, Path]:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[arrow]' from a checkout)")
    import pyarrow.parquet as pq

    root.mkdir()
    columns = {
        "int64": pa.array([1, 2], pa.int64()),
        "struct": pa.array([{"x": 1}, {"x": 2}]),
        "list": pa.array([[1], [2]]),
    }
    made = {}
    for name, column in columns.items():
        made[name] = root / f"{name}.parquet"
        pq.write_table(pa.table({"p": column}), made[name])
    return made


@pytest.mark.parametrize("cluster", [[], pytest.param(["--cluster", "local:2"], marks=pytest.mark.slow)])
def test_a_parquet_column_that_holds_no_texts_is_one_line(tmp_path, cluster):
    """Finding 11 of issue 23: `--parquet --column p` where p is int64 or a struct was a
    TypeError traceback (exit 1), also with --cluster local:2. Now one line naming the file, the
    column and its type; exit 2; no output."""
    for kind, path in _typed_inputs(tmp_path / "in").items():
        p = _cli.fastjcs("digest", "--parquet", "--column", "p", path, "--output-dir", tmp_path / kind, *cluster)
        assert p.returncode == 2, p.stderr
        _cli.one_line_error(p, f"{path}: column 'p' is {kind}", "not JSON texts (string or binary)")
        assert not [f for f in (tmp_path / kind).rglob("*") if f.is_file()]


def test_a_dictionary_encoded_column_of_texts_is_digested(tmp_path, cli_backend):
    """Finding 11 of issue 23: a dictionary-encoded column of JSON texts (as pandas and Spark
    write them) was a TypeError traceback; its texts are texts. Expected: digest_text per row."""
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[arrow]' from a checkout)")
    import pyarrow.parquet as pq

    texts = ['{"b": 1, "a": 2}', "[1.0]", '{"b": 1, "a": 2}', None]
    pq.write_table(pa.table({"p": pa.array(texts).dictionary_encode()}), tmp_path / "d.parquet")
    assert pq.read_table(tmp_path / "d.parquet").schema.field("p").type.index_type == pa.int32()  # still a dictionary
    for append in ([], ["--append"]):
        out = tmp_path / f"out{len(append)}"
        p = _cli.fastjcs(
            "digest",
            "--parquet",
            "--column",
            "p",
            tmp_path / "d.parquet",
            "--output-dir",
            out,
            *append,
            extra_env=cli_backend,
        )
        assert p.returncode == 0, p.stderr
        got = pq.read_table(out / "d.parquet.digests.parquet").column("digest").to_pylist()
        expected = [
            None if t is None else f"sha256:{hashlib.sha256(rfc8785.dumps(json.loads(t))).hexdigest()}" for t in texts
        ]
        assert got == expected


@pytest.mark.parametrize("taken", [["digest"], ["error"], ["digest", "error"]])
def test_append_onto_a_file_that_has_the_columns_is_refused(tmp_path, taken):
    """Finding 11 of issue 23: `--parquet --append` onto a file with a `digest` or `error`
    column wrote a file with two columns of that name (and --resume then failed on it forever).
    Now one line naming the file and the column; exit 2; nothing written; without --append the
    same file is digested."""
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[arrow]' from a checkout)")
    import pyarrow.parquet as pq

    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"p": ["[1]", "{}"], **{name: ["old", "old"] for name in taken}}), path)
    argv = ["digest", "--parquet", "--column", "p", path, "--output-dir", tmp_path / "out"]
    for extra in ([], ["--resume"]):
        p = _cli.fastjcs(*argv, "--append", *extra)
        assert p.returncode == 2, p.stderr
        _cli.one_line_error(p, f"{path}: it has a column named {' and '.join(map(repr, taken))} already")
        assert not [f for f in (tmp_path / "out").rglob("*") if f.is_file()]
    p = _cli.fastjcs(*argv)
    assert p.returncode == 0, p.stderr
    assert pq.read_table(tmp_path / "out" / "x.parquet.digests.parquet").column_names == ["row", "digest", "error"]


def test_a_bad_parquet_file_among_several_is_named(tmp_path):
    """Finding 16 of issue 23: a file that is not Parquet among several stopped the job with
    pyarrow's message alone ("Parquet magic bytes not found..."), naming no file."""
    paths = _parquet_inputs(tmp_path / "in")
    bad = tmp_path / "in" / "part-0b.parquet"
    bad.write_bytes(b"PAR1 but not really\n")
    p = _cli.fastjcs(
        "digest", "--parquet", "--column", "payload", tmp_path / "in" / "*.parquet", "--output-dir", tmp_path / "out"
    )
    assert p.returncode == 2
    _cli.one_line_error(p, f"{bad}: not a Parquet file fastjcs can read (", "magic bytes")
    assert (tmp_path / "out" / (paths[0].name + ".digests.parquet")).exists()  # the one before it is done
    assert not list((tmp_path / "out").rglob("*.part"))


def test_a_job_removes_only_its_own_temporary_files(tmp_path):
    """A job removed every hidden `*.part` file under its output folder, at its start and end: a
    user's file, or the temporary file of another job writing to a folder inside this one (which
    the lock of this folder does not cover). Now only the temporaries of its own outputs."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.jsonl").write_bytes(b"[1]\n")
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    keep = [out / ".notes.part", out / ".draft.cafe.part", out / "sub" / ".x.digests.0123abcd.part"]
    for path in keep:
        path.write_bytes(b"not the job's")
    leftover = out / ".a.jsonl.digests.123.part"  # a crashed run of this job
    leftover.write_bytes(b"half")
    p = _cli.fastjcs("digest", "--jsonl", tmp_path / "in" / "*.jsonl", "--output-dir", out)
    assert p.returncode == 0, p.stderr
    assert all(path.read_bytes() == b"not the job's" for path in keep)
    assert not leftover.exists() and (out / "a.jsonl.digests").exists()


@pytest.mark.parametrize("first, second", [("out", "out/sub"), ("out/sub", "out")])
def test_a_job_refuses_a_folder_inside_or_above_another_jobs(tmp_path, first, second):
    """Issue 32, finding 4: job A on `out`, then job B on `out/sub` (or the other way round): each
    locked only its own folder, B's clean-up removed A's temporary `out/sub/.x.jsonl.digests.*.part`
    and A failed after all its work. Now B is refused, one line naming A's folder and command, and
    nothing of A's is touched; once A ends, B runs."""
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "sub" / "x.jsonl").write_bytes(b"[1]\n")
    (tmp_path / "out" / "sub").mkdir(parents=True)
    partial = tmp_path / "out" / "sub" / ".x.jsonl.digests.0123abcd.part"  # as A writes it
    holder = [
        sys.executable,
        "-c",
        "import sys, time; from fastjcs.bulk import folder_lock\n"
        f"with folder_lock.locked({str(tmp_path / first)!r}):\n    print('held', flush=True); time.sleep(60)",
    ]
    a = subprocess.Popen(holder, env=_cli.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert a.stdout.readline() == b"held\n", a.stderr.read()
        partial.write_bytes(b"A's half")
        b = _cli.fastjcs("digest", "--jsonl", "in/sub/*.jsonl", "--output-dir", second, cwd=tmp_path)
        assert b.returncode == 2, b.stderr
        where = "inside" if second == "out" else "above"
        _cli.one_line_error(
            b, f"--output-dir {second}: another job is writing to ", f"{where} this folder (pid {a.pid}"
        )
        assert partial.read_bytes() == b"A's half"
        assert not list((tmp_path / "out").rglob("*.digests"))
    finally:
        a.kill()
        a.wait()
    b = _cli.fastjcs("digest", "--jsonl", "in/sub/*.jsonl", "--output-dir", second, cwd=tmp_path)
    assert b.returncode == 0, b.stderr


def test_an_output_folder_that_is_a_symlink_to_the_inputs_is_refused(tmp_path):
    """Issue 32, finding 5: with `ln -s logs out`, `digest --jsonl 'logs/*' --output-dir out` wrote
    logs/a.jsonl.digests (which the next run digests). The outputs' real paths are compared now,
    and so is a pattern written through a symlink."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(b'{"a":1}\n')
    (tmp_path / "out").symlink_to("logs")
    (tmp_path / "view").symlink_to("logs")
    before = _tree(tmp_path)
    for pattern, out in (("logs/*", "out"), ("view/*", "logs"), ("logs/**", "out/deeper")):
        p = _cli.fastjcs("digest", "--jsonl", pattern, "--output-dir", out, cwd=tmp_path)
        assert p.returncode == 2, (pattern, out, p.stderr)
        _cli.one_line_error(p, f"--output-dir {out}: ", "choose an output folder outside the inputs")
        assert _tree(tmp_path) == before


def test_a_fifo_at_a_record_or_output_path_does_not_block_resume(tmp_path):
    """Issue 32, finding 9: `mkfifo out/.a.jsonl.digests.fastjcs.json` made `--resume` wait forever
    for a writer. Only regular files are read there: the input is done again."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.jsonl").write_bytes(b"[1]\n")
    for fifo in (".a.jsonl.digests.fastjcs.json", "a.jsonl.digests"):
        out = tmp_path / f"out{len(fifo)}"
        out.mkdir()
        if fifo.startswith("."):
            (out / "a.jsonl.digests").write_bytes(b"stale\n")
        os.mkfifo(out / fifo)
        p = _cli.fastjcs(
            "digest", "--jsonl", "in/*.jsonl", "--output-dir", out.name, "--resume", cwd=tmp_path, timeout=60
        )
        assert p.returncode == 0, p.stderr
        assert p.stdout.startswith(b"1 files (0 done by an earlier run)"), p.stdout
        assert (out / "a.jsonl.digests").read_bytes() == reference(tmp_path / "in" / "a.jsonl")
