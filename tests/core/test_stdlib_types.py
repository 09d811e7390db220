"""`default=fastjcs.stdlib_types`: datetimes, UUIDs, decimals, enums and dataclasses in one fixed
representation, identical on every backend and route.

Expected values come from outside fastjcs: the standard library's own `isoformat()` and `str()`,
`dataclasses.fields`, and rfc8785's canonical form of the converted value. On CPython the direct
entry writes the exact types itself (csrc/cpython/types.c) where the other routes call
`StdlibTypes.__call__`: the `backend` fixture runs each test on both backends, the cffi CI step on
the cffi route, and `layouts` runs the direct entry's two readings of a datetime (its bytes, its
attributes).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import gc
import subprocess
import sys
import typing
import uuid

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

import fastjcs
from fastjcs import StdlibTypes, stdlib_types
from fastjcs.core._direct_loader import direct

UTC = datetime.timezone.utc


class Color(enum.Enum):
    RED = "red"
    WHEN = datetime.date(2026, 1, 2)  # an enum's value converted in turn
    NESTED = (1, "two")


class Level(enum.IntEnum):  # an int already: never reaches default
    HIGH = 3


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: typing.ClassVar[str] = "left out: a ClassVar is no field"


@dataclasses.dataclass
class Shape:
    name: str
    corners: list
    origin: Point
    scale: dataclasses.InitVar[int] = 1  # an InitVar is no field either
    made: datetime.datetime = dataclasses.field(default=datetime.datetime(2026, 12, 4, tzinfo=UTC))

    def __post_init__(self, scale: int) -> None:
        self.corners = [c * scale for c in self.corners]


@dataclasses.dataclass(frozen=True)
class Frozen:
    id: uuid.UUID


class MyDate(datetime.date):  # a subclass: StdlibTypes.__call__ converts it (C defers to it)
    def isoformat(self) -> str:
        return "my " + super().isoformat()


class MyDecimal(decimal.Decimal):
    pass


class DatedRecord(datetime.date):  # looks like a dataclass too: a date first, as StdlibTypes checks
    __dataclass_fields__: typing.ClassVar[dict] = {}


def expected_plain(value):
    """value with the standard library's conversions applied by hand (the documented representation)."""
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal)):
        return str(value)
    if isinstance(value, enum.Enum):
        return expected_plain(value.value)
    if dataclasses.is_dataclass(value):
        return {f.name: expected_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: expected_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [expected_plain(v) for v in value]
    return value


def expected(value) -> bytes:
    return rfc8785.dumps(expected_plain(value))


ZONES = [
    None,
    UTC,
    datetime.timezone(datetime.timedelta(hours=5, minutes=30)),
    datetime.timezone(datetime.timedelta(hours=-8)),
    datetime.timezone(datetime.timedelta(hours=-5, minutes=-30, seconds=-7)),
    datetime.timezone(datetime.timedelta(seconds=59, microseconds=1)),
    datetime.timezone(datetime.timedelta(hours=-23, minutes=-59, seconds=-59, microseconds=-999999)),
    datetime.timezone.max,
    datetime.timezone.min,
    datetime.timezone(datetime.timedelta(0), "named zero"),
]

CASES = [
    datetime.datetime(2026, 12, 4, 18, 30),
    datetime.datetime(1, 1, 1),
    datetime.datetime(999, 9, 9, 9, 9, 9, 9),
    datetime.datetime.max,
    *[datetime.datetime(2026, 2, 28, 23, 59, 59, 100000, tzinfo=z) for z in ZONES],
    datetime.datetime(2026, 11, 1, 1, 30, fold=1),  # fold is not written
    datetime.date(2026, 12, 4),
    datetime.date(7, 1, 31),
    datetime.date.max,
    *[datetime.time(4, 5, 6, 7, tzinfo=z) for z in ZONES],
    datetime.time(0, 0),
    datetime.time.max,
    uuid.UUID(int=0),
    uuid.UUID(int=2**128 - 1),
    uuid.UUID("12345678-9abc-def0-fedc-ba9876543210"),
    uuid.uuid4(),
    decimal.Decimal("12.50"),
    decimal.Decimal("-0"),
    decimal.Decimal("1E+3"),
    decimal.Decimal("1e-30"),
    decimal.Decimal("NaN"),
    decimal.Decimal("-Infinity"),
    decimal.Decimal("3.14159265358979323846264338327950288419716939937510"),
    Color.RED,
    Color.WHEN,
    Color.NESTED,
    Point(1, 2.5),
    Shape("tri", [1, 2, 3], Point(0, 0.5), 2),
    Frozen(uuid.UUID(int=7)),
    MyDate(2026, 1, 1),
    MyDecimal("1.10"),
    DatedRecord(2026, 5, 6),
    {"at": [datetime.datetime(2026, 1, 1, tzinfo=UTC), {"id": uuid.UUID(int=1)}], "n": Level.HIGH},
]


@pytest.fixture(params=["layout", "attributes"])
def layouts(request):
    """The direct entry reading datetimes from their bytes, then from their attributes (where it
    serves: elsewhere one run, by StdlibTypes.__call__)."""
    if request.param == "attributes" and direct is None:
        pytest.skip("the direct entry is not loaded: datetimes are converted by StdlibTypes.__call__")
    if direct is None:
        yield
        return
    previous = direct.datetime_layout(request.param == "layout")
    yield
    direct.datetime_layout(previous)


@pytest.mark.parametrize("value", CASES, ids=repr)
def test_each_type_as_documented(backend, layouts, value):
    assert fastjcs.dumps(value, default=stdlib_types) == expected(value)
    assert fastjcs.dumps({"v": [value, value]}, default=stdlib_types) == expected({"v": [value, value]})


def test_the_documented_forms():
    # The forms of docs/api.md, written out: they pin the representation, not only agreement.
    when = datetime.datetime(2026, 12, 4, 18, 30, tzinfo=UTC)
    value = {
        "at": when,
        "day": when.date(),
        "naive": datetime.datetime(2026, 12, 4, 18, 30, 0, 250000),
        "id": uuid.UUID(int=255),
        "amount": decimal.Decimal("12.50"),
        "color": Color.RED,
        "point": Point(1, 2.5),
    }
    assert fastjcs.dumps(value, default=stdlib_types) == (
        b'{"amount":"12.50","at":"2026-12-04T18:30:00+00:00","color":"red","day":"2026-12-04",'
        b'"id":"00000000-0000-0000-0000-0000000000ff","naive":"2026-12-04T18:30:00.250000",'
        b'"point":{"x":1,"y":2.5}}'
    )


def test_digests_take_it_too(backend):
    value = CASES[-1]
    assert fastjcs.digest(value, default=stdlib_types) == fastjcs.digest_text(expected(value))
    assert fastjcs.digest_many([value, Point(1, 2)], default=stdlib_types) == [
        fastjcs.digest_text(expected(value)),
        fastjcs.digest_text(expected(Point(1, 2))),
    ]


offsets = st.timedeltas(
    min_value=-datetime.timedelta(hours=23, minutes=59, seconds=59, microseconds=999999),
    max_value=datetime.timedelta(hours=23, minutes=59, seconds=59, microseconds=999999),
)
zones = st.none() | st.just(UTC) | st.builds(datetime.timezone, offsets)


@given(st.lists(st.datetimes(timezones=zones) | st.dates() | st.times(timezones=zones) | st.uuids(), max_size=8))
def test_any_datetime_and_uuid(value):
    assert fastjcs.dumps(value, default=stdlib_types) == expected(value)
    if direct is not None:  # and the direct entry's other reading
        previous = direct.datetime_layout(not direct.datetime_layout())
        try:
            assert fastjcs.dumps(value, default=stdlib_types) == expected(value)
        finally:
            direct.datetime_layout(previous)


@given(st.decimals(allow_nan=True, allow_infinity=True, places=None) | st.decimals(places=3))
def test_any_decimal(value):
    assert fastjcs.dumps([value], default=stdlib_types) == expected([value])


def test_another_type_is_refused_with_its_path(backend):
    with pytest.raises(fastjcs.UnsupportedTypeError) as exc:
        fastjcs.dumps({"a": [1, Point(1, {2, 3})]}, default=stdlib_types)
    assert str(exc.value) == '$["a"][1]["y"]: unsupported type set'
    with pytest.raises(fastjcs.UnsupportedTypeError, match=r"^\$\[0\]: unsupported type object$"):
        fastjcs.dumps([object()], default=stdlib_types)
    with pytest.raises(fastjcs.UnsupportedTypeError, match=r"^\$: unsupported type datetime.timedelta$"):
        fastjcs.digest(datetime.timedelta(1), default=stdlib_types)


def test_a_fallback_takes_the_rest(backend):
    seen = []

    def fallback(value):
        seen.append(value)
        return sorted(value)

    convert = StdlibTypes(fallback=fallback)
    value = {"tags": {"b", "a"}, "at": datetime.date(2026, 1, 1)}
    assert fastjcs.dumps(value, default=convert) == b'{"at":"2026-01-01","tags":["a","b"]}'
    assert seen == [{"a", "b"}]  # asked about the set alone, once
    assert convert.fallback is fallback
    assert repr(convert) == f"fastjcs.StdlibTypes(fallback={fallback!r})"
    assert repr(stdlib_types) == "fastjcs.stdlib_types"


def test_a_fallback_error_propagates(backend):
    class Boom(Exception):
        pass

    def fallback(value):
        raise Boom(repr(value))

    with pytest.raises(Boom):
        fastjcs.dumps([datetime.date(2026, 1, 1), object()], default=StdlibTypes(fallback))


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="fallback must be callable or None, not int"):
        StdlibTypes(3)
    with pytest.raises(AttributeError, match="immutable"):
        stdlib_types._fallback = print
    assert stdlib_types.fallback is None


def test_a_subclass_of_stdlib_types_is_a_plain_default(backend):
    # Only StdlibTypes itself is recognized by the walker: a subclass that changes __call__ is called.
    class Upper(StdlibTypes):
        __slots__ = ()

        def __call__(self, value):
            return super().__call__(value).upper()

    assert fastjcs.dumps(uuid.UUID(int=255), default=Upper()) == b'"00000000-0000-0000-0000-0000000000FF"'
    assert fastjcs.dumps(datetime.date(2026, 1, 2), default=Upper()) == b'"2026-01-02"'


def test_python_code_in_the_middle(backend):
    # A field read (a property) that empties the list being walked and collects garbage, and a
    # fallback that canonicalizes (a call inside the call): an answer, never a crash. The answer
    # is the value as it is read, the list as Python's list iterator reads it: emptied while its
    # first item was converted, it has no second item.
    box: list = []

    @dataclasses.dataclass
    class Sneaky:
        n: int

        @property
        def m(self) -> int:
            return self.n

    class Hooked(Sneaky):
        def __getattribute__(self, name):
            if name == "n":
                box.clear()
                gc.collect()
            return object.__getattribute__(self, name)

    box.extend([Hooked(1), datetime.date(2026, 1, 1), uuid.UUID(int=3)])
    assert fastjcs.dumps(box, default=stdlib_types) == b'[{"n":1}]'
    assert box == []

    def nested(value):
        return fastjcs.dumps([datetime.date(2026, 1, 1), Point(1, 2)], default=stdlib_types).decode()

    inner = StdlibTypes(nested)
    assert fastjcs.dumps({"x": {1}}, default=inner) == b'{"x":"[\\"2026-01-01\\",{\\"x\\":1,\\"y\\":2}]"}'


def test_a_tzinfo_of_python_code(backend):
    calls = []

    class Zone(datetime.tzinfo):
        def utcoffset(self, dt):
            calls.append(dt)
            return datetime.timedelta(hours=1)

        def dst(self, dt):
            return None

    when = datetime.datetime(2026, 1, 1, 12, tzinfo=Zone())
    assert fastjcs.dumps([when], default=stdlib_types) == b'["2026-01-01T12:00:00+01:00"]'
    assert len(calls) == 1  # isoformat() asked once: the walker defers to the reference, no extra call


@pytest.mark.skipif(direct is None, reason="the direct entry is not loaded")
def test_the_layout_is_checked_before_use():
    assert direct.datetime_layout() is True  # the probe held on this CPython
    previous = direct.datetime_layout(False)
    assert direct.datetime_layout() is False
    direct.datetime_layout(previous)
    # before fastjcs.stdlib_types is first used, nothing is registered: the hook says so
    code = (
        "import fastjcs._direct as d\n"
        "try:\n    d.datetime_layout(True)\nexcept ValueError as e:\n    print(e)\n"
        "import fastjcs\nfastjcs.stdlib_types\nprint(d.datetime_layout(True))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.splitlines() == ["no types are registered yet (fastjcs.stdlib_types registers them)", "True"]


UUID_INTS = [0, 1, 2**30 - 1, 2**30, 2**60, 2**64 - 1, 2**64, 2**90 + 12345, 2**120 + 1, 2**127, 2**128 - 1]


def tampered_uuid(n: int) -> uuid.UUID:
    """A UUID whose int is not one of 128 bits (its slot written past __init__'s check)."""
    value = uuid.UUID(int=0)
    object.__setattr__(value, "int", n)
    return value


@pytest.fixture(params=["layout", "api"])
def int_layouts(request):
    """The direct entry reading a UUID's int from the object, then through the API."""
    if direct is None:
        yield
        return
    previous = direct.int_layout(request.param == "layout")
    yield
    direct.int_layout(previous)


@pytest.mark.parametrize("n", UUID_INTS)
def test_uuids_at_the_digit_boundaries(backend, int_layouts, n):
    # 30-bit digits: 1 to 5 of them hold 128 bits; str() is the expected text
    value = uuid.UUID(int=n)
    assert fastjcs.dumps([value], default=stdlib_types) == b'["' + str(value).encode() + b'"]'


@pytest.mark.parametrize("n", [-1, -(2**64), 2**128, 2**149 + 3, 2**150, 2**200])
def test_a_uuid_whose_int_is_not_of_128_bits(backend, int_layouts, n):
    # the reference's str(), whatever it makes of it (33 digits, a minus sign): not the walker's 32
    value = tampered_uuid(n)
    assert fastjcs.dumps([value], default=stdlib_types) == rfc8785.dumps([str(value)])
