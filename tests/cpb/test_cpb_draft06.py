"""CPB as of draft -06 (issue 24): jcs the default, jcs-n only for vintage records behind evidence,
both published registry versions, capsule contexts, COSE as-transmitted, raw vs hex.

Expected values come from outside the code under test: rfc8785 and pycryptodome for digests,
cbor2 for building COSE messages, json.dumps for upstream's pin construction, the upstream vector
files (hex constants copied here with their path) and the draft's text.
"""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timedelta, timezone

import cbor2
import pytest
import rfc8785
from Crypto.Hash import SHA256

from fastjcs import cpb, profiles
from fastjcs.cpb import ContextResolutionError, Registry, Representation, Status, Vintage, VintageError, cose
from fastjcs.profiles import TypedRefVerdict as V


def sha(b: bytes) -> str:
    return SHA256.new(b).hexdigest()


VALUE = {"z": None, "a": {}, "m": [], "s": "CPB"}  # upstream jcs/pass/01
JCS_BYTES = b'{"a":{},"m":[],"s":"CPB","z":null}'


# ---------------------------------------------------------------------------------------------------
# jcs: the default and only algorithm for new digests and identifiers
# ---------------------------------------------------------------------------------------------------


def test_the_default_is_jcs_everywhere(backend):
    assert rfc8785.dumps(VALUE) == JCS_BYTES
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default never warns
        assert cpb.DEFAULT_CANONICALIZATION == "jcs"
        assert cpb.preimage(VALUE) == JCS_BYTES  # jcs-n (the old default) would drop z, a and m
        assert cpb.preimage_text(json.dumps(VALUE).encode()) == JCS_BYTES
        assert cpb.canonical_digest(VALUE) == sha(JCS_BYTES)
        assert cpb.canonical_digest_text(json.dumps(VALUE).encode()) == sha(JCS_BYTES)
        assert cpb.derived_identifier(dict(VALUE, id="x"), exclusion_set=["id"]) == sha(JCS_BYTES)
        assert cpb.verify_derived_identifier(VALUE, sha(JCS_BYTES)) == sha(JCS_BYTES)
        assert cpb.canonical_digest({"f": 1.5}) == sha(b'{"f":1.5}')  # RFC 8785 numbers: floats allowed


def test_jcs_n_by_name_warns_and_the_historical_functions_do_not(backend):
    jcs_n = b'{"s":"CPB"}'
    calls = [
        lambda: cpb.preimage(VALUE, algorithm="jcs-n"),
        lambda: cpb.preimage_text(json.dumps(VALUE).encode(), algorithm="jcs-n"),
        lambda: cpb.canonical_digest(VALUE, algorithm="jcs-n"),
        lambda: cpb.canonical_digest_text(json.dumps(VALUE).encode(), algorithm="jcs-n"),
        lambda: cpb.derived_identifier(VALUE, algorithm="jcs-n"),
    ]
    for call in calls:
        with pytest.warns(cpb.WithdrawnCanonicalizationWarning, match="withdrawn"):
            got = call()
        assert got in (jcs_n, sha(jcs_n))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cpb.historical_preimage(VALUE, algorithm="jcs-n") == jcs_n
        assert cpb.historical_preimage_text(json.dumps(VALUE).encode(), algorithm="jcs-n") == jcs_n
    assert (cpb.CANONICALIZATIONS["jcs-n"].status, cpb.CANONICALIZATIONS["jcs-n"].withdrawn) == ("Withdrawn", True)
    assert [(a.name, a.status, a.cose_alg) for a in cpb.CANONICALIZATIONS.values()] == [  # draft -06 §10.1 table
        ("jcs", "Active", -16),
        ("jcs-n", "Withdrawn", -16),
        ("as-transmitted", "Active", -16),
        ("cde-n", "Withdrawn", None),
    ]
    with pytest.raises(cpb.WithdrawnCanonicalizationError):
        cpb.preimage(VALUE, algorithm="cde-n")  # never defined: fails closed under every vintage


# ---------------------------------------------------------------------------------------------------
# jcs-n vintage: evidence + callback, or fail closed
# ---------------------------------------------------------------------------------------------------

AUTH = {"doc_id": None, "subject": "WS-42", "scope": "temperature-write", "issued_at": "2026-07-24T00:00:00Z"}
AUTH_ID = "0c837d01faa4106c63367f199af9bfa729d1917f36dc91f9dfeb6de6ec7c6bdb"  # upstream typed-refs/pass/01
BEFORE = datetime(2026, 7, 24, tzinfo=timezone.utc)
CUTOFF = datetime(2026, 8, 18, tzinfo=timezone.utc)  # draft -06: the start of 2026-08-18 UTC


def binding(when):
    def check(evidence, digest):
        if evidence != {"receipt-for": digest}:
            raise ValueError("the receipt binds another digest")
        return when

    return check


def test_a_jcs_n_identifier_verifies_only_with_vintage_evidence(backend):
    assert sha(rfc8785.dumps({k: v for k, v in AUTH.items() if k != "doc_id"})) == AUTH_ID
    args = (AUTH, AUTH_ID)
    kw = {"algorithm": "jcs-n", "exclusion_set": ["doc_id"]}
    good = Vintage({"receipt-for": AUTH_ID}, binding(BEFORE))
    assert cpb.verify_derived_identifier(*args, vintage=good, **kw) == AUTH_ID
    failures = {
        "no-evidence": None,
        "no-callback": Vintage({"receipt-for": AUTH_ID}),
        "callback-error": Vintage({"receipt-for": "0" * 64}, binding(BEFORE)),  # binds another digest
        "not-a-datetime": Vintage({"receipt-for": AUTH_ID}, lambda e, d: "2026-07-24"),
        "naive-time": Vintage({"receipt-for": AUTH_ID}, binding(datetime(2026, 7, 24))),
        "at-or-after-cutoff": Vintage({"receipt-for": AUTH_ID}, binding(CUTOFF)),
    }
    for reason, vintage in failures.items():
        with pytest.raises(VintageError) as info:
            cpb.verify_derived_identifier(*args, vintage=vintage, **kw)
        assert info.value.reason == reason
    just_before = Vintage({"receipt-for": AUTH_ID}, binding(CUTOFF - timedelta(microseconds=1)))
    assert cpb.verify_derived_identifier(*args, vintage=just_before, **kw) == AUTH_ID
    other_zone = Vintage(
        {"receipt-for": AUTH_ID}, binding(datetime(2026, 8, 18, 1, tzinfo=timezone(timedelta(hours=2))))
    )
    assert cpb.verify_derived_identifier(*args, vintage=other_zone, **kw) == AUTH_ID  # 23:00 UTC on the 17th
    # a mismatch is reported as the mismatch it is, evidence or not
    with pytest.raises(cpb.IdentifierMismatchError):
        cpb.verify_derived_identifier(AUTH, "0" * 64, **kw)
    assert issubclass(VintageError, cpb.CPBError)


def test_typed_reference_under_withdrawn_jcs_n_fails_closed_with_digest_agreement(backend):
    ctx = cpb.DigestContext("authorization-doc", None, "jcs-n", ("doc_id",))
    ref = {"type": "authorization-doc", "digest_alg": "SHA-256", "digest": AUTH_ID}
    for version in ("11fa7c0", "960db41"):  # both list jcs-n withdrawn
        reg = Registry(dict(Registry.bundled(version).algorithms), {"authorization-doc": _type(ctx)})
        r = profiles.verify_typed_reference(ref, AUTH, registry=reg)
        assert (r.verdict, r.digest_agreement, r.vintage_reason) == (V.VINTAGE_UNESTABLISHED, True, "no-evidence")
        good = Vintage({"receipt-for": AUTH_ID}, binding(BEFORE))
        r = profiles.verify_typed_reference(ref, AUTH, registry=reg, vintage=good)
        assert (r.verdict, r.digest_agreement) == (V.VERIFIED, True)
        bad = profiles.verify_typed_reference(dict(ref, digest="0" * 64), AUTH, registry=reg)
        assert (bad.verdict, bad.digest_agreement) == (V.DIGEST_MISMATCH, False)
    # a registry from before the withdrawal (jcs-n registered) judges as the drafts of its time
    old = Registry(dict(Registry.bundled("c33ce1a").algorithms), {"authorization-doc": _type(ctx)})
    assert profiles.verify_typed_reference(ref, AUTH, registry=old).verdict is V.VERIFIED


def _type(*contexts):
    return cpb.ArtifactType(contexts[0].artifact_type, "test", Status.OWNER_CONFIRMED, "owner-confirmed", contexts)


# ---------------------------------------------------------------------------------------------------
# registries: both published versions, their pins, findings, statuses, capsule contexts
# ---------------------------------------------------------------------------------------------------


def test_both_published_registries_load_and_their_pins_reproduce_as_upstream_computes_them():
    for version in ("11fa7c0", "960db41"):
        reg = Registry.bundled(version)
        body = {k: v for k, v in reg.raw.items() if k != "snapshot_sha256"}
        pin = sha(json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode())
        assert reg.snapshot_sha256 == pin and reg.snapshot_hash_matches is True
        assert reg.jcs_snapshot_sha256() == sha(rfc8785.dumps(body)) != pin  # not JCS: say so, check theirs
        assert reg.algorithms["jcs-n"].status is Status.WITHDRAWN
        assert reg.algorithms["jcs"].live and reg.algorithms["as-transmitted"].live
    assert Registry.bundled().version == "11fa7c0"  # the default: the one that validates against the schema
    assert Registry.bundled("11fa7c0").findings == ()
    assert set(Registry.bundled("960db41").artifact_types) - set(Registry.bundled("11fa7c0").artifact_types) == {
        "evidence-record",
        "evidence-appraisal",
    }
    with pytest.raises(cpb.SnapshotFormatError):
        Registry.bundled("nope")
    with pytest.raises(cpb.SnapshotFormatError):
        Registry.load("/nonexistent/registry.json")


def test_schema_departures_are_findings_not_refusals():
    findings = Registry.bundled("960db41").findings
    assert len(findings) == 6 and all("representation" in f and "is not one of" in f for f in findings)
    assert findings[0].startswith("$.artifact_types.agent-action-capsule.digest_contexts[0].representation")
    extra = json.loads(cpb.registry.BUNDLED_VERSIONS["11fa7c0"].read_text())
    extra["canonicalization_algorithms"]["jcs"]["colour"] = "blue"
    del extra["artifact_types"]["machine-mandate"]["reference"]
    assert Registry.from_json(extra).findings == (
        "$.canonicalization_algorithms.jcs.colour: member not allowed by the schema",
        "$.artifact_types.machine-mandate: required member 'reference' is missing",
    )


def test_draft_06_statuses_digest_alg_and_cose_alg():
    doc = {
        "schema_version": "1",
        "canonicalization_algorithms": {
            "jcs": {"status": "Active", "digest_alg": "SHA-256", "cose_alg": -16},
            "x": {"status": "Reserved", "digest_alg": "N/A", "cose_alg": "N/A"},
            "jcs-n": {"status": "Withdrawn", "digest_alg": "SHA-256", "cose_alg": -16},
        },
    }
    reg = Registry.from_json(doc)
    got = {n: (a.status, a.live, a.digest_alg, a.cose_alg) for n, a in reg.algorithms.items()}
    assert got == {
        "jcs": (Status.ACTIVE, True, "SHA-256", -16),
        "x": (Status.HELD, False, None, None),
        "jcs-n": (Status.WITHDRAWN, False, "SHA-256", -16),
    }
    for bad in ({"cose_alg": "-16"}, {"cose_alg": True}, {"digest_alg": ""}, {"digest_alg": 256}):
        d = json.loads(json.dumps(doc))
        d["canonicalization_algorithms"]["jcs"].update(bad)
        with pytest.raises(cpb.SnapshotFormatError):
            Registry.from_json(d)


# format_version "4" since issue 34: the capsule's draft -05 takes the format from it, and refuses a
# declaration without it (the deprecated capsule_context follows; fastjcs.profiles.capsule is the API)
CAPSULE4 = {
    "capsule_id": "x",
    "format_version": "4",
    "canonicalization_id": "jcs",
    "chain": ["p"],
    "n": None,
    "score": 0.5,
}


def test_capsule_contexts_are_told_apart_by_canonicalization_id_and_profile_version(backend):
    for version in ("11fa7c0", "960db41"):
        reg = Registry.bundled(version)
        with pytest.raises(ContextResolutionError) as info:
            reg.context("agent-action-capsule")  # two identifier contexts: no KeyError, a CPB error
        assert info.value.reason == "ambiguous-context" and not isinstance(info.value, KeyError)
        with pytest.deprecated_call():
            new = reg.capsule_context(CAPSULE4)
        assert (new.algorithm, new.exclusion_set, new.representation) == (
            "jcs",
            ("capsule_id",),
            Representation.BARE_HEX,
        )
        assert new == reg.context("agent-action-capsule", profile_version="draft-mih-scitt-agent-action-capsule-04")
        # formats 3 and 4: plain jcs minus capsule_id; the chain is committed, null kept, floats allowed
        want = sha(rfc8785.dumps({k: v for k, v in CAPSULE4.items() if k != "capsule_id"}))
        assert new.identifier(CAPSULE4) == want
        with pytest.deprecated_call():
            old = reg.capsule_context({"capsule_id": "x", "chain": []})  # earlier formats: jcs-n (vintage)
        assert (old.algorithm, old.exclusion_set) == ("jcs-n", ("capsule_id", "chain"))
        legacy = {"capsule_id": "x", "chain": ["p"], "agent": "a-1", "n": None}
        lid = sha(rfc8785.dumps({"agent": "a-1"}))
        with pytest.raises(VintageError):  # equal bytes alone: the record fails closed
            old.verify_carried(legacy, lid)
        assert old.verify_carried(legacy, lid, vintage=Vintage({"receipt-for": lid}, binding(BEFORE))) == lid
        with pytest.raises(cpb.IdentifierMismatchError):
            old.verify_carried(legacy, "0" * 64, vintage=Vintage({"receipt-for": lid}, binding(BEFORE)))
        ref = {"type": "agent-action-capsule", "purpose": "identifier", "digest_alg": "SHA-256", "digest": want}
        assert profiles.verify_typed_reference(ref, CAPSULE4, registry=reg).verdict is V.AMBIGUOUS_CONTEXT
        ref["canonicalization_id"] = "jcs"
        assert profiles.verify_typed_reference(ref, CAPSULE4, registry=reg).verdict is V.VERIFIED
    with pytest.raises(ContextResolutionError) as info:
        Registry.bundled().context("agent-action-capsule", canonicalization_id="cde-n")
    assert info.value.reason == "unknown-purpose"
    with pytest.raises(ContextResolutionError):
        Registry.bundled().context("no-such-type")


def test_the_schema_tokens_for_representation_are_read():
    # registry 11fa7c0 writes "sha256-prefixed" where c33ce1a wrote prose; it was read as "no known
    # representation" and every machine-mandate equivalence reference became representation-mismatch
    eq = Registry.bundled("11fa7c0").context("machine-mandate", "equivalence")
    assert eq.representation is Representation.SHA256_PREFIXED
    art = {"action_id": "a-1", "outcome": "done"}
    ref = {"type": "machine-mandate", "purpose": "equivalence", "digest_alg": "SHA-256"}
    ref["digest"] = "sha256:" + sha(rfc8785.dumps(art))
    assert profiles.verify_typed_reference(ref, art, registry=Registry.bundled()).verdict is V.VERIFIED
    assert cpb.registry.parse_representation("raw") is Representation.RAW


# ---------------------------------------------------------------------------------------------------
# as-transmitted over COSE_Sign1 (RFC 9052 §4.4), RFC 9995, raw vs hex
# ---------------------------------------------------------------------------------------------------

# upstream vectors/as-transmitted/pass/01-cose-sign1-to-be-signed.json
SIGN1 = bytes.fromhex(
    "d28443a10127a045ff004350425840bf677421861df4923d00eab2c290d98fd7f35cd975bcdee2995284d32090166c"
    "f25a01a0fa1373a23c7960f67be99d2af5c8795a6039fbe0ce07cb110bbe4a0d"
)
TBS = bytes.fromhex("846a5369676e61747572653143a101274045ff00435042")


def test_sig_structure_is_the_rfc9052_tobesigned_octets():
    assert cose.sig_structure(SIGN1) == TBS
    assert (
        cose.as_transmitted_digest(SIGN1)
        == sha(TBS)
        == "12dfd0e052395cfe91d00136371028348507a072963ad16764366f51503b8657"
    )
    # built independently with cbor2: ["Signature1", protected bstr as sent, external_aad, payload]
    protected = cbor2.dumps({1: -7})
    msg = cbor2.dumps(cbor2.CBORTag(18, [protected, {4: b"kid"}, b"\x00payload", b"sig"]))
    assert cose.sig_structure(msg, external_aad=b"aad") == cbor2.dumps(
        ["Signature1", protected, b"aad", b"\x00payload"]
    )
    untagged = cbor2.dumps([protected, {}, None, b"sig"])  # detached payload, untagged
    assert cose.sig_structure(untagged, detached_payload=b"p") == cbor2.dumps(["Signature1", protected, b"", b"p"])
    with pytest.raises(cose.COSEError, match="detached"):
        cose.sig_structure(untagged)


def test_the_hex_text_of_the_octets_is_not_the_preimage():
    hex_text = TBS.hex().encode("ascii")
    assert len(hex_text) == 46
    with pytest.raises(cpb.IdentifierMismatchError) as info:
        cose.verify_as_transmitted(SIGN1, sha(hex_text))  # as-transmitted/fail/01's carried digest
    assert info.value.recomputed == sha(TBS)
    assert cose.verify_as_transmitted(SIGN1, sha(TBS)) == sha(TBS)


@pytest.mark.parametrize(
    "data",
    [b"", b"\xff", cbor2.dumps(cbor2.CBORTag(17, [b"", {}, b"", b""])), cbor2.dumps([b"", {}, b""]), cbor2.dumps("x")],
)
def test_what_is_not_a_cose_sign1_is_a_cose_error(data):
    with pytest.raises(cose.COSEError):
        cose.sig_structure(data)
    assert issubclass(cose.COSEError, cpb.CPBError)


def _envelope(payload: bytes, protected_extra=None, unprotected=None) -> bytes:
    protected = {1: -8, 258: -16, 259: "application/json", **(protected_extra or {})}
    return cbor2.dumps(cbor2.CBORTag(18, [cbor2.dumps(protected), unprotected or {}, payload, b"sig"]))


def test_hash_envelope_payload_is_the_raw_digest():
    pre = b'{"record":"example","value":"21.5"}'  # upstream typed-refs/pass/04 payload_preimage_hex
    raw = SHA256.new(pre).digest()
    assert raw.hex() == "2615624768a0e6ad3f6a41b88141aa87e67214ee3f5e98538fbc1bd70457a09d"
    assert cose.check_hash_envelope(_envelope(raw), pre).payload == raw
    for bad, words in (
        (_envelope(raw.hex().encode()), "hex text"),
        (_envelope(raw, {3: "application/json"}), "content_type"),
        (_envelope(raw, unprotected={258: -16}), "unprotected"),
        (_envelope(raw, {258: 99}), "label 258"),
        (_envelope(SHA256.new(b"other").digest()), "raw sha256 digest"),
    ):
        with pytest.raises(cose.COSEError, match=words):
            cose.check_hash_envelope(bad, pre)


def test_leaf_input_follows_the_declaration_never_the_shape():
    d = "1009a072df7fc0bfc6fcf49ca2f194067f6c0136c871a88d4fbd66a13361c1d1"  # representation-contrast/01
    assert cpb.leaf_input(d, "raw") == bytes.fromhex(d)
    assert sha(cpb.leaf_input(d, "raw")) == "3bb864554d10c141a432bd742837d7e1f3bed23afff758f64aa3693c679f5f83"
    assert cpb.leaf_input(d, "hex") == d.encode("ascii")
    assert sha(cpb.leaf_input(d, "hex")) == "e5adfa92f0e3df5fb9ee0592cbfa733dc896f425ab7f7a2c710e1e4831fd9113"
    for identifier, representation in ((d, "auto"), (d, None), (d.upper(), "raw"), (d + "\n", "raw"), (d[:-2], "hex")):
        with pytest.raises(cpb.CanonicalizationUsageError):
            cpb.leaf_input(identifier, representation)
    with pytest.raises(cpb.SnapshotFormatError):
        Representation.RAW.render(d)  # raw is octets: it has no text rendering


@pytest.mark.parametrize(
    "declared",
    [
        {"format_version": "3", "canonicalization_id": "jcs"},  # format 3 was never published (issue 34)
        {"format_version": "4", "canonicalization_id": "jcs-n"},  # explicit jcs-n MUST be rejected
        {"format_version": "2", "canonicalization_id": "jcs-n"},
        {"format_version": "4"},  # format 4 without the declaration: refused, not sent down the jcs-n path
        {"format_version": "4", "canonicalization_id": None},
        {"format_version": "4", "canonicalization_id": "future-algorithm"},
    ],
)
def test_deprecated_capsule_context_refuses_what_draft_05_refuses(declared):
    reg = Registry.bundled()
    with pytest.deprecated_call(), pytest.raises(ContextResolutionError) as info:
        reg.capsule_context({"capsule_id": "x", **declared})
    assert info.value.reason == "malformed-reference"
