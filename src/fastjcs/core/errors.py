"""The core's exceptions, shared by both backends; the root of every fastjcs error.

    FastJCSError(ValueError)
    ├── CanonicalizationError            the value or text cannot be canonicalized
    │   ├── IntegerDomainError           an int outside +/-(2^53-1)
    │   ├── NonIntegerNumberError        integers_only: a float, or a number token with a fraction
    │   │                                or an exponent part
    │   ├── FloatDomainError             NaN, an infinity, a number token that overflows
    │   ├── UnsupportedTypeError         a Python type JSON cannot carry, or a non-str key
    │   ├── CircularReferenceError       a container that contains itself
    │   ├── DepthLimitError              nesting deeper than max_depth
    │   └── InvalidJSONError             text that is not strict RFC 8259 / I-JSON
    │       └── DuplicateKeyError        an object repeats a member name (after unescaping)
    ├── UnsupportedAlgorithmError        a digest algorithm other than sha256 / sha384
    ├── InvalidDigestError               a malformed `<alg>:<hex>` or bare hex digest
    ├── (fastjcs.eab.errors)             Execution Action Binding and registry errors
    └── (fastjcs.cpb.errors)             Canonical Payload Binding errors

CanonicalizationError and its first three subclasses mirror the classes of the `rfc8785` package, so
code written against it catches the same failures. Errors raised while reading text carry `offset`
(0-based, in bytes of the UTF-8 input), `lineno` and `colno` (1-based; the column counts bytes);
errors raised for Python objects have them set to None. The batch digests also set `index` (the
0-based position of the failing item in the batch); it is None outside a batch.
"""

from __future__ import annotations

from typing import Any, Callable


class FastJCSError(ValueError):
    """Base class of every error fastjcs raises on purpose."""


class CanonicalizationError(FastJCSError):
    """The input cannot be written in the JSON Canonicalization Scheme.

    `offset`, `lineno` and `colno` locate the error in text input; they are None for objects.
    """

    offset: int | None = None
    lineno: int | None = None
    colno: int | None = None
    index: int | None = None  # position in a batch (digest_many, digest_texts)

    def __init__(self, msg: str, data: bytes | None = None, offset: int | None = None) -> None:
        self.msg = msg
        if offset is not None:
            self.offset = offset
            if data is not None:
                self.lineno, self.colno = _line_col(data, offset)
                msg = f"{msg}: line {self.lineno} column {self.colno} (byte {offset})"
            else:
                msg = f"{msg} (byte {offset})"
        super().__init__(msg)

    def __reduce__(self) -> tuple[Callable[..., CanonicalizationError], tuple[Any, ...]]:
        # keep the position across pickling (multiprocessing)
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[CanonicalizationError], args: tuple[Any, ...], state: dict[str, Any]) -> CanonicalizationError:
    err = cls.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


class IntegerDomainError(CanonicalizationError):
    """An integer outside the range a double holds exactly, +/-(2^53-1)."""


class NonIntegerNumberError(CanonicalizationError):
    """Integer-only JCS (`integers_only=True`) met a number that is not an integer: a Python float
    (1.0 and -0.0 included), or a number token with a fraction or an exponent part (`1.0`, `1e2`,
    `-0.0`), reported at the token's first byte."""


class FloatDomainError(CanonicalizationError):
    """NaN or an infinity, or a number token whose value overflows a double."""


class UnsupportedTypeError(CanonicalizationError):
    """A Python value of a type JSON cannot carry, or an object member name that is not a str."""


class CircularReferenceError(CanonicalizationError):
    """A list or dict that contains itself."""


class DepthLimitError(CanonicalizationError):
    """Nesting deeper than the `max_depth` the caller allowed."""


class InvalidJSONError(CanonicalizationError):
    """The text is not strict JSON (RFC 8259 with the I-JSON restrictions of RFC 7493).

    Always carries `offset`, `lineno` and `colno`.
    """

    offset: int
    lineno: int
    colno: int


class DuplicateKeyError(InvalidJSONError):
    """An object repeats a member name, compared after unescaping. `key` holds the name."""

    def __init__(self, msg: str, data: bytes | None = None, offset: int | None = None, key: str | None = None) -> None:
        self.key = key
        super().__init__(msg, data, offset)


class UnsupportedAlgorithmError(FastJCSError):
    """A digest algorithm fastjcs does not offer (it offers sha256 and sha384)."""


class InvalidDigestError(FastJCSError):
    """A string that is not a well-formed rendered digest of the representation asked for.

    Raised by `fastjcs.parse_digest` (`<alg>:<lowercase hex>`) and `fastjcs.parse_hex_digest`
    (bare lowercase hex): uppercase hex, a wrong length, whitespace, a missing, unknown or
    unexpected prefix. A value of the wrong Python type (bytes for a str) is a TypeError.
    """


_CHUNK = 1 << 20  # a memoryview has no count(): it is scanned in copies of this many bytes


def _newlines(data: bytes | bytearray | memoryview, start: int, end: int) -> tuple[int, int]:
    """(number of b"\n" in data[start:end], offset of the last one or -1), without copying more
    than _CHUNK bytes at a time."""
    if isinstance(data, (bytes, bytearray)):
        return data.count(b"\n", start, end), data.rfind(b"\n", start, end)
    count, last = 0, -1
    for at in range(start, end, _CHUNK):
        chunk = bytes(data[at : min(at + _CHUNK, end)])
        n = chunk.count(b"\n")
        if n:
            count += n
            last = at + chunk.rfind(b"\n")
    return count, last


class LineIndex:
    """1-based line and byte column of byte offsets in one text, for many offsets.

    Each call scans only the bytes between the previous offset and this one (from the start when
    an offset goes back), so offsets asked in increasing order cost one pass over the text in all.
    """

    __slots__ = ("data", "pos", "line", "line_start")

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self.data = data
        self.pos = 0  # the offset the counts below hold for
        self.line = 1  # the line of `pos`
        self.line_start = 0  # the offset where that line starts

    def __call__(self, offset: int) -> tuple[int, int]:
        if offset < self.pos:
            self.pos, self.line, self.line_start = 0, 1, 0
        count, last = _newlines(self.data, self.pos, offset)
        if count:
            self.line += count
            self.line_start = last + 1
        self.pos = offset
        return self.line, offset - self.line_start + 1


def _line_col(data: bytes | bytearray | memoryview, offset: int) -> tuple[int, int]:
    """1-based line and byte column of `offset` in `data`."""
    return LineIndex(data)(offset)


__all__ = [
    "FastJCSError",
    "CanonicalizationError",
    "IntegerDomainError",
    "NonIntegerNumberError",
    "FloatDomainError",
    "UnsupportedTypeError",
    "CircularReferenceError",
    "DepthLimitError",
    "InvalidJSONError",
    "DuplicateKeyError",
    "UnsupportedAlgorithmError",
    "InvalidDigestError",
]
