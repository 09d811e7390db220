"""Hypothesis strategies shared by the differential and property tests."""

from __future__ import annotations

import enum
import struct
from collections import OrderedDict, namedtuple
from decimal import Decimal
from types import MappingProxyType

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# The `backend` fixture is function-scoped but does the same thing for every example.
with_backend = settings(
    suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture]
)

INT_MAX = 2**53 - 1


# ---- subclasses of the JSON types, valued as rfc8785 values them ----


class Color(enum.IntEnum):
    RED = 1
    MINUS = -7
    EDGE = INT_MAX
    HUGE = 2**60  # outside the domain: IntegerDomainError


if hasattr(enum, "StrEnum"):  # Python 3.11+
    _StrEnum = enum.StrEnum
else:  # what StrEnum is, before 3.11

    class _StrEnum(str, enum.Enum):
        pass


class Word(_StrEnum):
    PLAIN = "plain"
    EURO = "\u20ac uro"
    EMOJI = "\U0001f600"
    CONTROL = "tab\there"


class MyInt(int):
    def __str__(self) -> str:  # must not be used: the value is what counts
        return "not a number"


class MyFloat(float):
    def __repr__(self) -> str:
        return "not a number"


class MyStr(str):
    pass


class MyList(list):
    pass


class MyTuple(tuple):
    pass


class MyDict(dict):
    pass


Point = namedtuple("Point", "x y")


# ---- scalars ----


def _double(bits: int) -> float:
    return struct.unpack("<d", bits.to_bytes(8, "little"))[0]


# Every exponent: uniform bit patterns (NaN and the infinities included, rarely).
float_bits = st.integers(0, 2**64 - 1).map(_double)
finite_floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    float_bits.filter(lambda x: x - x == 0),
    st.sampled_from(
        [0.0, -0.0, 5e-324, -5e-324, 1e21, 1e-7, 1e-6, 1e20, 2.2250738585072014e-308, 1.7976931348623157e308]
    ),
)
floats = st.one_of(st.floats(), float_bits, st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0]))

ints = st.one_of(
    st.integers(-INT_MAX, INT_MAX),
    st.integers(INT_MAX - 3, INT_MAX + 3),
    st.integers(-INT_MAX - 3, -INT_MAX + 3),
    st.integers(-(2**70), 2**70),
    st.integers(-1000, 1000),
)
safe_ints = st.integers(-INT_MAX, INT_MAX)

_valid_chars = st.one_of(
    st.characters(codec="utf-8"),  # anything but surrogates
    st.characters(max_codepoint=0x1F),  # C0 controls
    st.characters(min_codepoint=0xE000, max_codepoint=0xFFFF),  # where UTF-16 order differs
    st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),  # astral
    st.sampled_from('"\\/\b\f\n\r\t\x7f\u2028\u2029\ufeff'),
)
valid_text = st.text(_valid_chars, max_size=12)
_any_chars = st.one_of(_valid_chars, st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
text_with_surrogates = st.text(_any_chars, min_size=1, max_size=6)
# A str that holds at least one lone surrogate (Python never pairs "\ud83d" "\ude00" in a str).
lone_surrogate_text = st.builds(
    lambda a, s, b: a + s + b, valid_text, st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), valid_text
)

keys = st.one_of(
    valid_text,
    valid_text,
    st.sampled_from(list(Word)),
    st.sampled_from(["a", "aa", "b", "\ufb33", "\U0001f600", "\ue000", "\r", "1"]),
)

# ---- JSON values that both dumps and json.loads handle exactly (for the properties) ----

json_scalars = st.one_of(st.none(), st.booleans(), safe_ints, finite_floats, valid_text)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.lists(children, max_size=5), st.dictionaries(keys.map(str), children, max_size=5)),
    max_leaves=25,
)

# ---- everything dumps may meet (for the differential) ----

unsupported = st.one_of(
    st.sets(st.integers(0, 3), max_size=2),
    st.binary(max_size=3),
    st.builds(bytearray, st.binary(max_size=3)),
    st.sampled_from(
        [Decimal("1.5"), Decimal("NaN"), complex(1, 2), object(), range(2), MappingProxyType({"a": 1}), frozenset()]
    ),
)
any_scalars = st.one_of(
    st.none(),
    st.booleans(),
    ints,
    floats,
    valid_text,
    text_with_surrogates,
    st.sampled_from(list(Color)),
    st.sampled_from(list(Word)),
    ints.map(MyInt),
    floats.map(MyFloat),
    valid_text.map(MyStr),
    unsupported,
)
any_keys = st.one_of(
    keys, keys, keys, text_with_surrogates, st.sampled_from([1, 0, -1.5, None, True, (1, 2), Color.RED, b"a"])
)


def _containers(children):
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=4).map(MyList),
        st.lists(children, max_size=4).map(MyTuple),
        st.tuples(children, children).map(lambda t: Point(*t)),
        st.dictionaries(keys, children, max_size=5),
        st.dictionaries(any_keys, children, max_size=4),
        st.dictionaries(keys, children, max_size=4).map(OrderedDict),
        st.dictionaries(keys, children, max_size=4).map(MyDict),
    )


any_values = st.recursive(any_scalars, _containers, max_leaves=25)
