"""The exception hierarchy (src/fastjcs/core/errors.py, src/fastjcs/eab/errors.py) and what
each error carries."""

from __future__ import annotations

import builtins
import copy
import pickle

import pytest
import rfc8785

import fastjcs
from fastjcs import eab
from fastjcs.core import errors as _errors
from fastjcs.eab import errors as _eab_errors

HIERARCHY = {
    "FastJCSError": "ValueError",
    "CanonicalizationError": "FastJCSError",
    "IntegerDomainError": "CanonicalizationError",
    "NonIntegerNumberError": "CanonicalizationError",
    "FloatDomainError": "CanonicalizationError",
    "UnsupportedTypeError": "CanonicalizationError",
    "CircularReferenceError": "CanonicalizationError",
    "DepthLimitError": "CanonicalizationError",
    "InvalidJSONError": "CanonicalizationError",
    "DuplicateKeyError": "InvalidJSONError",
    "UnsupportedAlgorithmError": "FastJCSError",
    "InvalidDigestError": "FastJCSError",
    "ActionBindingError": "FastJCSError",
    "NotV1BindingError": "ActionBindingError",
    "RegistryError": "FastJCSError",
    "UnknownReservationError": ("RegistryError", "LookupError"),
    "ReservationStateError": "RegistryError",
    "RegistryNotFoundError": "RegistryError",
    "RegistryExistsError": "RegistryError",
    "RegistryFormatError": "RegistryError",
    "RegistryCorruptError": "RegistryFormatError",
    "RegistryStorageError": "RegistryError",
    "RegistryReadOnlyError": "RegistryStorageError",
    "RegistryClosedError": "RegistryError",
}


def _home(name):
    """(the package that exports the error, the one module that defines it)."""
    return (eab, _eab_errors) if name in _eab_errors.__all__ else (fastjcs, _errors)


def _class(name):
    return getattr(_home(name)[0], name, None) or getattr(builtins, name)


@pytest.mark.parametrize("name", sorted(HIERARCHY))
def test_each_class_and_its_base(name):
    package, module = _home(name)
    cls = getattr(package, name)
    assert cls is getattr(module, name)  # one exception module per layer, re-exported as is
    assert name in package.__all__
    bases = HIERARCHY[name]
    bases = bases if isinstance(bases, tuple) else (bases,)
    assert cls.__bases__ == tuple(_class(b) for b in bases)


def test_every_exported_error_is_listed():
    exported = {n for package in (fastjcs, eab) for n in package.__all__ if n.endswith("Error")}
    assert exported == set(HIERARCHY)
    assert not {n for n in fastjcs.__all__ if n.endswith("Error")} & set(_eab_errors.__all__)


def test_canonicalization_error_is_a_value_error():
    assert issubclass(fastjcs.CanonicalizationError, ValueError)
    assert issubclass(fastjcs.DuplicateKeyError, ValueError)
    # Not the same classes as rfc8785's: fastjcs does not depend on it at run time.
    assert not issubclass(fastjcs.CanonicalizationError, rfc8785.CanonicalizationError)


def test_algorithm_errors_are_not_canonicalization_errors():
    assert not issubclass(fastjcs.UnsupportedAlgorithmError, fastjcs.CanonicalizationError)


def test_invalid_json_error_has_a_position(backend):
    with pytest.raises(fastjcs.InvalidJSONError) as info:
        fastjcs.canonicalize(b'{\n  "a": tru }')
    err = info.value
    # '{' '\n' ' ' ' ' '"a"' ':' ' ' then "tru": t at 9, the space that should be 'e' at 12.
    assert (err.offset, err.lineno, err.colno) == (12, 2, 11)
    assert "line 2 column 11 (byte 12)" in str(err)


def test_duplicate_key_error_has_the_key(backend):
    with pytest.raises(fastjcs.DuplicateKeyError) as info:
        fastjcs.canonicalize('{"\u20ac":1,"\\u20ac":2}')
    assert info.value.key == "\u20ac"
    assert info.value.offset == 9  # '{' '"' then 3 bytes of the euro sign, '"' ':' '1' ','


def test_object_errors_have_no_position(backend):
    for value in (float("nan"), 2**60, {1: 2}, {1}, [[]]):
        with pytest.raises(fastjcs.CanonicalizationError) as info:
            fastjcs.dumps(value, max_depth=1)
        assert (info.value.offset, info.value.lineno, info.value.colno) == (None, None, None)


def _raised(data, **kw):
    try:
        fastjcs.canonicalize(data, **kw)
    except fastjcs.CanonicalizationError as exc:
        return exc
    raise AssertionError("no error")


@pytest.mark.parametrize(
    "data, kw",
    [
        (b'{"a":1,\n"a":2}', {}),
        (b"[\n\n  01]", {}),
        (b"[1e400]", {}),
        (b"[[[]]]", {"max_depth": 2}),
        (b"9007199254740992", {"strict_integers": True}),
    ],
)
def test_pickling_keeps_the_position(backend, data, kw):
    err = _raised(data, **kw)
    for clone in (pickle.loads(pickle.dumps(err)), copy.copy(err)):
        assert type(clone) is type(err)
        assert (clone.offset, clone.lineno, clone.colno) == (err.offset, err.lineno, err.colno)
        assert clone.offset is not None
        assert str(clone) == str(err) and clone.args == err.args
        assert getattr(clone, "key", None) == getattr(err, "key", None)
        assert clone.msg == err.msg


def test_pickling_a_constructed_error():
    err = fastjcs.DuplicateKeyError("duplicate member name 'k'", b'{"k":1,\n"k":2}', 8, key="k")
    assert (err.offset, err.lineno, err.colno, err.key) == (8, 2, 1, "k")
    clone = pickle.loads(pickle.dumps(err, protocol=pickle.HIGHEST_PROTOCOL))
    assert (clone.offset, clone.lineno, clone.colno, clone.key) == (8, 2, 1, "k")
    assert str(clone) == str(err) == "duplicate member name 'k': line 2 column 1 (byte 8)"


def test_pickling_an_object_error():
    err = fastjcs.IntegerDomainError("too big")
    clone = pickle.loads(pickle.dumps(err))
    assert type(clone) is fastjcs.IntegerDomainError and clone.offset is None
    assert str(clone) == "too big"
