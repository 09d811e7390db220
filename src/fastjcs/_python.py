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

import re
from json.decoder import scanstring as _scanstring
from json.encoder import encode_basestring as _escape
from typing import Any, List, Optional, Tuple

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
#   - offsets are 0-based byte offsets into the UTF-8 input;
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


_BLOCK = 1024  # characters between two marks of the character -> byte offset map


class _Text:
    """The input and the mapping from character index to byte offset, for error reports.

    For a text that is not ASCII, `marks[k]` is the byte offset of character k * _BLOCK, filled as
    far as the offsets asked for need: an offset then costs the encoding of at most _BLOCK
    characters, whatever its place and the order of the questions.
    """

    __slots__ = ("data", "text", "ascii", "marks")

    def __init__(self, data: bytes) -> None:
        self.data = data
        # surrogateescape keeps every undecodable byte as one lone surrogate U+DC80..U+DCFF, so the
        # parser meets it at the right place and reports "invalid UTF-8" there.
        self.text = data.decode("utf-8", "surrogateescape")
        self.ascii = self.text.isascii()
        self.marks = [0]

    def offset(self, index: int) -> int:
        if self.ascii:
            return index
        text, marks = self.text, self.marks
        block = index // _BLOCK
        while len(marks) <= block:
            start = (len(marks) - 1) * _BLOCK
            marks.append(marks[-1] + _utf8_len(text[start:start + _BLOCK]))
        return marks[block] + _utf8_len(text[block * _BLOCK:index])

    def fail(self, cls: type, msg: str, index: int, **kw: Any) -> "CanonicalizationError":
        return cls(msg, self.data, self.offset(index), **kw)


def _utf8_len(chars: str) -> int:
    return len(chars.encode("utf-8", "surrogateescape"))


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
    c = src.text[i] if i < len(src.text) else None
    return src.fail(InvalidJSONError, unexpected_message(c, i == 0, what), i)


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
        self.dup: Any = None  # what the first repeated name needs for its error


class Parser:
    """The strict JSON parser: one loop over the text, with an explicit stack.

    `parse()` returns Python values (every number a float). Three hooks say what a number is worth,
    how a member is stored and what closing an object checks; the CPB scanner (fastjcs.cpb._scan)
    extends them to record token-level findings, and so refuses exactly what this parser refuses,
    at the same place. `stack` holds the open containers (frames of `frame_type`).
    """

    frame_type: type = _Container

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

    def close(self, frame: Any) -> None:
        """An object ends: refuse it if a name repeated."""
        if frame.dup is not None:
            at, name = frame.dup
            raise self.src.fail(DuplicateKeyError, f"duplicate member name {name!r}", at, key=name)

    # ---- the loop ----

    def parse(self) -> Any:
        src = self.src
        text = src.text
        n = len(text)
        ws = _WS.match
        stack = self.stack
        new_frame = self.frame_type
        number, store, close = self.number, self.store, self.close
        i = ws(text, 0).end()
        while True:
            # ---- a value starts at i ----
            if i >= n:
                raise _unexpected(src, i, "a value")
            c = text[i]
            if c == '"':
                value, i = _scan_string(src, i)
            elif c == "{" or c == "[":
                if len(stack) >= self.max_depth:
                    raise src.fail(DepthLimitError, f"nesting deeper than max_depth={self.max_depth}", i)
                i = ws(text, i + 1).end()
                if c == "{":
                    frame = new_frame({})
                    stack.append(frame)
                    if text[i: i + 1] == "}":
                        i += 1
                        value = stack.pop().value
                    else:
                        i = _member_key(src, frame, i)
                        continue
                else:
                    stack.append(new_frame([]))
                    if text[i: i + 1] == "]":
                        i += 1
                        value = stack.pop().value
                    else:
                        continue
            elif c == "-" or "0" <= c <= "9":
                m = _match_number(src, i)
                value = number(m, i)
                i = m.end()
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
                store(frame, frame.key, value)
                if c == ",":
                    i = ws(text, i + 1).end()
                    i = _member_key(src, frame, i)
                    break
                if c == "}":
                    close(frame)
                    i += 1
                    value = stack.pop().value
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


def canonicalize(data: "bytes | bytearray | memoryview", max_depth: int, strict_integers: bool) -> bytes:
    """Canonical UTF-8 bytes of a JSON text (DESIGN section 2.2)."""
    return dumps(parse(bytes(data), max_depth, strict_integers), max_depth)


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
        failures.append((i, starts[i], size, r))
    return "".join(out).encode("ascii"), len(results), failures


def digest_lines_hex(data: "bytes | bytearray | memoryview", max_depth: int, strict_integers: bool,
                     algorithm: str, prefix: str) -> "Tuple[bytes, int, list]":
    """JSON Lines for the CLI: (output, lines, failures). The output holds, per line that
    canonicalizes, prefix + hex digest + "\\n"; each failure is (line index, line start, position
    of its line in the output, the exception). Lines that fail put nothing in the output."""
    data = bytes(data)
    return lines_hex_from(digest_lines(data, max_depth, strict_integers, algorithm), data, prefix)
