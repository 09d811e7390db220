"""The C backend: the one module that touches cffi's `ffi` and `lib`.

It exposes the same private functions as `fastjcs._python`, with the same signatures and the same
exceptions. Importing it raises ImportError when the extension `fastjcs._native_ext` is not built.
"""

from __future__ import annotations

from typing import Any, List, Sequence

from ._native_ext import ffi, lib  # ImportError here means: not built

from . import _python
from ._errors import FloatDomainError

NAME = "native"

_NUMBER_BUFSIZE = lib.FJCS_NUMBER_BUFSIZE


def format_double(x: float) -> str:
    """ECMAScript rendering of a double, by the C core."""
    buf = ffi.new("char[]", _NUMBER_BUFSIZE)
    n = lib.fjcs_format_double(x, buf)
    if n < 0:
        raise FloatDomainError(f"{x!r} is not representable in JCS")
    return ffi.unpack(buf, n).decode("ascii")


def format_doubles(values: Sequence[float]) -> List[str]:
    """Render many doubles in one C call (the corpus check and the benchmarks use it)."""
    n = len(values)
    arr = ffi.new("double[]", values)
    out = ffi.new("char[]", max(1, n * _NUMBER_BUFSIZE))
    size = lib.fjcs_format_doubles(arr, n, out)
    if size < 0:
        raise FloatDomainError("NaN or an infinity is not representable in JCS")
    text = ffi.unpack(out, size).decode("ascii")
    return text.split("\n")[:-1] if n else []


def dumps(obj: Any, max_depth: int) -> bytes:  # issue 4 replaces this
    raise NotImplementedError("the native object path arrives with issue 4")


def canonicalize(data: bytes, max_depth: int, strict_integers: bool) -> bytes:  # issue 4
    raise NotImplementedError("the native text path arrives with issue 4")
