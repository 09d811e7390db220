"""Digest contexts in both published forms (issue 34, item 4): a list of context objects
(registry.json; typed-refs fail/07 and pass/03 @550ba20) and a mapping of purpose to context (the
older declarations), read alike by the Registry, the typed-reference profile and the vector runner.

Expected digests are the upstream vector files' own (recomputed here with rfc8785 and pycryptodome).
"""

from __future__ import annotations

import copy
import json

import pytest
import rfc8785
from conftest import UPSTREAM
from Crypto.Hash import SHA256

from fastjcs.conformance import cpb_vectors as vectors
from fastjcs.cpb import Registry, SnapshotFormatError
from fastjcs.cpb.registry import read_digest_contexts
from fastjcs.profiles import TypedRefVerdict as V
from fastjcs.profiles import declared_registry, verify_typed_reference

TYPED_REFS = UPSTREAM / "cpb-current" / "vectors" / "typed-refs"
PASS_03 = TYPED_REFS / "pass" / "03-envelope-header-carriage.json"
FAIL_07 = TYPED_REFS / "fail" / "07-header-carriage-purpose-absent-multi-context.json"
needs_current = pytest.mark.skipif(not PASS_03.is_file(), reason=f"no {PASS_03}")

LISTED = [
    {"purpose": "identifier", "algorithm": "jcs", "exclusion_set": ["doc_id"], "representation": "bare-hex"},
    {"purpose": "content", "algorithm": "jcs", "exclusion_set": [], "representation": "bare-hex"},
]
BY_PURPOSE = {c["purpose"]: {k: v for k, v in c.items() if k != "purpose"} for c in LISTED}


def _snapshot(contexts: object) -> dict:
    return {
        "schema_version": "1",
        "canonicalization_algorithms": {
            "jcs": {"description": "RFC 8785", "reference": "RFC 8785", "status": "active"}
        },
        "artifact_types": {"doc": {"reference": "test", "status": "active", "digest_contexts": contexts}},
    }


def test_registry_reads_both_forms_alike():
    listed = Registry.from_json(_snapshot(LISTED)).artifact_types["doc"].contexts
    by_purpose = Registry.from_json(_snapshot(BY_PURPOSE)).artifact_types["doc"].contexts
    assert listed == by_purpose
    assert [(c.purpose, c.exclusion_set) for c in listed] == [("identifier", ("doc_id",)), ("content", ())]


@pytest.mark.parametrize(
    "bad",
    ["jcs; exclusion set {doc_id}", {"identifier": "jcs"}, {"identifier": {**LISTED[1]}}, 7],
    ids=["text", "summary-by-purpose", "purpose-contradicts-key", "number"],
)
def test_other_shapes_are_refused(bad):
    with pytest.raises(SnapshotFormatError):
        read_digest_contexts("doc", bad)


@needs_current
@pytest.mark.parametrize("form", ["list", "by-purpose"])
def test_pass_03_declaration_verifies_in_either_form(backend, form):
    doc = json.loads(PASS_03.read_bytes())
    declaration = copy.deepcopy(doc["digest_context_declaration"])
    if form == "by-purpose":
        declaration["contexts"] = {c.pop("purpose"): c for c in declaration["contexts"]}
    payload = doc["cited_artifact"]["payload"]
    want = SHA256.new(rfc8785.dumps({k: v for k, v in payload.items() if k != "doc_id"})).hexdigest()
    assert want == doc["cited_artifact"]["raw_digest_hex"] == doc["typed_reference"]["digest"]
    result = verify_typed_reference(doc["typed_reference"], payload, registry=declared_registry(declaration))
    assert (result.verdict, result.recomputed) == (V.VERIFIED, want)


@needs_current
def test_a_declaration_whose_digest_alg_contradicts_its_algorithm_is_refused():
    declaration = json.loads(PASS_03.read_bytes())["digest_context_declaration"]
    declaration["contexts"][0]["digest_alg"] = "SHA-384"
    with pytest.raises(SnapshotFormatError, match="SHA-384"):
        declared_registry(declaration)


@needs_current
def test_fail_07_list_of_two_contexts_needs_a_purpose(backend):
    doc = json.loads(FAIL_07.read_bytes())
    entry = doc["artifact_type_registry_entry"]
    registry = declared_registry({"type": entry["name"], "digest_contexts": entry["digest_contexts"]})
    payload = doc["cited_artifact"]["payload"]
    ref = doc["typed_reference"]
    assert verify_typed_reference(ref, payload, registry=registry).verdict is V.PURPOSE_REQUIRED
    named = verify_typed_reference({**ref, "purpose": "identifier"}, payload, registry=registry)
    assert (named.verdict, named.recomputed) == (V.VERIFIED, doc["cited_artifact"]["identifier_context_digest"])


@needs_current
@pytest.mark.parametrize("form", ["list", "by-purpose"])
def test_the_runner_reads_both_forms(tmp_path, form):
    for path in (PASS_03, FAIL_07):
        doc = json.loads(path.read_bytes())
        if form == "by-purpose":
            for holder, key in (
                (doc.get("digest_context_declaration"), "contexts"),
                (doc.get("artifact_type_registry_entry"), "digest_contexts"),
            ):
                if holder is not None:
                    holder[key] = {c.pop("purpose"): c for c in holder[key]}
        (tmp_path / path.name).write_text(json.dumps(doc), encoding="utf-8")
    summary = vectors.run_vectors(tmp_path)
    assert summary.ok and len(summary.vectors) == 2 and not summary.unclaimed, summary.report()
    assert [p.flipped for p in summary.probes] == [True]  # fail/07's purpose-required, re-signed with the purpose
