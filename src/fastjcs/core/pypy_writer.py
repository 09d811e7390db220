"""PyPy's writer of Python values: `native_backend` calls `dumps` below on PyPy only.

On PyPy, marshal.dumps is slow (most of the marshal route's time) and a cffi call is cheap, so a
value is written by Python code the JIT compiles, calling C only to format floats (the thread's
lender) and to check the output (below): 1.2-3x the marshal route's speed by benchmarks/pypy.py
(docs/performance.md, "PyPy").
The writer reads only the exact types dict (names of type str), list, tuple, str, int, float,
bool and None, none of which runs Python code when read; it does not recurse (an explicit stack,
as the pure-Python backend). At anything else (a subclass, another type, an integer outside
+/-(2^53-1), NaN or an infinity, a float under integers_only, nesting beyond max_depth, which a
cycle reaches, a lone surrogate, which the final encode refuses) it raises _Leave having called no
hook and no `default`, and the marshal route answers for the value, or raises its error, from the
start. Strings are written as they are, and the whole output is checked by one C call
(fjcs_quote_count: no byte below 0x20 and no backslash, and two quotes per string and name, so no
string held a character to escape): a search per string cost a third of an EAB object's time.
When the check fails, the value is written again, each string that needs it escaped by
json.encoder's encode_basestring (the pure-Python backend's: the RFC 8785 set). Member names are
sorted as str, and by their UTF-16 code units where the two orders differ (a name at or above
U+E000); each short name's text, '{"name":' and ',"name":', escaped, is kept in bounded tables
(`_FIRST`, `_NEXT`), as names recur (a name with an escape fails the check, as a string does). An
object whose values are all strings, integers and literals (an EAB object) is written by a loop
of its own (`_write_flat`), without the stack.

With `native_backend`, `native_errors`, `native_hash`, `native_stream` and `arrow_native`, one of
the modules that touch cffi's `ffi` and `lib`: the thread's lender (`native_backend`'s, handed in as
`lender_of`) formats floats, and `fjcs_quote_count` checks the output.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .._native_ext import ffi, lib  # ImportError here means: not built
from . import python_backend as _python

try:
    from __pypy__.builders import StringBuilder
except ImportError:
    StringBuilder = None


class _Leave(Exception):
    """Raised by dumps for a value it leaves to the marshal route (it never leaves native_backend)."""


LEAVES = (_Leave, UnicodeEncodeError, KeyError, IndexError)  # the last two: changed meanwhile
_needs_escape = re.compile(r'[\x00-\x1f"\\]').search
_escape = _python._escape
_utf16_key = _python._utf16_key
_FIRST: dict[str, str] = {}  # name -> '{"name":' (the first member)
_NEXT: dict[str, str] = {}  # name -> ',"name":' (the others)
_NAMES_KEPT = 4096  # the tables are emptied when they hold this many
_NAME_KEPT = 64  # the longest name kept, in characters
_SAFE = 2**53 - 1
_quote_count = lib.fjcs_quote_count
# Whether the next value starts with each string escaped: set when a value needed an escape, cleared
# when a value written so needed none. Values with escapes tend to follow each other (a document
# held in a loop, records of one source): each would otherwise be written twice (1.5-1.7x the time
# of escaping each string, for the `strings` corpus). Shared by threads: a race costs time, never
# an answer, as both ways write the same bytes.
_escape_first = False
_format_double = lib.fjcs_lender_format_double
_string, _DONE = ffi.string, b"\0"


def _name_piece(name: str, first: bool) -> str:
    """The text of a member name, its separator before it ('{' first, else ','), ':' after it."""
    text = _escape(name) if _needs_escape(name) is not None else '"' + name + '"'
    if len(name) <= _NAME_KEPT:
        if len(_FIRST) >= _NAMES_KEPT:
            _FIRST.clear()
            _NEXT.clear()
        _FIRST[name] = "{" + text + ":"
        _NEXT[name] = "," + text + ":"
    return "{" + text + ":" if first else "," + text + ":"


def _sorted_names(d: dict) -> list:
    """The names of d in RFC 8785 order; _Leave unless every name is an exact str (checked before
    sorting: sorting a str subclass would call its comparison)."""
    ascii_only = True
    for name in d:
        if type(name) is not str:
            raise _Leave
        if not name.isascii():
            ascii_only = False
    names = sorted(d)
    if not ascii_only and max("".join(names)) >= _python._NOT_ASCII_SORT:
        names.sort(key=_utf16_key)  # UnicodeEncodeError (a lone surrogate) leaves
    return names


def dumps(obj: Any, max_depth: int, integers_only: bool, lender_of: Callable[[], Any]) -> bytes:
    """Canonical bytes of a value of exact JSON types, by Python code the JIT compiles (PyPy):
    strings as they are and the output checked, unless the last value written needed an escape;
    written again with each string escaped when the check fails (the first writing's output is
    let go of first: a large document is not held twice)."""
    if not _escape_first:
        data = _write_flat(obj) if type(obj) is dict and max_depth > 0 else None
        if data is None:  # not an object of strings, integers and literals: the whole writer
            data = _write(obj, max_depth, integers_only, lender_of, False)
        if data:  # else None or b"": the check failed
            return data
    return _write(obj, max_depth, integers_only, lender_of, True)


def _write_flat(d: dict) -> Any:
    """The canonical bytes of a non-empty dict whose values are all strings, integers, booleans and
    None (an EAB object), with strings as they are and checked; b"" when the check fails, None for
    any other dict (before reading more than its names and some values: nothing runs Python code).
    The loop of `_write` without its stack and its dispatch on containers: 12% faster on EAB."""
    if not d:
        return None
    names = _sorted_names(d)
    out = StringBuilder()
    append = out.append
    first_get, next_get = _FIRST.get, _NEXT.get
    strings = len(names)  # the names, two quotes each, and the strings below
    first = True
    for name in names:
        piece = first_get(name) if first else next_get(name)
        if piece is None:
            piece = _name_piece(name, first)
        first = False
        x = d[name]
        t = type(x)
        append(piece)
        if t is str:
            append('"')
            append(x)
            append('"')
            strings += 1
        elif t is int and -_SAFE <= x <= _SAFE:
            append(str(x))
        elif x is None:
            append("null")
        elif x is True:
            append("true")
        elif x is False:
            append("false")
        else:
            return None  # a container, a float, a large integer, another type: _write's
    append("}")
    data = out.build().encode("utf-8")  # UnicodeEncodeError: a lone surrogate
    return data if _quote_count(data, len(data)) == 2 * strings else b""


def _write(obj: Any, max_depth: int, integers_only: bool, lender_of: Callable[[], Any], escape_each: bool) -> Any:
    """The canonical bytes, with each string escaped (`escape_each`, and `_escape_first` set to
    whether one needed it), or strings as they are and None when the check finds one that needs
    an escape."""
    global _escape_first
    escaped = False  # a string was escaped
    out = StringBuilder()
    append = out.append
    needs_escape, escape, first_get, next_get = _needs_escape, _escape, _FIRST.get, _NEXT.get
    lender = None
    strings = 0  # the strings and names written, two quotes each
    # The open containers: (items, next index, count, the dict or None, closing bracket); the
    # value itself is the one item of a pseudo-array with no brackets.
    stack: list[tuple[Any, int, int, Any, str]] = []
    items: Any = (obj,)
    d: Any = None
    i, n, closer = 0, 1, ""
    while True:
        if i < n:
            if d is None:
                x = items[i]
                if i:
                    append(",")
            else:
                name = items[i]
                piece = next_get(name) if i else first_get(name)
                if piece is None:
                    piece = _name_piece(name, not i)
                append(piece)
                strings += 1
                x = d[name]
            i += 1
            t = type(x)
            if t is str:
                if escape_each and needs_escape(x) is not None:
                    append(escape(x))
                    escaped = True
                else:
                    append('"')
                    append(x)
                    append('"')
                strings += 1
            elif t is int:
                if -_SAFE <= x <= _SAFE:
                    append(str(x))
                else:
                    raise _Leave
            elif t is float:
                if integers_only:
                    raise _Leave
                if lender is None:
                    lender = lender_of()
                p = _format_double(lender, x)
                if not p:
                    raise _Leave  # NaN, an infinity (or out of memory)
                append(_string(p).decode("ascii"))
                p[-1] = _DONE
            elif t is dict:
                if len(stack) >= max_depth:
                    raise _Leave
                if x:
                    stack.append((items, i, n, d, closer))
                    items = _sorted_names(x)
                    d, i, n, closer = x, 0, len(items), "}"
                else:
                    append("{}")
            elif t is list or t is tuple:
                if len(stack) >= max_depth:
                    raise _Leave
                if x:
                    stack.append((items, i, n, d, closer))
                    append("[")
                    items, d, i, n, closer = x, None, 0, len(x), "]"
                else:
                    append("[]")
            elif x is None:
                append("null")
            elif x is True:
                append("true")
            elif x is False:
                append("false")
            else:
                raise _Leave
        elif stack:
            append(closer)
            items, i, n, d, closer = stack.pop()
        else:
            data = out.build().encode("utf-8")  # UnicodeEncodeError: a lone surrogate
            if escape_each:
                if _escape_first is not escaped:
                    _escape_first = escaped
                return data
            if not strings or _quote_count(data, len(data)) == 2 * strings:  # no strings: nothing to escape
                return data
            return None  # a string needs an escape
