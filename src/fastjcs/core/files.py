"""JSON documents on files: canonicalized or digested in memory bounded by the C core's window and
the member index of the document's largest objects, not by the document (csrc/stream.c; the bound
is in docs/performance.md). The pure-Python backend reads the file whole and gives the same
answers and exceptions."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Union

from . import backends, hashing
from .api import DEFAULT_MAX_DEPTH, check_depth

Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

#: Bytes copied at a time when a pipe or other unseekable input is spooled to a temporary file.
SPOOL_CHUNK = 1 << 20

#: digest_file reads a regular file up to this size in one call and digests it as digest_text
#: does: the canonical form is hashed in C by pycryptodome's one-shot, where the stream's parts
#: need pycryptodome's hash object (whose import has cffi parse C declarations: 20-25 ms, most
#: of a `fastjcs digest small.json`).
IN_ONE_READ = 1 << 20


@contextmanager
def _regular_fd(src: Path) -> Iterator[int]:
    """A descriptor of a regular file holding `src`'s bytes: `src` itself, or (a pipe, a FIFO,
    a device) a temporary file it is spooled to first (the disk holds the input; memory does not)."""
    fd = os.open(src, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            yield fd
            return
        with tempfile.TemporaryFile() as spool, os.fdopen(os.dup(fd), "rb", buffering=0) as pipe:
            shutil.copyfileobj(pipe, spool, SPOOL_CHUNK)
            spool.flush()
            yield spool.fileno()
    finally:
        os.close(fd)


def _flags(strict_integers: bool, integers_only: bool) -> int:
    return (1 if strict_integers else 0) | (2 if integers_only else 0)


def _write_parts(
    src: Path, write: Callable[[Any], Any], restart: Callable[[], None] | None, max_depth: int, flags: int
) -> None:
    """Hand write() the canonical form of the JSON text at src, in parts. A document the stream
    cannot take (objects larger than its window nested too deep) is read whole instead, after
    restart() has undone what was written; without restart, that is an OSError once a part was
    written."""
    impl = backends.impl()
    if impl.NAME == "native":
        from . import native_stream

        with _regular_fd(src) as fd:
            written = False
            try:
                for part in native_stream.parts(fd, max_depth, flags):
                    write(part)
                    written = True
                return
            except native_stream.TooNested:
                if written:
                    if restart is None:
                        raise OSError(
                            errno.ESPIPE,
                            "objects larger than the window nested more than 8 deep: the canonical "
                            "form cannot be streamed to an output that cannot be rewound (give a path)",
                        ) from None
                    restart()
            data = _read_fd(fd)
    else:
        with open(src, "rb") as f:
            data = f.read()
    write(impl.canonicalize(data, max_depth, bool(flags & 1), bool(flags & 2)))


def _rewind(out: Any) -> Callable[[], None] | None:
    """A restart for _write_parts that truncates a seekable file object back to where it is now."""
    try:
        if not out.seekable():
            return None
        start = out.tell()
    except (AttributeError, OSError, ValueError):
        return None

    def restart() -> None:
        out.seek(start)
        out.truncate()

    return restart


def _read_fd(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, SPOOL_CHUNK, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _small_file(src: Path) -> bytes | None:
    """The bytes of `src` when it is a regular file of at most IN_ONE_READ bytes, read in one call;
    None for anything else (a larger file, a pipe, a file that changed between fstat and read),
    which the stream then reads. Nothing but a regular file is opened here: opening a FIFO would
    wait for its writer, and closing it would cut the writer off (O_NONBLOCK keeps a FIFO put in
    the file's place since the stat from waiting)."""
    info = os.stat(src)
    if not stat.S_ISREG(info.st_mode) or info.st_size > IN_ONE_READ:
        return None
    fd = os.open(src, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > IN_ONE_READ:
            return None
        data = os.read(fd, info.st_size + 1)
        return data if len(data) == info.st_size else None
    finally:
        os.close(fd)


def digest_file(
    path: Path,
    algorithm: str = "sha256",
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> str:
    """``digest_text`` of the JSON text in the file at `path`, in bounded memory: the file is read
    through a window and the canonical form hashed as it is made (a pipe or FIFO is first copied
    to a temporary file). Same digest and exceptions as ``digest_text(open(path, 'rb').read())``;
    OSError when the file cannot be read or changes while it is read.
    """
    alg = hashing.check_algorithm(algorithm)
    data = _small_file(path)
    if data is not None:
        return backends.impl().digest_text(
            data, check_depth(max_depth), bool(strict_integers), alg, bool(integers_only)
        )
    module = hashing.hash_module(alg)
    hashes = [module.new()]

    def restart() -> None:
        hashes[0] = module.new()

    _write_parts(
        path,
        lambda part: hashes[0].update(part),
        restart,
        check_depth(max_depth),
        _flags(strict_integers, integers_only),
    )
    return hashing.render(alg, hashes[0].digest())


def canonicalize_file(
    src: Path,
    dst: Path | Any,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> None:
    """Write the canonical form of the JSON text in the file `src` to `dst`, in bounded memory.

    `dst` is a path, or a binary file object (anything with ``write``). A path gets all of the
    canonical form or, on any error, nothing: it is written to a temporary file beside it, synced,
    and renamed over it only on success (`dst` may be `src`). A file object gets the canonical
    form in parts as it is made, so an error found late leaves the parts before it written (and
    a document of objects larger than the window nested more than 8 deep, which is canonicalized in
    memory, is written again from where the object was when the call began, if it is seekable;
    else that is an OSError).
    Same bytes and exceptions as ``canonicalize(open(src, 'rb').read())``; OSError when `src`
    cannot be read or changes while it is read.
    """
    depth, flags = check_depth(max_depth), _flags(strict_integers, integers_only)
    if hasattr(dst, "write"):
        _write_parts(src, dst.write, _rewind(dst), depth, flags)
        return
    target = os.fspath(dst)
    folder = os.path.dirname(target) or (b"." if isinstance(target, bytes) else ".")
    fd, tmp = tempfile.mkstemp(prefix=".fastjcs-", dir=os.fsdecode(folder))
    try:
        with os.fdopen(fd, "wb") as out:
            _write_parts(src, out.write, _rewind(out), depth, flags)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


__all__ = ["digest_file", "canonicalize_file"]
