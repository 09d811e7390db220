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


# ---------------------------------------------------------------------------------------------------
# Digests in batches (provisional: loops over this module's dumps/canonicalize in Python; to be
# replaced by one C call that hashes with pycryptodome's compiled SHA256_oneshot)
# ---------------------------------------------------------------------------------------------------

from . import _hash  # noqa: E402  (kept with the provisional block it serves)
from ._errors import CanonicalizationError  # noqa: E402


def digest_many(objs: list, max_depth: int, algorithm: str) -> List[bytes]:
    """Raw digest of the canonical form of each object. The first failure is raised, `index` set."""
    oneshot = _hash.oneshot(algorithm)
    out: List[bytes] = []
    for index, obj in enumerate(objs):
        try:
            out.append(oneshot(dumps(obj, max_depth)))
        except CanonicalizationError as exc:
            exc.index = index
            raise
    return out


def digest_texts(texts: List[bytes], max_depth: int, strict_integers: bool,
                 algorithm: str) -> list:
    """Per text: the raw digest of its canonical form, or the CanonicalizationError it raised."""
    oneshot = _hash.oneshot(algorithm)
    out: list = []
    for index, data in enumerate(texts):
        try:
            out.append(oneshot(canonicalize(data, max_depth, strict_integers)))
        except CanonicalizationError as exc:
            exc.index = index
            out.append(exc.with_traceback(None))
    return out
