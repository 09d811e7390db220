"""jcs-n over Python values: the top-level exclusion, the wire rules, and the normal form.

jcs-n (the contract in the docs): first drop the top-level members named in the exclusion set; then remove every object
member whose value is null, [] or {}, children first, so that a member which becomes {} once its
own members are gone is removed too. Array elements are never removed, but normalization recurses
into them (`{"outer":[{"x":null}]}` -> `{"outer":[{}]}`; `[null]` stays); a top-level object may
become {}. Member names and strings are left exactly as they are (no NFC on output).

The same walk enforces the rules a Python value can break: no floats at all, integers within
+/-(2^53-1), member names of one object distinct after NFC normalization, str keys. It is
post-order with an explicit stack (never the Python stack), detects cycles, and stops at the depth
limit exactly where `fastjcs.dumps` would.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from ..core.api import refuse_single
from ..core.errors import CircularReferenceError, DepthLimitError, UnsupportedTypeError
from ..core.parser import INT_MAX
from ._scan import Path, format_path, nfc
from .errors import DuplicateNameError, NonIntegerNumberError, UnsafeIntegerError


def exclusion_names(exclusion_set: Iterable[str]) -> tuple[str, ...]:
    """The exclusion set as a tuple of exact names; a bare str, bytes-like object or mapping is
    refused (it would iterate characters, bytes or keys)."""
    refuse_single(exclusion_set, "exclusion_set takes a collection of member names", "to exclude one name pass [name]")
    names = tuple(exclusion_set)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"exclusion_set holds member names (str), not {type(name).__name__}")
    return names


def exclude(value: Any, names: tuple[str, ...]) -> Any:
    """The payload minus the top-level members named in `names` (compared exactly); nested
    members of the same name stay. A value that is not an object is returned as it is."""
    if names and isinstance(value, dict):
        return {k: v for k, v in dict(value).items() if k not in names}
    return value


class _Open:
    """A container being normalized: its children, the copy being built, where the walk is."""

    __slots__ = ("items", "index", "out", "ident", "key", "names")

    def __init__(self, items: list[Any], out: Any, ident: int) -> None:
        self.items = items
        self.index = 0
        self.out = out
        self.ident = ident
        self.key: str | None = None
        self.names: dict[str, str] | None = {} if type(out) is dict else None  # NFC form -> name


def _path(stack: list[_Open]) -> Path:
    # An object's frame on the stack is inside a member, whose name it holds (a str: _check_name
    # refuses any other key with the path of the frames above that member's).
    return tuple(cast(str, f.key) if type(f.out) is dict else f.index - 1 for f in stack)


def _empty(v: Any) -> bool:
    return v is None or (type(v) in (dict, list) and not v)


def normal_form(value: Any, max_depth: int) -> Any:
    """The jcs-n normal form of `value` (fresh dicts and lists; leaves shared), checking the rules."""
    stack: list[_Open] = []
    open_ids: set[int] = set()
    while True:
        # ---- look at `value`: a leaf becomes `result`; a non-empty container is opened ----
        result: Any = value
        opened = False
        if isinstance(value, (dict, list, tuple)) and not isinstance(value, (str, bytes)):
            ident = id(value)
            if ident in open_ids:
                raise CircularReferenceError(
                    f"circular reference: a container contains itself at {format_path(_path(stack))}"
                )
            if len(stack) >= max_depth:
                raise DepthLimitError(f"nesting deeper than max_depth={max_depth}")
            if isinstance(value, dict):
                items = list(dict(value).items())
                result = {}
            else:
                items = list(value)
                result = []
            if items:
                open_ids.add(ident)
                stack.append(_Open(items, result, ident))
                opened = True
        elif isinstance(value, float):
            raise NonIntegerNumberError(
                f"{value!r} is a float; jcs-n carries integers only (write an exact decimal string)",
                format_path(_path(stack)),
            )
        elif isinstance(value, int) and not isinstance(value, bool):
            if not -INT_MAX <= int(value) <= INT_MAX:
                raise UnsafeIntegerError(f"integer {int(value)} is outside +/-(2^53-1)", format_path(_path(stack)))

        # ---- hand results up; step to the next child ----
        while True:
            if opened:
                frame = stack[-1]
                opened = False
            else:
                if not stack:
                    return result
                frame = stack[-1]
                if type(frame.out) is dict:
                    if not _empty(result):
                        frame.out[frame.key] = result
                else:
                    frame.out.append(result)
            if frame.index < len(frame.items):
                child = frame.items[frame.index]
                frame.index += 1
                if frame.names is not None:
                    key, value = child
                    frame.key = key
                    _check_name(frame.names, key, stack)
                else:
                    value = child
                break
            stack.pop()
            open_ids.discard(frame.ident)
            result = frame.out


def _check_name(names: dict[str, str], key: Any, stack: list[_Open]) -> None:
    if not isinstance(key, str):
        raise UnsupportedTypeError(
            f"object keys must be strings, not {type(key).__name__}, at {format_path(_path(stack[:-1]))}"
        )
    form = nfc(key)
    first = names.setdefault(form, key)
    if first is not key and first != key:
        raise DuplicateNameError(
            f"member name {key!r} equals {first!r} after NFC normalization", format_path(_path(stack)), key=key
        )
