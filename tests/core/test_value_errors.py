"""Errors of `dumps` that say where and what (issue 36, item 9), the same on every route: the
pure-Python backend words them and the C paths hand it the values they refuse.

Expected texts are written by hand from the value: its place (`$["a"]`), the type with its module,
the key, the number's first and last digits and its length (counted here with str()).
"""

from __future__ import annotations

import re

import pytest

import fastjcs


class NumpyLikeBool:  # named as numpy names its bool: `numpy.bool_`, no subclass of bool
    pass


NumpyLikeBool.__module__, NumpyLikeBool.__qualname__, NumpyLikeBool.__name__ = "numpy", "bool_", "bool_"


class Big(int):
    pass


def refused(value, cls=fastjcs.CanonicalizationError):
    with pytest.raises(cls) as info:
        fastjcs.dumps(value)
    return str(info.value)


def test_a_type_named_like_a_builtin_is_named_with_its_module(backend):
    assert refused({"flags": [True, NumpyLikeBool()]}) == '$["flags"][1]: unsupported type numpy.bool_'
    assert refused({"a": 1j}) == '$["a"]: unsupported type complex'  # a builtin: its name alone


def test_a_key_that_is_not_a_string_is_named_with_its_place(backend):
    assert refused({"a": {1: 2}}, fastjcs.UnsupportedTypeError) == (
        '$["a"]: object keys must be strings, not int (the key 1)'
    )
    text = refused([{"k": {tuple(range(100)): 1}}], fastjcs.UnsupportedTypeError)
    assert text.startswith('$[0]["k"]: object keys must be strings, not tuple (the key (0, 1, 2, ')
    assert text.endswith("...))") and len(text) < 120  # the key cut short, not 100 numbers


@pytest.mark.parametrize("sign", [1, -1])
def test_a_huge_int_is_abbreviated_and_placed(backend, sign):
    n = sign * 2**1100
    digits = str(abs(n))
    text = refused({"x": [0, n]}, fastjcs.IntegerDomainError)
    head = ("-" if sign < 0 else "") + digits[: 12 - (sign < 0)]
    assert text.startswith(f'$["x"][1]: {head}...{digits[-6:]} ({len(digits)} digits) exceeds safe integer domain')
    assert digits not in text and len(text) < 300


def test_an_int_past_2_53_says_why_and_what_to_do(backend):
    text = refused({"id": 2**64}, fastjcs.IntegerDomainError)
    assert text.startswith('$["id"]: 18446744073709551616 exceeds safe integer domain for JSON floats, +/-(2^53-1)')
    assert "canonicalize rounds the same JSON text" in text and "float(n)" in text and "a str" in text
    # what the message says of canonicalize holds: the same text is rounded to the nearest double
    assert fastjcs.canonicalize(b'{"id": 18446744073709551616}') == b'{"id":18446744073709552000}'
    assert fastjcs.dumps({"id": float(2**64)}) == b'{"id":18446744073709552000}'  # the advice works
    assert refused([Big(2**60)], fastjcs.IntegerDomainError).startswith("$[0]: 1152921504606846976 ")  # a subclass


def test_the_routes_word_them_alike(native):
    """The C core (cffi entry) and the pure-Python backend: the same class and the same words."""
    from fastjcs.core import python_backend

    for value in ({"a": {1: 2}}, [2**1100], {"b": NumpyLikeBool()}, {"i": 2**64}):
        errors = []
        for module in (native, python_backend):
            with pytest.raises(fastjcs.CanonicalizationError) as info:
                module.dumps(value, 100)
            errors.append((type(info.value), str(info.value)))
        assert errors[0] == errors[1]
        assert re.match(r"^\$\[", errors[0][1])
