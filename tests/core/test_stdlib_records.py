"""`default=fastjcs.stdlib_types` on the values of records, each reading the direct entry makes
without asking Python swept across its cases (issue 31: the faster readings of
csrc/cpython/decimal_layout.c and csrc/cpython/dataclass.c).

Expected values come from the standard library (`str()` of a Decimal) and from the pure-Python
backend (`python_backend.dumps`, which reads every attribute as Python does, each time). On routes
without the direct entry these run through `StdlibTypes.__call__` and hold all the same.
"""

from __future__ import annotations

import dataclasses
import decimal
import gc

import rfc8785

import fastjcs
from fastjcs import StdlibTypes, stdlib_types
from fastjcs.core import python_backend


def one_word_decimals() -> list[decimal.Decimal]:
    """Every coefficient length a word of libmpdec holds (1 to 19 digits, every digit value in
    each position over the lengths), at every exponent of plain notation (0 down to an adjusted
    exponent of -6) and the first of exponent notation below it, with both signs."""
    out = []
    for digits in range(1, 20):
        coefficient = tuple((7 * i + digits) % 10 for i in range(digits))
        coefficient = (coefficient[0] or 1,) + coefficient[1:]  # no leading zero
        for exp in range(0, -(digits + 7), -1):
            for sign in (0, 1):
                out.append(decimal.Decimal((sign, coefficient, exp)))
    out += [decimal.Decimal((s, (0,), e)) for s in (0, 1) for e in range(0, -8, -1)]
    out += [decimal.Decimal(10**k) for k in range(20)] + [decimal.Decimal(10**k - 1) for k in range(1, 20)]
    return out


def test_decimals_of_one_word_are_str():
    # the one-word path (csrc/cpython/decimal_layout.c, one_word) writes with fixed-size copies
    # past the digits' end; its probe's samples leave most lengths and points untried: this does
    # not (a copy of 16 bytes where 20 are needed, say, loses the last digits of "1.234...56789")
    values = one_word_decimals()
    assert fastjcs.dumps(values, default=stdlib_types) == rfc8785.dumps([str(v) for v in values])
    for v in values:  # one at a time too: what lies past the text in the buffer is not kept
        assert fastjcs.dumps({"d": v, "e": 1}, default=stdlib_types) == rfc8785.dumps({"d": str(v), "e": 1})


# ---- a dataclass's __dataclass_fields__ changed in place -----------------------------------------
# The direct entry reads a class's Field objects from where it found them while the dict keeps
# its version (csrc/cpython/type_version.h, dict_version): each change below gives the dict a new
# one, so the Fields are read through the dict again, as the reference reads them.


def make_point():
    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    return Point


def renamed(field: dataclasses.Field, name: str) -> dataclasses.Field:
    """A new Field object, of the same kind as field, named name."""
    other = dataclasses.field()
    other.name, other._field_type = name, field._field_type  # type: ignore[attr-defined]
    return other


def both(value, default=stdlib_types) -> tuple:
    """fastjcs's answer and the pure-Python backend's."""
    return fastjcs.dumps(value, default=default), python_backend.dumps(value, 10_000, False, default)


def test_a_field_replaced_in_place_between_calls():
    point = make_point()
    p = point(1, 2)
    p.z = 3
    for _ in range(3):  # warm: the Fields kept with the dict's version
        assert both([p, p]) == (b'[{"x":1,"y":2},{"x":1,"y":2}]',) * 2
    fields = point.__dataclass_fields__
    old = fields["y"]
    fields["y"] = renamed(old, "z")  # the dict's size and keys unchanged, its item another Field
    assert both([p, p]) == (b'[{"x":1,"z":3},{"x":1,"z":3}]',) * 2
    del old  # the Field read before is freed (read after it, ASan says so: bash .ci/asan.sh)
    gc.collect()
    fields["y"] = renamed(fields["y"], "y")
    assert both([p, p]) == (b'[{"x":1,"y":2},{"x":1,"y":2}]',) * 2


def test_a_field_moved_and_removed_in_place_between_calls():
    point = make_point()
    p = point(1, 2)
    fields = point.__dataclass_fields__
    assert both([p, p])[0] == b'[{"x":1,"y":2},{"x":1,"y":2}]'
    fields["x"] = fields.pop("x")  # the same Fields, in another order
    assert both([p, p]) == (b'[{"x":1,"y":2},{"x":1,"y":2}]',) * 2
    del fields["x"]
    assert both([p, p]) == (b'[{"y":2},{"y":2}]',) * 2
    fields.clear()
    assert both([p, p]) == (b"[{},{}]",) * 2


def test_a_field_replaced_in_place_in_the_middle_of_a_call():
    point = make_point()
    p = point(1, 2)
    p.z = 3
    fields = point.__dataclass_fields__
    replaced = []

    def fallback(value):  # between two instances of the one call
        replaced.append(fields["y"])
        fields["y"] = renamed(fields["y"], "z")
        return "t"

    value = [p, p, Trigger(), p, p]
    for _ in range(2):
        ours = fastjcs.dumps(value, default=StdlibTypes(fallback))
        fields["y"] = replaced.pop()
        theirs = python_backend.dumps(value, 10_000, False, StdlibTypes(fallback))
        fields["y"] = replaced.pop()
        assert ours == theirs == b'[{"x":1,"y":2},{"x":1,"y":2},"t",{"x":1,"z":3},{"x":1,"z":3}]'


class Trigger:
    """No type stdlib_types converts: its fallback is called."""


def test_a_member_read_that_walks_other_dataclasses():
    # Reading a member runs Python code (a property) that calls dumps on instances of many other
    # dataclasses: their cache entries take every slot, the one of the class being read among them.
    # That entry stays pinned until its members are read (no entry replaces it meanwhile; freed
    # there, the next member would be read from freed memory: bash .ci/asan.sh says so).
    others = [dataclasses.make_dataclass(f"Other{i}", ["a"]) for i in range(200)]

    def nested(self):
        return fastjcs.dumps([cls(i) for i, cls in enumerate(others)], default=stdlib_types).decode()[:20]

    @dataclasses.dataclass
    class Outer:
        x: str
        y: int

    value = [Outer("", 1), Outer("", 2)]
    Outer.x = property(nested)  # (the instances' own x is shadowed by the data descriptor)
    prefix = '[{"a":0},{"a":1},{"a'  # nested()'s: its first 20 characters
    ours, theirs = both(value)
    assert ours == theirs == rfc8785.dumps([{"x": prefix, "y": 1}, {"x": prefix, "y": 2}])
