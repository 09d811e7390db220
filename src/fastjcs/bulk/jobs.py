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

Beside each output, a hidden record (``.<output name>.fastjcs.json``) says what it was made from:
the input (its path, size, modification time and SHA-256), the settings, the kind (and column) and
the fastjcs version, with the output's own size and SHA-256. `resume` keeps an output only when
its record matches the input and the settings of this run, byte for byte; anything else (no
record, another algorithm or profile, an input rewritten, an output truncated) is done again.

An output is never an input: a job whose output would be one of its inputs, or would be picked
up by one of its input patterns (so that the next run digests its own outputs), is refused before
anything is written. One job at a time writes to an output folder tree: `locked` holds a lock on it
for the job's length, and a second job is refused with the first one's process and command.

`run_task` does one file, in any process (`fastjcs.dask` runs the tasks on a Dask cluster; the
command line runs them in its own process when no cluster is given). Memory is bounded by the
chunk (JSON Lines, `fastjcs.bulk.jsonl.CHUNK`) or the record batch (Parquet), not the file.
"""

from __future__ import annotations

import fnmatch
import glob as _glob
import json
import os
import re
import stat
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Union, cast

from ..core.hashing import hash_module
from . import jsonl

KINDS = {"jsonl": ".digests", "parquet": ".digests.parquet"}
_PART = ".part"
_RECORD = ".fastjcs.json"  # the record of what an output was made from: .<output name>.fastjcs.json
_LOCK = ".fastjcs.lock"  # in the output folder while a job writes there
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


def _local(source: str) -> str | None:
    """The local path of an input (a path or a file:// URL), None for a remote URL."""
    if "://" not in source:
        return os.path.abspath(source)
    protocol, rest = source.split("://", 1)
    return os.path.abspath(rest) if protocol in ("file", "local") else None


def _matches(pattern: str, path: str) -> bool:
    """Would the glob `pattern` (as `expand` reads it, ``**`` recursive) name the file `path`?
    Both are absolute; names starting with "." are matched only by a part starting with "."."""
    parts = [p for p in pattern.split(os.sep) if p]
    names = [n for n in path.split(os.sep) if n]

    def match(i: int, j: int) -> bool:
        if i == len(parts):
            return j == len(names)
        if parts[i] == "**":
            return any(match(i + 1, k) for k in range(j, len(names) + 1))
        if j == len(names):
            return False
        hidden_ok = not names[j].startswith(".") or parts[i].startswith(".")
        return hidden_ok and fnmatch.fnmatchcase(names[j], parts[i]) and match(i + 1, j + 1)

    return match(0, 0)


def _spellings(pattern: str) -> set[str]:
    """A glob as written (absolute) and with the folders before its first wildcard resolved
    (`link/*` where link is a symlink to logs is also `/.../logs/*`)."""
    parts = os.path.abspath(pattern).split(os.sep)
    fixed = next(i for i, part in enumerate(parts) if _glob.has_magic(part))
    resolved = os.path.realpath(os.sep.join(parts[:fixed]) or os.sep)
    return {os.path.abspath(pattern), os.path.join(resolved, *parts[fixed:])}


def outputs(sources: Sequence[str], output_dir: str, kind: str, patterns: Sequence[str] = ()) -> list[str]:
    """The output path of each input (nothing is written): ``<output_dir>/<name><suffix>``, where
    ``<name>`` is the input's path relative to the folder all the inputs share.

    Refuses (JobError) two inputs with one output, an output that is an input (it would be
    overwritten, then read), and an output that one of the input `patterns` would match (the
    next run of the job would digest the outputs of this one)."""
    if not sources:
        raise JobError("no input file")
    bare = [_bare(s) for s in sources]
    root = os.path.dirname(bare[0]) if len(bare) == 1 else os.path.commonpath(bare)
    inputs = {os.path.realpath(p) for p in map(_local, sources) if p is not None}
    globs = [p for p in patterns if "://" not in p and _glob.has_magic(p)]
    found: list[str] = []
    seen = set()
    for source, path in zip(sources, bare):
        output = os.path.join(output_dir, os.path.relpath(path, root) + KINDS[kind])
        if output in seen:
            raise JobError(f"{source}: named twice")
        seen.add(output)
        real = os.path.realpath(output)  # an output folder may be a symlink into the inputs
        if real in inputs:
            raise JobError(
                f"--output-dir {output_dir}: the output {output} is one of the inputs (it would be "
                "overwritten, then digested); choose an output folder outside the inputs"
            )
        for pattern in globs:
            if any(_matches(p, o) for p in _spellings(pattern) for o in (os.path.abspath(output), real)):
                raise JobError(
                    f"--output-dir {output_dir}: the output {output} matches the input pattern "
                    f"{pattern} (a rerun would digest its own outputs); choose an output folder "
                    "outside the inputs"
                )
        found.append(output)
    return found


def plan(
    sources: Sequence[str],
    output_dir: str,
    kind: str,
    column: str | None = None,
    append: bool = False,
    resume: bool = False,
    settings: jsonl.Settings | None = None,
    patterns: Sequence[str] = (),
) -> tuple[list[Task], list[Result]]:
    """The tasks of a job, and (with `resume`) the results of the inputs whose output an earlier
    run made from the same input bytes with the same `settings` (its record says so).

    Refuses the outputs `outputs` refuses, before anything is written. Removes the temporary
    files a crashed run left in `output_dir` (hold `folder_lock.locked(output_dir)` while a job runs)."""
    if resume and settings is None:
        raise JobError("resume needs the settings of the run (to compare with what made each output)")
    paths = outputs(sources, output_dir, kind, patterns)
    os.makedirs(output_dir, exist_ok=True)
    clean(output_dir, paths)
    todo: list[Task] = []
    done: list[Result] = []
    for source, output in zip(sources, paths):
        task = Task(source, output, kind, column, append)
        finished = _finished(task, settings) if resume and settings is not None else None
        if finished is None:
            todo.append(task)
        else:
            done.append(finished)
    return todo, done


def clean(output_dir: str, outputs: Sequence[str] | None = None) -> None:
    """Remove the temporary files of unfinished outputs (a run that crashed, a worker killed
    mid-file) from `output_dir`; only while no task of a job writes there (hold `folder_lock.locked`).

    With `outputs` (the job's), only their temporary files (``.<output name>.<hex>.part`` beside
    each): a hidden ``.part`` file of the user's, or of another job writing to a folder inside
    this one, is not ours to remove. Without, every such file under `output_dir`."""
    if outputs is not None:
        names: dict[str, set[str]] = {}
        for output in outputs:
            directory, name = os.path.split(output)
            names.setdefault(directory, set()).add(name)
        for directory, mine in names.items():
            try:
                found = os.listdir(directory or ".")
            except FileNotFoundError:
                continue
            for name in found:
                m = _TEMPORARY.match(name)
                if m is not None and m.group(1) in mine:
                    os.remove(os.path.join(directory, name))
        return
    for directory, _, files in os.walk(output_dir):
        for name in files:
            if _TEMPORARY.match(name):
                os.remove(os.path.join(directory, name))


_TEMPORARY = re.compile(r"^\.(.+)\.[0-9a-f]+" + re.escape(_PART) + "$", re.S)


# ---- what an output was made from --------------------------------------------------------------


def record_path(output: str) -> str:
    """The hidden file beside `output` that records what it was made from."""
    directory, name = os.path.split(output)
    return os.path.join(directory, f".{name}{_RECORD}")


def _stat(source: str) -> dict[str, Any]:
    """Size and modification time of an input (for a URL, what its filesystem says)."""
    if "://" not in source:
        info = os.stat(source)
        return {"size": info.st_size, "mtime": info.st_mtime_ns}
    import fsspec

    fs, _, (path,) = fsspec.core.get_fs_token_paths(source)
    found = fs.info(path)
    mtime = next((found[k] for k in ("mtime", "LastModified", "last_modified", "updated", "ETag") if k in found), None)
    return {"size": found.get("size"), "mtime": None if mtime is None else str(mtime)}


def _sha256(data: bytes = b"") -> Any:
    """A SHA-256 (pycryptodome's, as every hash of fastjcs) of what a record fingerprints."""
    return hash_module("sha256").new(data)


def _sha256_of(source: str) -> str:
    h = _sha256()
    try:
        with _open(source) as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as exc:
        raise _named(exc, source) from None
    return cast(str, h.hexdigest())


def _made_from(task: Task, settings: jsonl.Settings) -> dict[str, Any]:
    """What a record holds besides the input and output: the run's settings and version."""
    from .. import __version__

    return {
        "fastjcs": __version__,
        "kind": task.kind,
        "column": task.column,
        "append": task.append,
        "settings": {
            "algorithm": settings.algorithm,
            "profile": settings.profile,
            "exclusion": list(settings.exclusion),
            "max_depth": settings.max_depth,
            "strict_integers": settings.strict_integers,
            "integers_only": settings.integers_only,
        },
        "source": task.source,
    }


def _write_record(task: Task, settings: jsonl.Settings, before: dict[str, Any], sha256: str) -> None:
    """Record what the output of `task` was made from, if the input did not change while it was
    read (else no record: a resumed job does it again)."""
    if _stat(task.source) != before:
        return
    record = _made_from(task, settings)
    record["input"] = dict(before, sha256=sha256)
    record["output"] = {"size": os.path.getsize(task.output), "sha256": _sha256_of(task.output)}
    with atomic(record_path(task.output), record=False) as f:
        f.write(json.dumps(record, indent=1).encode())


def _finished(task: Task, settings: jsonl.Settings) -> Result | None:
    """The result of an input an earlier run did, if its output was made from this very input
    with these settings (its record says so, and the output is whole); else None (do it again).
    Its failed lines are read back from its output (without their byte offsets, which only the
    first run's notes carry)."""
    try:
        record = json.loads(_read_regular(record_path(task.output)))
        data = _read_regular(task.output)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    expected = _made_from(task, settings)
    if any(record.get(k) != v for k, v in expected.items()):
        return None
    kept_output = record.get("output") or {}
    if kept_output != {"size": len(data), "sha256": _sha256(data).hexdigest()}:
        return None
    kept_input = dict(record.get("input") or {})
    sha256 = kept_input.pop("sha256", None)
    try:
        if _stat(task.source) != kept_input or _sha256_of(task.source) != sha256:
            return None
    except OSError:
        return None
    if task.kind == "jsonl":
        notes = [m.group(1).decode("utf-8", "replace") for m in _ERROR_LINE.finditer(data)]
        return Result(task.source, task.output, data.count(b"\n"), notes, skipped=True)
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(data), columns=["error"])
    errors = table.column("error").to_pylist()
    notes = [f"row {i}: {e}" for i, e in enumerate(errors) if e is not None]
    return Result(task.source, task.output, table.num_rows, notes, skipped=True)


def _read_regular(path: str) -> bytes:
    """The bytes of `path` if it is a regular file; OSError otherwise. A FIFO (or a device) there
    is opened without waiting for a writer and refused, never read: it would block forever."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        return f.read()


_ERROR_LINE = re.compile(rb"^error:(.*)$", re.M)


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


class _Hashing:
    """An input read through readinto (JSON Lines), its SHA-256 taken on the way; a failed read
    names the input."""

    def __init__(self, stream: Any, name: str) -> None:
        self._name = name
        # One read of the file per call, as much as it has (readinto1): a buffered readinto waits
        # to fill the whole buffer from a pipe or FIFO, inside one C call where a stop signal
        # that came during its first read is not seen until the input ends.
        self._readinto = getattr(stream, "readinto1", None) or stream.readinto
        self.sha256 = _sha256()

    def readinto(self, buffer: Any) -> int:
        try:
            got = self._readinto(buffer)
        except OSError as exc:
            raise _named(exc, self._name) from None
        if got:
            with memoryview(buffer) as view:
                self.sha256.update(view[:got])
        return got or 0


class _Output:
    """The temporary file of an output: a failed write names the output."""

    def __init__(self, f: BinaryIO, name: str) -> None:
        self._f, self._name = f, name

    def write(self, data: Any) -> int:
        try:
            return self._f.write(data)
        except OSError as exc:
            raise _named(exc, self._name) from None

    def __getattr__(self, attr: str) -> Any:  # tell, flush, closed... as the file has them
        return getattr(self._f, attr)


def _named(exc: OSError, name: str) -> OSError:
    """`exc` with the file it is about (an error of a read or write carries none)."""
    if exc.filename is not None:
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), name) if exc.errno else OSError(f"{name}: {exc}")


@contextmanager
def atomic(output: str, record: bool = True) -> Iterator[BinaryIO]:
    """A binary file that becomes `output` only when the block completes (flushed and synced to
    the disk first); on any error, or if the process dies, `output` is untouched. The record of
    what the old `output` was made from is removed before the new one takes its place (so a
    record never describes another output). A failed write, sync or rename names `output`."""
    directory, name = os.path.split(output)
    os.makedirs(directory or ".", exist_ok=True)
    tmp = os.path.join(directory, f".{name}.{uuid.uuid4().hex}{_PART}")
    try:
        try:
            f = open(tmp, "wb")
        except OSError as exc:
            raise _named(exc, output) from None
        with f:
            yield cast(BinaryIO, _Output(f, output))
            try:
                f.flush()
                os.fsync(f.fileno())
            except OSError as exc:
                raise _named(exc, output) from None
        try:
            if record and os.path.lexists(record_path(output)):
                os.remove(record_path(output))
            os.replace(tmp, output)
        except OSError as exc:
            raise _named(exc, output) from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def run_task(task: Task, settings: jsonl.Settings) -> Result:
    """Digest one file into its output (atomically), and record beside it what it was made
    from; a bad line or row is a note, not an error. Errors reading the input (an OSError
    naming it, or a JobError) or writing the output (an OSError naming it) propagate."""
    if task.kind == "jsonl":
        return _jsonl(task, settings)
    return _parquet(task, settings)


def _jsonl(task: Task, settings: jsonl.Settings) -> Result:
    notes: list[str] = []
    lines = 0
    before = _stat(task.source)
    with _open(task.source) as stream, atomic(task.output) as out:
        source = _Hashing(stream, task.source)

        def write(data: bytes) -> None:  # one output line per input line: count them here
            nonlocal lines
            lines += data.count(b"\n")
            out.write(data)

        jsonl.digest_stream(source, settings, 1, write, notes.extend, False)
    _write_record(task, settings, before, source.sha256.hexdigest())
    return Result(task.source, task.output, lines, notes)


def _texts(column: Any, task: Task) -> Any:
    """The JSON texts of a Parquet column (an array, or a field to check): string or binary,
    dictionary-encoded ones decoded; any other type is a JobError naming the file and column."""
    import pyarrow as pa

    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if not any(
        test(kind)
        for test in (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary, pa.types.is_large_binary)
    ):
        raise JobError(f"{task.source}: column {task.column!r} is {column.type}, not JSON texts (string or binary)")
    if isinstance(column, pa.Field) or not pa.types.is_dictionary(column.type):
        return column
    return column.dictionary_decode()


def _parquet(task: Task, settings: jsonl.Settings) -> Result:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .. import arrow

    if settings.profile != "jcs":
        raise JobError("Parquet digests are RFC 8785 (jcs) digests; --profile jcs-n reads JSON Lines")
    notes: list[str] = []
    rows = 0
    before = _stat(task.source)
    sha256 = _sha256_of(task.source)
    with _open(task.source) as stream, atomic(task.output) as out:
        try:
            source = pq.ParquetFile(stream)
            names = source.schema_arrow.names
        except pa.ArrowException as exc:
            raise _unreadable(exc, task) from None
        if task.column not in names:
            raise JobError(f"{task.source}: no column {task.column!r} (it has {', '.join(names)})")
        _texts(source.schema_arrow.field(task.column), task)
        taken = [n for n in ("digest", "error") if n in names] if task.append else []
        if taken:
            raise JobError(
                f"{task.source}: it has a column named {' and '.join(map(repr, taken))} already; --append "
                "would write a second one (digest without --append: row, digest, error)"
            )
        writer: Any = None
        columns = None if task.append else [task.column]
        batches = source.iter_batches(batch_size=BATCH_ROWS, columns=columns)
        while True:
            try:
                batch = next(batches, None)
            except pa.ArrowException as exc:
                raise _unreadable(exc, task) from None
            if batch is None:
                break
            values, errors = arrow.digest_array(
                _texts(batch.column(task.column), task),
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
    _write_record(task, settings, before, sha256)
    return Result(task.source, task.output, rows, notes)


def _unreadable(exc: Exception, task: Task) -> Exception:
    """A Parquet file pyarrow cannot read: the error names it (an OSError stays one)."""
    if isinstance(exc, OSError):
        return _named(exc, task.source)
    return JobError(f"{task.source}: not a Parquet file fastjcs can read ({exc})")


def run_local(tasks: Sequence[Task], settings: jsonl.Settings, on_result: Any | None = None) -> list[Result]:
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
