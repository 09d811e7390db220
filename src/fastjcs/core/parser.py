"""The strict JSON text parser: RFC 8259 with the I-JSON restrictions (RFC 7493), iteratively.

`Parser` reads a JSON text in one loop with an explicit stack; its hooks say what a number is
worth, how a member is stored and what closing a container checks. The pure-Python backend's
canonicalize extends it to write canonical text as it reads, the CPB scanner
(`fastjcs.cpb._scan`) to record token-level findings; both refuse exactly what this parser
refuses, at the same place. `Text`, `scan_string`, `unexpected` and `match_ws` are the pieces such an
extension reads the text with; `char_at` and `unexpected_message` let the C backend word its
errors as this parser does.
"""

from __future__ import annotations

import re
import sys
from json.decoder import py_scanstring as _py_scanstring  # type: ignore[attr-defined]  # exists, not in typeshed
from json.decoder import scanstring as _scanstring  # type: ignore[attr-defined]  # exists, not in typeshed
from typing import Any, Callable, NoReturn, cast

from .errors import (
    CanonicalizationError,
    DepthLimitError,
    DuplicateKeyError,
    FloatDomainError,
    IntegerDomainError,
    InvalidJSONError,
    NonIntegerNumberError,
)

INT_MAX = 2**53 - 1  # the largest integer a double holds exactly, and all below it
INF = float("inf")
#: The message of a number token refused by integer-only JCS (both backends word it so).
NOT_INTEGER_TOKEN = "number with a fraction or an exponent part (integers_only)"
#: The message of an integer token outside +/-(2^53-1) (strict_integers, integers_only).
UNSAFE_INTEGER_TOKEN = "integer outside +/-(2^53-1)"
SURROGATE = re.compile("[\ud800-\udfff]")

# The parser is the specification the C parser mirrors, error for error and offset for offset:
#   - offsets are 0-based byte offsets into the UTF-8 input (the parser reads the input as
#     latin-1, one character per byte, so its indices are the offsets; strings are decoded as
#     UTF-8 from their own bytes);
#   - a structural error is reported at the offending byte, or at len(data) for an early end;
#   - a bad escape at its backslash; a lone surrogate escape at the backslash of the escape that
#     is unpaired (a high surrogate not followed by an escaped low one is the culprit);
#   - invalid UTF-8 at the first byte of the sequence that does not decode (the start of
#     Python's UnicodeDecodeError); outside strings any non-ASCII byte is an unexpected character;
#   - a number token is read by the grammar -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, and
#     an error sits where the grammar needed a digit (after '-', '.', 'e' or its sign) or at a
#     digit that follows a leading zero, or at a '.', 'e' or 'E' right after a complete token
#     ("1.5.3", "1e5e3"); a literal at its first byte that does not match;
#   - a duplicate member name is reported when its object closes, at the opening quote of the
#     earliest member whose name repeats an earlier one in that object;
#   - the depth limit at the bracket that opens one container too many;
#   - strict_integers / integers_only: a refused number token at its first byte.

_WS = re.compile(r"[ \t\n\r]*")
# _WS matches the empty string, so its match never fails: match_ws(text, i).end() is the index of the
# first character at or after i that is not whitespace. The bound method itself, typed to say so.
match_ws = cast("Callable[[str, int], re.Match[str]]", _WS.match)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
# A \u escape (after an even number of backslashes) without four hex digits. json's pure-Python
# scanstring (PyPy's, or CPython's without its C accelerator) reads the four characters with
# int(..., 16), which takes whitespace, a sign and underscores ("\u\t000", "\u+123", "\u1_23").
_LOOSE_U = re.compile(r"(?<!\\)(?:\\\\)*\\u(?![0-9a-fA-F]{4})")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class Text:
    """The input, and its bytes as a str of the same length (latin-1: character i is byte i).

    The parser works on `text`, so an index into it is a byte offset of the input, and the text
    costs one byte per input byte, whatever characters the input holds. Every structural character
    is ASCII; a string is decoded as UTF-8 from its own bytes (`scan_string`).
    """

    __slots__ = ("data", "text")

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self.data = data
        self.text = str(data, "latin-1")  # any bytes-like object

    def fail(self, cls: type, msg: str, offset: int, **kw: Any) -> CanonicalizationError:
        return cls(msg, self.data, offset, **kw)


def char_at(data: bytes | bytearray | memoryview, offset: int) -> str | None:
    """The character whose UTF-8 encoding starts at `offset` (None at the end of the input); a
    byte that starts no valid sequence is one lone surrogate U+DC80..U+DCFF (surrogateescape)."""
    return str(data[offset : offset + 4], "utf-8", "surrogateescape")[:1] or None


def unexpected_message(c: str | None, at_start: bool, what: str) -> str:
    """The message for a character the grammar did not expect (None: the end of the input).

    Shared with the C backend, whose error record says what was expected (a code) and where: its
    wrapper words the message from those and the character at the offset, so both backends say
    the same.
    """
    if c is None:
        return f"unexpected end of input, expected {what}"
    if at_start and c == "\ufeff":
        return "byte order mark (not allowed)"
    if "\udc80" <= c <= "\udcff":
        return "invalid UTF-8"
    return f"unexpected character {c!r}, expected {what}"


def unexpected(src: Text, i: int, what: str) -> CanonicalizationError:
    return src.fail(InvalidJSONError, unexpected_message(char_at(src.data, i), i == 0, what), i)


def scan_string(src: Text, i: int) -> tuple[str, int]:
    """Read the string whose opening quote is at i; return (value, index after the closing quote)."""
    try:
        s, end = _scanstring(src.text, i + 1, True)
    except ValueError:  # json.JSONDecodeError: find and report the first error ourselves
        _string_error(src, i)
    if _scanstring is _py_scanstring and _LOOSE_U.search(src.text, i + 1, end) is not None:
        _string_error(src, i)
    if s.isascii():  # the common case; an escaped surrogate would not be ASCII
        return s, end
    # Raw bytes of non-ASCII characters came through as latin-1 characters: decode them as UTF-8.
    # Without a \u escape, every other character is ASCII, and s.encode("latin-1") gives back the
    # string's bytes; with one, the string is read again from its own bytes, decoded (its escapes
    # and its end are already checked). surrogateescape keeps an undecodable byte as one lone
    # surrogate, found just below.
    if src.text.find("\\u", i + 1, end) < 0:
        s = s.encode("latin-1").decode("utf-8", "surrogateescape")
    else:
        s = _scanstring(str(src.data[i:end], "utf-8", "surrogateescape"), 1, True)[0]
    if SURROGATE.search(s) is not None:  # a lone surrogate escape, or an undecodable byte
        _string_error(src, i)
    return s, end


def _string_error(src: Text, i: int) -> NoReturn:
    """Walk the string at i character by character and raise its first error."""
    text = src.text
    n = len(text)
    j = i + 1
    while j < n:
        c = text[j]
        if c == '"':
            break
        if c == "\\":
            e = text[j + 1 : j + 2]
            if e in _SIMPLE_ESCAPES:
                j += 2
                continue
            if e != "u" or _HEX4.fullmatch(text, j + 2, j + 6) is None:
                raise src.fail(InvalidJSONError, "invalid escape sequence", j)
            cp = int(text[j + 2 : j + 6], 16)
            if 0xDC00 <= cp <= 0xDFFF:
                raise src.fail(InvalidJSONError, "lone surrogate escape", j)
            if 0xD800 <= cp <= 0xDBFF:
                low = text[j + 6 : j + 12]
                if (
                    len(low) == 6
                    and low[:2] == "\\u"
                    and _HEX4.fullmatch(low, 2) is not None
                    and 0xDC00 <= int(low[2:], 16) <= 0xDFFF
                ):
                    j += 12
                    continue
                raise src.fail(InvalidJSONError, "lone surrogate escape", j)
            j += 6
            continue
        if c < " ":
            raise src.fail(InvalidJSONError, "control character in string (must be escaped)", j)
        if c >= "\x80":  # the first byte of a UTF-8 sequence, if it is one
            ch = char_at(src.data, j)
            assert ch is not None  # byte j is there: it is c
            if "\udc80" <= ch <= "\udcff":
                raise src.fail(InvalidJSONError, "invalid UTF-8", j)
            j += len(ch.encode("utf-8"))
            continue
        j += 1
    else:
        raise src.fail(InvalidJSONError, "unterminated string", n)
    raise AssertionError("json.scanstring refused a string this scanner accepts")  # pragma: no cover


def _number_error(src: Text, i: int) -> NoReturn:
    """The number token at i does not match the grammar: raise at the first byte that breaks it."""
    text = src.text
    n = len(text)
    j = i
    if text[j] == "-":
        j += 1
    if j >= n or not "0" <= text[j] <= "9":
        raise unexpected(src, j, "a digit")
    if text[j] == "0":
        j += 1
        if j < n and "0" <= text[j] <= "9":
            raise src.fail(InvalidJSONError, "leading zero in number", j)
    while j < n and "0" <= text[j] <= "9":
        j += 1
    if j < n and text[j] == ".":
        j += 1
        if j >= n or not "0" <= text[j] <= "9":
            raise unexpected(src, j, "a digit after the decimal point")
        while j < n and "0" <= text[j] <= "9":
            j += 1
    if j < n and text[j] in "eE":
        j += 1
        if j < n and text[j] in "+-":
            j += 1
        if j >= n or not "0" <= text[j] <= "9":
            raise unexpected(src, j, "a digit in the exponent")
        while j < n and "0" <= text[j] <= "9":
            j += 1
    # The token is complete: _match_number does not call this then, as a '.', 'e' or 'E' after a
    # complete token ("1.5.3", "1e5e3") is the structure's error, at that same byte.
    raise unexpected(src, j, "the end of the number")  # pragma: no cover


def _match_number(src: Text, i: int) -> re.Match[str]:
    """The number token at i, or InvalidJSONError at the first character that breaks its grammar."""
    text = src.text
    m = _NUMBER.match(text, i)
    if m is None:
        _number_error(src, i)
    nxt = text[m.end() : m.end() + 1]
    # The match stops early when the grammar broke inside the token: a '.' not followed by a digit
    # (only before any fraction or exponent), an 'e' without exponent digits, or a digit after a
    # leading zero. Anything else after the token is the next structural character's business.
    if nxt and (
        ("0" <= nxt <= "9")
        or (nxt in "eE" and m.group(2) is None)
        or (nxt == "." and m.group(1) is None and m.group(2) is None)
    ):
        _number_error(src, i)
    return m


_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}


def _literal(src: Text, i: int, table: dict[str, tuple[str, Any]]) -> tuple[Any, int]:
    """The literal at i, valued by `table` (first letter -> (word, value))."""
    text = src.text
    word, value = table[text[i]]
    if text.startswith(word, i):
        return value, i + len(word)
    j = i
    for ch in word:
        if j >= len(text) or text[j] != ch:
            raise unexpected(src, j, f"'{word}'")
        j += 1
    raise AssertionError("literal mismatch")  # pragma: no cover


def integer_token_refusal(m: re.Match[str]) -> type | None:
    """Integer-only JCS's judgement of a number token (a match of the number grammar): None for
    an integer token within +/-(2^53-1) (`-0` included), NonIntegerNumberError for a token with a
    fraction or an exponent part ("1.0", "1e2", "-0.0"), IntegerDomainError for an integer token
    outside the range. The one rule both `canonicalize(integers_only=True)` and the CPB scanner
    (jcs-n, which refuses `-0` besides) apply."""
    if m.group(1) is not None or m.group(2) is not None:
        return NonIntegerNumberError
    # |value| <= 2^53 - 1 has at most 16 digits: decide on the digits, before any conversion (an
    # integer token too long for a double is still an integer out of range).
    digits = m.group(0).lstrip("-")
    if len(digits) > 16 or int(digits) > INT_MAX:
        return IntegerDomainError
    return None


class Frame:
    __slots__ = ("value", "key", "key_index", "dup")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key: str | None = None
        self.key_index = 0
        self.dup: Any = None  # what the first repeated name needs for its error


class Parser:
    """The strict JSON parser: one loop over the text, with an explicit stack.

    `parse()` returns Python values (every number a float). Hooks say what a number is worth,
    how a member is stored and what closing a container checks and gives; the class attributes
    `literals`, `scan_string` and `spill_at` say what a literal and a string are worth and when an
    open array's elements are handed to `spill`. The CPB scanner (fastjcs.cpb._scan) extends the
    hooks to record token-level findings, and canonicalize's _Canonical to write canonical text as
    it reads; both so refuse exactly what this parser refuses, at the same place. `stack` holds the
    open containers (frames of `frame_type`).
    """

    frame_type: type = Frame
    literals: dict[str, tuple[str, Any]] = _LITERALS
    scan_string = staticmethod(scan_string)  # (src, index of the quote) -> (value, end)
    spill_at = sys.maxsize  # never: the array's list is its value

    def __init__(self, data: bytes, max_depth: int, strict_integers: bool = False, integers_only: bool = False) -> None:
        self.src = Text(data)
        self.max_depth = max_depth
        self.strict_integers = strict_integers or integers_only  # integers_only implies it
        self.integers_only = integers_only
        self.stack: list[Any] = []

    # ---- hooks ----

    def number(self, m: re.Match[str], i: int) -> Any:
        """The value of the number token m, which starts at i."""
        token = m.group(0)
        if self.strict_integers:
            refusal = integer_token_refusal(m)
            if refusal is IntegerDomainError:
                raise self.src.fail(IntegerDomainError, UNSAFE_INTEGER_TOKEN, i)
            if refusal is not None and self.integers_only:
                raise self.src.fail(NonIntegerNumberError, NOT_INTEGER_TOKEN, i)
        value = float(token)
        if value == INF or value == -INF:
            raise self.src.fail(FloatDomainError, "number overflows a double", i)
        return value

    def store(self, frame: Any, key: str, value: Any) -> None:
        """Store a member's value; note the first name that repeats (reported when the object
        closes, as the C parser, which finds duplicates while it sorts, reports it)."""
        container = frame.value
        if key in container and frame.dup is None:
            frame.dup = (frame.key_index, key)
        container[key] = value

    def close(self, frame: Any) -> Any:
        """A container ends: refuse an object in which a name repeated; return its value."""
        if frame.dup is not None:
            at, name = frame.dup
            raise self.src.fail(DuplicateKeyError, f"duplicate member name {name!r}", at, key=name)
        return frame.value

    def spill(self, frame: Any) -> None:
        """An open array holds spill_at elements (not called with the default spill_at)."""

    # ---- the loop ----

    def parse(self) -> Any:
        src = self.src
        text = src.text
        n = len(text)
        ws = match_ws
        stack = self.stack
        new_frame = self.frame_type
        number, store, close, spill = self.number, self.store, self.close, self.spill
        scan_string, literals, spill_at = self.scan_string, self.literals, self.spill_at
        i = ws(text, 0).end()
        while True:
            # ---- a value starts at i ----
            if i >= n:
                raise unexpected(src, i, "a value")
            c = text[i]
            if c == '"':
                value, i = scan_string(src, i)
            elif c == "{" or c == "[":
                if len(stack) >= self.max_depth:
                    raise src.fail(DepthLimitError, f"nesting deeper than max_depth={self.max_depth}", i)
                i = ws(text, i + 1).end()
                if c == "{":
                    frame = new_frame({})
                    stack.append(frame)
                    if text[i : i + 1] == "}":
                        i += 1
                        value = close(stack.pop())
                    else:
                        i = _member_key(src, frame, i)
                        continue
                else:
                    stack.append(new_frame([]))
                    if text[i : i + 1] == "]":
                        i += 1
                        value = close(stack.pop())
                    else:
                        continue
            elif c == "-" or "0" <= c <= "9":
                m = _match_number(src, i)
                value = number(m, i)
                i = m.end()
            elif c in _LITERALS:
                value, i = _literal(src, i, literals)
            else:
                raise unexpected(src, i, "a value")

            # ---- store the value; close containers that end here ----
            while True:
                if not stack:
                    i = ws(text, i).end()
                    if i != n:
                        raise unexpected(src, i, "end of input")
                    return value
                frame = stack[-1]
                i = ws(text, i).end()
                c = text[i : i + 1]
                container = frame.value
                if type(container) is list:
                    container.append(value)
                    if len(container) >= spill_at:
                        spill(frame)
                    if c == ",":
                        i = ws(text, i + 1).end()
                        break
                    if c == "]":
                        i += 1
                        value = close(stack.pop())
                        continue
                    raise unexpected(src, i, "',' or ']'")
                store(frame, frame.key, value)
                if c == ",":
                    i = ws(text, i + 1).end()
                    i = _member_key(src, frame, i)
                    break
                if c == "}":
                    i += 1
                    value = close(stack.pop())
                    continue
                raise unexpected(src, i, "',' or '}'")


def parse(data: bytes, max_depth: int, strict_integers: bool = False, integers_only: bool = False) -> Any:
    """Parse strict JSON text into Python values (every number a float), iteratively."""
    return Parser(data, max_depth, strict_integers, integers_only).parse()


def _member_key(src: Text, frame: Any, i: int) -> int:
    """Read `"name" :` at i into frame; return the index where the member's value starts."""
    text = src.text
    if text[i : i + 1] != '"':
        raise unexpected(src, i, "a member name")
    frame.key_index = i
    frame.key, i = scan_string(src, i)
    i = match_ws(text, i).end()
    if text[i : i + 1] != ":":
        raise unexpected(src, i, "':'")
    return match_ws(text, i + 1).end()
