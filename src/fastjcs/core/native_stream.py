"""The C core's stream (csrc/stream.c): one JSON document on a file, canonicalized in bounded
memory, its canonical form handed out in parts. Importing it raises ImportError when the extension
is not built."""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from typing import Any

from .._native_ext import ffi, lib  # ImportError here means: not built
from . import native_errors


class TooNested(Exception):
    """Objects larger than the window nest too deep in one another to stream (the caller reads
    the file whole instead)."""


def _error(err: Any, fd: int, max_depth: int) -> BaseException:
    code = err.code
    if code == lib.FJCS_E_NOMEM:
        return MemoryError("fastjcs: out of memory")
    if code == lib.FJCS_E_STREAM_LIMIT:
        return TooNested()
    if code == lib.FJCS_E_IO:
        errnum = int(err.offset)
        if errnum:
            return OSError(errnum, os.strerror(errnum))
        return OSError("the file changed while it was read")
    # The words of the error need the input around the offset (and its line): a map of the file,
    # for the message only.
    size = os.fstat(fd).st_size
    data: Any = mmap.mmap(fd, size, access=mmap.ACCESS_READ) if size else b""
    return native_errors.item_error(err, data, max_depth)


def parts(fd: int, max_depth: int, flags: int, window: int = 0, max_objects: int = 0) -> Iterator[memoryview]:
    """The canonical form of the JSON text in the regular file open at fd, in parts (each a view
    of C memory, valid until the next part is asked for). Raises as the in-memory path does for
    bad JSON; OSError when the file cannot be read or changes while it is read; TooNested."""
    before = os.fstat(fd)
    stream = ffi.new("fjcs_stream **")
    err = ffi.new("fjcs_error *")
    if lib.fjcs_stream_open(fd, before.st_size, max_depth, flags, window, max_objects, stream, err) != lib.FJCS_OK:
        raise _error(err, fd, max_depth)
    s = stream[0]
    data = ffi.new("const char **")
    length = ffi.new("size_t *")
    try:
        while True:
            if lib.fjcs_stream_next(s, data, length, err) != lib.FJCS_OK:
                raise _error(err, fd, max_depth)
            if length[0] == 0:
                after = os.fstat(fd)
                if (after.st_size, after.st_mtime_ns, after.st_ino) != (
                    before.st_size,
                    before.st_mtime_ns,
                    before.st_ino,
                ):
                    raise OSError("the file changed while it was read")
                return
            yield memoryview(ffi.buffer(data[0], length[0]))
    finally:
        lib.fjcs_stream_close(s)
