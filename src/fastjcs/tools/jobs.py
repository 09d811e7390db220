"""Digest jobs over many files: one output file per input file, each written atomically.

A job takes input files (a list, or a glob: local paths, or any fsspec URL such as
``s3://bucket/logs/*.jsonl``) and writes, under an output folder, one file per input:

- JSON Lines: ``<name>.digests``, byte for byte what ``fastjcs digest --jsonl <input>`` prints
  (one line per input line, line-aligned: the digest, or ``error:LINE:COL: ...`` in its place);
- Parquet: ``<name>.digests.parquet``, the digests of one column (`digest`, ``<alg>:<hex>``) beside
  the row's number in the file (`row`) or appended to the file's own columns, and `error` (the
  message for a row that failed, else null).

``<name>`` is the input's path relative to the folder all the inputs share, so two inputs never
share an output. Each output is written to a hidden temporary file beside it (``.<name>.<random>
.part``) and renamed into place only once complete: an output that exists is finished, so a rerun
with `resume` skips its input, and a run that crashes (or a worker killed mid-file) leaves no
half-written output; the temporary files of a worker killed mid-file are removed by `clean`, which
a job calls when all its tasks are done (and `plan` before they start).

`run_task` does one file, in any process (`fastjcs.dask` runs the tasks on a Dask cluster; the
command line runs them in its own process when no cluster is given). Memory is bounded by the
chunk (JSON Lines, `fastjcs.tools.lines.CHUNK`) or the record batch (Parquet), not the file.
"""

from __future__ import annotations

import glob as _glob
import os
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Union

from . import lines as _lines

KINDS = {"jsonl": ".digests", "parquet": ".digests.parquet"}
_PART = ".part"
#: Rows per record batch read from a Parquet file.
BATCH_ROWS = 64 * 1024


@dataclass(frozen=True)
class Task:
    """One input file and the output it gets."""

    source: str  # a local path or an fsspec URL
    output: str  # a local path (a shared filesystem on a cluster)
    kind: str  # "jsonl" or "parquet"
    column: str | None = None  # parquet: the column of JSON texts
    append: bool = False  # parquet: the digests appended to the file's columns


@dataclass(frozen=True)
class Result:
    """What one file gave: its lines (or rows), the failed ones with a note each
    ("LINE[:COL]: ErrorClass: message (byte N)" for JSON Lines, "row N: ErrorClass: message" for
    Parquet), and whether an earlier run had done it (resume)."""

    source: str
    output: str
    lines: int
    notes: list[str] = field(default_factory=list)
    skipped: bool = False

    @property
    def failed(self) -> int:
        return len(self.notes)


class JobError(ValueError):
    """A job that cannot start: no input matches, a missing column, an unusable output folder."""


# ---- planning --------------------------------------------------------------------------------


def expand(pattern: str) -> list[str]:
    """The files a path, glob or fsspec URL names, sorted."""
    if "://" in pattern:
        import fsspec

        fs, _, paths = fsspec.core.get_fs_token_paths(pattern)
        protocol = pattern.split("://", 1)[0]
        return sorted(p if "://" in p else f"{protocol}://{p}" for p in paths)
    if _glob.has_magic(pattern):
        return sorted(p for p in _glob.glob(pattern, recursive=True) if os.path.isfile(p))
    return [pattern]


def _bare(source: str) -> str:
    return source.split("://", 1)[1] if "://" in source else os.path.abspath(source)


def plan(
    sources: Sequence[str],
    output_dir: str,
    kind: str,
    column: str | None = None,
    append: bool = False,
    resume: bool = False,
) -> tuple[list[Task], list[Result]]:
    """The tasks of a job, and (with `resume`) the results of the inputs whose output exists.

    Removes the temporary files a crashed run left in `output_dir`."""
    if not sources:
        raise JobError("no input file")
    bare = [_bare(s) for s in sources]
    root = os.path.dirname(bare[0]) if len(bare) == 1 else os.path.commonpath(bare)
    os.makedirs(output_dir, exist_ok=True)
    clean(output_dir)
    todo: list[Task] = []
    done: list[Result] = []
    seen = set()
    for source, path in zip(sources, bare):
        output = os.path.join(output_dir, os.path.relpath(path, root) + KINDS[kind])
        if output in seen:
            raise JobError(f"{source}: named twice")
        seen.add(output)
        if resume and os.path.exists(output):
            done.append(_finished(source, output, kind))
        else:
            todo.append(Task(source, output, kind, column, append))
    return todo, done


def clean(output_dir: str) -> None:
    """Remove the temporary files of unfinished outputs (a run that crashed, a worker killed
    mid-file) from `output_dir`; only while no task of a job writes there."""
    for directory, _, files in os.walk(output_dir):
        for name in files:
            if name.startswith(".") and name.endswith(_PART):
                os.remove(os.path.join(directory, name))


_ERROR_LINE = re.compile(rb"^error:(.*)$", re.M)


def _finished(source: str, output: str, kind: str) -> Result:
    """The result of an input an earlier run did: its failed lines are read back from its output
    (without their byte offsets, which only the first run's notes carry)."""
    if kind == "jsonl":
        with open(output, "rb") as f:
            data = f.read()
        notes = [m.group(1).decode("utf-8", "replace") for m in _ERROR_LINE.finditer(data)]
        return Result(source, output, data.count(b"\n"), notes, skipped=True)
    import pyarrow.parquet as pq

    table = pq.read_table(output, columns=["error"])
    errors = table.column("error").to_pylist()
    notes = [f"row {i}: {e}" for i, e in enumerate(errors) if e is not None]
    return Result(source, output, table.num_rows, notes, skipped=True)


# ---- one file --------------------------------------------------------------------------------


@contextmanager
def _open(source: str) -> Iterator[BinaryIO]:
    if "://" in source:
        import fsspec

        with fsspec.open(source, "rb") as f:
            yield f
    else:
        with open(source, "rb") as f:
            yield f


@contextmanager
def atomic(output: str) -> Iterator[BinaryIO]:
    """A binary file that becomes `output` only when the block completes (flushed and synced to
    the disk first); on any error, or if the process dies, `output` is untouched."""
    directory, name = os.path.split(output)
    os.makedirs(directory or ".", exist_ok=True)
    tmp = os.path.join(directory, f".{name}.{uuid.uuid4().hex}{_PART}")
    try:
        with open(tmp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def run_task(task: Task, settings: _lines.Settings) -> Result:
    """Digest one file into its output (atomically); a bad line or row is a note, not an error.
    Errors reading the input or writing the output propagate."""
    if task.kind == "jsonl":
        return _jsonl(task, settings)
    return _parquet(task, settings)


def _jsonl(task: Task, settings: _lines.Settings) -> Result:
    notes: list[str] = []
    lines = 0
    with _open(task.source) as stream, atomic(task.output) as out:

        def write(data: bytes) -> None:  # one output line per input line: count them here
            nonlocal lines
            lines += data.count(b"\n")
            out.write(data)

        _lines.run(stream, settings, 1, write, notes.extend, False)
    return Result(task.source, task.output, lines, notes)


def _parquet(task: Task, settings: _lines.Settings) -> Result:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .. import arrow

    if settings.profile != "jcs":
        raise JobError("Parquet digests are RFC 8785 (jcs) digests; --profile jcs-n reads JSON Lines")
    notes: list[str] = []
    rows = 0
    with _open(task.source) as stream, atomic(task.output) as out:
        source = pq.ParquetFile(stream)
        if task.column not in source.schema_arrow.names:
            raise JobError(f"{task.source}: no column {task.column!r} (it has {', '.join(source.schema_arrow.names)})")
        writer: Any = None
        columns = None if task.append else [task.column]
        for batch in source.iter_batches(batch_size=BATCH_ROWS, columns=columns):
            values, errors = arrow.digest_array(
                batch.column(task.column),
                algorithm=settings.algorithm,
                errors="null",
                max_depth=settings.max_depth,
                strict_integers=settings.strict_integers,
                integers_only=settings.integers_only,
            )
            if task.append:
                table = pa.Table.from_batches([batch])
            else:
                table = pa.table({"row": pa.array(range(rows, rows + batch.num_rows), pa.int64())})
            table = table.append_column("digest", values).append_column("error", errors)
            for i, message in enumerate(errors.to_pylist() if errors.null_count < len(errors) else ()):
                if message is not None:
                    notes.append(f"row {rows + i}: {message}")
            if writer is None:
                writer = pq.ParquetWriter(out, table.schema)
            writer.write_table(table)
            rows += batch.num_rows
        if writer is None:  # no rows: an empty file with the schema
            empty = source.schema_arrow.empty_table() if task.append else pa.table({"row": pa.array([], pa.int64())})
            empty = empty.append_column("digest", pa.array([], pa.string())).append_column(
                "error", pa.array([], pa.string())
            )
            pq.write_table(empty, out)
        else:
            writer.close()
    return Result(task.source, task.output, rows, notes)


def run_local(tasks: Sequence[Task], settings: _lines.Settings, on_result: Any | None = None) -> list[Result]:
    """The tasks one after another in this process (a job without a cluster)."""
    results: list[Result] = []
    for task in tasks:
        result = run_task(task, settings)
        if on_result is not None:
            on_result(result)
        results.append(result)
    return results


Sources = Union[str, Sequence[str]]


def sources_of(inputs: Sources) -> list[str]:
    """The input files of a job: a pattern (expanded) or a list of patterns and paths."""
    patterns = [inputs] if isinstance(inputs, str) else list(inputs)
    found = [p for pattern in patterns for p in expand(pattern)]
    if not found:
        raise JobError(f"no file matches {', '.join(patterns)}")
    return found
