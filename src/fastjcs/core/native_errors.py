"""The words of the C core's errors: one table from its codes to the exception classes, and the
messages, built from an error record (an fjcs_error) and the input as the pure-Python backend words
them. Shared by `fastjcs.core.native_backend` and `fastjcs.core.arrow_native`, so a failure raises
the same exception whichever C path met it. Importing it raises ImportError when the extension is
not built.
"""

from __future__ import annotations

from json.decoder import scanstring  # type: ignore[attr-defined]  # exists, not in typeshed
from typing import Any

from .._native_ext import lib  # ImportError here means: not built
from . import parser
from .errors import (
    CanonicalizationError,
    DepthLimitError,
    DuplicateKeyError,
    FloatDomainError,
    IntegerDomainError,
    InvalidJSONError,
    NonIntegerNumberError,
)

# The exception class and, where it does not depend on the input, the message of each code. The
# words are the pure-Python backend's: the C core's own messages (for C callers) are never shown.
_TEXT_ERRORS: dict[int, tuple[type[CanonicalizationError], str]] = {
    lib.FJCS_E_SYNTAX: (InvalidJSONError, ""),  # from `expected` and the input: error_parts
    lib.FJCS_E_ESCAPE: (InvalidJSONError, "invalid escape sequence"),
    lib.FJCS_E_CONTROL: (InvalidJSONError, "control character in string (must be escaped)"),
    lib.FJCS_E_LEADING_ZERO: (InvalidJSONError, "leading zero in number"),
    lib.FJCS_E_UNTERMINATED: (InvalidJSONError, "unterminated string"),
    lib.FJCS_E_UTF8: (InvalidJSONError, "invalid UTF-8"),
    lib.FJCS_E_SURROGATE: (InvalidJSONError, "lone surrogate escape"),
    lib.FJCS_E_DUPKEY: (DuplicateKeyError, ""),  # names the repeated name: error_parts
    lib.FJCS_E_DEPTH: (DepthLimitError, ""),  # names the limit: error_parts
    lib.FJCS_E_FLOAT_DOMAIN: (FloatDomainError, "number overflows a double"),
    lib.FJCS_E_INT_DOMAIN: (IntegerDomainError, parser.UNSAFE_INTEGER_TOKEN),
    lib.FJCS_E_NOT_INTEGER: (NonIntegerNumberError, parser.NOT_INTEGER_TOKEN),
}

# What the grammar wanted, for FJCS_E_SYNTAX, in the words of the unexpected-character messages.
_EXPECTED: dict[int, str] = {
    lib.FJCS_EXPECT_VALUE: "a value",
    lib.FJCS_EXPECT_DIGIT: "a digit",
    lib.FJCS_EXPECT_FRACTION_DIGIT: "a digit after the decimal point",
    lib.FJCS_EXPECT_EXPONENT_DIGIT: "a digit in the exponent",
    lib.FJCS_EXPECT_TRUE: "'true'",
    lib.FJCS_EXPECT_FALSE: "'false'",
    lib.FJCS_EXPECT_NULL: "'null'",
    lib.FJCS_EXPECT_COMMA_OR_BRACKET: "',' or ']'",
    lib.FJCS_EXPECT_COMMA_OR_BRACE: "',' or '}'",
    lib.FJCS_EXPECT_NAME: "a member name",
    lib.FJCS_EXPECT_COLON: "':'",
    lib.FJCS_EXPECT_END: "end of input",
}


def member_name(data: Any, offset: int) -> str:
    """The member name whose opening quote is at `offset` (checked by C), decoded from a window of
    the input that grows until it holds the closing quote: the cost follows the name's length."""
    size = 256
    while True:
        window = str(data[offset : offset + size], "utf-8", "surrogateescape")
        try:
            return scanstring(window, 1)[0]
        except ValueError:  # the window ends inside the name
            if offset + size >= len(data):
                raise
            size *= 4


def text_error(err: Any, data: Any, max_depth: int) -> Exception:
    """The exception for a C error record (an fjcs_error). `data` is the input (any bytes-like
    object); building the error copies none of it beyond what the message shows."""
    if err.code == lib.FJCS_E_NOMEM:
        return MemoryError("fastjcs: out of memory")
    return item_error(err, data, max_depth)


def item_error(err: Any, data: Any, max_depth: int) -> CanonicalizationError:
    """The exception for a C error record that is not out of memory: the record of a batch's
    item never is (running out of memory ends the whole call, with its own return code)."""
    return record_error(err.code, err.expected, data, int(err.offset), max_depth)


def record_error(code: int, expected: int, data: Any, offset: int, max_depth: int) -> CanonicalizationError:
    """The exception for the fields of an error record (not out of memory), wherever they come
    from: a cffi `fjcs_error`, or the direct entry's (code, expected, offset)."""
    cls, message, key = error_parts(code, expected, data, offset, max_depth)
    if cls is DuplicateKeyError:
        return DuplicateKeyError(message, data, offset, key=key)
    return cls(message, data, offset)


def refused_text(record: tuple[int, int, int], data: bytes, max_depth: int) -> CanonicalizationError:
    """The error of a text the direct entry refused, from its error record (code, expected,
    offset): the text is not parsed again. The backend and the public canonicalize's C fast path
    (csrc/cpython/api.c) both word it here."""
    code, expected, offset = record
    return record_error(code, expected, data, offset, max_depth)


def error_parts(
    code: int, expected: int, data: Any, offset: int, max_depth: int
) -> tuple[type[CanonicalizationError], str, str | None]:
    """(exception class, message, repeated name or None) for a C error at data[offset].

    Messages are built from the code and the record's fields, as the Python backend words them:
    an unexpected character or end names the character found (read from the input) and what the
    grammar wanted, the depth limit its number, a duplicate its name.
    """
    cls, message = _TEXT_ERRORS.get(code, (None, ""))
    if cls is None:  # pragma: no cover - the text path returns no other code
        return CanonicalizationError, f"unexpected error code {code}", None
    if code == lib.FJCS_E_SYNTAX:
        message = parser.unexpected_message(parser.char_at(data, offset), offset == 0, _EXPECTED[expected])
    elif cls is DuplicateKeyError:
        # The offset is the opening quote of the repeated name, already validated by C.
        key = member_name(data, offset)
        return cls, f"duplicate member name {key!r}", key
    elif cls is DepthLimitError:
        message = f"nesting deeper than max_depth={max_depth}"
    return cls, message, None


def what(code: int, expected: int, data: Any, offset: int, max_depth: int) -> str:
    """The text "ErrorClass: message" for a C error, as its exception would say it."""
    cls, text, _ = error_parts(code, expected, data, offset, max_depth)
    return f"{cls.__name__}: {text}"
