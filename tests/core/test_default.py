"""`default=`: a callable for values of other types, as json.dumps and orjson take it, applied the
same way on every backend (and on both native routes); errors name where the bad value is.

Expected values: the canonical form of the value with default's results written in by hand.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid

import pytest

import fastjcs


class Mode(enum.Enum):
    FAST = "fast"


@dataclasses.dataclass
class Point:
    x: int
    y: float


def convert(value):
    if isinstance(value, (datetime.date, decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot convert {type(value).__name__}")


VALUE = {
    "when": datetime.datetime(2026, 12, 1, 22, 13),
    "amount": decimal.Decimal("10.50"),
    "id": uuid.UUID(int=255),
    "mode": Mode.FAST,
    "at": Point(1, 2.5),
    "tags": {"b", "a"},
    "plain": [1, None],
}
EXPECTED = (
    b'{"amount":"10.50","at":{"x":1,"y":2.5},"id":"00000000-0000-0000-0000-0000000000ff",'
    b'"mode":"fast","plain":[1,null],"tags":["a","b"],"when":"2026-12-01 22:13:00"}'
)


def test_default_on_every_backend(backend):
    assert fastjcs.dumps(VALUE, default=convert) == EXPECTED
    assert fastjcs.digest(VALUE, default=convert) == fastjcs.digest_text(EXPECTED)
    assert fastjcs.digest_many([VALUE, [Mode.FAST]], default=convert) == [
        fastjcs.digest_text(EXPECTED),
        fastjcs.digest_text(b'["fast"]'),
    ]


def test_default_is_called_once_per_value_and_not_for_json_values(backend):
    seen = []

    def record(value):
        seen.append(value)
        return "x"

    when = datetime.date(2026, 1, 1)
    assert fastjcs.dumps({"a": [when, 1, "s", None], "b": when}, default=record) == b'{"a":["x",1,"s",null],"b":"x"}'
    assert seen == [when, when]


def test_errors_name_the_place(backend):
    value = {"items": [0, 1, 2, {"when": datetime.date(2026, 1, 1)}]}
    with pytest.raises(
        fastjcs.UnsupportedTypeError, match=r'^\$\["items"\]\[3\]\["when"\]: unsupported type datetime\.date$'
    ):
        fastjcs.dumps(value)
    with pytest.raises(fastjcs.UnsupportedTypeError, match=r"^\$: unsupported type object$"):
        fastjcs.dumps(object())
    # inside what default returned: the place of the value it was asked about, then within
    with pytest.raises(fastjcs.UnsupportedTypeError, match=r'^\$\["a"\]\[1\]: unsupported type object$'):
        fastjcs.dumps({"a": {1}}, default=lambda v: [1, object()] if isinstance(v, set) else v)
    # an exception of default's own propagates
    with pytest.raises(TypeError, match="cannot convert complex"):
        fastjcs.dumps([1j], default=convert)


def test_what_default_returns_is_bounded(backend):
    # asked again about what it returned, up to a bound, then refused
    with pytest.raises(fastjcs.UnsupportedTypeError):
        fastjcs.dumps(object(), default=lambda v: v)
    # what it returns nests within max_depth
    with pytest.raises(fastjcs.DepthLimitError):
        fastjcs.dumps(object(), default=lambda v: [v], max_depth=50)
    assert fastjcs.dumps({1, 2}, default=lambda v: [[sorted(v)]], max_depth=3) == b"[[[1,2]]]"
    with pytest.raises(fastjcs.DepthLimitError):
        fastjcs.dumps({1, 2}, default=lambda v: [[sorted(v)]], max_depth=2)


def test_default_must_be_callable():
    with pytest.raises(TypeError, match="default must be callable"):
        fastjcs.dumps(1, default=3)


def test_default_on_the_marshal_route(native, monkeypatch):
    # PyPy and CPython 3.9 take the marshal route: the same answer there.
    assert native._dumps(VALUE, 10_000, False, convert) == EXPECTED
    assert native._dumps([1, 2], 10_000, False, convert) == b"[1,2]"
    # marshal writes sets: the C reader refuses one, and default answers for it
    assert native._dumps({"a": {2, 1}, "b": 1}, 10_000, False, convert) == b'{"a":[1,2],"b":1}'
    with pytest.raises(fastjcs.UnsupportedTypeError, match=r'^\$\["a"\]: unsupported type set$'):
        native._dumps({"a": {2, 1}}, 10_000, False, None)
