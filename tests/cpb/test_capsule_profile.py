"""The Agent Action Capsule profile (issue 34): format 4 only, draft -05's Class 1 checks, the
legacy format-2 path on request, and registries without the capsule.

Expected values come from outside the code under test: upstream's `vectors/capsule/` files
(../shared/upstream/aac, PROVENANCE.md there), rfc8785 and pycryptodome for every capsule id, the
draft's text (spec/draft-mih-scitt-agent-action-capsule-05.md) for the rules.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone

import pytest
import rfc8785
from conftest import UPSTREAM
from Crypto.Hash import SHA256

from fastjcs import profiles
from fastjcs.cpb import ContextResolutionError, Registry, Vintage
from fastjcs.cpb.registry import LookupVerdict
from fastjcs.profiles import TypedRefVerdict as V
from fastjcs.profiles.capsule import PROFILE, verify_capsule

AAC = UPSTREAM / "aac" / "vectors" / "capsule"
needs_aac = pytest.mark.skipif(not AAC.is_dir(), reason=f"no {AAC}")
CASES = sorted(p.name for p in AAC.iterdir() if (p / "input.json").is_file()) if AAC.is_dir() else []


def sha(b: bytes) -> str:
    return SHA256.new(b).hexdigest()


def sealed(capsule: dict) -> dict:
    """The capsule with its format-4 id: SHA-256 over rfc8785 of everything but capsule_id."""
    capsule = dict(capsule)
    capsule["capsule_id"] = sha(rfc8785.dumps({k: v for k, v in capsule.items() if k != "capsule_id"}))
    return capsule


#: upstream's pos-v4-jcs-chain-committed input, copied (its capsule id is pinned by SHA256SUMS@b0fcb95)
BASE = {
    "action_id": "v4-chain",
    "action_type": "decide",
    "assurance": {"attestation_mode": "self_attested", "effect_mode": "not_applicable", "ledger_mode": "chained"},
    "canonicalization_id": "jcs",
    "chain": {"parent_capsule_id": "a" * 64, "relation": "confirms"},
    "constraints": [],
    "developer": "agent@v1",
    "disposition": {"approver": "policy", "decision": "accept", "human_disposed": False, "verdict_class": "executed"},
    "format_version": "4",
    "operator": "ACME-CO",
    "spec_version": "draft-mih-scitt-agent-action-capsule-04",
    "timestamp": "2026-08-24T00:00:00Z",
}
BASE_ID = "862024869f00481bb4f59d9528a45c2d4885f64c5222a9324a38ac2c2cd119f2"


def checks(result) -> list:
    return [(f.check, f.severity) for f in result.findings]


def test_the_base_capsule_id_is_upstreams():
    assert sealed(BASE)["capsule_id"] == BASE_ID
    result = verify_capsule(sealed(BASE))
    assert (result.ok, result.verdict, result.capsule_id, result.reasons) == (True, "conforming", BASE_ID, ())
    assert checks(result) == [(6, "info")]  # chain parent existence: store-level
    assert dict(result.derived)["ledger_mode"] == "chained"


@needs_aac
@pytest.mark.parametrize("name", CASES)
def test_upstream_cases(backend, name):
    raw = (AAC / name / "input.json").read_bytes()
    want = json.loads((AAC / name / "expected.json").read_bytes())
    result = verify_capsule(raw)
    assert result.ok is want["ok"]
    assert checks(result) == [(f["check"], f["severity"]) for f in want["findings"]]
    assert dict(result.derived) == want["derived"]
    parsed = json.loads(raw)  # -0 reads as the integer 0 in Python: the JCS form "0" either way
    assert (
        result.capsule_id
        == want["capsule_id_recomputed"]
        == sha(rfc8785.dumps({k: v for k, v in parsed.items() if k != "capsule_id"}))
    )


@pytest.mark.parametrize(
    "change",
    [
        {"format_version": "3"},  # never published: neg-v3-format-version-unsupported
        {"format_version": "1"},
        {"format_version": 4},
        {"format_version": "2"},  # format 2 without a legacy request: refused like any other
        {"canonicalization_id": "jcs-n"},  # explicit jcs-n MUST be rejected
        {"canonicalization_id": "future-algorithm"},
        {"canonicalization_id": ""},
        {"canonicalization_id": None},
        {"canonicalization_id": ["jcs"]},
        {"canonicalization_id": "JCS"},
    ],
    ids=repr,
)
def test_refused_declarations_fail_closed_before_any_digest(change):
    capsule = sealed({**BASE, **change})
    result = verify_capsule(capsule)
    assert (result.ok, checks(result), result.capsule_id) == (False, [(1, "error")], None)
    assert result.verdict == "non-conforming" and len(result.reasons) == 1


def test_an_absent_declaration_is_refused_not_sent_down_the_jcs_n_path():
    capsule = sealed({k: v for k, v in BASE.items() if k != "canonicalization_id"})
    result = verify_capsule(capsule)
    assert (result.ok, result.reasons, result.legacy) == (False, ("canonicalization-missing",), False)


# ---- format 2: the legacy path, only on request, with evidence, and said -------------------------

# a format-2 capsule: no declaration; under jcs-n its id excludes chain and drops the empty constraints
LEGACY = {**{k: v for k, v in BASE.items() if k != "canonicalization_id"}, "format_version": "2"}
LEGACY_ID = sha(rfc8785.dumps({k: v for k, v in LEGACY.items() if k not in ("chain", "constraints")}))


def receipt(when):
    def check(evidence, digest):
        if evidence != {"receipt-for": digest}:
            raise ValueError("the receipt binds another digest")
        return when

    return check


def test_format_2_verifies_only_on_a_legacy_request_with_evidence_and_says_so():
    capsule = {**LEGACY, "capsule_id": LEGACY_ID}
    assert verify_capsule(capsule).reasons == ("unsupported-format-version",)
    evidence = Vintage({"receipt-for": LEGACY_ID}, receipt(datetime(2026, 7, 24, tzinfo=timezone.utc)))
    result = verify_capsule(capsule, legacy=evidence)
    assert result.ok and result.legacy and result.capsule_id == LEGACY_ID
    assert ("legacy-format-2", "info") in [(f.code, f.severity) for f in result.findings]
    assert result.as_dict()["legacy"] is True
    late = Vintage({"receipt-for": LEGACY_ID}, receipt(datetime(2026, 8, 18, tzinfo=timezone.utc)))
    assert "vintage-unestablished" in verify_capsule(capsule, legacy=late).reasons
    declared = verify_capsule({**capsule, "canonicalization_id": "jcs-n"}, legacy=evidence)
    assert (declared.ok, declared.reasons, declared.capsule_id) == (False, ("legacy-declares-algorithm",), None)
    # a format-4 capsule is never judged under the legacy path, evidence or not
    assert not verify_capsule(sealed(BASE), legacy=evidence).legacy


# ---- checks 1, 3-6 and 9 --------------------------------------------------------------------------


def test_hostile_text_is_a_finding_never_a_crash():
    deep = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    for text in (deep, b"{", b'{"a":1,"a":2}', b"[1]", b"\xff", b'{"x": NaN}'):
        result = verify_capsule(text)
        assert not result.ok and result.findings[0].check == 1, text[:20]


def test_floats_and_unsafe_integers_anywhere_are_check_1():
    result = verify_capsule(sealed({**BASE, "extension": {"deep": [{"v": 0.5}]}}))
    assert result.reasons == ("float-in-digest-field",)  # JCS can hash it: check 1 refuses it anyway
    for value in (2**53, -(2**53)):  # no JCS form (rfc8785 refuses it too): no capsule id either
        result = verify_capsule({**BASE, "capsule_id": "0" * 64, "extension": {"deep": [{"v": value}]}})
        assert result.reasons == ("unsafe-integer", "not-canonicalizable") and result.capsule_id is None
    text = json.dumps(sealed({**BASE, "extension": 9007199254740991})).encode()
    assert verify_capsule(text).ok  # the safe maximum is accepted
    assert verify_capsule(text.replace(b"9007199254740991", b"1.0")).reasons[0] == "float-in-digest-field"


def test_effect_checks():
    confirmed = {"status": "confirmed", "type": "write_order", "effect_attestation": "gate_executed"}
    result = verify_capsule(sealed({**BASE, "effect": confirmed}))
    assert [f.check for f in result.findings if f.severity == "error"] == [3]
    assert dict(result.derived)["effect_mode"] == "dispatched_unconfirmed"  # the binding did not hold
    bound = verify_capsule(sealed({**BASE, "effect": {**confirmed, "response_digest": "b" * 64}}))
    assert bound.ok and dict(bound.derived)["effect_mode"] == "confirmed"
    blocked = {**BASE["disposition"], "verdict_class": "blocked"}
    dispatched = {"status": "dispatched", "type": "write_order", "effect_attestation": "runtime_claimed"}
    result = verify_capsule(sealed({**BASE, "disposition": blocked, "effect": dispatched}))
    assert [f.check for f in result.findings if f.severity == "error"] == [4]
    planned = {"status": "planned", "type": "write_order", "effect_attestation": "gate_executed"}
    assert [f.check for f in verify_capsule(sealed({**BASE, "effect": planned})).findings if f.severity == "error"] == [
        5
    ]
    failed = {"status": "failed", "type": "write_order"}
    assert verify_capsule(sealed({**BASE, "effect": failed})).reasons == ("attestation-missing",)


def test_concurrent_supersedes_surface_on_the_later_one():
    parent = sealed({k: v for k, v in {**BASE, "action_id": "parent"}.items() if k != "chain"})
    over = {"parent_capsule_id": parent["capsule_id"], "relation": "supersedes"}
    first = sealed({**BASE, "action_id": "first", "chain": over})
    second = sealed({**BASE, "action_id": "second", "chain": over})
    ledger = [parent, first, second]
    assert verify_capsule(first, store=ledger).findings == ()  # the earliest: authoritative
    later = verify_capsule(second, store=ledger)
    assert later.ok and [(f.check, f.severity, f.code) for f in later.findings] == [
        (6, "info", "concurrent-supersedes")
    ]
    follows = sealed({**BASE, "action_id": "third", "chain": {**over, "relation": "follows"}})
    assert verify_capsule(follows, store=[*ledger, follows]).findings == ()


def test_chain_parent_against_a_store():
    capsule = sealed(BASE)
    assert verify_capsule(capsule, store=[]).reasons == ("chain-missing-parent",)
    assert verify_capsule(capsule, store=[{"capsule_id": "a" * 64}]).findings == ()
    dup = {"type": "agent-action-capsule", "digest_alg": "SHA-256", "digest": "a" * 64}
    assert "reference-duplicates-parent" in verify_capsule(sealed({**BASE, "references": [dup]})).reasons
    other = {**dup, "digest_alg": "SHA-384"}  # the same hex under another algorithm is not the parent
    assert verify_capsule(sealed({**BASE, "references": [other]})).ok


BACKFILLED = {
    "mode": "backfilled",
    "source_ref": {"type": "legacy-ledger-row", "digest_alg": "SHA-256", "digest": "c" * 64},
    "source_asserted_at": "2025-01-02T03:04:05Z",
    "import_batch": "batch-7",
    "imported_at": "2026-10-01T00:00:00Z",
}


def _backfilled_without(name: str) -> dict:
    return {k: v for k, v in BACKFILLED.items() if k != name}


CORROBORATES = {
    "type": "rfc3161-timestamp",
    "digest_alg": "SHA-256",
    "digest": "d" * 64,
    "citation_purpose": "corroborates_source_time",
}


@pytest.mark.parametrize(
    ("block", "references", "reasons", "rung"),
    [
        (BACKFILLED, None, (), "self_attested"),
        ({"mode": "contemporaneous"}, None, (), None),
        ({**BACKFILLED, "time_rung": "witnessed"}, [CORROBORATES], (), "witnessed"),
        ({**BACKFILLED, "time_rung": "witnessed"}, None, ("time-rung-overclaim",), "self_attested"),
        ({**BACKFILLED, "time_rung": "witnessed"}, [{**CORROBORATES, "citation_purpose": "acted_on"}],
         ("time-rung-overclaim",), "self_attested"),
        (_backfilled_without("import_batch"), None, ("backfilled-import-batch",), "self_attested"),
        (_backfilled_without("source_ref"), None, ("backfilled-source-ref",), "self_attested"),
        ({**BACKFILLED, "imported_at": "yesterday"}, None, ("backfilled-time",), "self_attested"),
        ({**BACKFILLED, "imported_at": BACKFILLED["source_asserted_at"]}, None, ("laundered-time",), "self_attested"),
        ({"mode": "contemporaneous", "time_rung": "self_attested"}, None, ("time-rung-not-backfilled",), None),
        ({"mode": "imported"}, None, ("provenance-mode-invalid",), None),
    ],
)  # fmt: skip
def test_check_9_provenance_mode(block, references, reasons, rung):
    capsule = {**BASE, "provenance_mode": block}
    if references is not None:
        capsule["references"] = references
    result = verify_capsule(sealed(capsule))
    assert result.reasons == reasons
    assert all(f.check == 9 for f in result.findings if f.severity == "error")
    assert (result.provenance_mode, result.time_rung) == (
        block["mode"] if block["mode"] in ("backfilled", "contemporaneous") else None,
        rung,
    )


def test_the_honesty_assert_warns_without_gating():
    lying = {**BASE["disposition"], "human_disposed": True}
    result = verify_capsule(sealed({**BASE, "disposition": lying}))
    assert result.ok and (None, "warning") in checks(result)


def test_unknown_registry_values_are_informational():
    capsule = sealed({**BASE, "chain": {**BASE["chain"], "relation": "sequence"}})
    result = verify_capsule(capsule)
    assert result.ok and (8, "info") in checks(result)


def test_the_profile_data_says_where_it_comes_from():
    source = PROFILE["provenance"]
    assert source["repository"] == "action-state-group/agent-action-capsule"
    assert len(source["spec"]["commit"]) == 40 and source["spec"]["path"].endswith("-05.md")
    assert PROFILE["format"]["exclusion_set"] == ["capsule_id"]
    assert PROFILE["legacy"]["verified_upstream_by"]["commit"] == "43b349dd6e8ee5f30dac3add9261b8f84e13ba7e"


# ---- registries without the capsule (upstream's, since 2026-10-04) -------------------------------


def without_capsule() -> Registry:
    doc = copy.deepcopy(dict(Registry.bundled().raw))
    del doc["artifact_types"]["agent-action-capsule"]
    body = {k: v for k, v in doc.items() if k != "snapshot_sha256"}  # the publisher's pin construction
    doc["snapshot_sha256"] = sha(json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode())
    return Registry.from_json(json.dumps(doc))


def test_a_registry_without_the_capsule_loads_and_capsules_still_verify():
    reg = without_capsule()
    assert reg.snapshot_hash_matches and list(reg.artifact_types) == ["machine-mandate"]
    assert verify_capsule(sealed(BASE)).ok  # the profile needs no registry
    assert reg.lookup_artifact_type("agent-action-capsule").verdict is LookupVerdict.REMOVED
    assert reg.lookup_artifact_type("no-such-type").verdict is LookupVerdict.UNKNOWN_ID
    with pytest.raises(ContextResolutionError, match="removed") as info:
        reg.context("agent-action-capsule")
    assert info.value.reason == "removed-from-registry"
    with pytest.deprecated_call(), pytest.raises(ContextResolutionError) as info:
        reg.capsule_context(sealed(BASE))
    assert info.value.reason == "removed-from-registry"


def test_a_typed_reference_to_a_removed_type_says_removed_not_unknown(backend):
    ref = {"type": "agent-action-capsule", "purpose": "identifier", "digest_alg": "SHA-256", "digest": BASE_ID}
    result = profiles.verify_typed_reference(ref, sealed(BASE), registry=without_capsule())
    assert result.verdict is V.TYPE_REMOVED and "removed from the registry" in result.detail
    other = profiles.verify_typed_reference({**ref, "type": "no-such-type"}, {}, registry=without_capsule())
    assert other.verdict is V.UNKNOWN_TYPE
    # a registry that still holds the entry resolves it, as before
    held = profiles.verify_typed_reference(
        {**ref, "canonicalization_id": "jcs"}, sealed(BASE), registry=Registry.bundled()
    )
    assert held.verdict is V.VERIFIED
