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
from fastjcs.core import python_backend
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
    if direct is not None:  # and the direct entry's other reading (str() where it reads the object)
        previous = direct.datetime_layout(not direct.datetime_layout())
        try:
            assert fastjcs.dumps([value], default=stdlib_types) == expected([value])
        finally:
            direct.datetime_layout(previous)


DECIMALS = [
    "0.000001",
    "0.0000001",
    "-0.000001234",
    "0E-6",
    "0E-7",
    "-0.00",
    "1E+1",
    "100",
    "12345678901234567890",
    "1234567890123456789.0123456789012345678",
    "0.12345678901234567890123456789012345678901234567890123456789",
    "9" * 76,
    "9" * 77,
    "1" + "0" * 80 + "E-85",
    "-7.5E-3",
    "sNaN",
    "-NaN12",
]


@pytest.mark.parametrize("text", DECIMALS)
def test_decimals_at_the_edges_of_plain_notation(backend, layouts, text):
    # plain notation down to an adjusted exponent of -6; the coefficient across 1 to 4 words of
    # 19 digits, and past them (not held in the object); str() is the expected text
    value = decimal.Decimal(text)
    assert fastjcs.dumps([value], default=stdlib_types) == rfc8785.dumps([str(value)])


def test_decimals_of_eight_digits_or_fewer(backend):
    # Most amounts: a coefficient of 1 to 8 digits, written from one register (decimal_layout.c's
    # eight_or_fewer), at every exponent of plain notation: its digits before the point, after
    # it, or after "0." and up to 5 zeros; str() is the expected text.
    values = []
    for n in range(1, 9):
        for coefficient in {10 ** (n - 1), 10**n - 1, int("12345678"[:n]), int("90807060"[:n])} | (
            {0} if n == 1 else set()
        ):
            for exp in range(0, -(n + 7), -1):
                for sign in (1, -1):
                    values.append(decimal.Decimal((0 if sign > 0 else 1, tuple(map(int, str(coefficient))), exp)))
    assert fastjcs.dumps(values, default=stdlib_types) == rfc8785.dumps([str(v) for v in values])


def test_a_decimal_in_a_context_with_small_e(backend):
    # exponent notation follows the thread's context (capitals): str() is asked for it
    with decimal.localcontext() as ctx:
        ctx.capitals = 0
        value = [decimal.Decimal("1E+3"), decimal.Decimal("12.5")]
        assert fastjcs.dumps(value, default=stdlib_types) == b'["1e+3","12.5"]'


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
    # and the Decimal probe (sample Decimals read from their layout against str()): a reading that
    # gets one wrong leaves every Decimal to str(), right and slow, and is caught here
    if sys.implementation.name == "cpython" and sys.byteorder == "little" and sys.maxsize > 2**32:
        assert direct.decimal_layout() is True
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


# ---- Dataclasses: the walker writes their members itself (csrc/cpython/dataclass.c) ----------------


def by_reference(value, max_depth: int = 10_000):
    """The pure-Python backend with StdlibTypes.__call__: its bytes, or its error (type, text)."""
    try:
        return python_backend.dumps(value, max_depth, False, stdlib_types)
    except Exception as exc:  # noqa: BLE001 - the error is the answer compared
        return type(exc), str(exc)


def by_fastjcs(value, max_depth: int = 10_000):
    try:
        return fastjcs.dumps(value, default=stdlib_types, max_depth=max_depth)
    except Exception as exc:  # noqa: BLE001
        return type(exc), str(exc)


def test_a_changed_dataclass_is_read_again(backend):
    # The walker keeps the order of each class's member names: a field added, renamed, made a
    # ClassVar, or __dataclass_fields__ replaced, is what the next dumps writes.
    @dataclasses.dataclass
    class Rec:
        b: int
        a: int

    rec = Rec(1, 2)
    assert fastjcs.dumps([rec, rec], default=stdlib_types) == b'[{"a":2,"b":1},{"a":2,"b":1}]'
    fields = Rec.__dataclass_fields__
    rec.c = 3
    extra = dataclasses.field()
    extra.name, extra._field_type = "c", fields["a"]._field_type
    fields["c"] = extra  # a field added in place (the dict's size changes)
    assert fastjcs.dumps(rec, default=stdlib_types) == b'{"a":2,"b":1,"c":3}'
    fields["c"].name = "b"  # renamed in place (the dict's size does not change): "b" twice
    assert fastjcs.dumps(rec, default=stdlib_types) == by_reference(rec) == b'{"a":2,"b":1}'
    fields["c"].name = "0"
    rec.__dict__["0"] = "zero"
    assert fastjcs.dumps(rec, default=stdlib_types) == b'{"0":"zero","a":2,"b":1}'
    fields["a"]._field_type = dataclasses._FIELD_CLASSVAR  # no member any more
    assert fastjcs.dumps(rec, default=stdlib_types) == b'{"0":"zero","b":1}'
    Rec.__dataclass_fields__ = {"b": fields["b"]}  # replaced
    assert fastjcs.dumps(rec, default=stdlib_types) == b'{"b":1}'
    Rec.__dataclass_fields__ = [fields["b"]]  # no dict: no dataclass, refused
    assert by_fastjcs(rec) == by_reference(rec)
    assert by_fastjcs(rec)[0] is fastjcs.UnsupportedTypeError


def test_a_subclass_adds_its_fields(backend):
    @dataclasses.dataclass
    class Base:
        z: int = 1

    @dataclasses.dataclass
    class Child(Base):
        a: str = "x"

    value = [Base(), Child(), Base(), Child(2, "y")]
    assert fastjcs.dumps(value, default=stdlib_types) == b'[{"z":1},{"a":"x","z":1},{"z":1},{"a":"y","z":2}]'


def test_member_names_in_utf16_order(backend):
    # U+E000 and up sort after a supplementary character in UTF-16 (before it in UTF-8 and code
    # points); names that need escaping are escaped
    names = ["\ue000", "\U0001f600", "a", "\u00e9", 'quote"', "z" * 40, "\x7f"]
    Wide = dataclasses.make_dataclass("Wide", [f"f{i}" for i in range(len(names))])
    value = Wide(*range(len(names)))
    for i, name in enumerate(names):  # names no identifier can have: the fields renamed
        Wide.__dataclass_fields__[f"f{i}"].name = name
        setattr(value, name, i)
    text = fastjcs.dumps([value, value], default=stdlib_types)
    assert text == rfc8785.dumps([dict(zip(names, range(len(names))))] * 2)
    assert text.index("\U0001f600".encode()) < text.index("\ue000".encode())


@pytest.mark.parametrize("options", [{"slots": True}, {"frozen": True}, {"slots": True, "frozen": True}], ids=repr)
def test_slots_and_frozen_dataclasses(backend, options):
    if sys.version_info < (3, 10) and "slots" in options:
        pytest.skip("slots= is new in 3.10")
    Rec = dataclasses.make_dataclass("Rec", [("when", datetime.date), ("n", int)], **options)
    value = {"r": Rec(datetime.date(2026, 12, 4), 5)}
    assert fastjcs.dumps(value, default=stdlib_types) == b'{"r":{"n":5,"when":"2026-12-04"}}'


def test_field_names_that_are_not_plain(backend):
    @dataclasses.dataclass
    class Odd:
        a: int = 1
        b: int = 2

    odd = Odd()
    Odd.__dataclass_fields__["b"].name = 7  # not a str: getattr refuses it, as in the reference
    assert by_fastjcs(odd) == by_reference(odd)
    assert by_fastjcs(odd)[0] is TypeError
    Odd.__dataclass_fields__["b"].name = "\ud800"  # a lone surrogate
    setattr(odd, "\ud800", 3)
    assert by_fastjcs(odd) == by_reference(odd)
    assert by_fastjcs(odd)[0] is fastjcs.CanonicalizationError


def test_errors_inside_dataclasses_name_their_path(backend):
    @dataclasses.dataclass
    class Inner:
        p: object
        q: int = 0

    @dataclasses.dataclass
    class Outer:
        a: list
        b: object = None

    cases = [
        Outer([Inner({1})]),  # refused inside the inner dataclass
        {"x": Outer([1, Inner(0, 2**60)], b=Inner(1))},  # an int past 2^53, then members after it
        [Outer([]), Outer([Inner(float("nan"))])],
        Outer([Inner(1)], b=Level.HIGH),
    ]
    for value in cases:
        assert by_fastjcs(value) == by_reference(value), value
    assert by_fastjcs(cases[0]) == (fastjcs.UnsupportedTypeError, '$["a"][0]["p"]: unsupported type set')


def test_a_walk_handed_over_inside_a_dataclass(backend):
    # A member the walker leaves to the Python side (an int subclass with a hook): resume goes on
    # from the dataclass's dict, the members after it included, without reading them again.
    reads = []

    class Hooked(int):
        def __int__(self):
            return 5

    @dataclasses.dataclass
    class Rec:
        a: int
        b: object
        c: datetime.date

        def __getattribute__(self, name):
            reads.append(name)
            return object.__getattribute__(self, name)

    value = {"r": Rec(1, Hooked(9), datetime.date(2026, 1, 2)), "s": Rec(2, 3, datetime.date(2026, 1, 3))}
    expected_text = by_reference(value)
    reads.clear()
    assert fastjcs.dumps(value, default=stdlib_types) == expected_text
    assert reads.count("a") == 2  # each instance's members read once


def test_a_dataclass_that_holds_itself(backend):
    @dataclasses.dataclass
    class Loop:
        me: object = None

    loop = Loop()
    loop.me = loop
    for depth in (1, 5, 40, 100):
        assert by_fastjcs(loop, depth) == by_reference(loop, depth)
    assert by_fastjcs(loop, 40)[0] is fastjcs.DepthLimitError
    box: list = []
    holder = Loop(box)
    box.append(holder)  # a cycle through a list: the list is the container met twice
    assert by_fastjcs([holder]) == by_reference([holder])
    assert by_fastjcs([holder])[0] is fastjcs.CircularReferenceError


def test_a_known_dataclass_past_the_depth_limit(backend):
    # Once its class is known (its members' order kept), a dataclass is opened on the short path:
    # the depth limit holds there too, at every depth around it.
    fastjcs.dumps(Point(0, 0.5), default=stdlib_types)  # Point known
    value = [[Point(1, 2.5)]]
    for depth in (1, 2, 3, 4):
        assert by_fastjcs(value, depth) == by_reference(value, depth)
    assert by_fastjcs(value, 2)[0] is fastjcs.DepthLimitError
    assert by_fastjcs(value, 3) == b'[[{"x":1,"y":2.5}]]'


def test_a_known_dataclass_with_an_attribute_lookup_of_its_own(backend):
    # A class whose __getattribute__ is its own (honest about __class__): its members are what
    # getattr gives, on the first instance and on those read once the class is known.
    @dataclasses.dataclass
    class Scaled:
        a: int
        b: str

        def __getattribute__(self, name):
            got = object.__getattribute__(self, name)
            return got * 10 if name == "a" else got

    value = [Scaled(1, "x"), Scaled(2, "y"), [Scaled(3, "z")]]
    for _ in range(2):
        assert fastjcs.dumps(value, default=stdlib_types) == (b'[{"a":10,"b":"x"},{"a":20,"b":"y"},[{"a":30,"b":"z"}]]')
    assert fastjcs.dumps(value, default=stdlib_types) == expected(value)


def test_the_path_of_a_value_met_before_in_a_dataclass(backend):
    # A list written inside a dataclass, then met again past the depth limit: the path is the
    # first place it is met, inside the dataclass (the reference records what default made)
    shared = [1]

    @dataclasses.dataclass
    class Holder:
        items: list

    value = [Holder(shared), [[[shared]]]]
    assert by_fastjcs(value, 3) == by_reference(value, 3)
    assert by_fastjcs(value, 3) == (fastjcs.DepthLimitError, by_reference(value, 3)[1])


def test_a_field_read_that_changes_the_class(backend):
    # Reading a member adds a field to the class: the instance being read is written with the
    # names read before (the reference's order), the next ones with the new field.
    @dataclasses.dataclass
    class Growing:
        a: int = 1

        def __getattribute__(self, name):
            fields = type(self).__dataclass_fields__
            if name == "a" and "b" not in fields:
                extra = dataclasses.field()
                extra.name, extra._field_type = "b", fields["a"]._field_type
                fields["b"] = extra
            return object.__getattribute__(self, name)

    Growing.b = 2
    value = [Growing(), Growing(), Growing()]
    assert fastjcs.dumps(value, default=stdlib_types) == b'[{"a":1},{"a":1,"b":2},{"a":1,"b":2}]'
    del Growing.__dataclass_fields__["b"]
    ours = by_fastjcs(value)
    del Growing.__dataclass_fields__["b"]
    assert ours == by_reference(value)


def test_a_uuid_class_whose_attribute_lookup_is_python_code(backend, monkeypatch):
    # uuid.UUID given a __getattribute__ that claims another __class__: isinstance follows it, and
    # so does the walker, which reads an exact UUID by itself only while its lookup is the generic one
    def claims_a_dict(self, name):
        return dict if name == "__class__" else object.__getattribute__(self, name)

    value = [uuid.UUID(int=5), {"id": uuid.UUID(int=6)}]
    plain = by_fastjcs(value)
    monkeypatch.setattr(uuid.UUID, "__getattribute__", claims_a_dict)
    assert by_fastjcs(value) == by_reference(value) != plain
    monkeypatch.undo()
    assert by_fastjcs(value) == plain == by_reference(value)


def test_a_field_class_changed_after_registration(backend, monkeypatch):
    # dataclasses.Field's name made a property: the walker reads a Field's slots only while the
    # class's descriptors are the ones found at registration
    @dataclasses.dataclass
    class Rec:
        a: int = 1
        b: int = 2

    rec = Rec()
    rec.renamed = "r"
    assert fastjcs.dumps(rec, default=stdlib_types) == b'{"a":1,"b":2}'
    monkeypatch.setattr(dataclasses.Field, "name", property(lambda field: "renamed"))
    assert by_fastjcs(rec) == by_reference(rec) == b'{"renamed":"r"}'
    monkeypatch.undo()
    assert fastjcs.dumps(rec, default=stdlib_types) == b'{"a":1,"b":2}'


def test_a_uuid_class_whose_int_is_python_code(backend, monkeypatch):
    # uuid.UUID.int made a property that empties the dict being written: the reference reads the
    # property (str(uuid) reads self.int) and then finds the later member gone; a walker that read
    # the patched class as shipped (its int a slot: no Python code, nothing counted) wrote the
    # member it read when the dict opened, without the error
    shipped = uuid.UUID.__dict__["int"]
    five = uuid.UUID(int=5)  # (made before the patch: UUID() sets its int through the slot)

    def made():
        return {"a": five, "".join(["k"] * 30): "v"}  # the name only the dict holds

    value = made()

    def int_that_empties(self):
        value.clear()
        return shipped.__get__(self)

    monkeypatch.setattr(uuid.UUID, "int", property(int_that_empties))
    removed = (RuntimeError, "dictionary changed during canonicalization: a member was removed")
    assert by_fastjcs(value) == removed
    value = made()
    assert by_reference(value) == removed
    monkeypatch.undo()
    assert fastjcs.dumps(made(), default=stdlib_types) == (
        b'{"a":"00000000-0000-0000-0000-000000000005","kkkkkkkkkkkkkkkkkkkkkkkkkkkkkk":"v"}'
    )


def test_a_uuid_class_with_a_str_of_its_own(backend, monkeypatch):
    # uuid.UUID given another __str__ after registration: StdlibTypes writes str(value), so the
    # walker, which writes the hex of the int itself, leaves such a UUID to the reference
    value = {"id": uuid.UUID(int=5), "ids": [uuid.UUID(int=6)]}
    monkeypatch.setattr(uuid.UUID, "__str__", lambda self: f"uuid-{self.int}")
    assert by_fastjcs(value) == by_reference(value) == b'{"id":"uuid-5","ids":["uuid-6"]}'
    monkeypatch.undo()
    assert fastjcs.dumps(value, default=stdlib_types) == (
        b'{"id":"00000000-0000-0000-0000-000000000005","ids":["00000000-0000-0000-0000-000000000006"]}'
    )
