"""Floats as the direct walker reads them: an exact float's double from the object (its PyObject
head, then ob_fval: cpython/list_layout.c checks it on sample floats, bit for bit, against the
API, with lists' and tuples' items, under the same switch, list_layout) or through
PyFloat_AsDouble, in each of the walker's three float paths (items_of for a list's or tuple's
items, members for a dict's plain members, scalar for a member after one members() leaves), each
reading turned on and off: the same bytes as rfc8785 (an independent writer, its own float
formatting) for random bit patterns of every exponent, subnormals, signed zeros and the layout's
edges; NaN and the infinities refused (FloatDomainError) on every path.
"""

from __future__ import annotations

import random
import struct
import sys

import pytest
import rfc8785
from _direct import direct_or_skip, reading_fixture

import fastjcs

native, direct = direct_or_skip()


reading = reading_fixture(direct, "list_layout")


def _doubles() -> list[float]:
    rng = random.Random(31)
    out = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e21, 1e-7]
    out += [9007199254740991.0, 123.456, -0.1, 1e20, 1.5e-6, 4.35, 0.3]
    while len(out) < 3000:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if x == x and x not in (float("inf"), float("-inf")):
            out.append(x)
    return out


DOUBLES = _doubles()


def test_items_of_a_list_and_a_tuple(reading):
    # Catches a double read from the wrong word of the object (the list's, a neighbour's), a
    # reading that loses its sign or low bits, and a comma dropped or doubled around a double.
    want = rfc8785.dumps(DOUBLES)
    assert fastjcs.dumps(DOUBLES) == want
    assert fastjcs.dumps(tuple(DOUBLES)) == want


def test_members_of_a_dict(reading):
    # members(): plain names, plain values; the same double under many names.
    doc = {f"k{i:05d}": x for i, x in enumerate(DOUBLES[:500])}
    assert fastjcs.dumps(doc) == rfc8785.dumps(doc)


def test_a_member_after_members_leaves_it(reading):
    # A name to escape makes members() leave the member to run() (put_name, then scalar()).
    doc = [{"\n": x, "a\t": -x, "b": [x]} for x in DOUBLES[:300]]
    assert fastjcs.dumps(doc) == rfc8785.dumps(doc)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_nan_and_infinities_are_refused_on_every_path(reading, bad):
    # Catches a path that writes what the number core refused (a NULL end taken as written, the
    # comma left behind) instead of handing the value to value(), which refuses it.
    for doc in ([1.5, bad], (bad,), {"a": 1.5, "b": bad}, {"\n": bad}, [{"\n": 1.5, "x": bad}]):
        with pytest.raises(fastjcs.FloatDomainError):
            fastjcs.dumps(doc)


def test_floats_are_read_from_the_object_on_cpython():
    # Catches a probe that rejects the layout CPython has (the walker silently back on the API).
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 15) or hasattr(sys, "gettotalrefcount"):
        pytest.skip("a CPython whose objects the walker may not read")
    assert direct.list_layout() is True
