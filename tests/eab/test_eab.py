"""fastjcs.eab beyond the vector files: field handling, preimage checks, comparison, semantics,
the error hierarchy, and the docstring examples of the new modules (on both backends)."""

from __future__ import annotations

import doctest
import enum
import importlib

import pytest
import rfc8785
from Crypto.Hash import SHA256, SHA384
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastjcs
from fastjcs import CanonicalizationError, FastJCSError, InvalidDigestError, UnsupportedAlgorithmError, eab
from fastjcs.eab import (
    ActionBindingError,
    NotV1BindingError,
    RegistryError,
    ReservationStateError,
    Semantics,
    UnknownReservationError,
)

FIELDS = {
    "agent_id": "spiffe://agent.example/payments/prod",
    "action_type": "transfer",
    "action_scope": "account:merchant-7",
    "action_timestamp": "2026-09-10T16:30:00Z",
}
EAB_001 = "sha256:305b05b249b159fa9dea8cbbfaa0c19b71aa867a6da718693c1c7d4b83f52fe4"


def v1_object(**fields):
    return {"domain": "cmcp.execution-action-binding", "version": 1, **fields}


# ---------------------------------------------------------------------------------------------------
# Computing
# ---------------------------------------------------------------------------------------------------

field_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=field_text, t=field_text, s=field_text, ts=field_text, algorithm=st.sampled_from(["sha256", "sha384"]))
def test_binding_property(backend, a, t, s, ts, algorithm):
    jcs = rfc8785.dumps(v1_object(agent_id=a, action_type=t, action_scope=s, action_timestamp=ts))
    module = SHA256 if algorithm == "sha256" else SHA384
    assert eab.preimage(a, t, s, ts) == jcs
    assert eab.binding(a, t, s, ts, algorithm) == algorithm + ":" + module.new(jcs).hexdigest()


def test_str_subclass_fields_are_taken_by_their_characters(backend):
    class Action(str, enum.Enum):
        TRANSFER = "transfer"

    class Loud(str):
        def __str__(self):
            return "LOUD"

    fields = dict(FIELDS, action_type=Action.TRANSFER, agent_id=Loud(FIELDS["agent_id"]))
    assert eab.binding(**fields) == EAB_001
    assert type(eab.parse_preimage(fields | {"domain": eab.DOMAIN, "version": 1}).agent_id) is str


def test_field_refusals_name_the_field(backend):
    for name in eab.FIELDS:
        for bad, words in (("", "empty"), ("x\udfff", "lone surrogate"), (b"x", "bytes"), (None, "NoneType")):
            with pytest.raises(ActionBindingError, match=words) as info:
                eab.binding(**dict(FIELDS, **{name: bad}))
            assert info.value.field == name
            assert isinstance(info.value, ValueError)


def test_algorithm_is_checked_before_the_fields(backend):
    with pytest.raises(UnsupportedAlgorithmError):
        eab.binding(**dict(FIELDS, agent_id=""), algorithm="sha512")


# ---------------------------------------------------------------------------------------------------
# Checking preimages and bindings
# ---------------------------------------------------------------------------------------------------


def test_parse_preimage_takes_bytes_likes_and_dicts(backend):
    jcs = eab.preimage(**FIELDS)
    for form in (jcs, bytearray(jcs), memoryview(jcs), v1_object(**FIELDS)):
        assert eab.parse_preimage(form) == tuple(FIELDS.values())
    for not_a_preimage in (jcs.decode(), 5, None, [v1_object(**FIELDS)]):
        with pytest.raises(TypeError):
            eab.parse_preimage(not_a_preimage)


def test_parse_preimage_refuses_json_that_is_not_an_object(backend):
    for data in (b"[]", b'"x"', b"1"):
        with pytest.raises(ActionBindingError, match="JSON object"):
            eab.parse_preimage(data)


def test_parse_preimage_refuses_invalid_json_with_its_cause(backend):
    with pytest.raises(ActionBindingError) as info:
        eab.parse_preimage(b'{"domain":')
    assert isinstance(info.value.__cause__, CanonicalizationError)
    with pytest.raises(ActionBindingError):  # a duplicate member is not a v1 object either
        eab.parse_preimage(eab.preimage(**FIELDS)[:-1] + b',"version":1}')


def test_domain_and_version_are_reported_before_the_members(backend):
    other = v1_object(**FIELDS) | {"domain": "cmcp.other-binding", "nonce": 1}
    with pytest.raises(NotV1BindingError):
        eab.parse_preimage(other)
    v2 = v1_object(**FIELDS) | {"version": 2, "nonce": 1}
    del v2["agent_id"]
    with pytest.raises(NotV1BindingError):
        eab.parse_preimage(v2)


def test_version_is_judged_by_its_jcs_bytes(backend):
    for ok in (1, 1.0, enum.IntEnum("V", "ONE").ONE):
        assert eab.parse_preimage(v1_object(**FIELDS) | {"version": ok}) == tuple(FIELDS.values())
    for bad in (True, "1", 1.5, 0, None, [1]):
        with pytest.raises(NotV1BindingError):
            eab.parse_preimage(v1_object(**FIELDS) | {"version": bad})


def test_non_str_member_names_are_unexpected_members(backend):
    with pytest.raises(ActionBindingError, match="unexpected"):
        eab.parse_preimage(v1_object(**FIELDS) | {1: "x"})


def test_verify(backend):
    jcs = eab.preimage(**FIELDS)
    assert eab.verify(EAB_001, jcs)
    b384 = eab.binding(**FIELDS, algorithm="sha384")
    assert eab.verify(b384, jcs)  # the algorithm is the binding's own prefix
    other = eab.binding(**dict(FIELDS, action_timestamp="2026-09-10T16:30:01Z"))
    assert not eab.verify(other, jcs)
    for malformed in (EAB_001.upper(), EAB_001[7:], EAB_001 + "\n", "sha512:" + "0" * 128):
        with pytest.raises(InvalidDigestError):
            eab.verify(malformed, jcs)


def test_same_binding_is_exact(backend):
    b256 = eab.binding(**FIELDS)
    b384 = eab.binding(**FIELDS, algorithm="sha384")
    assert eab.same_binding(b256, EAB_001)
    assert not eab.same_binding(b256, b384)
    assert not eab.same_binding(b384, b256)
    for malformed in (b256.upper(), b256[7:], " " + b256):
        with pytest.raises(InvalidDigestError):
            eab.same_binding(b256, malformed)
        with pytest.raises(InvalidDigestError):
            eab.same_binding(malformed, b256)


# ---------------------------------------------------------------------------------------------------
# Logical-operation identity
# ---------------------------------------------------------------------------------------------------

CASES = [
    # a, b, same under JSON_NUMBER, same under PYTHON_TYPE
    ({"x": 1}, {"x": 1}, True, True),
    ({"x": 1}, {"x": 1.0}, True, False),
    ({"x": 1}, {"x": 2}, False, False),
    ([1, 2.0], [1, 2.0], True, True),
    ([1, 2.0], [1.0, 2], True, False),
    ([{"y": [0]}], [{"y": [-0.0]}], True, False),  # deep: a walker that stops early misses it
    ((1, "a"), [1, "a"], True, True),  # tuple and list are both arrays
    (0.0, -0.0, True, True),  # the same float kind, the same JCS bytes
    (True, 1, False, False),
    ({"a": 1, "b": 2.5}, {"b": 2.5, "a": 1}, True, True),
]


@pytest.mark.parametrize("a,b,json_same,python_same", CASES)
def test_same_operation(backend, a, b, json_same, python_same):
    assert eab.same_operation(a, b, semantics=Semantics.JSON_NUMBER) is json_same
    assert eab.same_operation(a, b, semantics=Semantics.PYTHON_TYPE) is python_same
    assert eab.same_operation(b, a, semantics=Semantics.PYTHON_TYPE) is python_same


def test_mutant_python_type_walker_that_stops_at_the_top(backend, monkeypatch):
    shallow = {"x": [1]}, {"x": [1.0]}
    assert eab.same_operation(*shallow, semantics=Semantics.PYTHON_TYPE) is False
    monkeypatch.setattr(eab.bindings, "_kind", lambda value: "any")  # kinds never compared
    assert eab.same_operation(*shallow, semantics=Semantics.PYTHON_TYPE) is True


def test_same_operation_needs_canonicalizable_requests(backend):
    with pytest.raises(CanonicalizationError):
        eab.same_operation({"x": float("nan")}, {"x": 1}, semantics=Semantics.JSON_NUMBER)


# ---------------------------------------------------------------------------------------------------
# Errors and docs
# ---------------------------------------------------------------------------------------------------


def test_error_hierarchy():
    assert issubclass(InvalidDigestError, FastJCSError)
    assert issubclass(InvalidDigestError, ValueError)
    assert not issubclass(InvalidDigestError, CanonicalizationError)
    assert issubclass(NotV1BindingError, ActionBindingError)
    assert issubclass(ActionBindingError, FastJCSError)
    assert issubclass(UnknownReservationError, RegistryError)
    assert issubclass(UnknownReservationError, LookupError)
    assert issubclass(ReservationStateError, RegistryError)
    assert issubclass(RegistryError, FastJCSError)
    assert CanonicalizationError("x").index is None


def test_batch_index_survives_pickling(backend):
    import pickle

    results = fastjcs.digest_texts([b"[]", b'{"a":1,"a":2}'])
    clone = pickle.loads(pickle.dumps(results[1]))
    assert type(clone) is type(results[1])
    assert (clone.index, clone.offset, clone.key) == (1, 7, "a")  # the repeated name


@pytest.mark.parametrize(
    "name", ["fastjcs.core.digests", "fastjcs.eab.bindings", "fastjcs.eab.registry", "fastjcs.core.hashing"]
)
def test_docstring_examples(backend, name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, extraglobs={"fastjcs": fastjcs}, report=True)
    assert result.attempted > 0 or name == "fastjcs.core.hashing"
    assert result.failed == 0
