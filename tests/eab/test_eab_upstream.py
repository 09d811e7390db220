"""The upstream cMCP Execution Action Binding v1 vectors, every one, through fastjcs.eab.

The file stays where it was published (../shared/upstream/, beside this repository; see
vectors/eab.md). Each vector is checked three ways: its JCS bytes and binding by the peer
implementation (rfc8785 + pycryptodome, so the file and our reading of it agree), then by fastjcs,
then its `expected` disposition through the eab API. The mutation tests at the end show the checks
fail on the implementation errors they are there for.
"""

from __future__ import annotations

import inspect
import json

import pytest
import rfc8785
from conftest import UPSTREAM
from Crypto.Hash import SHA256, SHA384

import fastjcs
from fastjcs import UnsupportedAlgorithmError, eab
from fastjcs.eab import Disposition, NotV1BindingError, Semantics

VECTORS_FILE = UPSTREAM / "execution-action-binding-v1-vectors.json"

if not VECTORS_FILE.exists():
    pytest.skip(
        f"upstream EAB vectors not found at {VECTORS_FILE} (they live beside the "
        "repository, in ../shared/upstream/; see vectors/eab.md)",
        allow_module_level=True,
    )

DOC = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
VECTORS = {v["id"]: v for v in DOC["vectors"]}
WITNESS = DOC["semantic_adjudication_witnesses"][0]
HASHES = {"sha256": SHA256, "sha384": SHA384}


def test_the_file_is_the_one_we_know():
    assert DOC["profile"] == "cmcp.execution-action-binding-vectors/1"
    assert len(VECTORS) == 6
    assert {v["expected"] for v in VECTORS.values()} == {d.value for d in Disposition}


def check_vector(v) -> None:
    """Everything a vector pins, through the public API. Raises AssertionError on a mismatch."""
    pre, algorithm, expected = v["preimage"], v["algorithm"], v["expected"]
    fields = {name: pre[name] for name in eab.FIELDS}
    assert eab.classify(pre, algorithm) is Disposition(expected)

    if expected == "reject_unsupported_algorithm":
        with pytest.raises(UnsupportedAlgorithmError):
            eab.binding(**fields, algorithm=algorithm)
        with pytest.raises(UnsupportedAlgorithmError):
            fastjcs.digest(pre, algorithm)
        return

    jcs = v["jcs_utf8"].encode("utf-8")
    # The vector agrees with the peer implementation...
    assert rfc8785.dumps(pre) == jcs
    assert algorithm + ":" + HASHES[algorithm].new(jcs).hexdigest() == v["binding"]
    # ...and with fastjcs's generic layer.
    assert fastjcs.dumps(pre) == jcs
    assert fastjcs.digest(pre, algorithm) == v["binding"]
    assert fastjcs.digest_text(jcs, algorithm) == v["binding"]

    if expected == "accept":
        assert eab.preimage(**fields) == jcs
        assert eab.binding(**fields, algorithm=algorithm) == v["binding"]
        assert eab.parse_preimage(jcs) == tuple(fields.values())
        assert eab.parse_preimage(pre) == tuple(fields.values())
        assert eab.is_v1_preimage(jcs) and eab.is_v1_preimage(pre)
        assert eab.verify(v["binding"], jcs) and eab.verify(v["binding"], pre)
    else:
        assert expected == "reject_as_v1_execution_action_binding"
        for form in (jcs, pre):
            with pytest.raises(NotV1BindingError):
                eab.parse_preimage(form)
            assert not eab.is_v1_preimage(form)
            assert not eab.verify(v["binding"], form)
        # Domain and version are inside the hashed bytes: the v1 binding of the same four fields
        # is a different string, and the foreign binding does not verify against it.
        assert eab.binding(**fields, algorithm=algorithm) != v["binding"]
        assert not eab.verify(v["binding"], eab.preimage(**fields))


@pytest.mark.parametrize("vector_id", VECTORS)
def test_upstream_vector(backend, vector_id):
    check_vector(VECTORS[vector_id])


def test_sha256_and_sha384_bindings_of_one_action_differ(backend):
    v256, v384 = VECTORS["EAB-001-ascii-sha256"], VECTORS["EAB-005-ascii-sha384"]
    assert v256["preimage"] == v384["preimage"]
    assert not eab.same_binding(v256["binding"], v384["binding"])
    assert eab.same_binding(v256["binding"], v256["binding"])
    # The hex of one is never compared on its own: the prefix is part of the binding.
    assert not eab.same_binding(v256["binding"], "sha256:" + "0" * 64)


# ---------------------------------------------------------------------------------------------------
# Mutants: each must make check_vector fail
# ---------------------------------------------------------------------------------------------------

CHECK_FAILED = (AssertionError, pytest.fail.Exception)  # an assert, or a pytest.raises not met


def test_mutant_binding_without_domain_and_version(backend, monkeypatch):
    def four_fields_only(fields):
        return fastjcs.dumps(dict(zip(eab.FIELDS, fields)))

    monkeypatch.setattr(eab.bindings, "_v1_bytes", four_fields_only)
    for vector_id in ("EAB-001-ascii-sha256", "EAB-002-nonascii-sha256", "EAB-005-ascii-sha384"):
        with pytest.raises(CHECK_FAILED):
            check_vector(VECTORS[vector_id])


def test_mutant_version_not_checked(backend, monkeypatch):
    monkeypatch.setattr(eab.bindings, "_is_json_one", lambda value: True)
    with pytest.raises(CHECK_FAILED):
        check_vector(VECTORS["EAB-004-version-separation"])


def test_mutant_domain_not_checked(backend, monkeypatch):
    # An implementation that takes any domain: here, one that takes EAB-003's for its own.
    monkeypatch.setattr(eab.bindings, "DOMAIN", "cmcp.other-binding")
    with pytest.raises(CHECK_FAILED):
        check_vector(VECTORS["EAB-003-domain-separation"])


def test_mutant_algorithm_ignored(backend, monkeypatch):
    monkeypatch.setattr(eab.bindings, "check_algorithm", lambda algorithm: "sha256")
    for vector_id in ("EAB-005-ascii-sha384", "EAB-006-unsupported-algorithm"):
        with pytest.raises(CHECK_FAILED):
            check_vector(VECTORS[vector_id])


# ---------------------------------------------------------------------------------------------------
# The semantic witness: no automatic verdict
# ---------------------------------------------------------------------------------------------------


def test_witness_is_read_as_int_and_float():
    # The test below means something only if the file gives 1 and 1.0 as different Python values.
    assert type(WITNESS["request_a"]["x"]) is int and type(WITNESS["request_b"]["x"]) is float
    assert WITNESS["rfc8785_relation"] == "same_canonical_number_representation"


def test_witness_same_canonical_bytes(backend):
    a, b = WITNESS["request_a"], WITNESS["request_b"]
    assert rfc8785.dumps(a) == rfc8785.dumps(b) == fastjcs.dumps(a) == fastjcs.dumps(b)


def test_witness_under_json_number_semantics(backend):
    a, b = WITNESS["request_a"], WITNESS["request_b"]
    assert eab.same_operation(a, b, semantics=Semantics.JSON_NUMBER) is True


def test_witness_under_python_type_semantics(backend):
    a, b = WITNESS["request_a"], WITNESS["request_b"]
    assert eab.same_operation(a, b, semantics=Semantics.PYTHON_TYPE) is False
    assert eab.same_operation(a, dict(a), semantics=Semantics.PYTHON_TYPE) is True


def test_semantics_is_required(backend):
    a, b = WITNESS["request_a"], WITNESS["request_b"]
    with pytest.raises(TypeError):
        eab.same_operation(a, b)
    with pytest.raises(TypeError):
        eab.same_operation(a, b, Semantics.JSON_NUMBER)  # keyword-only: never by position
    for not_a_member in (None, "json-number", "JSON_NUMBER", True):
        with pytest.raises(TypeError):
            eab.same_operation(a, b, semantics=not_a_member)
    parameter = inspect.signature(eab.same_operation).parameters["semantics"]
    assert parameter.default is inspect.Parameter.empty
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
