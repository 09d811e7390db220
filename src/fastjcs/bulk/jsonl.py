"""JSON Lines digests for `fastjcs digest --jsonl`: one output line per input line, in order.

The input is any binary stream (a file, a pipe, a FIFO, stdin), read to its end in chunks of about
`CHUNK` bytes cut at line boundaries (after a b"\\n"). It is read, never mapped: a file truncated
under a mapping kills the process with SIGBUS, a file that is read only ends early (which the
caller's stream may refuse, see `fastjcs.cli.Input`). A line longer than a chunk is gathered in one
growing buffer, so the time it takes is linear in its length and the memory it holds is its
length plus a chunk.

Each chunk is digested by one batch call (`digest_lines_hex` of the backend: for the C core, one
C call per chunk). With `jobs > 1` the chunks go to threads (the C core's call runs without the
GIL) or to worker processes (the pure-Python backend, jcs-n), at most 2 x jobs chunks in flight,
and come back in input order. Lines and chunks follow the one split rule of `fastjcs.core.jsonl_split`: a line
ends at each b"\\n" and nowhere else, a final newline ends the last line, a "\\r" stays in its line.

A chunk's result is its output bytes (the digest lines) plus its failures, with line numbers
relative to the chunk; the parent, which sees the chunks in order, makes them absolute (a worker
does not know how many lines came before its chunk) and writes each `error:` line into place.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, cast

from ..core import backends
from ..core.errors import FastJCSError
from ..core.hashing import raw_digest
from ..core.jsonl_split import first_line_end, lines_hex_from, split_lines, whole_lines_end

CHUNK = 4 << 20  # bytes per batch call: large enough to amortise the call, small enough to stream


@dataclass(frozen=True)
class Settings:
    algorithm: str  # sha256 | sha384 (jcs); sha256 (jcs-n)
    profile: str  # "jcs" or "jcs-n"
    exclusion: tuple[str, ...]  # jcs-n only: top-level members left out
    max_depth: int
    strict_integers: bool
    integers_only: bool = False  # jcs: integer-only JCS (floats, fractions, exponents refused)


@dataclass(frozen=True)
class ChunkResult:
    output: bytes  # the digest lines of the chunk; error lines go in at out_at
    failures: list[tuple[Any, ...]]  # per failed line, as the backends' digest_lines_hex gives it
    lines: int
    size: int  # bytes of input


# ---- digesting one chunk ---------------------------------------------------------------------


def _jcs_n_lines(data: bytes, s: Settings) -> list[Any]:
    """Per line: the raw SHA-256 of the jcs-n preimage, or the exception (text path, in Python)."""
    from ..cpb import historical_pre_image_text as pre_image_text  # the CLI prints the withdrawal warning

    results: list[Any] = []
    for line in split_lines(data):
        try:
            results.append(
                raw_digest(
                    pre_image_text(line, algorithm="jcs-n", exclusion_set=s.exclusion, max_depth=s.max_depth), "sha256"
                )
            )
        except FastJCSError as exc:
            results.append(exc)
    return results


def digest_chunk(data: Any, s: Settings) -> ChunkResult:
    """Digest every line of `data` (whole lines, any bytes-like object); never raises for a bad line."""
    if s.profile == "jcs":
        # One backend call renders the digest lines itself (in C, without coming back per line).
        output, lines, failures = backends.impl().digest_lines_hex(
            data, s.max_depth, s.strict_integers, s.algorithm, s.algorithm + ":", s.integers_only
        )
    else:
        data = bytes(data)
        output, lines, failures = lines_hex_from(_jcs_n_lines(data, s), data, "")  # CPB: bare hex
    return ChunkResult(output, [_blank_said(f, data) for f in failures] if failures else failures, lines, len(data))


#: What the parser says of a line that holds no value; said of a blank line, the reason instead.
_NO_VALUE = "InvalidJSONError: unexpected end of input, expected a value"
BLANK_LINE = "InvalidJSONError: a blank line (JSON Lines holds one JSON text on every line)"


def _blank_said(failure: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """A failed line that is empty, or JSON whitespace only, reported as a blank line (the parser
    saw only the end of its input); any other failure as it is."""
    index, start, out_at, offset, what = failure
    if what == _NO_VALUE and offset is not None and not bytes(data[start : start + offset]).strip(b" \t\r"):
        return index, start, out_at, offset, BLANK_LINE
    return failure


# ---- chunking --------------------------------------------------------------------------------


class LineChunks:
    """Whole-line chunks (bytes-like) of a binary stream, read with readinto() until it reads
    nothing.

    Each byte is read once and scanned for a newline once. A block without one is appended to the
    unfinished line (a bytearray, grown in place), never joined again with what came before; the
    line a block finishes is a chunk of its own, so the whole lines after it are passed on as a
    view of the block, not copied. A block handed back with done() once its chunk is digested is
    read into again: fresh memory for every block costs a page fault per 4 KiB, which is most of
    what reading costs.
    """

    def __init__(self, stream: Any, chunk: int = CHUNK) -> None:
        self._stream, self._chunk = stream, chunk
        self._spare: list[bytearray] = []

    def __iter__(self) -> Iterator[Any]:
        spare = self._spare
        pending = bytearray()
        while True:
            block = spare.pop() if spare else bytearray(self._chunk)
            got = self._stream.readinto(block)
            if not got:
                break
            view = memoryview(block)[:got]
            cut = whole_lines_end(block, got)
            first = 0
            if cut and pending:
                first = first_line_end(block, got)
                pending += view[:first]
                yield pending
                pending = bytearray()
            pending += view[cut:]
            if first < cut:
                yield view[first:cut]
            else:
                view.release()
                spare.append(block)
        if pending:
            yield pending

    def done(self, piece: Any) -> None:
        """`piece`, a chunk of this reader, is digested: its block may be read into again."""
        if isinstance(piece, memoryview):
            block = cast(bytearray, piece.obj)  # the chunks that are views are views of our blocks
            piece.release()
            self._spare.append(block)


# ---- worker processes ------------------------------------------------------------------------

_worker_settings: Settings | None = None


def _init_worker(s: Settings) -> None:
    global _worker_settings
    _worker_settings = s
    quiet_worker()


def quiet_worker() -> None:
    """In a worker process: SIGINT and SIGHUP are the parent's to handle (a Ctrl-C in a terminal
    reaches the whole process group; the parent ends its workers as it cleans up), SIGTERM ends
    the worker at once (the parent's handler, inherited by fork, is not the worker's), and no
    signal stays held (see stop_signals_held)."""
    import signal

    for name, action in (("SIGINT", signal.SIG_IGN), ("SIGHUP", signal.SIG_IGN), ("SIGTERM", signal.SIG_DFL)):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), action)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_SETMASK, set())


def _work(data: bytes) -> ChunkResult:
    assert _worker_settings is not None
    return digest_chunk(data, _worker_settings)


# ---- how many workers ------------------------------------------------------------------------


def cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def workers_for(jobs: int, size: int | None = None, chunk: int = CHUNK) -> int:
    """The workers a run of `jobs` (0: one per CPU) gets: at most one per CPU, and at most one per
    chunk of the input when its `size` is known. More would only add start-ups (a worker process
    each) and read-ahead (2 chunks per worker in memory), never speed."""
    n = min(jobs or cpus(), cpus())
    if size is not None:
        n = min(n, max(1, -(-size // max(chunk, 1))))
    return max(1, n)


# ---- the run ---------------------------------------------------------------------------------


def digest_stream(
    stream: Any,
    s: Settings,
    jobs: int,
    write: Callable[[bytes], Any],
    report: Callable[[list[str]], None],
    fail_fast: bool,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
) -> int:
    """Digest every line read from the binary `stream`, in order.

    Calls write(bytes) with the output, and report(notes) after the output of each batch of
    failed lines, a note "LINE[:COLUMN]: ErrorClass: message[ (byte OFFSET)]" per failed line, in
    input order;
    progress(n) with the bytes done. Returns the number of failed lines (with `fail_fast`, the
    run stops after the first, its `error:` line written). Errors of the stream propagate.
    """
    jobs = workers_for(jobs)  # one per CPU at most: the read-ahead is 2 chunks per worker
    reader = LineChunks(stream, chunk)
    chunks = iter(reader)
    first = next(chunks, None)
    if first is None:
        return 0
    second = next(chunks, None)
    todo = _chain(first, second, chunks)
    if jobs <= 1 or second is None:  # one chunk: a worker would only add its start-up
        return _write(_each(todo, lambda c: digest_chunk(c, s), reader.done), write, report, fail_fast, progress)
    done: Callable[[Any], None]  # a chunk is digested: the reader may reuse its block
    executor: Any = None
    try:
        if s.profile == "jcs" and backends.backend() == "native":
            # One C call per chunk, which runs without the GIL (parse, canonicalize, hash, render):
            # threads share the work with no pickling of results between processes.
            from concurrent.futures import ThreadPoolExecutor

            executor = ThreadPoolExecutor(jobs)
            submit = lambda c: executor.submit(digest_chunk, c, s)  # noqa: E731
            done = reader.done
        else:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            digest_chunk(b"", s)  # load the hash functions (and CPB) once, before the workers fork
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
            # The workers and the thread that feeds them start with the stop signals held: a
            # signal during that thread's start() left a pool that could not be shut down (a
            # RuntimeError in place of the one line). A signal that came meanwhile is taken after.
            with stop_signals_held():
                executor = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_worker, initargs=(s,))
                executor.submit(int)

            def submit(c: Any) -> Any:
                future = executor.submit(_work, bytes(c))  # a copy goes to the worker
                reader.done(c)
                return future

            done = lambda c: None  # noqa: E731
        return _write(_in_order(submit, todo, 2 * jobs, done), write, report, fail_fast, progress)
    finally:
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


@contextmanager
def stop_signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (in this thread, and in the threads and processes it
    starts meanwhile) while the block runs; a signal that came is handled when it ends (where the
    platform can hold them: pthread_sigmask). The CLI's temporary files are made under it too."""
    import signal

    stops = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)}
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _each(items: Iterator[Any], fn: Callable[[Any], ChunkResult], done: Callable[[Any], None]) -> Iterator[ChunkResult]:
    for item in items:
        result = fn(item)
        done(item)
        yield result


def _chain(first: Any, second: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    if second is not None:
        yield second
        yield from rest


def _in_order(
    submit: Callable[[Any], Any], items: Iterator[Any], ahead: int, done: Callable[[Any], None]
) -> Iterator[ChunkResult]:
    """submit(item) for each item, results in input order, at most `ahead` chunks in flight (so a
    long input is not read into memory before the first result is written); done(item) once its
    result is in."""
    from collections import deque

    pending: deque[tuple[Any, Any]] = deque()
    for item in items:
        pending.append((submit(item), item))
        if len(pending) >= ahead:
            future, finished = pending.popleft()
            yield future.result()
            done(finished)
    while pending:
        future, finished = pending.popleft()
        yield future.result()
        done(finished)


def _write(
    results: Iterator[ChunkResult],
    write: Callable[[bytes], Any],
    report: Callable[[list[str]], None],
    fail_fast: bool,
    progress: Callable[[int], None] | None,
) -> int:
    """Write the results in order, each failed line's `error:` line in its place."""
    failed = 0
    first_line, base = 1, 0
    for result in results:
        failures = result.failures[:1] if fail_fast else result.failures
        done = 0
        for at in range(0, len(failures), _BATCH):  # the texts of a batch at a time in memory
            out, notes, done = _place_errors(failures[at : at + _BATCH], result.output, done, first_line, base)
            write(out)
            report(notes)
        failed += len(failures)
        if fail_fast and failures:
            return failed
        write(result.output[done:] if done else result.output)
        first_line += result.lines
        base += result.size
        if progress is not None:
            progress(result.size)
    return failed


_BATCH = 2048


def _place_errors(
    failures: list[tuple[Any, ...]], output: bytes, done: int, first_line: int, base: int
) -> tuple[bytes, list[str], int]:
    """The output up to the last of these failures with their `error:` lines in place, their
    notes for stderr, and how far into `output` that went."""
    pieces: list[bytes] = []
    run: list[str] = []  # the texts of failed lines with no digest line between them
    notes: list[str] = []
    for index, start, out_at, offset, what in failures:
        if out_at != done:
            if run:
                pieces.append(_error_lines(run))
                run = []
            pieces.append(output[done:out_at])
            done = out_at
        if offset is None:
            text = f"{first_line + index}: {what}"
            notes.append(text)
        else:
            text = f"{first_line + index}:{offset + 1}: {what}"
            notes.append(f"{text} (byte {base + start + offset})")
        run.append(text)
    pieces.append(_error_lines(run))
    return b"".join(pieces), notes, done


def _error_lines(texts: list[str]) -> bytes:
    """The stdout lines standing for failed lines: "error:" and the text; no digest looks so."""
    return ("error:" + "\nerror:".join(texts) + "\n").encode("utf-8", "backslashreplace")
