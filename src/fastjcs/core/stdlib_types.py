"""The standard library's record types as JSON values, one fixed way on every backend.

Audit logs, receipts and events carry datetimes, UUIDs, decimals, enums and dataclasses, which
JSON has no type for. `default=` lets each program choose a representation, but two programs that
choose differently hash the same record differently. `stdlib_types` is one choice, fixed and
documented (docs/api.md, "Standard library types"), given as the `default` of any function that
takes one:

    >>> import datetime, decimal, uuid
    >>> from fastjcs import dumps, stdlib_types
    >>> when = datetime.datetime(2026, 12, 4, 18, 30, tzinfo=datetime.timezone.utc)
    >>> dumps({"at": when, "amount": decimal.Decimal("12.50")}, default=stdlib_types)
    b'{"amount":"12.50","at":"2026-12-04T18:30:00+00:00"}'

- `datetime.datetime`, `datetime.date`, `datetime.time`: the string `value.isoformat()`
  (`2026-12-04T18:30:00+00:00`, microseconds only when there are some; an aware datetime is an
  RFC 3339 date-time, a naive one has no offset);
- `uuid.UUID`: the string `str(value)`, 36 lowercase characters;
- `decimal.Decimal`: the string `str(value)` (`"12.50"`, `"1E+3"`, `"NaN"`): every digit kept,
  where a JSON number would round it to a double;
- an `enum.Enum` member: its value (`member._value_`), itself converted where it needs to be
  (an IntEnum or StrEnum member is an int or a str already and never gets here);
- a dataclass instance: an object with a member per field (`dataclasses.fields`: ClassVar and
  InitVar pseudo-fields left out), each `getattr(value, name)`.

Anything else goes to `fallback`, if given (`StdlibTypes(fallback=f)`), or is refused as it would
be without a default: UnsupportedTypeError with its path. This module is the reference: on
CPython the direct entry's walker writes the exact types above itself (csrc/cpython/types.c),
without calling this function, and a test holds the two equal; subclasses of them, and
everything on the cffi route and the pure-Python backend, are converted by calling it.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from typing import Any, Callable

from ._direct_loader import direct as _direct
from .python_backend import _Unsupported

_FIELD = dataclasses._FIELD  # type: ignore[attr-defined]  # the marker of a field (not ClassVar, InitVar)


class StdlibTypes:
    """A `default=` for datetime, date, time, UUID, Decimal, Enum and dataclass values, each in the
    one representation this module's docstring gives; `fallback` (a callable, or None) is asked
    about any other value, as `default` is."""

    __slots__ = ("_fallback",)
    _fallback: Callable[[Any], Any] | None

    def __init__(self, fallback: Callable[[Any], Any] | None = None) -> None:
        if fallback is not None and not callable(fallback):
            raise TypeError(f"fallback must be callable or None, not {type(fallback).__name__}")
        object.__setattr__(self, "_fallback", fallback)

    @property
    def fallback(self) -> Callable[[Any], Any] | None:
        """What is asked about a value of another type (None: it is refused)."""
        return self._fallback

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: make another with StdlibTypes(fallback=...)")

    def __repr__(self) -> str:
        return "fastjcs.stdlib_types" if self._fallback is None else f"fastjcs.StdlibTypes(fallback={self._fallback!r})"

    def __call__(self, value: Any) -> Any:
        if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
            return value.isoformat()
        if isinstance(value, (uuid.UUID, decimal.Decimal)):
            return str(value)
        if isinstance(value, enum.Enum):
            return value._value_
        fields = getattr(type(value), "__dataclass_fields__", None)
        if type(fields) is dict and not isinstance(value, type):
            names = [field.name for field in list(fields.values()) if field._field_type is _FIELD]
            return {name: getattr(value, name) for name in names}
        if self._fallback is not None:
            return self._fallback(value)
        raise _Unsupported(value)  # dumps says where it is: UnsupportedTypeError with the path


#: The `default=` that writes the standard library's record types (StdlibTypes with no fallback).
stdlib_types = StdlibTypes()

if _direct is not None:
    # The direct entry's walker writes these exact types itself when `default` is a StdlibTypes;
    # the rest it hands to StdlibTypes.__call__, and an _Unsupported from that call stops the walk
    # where python_backend.resume words the error.
    # (register_types hands back type_versions, the test hook over the walker's verdicts about
    # classes kept against their version tags: cpython/type_version.c)
    _type_versions = _direct.register_types(
        StdlibTypes,
        _Unsupported,
        datetime.datetime,
        datetime.date,
        datetime.time,
        datetime.timezone,
        datetime.timedelta,
        uuid.UUID,
        decimal.Decimal,
        enum.Enum,
        _FIELD,
    )

__all__ = ["StdlibTypes", "stdlib_types"]
