"""Dicts as the direct walker reads them: members from the object's entries (cpython/dict_layout.c
checks the layout once on sample dicts against PyDict_Next) or through PyDict_Next, each reading
turned on and off: the same bytes as rfc8785 (an independent writer) for dicts of every table the
layout has: str keys only and any keys (an int key put in and taken out), deleted members at the
first, a middle and the last entry, indexes of 1, 2 and 4 bytes, the empty dict's shared keys, a
split table (an instance's __dict__, read through the API), dict subclasses; names that are not
strs refused alike on both readings.
"""

from __future__ import annotations

import sys

import pytest
import rfc8785
from _direct import direct_or_skip, reading_fixture

import fastjcs
from fastjcs.core import python_backend

native, direct = direct_or_skip()


reading = reading_fixture(direct, "dict_layout")


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc))


def str_keys(n: int, start: int = 0) -> dict:
    return {f"m{i:05d}\u00e9" if i % 3 == 0 else f"m{i:05d}": i for i in range(start, start + n)}


def any_keys(n: int) -> dict:
    """A dict of str keys whose table is of the kind that holds any key (and its hashes)."""
    d: dict = {1: 1}
    del d[1]
    d.update(str_keys(n))
    return d


def holed(d: dict) -> dict:
    keys = list(d)
    for key in {keys[0], keys[len(keys) // 2], keys[-1]}:
        del d[key]
    return d


class Plain:
    def __init__(self, n: int) -> None:
        for i in range(n):
            setattr(self, f"a{i}", [i, "x"])


class Sub(dict):
    pass


SHAPES = {
    "empty": lambda: {},
    "one": lambda: {"a": 1},
    "astral-and-bmp": lambda: {"\U0001f600": 1, "\uff61": 2, "a": 3},  # UTF-16 order differs from code points
    "str-keys-5": lambda: str_keys(5),
    "str-keys-300": lambda: str_keys(300),  # a 2-byte index
    "str-keys-70000": lambda: str_keys(70_000),  # a 4-byte index
    "any-keys-5": lambda: any_keys(5),
    "any-keys-300": lambda: any_keys(300),
    "holes-str": lambda: holed(str_keys(9)),
    "holes-any": lambda: holed(any_keys(9)),
    "holes-300": lambda: holed(str_keys(300)),
    "all-deleted": lambda: holed(str_keys(3)),
    "cleared-refilled": lambda: (lambda d: (d.clear(), d.update(str_keys(4, 50)), d)[2])(str_keys(40)),
    "deleted-readded": lambda: (lambda d: (d.pop("m00002"), d.update(m00002="back"), d)[2])(str_keys(5)),
    "split-table": lambda: vars(Plain(6)),
    "subclass": lambda: Sub(str_keys(7)),
    "nested": lambda: {"outer": [any_keys(3), holed(str_keys(6)), vars(Plain(2)), {}], "z": Sub(b=1)},
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_table_gives_rfc8785s_bytes(reading, shape):
    value = SHAPES[shape]()
    expected = rfc8785.dumps(value)
    assert fastjcs.dumps(value) == expected
    assert native.dumps(value, 100) == expected == python_backend.dumps(value, 100)


@pytest.mark.parametrize("key", [1, 2.5, None, b"x", ("t",)])
def test_a_name_that_is_no_str_is_refused_alike(reading, key):
    value = {"a": 1, key: 2}
    assert outcome(native.dumps, value, 100) == outcome(python_backend.dumps, value, 100)
    assert outcome(native.dumps, value, 100)[0] == "error"


def test_str_subclass_names_alike(reading):
    class Name(str):
        pass

    value = {Name("b"): 1, "a": 2}
    assert outcome(native.dumps, value, 100) == outcome(python_backend.dumps, value, 100)


def test_the_layout_is_read_where_it_is_known():
    """CPython 3.11 to 3.14 lay dicts out as cpython/dict_layout.h reads them: a probe that fails
    there (a wrong offset) would send every dict through the API, unseen by the answers."""
    if sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] <= (3, 14):
        pytest.skip("the layout is probed on CPython 3.11 to 3.14 only")
    assert direct.dict_layout() is True


def test_the_dict_layout_hook():
    previous = direct.dict_layout()
    try:
        assert direct.dict_layout(False) is previous
        assert direct.dict_layout() is False
        assert fastjcs.dumps({"b": 1, "a": 2}) == b'{"a":2,"b":1}'
    finally:
        direct.dict_layout(previous)
    with pytest.raises(TypeError):
        direct.dict_layout(1, 2)
