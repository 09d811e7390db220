"""The pure-Python backend: the reference the C core is held against.

It implements every operation of the backend interface (`fastjcs.core.protocol.Backend`), as
the C backend does, with the same answers and the same exceptions. JSON text is read by the
strict parser (`fastjcs.core.parser`); the JSON Lines helpers are `fastjcs.core.jsonl_split`.

Nothing here recurses: containers are walked with an explicit stack, so the depth limit, not the
interpreter's recursion limit, decides how deep a value may nest.

Speed comes from letting CPython's C code do the per-character work: `json.encoder`'s
`encode_basestring` escapes exactly the RFC 8785 set (`"`, `\\`, the C0 controls, with the short
forms for \\b \\t \\n \\f \\r and lowercase `\\u00xx` otherwise, nothing else); one final
`.encode("utf-8")` refuses lone surrogates; `repr(float)` gives the shortest round-trip digits.

Kept whole (about 730 lines): the whole backend interface in one module, as `native_backend` holds
the C side's; the two are read and held to one interface side by side
(tests/core/test_backend_interface.py).
"""

from __future__ import annotations

import io
import re
from json.encoder import encode_basestring as _escape
from typing import Any, Callable

from . import hashing
from .errors import (
    CanonicalizationError,
    CircularReferenceError,
    DepthLimitError,
    FloatDomainError,
    IntegerDomainError,
    NonIntegerNumberError,
    UnsupportedTypeError,
)
from .jsonl_split import lines_hex_from, split_lines
from .parser import INT_MAX, SURROGATE, Frame, Parser, Text, scan_string

NAME = "python"

_INT_MIN = -INT_MAX

# ---------------------------------------------------------------------------------------------------
# Numbers: ECMA-262 Number::toString, as RFC 8785 section 3.2.2.3 adopts it
# ---------------------------------------------------------------------------------------------------


def format_double(x: float) -> str:
    """Format a float as ECMAScript does. Raises FloatDomainError for NaN and the infinities.

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
    e = int(r[i + 1 :])  # repr's exponent: the value is d1.d2...dk x 10^e
    if e < -6 or e > 20:
        # Exponent notation in both: the same digits; repr pads the exponent to two digits.
        return r[: i + 2] + r[i + 3 :] if -10 < e < 0 else r
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
        raise _BadKey(d) from None
    if not joined.isascii():
        if SURROGATE.search(joined) is not None:
            raise CanonicalizationError("object key contains a lone surrogate (not UTF-8)")
        if max(joined) >= _NOT_ASCII_SORT:
            keys.sort(key=_utf16_key)
    return keys


def dumps(obj: Any, max_depth: int, integers_only: bool = False, default: Any = None) -> bytes:
    """Canonical UTF-8 bytes of a Python value (the contract in the docs, "Python values in"), iteratively.
    With `integers_only`, every float is refused (NonIntegerNumberError). `default`, when given, is
    called with each value of another type and its result written in the value's place."""
    out: list[str] = []
    made: list[tuple[Any, Any]] = []  # (value, what default made of it), for the error's path
    fmt = _refuse_float if integers_only else format_double
    return _finish(obj, out, made, lambda: _write(obj, max_depth, out, fmt, default, made))


def resume(
    obj: Any,
    max_depth: int,
    integers_only: bool,
    default: Any,
    written: str,
    frames: list,
    pending: Any,
    chain: int,
    made: list,
) -> bytes:
    """dumps(obj, ...) continued from where another reader of obj (the direct entry's walker)
    stopped: it has written `written`, has `frames` open (outermost first: (list or tuple, index
    of its next item), or (dict, its names not yet written, in order)), `made` records what
    default made of what (value, result), and `pending` is the value it was about to write (the
    chain-th result of default in a row). What follows is exactly what dumps does from there, so
    nothing the walker did runs again (a hook, default) and every error is dumps's."""
    out: list[str] = [written]
    fmt = _refuse_float if integers_only else format_double
    stack: list = [(iter(()), None, 0, "")]
    open_ids: set = set()
    for container, where in frames:
        if type(container) is dict:
            stack.append((iter(where), container, id(container), "}"))
        else:
            it = iter(container)
            it.__setstate__(where)
            stack.append((it, None, id(container), "]"))
        open_ids.add(id(container))

    def run() -> None:
        if not _open(pending, stack, open_ids, max_depth + 1, out.append, fmt, default, made, chain):
            out.append(",")
        _loop(stack, open_ids, max_depth + 1, out, fmt, default, made)

    return _finish(obj, out, made, run)


def _finish(obj: Any, out: list[str], made: list, run: Callable[[], None]) -> bytes:
    """run() (which writes obj's canonical text into out), then its bytes; the errors as dumps
    raises them."""
    try:
        run()
    except _Unsupported as exc:
        _encode(out)  # a lone surrogate already written is the first error
        raise UnsupportedTypeError(f"{_path_to(obj, exc.value, made)}: {exc}") from None
    except _OutOfDomain as exc:
        _encode(out)
        raise IntegerDomainError(f"{_path_to(obj, exc.value, made)}: {exc}") from None
    except CanonicalizationError:
        # Strings are checked for lone surrogates by the final encode, all at once. rfc8785 checks
        # each string as it writes it, so when a string already written holds one, that error is
        # the first in document order and is the one to report.
        _encode(out)
        raise
    return _encode(out)


class _Unsupported(UnsupportedTypeError):
    """A value of a type JCS cannot carry, met by _open: dumps raises the UnsupportedTypeError that
    names where it is (this one never leaves dumps)."""

    def __init__(self, value: Any) -> None:
        super().__init__(f"unsupported type {type_name(type(value))}")
        self.value = value


class _BadKey(_Unsupported):
    """An object (the value) with a member name that is not a str: the first such name is named."""

    def __init__(self, value: Any) -> None:
        key = next((k for k in value if not isinstance(k, str)), None)
        UnsupportedTypeError.__init__(
            self, f"object keys must be strings, not {type_name(type(key))} (the key {_short_repr(key)})"
        )
        self.value = value


class _OutOfDomain(IntegerDomainError):
    """An int outside +/-(2^53-1), met by _write (the value, as found in the document): dumps raises
    the IntegerDomainError that names where it is (this one never leaves dumps)."""

    def __init__(self, message: str, value: Any) -> None:
        super().__init__(message)
        self.value = value


def type_name(t: type) -> str:
    """A type as an error names it: builtins by their name (`set`), any other with its module
    (`numpy.bool`, `datetime.date`), so that a type named like a builtin is not taken for it."""
    module = getattr(t, "__module__", None)
    name = getattr(t, "__qualname__", None) or t.__name__
    return name if module in (None, "builtins") else f"{module}.{name}"


def _short_repr(value: Any, limit: int = 40) -> str:
    """repr(value), cut to about `limit` characters (a key may be any object: a long tuple)."""
    try:
        text = repr(value)
    except Exception:  # a repr that fails says nothing more
        return f"<{type_name(type(value))} object>"
    if len(text) <= limit:
        return text
    return text[: limit - 4] + "...)" if text.endswith(")") else text[: limit - 3] + "..."


def _path_to(obj: Any, target: Any, made: list) -> str:
    """Where `target` is in `obj`, as a JSONPath-like string (`$["items"][3]["when"]`), met in
    the order dumps meets values (names in canonical order), looking inside what `default` made
    (`made`, recorded as dumps went: default is not called again). Iterative, as dumps is."""
    replaced = {id(value): result for value, result in made}
    stack: list[tuple[Any, str, int]] = [(obj, "$", 0)]
    seen: set[int] = set()
    while stack:
        value, path, chain = stack.pop()
        if value is target:
            return path
        if id(value) in replaced and chain <= DEFAULT_CHAIN:
            stack.append((replaced[id(value)], path, chain + 1))
        elif isinstance(value, (dict, list, tuple)) and id(value) not in seen:
            seen.add(id(value))
            if isinstance(value, dict):
                try:
                    names = _sorted_keys(value)
                except CanonicalizationError:
                    names = list(value)
                children = [(value[name], f"{path}[{_json_name(name)}]") for name in names if name in value]
            else:
                children = [(item, f"{path}[{i}]") for i, item in enumerate(value)]
            stack.extend((child, where, 0) for child, where in reversed(children))
    return "$"  # pragma: no cover - the value changed meanwhile


def _json_name(name: Any) -> str:
    return '"' + _escape(name)[1:-1] + '"' if isinstance(name, str) else repr(name)


def _encode(out: list[str]) -> bytes:
    try:
        return "".join(out).encode("utf-8")
    except UnicodeEncodeError:
        raise CanonicalizationError("string contains a lone surrogate (not UTF-8)") from None


def _int_domain_error(number: int, value: Any = None) -> IntegerDomainError:
    """The error of an int outside +/-(2^53-1): the number, abbreviated (a 331-digit one is not
    printed whole), why it is refused and what to do; `value` is the object in the document (an
    int subclass's, when `number` is its int), for the path dumps puts in front."""
    return _OutOfDomain(
        f"{abbreviated_int(number)} exceeds safe integer domain for JSON floats, +/-(2^53-1): dumps "
        "never rounds an int (canonicalize rounds the same JSON text to the nearest double); "
        "give float(n) to round it, or a str to keep its digits",
        number if value is None else value,
    )


def abbreviated_int(n: int) -> str:
    """An int as an error shows it: whole up to 30 digits, else its first and last digits and its
    length (str() of an int beyond sys.get_int_max_str_digits(), 4,300 digits by default, raises
    ValueError: past 10,000 bits only the size is said)."""
    if n.bit_length() > 10_000:
        return f"an integer of {n.bit_length()} bits"
    text = str(n)
    digits = len(text) - (text[0] == "-")
    return text if digits <= 30 else f"{text[:12]}...{text[-6:]} ({digits} digits)"


def _refuse_float(x: float) -> str:
    """format_double's stand-in under integer-only JCS: every float is refused, 1.0 and -0.0 too."""
    raise NonIntegerNumberError(f"{float.__repr__(x)} is a float; integers_only allows integers only")


def _write(
    obj: Any,
    max_depth: int,
    out: list[str],
    fmt: Callable[[float], str] = format_double,
    default: Any = None,
    made: list | None = None,
) -> None:
    """Append the canonical text of obj to out, as str pieces.

    The stack holds one entry per open container: (iterator over its elements, or over its sorted
    names for an object; the dict for an object, else None; its id; its closing bracket). The
    document itself sits in a one-element pseudo-array at the bottom, so every value, the top one
    included, is written by the same loops. Every element is followed by a "," piece of its own;
    when a container closes, its bracket replaces the "," after its last element.

    The scalar cases are written out in both loops below, not called: a call per value costs
    more than all the rest of the work on a typical document.
    """
    stack: list[tuple[Any, Any, int, str]] = [(iter((obj,)), None, 0, "")]
    _loop(stack, set(), max_depth + 1, out, fmt, default, made)  # the pseudo-array does not count


def _loop(
    stack: list, open_ids: set, limit: int, out: list[str], fmt: Callable[[float], str], default: Any, made: Any
) -> None:
    """_write's loops, from the stack given (resume starts them part way)."""
    emit = out.append
    escape = _escape
    lo, hi = _INT_MIN, INT_MAX
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
                elif _open(value, stack, open_ids, limit, emit, fmt, default, made):
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
                elif _open(value, stack, open_ids, limit, emit, fmt, default, made):
                    break
                emit(",")
            else:
                stack.pop()
                out[-1] = closer
                open_ids.discard(ident)
                emit(",")


# How many times in a row `default` may be asked about what it returned itself (orjson's bound).
DEFAULT_CHAIN = 254


def _open(
    value: Any,
    stack: list,
    open_ids: set,
    limit: int,
    emit,
    fmt: Callable[[float], str],
    default: Any = None,
    made: list | None = None,
    chain: int = 0,
) -> bool:
    """A value that is not a str, int, float, bool or None of the exact type.

    Opens a non-empty container (pushes it and returns True), or emits the value (an empty
    container, or a subclass of a scalar type, valued as rfc8785 values it) and returns False.
    A value of another type is refused (UnsupportedTypeError with the type's name and the value),
    or given to `default`, whose result takes its place.
    """
    t = type(value)
    if value is None:  # (only from default: the loops write None themselves)
        emit("null")
        return False
    if t is dict or t is list or t is tuple:
        source = value
    elif isinstance(value, bool):  # bool cannot be subclassed; kept for rfc8785's order
        emit("true" if value else "false")
        return False
    elif isinstance(value, int):
        number = int(value)
        if not _INT_MIN <= number <= INT_MAX:
            raise _int_domain_error(number, value)
        emit(str(number))
        return False
    elif isinstance(value, str):
        emit(_escape(value))
        return False
    elif isinstance(value, float):
        emit(fmt(float(value)))
        return False
    elif isinstance(value, (list, tuple, dict)):
        source = None  # copied to the plain type below, once the checks pass
    elif default is not None and chain < DEFAULT_CHAIN:
        replacement = default(value)
        if made is not None:
            made.append((value, replacement))
        return _open(replacement, stack, open_ids, limit, emit, fmt, default, made, chain + 1)
    else:
        raise _Unsupported(value)
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

_SHORT = 512  # a closed container's text shorter than this (in characters) is one str
_SPILL_AT = 4096  # an open array's elements are made one rope every this many
_ENCODE_SLICE = 1 << 20  # a str piece longer than this is encoded slice by slice

_CANONICAL_LITERALS = {"t": ("true", "true"), "f": ("false", "false"), "n": ("null", "null")}


def _merged(parts: list) -> list:
    """A rope of parts (strs and ropes, in output order): each run of short strs joined into one
    (a long str is kept as it is, not copied, nor widened by a character of another run)."""
    rope: list = []
    run: list[str] = []
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


class _Open(Frame):
    __slots__ = ("runs", "ropes")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key = None
        self.key_index = 0
        self.dup = None
        self.runs: list | None = None  # an array's spilled elements, as ropes
        self.ropes = False  # a rope or a long str among the values held


class _Canonical(Parser):
    """The parser, its hooks writing canonical text instead of building values (see above)."""

    frame_type = _Open
    literals = _CANONICAL_LITERALS
    spill_at = _SPILL_AT

    def scan_string(self, src: Text, i: int) -> tuple[str, int]:
        """The string at i as its canonical (escaped) text; a long one is kept apart (a rope)."""
        s, end = scan_string(src, i)
        s = _escape(s)
        if len(s) >= _SHORT and self.stack:
            self.stack[-1].ropes = True
        return s, end

    def number(self, m: re.Match[str], i: int) -> str:
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
            value = _enclosed("{", ",".join([escape(key) + ":" + members[key] for key in _sorted_keys(members)]), "}")
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
    run: list[str] = []
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
                    write(piece[at : at + _ENCODE_SLICE].encode("utf-8"))
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


def canonicalize(
    data: bytes | bytearray | memoryview, max_depth: int, strict_integers: bool, integers_only: bool = False
) -> bytes:
    """Canonical UTF-8 bytes of a JSON text (the contract in the docs, "JSON text in"), written as it is parsed."""
    return _rope_bytes(_Canonical(data, max_depth, strict_integers, integers_only).parse())


def canonicalize_to(
    data: bytes | bytearray | memoryview, write: Any, max_depth: int, strict_integers: bool, integers_only: bool = False
) -> None:
    """Canonicalize, then pass the result to write (only on success)."""
    write(canonicalize(data, max_depth, strict_integers, integers_only))


# ---------------------------------------------------------------------------------------------------
# Digests in batches: fastjcs.digest_many and fastjcs.digest_texts
# ---------------------------------------------------------------------------------------------------
#
# `algorithm` arrives checked ("sha256" or "sha384"); the results are raw digests, rendered by the
# caller. The C backend does the same loop without coming back to Python per item.


def digest(obj: Any, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None) -> str:
    """The rendered digest "<algorithm>:<hex>" of the canonical form of a value."""
    return hashing.render(algorithm, hashing.oneshot(algorithm)(dumps(obj, max_depth, integers_only, default)))


def digest_text(data: Any, max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False) -> str:
    """The rendered digest "<algorithm>:<hex>" of the canonical form of a JSON text."""
    canonical = canonicalize(data, max_depth, strict_integers, integers_only)
    return hashing.render(algorithm, hashing.oneshot(algorithm)(canonical))


def digest_many(
    objs: list, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None
) -> list[bytes]:
    """Raw digest of the canonical form of each object. The first failure is raised, `index` set."""
    oneshot = hashing.oneshot(algorithm)
    out: list[bytes] = []
    append = out.append
    for index, obj in enumerate(objs):
        try:
            append(oneshot(dumps(obj, max_depth, integers_only, default)))
        except CanonicalizationError as exc:
            exc.index = index
            raise
    return out


def digest_many_rendered(
    objs: list, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None
) -> list[str]:
    """digest_many's digests rendered "<algorithm>:<hex>"."""
    return [hashing.render(algorithm, raw) for raw in digest_many(objs, max_depth, algorithm, integers_only, default)]


def digest_texts(
    texts: list[bytes], max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
) -> list:
    """Per text: the raw digest of its canonical form, or the CanonicalizationError it raised.

    The errors carry `index`; their tracebacks are dropped (they would keep this frame, and so
    every result, alive; the position is in the error itself).
    """
    oneshot = hashing.oneshot(algorithm)
    out: list = []
    append = out.append
    for index, data in enumerate(texts):
        try:
            append(oneshot(canonicalize(data, max_depth, strict_integers, integers_only)))
        except CanonicalizationError as exc:
            exc.index = index
            append(exc.with_traceback(None))
    return out


# ---------------------------------------------------------------------------------------------------
# JSON Lines
# ---------------------------------------------------------------------------------------------------


def digest_lines(
    data: bytes | bytearray | memoryview,
    max_depth: int,
    strict_integers: bool,
    algorithm: str,
    integers_only: bool = False,
) -> list:
    """digest_texts over the lines of a JSONL text (see split_lines)."""
    return digest_texts(split_lines(bytes(data)), max_depth, strict_integers, algorithm, integers_only)


def digest_lines_hex(
    data: bytes | bytearray | memoryview,
    max_depth: int,
    strict_integers: bool,
    algorithm: str,
    prefix: str,
    integers_only: bool = False,
) -> tuple[bytes, int, list]:
    """JSON Lines for the CLI: (output, lines, failures). The output holds, per line that
    canonicalizes, prefix + hex digest + "\\n". Lines that fail put nothing in the output; each
    gives a tuple (line index, line start, position of its line in the output, byte offset of the
    error in the line or None, "ErrorClass: message" on one line without the position): plain
    values, as a file of failing lines should cost little more than a file of good ones."""
    data = bytes(data)
    return lines_hex_from(digest_lines(data, max_depth, strict_integers, algorithm, integers_only), data, prefix)
