"""The command line's input and output: sources (a file or stdin) read in one piece, outputs
written atomically or not at all, the standard streams set up for binary work, and the one-line
error (`CLIError`) with the exit statuses."""

from __future__ import annotations

import codecs
import io
import os
import signal
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, Callable, TypeVar, cast

from ..core.errors import CanonicalizationError, FastJCSError

EXIT_OK, EXIT_NEGATIVE, EXIT_ERROR = 0, 1, 2
T = TypeVar("T")


class CLIError(Exception):
    """A one-line error for stderr; exit status 2."""


#: The signals that end a run cleanly: their handler raises `Interrupted` (SIGINT's default
#: handler raises KeyboardInterrupt), so every `finally` runs (temporary files are removed, an
#: output folder's lock released) and `main` prints one line and exits 128 + the signal's number.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Interrupted(KeyboardInterrupt):
    """A stop signal arrived (SIGINT, SIGTERM or SIGHUP); a KeyboardInterrupt, so that no
    `except Exception` stops it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: Any) -> None:
    """The handler of the stop signals: a second signal during the clean-up ends the process
    at once (the default action), as a user pressing Ctrl-C twice means."""
    for other in STOP_SIGNALS:
        signal.signal(other, signal.SIG_DFL)
    raise Interrupted(signum)


@contextmanager
def stop_signals() -> Iterator[None]:
    """While the block runs, SIGINT, SIGTERM and SIGHUP raise `Interrupted` (in the main thread;
    a signal a parent set to be ignored, as nohup does SIGHUP, stays ignored). The handlers the
    process had are put back afterwards."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {}
    for signum in STOP_SIGNALS:
        current = signal.getsignal(signum)
        if current in (signal.SIG_DFL, signal.default_int_handler):
            old[signum] = current
            signal.signal(signum, _stop)
    try:
        yield
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)


def interrupted_status(exc: KeyboardInterrupt) -> tuple[int, str]:
    """The exit status (128 + the signal's number: 130 for SIGINT) and the name of the signal."""
    signum = getattr(exc, "signum", getattr(signal, "SIGINT", 2))
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return 128 + signum, name


class Input:
    """A named input (FILE, or stdin for "-"), read to its end.

    Whatever it is (a regular file, a pipe, a FIFO, a character device, /dev/stdin), it is read
    until read() returns nothing: the size fstat gives is never taken for its length, and it is
    never mapped (a mapped file that shrinks kills the process with SIGBUS). A regular file that
    ends before the size it had when it was opened, and is now smaller than that, was truncated
    during the run (a log rotated with copytruncate): that is an error, never a shorter answer.
    (A file whose size is only nominal, as in /sys, ends early but keeps its size.) A failed read
    is an error naming the input.
    """

    def __init__(self, stream: io.BufferedIOBase, name: str) -> None:
        self.name = name
        self._stream = stream
        self._readinto = getattr(stream, "readinto1", None) or stream.readinto
        self._done = 0
        self._expected = self._size()
        if self._expected is not None:
            self._expected -= stream.tell()

    def _size(self) -> int | None:
        """The size of a regular file; None for anything else (or a closed stdin: reading says so)."""
        try:
            info = os.fstat(self._stream.fileno())
        except OSError:
            return None
        return info.st_size if stat.S_ISREG(info.st_mode) else None

    def read(self, n: int = -1) -> bytes:
        """Up to n bytes (all that is left for n < 0); b"" at the end."""
        try:
            data = self._stream.read(n)
        except OSError as exc:
            raise CLIError(f"{self.name}: {exc.strerror}") from exc
        self._count(len(data), n < 0 or not data)
        return data

    def readinto(self, buffer: Any) -> int:
        """Read into buffer what the input has (one read of it: a pipe or FIFO gives what it
        holds, and a stop signal is seen between reads); 0 at the end."""
        try:
            got = self._readinto(buffer)
        except OSError as exc:
            raise CLIError(f"{self.name}: {exc.strerror}") from exc
        self._count(got, not got)
        return got

    def _count(self, got: int, at_end: bool) -> None:
        self._done += got
        expected = self._expected
        if at_end and expected is not None and self._done < expected and (self._size() or 0) < expected:
            raise CLIError(
                f"{self.name}: the file shrank while it was read (it ended after "
                f"{self._done} of its {expected} bytes): truncated or rotated?"
            )


@contextmanager
def open_source(path: str) -> Iterator[Input]:
    """An Input for FILE, or for stdin when path is "-"."""
    if path == "-":
        # typeshed types it BinaryIO, which has no readinto(); it is a BufferedReader (a BytesIO
        # where a caller wrapped one in sys.stdin), both BufferedIOBase
        yield Input(cast(io.BufferedIOBase, sys.stdin.buffer), "<stdin>")
        return
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CLIError(f"{path}: {exc.strerror}") from exc
    with f:
        yield Input(f, path)


@contextmanager
def open_input(path: str) -> Iterator[bytes]:
    """The bytes of FILE, or of stdin for "-", read to the end (see Input)."""
    with open_source(path) as source:
        yield source.read()


@contextmanager
def open_output(path: str | None) -> Iterator[BinaryIO]:
    """stdout, or PATH written atomically: a temporary file beside it, flushed to the disk and
    renamed into place only when the block succeeds, removed otherwise, so PATH never holds a
    partial result. A PATH that is a device, FIFO or socket is written in place instead. A failed
    write, flush, sync or rename is a CLIError naming PATH."""
    if path is None or path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    if not path:
        raise CLIError("-o: an empty path names no file")
    try:
        special = not stat.S_ISREG(os.stat(path).st_mode) and not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        special = False
    if special:
        # A device, FIFO or socket (/dev/stdout, /dev/full, a pipe): written in place, every write
        # checked; a temporary file renamed over it would replace the device node itself.
        try:
            with open(path, "wb") as f:
                yield f
        except OSError as exc:
            raise CLIError(f"{path}: {exc.strerror}") from exc
        return
    tmp = None
    try:
        directory = os.path.dirname(os.path.abspath(path))
        from ..bulk.jsonl import stop_signals_held  # here: its module imports dataclasses (~5 ms)

        with stop_signals_held():  # one landing between creating the file and naming it would leave it
            fd, tmp = tempfile.mkstemp(prefix=".fastjcs-", dir=directory)
        # mkstemp makes the file private (0600): give it the mode PATH has, or the mode a plain
        # open() would have given a new file (0666 less the umask).
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise CLIError(f"{path}: {exc.strerror}") from exc
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


class _Stream(io.RawIOBase):
    """The raw layer under sys.stdout and sys.stderr while the command line runs.

    stdout (strict): a failed write is a CLIError naming it, whatever command wrote, and a reader
    that went away is a BrokenPipeError; after a failure, what is still buffered is dropped, so
    the interpreter's flush at exit cannot fail again (Python would print a second message and
    exit 120). stderr (not strict): a failed write is dropped, as there is nowhere to report it.
    """

    def __init__(self, fd: int, name: str, strict: bool) -> None:
        super().__init__()
        self._fd, self._name, self._strict = fd, name, strict
        self._failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        if self._failed:
            return memoryview(data).nbytes
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            self._failed = True
            if not self._strict:
                return memoryview(data).nbytes
            if isinstance(exc, BrokenPipeError):
                raise
            raise CLIError(f"{self._name}: {exc.strerror}") from None


def _escape_bytes(exc: UnicodeError) -> tuple[str, int]:
    """The error handler of stderr ("fastjcs.escape"): a byte that was not UTF-8 (held by Python
    as a surrogate escape, in a file name) is written `\\xff`, anything else stderr cannot encode
    as backslashreplace writes it."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for c in exc.object[exc.start : exc.end]:
        code = ord(c)
        out.append(
            f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else c.encode("ascii", "backslashreplace").decode()
        )
    return "".join(out), exc.end


codecs.register_error("fastjcs.escape", _escape_bytes)


def _standard_streams() -> None:
    """Make the standard streams safe for a run as a program (not when a caller replaced them).

    A closed descriptor 0, 1 or 2 is held open on /dev/null, or the next file opened would take
    its number (and stdout would write into it): the wrong way round for stdin and stdout, so
    reading or writing them fails with EBADF (an error naming them), write-only for stderr, so
    messages are dropped and never reach stdout. stdout and stderr are then written through
    `_Stream`.
    """
    if (sys.stdin, sys.stdout, sys.stderr) != (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        return
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, os.O_RDONLY if fd == 1 else os.O_WRONLY)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
    if sys.stdin is None:
        sys.stdin = open(0, closefd=False)
    for fd, name, strict in ((1, "<stdout>", True), (2, "<stderr>", False)):
        old = sys.stdout if fd == 1 else sys.stderr
        stream = io.TextIOWrapper(
            io.BufferedWriter(_Stream(fd, name, strict)),
            encoding=getattr(old, "encoding", None) or "utf-8",
            errors=(getattr(old, "errors", None) or "strict") if strict else "fastjcs.escape",
            line_buffering=getattr(old, "line_buffering", not strict),
        )
        if fd == 1:
            sys.stdout = stream
        else:
            sys.stderr = stream


def _reader_gone() -> int:
    """stdout's reader went away (`| head -1`). End as a Unix tool does: killed by SIGPIPE,
    quietly (a shell reports 141), never with exit 0, as the output was not all delivered."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    return EXIT_ERROR


def describe(exc: BaseException, source: str) -> str:
    """One line: where (file:line:column for text errors) and what."""
    if isinstance(exc, CanonicalizationError) and exc.offset is not None and exc.lineno is not None:
        return f"{source}:{exc.lineno}:{exc.colno}: {type(exc).__name__}: {exc.msg} (byte {exc.offset})"
    if isinstance(exc, FastJCSError):
        return f"{source}: {type(exc).__name__}: {exc}"
    return f"{source}: {exc}"


#: Inputs from this size on are digested in a worker thread (see `interruptible`); below it a
#: call ends sooner than a user notices, and a thread per small FILE would cost more than it.
LONG_CALL_BYTES = 1 << 20


def interruptible(size: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """fn(*args, **kwargs), for an input of `size` bytes; from LONG_CALL_BYTES on in a worker
    thread that the main thread waits for, so that a stop signal is handled at once. (Python runs
    a signal's handler in the main thread between bytecodes: during one long C call, which holds no
    GIL, a Ctrl-C would wait for the call to end, about 2 s for a 200 MB document.) Its result, or
    its exception; on a stop signal the worker, a daemon thread, ends with the process."""
    import threading

    if size < LONG_CALL_BYTES or threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the caller, as if fn had run in its thread
            box["error"] = exc

    worker = threading.Thread(target=work, name="fastjcs-call", daemon=True)
    worker.start()
    worker.join()  # interrupted by a stop signal's handler (a lock's wait is, on POSIX)
    if "error" in box:
        raise box.pop("error")
    return cast(T, box["result"])


def one_line(text: str) -> str:
    """A message kept on one line: a line feed or carriage return in it (a file name may hold
    them) written as `\\n`, `\\r`, the escapes of a digests file."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def source_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def read_all(path: str) -> bytes:
    """The whole input as bytes (small inputs: a vector, a preimage, a record)."""
    with open_input(path) as data:
        return bytes(data)
