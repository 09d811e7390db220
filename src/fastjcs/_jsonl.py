"""JSON Lines digests for `fastjcs digest --jsonl`: one output line per input line, in order.

The input is cut into chunks of about `CHUNK` bytes at line boundaries (after a b"\\n"), and each
chunk is digested by one batch call (`digest_lines` of the backend: for the C core, one C call
per chunk). With `jobs > 1` the chunks go to worker processes and come back in input order
(`Pool.imap`); a regular file is mapped by every worker, so only offsets cross the pipe, while
stdin chunks travel as bytes. Lines are split as `_python.split_lines` splits them: at b"\\n", a
final newline ends the last line, a "\\r" before it is JSON whitespace.

A chunk's result is its output bytes (digest lines and `error:` lines) plus the failures, with
line numbers relative to the chunk; the parent, which sees the chunks in order, makes them
absolute (a worker does not know how many lines came before its chunk).
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, List, Optional, Tuple

from . import _core

CHUNK = 4 << 20  # bytes per batch call: large enough to amortise the call, small enough to stream


@dataclass(frozen=True)
class Settings:
    algorithm: str                  # sha256 | sha384 (jcs); sha256 (jcs-n)
    profile: str                    # "jcs" or "jcs-n"
    exclusion: Tuple[str, ...]      # jcs-n only: top-level members left out
    max_depth: int
    strict_integers: bool


@dataclass(frozen=True)
class LineFailure:
    """A line that could not be digested. `line` is 0-based within its chunk until the parent
    makes it absolute (1-based); `offset` is the byte offset in the chunk, then in the input."""

    line: int
    column: Optional[int]           # 1-based byte column within the line, when known
    offset: Optional[int]
    kind: str                       # the exception class name
    message: str                    # one line, without the position
    out_at: int                     # where its `error:` line goes in the chunk's output bytes

    def absolute(self, first_line: int, base_offset: int) -> "LineFailure":
        return LineFailure(self.line + first_line, self.column,
                           None if self.offset is None else self.offset + base_offset,
                           self.kind, self.message, self.out_at)

    def output_line(self) -> bytes:
        """The stdout line standing for the failed line: it cannot be read as a digest."""
        where = f"{self.line}:{self.column}" if self.column is not None else f"{self.line}"
        return f"error:{where}: {self.kind}: {self.message}\n".encode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class ChunkResult:
    output: bytes                   # the digest lines of the chunk; error lines are inserted at out_at
    failures: List[LineFailure]
    lines: int


def one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


# ---- digesting one chunk ---------------------------------------------------------------------


def _jcs_n_lines(data: bytes, s: Settings) -> List[Any]:
    """Per line: the raw SHA-256 of the jcs-n pre-image, or the exception (text path, in Python)."""
    from Crypto.Hash import SHA256

    from ._python import split_lines
    from .cpb import pre_image_text
    from ._errors import FastJCSError

    results: List[Any] = []
    for line in split_lines(data):
        try:
            results.append(SHA256.new(pre_image_text(line, "jcs-n", s.exclusion,
                                                     max_depth=s.max_depth)).digest())
        except FastJCSError as exc:
            results.append(exc)
    return results


def digest_chunk(data: bytes, s: Settings) -> ChunkResult:
    """Digest every line of `data` (whole lines); never raises for a bad line."""
    if s.profile == "jcs":
        # One backend call renders the digest lines itself (in C, without coming back per line).
        output, lines, failed = _core._impl.digest_lines_hex(data, s.max_depth, s.strict_integers,
                                                             s.algorithm, s.algorithm + ":")
        return ChunkResult(output, [_failure(exc, i, start, at) for i, start, at, exc in failed],
                           lines)
    from ._python import lines_hex_from

    output, lines, failed = lines_hex_from(_jcs_n_lines(data, s), data, "")  # CPB: bare hex
    return ChunkResult(output, [_failure(exc, i, start, at) for i, start, at, exc in failed], lines)


def _failure(exc: Any, index: int, line_start: int, out_at: int) -> LineFailure:
    column = getattr(exc, "colno", None)
    offset = getattr(exc, "offset", None)
    message = getattr(exc, "msg", None) or str(exc)
    return LineFailure(index, column, None if offset is None else line_start + offset,
                       type(exc).__name__, one_line(message), out_at)


# ---- chunking --------------------------------------------------------------------------------


def file_chunks(mapped: "mmap.mmap", size: int, chunk: int = CHUNK) -> Iterator[Tuple[int, int]]:
    """(start, end) spans of whole lines covering `mapped`."""
    start = 0
    while start < size:
        end = mapped.find(b"\n", min(start + chunk, size) - 1)
        end = size if end < 0 else end + 1
        yield start, end
        start = end


def stream_chunks(stream: Any, chunk: int = CHUNK) -> Iterator[bytes]:
    """Whole-line chunks read from a binary stream (stdin), without reading it all first."""
    pending = b""
    while True:
        block = stream.read(chunk)
        if not block:
            break
        data = pending + block
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            pending = data
            continue
        pending = data[cut:]
        yield data[:cut]
    if pending:
        yield pending


# ---- worker processes ------------------------------------------------------------------------

_worker_settings: Optional[Settings] = None
_worker_map: Optional[mmap.mmap] = None


def _init_worker(s: Settings, path: Optional[str]) -> None:
    global _worker_settings, _worker_map
    _worker_settings = s
    if path is not None:
        with open(path, "rb") as f:
            _worker_map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def _work_span(span: Tuple[int, int]) -> ChunkResult:
    assert _worker_settings is not None and _worker_map is not None
    return digest_chunk(_worker_map[span[0]:span[1]], _worker_settings)


def _work_bytes(data: bytes) -> ChunkResult:
    assert _worker_settings is not None
    return digest_chunk(data, _worker_settings)


# ---- the run ---------------------------------------------------------------------------------


def run(path: Optional[str], s: Settings, jobs: int, write: Callable[[bytes], Any],
        report: Callable[[LineFailure], None], fail_fast: bool,
        progress: Optional[Callable[[int], None]] = None, stdin: Any = None, chunk: int = CHUNK) -> int:
    """Digest every line of the file at `path` (or of `stdin` when path is None), in order.

    Calls write(bytes) with the output and report(failure) for each failed line, in input order;
    progress(n) with the bytes done. Returns the number of failed lines (with `fail_fast`, the
    run stops after the first, its `error:` line written).
    """
    if path is None:
        chunks: Iterator[Any] = stream_chunks(stdin, chunk)
        sizes: Callable[[Any], int] = len
        local: Callable[[Any], ChunkResult] = lambda data: digest_chunk(data, s)  # noqa: E731
        remote: Callable[[Any], ChunkResult] = _work_bytes
        return _drive(chunks, sizes, local, remote, None, s, jobs, write, report, fail_fast, progress)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return 0
        if size <= chunk:
            jobs = 1  # one chunk: a worker would only add its start-up
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return _drive(file_chunks(mapped, size, chunk), lambda span: span[1] - span[0],
                          lambda span: digest_chunk(mapped[span[0]:span[1]], s), _work_span,
                          path, s, jobs, write, report, fail_fast, progress)


def _in_order(executor: Any, fn: Callable[[Any], ChunkResult], items: Iterator[Any],
              ahead: int) -> Iterator[ChunkResult]:
    """fn over items on the executor, results in input order, at most `ahead` chunks in flight
    (so a long stdin is not read into memory before the first result is written)."""
    from collections import deque

    pending: deque = deque()
    for item in items:
        pending.append(executor.submit(fn, item))
        if len(pending) >= ahead:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def _drive(chunks: Iterator[Any], sizes: Callable[[Any], int], local: Callable[[Any], ChunkResult],
           remote: Callable[[Any], ChunkResult], path: Optional[str], s: Settings, jobs: int,
           write: Callable[[bytes], Any], report: Callable[[LineFailure], None], fail_fast: bool,
           progress: Optional[Callable[[int], None]]) -> int:
    pool = None
    threads = None
    if jobs > 1 and s.profile == "jcs" and _core._impl.NAME == "native":
        # One C call per chunk, which runs without the GIL (parse, canonicalize, hash, render):
        # threads share the work with no pickling of results between processes.
        from concurrent.futures import ThreadPoolExecutor

        threads = ThreadPoolExecutor(jobs)
    elif jobs > 1:
        import multiprocessing

        digest_chunk(b"", s)  # load the hash functions (and CPB) once, before the workers fork

        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        pool = ctx.Pool(jobs, _init_worker, (s, path))
    failed = 0
    first_line, base = 1, 0
    try:
        spans: List[int] = []

        def sized(it: Iterator[Any]) -> Iterator[Any]:
            for c in it:
                spans.append(sizes(c))
                yield c

        if threads is not None:
            results: Iterator[ChunkResult] = _in_order(threads, local, sized(chunks), 2 * jobs)
        elif pool is not None:
            results = pool.imap(remote, sized(chunks))
        else:
            results = map(local, sized(chunks))
        for n, result in enumerate(results):
            done = 0
            for f in result.failures:
                write(result.output[done:f.out_at])
                done = f.out_at
                failure = f.absolute(first_line, base)
                write(failure.output_line())
                report(failure)
                failed += 1
                if fail_fast:
                    return failed
            write(result.output[done:])
            first_line += result.lines
            base += spans[n]
            if progress is not None:
                progress(spans[n])
    finally:
        if threads is not None:
            threads.shutdown(wait=True, cancel_futures=True)
        if pool is not None:
            pool.terminate()
            pool.join()
    return failed
