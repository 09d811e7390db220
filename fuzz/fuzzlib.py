"""What the atheris harnesses, the seed-corpus generator and the regression replay test share.

Two checks, each taking the raw fuzz input and raising AssertionError on a finding:

    check_text(data)   fastjcs.canonicalize on both backends: the same verdict, error class, offset
                       and output; accepted output is valid JSON and a fixed point.
    check_dumps(data)  fastjcs.dumps on a value built from the bytes (build_value): the same bytes or
                       the same exception class on both backends; output is a fixed point.
    check_walker(data) the same with Python code running during the walk (check_walker says which):
                       a __class__ that lies, a default= that converts, mutates, re-enters,
                       raises or returns another unsupported value, fastjcs.stdlib_types (bare,
                       or with a fallback that mutates), a finalizer run mid-walk.

"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import struct
import sys
import uuid
from collections import OrderedDict
from decimal import Decimal
from types import MappingProxyType
from typing import Any

DEFAULT_DEPTH = 10_000


def backends() -> tuple[Any, Any]:
    """(pure-Python backend, C backend); ImportError when the C extension is not built."""
    from fastjcs.core import native_backend as _native
    from fastjcs.core import python_backend as _python

    return _python, _native


def outcome(fn, *args) -> tuple[str, Any, Any]:
    """("ok", output, None) or ("error", class name, offset)."""
    try:
        return ("ok", fn(*args), None)
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, getattr(exc, "offset", None))


_CANON_ERRORS = {
    "InvalidJSONError",
    "DuplicateKeyError",
    "DepthLimitError",
    "FloatDomainError",
    "IntegerDomainError",
    "UnsupportedTypeError",
    "CircularReferenceError",
    "CanonicalizationError",
}


def _expected_error(result: tuple[str, Any, Any]) -> bool:
    return result[0] == "ok" or result[1] in _CANON_ERRORS


# ---- text ------------------------------------------------------------------------------------


def check_text(data: bytes) -> None:
    py, nat = backends()
    variant = len(data) % 3
    runs = [(DEFAULT_DEPTH, False)]
    if variant == 1:
        runs.append((DEFAULT_DEPTH, True))
    elif variant == 2:
        runs.append((len(data) % 5, False))
    for depth, strict in runs:
        a = outcome(nat.canonicalize, data, depth, strict)
        b = outcome(py.canonicalize, data, depth, strict)
        assert _expected_error(a), ("native raised an unexpected exception", a)
        assert _expected_error(b), ("python raised an unexpected exception", b)
        assert a == b, (a, b)
        for (kind, out, _), module in ((a, nat), (b, py)):
            if kind != "ok":
                continue
            json.loads(out)  # valid JSON (raises on a finding)
            again = outcome(module.canonicalize, out, DEFAULT_DEPTH, False)
            assert again == ("ok", out, None), (module.NAME, out, again)
    # canonicalize(text) == dumps(json.loads(text)) wherever both accept the input.
    if b[0] == "ok" and runs[-1] == (DEFAULT_DEPTH, False):
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            return
        via = outcome(py.dumps, value, DEFAULT_DEPTH)
        if via[0] == "ok":
            assert via[1] == b[1], (via, b)


# ---- values ----------------------------------------------------------------------------------
#
# build_value reads the fuzz input as a little program that builds a Python value, so that every
# mutation is still a value, and every kind of value dumps() meets can come out: the JSON types,
# their subclasses, shared and circular containers, unsupported types, non-str keys, lone
# surrogates, out-of-range ints, NaN and infinities. encode_value writes such a program for a plain
# value (the seed corpus).

(
    OP_NONE,
    OP_TRUE,
    OP_FALSE,
    OP_SMALL_INT,
    OP_INT64,
    OP_BIG_INT,
    OP_FLOAT,
    OP_STR_BYTES,
    OP_STR_CODES,
    OP_LIST,
    OP_TUPLE,
    OP_DICT,
    OP_SHARED,
    OP_CYCLE,
    OP_SUBCLASS,
    OP_UNSUPPORTED,
) = range(16)
N_OPS = 16
MAX_NEST = 40


class _Int(int):
    pass


class _Str(str):
    pass


class _Float(float):
    pass


class _List(list):
    pass


class _Tuple(tuple):
    pass


class _Dict(dict):
    pass


class _IntEnum(enum.IntEnum):
    A = 1
    B = -(2**53)


class _StrEnum(str, enum.Enum):
    X = "x"
    E = "\ue000"


class _Color(enum.Enum):  # stdlib_types writes its value
    RED = [1, "red"]
    WHEN = datetime.date(2026, 1, 2)


@dataclasses.dataclass
class _Point:  # stdlib_types writes its fields
    x: Any
    y: Any


@dataclasses.dataclass
class _Named:  # its fields renamed below: names in UTF-16 order, one escaped
    a: Any
    b: Any
    c: Any


_NAMES = ("\ue000", "\U0001f600", 'q"\x7f')
for _field, _name in zip(dataclasses.fields(_Named), _NAMES):
    _field.name = _name

if sys.version_info >= (3, 10):
    _SlotPoint: Any = dataclasses.make_dataclass("_SlotPoint", ["x", "y"], slots=True, frozen=True)
else:  # pragma: no cover - slots= is new in 3.10
    _SlotPoint = _Point


def _named(values: list) -> Any:
    value = object.__new__(_Named)
    for name, item in zip(_NAMES, values):
        setattr(value, name, item)
    return value


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.i = 0
        self.made: list[Any] = []  # containers built so far (for OP_SHARED)
        self.path: list[Any] = []  # mutable containers being built (for OP_CYCLE)

    def byte(self) -> int:
        if self.i >= len(self.data):
            return 0
        b = self.data[self.i]
        self.i += 1
        return b

    def take(self, n: int) -> bytes:
        chunk = self.data[self.i : self.i + n]
        self.i += n
        return chunk.ljust(n, b"\0")


def _float_from(raw: bytes) -> float:
    return struct.unpack("<d", raw)[0]


def _string(r: _Reader, op: int) -> str:
    n = r.byte() % 24
    if op == OP_STR_BYTES:
        # surrogateescape turns each byte that is not UTF-8 into a lone surrogate U+DC80..U+DCFF.
        return r.take(n).decode("utf-8", "surrogateescape")
    return "".join(chr(int.from_bytes(r.take(3), "little") % 0x110000) for _ in range(n % 8))


def _key(r: _Reader) -> Any:
    b = r.byte()
    kind = b % 10
    if kind < 5:
        return _string(r, OP_STR_BYTES)
    if kind < 8:
        return _string(r, OP_STR_CODES)
    if kind == 8:
        return _Str(_string(r, OP_STR_BYTES)) if b & 0x10 else _StrEnum.E
    return [1, None, 1.5, True, (1,), b"k"][(b >> 4) % 6]  # not a str: refused


def _value(r: _Reader, depth: int) -> Any:
    op = r.byte() % N_OPS
    if depth >= MAX_NEST and op in (OP_LIST, OP_TUPLE, OP_DICT, OP_SUBCLASS):
        op = OP_NONE
    if op == OP_NONE:
        return None
    if op == OP_TRUE:
        return True
    if op == OP_FALSE:
        return False
    if op == OP_SMALL_INT:
        return int.from_bytes(r.take(1), "little", signed=True)
    if op == OP_INT64:
        return int.from_bytes(r.take(8), "little", signed=True)
    if op == OP_BIG_INT:
        return int.from_bytes(r.take(r.byte() % 20), "little", signed=True)
    if op == OP_FLOAT:
        return _float_from(r.take(8))
    if op in (OP_STR_BYTES, OP_STR_CODES):
        return _string(r, op)
    if op in (OP_LIST, OP_TUPLE):
        n = r.byte() % 8
        items: list = []
        r.path.append(items)
        for _ in range(n):
            items.append(_value(r, depth + 1))
        r.path.pop()
        result = items if op == OP_LIST else tuple(items)
        r.made.append(result)
        return result
    if op == OP_DICT:
        n = r.byte() % 8
        d: dict = {}
        r.path.append(d)
        for _ in range(n):
            k = _key(r)
            d[k] = _value(r, depth + 1)
        r.path.pop()
        r.made.append(d)
        return d
    if op == OP_SHARED:
        b = r.byte()
        return r.made[b % len(r.made)] if r.made else []
    if op == OP_CYCLE:
        b = r.byte()
        return r.path[b % len(r.path)] if r.path else {}
    if op == OP_SUBCLASS:
        b = r.byte()
        kind = b % 9
        if kind == 0:
            return _Int(int.from_bytes(r.take(8), "little", signed=True))
        if kind == 1:
            return _IntEnum.A if b & 0x10 else _IntEnum.B
        if kind == 2:
            return _Str(_string(r, OP_STR_CODES))
        if kind == 3:
            return _StrEnum.X if b & 0x10 else _StrEnum.E
        if kind == 4:
            return _Float(_float_from(r.take(8)))
        inner = _value(r, depth + 1)
        if kind == 5:
            return OrderedDict(inner) if type(inner) is dict else OrderedDict(k=inner)
        if kind == 6:
            return _Dict(inner) if type(inner) is dict else _Dict(k=inner)
        if kind == 7:
            return _List(inner) if type(inner) in (list, tuple) else _List([inner])
        return _Tuple(inner) if type(inner) in (list, tuple) else _Tuple((inner,))
    # OP_UNSUPPORTED (the standard library's record types among them: fastjcs.stdlib_types takes them)
    b = r.byte()
    kind = b % 18
    if kind == 14:
        return _Point(_value(r, depth + 1), _value(r, depth + 1)) if depth < MAX_NEST else _Point(b, None)
    if kind == 15:  # digits and an exponent: plain notation, exponent notation, 1 to 5 words of 19 digits
        digits = int.from_bytes(r.take(r.byte() % 36), "little", signed=True)
        return Decimal(f"{digits}E{r.byte() % 48 - 40}")
    if kind == 16:
        return uuid.UUID(int=int.from_bytes(r.take(16), "little"))
    if kind == 17:
        if depth >= MAX_NEST:
            return _SlotPoint(b, None)
        if b & 0x10:
            return _SlotPoint(_value(r, depth + 1), _value(r, depth + 1))
        return _named([_value(r, depth + 1) for _ in _NAMES])
    return [
        set(),
        frozenset({1}),
        b"bytes",
        bytearray(b"x"),
        1j,
        Decimal("1.5"),
        object(),
        ...,
        MappingProxyType({"a": 1}),
        range(2),
        datetime.datetime(2026, 1, 2, 3, 4, 5, b, tzinfo=datetime.timezone(datetime.timedelta(minutes=b - 128))),
        datetime.time(b % 24, 0, tzinfo=None if b & 1 else datetime.timezone.utc),
        uuid.UUID(int=b << 100 | b),
        _Color.RED if b & 0x10 else _Color.WHEN,
    ][kind]


def build_value(data: bytes) -> tuple[Any, int]:
    """(value, max_depth) for a fuzz input."""
    r = _Reader(data)
    first = r.byte()
    max_depth = first - 0xF0 if first >= 0xF0 else DEFAULT_DEPTH  # a small limit, now and then
    return _value(r, 0), max_depth


def encode_value(value: Any, max_depth: int | None = None) -> bytes:
    """A program for build_value that builds `value` (plain JSON types, tuples, lone surrogates)."""
    out = bytearray([0 if max_depth is None else 0xF0 + max_depth])

    def string(s: str) -> None:
        raw = s.encode("utf-8", "surrogatepass")
        if s.isascii() and len(raw) < 24:
            out.extend([OP_STR_BYTES, len(raw)])
            out.extend(raw)
        else:  # by code points (at most 7): lone surrogates too
            codes = [ord(c) for c in s][:7]
            out.extend([OP_STR_CODES, len(codes)])
            for c in codes:
                out.extend(c.to_bytes(3, "little"))

    def walk(v: Any) -> None:
        if v is None:
            out.append(OP_NONE)
        elif v is True:
            out.append(OP_TRUE)
        elif v is False:
            out.append(OP_FALSE)
        elif type(v) is int and -128 <= v < 128:
            out.extend([OP_SMALL_INT, v & 0xFF])
        elif type(v) is int and -(2**63) <= v < 2**63:
            out.append(OP_INT64)
            out.extend(v.to_bytes(8, "little", signed=True))
        elif type(v) is int:
            raw = v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)
            out.extend([OP_BIG_INT, len(raw)])
            out.extend(raw)
        elif type(v) is float:
            out.append(OP_FLOAT)
            out.extend(struct.pack("<d", v))
        elif type(v) is str:
            string(v)
        elif type(v) in (list, tuple):
            out.extend([OP_LIST if type(v) is list else OP_TUPLE, len(v)])
            for item in v:
                walk(item)
        elif type(v) is dict:
            out.extend([OP_DICT, len(v)])
            for k, item in v.items():
                if k.isascii():
                    out.extend([0, len(k)])  # key kind 0: a str from bytes
                    out.extend(k.encode("ascii"))
                else:
                    out.append(5)  # key kind 5: a str from code points
                    codes = [ord(c) for c in k][:7]
                    out.append(len(codes))
                    for c in codes:
                        out.extend(c.to_bytes(3, "little"))
                walk(item)
        else:
            raise TypeError(f"cannot encode {type(v).__name__}")

    walk(value)
    return bytes(out)


def check_dumps(data: bytes) -> None:
    py, nat = backends()
    try:
        value, max_depth = build_value(data)
    except (ValueError, OverflowError):
        return
    a = outcome(nat.dumps, value, max_depth)
    b = outcome(py.dumps, value, max_depth)
    assert _expected_error(a), ("native raised an unexpected exception", a)
    assert _expected_error(b), ("python raised an unexpected exception", b)
    assert a[:2] == b[:2], (a, b)
    # On CPython, nat.dumps is the direct entry's walker: the marshal route (cffi) must agree too.
    c = outcome(nat._dumps_marshal, value, max_depth)
    assert a[:2] == c[:2], ("the walker and the marshal route disagree", a, c)
    if a[0] == "ok":
        out = a[1]
        json.loads(out)
        for module in (py, nat):
            again = outcome(module.canonicalize, out, DEFAULT_DEPTH, False)
            assert again == ("ok", out, None), (module.NAME, out, again)


# ---- Python code during the walk (issue 32) ------------------------------------------------------


def _claiming(base: type, claimed: type) -> type:
    return type(f"_{base.__name__}Claims{claimed.__name__}", (base,), {"__class__": property(lambda self: claimed)})


# Subclasses whose objects claim another class (isinstance follows __class__), and one whose
# __class__ is honest but is a property (Python code, no lie).
_LIARS = [
    _claiming(int, bool),
    _claiming(str, int),
    _claiming(float, int),
    _claiming(str, bool),
    _claiming(float, bool),
    _claiming(int, str),
    type("_Honest", (int,), {"__class__": property(lambda self: type(self).__mro__[0])}),
]


def _with_liars(value: Any, every: int) -> Any:
    """value with every `every`-th int, str and float (exact) replaced by a liar (chosen in turn),
    each container copied once (shared ones stay shared; one inside itself is kept as it is)."""
    count = [0]
    copies: dict[int, Any] = {}

    def swap(v: Any) -> Any:
        t = type(v)
        if t in (int, str, float):
            count[0] += 1
            if count[0] % every == 0:
                cls = _LIARS[count[0] // every % len(_LIARS)]
                try:
                    return cls(v)
                except (ValueError, TypeError, OverflowError):
                    return v
            return v
        if t not in (list, tuple, dict):
            return v
        if id(v) in copies:
            return copies[id(v)]
        copies[id(v)] = v  # while it is copied: a cycle keeps the original
        if t is dict:
            copy: Any = {k: swap(x) for k, x in v.items()}
        else:
            copy = [swap(x) for x in v]
            copy = copy if t is list else tuple(copy)
        copies[id(v)] = copy
        return copy

    return swap(value)


class _Finalized:
    """In a reference cycle, so only the collector frees it; its finalizer runs `action`."""

    def __init__(self, action: Any) -> None:
        self.action = action
        self.me = self

    def __del__(self) -> None:
        self.action()


def _mutate(root: Any) -> None:
    """What a hostile callback does to the value being walked."""
    if type(root) is dict:
        if root:
            root.pop(next(iter(root)))
        root["zz"] = [1, "late"]
    elif type(root) is list:
        if root:
            root.pop()
        root.append("late")


def _default_of(kind: int, root: Any) -> Any:
    """A default= callback of the given kind (None: no default), acting on `root`."""
    import fastjcs

    if kind == 0:
        return None
    if kind == 1:  # converts
        return lambda v: type(v).__name__
    if kind == 2:  # mutates what is being walked, then converts

        def mutating(v: Any) -> Any:
            _mutate(root)
            return [type(v).__name__]

        return mutating
    if kind == 3:  # re-enters fastjcs
        return lambda v: fastjcs.dumps({"inner": [1, type(v).__name__]}).decode()
    if kind == 4:  # raises

        def raising(v: Any) -> Any:
            raise ValueError(f"cannot convert {type(v).__name__}")

        return raising
    if kind == 5:
        return lambda v: object()  # another unsupported value, every time (the chain's bound)
    if kind == 6:
        return fastjcs.stdlib_types  # the walker writes its types itself
    return fastjcs.StdlibTypes(fallback=_default_of(2, root))  # and hands the rest to a mutating one


def check_walker(data: bytes) -> None:
    """fastjcs.dumps, digest and digest_many with Python code running during the walk. The first
    byte says what runs: bits 0-2 the kind of default= (_default_of), bit 3 liars among the
    scalars (1 in (bits 4-5) + 1), bit 6 a finalizer run by the collector mid-walk that mutates the
    value and calls fastjcs itself, bit 7 max_depth from the value's program. Each route gets a
    value built afresh from the same bytes (a mutating callback changes its own copy): the C
    backend (the direct entry's walker on CPython) and the pure-Python backend give the same bytes
    or the same exception; accepted output is a fixed point. With the finalizer (when the collector
    runs is not the same in both) only the kind of outcome is checked, and the fixed point."""
    import gc

    import fastjcs

    py, nat = backends()
    mode, rest = (data[0], data[1:]) if data else (0, b"")

    def build() -> tuple[Any, int]:
        value, max_depth = build_value(rest)
        if mode & 0x08:
            value = _with_liars(value, (mode >> 4 & 3) + 1)
        return value, max_depth if mode & 0x80 else DEFAULT_DEPTH

    try:
        build()
    except (ValueError, OverflowError):
        return
    kind = mode & 7
    allowed = _CANON_ERRORS | {"ValueError", "RuntimeError", "NonIntegerNumberError"}
    results = []
    for module in (nat, py):
        for call in ("dumps", "digest_many"):
            value, max_depth = build()
            default = _default_of(kind, value)
            if call == "dumps":
                fn, args = module.dumps, (value, max_depth, False, default)
            else:
                fn, args = module.digest_many, ([value, value], max_depth, "sha256", False, default)
            if mode & 0x40:
                logged: list = []
                gc.collect()
                gc.disable()

                def finalize(root: Any = value, logged: list = logged) -> None:
                    _mutate(root)
                    logged.append(fastjcs.dumps({"logged": [1]}))

                _Finalized(finalize)
                live = [[] for _ in range(800)]
                gc.enable()
                result = outcome(fn, *args)
                del live
                gc.collect()
                assert all(line == b'{"logged":[1]}' for line in logged), logged
            else:
                result = outcome(fn, *args)
            assert result[0] == "ok" or result[1] in allowed, (module.NAME, call, result)
            results.append((call, result))
    (nd, nm, pd, pm) = results
    if mode & 0x40:
        assert nd[1][0] == "ok" or nd[1][1] in allowed
    else:
        assert nd[1][:2] == pd[1][:2], ("dumps", nd, pd)
        assert nm[1][:2] == pm[1][:2], ("digest_many", nm, pm)
    for _call, result in (nd, pd):
        if result[0] == "ok":
            out = result[1]
            json.loads(out)
            assert outcome(nat.canonicalize, out, DEFAULT_DEPTH, False) == ("ok", out, None), out
