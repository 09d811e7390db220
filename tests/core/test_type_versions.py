"""The direct entry's verdicts about classes, kept while a class keeps its version tag
(csrc/cpython/type_version.c): UUID's `__str__` and `int`, `dataclasses.Field`'s attributes, a
dataclass's `__dataclass_fields__`, an object's honest `__class__`.

Each test changes a class after the walker has kept a verdict about it, between two calls or in
the middle of one (from the default's fallback, and from a finalizer that runs there), and checks
the answer against the pure-Python backend's (`python_backend.dumps`, which reads every attribute
as Python does, each time): a verdict kept past the change gives the old answer. Every test runs
with the tags read and with the reading turned off (`stdlib_types._type_versions`, the hook
register_types hands back), where every verdict is made again at each object.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

import fastjcs
from fastjcs import StdlibTypes, stdlib_types
from fastjcs.core import python_backend
from fastjcs.core import stdlib_types as stdlib_module
from fastjcs.core._direct_loader import direct

hook = getattr(stdlib_module, "_type_versions", None)

pytestmark = pytest.mark.skipif(direct is None or hook is None, reason="the direct entry is not loaded")


@pytest.fixture(params=[True, False], ids=["tags", "no-tags"])
def versions(request):
    if request.param and not hook():
        pytest.skip("no version tags read on this Python (3.11-3.13 only, or the probe failed)")
    previous = hook(request.param)
    yield request.param
    hook(previous)


def outcome(fn) -> Any:
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - the error itself is the answer compared
        return ("error", type(exc).__name__)


def same_as_reference(value, default, patch=None, unpatch=None) -> Any:
    """The direct entry's answer for value (warm: its verdicts kept by two calls before patch),
    asserted equal to the pure-Python backend's, patch made afresh before each."""
    for _ in range(2):
        outcome(lambda: fastjcs.dumps(value, default=default))
        if unpatch:
            unpatch()
    if patch:
        patch()
    ours = outcome(lambda: fastjcs.dumps(value, default=default))
    if unpatch:
        unpatch()
    if patch:
        patch()
    theirs = outcome(lambda: python_backend.dumps(value, 10_000, False, default))
    if unpatch:
        unpatch()
    assert ours == theirs
    return ours


U = uuid.UUID(int=0x0123456789ABCDEF0123456789ABCDEF)
HEX = b'"01234567-89ab-cdef-0123-456789abcdef"'


def test_the_hook():
    previous = hook(False)
    try:
        assert hook() is False
        assert hook(previous) is False
    finally:
        hook(previous)
    with pytest.raises(TypeError):
        hook(1, 2)


# ---- UUID ---------------------------------------------------------------------------------------


def test_a_uuid_str_patched_between_calls(versions, monkeypatch):
    answer = same_as_reference(
        [U, {"u": U}],
        stdlib_types,
        lambda: monkeypatch.setattr(uuid.UUID, "__str__", lambda self: "str-" + self.hex[:4]),
        monkeypatch.undo,
    )
    assert answer == ("ok", b'["str-0123",{"u":"str-0123"}]')
    assert fastjcs.dumps([U], default=stdlib_types) == b"[" + HEX + b"]"  # and back, once undone


def test_a_uuid_int_patched_between_calls(versions, monkeypatch):
    answer = same_as_reference(
        [U], stdlib_types, lambda: monkeypatch.setattr(uuid.UUID, "int", property(lambda self: 255)), monkeypatch.undo
    )
    assert answer == ("ok", b'["00000000-0000-0000-0000-0000000000ff"]')


def test_a_uuid_whose_int_slot_is_empty_or_set_again(versions):
    # UUID's int read from its slot (while the class's `int` is the slot registered): an empty slot
    # raises as getattr does, and a slot set again mid-call is read as it is then
    empty = object.__new__(uuid.UUID)
    assert same_as_reference([U, empty], stdlib_types)[0] == "error"
    other = uuid.UUID(int=1)

    def fallback(value):
        object.__setattr__(other, "int", 2)
        return "t"

    answer = same_as_reference(
        [other, Trigger(), other], StdlibTypes(fallback), None, lambda: object.__setattr__(other, "int", 1)
    )
    assert answer == ("ok", b'["00000000-0000-0000-0000-000000000001","t","00000000-0000-0000-0000-000000000002"]')


class Trigger:
    """A value only the fallback converts: where Python code runs in the middle of a walk."""


def test_a_uuid_str_patched_in_the_middle_of_a_call(versions, monkeypatch):
    def fallback(value):
        monkeypatch.setattr(uuid.UUID, "__str__", lambda self: "mid")
        return "t"

    answer = same_as_reference([U, Trigger(), U], StdlibTypes(fallback), None, monkeypatch.undo)
    assert answer == ("ok", b"[" + HEX + b',"t","mid"]')


def test_a_uuid_str_patched_by_a_finalizer(versions, monkeypatch):
    class Bomb:
        def __del__(self):
            monkeypatch.setattr(uuid.UUID, "__str__", lambda self: "del")

    held: list = []

    def fallback(value):
        held.clear()  # the Bomb's last reference: its finalizer runs here
        return "t"

    answer = same_as_reference([U, Trigger(), U], StdlibTypes(fallback), lambda: held.append(Bomb()), monkeypatch.undo)
    assert answer == ("ok", b"[" + HEX + b',"t","del"]')


# ---- dataclasses --------------------------------------------------------------------------------


def make_point():
    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    return Point


def test_dataclass_fields_replaced_between_calls(versions, monkeypatch):
    point = make_point()
    only_x = {"x": point.__dataclass_fields__["x"]}
    answer = same_as_reference(
        [point(1, 2)],
        stdlib_types,
        lambda: monkeypatch.setattr(point, "__dataclass_fields__", only_x),
        monkeypatch.undo,
    )
    assert answer == ("ok", b'[{"x":1}]')


def test_dataclass_fields_replaced_in_the_middle_of_a_call(versions, monkeypatch):
    point = make_point()
    only_y = {"y": point.__dataclass_fields__["y"]}

    def fallback(value):
        monkeypatch.setattr(point, "__dataclass_fields__", only_y)
        return "t"

    answer = same_as_reference([point(1, 2), Trigger(), point(3, 4)], StdlibTypes(fallback), None, monkeypatch.undo)
    assert answer == ("ok", b'[{"x":1,"y":2},"t",{"y":4}]')


def test_the_field_class_patched_between_calls(versions, monkeypatch):
    # Field._field_type made a property that calls every field a ClassVar: no members.
    point = make_point()
    classvar = dataclasses._FIELD_CLASSVAR  # type: ignore[attr-defined]
    answer = same_as_reference(
        [point(1, 2)],
        stdlib_types,
        lambda: monkeypatch.setattr(dataclasses.Field, "_field_type", property(lambda self: classvar)),
        monkeypatch.undo,
    )
    assert answer == ("ok", b"[{}]")


def test_the_field_class_patched_in_the_middle_of_a_call(versions, monkeypatch):
    point = make_point()
    original = dataclasses.Field.name

    def fallback(value):
        # every field named "x" from now on: the reference's dict keeps one member
        monkeypatch.setattr(dataclasses.Field, "name", property(lambda self: "x"))
        return "t"

    answer = same_as_reference([point(1, 2), Trigger(), point(3, 4)], StdlibTypes(fallback), None, monkeypatch.undo)
    assert answer == ("ok", b'[{"x":1,"y":2},"t",{"x":3}]')
    assert dataclasses.Field.name is original


# ---- __class__ ----------------------------------------------------------------------------------


class Plain:
    pass


class Liar:
    @property
    def __class__(self):  # type: ignore[override]  # claims to be a dict: isinstance follows it
        return dict


def make_record():
    @dataclasses.dataclass
    class Record(Plain):
        x: int

    return Record


def relabel(cls, bases):
    cls.__bases__ = bases
    getattr(cls, "no_such_attribute", None)  # a lookup: the class has a new tag (a kept verdict's is gone)


def test_a_class_given_a_lying_base_between_calls(versions):
    record = make_record()
    answer = same_as_reference(
        [record(1)], stdlib_types, lambda: relabel(record, (Liar,)), lambda: relabel(record, (Plain,))
    )
    assert answer != ("ok", b'[{"x":1}]')  # read as the dict it claims to be, as Python reads it


def test_a_class_given_a_lying_getattribute_in_the_middle_of_a_call(versions, monkeypatch):
    record = make_record()

    def lies(self, name):
        return dict if name == "__class__" else object.__getattribute__(self, name)

    def fallback(value):
        monkeypatch.setattr(record, "__getattribute__", lies)
        getattr(record, "no_such_attribute", None)  # a new tag
        return "t"

    answer = same_as_reference([record(1), Trigger(), record(2)], StdlibTypes(fallback), None, monkeypatch.undo)
    assert answer[0] == "error" or not answer[1].endswith(b'{"x":2}]')


def test_a_class_with_a_class_property_is_asked_at_each_object(versions):
    # A __class__ of the class's own (here an honest one, but Python code): never kept, asked at
    # each object of each call.
    calls = []

    @dataclasses.dataclass
    class Asks:
        x: int

        @property
        def __class__(self):  # type: ignore[override]
            calls.append(1)
            return Asks

    assert same_as_reference([Asks(1), Asks(2)], stdlib_types) == ("ok", b'[{"x":1},{"x":2}]')
    before = len(calls)
    fastjcs.dumps([Asks(1), Asks(2)], default=stdlib_types)
    assert len(calls) - before >= 2
