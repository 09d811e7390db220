"""The pure-Python backend: the reference the C core is held against.

Both backends expose the same private functions with the same signatures:

    dumps(obj, max_depth) -> bytes
    canonicalize(data: bytes-like, max_depth, strict_integers) -> bytes
    canonicalize_to(data: bytes-like, write, max_depth, strict_integers) -> None
    format_double(x: float) -> str
    digest_many(objs: list, max_depth, algorithm) -> list[bytes]
    digest_texts(texts: list[bytes], max_depth, strict_integers, algorithm) -> list

Nothing here recurses: containers are walked with an explicit stack, so the depth limit, not the
interpreter's recursion limit, decides how deep a value may nest.

Speed comes from letting CPython's C code do the per-character work: `json.encoder`'s
`encode_basestring` escapes exactly the RFC 8785 set (`"`, `\\`, the C0 controls, with the short
forms for \\b \\t \\n \\f \\r and lowercase `\\u00xx` otherwise, nothing else); one final
`.encode("utf-8")` refuses lone surrogates; `repr(float)` gives the shortest round-trip digits.
"""

from __future__ import annotations

import io
import re
import sys
from json.decoder import scanstring as _scanstring
from json.encoder import encode_basestring as _escape
from typing import Any, Dict, List, Optional, Tuple

from . import _hash
from ._errors import (
    CanonicalizationError,
    CircularReferenceError,
    DepthLimitError,
    DuplicateKeyError,
    FloatDomainError,
    IntegerDomainError,
    InvalidJSONError,
    UnsupportedTypeError,
)

NAME = "python"

_INT_MAX = 2**53 - 1
_INT_MIN = -_INT_MAX
_INF = float("inf")

# ---------------------------------------------------------------------------------------------------
# Numbers: ECMA-262 Number::toString, as RFC 8785 section 3.2.2.3 adopts it
# ---------------------------------------------------------------------------------------------------


def format_double(x: float) -> str:
    """Render a float as ECMAScript does. Raises FloatDomainError for NaN and the infinities.

    repr() already gives the shortest digits that round-trip, nearest to the value, ties to even
    (CPython uses David Gay's correctly rounded dtoa in mode 0); only the layout differs. repr
    writes plain notation for 1e-4 <= |x| < 1e16, where ECMAScript also does, so in that range the
    only change is dropping a trailing ".0".
    """
    r = repr(x)
    i = r.find("e")
    if i < 0:
        if r[-2:] == ".0":
            return "0" if r == "-0.0" else r[:-2]
        if r[-1] > "9":  # inf, -inf, nan
            raise FloatDomainError(f"{r} is not representable in JCS")
        return r
    e = int(r[i + 1:])  # repr's exponent: the value is d1.d2...dk x 10^e
    if e < -6 or e > 20:
        # Exponent notation in both: the same digits; repr pads the exponent to two digits.
        return r[:i + 2] + r[i + 3:] if -10 < e < 0 else r
    # 1e-6 <= |x| < 1e-4 or 1e16 <= |x| < 1e21: repr writes an exponent, ECMAScript does not.
    sign = ""
    mantissa = r[:i]
    if mantissa[0] == "-":
        sign, mantissa = "-", mantissa[1:]
    digits = mantissa.replace(".", "").rstrip("0")
    # The value is 0.<digits> x 10^n.
    return sign + _layout(digits, e + 1)


def _layout(digits: str, n: int) -> str:
    """ECMA-262 Number::toString steps for a value 0.d1...dk x 10^n (digits has no trailing 0)."""
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return head + ("e+" if e >= 0 else "e-") + str(abs(e))


# ---------------------------------------------------------------------------------------------------
# Python objects in: dumps
# ---------------------------------------------------------------------------------------------------

_NOT_ASCII_SORT = "\ue000"  # at or above this code point, UTF-16 order differs from code point order
_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf16_key(key: str) -> bytes:
    return str.encode(key, "utf-16-be")


def _sorted_keys(d: dict) -> list:
    """The member names of d in RFC 8785 order (UTF-16 code units), all checked to be str.

    Names are compared as str, whatever a subclass's own comparison says (str.__str__ is the
    name's exact str; it refuses a name that is not a str).
    """
    try:
        keys = sorted(d, key=str.__str__)
        joined = "".join(keys)  # refuses a name that is not a str
    except TypeError:
        raise UnsupportedTypeError("object keys must be strings") from None
    if not joined.isascii():
        if _SURROGATE.search(joined) is not None:
            raise CanonicalizationError("object key contains a lone surrogate (not UTF-8)")
        if max(joined) >= _NOT_ASCII_SORT:
            keys.sort(key=_utf16_key)
    return keys


def dumps(obj: Any, max_depth: int) -> bytes:
    """Canonical UTF-8 bytes of a Python value (DESIGN section 2.1), iteratively."""
    out: List[str] = []
    try:
        _render(obj, max_depth, out)
    except CanonicalizationError:
        # Strings are checked for lone surrogates by the final encode, all at once. rfc8785 checks
        # each string as it writes it, so when a string already written holds one, that error is
        # the first in document order and is the one to report.
        _encode(out)
        raise
    return _encode(out)


def _encode(out: List[str]) -> bytes:
    try:
        return "".join(out).encode("utf-8")
    except UnicodeEncodeError:
        raise CanonicalizationError("string contains a lone surrogate (not UTF-8)") from None


def _int_domain_error(value: int) -> IntegerDomainError:
    # rfc8785's message; but str() of an int beyond sys.get_int_max_str_digits() (4,300 digits by
    # default) raises ValueError, which would replace the IntegerDomainError.
    shown = str(value) if value.bit_length() <= 10_000 else f"an integer of {value.bit_length()} bits"
    return IntegerDomainError(f"{shown} exceeds safe integer domain for JSON floats")


def _render(obj: Any, max_depth: int, out: List[str]) -> None:
    """Append the canonical text of obj to out, as str pieces.

    The stack holds one entry per open container: (iterator over its elements, or over its sorted
    names for an object; the dict for an object, else None; its id; its closing bracket). The
    document itself sits in a one-element pseudo-array at the bottom, so every value, the top one
    included, is rendered by the same loops. Every element is followed by a "," piece of its own;
    when a container closes, its bracket replaces the "," after its last element.

    The scalar cases are written out in both loops below, not called: a call per value costs
    more than all the rest of the work on a typical document.
    """
    emit = out.append
    escape = _escape
    fmt = format_double
    lo, hi = _INT_MIN, _INT_MAX
    stack: List[Tuple[Any, Any, int, str]] = [(iter((obj,)), None, 0, "")]
    open_ids: set = set()
    limit = max_depth + 1  # the pseudo-array does not count
    while True:
        it, source, ident, closer = stack[-1]
        if source is None:  # an array: the elements are the values
            for value in it:
                t = type(value)
                if t is str:
                    emit(escape(value))
                elif t is int:
                    if lo <= value <= hi:
                        emit(str(value))
                    else:
                        raise _int_domain_error(value)
                elif t is float:
                    emit(fmt(value))
                elif value is None:
                    emit("null")
                elif value is True:
                    emit("true")
                elif value is False:
                    emit("false")
                elif _open(value, stack, open_ids, limit, emit):
                    break
                emit(",")
            else:
                stack.pop()
                if not stack:
                    del out[-1]
                    return
                out[-1] = closer
                open_ids.discard(ident)
                emit(",")
        else:  # an object: the elements are its names, in order
            for key in it:
                emit(escape(key))
                emit(":")
                try:
                    value = source[key]
                except KeyError:  # a hook of a value, or another thread, removed the member
                    raise RuntimeError("dictionary changed during canonicalization: a member was removed") from None
                t = type(value)
                if t is str:
                    emit(escape(value))
                elif t is int:
                    if lo <= value <= hi:
                        emit(str(value))
                    else:
                        raise _int_domain_error(value)
                elif t is float:
                    emit(fmt(value))
                elif value is None:
                    emit("null")
                elif value is True:
                    emit("true")
                elif value is False:
                    emit("false")
                elif _open(value, stack, open_ids, limit, emit):
                    break
                emit(",")
            else:
                stack.pop()
                out[-1] = closer
                open_ids.discard(ident)
                emit(",")


def _open(value: Any, stack: list, open_ids: set, limit: int, emit) -> bool:
    """A value that is not a str, int, float, bool or None of the exact type.

    Opens a non-empty container (pushes it and returns True), or emits the value (an empty
    container, or a subclass of a scalar type, valued as rfc8785 values it) and returns False.
    """
    t = type(value)
    if t is dict or t is list or t is tuple:
        source = value
    elif isinstance(value, bool):  # bool cannot be subclassed; kept for rfc8785's order
        emit("true" if value else "false")
        return False
    elif isinstance(value, int):
        number = int(value)
        if not _INT_MIN <= number <= _INT_MAX:
            raise _int_domain_error(number)
        emit(str(number))
        return False
    elif isinstance(value, str):
        emit(_escape(value))
        return False
    elif isinstance(value, float):
        emit(format_double(float(value)))
        return False
    elif isinstance(value, (list, tuple, dict)):
        source = None  # copied to the plain type below, once the checks pass
    else:
        raise UnsupportedTypeError(f"unsupported type: {type(value).__name__}")
    ident = id(value)
    if ident in open_ids:
        raise CircularReferenceError("circular reference: a container contains itself")
    if len(stack) >= limit:
        raise DepthLimitError(f"nesting deeper than max_depth={limit - 1}")
    if source is None:  # a subclass: iterate it once, into a copy (open_ids holds the original)
        source = dict(value) if isinstance(value, dict) else list(value)
    if type(source) is dict:
        if not source:
            emit("{}")
            return False
        stack.append((iter(_sorted_keys(source)), source, ident, "}"))
        emit("{")
    else:
        if not source:
            emit("[]")
            return False
        stack.append((iter(source), None, ident, "]"))
        emit("[")
    open_ids.add(ident)
    return True


# ---------------------------------------------------------------------------------------------------
# JSON text in: canonicalize
# ---------------------------------------------------------------------------------------------------
#
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
#   - the depth limit at the bracket that opens one container too many.

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t"}


class _Text:
    """The input, and its bytes as a str of the same length (latin-1: character i is byte i).

    The parser works on `text`, so an index into it is a byte offset of the input, and the text
    costs one byte per input byte, whatever characters the input holds. Every structural character
    is ASCII; a string is decoded as UTF-8 from its own bytes (`_scan_string`).
    """

    __slots__ = ("data", "text")

    def __init__(self, data: "bytes | bytearray | memoryview") -> None:
        self.data = data
        self.text = str(data, "latin-1")  # any bytes-like object

    def fail(self, cls: type, msg: str, offset: int, **kw: Any) -> "CanonicalizationError":
        return cls(msg, self.data, offset, **kw)


def char_at(data: "bytes | bytearray | memoryview", offset: int) -> Optional[str]:
    """The character whose UTF-8 encoding starts at `offset` (None at the end of the input); a
    byte that starts no valid sequence is one lone surrogate U+DC80..U+DCFF (surrogateescape)."""
    return str(data[offset:offset + 4], "utf-8", "surrogateescape")[:1] or None


def unexpected_message(c: Optional[str], at_start: bool, what: str) -> str:
    """The message for a character the grammar did not expect (None: the end of the input).

    Shared with the C backend, which reports "unexpected character, expected <what>" and has its
    wrapper rebuild the message from the character at the offset, so both backends say the same.
    """
    if c is None:
        return f"unexpected end of input, expected {what}"
    if at_start and c == "\ufeff":
        return "byte order mark (not allowed)"
    if "\udc80" <= c <= "\udcff":
        return "invalid UTF-8"
    return f"unexpected character {c!r}, expected {what}"


def _unexpected(src: _Text, i: int, what: str) -> CanonicalizationError:
    return src.fail(InvalidJSONError, unexpected_message(char_at(src.data, i), i == 0, what), i)


def _scan_string(src: _Text, i: int) -> Tuple[str, int]:
    """Read the string whose opening quote is at i; return (value, index after the closing quote)."""
    try:
        s, end = _scanstring(src.text, i + 1, True)
    except ValueError:  # json.JSONDecodeError: find and report the first error ourselves
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
    if _SURROGATE.search(s) is not None:  # a lone surrogate escape, or an undecodable byte
        _string_error(src, i)
    return s, end


def _string_error(src: _Text, i: int) -> None:
    """Walk the string at i character by character and raise its first error."""
    text = src.text
    n = len(text)
    j = i + 1
    while j < n:
        c = text[j]
        if c == '"':
            break
        if c == "\\":
            e = text[j + 1: j + 2]
            if e in _SIMPLE_ESCAPES:
                j += 2
                continue
            if e != "u" or _HEX4.fullmatch(text, j + 2, j + 6) is None:
                raise src.fail(InvalidJSONError, "invalid escape sequence", j)
            cp = int(text[j + 2: j + 6], 16)
            if 0xDC00 <= cp <= 0xDFFF:
                raise src.fail(InvalidJSONError, "lone surrogate escape", j)
            if 0xD800 <= cp <= 0xDBFF:
                low = text[j + 6: j + 12]
                if (len(low) == 6 and low[:2] == "\\u" and _HEX4.fullmatch(low, 2) is not None
                        and 0xDC00 <= int(low[2:], 16) <= 0xDFFF):
                    j += 12
                    continue
                raise src.fail(InvalidJSONError, "lone surrogate escape", j)
            j += 6
            continue
        if c < " ":
            raise src.fail(InvalidJSONError, "control character in string (must be escaped)", j)
        if c >= "\x80":  # the first byte of a UTF-8 sequence, if it is one
            c = char_at(src.data, j)
            if "\udc80" <= c <= "\udcff":
                raise src.fail(InvalidJSONError, "invalid UTF-8", j)
            j += len(c.encode("utf-8"))
            continue
        j += 1
    else:
        raise src.fail(InvalidJSONError, "unterminated string", n)
    raise AssertionError("json.scanstring refused a string this scanner accepts")  # pragma: no cover


def _number_error(src: _Text, i: int) -> None:
    """The number token at i does not match the grammar: raise at the first byte that breaks it."""
    text = src.text
    n = len(text)
    j = i
    if text[j] == "-":
        j += 1
    if j >= n or not "0" <= text[j] <= "9":
        raise _unexpected(src, j, "a digit")
    if text[j] == "0":
        j += 1
        if j < n and "0" <= text[j] <= "9":
            raise src.fail(InvalidJSONError, "leading zero in number", j)
    while j < n and "0" <= text[j] <= "9":
        j += 1
    if j < n and text[j] == ".":
        j += 1
        if j >= n or not "0" <= text[j] <= "9":
            raise _unexpected(src, j, "a digit after the decimal point")
        while j < n and "0" <= text[j] <= "9":
            j += 1
    if j < n and text[j] in "eE":
        j += 1
        if j < n and text[j] in "+-":
            j += 1
        if j >= n or not "0" <= text[j] <= "9":
            raise _unexpected(src, j, "a digit in the exponent")
        while j < n and "0" <= text[j] <= "9":
            j += 1
    # The token is complete: _match_number does not call this then, as a '.', 'e' or 'E' after a
    # complete token ("1.5.3", "1e5e3") is the structure's error, at that same byte.
    raise _unexpected(src, j, "the end of the number")  # pragma: no cover


def _match_number(src: _Text, i: int) -> "re.Match[str]":
    """The number token at i, or InvalidJSONError at the first character that breaks its grammar."""
    text = src.text
    m = _NUMBER.match(text, i)
    if m is None:
        _number_error(src, i)
    nxt = text[m.end(): m.end() + 1]
    # The match stops early when the grammar broke inside the token: a '.' not followed by a digit
    # (only before any fraction or exponent), an 'e' without exponent digits, or a digit after a
    # leading zero. Anything else after the token is the next structural character's business.
    if nxt and (("0" <= nxt <= "9") or (nxt in "eE" and m.group(2) is None)
                or (nxt == "." and m.group(1) is None and m.group(2) is None)):
        _number_error(src, i)
    return m


_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}


def _literal(src: _Text, i: int, table: Dict[str, Tuple[str, Any]]) -> Tuple[Any, int]:
    """The literal at i, valued by `table` (first letter -> (word, value))."""
    text = src.text
    word, value = table[text[i]]
    if text.startswith(word, i):
        return value, i + len(word)
    j = i
    for ch in word:
        if j >= len(text) or text[j] != ch:
            raise _unexpected(src, j, f"'{word}'")
        j += 1
    raise AssertionError("literal mismatch")  # pragma: no cover


class _Container:
    __slots__ = ("value", "key", "key_index", "dup")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key: Optional[str] = None
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

    frame_type: type = _Container
    literals: Dict[str, Tuple[str, Any]] = _LITERALS
    scan_string = staticmethod(_scan_string)   # (src, index of the quote) -> (value, end)
    spill_at = sys.maxsize                     # never: the array's list is its value

    def __init__(self, data: bytes, max_depth: int, strict_integers: bool = False) -> None:
        self.src = _Text(data)
        self.max_depth = max_depth
        self.strict_integers = strict_integers
        self.stack: List[Any] = []

    # ---- hooks ----

    def number(self, m: "re.Match[str]", i: int) -> Any:
        """The value of the number token m, which starts at i."""
        token = m.group(0)
        if self.strict_integers and m.group(1) is None and m.group(2) is None:
            # |value| <= 2^53 - 1 has at most 16 digits: decide on the digits, before the float (an
            # integer token too long for a double is still an integer out of range).
            digits = token.lstrip("-")
            if len(digits) > 16 or int(digits) > _INT_MAX:
                raise self.src.fail(IntegerDomainError, "integer outside +/-(2^53-1)", i)
        value = float(token)
        if value == _INF or value == -_INF:
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
        ws = _WS.match
        stack = self.stack
        new_frame = self.frame_type
        number, store, close, spill = self.number, self.store, self.close, self.spill
        scan_string, literals, spill_at = self.scan_string, self.literals, self.spill_at
        i = ws(text, 0).end()
        while True:
            # ---- a value starts at i ----
            if i >= n:
                raise _unexpected(src, i, "a value")
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
                    if text[i: i + 1] == "}":
                        i += 1
                        value = close(stack.pop())
                    else:
                        i = _member_key(src, frame, i)
                        continue
                else:
                    stack.append(new_frame([]))
                    if text[i: i + 1] == "]":
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
                raise _unexpected(src, i, "a value")

            # ---- store the value; close containers that end here ----
            while True:
                if not stack:
                    i = ws(text, i).end()
                    if i != n:
                        raise _unexpected(src, i, "end of input")
                    return value
                frame = stack[-1]
                i = ws(text, i).end()
                c = text[i: i + 1]
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
                    raise _unexpected(src, i, "',' or ']'")
                store(frame, frame.key, value)
                if c == ",":
                    i = ws(text, i + 1).end()
                    i = _member_key(src, frame, i)
                    break
                if c == "}":
                    i += 1
                    value = close(stack.pop())
                    continue
                raise _unexpected(src, i, "',' or '}'")


def parse(data: bytes, max_depth: int, strict_integers: bool = False) -> Any:
    """Parse strict JSON text into Python values (every number a float), iteratively."""
    return Parser(data, max_depth, strict_integers).parse()


def _member_key(src: _Text, frame: Any, i: int) -> int:
    """Read `"name" :` at i into frame; return the index where the member's value starts."""
    text = src.text
    if text[i: i + 1] != '"':
        raise _unexpected(src, i, "a member name")
    frame.key_index = i
    frame.key, i = _scan_string(src, i)
    i = _WS.match(text, i).end()
    if text[i: i + 1] != ":":
        raise _unexpected(src, i, "':'")
    return _WS.match(text, i + 1).end()


# canonicalize writes the canonical text while it parses, without building the Python values: a
# scalar becomes its canonical text as soon as it is read, and a container its canonical text when
# it closes (an object's members sorted then). What a closed container gives is a str when it is
# short, else a "rope": a list of strs and ropes, in output order, that no enclosing container
# copies again, so each character is copied a bounded number of times, whatever the nesting. An
# open array hands its elements, every _SPILL_AT of them, to one rope of their text, so a long
# array holds no more than that many small strs. The canonical bytes are encoded from the rope
# at the end, piece by piece. Memory: the input, its decoded text, and about two copies of the
# output; but the members of an open object are held as strs until it closes (an object with
# many small members costs more, per member, than its text).

_SHORT = 512          # a closed container's text shorter than this (in characters) is one str
_SPILL_AT = 4096      # an open array's elements are made one rope every this many
_ENCODE_SLICE = 1 << 20  # a str piece longer than this is encoded slice by slice

_CANONICAL_LITERALS = {"t": ("true", "true"), "f": ("false", "false"), "n": ("null", "null")}


def _merged(parts: list) -> list:
    """A rope of parts (strs and ropes, in output order): each run of short strs joined into one
    (a long str is kept as it is, not copied, nor widened by a character of another run)."""
    rope: list = []
    run: List[str] = []
    for part in parts:
        if type(part) is str and len(part) < _SHORT:
            run.append(part)
        else:
            if run:
                rope.append("".join(run))
                run = []
            rope.append(part)
    if run:
        rope.append("".join(run))
    return rope


def _interleaved(opening: str, items: list, closing: str) -> list:
    """[opening, items[0], ",", items[1], ..., closing] (items is not empty)."""
    parts = [opening]
    for item in items:
        parts.append(item)
        parts.append(",")
    parts[-1] = closing
    return parts


def _enclosed(opening: str, inner: str, closing: str) -> Any:
    if len(inner) < _SHORT:
        return opening + inner + closing
    return [opening, inner, closing]


class _Open(_Container):
    __slots__ = ("runs", "ropes")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key = None
        self.key_index = 0
        self.dup = None
        self.runs: Optional[list] = None  # an array's spilled elements, as ropes
        self.ropes = False                # a rope or a long str among the values held


class _Canonical(Parser):
    """The parser, its hooks writing canonical text instead of building values (see above)."""

    frame_type = _Open
    literals = _CANONICAL_LITERALS
    spill_at = _SPILL_AT

    def scan_string(self, src: _Text, i: int) -> Tuple[str, int]:
        """The string at i as its canonical (escaped) text; a long one is kept apart (a rope)."""
        s, end = _scan_string(src, i)
        s = _escape(s)
        if len(s) >= _SHORT and self.stack:
            self.stack[-1].ropes = True
        return s, end

    def number(self, m: "re.Match[str]", i: int) -> str:
        return format_double(Parser.number(self, m, i))

    def spill(self, frame: Any) -> None:
        elements = frame.value
        if frame.ropes:
            rope = _merged(_interleaved("", elements, ""))
            frame.ropes = False
        else:
            rope = [",".join(elements)]
        if frame.runs is None:
            frame.runs = []
        frame.runs.append(rope)
        elements.clear()

    def close(self, frame: Any) -> Any:
        if frame.dup is not None:
            Parser.close(self, frame)  # raises
        members = frame.value
        if type(members) is list:
            if frame.runs is not None:
                value = _merged(_interleaved("[", frame.runs + members, "]"))
            elif frame.ropes:
                value = _merged(_interleaved("[", members, "]"))
            elif members:
                value = _enclosed("[", ",".join(members), "]")
            else:
                return "[]"
        elif not members:
            return "{}"
        elif not frame.ropes:
            escape = _escape
            value = _enclosed("{", ",".join([escape(key) + ":" + members[key]
                                             for key in _sorted_keys(members)]), "}")
        else:
            parts = ["{"]
            for key in _sorted_keys(members):
                parts.append(_escape(key) + ":")
                parts.append(members[key])
                parts.append(",")
            parts[-1] = "}"
            value = _merged(parts)
        if type(value) is list and self.stack:
            self.stack[-1].ropes = True  # the enclosing container holds a rope now
        return value


def _rope_bytes(value: Any) -> bytes:
    """The UTF-8 bytes of a canonical text given as a str or a rope (encoded a run of pieces at a
    time, and a long piece a slice at a time)."""
    if type(value) is str:
        return value.encode("utf-8")
    out = io.BytesIO()
    write = out.write
    run: List[str] = []
    size = 0
    stack = [iter(value)]
    while stack:
        for piece in stack[-1]:
            if type(piece) is not str:
                stack.append(iter(piece))
                break
            if len(piece) > _ENCODE_SLICE:
                write("".join(run).encode("utf-8"))
                run, size = [], 0
                for at in range(0, len(piece), _ENCODE_SLICE):
                    write(piece[at:at + _ENCODE_SLICE].encode("utf-8"))
                continue
            run.append(piece)
            size += len(piece)
            if size > _ENCODE_SLICE:
                write("".join(run).encode("utf-8"))
                run, size = [], 0
        else:
            stack.pop()
    write("".join(run).encode("utf-8"))
    return out.getvalue()


def canonicalize(data: "bytes | bytearray | memoryview", max_depth: int, strict_integers: bool) -> bytes:
    """Canonical UTF-8 bytes of a JSON text (DESIGN section 2.2), written as it is parsed."""
    return _rope_bytes(_Canonical(data, max_depth, strict_integers).parse())


def canonicalize_to(data: "bytes | bytearray | memoryview", write: Any, max_depth: int,
                    strict_integers: bool) -> None:
    """Canonicalize, then pass the result to write (only on success)."""
    write(canonicalize(data, max_depth, strict_integers))


# ---------------------------------------------------------------------------------------------------
# Digests in batches: fastjcs.digest_many and fastjcs.digest_texts
# ---------------------------------------------------------------------------------------------------
#
# `algorithm` arrives checked ("sha256" or "sha384"); the results are raw digests, rendered by the
# caller. The C backend does the same loop without coming back to Python per item.


def digest_many(objs: list, max_depth: int, algorithm: str) -> List[bytes]:
    """Raw digest of the canonical form of each object. The first failure is raised, `index` set."""
    oneshot = _hash.oneshot(algorithm)
    out: List[bytes] = []
    append = out.append
    for index, obj in enumerate(objs):
        try:
            append(oneshot(dumps(obj, max_depth)))
        except CanonicalizationError as exc:
            exc.index = index
            raise
    return out


def digest_texts(texts: List[bytes], max_depth: int, strict_integers: bool,
                 algorithm: str) -> list:
    """Per text: the raw digest of its canonical form, or the CanonicalizationError it raised.

    The errors carry `index`; their tracebacks are dropped (they would keep this frame, and so
    every result, alive; the position is in the error itself).
    """
    oneshot = _hash.oneshot(algorithm)
    out: list = []
    append = out.append
    for index, data in enumerate(texts):
        try:
            append(oneshot(canonicalize(data, max_depth, strict_integers)))
        except CanonicalizationError as exc:
            exc.index = index
            append(exc.with_traceback(None))
    return out


# ---------------------------------------------------------------------------------------------------
# JSON Lines
# ---------------------------------------------------------------------------------------------------


def split_lines(data: bytes) -> List[bytes]:
    """The lines of a JSONL text: split at b"\\n"; a final newline ends the last line rather than
    starting an empty one; empty input has no lines. (A "\\r" before the newline is JSON
    whitespace and stays with its line.)"""
    if not data:
        return []
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def digest_lines(data: "bytes | bytearray | memoryview", max_depth: int, strict_integers: bool,
                 algorithm: str) -> list:
    """digest_texts over the lines of a JSONL text (see split_lines)."""
    return digest_texts(split_lines(bytes(data)), max_depth, strict_integers, algorithm)


def lines_hex_from(results: list, data: bytes, prefix: str) -> "Tuple[bytes, int, list]":
    """digest_lines_hex's answer from digest_lines's: (output, lines, failures), see there."""
    out: List[str] = []
    failures: list = []
    starts: Optional[List[int]] = None
    size = 0
    for i, r in enumerate(results):
        if type(r) is bytes:
            line = prefix + r.hex() + "\n"
            out.append(line)
            size += len(line)
            continue
        if starts is None:
            starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
        message = (getattr(r, "msg", None) or str(r)).replace("\r", "\\r").replace("\n", "\\n")
        failures.append((i, starts[i], size, getattr(r, "offset", None), f"{type(r).__name__}: {message}"))
    return "".join(out).encode("ascii"), len(results), failures


def digest_lines_hex(data: "bytes | bytearray | memoryview", max_depth: int, strict_integers: bool,
                     algorithm: str, prefix: str) -> "Tuple[bytes, int, list]":
    """JSON Lines for the CLI: (output, lines, failures). The output holds, per line that
    canonicalizes, prefix + hex digest + "\\n". Lines that fail put nothing in the output; each
    gives a tuple (line index, line start, position of its line in the output, byte offset of the
    error in the line or None, "ErrorClass: message" on one line without the position): plain
    values, as a file of failing lines should cost little more than a file of good ones."""
    data = bytes(data)
    return lines_hex_from(digest_lines(data, max_depth, strict_integers, algorithm), data, prefix)
