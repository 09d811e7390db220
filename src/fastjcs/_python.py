"""The pure-Python backend: the reference the C core is held against.

Both backends expose the same private functions with the same signatures:

    dumps(obj, max_depth) -> bytes
    canonicalize(data: bytes-like, max_depth, strict_integers) -> bytes
    canonicalize_to(data: bytes-like, write, max_depth, strict_integers) -> None
    format_double(x: float) -> str

Nothing here recurses: containers are walked with an explicit stack, so the depth limit, not the
interpreter's recursion limit, decides how deep a value may nest.

Speed comes from letting CPython's C code do the per-character work: `json.encoder`'s
`encode_basestring` escapes exactly the RFC 8785 set (`"`, `\\`, the C0 controls, with the short
forms for \\b \\t \\n \\f \\r and lowercase `\\u00xx` otherwise, nothing else); one final
`.encode("utf-8")` refuses lone surrogates; `repr(float)` gives the shortest round-trip digits.
"""

from __future__ import annotations

import re
from json.decoder import scanstring as _scanstring
from json.encoder import encode_basestring as _escape
from typing import Any, Dict, List, Optional, Tuple

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
    if "e" not in r:
        if r.endswith(".0"):
            r = r[:-2]
            return "0" if r == "-0" else r
        if r[-1] in "fn":  # inf, -inf, nan
            raise FloatDomainError(f"{r} is not representable in JCS")
        return r
    mantissa, exp = r.split("e")
    sign = ""
    if mantissa[0] == "-":
        sign, mantissa = "-", mantissa[1:]
    if "." in mantissa:
        head, tail = mantissa.split(".")
        digits = head + tail
    else:
        digits = mantissa
    digits = digits.rstrip("0")  # repr writes "1e+16", never "1.0e+16"; this is only a guard
    # The value is 0.<digits> x 10^n.
    n = int(exp) + 1
    return sign + _layout(digits, n)


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
    return key.encode("utf-16-be")


def _sorted_keys(d: dict) -> list:
    """The member names of d in RFC 8785 order (UTF-16 code units), all checked to be str."""
    try:
        keys = sorted(d)
        joined = "".join(keys)  # refuses a name that is not a str
    except TypeError:
        raise UnsupportedTypeError("object keys must be strings") from None
    if not joined.isascii():
        if _SURROGATE.search(joined) is not None:
            raise CanonicalizationError("object key contains a lone surrogate (not UTF-8)")
        if max(joined) >= _NOT_ASCII_SORT:
            keys.sort(key=_utf16_key)
    return keys


class _Frame:
    """An open container: its remaining children and how to close it."""

    __slots__ = ("items", "index", "is_dict", "source", "ident")

    def __init__(self, items: list, is_dict: bool, source: Any, ident: int) -> None:
        self.items = items
        self.index = 0
        self.is_dict = is_dict
        self.source = source
        self.ident = ident


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
    emit = out.append
    stack: List[_Frame] = []
    open_ids: set = set()
    escape = _escape
    value = obj
    while True:
        # ---- render `value`, or open it as a container ----
        t = type(value)
        if t is str:
            emit(escape(value))
        elif t is int:
            if _INT_MIN <= value <= _INT_MAX:
                emit(str(value))
            else:
                raise _int_domain_error(value)
        elif t is float:
            emit(format_double(value))
        elif t is dict or t is list or t is tuple:
            _open(value, value, t is dict, stack, open_ids, max_depth, emit)
        elif value is None:
            emit("null")
        elif value is True:
            emit("true")
        elif value is False:
            emit("false")
        else:
            _open_or_emit_subclass(value, stack, open_ids, max_depth, emit)

        # ---- find the next value to render ----
        while stack:
            frame = stack[-1]
            i = frame.index
            if i < len(frame.items):
                frame.index = i + 1
                if frame.is_dict:
                    key = frame.items[i]
                    emit(("," if i else "{") + escape(key) + ":")
                    value = frame.source[key]
                else:
                    if i:
                        emit(",")
                    value = frame.items[i]
                break
            emit("}" if frame.is_dict else "]")
            stack.pop()
            open_ids.discard(frame.ident)
        else:
            return


def _open(value: Any, source: Any, is_dict: bool, stack: list, open_ids: set, max_depth: int,
          emit) -> None:
    """Open a container: check cycles and depth, emit an empty one at once."""
    ident = id(value)
    if ident in open_ids:
        raise CircularReferenceError("circular reference: a container contains itself")
    if len(stack) >= max_depth:
        raise DepthLimitError(f"nesting deeper than max_depth={max_depth}")
    if is_dict:
        if not source:
            emit("{}")
            return
        items = _sorted_keys(source)
    else:
        if not source:
            emit("[]")
            return
        items = source
    open_ids.add(ident)
    stack.append(_Frame(items, is_dict, source, ident))
    if not is_dict:
        emit("[")


def _open_or_emit_subclass(value: Any, stack: list, open_ids: set, max_depth: int, emit) -> None:
    """Values whose type is not exactly a JSON type: valued as rfc8785 values them."""
    if isinstance(value, bool):  # bool cannot be subclassed; kept for rfc8785's order
        emit("true" if value else "false")
    elif isinstance(value, int):
        number = int(value)
        if not _INT_MIN <= number <= _INT_MAX:
            raise _int_domain_error(number)
        emit(str(number))
    elif isinstance(value, str):
        emit(_escape(value))
    elif isinstance(value, float):
        emit(format_double(float(value)))
    elif isinstance(value, (list, tuple)):
        # The cycle check uses the identity of the original object, which list() would hide.
        ident = id(value)
        if ident in open_ids:
            raise CircularReferenceError("circular reference: a container contains itself")
        items = list(value)
        _open(value, items, False, stack, open_ids, max_depth, emit)
    elif isinstance(value, dict):
        ident = id(value)
        if ident in open_ids:
            raise CircularReferenceError("circular reference: a container contains itself")
        _open(value, dict(value), True, stack, open_ids, max_depth, emit)
    else:
        raise UnsupportedTypeError(f"unsupported type: {type(value).__name__}")


# ---------------------------------------------------------------------------------------------------
# JSON text in: canonicalize
# ---------------------------------------------------------------------------------------------------
#
# The parser is the specification the C parser mirrors, error for error and offset for offset:
#   - offsets are 0-based byte offsets into the UTF-8 input;
#   - a structural error is reported at the offending byte, or at len(data) for an early end;
#   - a bad escape at its backslash; a lone surrogate escape at the backslash of the escape that
#     is unpaired (a high surrogate not followed by an escaped low one is the culprit);
#   - invalid UTF-8 at the first byte of the sequence that does not decode (the start of
#     Python's UnicodeDecodeError); outside strings any non-ASCII byte is an unexpected character;
#   - a number token is read by the grammar -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, and
#     an error sits where the grammar needed a digit (after '-', '.', 'e' or its sign) or at a
#     digit that follows a leading zero; a literal at its first byte that does not match;
#   - a duplicate member name is reported when its object closes, at the opening quote of the
#     earliest member whose name repeats an earlier one in that object;
#   - the depth limit at the bracket that opens one container too many.

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t"}


class _Text:
    """The input and the mapping from character index to byte offset, for error reports."""

    __slots__ = ("data", "text", "ascii")

    def __init__(self, data: bytes) -> None:
        self.data = data
        # surrogateescape keeps every undecodable byte as one lone surrogate U+DC80..U+DCFF, so the
        # parser meets it at the right place and reports "invalid UTF-8" there.
        self.text = data.decode("utf-8", "surrogateescape")
        self.ascii = self.text.isascii()

    def offset(self, index: int) -> int:
        if self.ascii:
            return index
        return len(self.text[:index].encode("utf-8", "surrogateescape"))

    def fail(self, cls: type, msg: str, index: int, **kw: Any) -> "CanonicalizationError":
        return cls(msg, self.data, self.offset(index), **kw)


def _unexpected(src: _Text, i: int, what: str) -> CanonicalizationError:
    text = src.text
    if i >= len(text):
        return src.fail(InvalidJSONError, f"unexpected end of input, expected {what}", i)
    c = text[i]
    if i == 0 and c == "\ufeff":
        return src.fail(InvalidJSONError, "byte order mark (not allowed)", i)
    if "\udc80" <= c <= "\udcff":
        return src.fail(InvalidJSONError, "invalid UTF-8", i)
    return src.fail(InvalidJSONError, f"unexpected character {c!r}, expected {what}", i)


def _scan_string(src: _Text, i: int) -> Tuple[str, int]:
    """Read the string whose opening quote is at i; return (value, index after the closing quote)."""
    text = src.text
    try:
        s, end = _scanstring(text, i + 1, True)
    except ValueError:  # json.JSONDecodeError: find and report the first error ourselves
        _string_error(src, i)
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
        if "\udc80" <= c <= "\udcff":
            raise src.fail(InvalidJSONError, "invalid UTF-8", j)
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
    raise AssertionError("number grammar mismatch")  # pragma: no cover


def _scan_number(src: _Text, i: int, strict_integers: bool) -> Tuple[float, int]:
    text = src.text
    m = _NUMBER.match(text, i)
    if m is None:
        _number_error(src, i)
    end = m.end()
    nxt = text[end: end + 1]
    # The match stops early when the grammar broke inside the token: a '.' not followed by a digit
    # (only before any fraction or exponent), an 'e' without exponent digits, or a digit after a
    # leading zero. Anything else after the token is the next structural character's business.
    if nxt and (("0" <= nxt <= "9") or (nxt in "eE" and m.group(2) is None)
                or (nxt == "." and m.group(1) is None and m.group(2) is None)):
        _number_error(src, i)
    token = m.group(0)
    if strict_integers and m.group(1) is None and m.group(2) is None:
        # |value| <= 2^53 - 1 has at most 16 digits; decide on the digits, not the float. Before
        # the float: an integer token too long for a double is still an integer out of range.
        digits = token.lstrip("-")
        if len(digits) > 16 or int(digits) > _INT_MAX:
            raise src.fail(IntegerDomainError, "integer outside +/-(2^53-1)", i)
    value = float(token)
    if value == _INF or value == -_INF:
        raise src.fail(FloatDomainError, "number overflows a double", i)
    return value, end


_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}


def _literal(src: _Text, i: int) -> Tuple[Any, int]:
    text = src.text
    word, value = _LITERALS[text[i]]
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
        self.dup: Optional[Tuple[int, str]] = None  # (index, name) of the first repeated name


def parse(data: bytes, max_depth: int, strict_integers: bool = False) -> Any:
    """Parse strict JSON text into Python values (every number a float), iteratively."""
    src = _Text(data)
    text = src.text
    n = len(text)
    ws = _WS.match
    stack: List[_Container] = []
    i = ws(text, 0).end()
    while True:
        # ---- a value starts at i ----
        if i >= n:
            raise _unexpected(src, i, "a value")
        c = text[i]
        if c == '"':
            value, i = _scan_string(src, i)
        elif c == "{" or c == "[":
            if len(stack) >= max_depth:
                raise src.fail(DepthLimitError, f"nesting deeper than max_depth={max_depth}", i)
            i = ws(text, i + 1).end()
            if c == "{":
                frame = _Container({})
                stack.append(frame)
                if text[i: i + 1] == "}":
                    i += 1
                    value = stack.pop().value
                else:
                    i = _member_key(src, frame, i)
                    continue
            else:
                stack.append(_Container([]))
                if text[i: i + 1] == "]":
                    i += 1
                    value = stack.pop().value
                else:
                    continue
        elif c == "-" or "0" <= c <= "9":
            value, i = _scan_number(src, i, strict_integers)
        elif c in _LITERALS:
            value, i = _literal(src, i)
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
                if c == ",":
                    i = ws(text, i + 1).end()
                    break
                if c == "]":
                    i += 1
                    value = stack.pop().value
                    continue
                raise _unexpected(src, i, "',' or ']'")
            key = frame.key
            if key in container and frame.dup is None:
                frame.dup = (frame.key_index, key)
            container[key] = value
            if c == ",":
                i = ws(text, i + 1).end()
                i = _member_key(src, frame, i)
                break
            if c == "}":
                if frame.dup is not None:
                    at, name = frame.dup
                    raise src.fail(DuplicateKeyError, f"duplicate member name {name!r}", at,
                                   key=name)
                i += 1
                value = stack.pop().value
                continue
            raise _unexpected(src, i, "',' or '}'")


def _member_key(src: _Text, frame: _Container, i: int) -> int:
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


def canonicalize(data: "bytes | bytearray | memoryview", max_depth: int, strict_integers: bool) -> bytes:
    """Canonical UTF-8 bytes of a JSON text (DESIGN section 2.2)."""
    return dumps(parse(bytes(data), max_depth, strict_integers), max_depth)


def canonicalize_to(data: "bytes | bytearray | memoryview", write: Any, max_depth: int,
                    strict_integers: bool) -> None:
    """Canonicalize, then pass the result to write (only on success)."""
    write(canonicalize(data, max_depth, strict_integers))


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
