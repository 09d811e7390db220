"""The C backend: the one module that touches cffi's `ffi` and `lib`.

It exposes the same private functions as `fastjcs._python`, with the same signatures and the same
exceptions. Importing it raises ImportError when the extension `fastjcs._native_ext` is not built.
"""

from __future__ import annotations

import marshal
from json.decoder import scanstring
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._native_ext import ffi, lib  # ImportError here means: not built

from . import _python
from ._errors import (
    CanonicalizationError,
    DepthLimitError,
    DuplicateKeyError,
    FloatDomainError,
    IntegerDomainError,
    InvalidJSONError,
)

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



# ---------------------------------------------------------------------------------------------------
# Errors: one table from the C codes to the exception classes (text input)
# ---------------------------------------------------------------------------------------------------

_TEXT_ERRORS: Dict[int, type] = {
    lib.FJCS_E_SYNTAX: InvalidJSONError,
    lib.FJCS_E_UTF8: InvalidJSONError,
    lib.FJCS_E_SURROGATE: InvalidJSONError,
    lib.FJCS_E_DUPKEY: DuplicateKeyError,
    lib.FJCS_E_DEPTH: DepthLimitError,
    lib.FJCS_E_FLOAT_DOMAIN: FloatDomainError,
    lib.FJCS_E_INT_DOMAIN: IntegerDomainError,
}


def _text_error(code: int, err: Any, data: bytes) -> Exception:
    if code == lib.FJCS_E_NOMEM:
        return MemoryError("fastjcs: out of memory")
    cls = _TEXT_ERRORS.get(code)
    message = ffi.string(err.message).decode("ascii") if err.message != ffi.NULL else "error"
    offset = int(err.offset)
    if cls is None:  # pragma: no cover - the text path raises no other code
        return CanonicalizationError(f"unexpected error code {code}: {message}", data, offset)
    if cls is DuplicateKeyError:
        # The offset is the opening quote of the repeated name, already validated by C.
        key = scanstring(data[offset:].decode("utf-8", "surrogateescape"), 1)[0]
        return DuplicateKeyError(f"duplicate member name {key!r}", data, offset, key=key)
    return cls(message, data, offset)


# ---------------------------------------------------------------------------------------------------
# JSON text in
# ---------------------------------------------------------------------------------------------------


def _run_text(data: Any, max_depth: int, strict_integers: bool, out: Any) -> None:
    """Canonicalize into the C buffer `out`; raise the mapped error on failure."""
    err = ffi.new("fjcs_error *")
    flags = lib.FJCS_STRICT_INTEGERS if strict_integers else 0
    if type(data) is bytes:
        rc = lib.fjcs_canonicalize(data, len(data), max_depth, flags, out, err)
    else:  # bytearray, memoryview (a mapped file): no copy; released before any error is raised
        with ffi.from_buffer(data) as buf:
            rc = lib.fjcs_canonicalize(buf, len(buf), max_depth, flags, out, err)
    if rc != lib.FJCS_OK:
        raise _text_error(rc, err, bytes(data))


def canonicalize(data: Any, max_depth: int, strict_integers: bool) -> bytes:
    """Canonical bytes of a JSON text, by the C parser (text.c)."""
    out = ffi.new("fjcs_buf *")
    try:
        _run_text(data, max_depth, strict_integers, out)
        return ffi.unpack(out.data, out.len)
    finally:
        lib.fjcs_buf_free(out)


def canonicalize_to(data: Any, write: Any, max_depth: int, strict_integers: bool) -> None:
    """Canonicalize, then hand write() a view of the C buffer: no second copy of the output."""
    out = ffi.new("fjcs_buf *")
    try:
        _run_text(data, max_depth, strict_integers, out)
        if out.len:
            write(ffi.buffer(out.data, out.len))
        else:
            write(b"")
    finally:
        lib.fjcs_buf_free(out)


# ---------------------------------------------------------------------------------------------------
# Python objects in
# ---------------------------------------------------------------------------------------------------
#
# The value crosses into C as marshal.dumps(value, 4) (object.c documents the codes it reads).
# marshal writes only exact types: a subclass (IntEnum, StrEnum, OrderedDict...) makes it raise
# ValueError, and so does nesting beyond marshal's own limit (2,000 levels). Then the value is
# rebuilt with exact types, valued as rfc8785 values them, and encoded again; what still cannot be
# encoded goes to the pure-Python backend. When C refuses the value, the pure-Python backend is
# run on it to raise the error rfc8785 raises, in rfc8785's order (C meets members in insertion
# order, rfc8785 in sorted order, so the first error can differ when there are several).


def dumps(obj: Any, max_depth: int) -> bytes:
    """Canonical bytes of a Python value, by the C reader of its marshal encoding (object.c)."""
    try:
        encoded = marshal.dumps(obj, 4)
    except ValueError:
        encoded = _normalized_encoding(obj, max_depth)
        if encoded is None:
            return _python.dumps(obj, max_depth)
    out = ffi.new("fjcs_buf *")
    try:
        rc = lib.fjcs_canonicalize_marshal(encoded, len(encoded), max_depth, out, ffi.NULL)
        if rc == lib.FJCS_OK:
            return ffi.unpack(out.data, out.len)
    finally:
        lib.fjcs_buf_free(out)
    if rc == lib.FJCS_E_NOMEM:
        raise MemoryError("fastjcs: out of memory")
    _python.dumps(obj, max_depth)  # raises the error rfc8785 would
    raise AssertionError(  # pragma: no cover - a defect: the two backends disagree
        f"fastjcs internal error: the C core refused a value (code {rc}) the Python backend accepts")


class _Unencodable(Exception):
    """The value holds something the normalising pass leaves to the pure-Python backend."""


_DONE = object()
_NoneType = type(None)


def _exact(value: Any) -> Tuple[Any, Optional[Tuple[Any, bool]]]:
    """(exact-typed value, None) for a scalar; (empty container, (items, is_dict)) otherwise.

    The isinstance order and the conversions are rfc8785's: bool, int, str, float, list/tuple,
    dict; int(), float(), list(), dict(), and a str subclass by its characters.
    """
    t = type(value)
    if t is str or t is int or t is float or t is bool or t is _NoneType:
        return value, None
    if t is list or t is tuple:
        return [], (iter(value), False)
    if t is dict:
        return {}, (iter(value.items()), True)
    if isinstance(value, int):
        return int(value), None
    if isinstance(value, str):
        return str.__str__(value), None
    if isinstance(value, float):
        return float(value), None
    if isinstance(value, (list, tuple)):
        return [], (iter(list(value)), False)
    if isinstance(value, dict):
        return {}, (iter(dict(value).items()), True)
    raise _Unencodable


def _normalized_encoding(obj: Any, max_depth: int) -> Optional[bytes]:
    """marshal encoding of obj rebuilt with exact types, or None (then Python handles obj)."""
    try:
        root, items = _exact(obj)
        if items is not None:
            if max_depth < 1:
                raise _Unencodable
            open_ids = {id(obj)}
            stack = [(items[0], root, items[1], id(obj))]
            while stack:
                it, target, is_dict, ident = stack[-1]
                nxt = next(it, _DONE)
                if nxt is _DONE:
                    stack.pop()
                    open_ids.discard(ident)
                    continue
                if is_dict:
                    key, value = nxt
                    if type(key) is not str:
                        if not isinstance(key, str):
                            raise _Unencodable
                        key = str.__str__(key)
                else:
                    value = nxt
                converted, sub = _exact(value)
                if is_dict:
                    target[key] = converted
                else:
                    target.append(converted)
                if sub is not None:
                    if id(value) in open_ids or len(stack) >= max_depth:
                        raise _Unencodable
                    open_ids.add(id(value))
                    stack.append((sub[0], converted, sub[1], id(value)))
        return marshal.dumps(root, 4)
    except (_Unencodable, ValueError):
        return None
