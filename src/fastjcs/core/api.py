"""The public functions of the core: the API every layer above calls.

Each checks its arguments and hands the work to the backend in use (`fastjcs.core.backends`
chooses it); no other module calls a backend directly, so a test that swaps the backend in use
exercises the whole stack on it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Union

from . import backends

DEFAULT_MAX_DEPTH = 10_000

Data = Union[bytes, bytearray, memoryview, str]


def check_depth(max_depth: int) -> int:
    """A valid max_depth: any non-negative int. Values above sys.maxsize, a depth no value can
    reach, are taken as sys.maxsize, so every backend takes them."""
    if type(max_depth) is not int or max_depth < 0:
        raise ValueError(f"max_depth must be a non-negative int, not {max_depth!r}")
    return min(max_depth, sys.maxsize)


def check_default(default: Any) -> Any:
    """A valid `default`: None or a callable (TypeError otherwise)."""
    if default is not None and not callable(default):
        raise TypeError(f"default must be callable or None, not {type(default).__name__}")
    return default


def dumps(
    obj: Any,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    integers_only: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> bytes:
    """Return the RFC 8785 canonical form of a Python value as UTF-8 bytes.

    Accepts dict (str keys), list, tuple, str, int, float, bool, None and their subclasses.
    Raises CanonicalizationError (or a subclass) for anything JCS cannot represent: other types,
    non-str keys, lone surrogates, ints outside +/-(2^53-1) (IntegerDomainError), NaN and the
    infinities (FloatDomainError), circular references, nesting deeper than `max_depth`.

    With `integers_only=True` (integer-only JCS: the design contract in the docs), every float is refused with
    NonIntegerNumberError, 1.0 and -0.0 included, and so are float subclasses.

    `default`, as json.dumps and orjson take it, is called with each value of another type
    (datetime, Decimal, UUID, a dataclass...) and what it returns is written in its place (it may
    return another such value: default is asked again, up to 254 times in a row; what it returns
    counts towards `max_depth`). An exception it raises propagates. Without it, or when it gives
    back no JSON value, UnsupportedTypeError names where the value is:
    `$["items"][3]["when"]: unsupported type datetime.datetime`. On CPython the C walker calls
    `default` itself; `default` may do anything, fastjcs.dumps included (docs/robustness.md, "Python
    code may run inside any call").

    >>> dumps({"b": [1.0, "\\u20ac"], "a": None})
    b'{"a":null,"b":[1,"\\xe2\\x82\\xac"]}'
    >>> import datetime
    >>> dumps({"when": datetime.date(2026, 12, 1)}, default=str)
    b'{"when":"2026-12-01"}'
    """
    if max_depth is not DEFAULT_MAX_DEPTH:  # the default needs no check (a hot path)
        max_depth = check_depth(max_depth)
    if default is not None:
        return backends._impl.dumps(obj, max_depth, bool(integers_only), check_default(default))
    if integers_only:  # the default path passes nothing more (a hot path)
        return backends._impl.dumps(obj, max_depth, True)
    return backends._impl.dumps(obj, max_depth)


def dump(
    obj: Any,
    fp: BinaryIO,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    integers_only: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> None:
    """Write the canonical form of `obj` to the binary stream `fp` (the arguments as `dumps`).

    The bytes are computed in full before the first write: when canonicalization fails, nothing
    at all is written.
    """
    fp.write(backends._impl.dumps(obj, check_depth(max_depth), bool(integers_only), check_default(default)))


def refuse_single(items: Any, takes: str, hint: str) -> None:
    """Refuse a lone value where a batch (an iterable of values) is expected.

    A str, a bytes-like object and a mapping are iterable, but iterating them gives characters,
    bytes or keys, never what the caller meant: TypeError, saying what the function takes
    (`takes`, e.g. "digest_many takes an iterable of values") and what to do instead (`hint`).
    """
    if isinstance(items, (str, bytes, bytearray, memoryview, Mapping)):
        raise TypeError(f"{takes}, not {type(items).__name__}; {hint}")


def as_buffer(data: Data) -> bytes | bytearray | memoryview:
    """JSON text as a contiguous bytes-like object; a str is encoded to UTF-8 (a lone surrogate
    becomes invalid UTF-8, refused at its position), a non-contiguous memoryview is copied (its
    bytes in logical order, as bytes(view) reads them)."""
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    if isinstance(data, memoryview) and not data.c_contiguous:
        return data.tobytes()  # a strided or Fortran-order view: its bytes in logical order
    if isinstance(data, (bytes, bytearray, memoryview)):
        return data
    raise TypeError(f"JSON text must be bytes, bytearray, memoryview or str, not {type(data).__name__}")


def as_bytes(data: Data) -> bytes:
    """JSON text as bytes (as_buffer, copied into bytes where it is not bytes already)."""
    buf = as_buffer(data)
    return buf if type(buf) is bytes else bytes(buf)


def canonicalize(
    data: Data, *, max_depth: int = DEFAULT_MAX_DEPTH, strict_integers: bool = False, integers_only: bool = False
) -> bytes:
    """Return the RFC 8785 canonical form of a JSON text.

    The text is parsed strictly (RFC 8259 and I-JSON, RFC 7493): UTF-8 only, no byte-order mark,
    no duplicate member names (DuplicateKeyError), no lone surrogate escapes, no NaN/Infinity, no
    trailing commas or comments. Numbers are read as IEEE-754 doubles (correctly rounded) and
    formatted as ECMAScript does; a number that overflows is a FloatDomainError. With
    `strict_integers=True`, an integer token outside +/-(2^53-1) is an IntegerDomainError
    instead of being rounded.

    With `integers_only=True` (integer-only JCS: the design contract in the docs), a number token with a fraction
    or an exponent part (`1.0`, `1e2`, `-0.0`) is a NonIntegerNumberError at its first byte, and
    `strict_integers` is implied; `-0` is an integer token (canonical `0`).

    Errors are InvalidJSONError (a CanonicalizationError) or one of its siblings, with `offset`
    (bytes), `lineno` and `colno`. A str argument is encoded to UTF-8 first, and offsets count
    the bytes of that encoding.

    >>> canonicalize(b'{"b": 1E2, "a": [true, "\\\\u00e9"]}')
    b'{"a":[true,"\\xc3\\xa9"],"b":100}'
    """
    if type(data) is not bytes:
        data = as_buffer(data)
    if max_depth is not DEFAULT_MAX_DEPTH:  # the default needs no check (a hot path)
        max_depth = check_depth(max_depth)
    if strict_integers or integers_only:
        return backends._impl.canonicalize(data, max_depth, bool(strict_integers), bool(integers_only))
    return backends._impl.canonicalize(data, max_depth, False, False)


def canonicalize_to(
    data: Data,
    write: Callable[[Any], Any],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> None:
    """Canonicalize a JSON text and pass the result to `write` (e.g. a binary stream's write),
    in one call, and only when canonicalization succeeds.

    Unlike `canonicalize`, the native backend hands `write` a view of its own output buffer, so no
    second copy of the output is made: for a large text, the peak memory is the input plus the
    output.
    """
    backends._impl.canonicalize_to(
        as_buffer(data), write, check_depth(max_depth), bool(strict_integers), bool(integers_only)
    )


def format_double(x: float) -> str:
    """A float formatted as ECMAScript formats it (RFC 8785 section 3.2.2.3), e.g. 1e21 -> '1e+21'."""
    if type(x) is not float:  # an exact float needs no conversion (a hot path)
        if not isinstance(x, float):
            raise TypeError(f"format_double needs a float, not {type(x).__name__}")
        x = float(x)
    return backends._impl.format_double(x)


# The public dumps, dump, canonicalize and format_double: these Python functions, or the direct entry's C
# functions of the same signatures (backends.public_functions), which serve the common calls
# without their frames. The Python functions stay here under their own names: the C ones hand them
# every call they do not serve (csrc/cpython/api.c finds them by these names).
_python_dumps, _python_dump, _python_canonicalize, _python_format_double = dumps, dump, canonicalize, format_double
if not TYPE_CHECKING:
    _public = backends.public_functions(
        {"dumps": dumps, "dump": dump, "canonicalize": canonicalize, "format_double": format_double}
    )
    dumps, dump, canonicalize = _public["dumps"], _public["dump"], _public["canonicalize"]
    format_double = _public["format_double"]
    del _public

__all__ = ["DEFAULT_MAX_DEPTH", "dumps", "dump", "canonicalize", "canonicalize_to", "format_double"]
