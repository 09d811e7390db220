"""CPB verification: the checker, registries and look-ups, derived identifiers, typed references,
domain transforms."""

from __future__ import annotations

import hashlib
import json

import pytest
import rfc8785
from conftest import UPSTREAM
from Crypto.Hash import SHA256

import fastjcs
from fastjcs import cpb, profiles
from fastjcs.cpb import DigestContext, LookupVerdict, Registry, Representation, Status
from fastjcs.profiles import TypedRefVerdict as V

UPSTREAM_VECTORS = UPSTREAM / "cpb-vectors"


def sha(b: bytes) -> str:
    return SHA256.new(b).hexdigest()


# ---------------------------------------------------------------------------------------------------
# the checker
# ---------------------------------------------------------------------------------------------------


#: The registry the tests of this file were written against (upstream c33ce1a: jcs-n registered,
#: one capsule context). The draft -06 behaviour is in test_cpb_draft06.py.
HISTORICAL = "c33ce1a"


def test_checker_verdicts_and_exit_codes():
    ok = cpb.check('{"a": [null, [], {}], "n": 0, "m": -12}')
    assert (ok.verdict, ok.exit_code, ok.violations) == ("verified", cpb.EXIT_VERIFIED, ())
    bad = cpb.check(b'{"a": {"b": null}, "c": 1.0, "c": 2}')
    assert bad.verdict == "non-conforming" and bad.exit_code == cpb.EXIT_NON_CONFORMING
    assert bad.as_dict()["violations"] == [
        {"path": '$["a"]["b"]', "rule": "P", "code": "empty-member", "offset": 7},
        {"path": '$["c"]', "rule": "R", "code": "non-integer-number", "offset": 24},
        {"path": '$["c"]', "rule": "R", "code": "duplicate-name", "offset": 29},
    ]


def test_checker_judges_the_raw_tokens_not_the_values():
    assert [v.code for v in cpb.check(b'{"x": [-0, 1E2, 9007199254740992]}').violations] == [
        "non-integer-number",
        "non-integer-number",
        "unsafe-integer",
    ]
    assert cpb.check(b'{"a": {}}').violations[0].path == '$["a"]'  # the member that is empty, not its parent


@pytest.mark.parametrize(
    "text, cls",
    [
        (b"{", fastjcs.InvalidJSONError),
        (b"[" * 20, fastjcs.DepthLimitError),
        (b'{"a": NaN}', fastjcs.InvalidJSONError),
        (b"1e999", fastjcs.FloatDomainError),
    ],
)
def test_text_that_is_not_json_is_an_error_not_a_verdict(text, cls):
    with pytest.raises(cls) as info:
        cpb.check(text, max_depth=10)
    assert isinstance(info.value, fastjcs.CanonicalizationError) and info.value.offset is not None


# ---------------------------------------------------------------------------------------------------
# registries
# ---------------------------------------------------------------------------------------------------


def test_bundled_registry_reads_the_upstream_format():
    reg = Registry.bundled(HISTORICAL)
    assert {n: (a.status, a.live) for n, a in reg.algorithms.items()} == {
        "jcs-n": (Status.OWNER_CONFIRMED, True),
        "jcs": (Status.STANDARDS_REFERENCED, True),
        "cde-n": (Status.WITHDRAWN, False),
        "as-transmitted": (Status.OWNER_CONFIRMED, True),
    }
    capsule = reg.context("agent-action-capsule")
    assert (capsule.algorithm, capsule.exclusion_set, capsule.representation) == (
        "jcs-n",
        ("capsule_id", "chain"),
        Representation.BARE_HEX,
    )
    mandate = reg.artifact_types["machine-mandate"].contexts
    assert [(c.purpose, c.algorithm, c.exclusion_set, c.representation) for c in mandate] == [
        ("identifier", "as-transmitted", None, Representation.BARE_HEX),
        ("equivalence", "jcs", (), Representation.SHA256_PREFIXED),
    ]
    with pytest.raises(cpb.ContextResolutionError):
        reg.context("machine-mandate")  # two contexts: the purpose is required


def test_every_registry_pin_reproduces_under_upstreams_construction_not_jcs():
    # The pin is SHA-256 over json.dumps(sort_keys=True, ensure_ascii=True, compact): upstream's own
    # definition (registry_schema.json). fastjcs used to hash the JCS form and report every live pin
    # wrong: the JCS digest of each bundled version is not its pin.
    for name in cpb.registry.BUNDLED_VERSIONS:
        reg = Registry.bundled(name)
        body = {k: v for k, v in reg.raw.items() if k != "snapshot_sha256"}
        independent = hashlib.sha256(
            json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode()
        ).hexdigest()
        assert reg.snapshot_sha256 == independent, name
        assert reg.snapshot_hash_matches is True, name
        assert reg.jcs_snapshot_sha256() != reg.snapshot_sha256, name
    if UPSTREAM_VECTORS.is_dir():
        for name in ("snapshot-v0.json", "snapshot-v1.json"):
            assert Registry.load(UPSTREAM_VECTORS / "registry" / name).snapshot_hash_matches is True


def test_statuses_and_legacy_spellings():
    assert [s.value for s in Status if s.live] == [
        "owner-confirmed",
        "third-party-documented",
        "provisional",
        "standards-referenced",
        "active",
    ]
    doc = {
        "schema_version": "1",
        "canonicalization_algorithms": {
            "a": {"status": "Registered"},
            "b": {"status": "Reserved"},
            "c": {"status": "provisional"},
            "d": {"status": "withdrawn"},
        },
    }
    reg = Registry.from_json(doc)
    assert [reg.lookup_algorithm(n).verdict for n in "abcde"] == [
        LookupVerdict.VERIFIED,
        LookupVerdict.HELD,
        LookupVerdict.VERIFIED,
        LookupVerdict.WITHDRAWN,
        LookupVerdict.UNKNOWN_ID,
    ]
    for bad in (
        {"schema_version": "2"},
        {"schema_version": "1", "canonicalization_algorithms": {"a": {"status": "ok"}}},
        {
            "schema_version": "1",
            "artifact_types": {"t": {"status": "provisional", "digest_contexts": [{"purpose": "x"}]}},
        },
    ):
        with pytest.raises(cpb.SnapshotFormatError):
            Registry.from_json(doc if bad is None else bad)


def test_pinned_lookups_tell_not_registered_from_not_in_my_snapshot():
    old = Registry.from_json(
        {"schema_version": "1", "canonicalization_algorithms": {"jcs-n": {"status": "Registered"}}}, pinned=True
    )
    now = Registry.bundled(HISTORICAL)
    assert old.lookup_algorithm("as-transmitted").verdict is LookupVerdict.ID_UNKNOWN_TO_SNAPSHOT
    assert old.lookup_algorithm("as-transmitted", current=now).verdict is LookupVerdict.ID_UNKNOWN_TO_SNAPSHOT
    assert old.lookup_algorithm("nope", current=now).verdict is LookupVerdict.UNKNOWN_ID
    assert old.lookup_algorithm("nope").verdict is LookupVerdict.ID_UNKNOWN_TO_SNAPSHOT  # cannot know better
    assert now.lookup_algorithm("nope").verdict is LookupVerdict.UNKNOWN_ID


# ---------------------------------------------------------------------------------------------------
# derived identifiers
# ---------------------------------------------------------------------------------------------------


CAPSULE = {"capsule_id": "x", "chain": ["p"], "agent": "a-1", "action": {"type": "read", "chain": "kept", "n": None}}


def test_capsule_identifier_excludes_capsule_id_and_chain(backend):
    want = sha(rfc8785.dumps({"agent": "a-1", "action": {"type": "read", "chain": "kept"}}))
    context = Registry.bundled(HISTORICAL).context("agent-action-capsule")
    assert context.identifier(CAPSULE) == want
    with pytest.warns(cpb.WithdrawnCanonicalizationWarning):  # a new jcs-n identifier, asked for by name
        assert cpb.derived_identifier(CAPSULE, algorithm="jcs-n", exclusion_set=["capsule_id", "chain"]) == want
    with pytest.raises(cpb.VintageError):  # jcs-n is withdrawn: an equal identifier alone fails closed
        context.verify_carried(dict(CAPSULE, capsule_id=want), want)
    draft_01 = cpb.Vintage.pre_withdrawal_draft()  # judged as the draft of that registry did
    assert context.verify_carried(dict(CAPSULE, capsule_id=want), want, vintage=draft_01) == want
    # bytes: the text path
    with pytest.warns(cpb.WithdrawnCanonicalizationWarning):
        got = cpb.derived_identifier(rfc8785.dumps(CAPSULE), algorithm="jcs-n", exclusion_set=["capsule_id", "chain"])
    assert got == want


@pytest.mark.parametrize("carried", ["0" * 64, None, "WRONG"])
def test_carried_identifier_mismatch_is_its_own_error(backend, carried):
    good = cpb.derived_identifier(CAPSULE, exclusion_set=["capsule_id", "chain"])
    for bad in (carried, good.upper(), good + "\n", " " + good):
        with pytest.raises(cpb.IdentifierMismatchError) as info:
            cpb.verify_derived_identifier(CAPSULE, bad, exclusion_set=["capsule_id", "chain"])
        assert (info.value.carried, info.value.recomputed) == (bad, good)
        assert not isinstance(info.value, fastjcs.CanonicalizationError)


# ---------------------------------------------------------------------------------------------------
# typed references
# ---------------------------------------------------------------------------------------------------

DOC = {"doc_id": None, "subject": "WS-42", "scope": "temperature-write", "issued_at": "2026-07-24T00:00:00Z"}
DOC_ID = "0c837d01faa4106c63367f199af9bfa729d1917f36dc91f9dfeb6de6ec7c6bdb"  # pinned by upstream typed-refs
AUTH = DigestContext("authorization-doc", None, "jcs-n", ("doc_id",))


def registry(*contexts: DigestContext, **statuses: Status) -> Registry:
    reg = Registry(dict(Registry.bundled(HISTORICAL).algorithms))
    for c in contexts:
        prev = reg.artifact_types.get(c.artifact_type)
        reg.artifact_types[c.artifact_type] = cpb.ArtifactType(
            c.artifact_type,
            "",
            statuses.get(c.artifact_type.replace("-", "_"), Status.PROVISIONAL),
            "",
            (prev.contexts if prev else ()) + (c,),
        )
    return reg


def ref(**kw):
    return {"type": "authorization-doc", "digest_alg": "SHA-256", "digest": DOC_ID, **kw}


def verdict(reference, artifact=DOC, reg=None, **kw):
    return profiles.verify_typed_reference(reference, artifact, registry=reg or registry(AUTH), **kw).verdict


def test_typed_reference_verifies_and_ignores_unknown_fields(backend):
    result = profiles.verify_typed_reference(ref(note="x", uri=None, purpose=None), DOC, registry=registry(AUTH))
    assert result.verified and result.recomputed == DOC_ID and result.context == AUTH


def test_every_failure_has_its_own_verdict(backend):
    two = (
        DigestContext("authorization-doc", "identifier", "jcs-n", ("doc_id",)),
        DigestContext("authorization-doc", "equivalence", "jcs", (), Representation.SHA256_PREFIXED),
    )
    cases = [
        (verdict("not an object"), V.MALFORMED_REFERENCE),
        (verdict(ref(type=7)), V.MALFORMED_REFERENCE),
        (verdict(ref(type="nope")), V.UNKNOWN_TYPE),
        (verdict(ref(), reg=registry(AUTH, authorization_doc=Status.WITHDRAWN)), V.TYPE_WITHDRAWN),
        (verdict(ref(), reg=registry(AUTH, authorization_doc=Status.HELD)), V.TYPE_HELD),
        (verdict(ref(), reg=registry(*two)), V.PURPOSE_REQUIRED),
        (verdict(ref(purpose="audit"), reg=registry(*two)), V.UNKNOWN_PURPOSE),
        (verdict(ref(purpose="identifier"), reg=registry(*two)), V.VERIFIED),
        (verdict(ref(), reg=registry(DigestContext("authorization-doc", None, "cde-n"))), V.ALGORITHM_UNAVAILABLE),
        (verdict(ref(), reg=registry(DigestContext("authorization-doc", None, "jcs-x"))), V.ALGORITHM_UNAVAILABLE),
        (verdict(ref(digest_alg="sha-256")), V.DIGEST_ALG_MISMATCH),
        (verdict(ref(digest_alg=None)), V.DIGEST_ALG_MISMATCH),
        (verdict(ref(digest="sha256:" + DOC_ID)), V.REPRESENTATION_MISMATCH),
        (verdict(ref(digest=DOC_ID + "\n")), V.REPRESENTATION_MISMATCH),
        (verdict(ref(), artifact_type="other-doc"), V.ARTIFACT_TYPE_MISMATCH),
        (verdict(ref(), artifact=dict(DOC, n=1.5)), V.ARTIFACT_NOT_CANONICALIZABLE),
        (verdict(ref(), artifact=b'{"subject": -0}'), V.ARTIFACT_NOT_CANONICALIZABLE),
        (verdict(ref(), artifact=dict(DOC, subject="WS-43")), V.DIGEST_MISMATCH),
    ]
    assert [got for got, _ in cases] == [want for _, want in cases]


def test_ambiguous_context():
    dup = DigestContext("authorization-doc", "x", "jcs")
    assert verdict(ref(purpose="x"), reg=registry(dup, dup)) is V.AMBIGUOUS_CONTEXT


def test_the_drafts_order(backend):
    """digest_alg is judged before the representation, the representation before recomputing."""
    assert verdict(ref(digest_alg="MD5", digest="nonsense"), artifact=dict(DOC, n=1.5)) is V.DIGEST_ALG_MISMATCH
    assert verdict(ref(digest="nonsense"), artifact=dict(DOC, n=1.5)) is V.REPRESENTATION_MISMATCH
    assert verdict(ref(digest="f" * 64), artifact=dict(DOC, n=1.5)) is V.ARTIFACT_NOT_CANONICALIZABLE


def test_type_not_in_registry_vs_not_in_this_snapshot(backend):
    pinned = registry()
    pinned.pinned = True
    current = registry(AUTH)
    assert verdict(ref(), reg=pinned, current=current) is V.TYPE_UNKNOWN_TO_SNAPSHOT
    assert verdict(ref(type="nope"), reg=pinned, current=current) is V.UNKNOWN_TYPE
    assert verdict(ref(type="nope"), reg=registry(AUTH)) is V.UNKNOWN_TYPE


def test_machine_mandate_equivalence_is_sha256_prefixed(backend):
    action = {"action_id": "a-1", "outcome": "done"}
    reference = {
        "type": "machine-mandate",
        "purpose": "equivalence",
        "digest_alg": "SHA-256",
        "digest": "sha256:" + sha(rfc8785.dumps(action)),
    }
    reg = Registry.bundled(HISTORICAL)
    assert profiles.verify_typed_reference(reference, action, registry=reg).verified
    assert (
        profiles.verify_typed_reference(dict(reference, digest=reference["digest"][7:]), action, registry=reg).verdict
        is V.REPRESENTATION_MISMATCH
    )
    as_sent = b"eyJhbGciOiJFUzI1NiJ9.e30.sig"
    identifier = {"type": "machine-mandate", "purpose": "identifier", "digest_alg": "SHA-256", "digest": sha(as_sent)}
    assert profiles.verify_typed_reference(identifier, as_sent, registry=reg).verified


# ---------------------------------------------------------------------------------------------------
# domain transforms
# ---------------------------------------------------------------------------------------------------


def test_stream_reassembly():
    assert cpb.reassemble_stream([{"chunk": '{"a":'}, {"chunk": "1}", "done": True}]) == b'{"a":1}'
    with pytest.raises(cpb.StreamIncompleteError):
        cpb.reassemble_stream([{"chunk": '{"a":1}'}])  # valid JSON, still incomplete
    with pytest.raises(cpb.StreamIncompleteError):
        cpb.reassemble_stream([])
    for bad in (
        [{"chunk": "", "done": True}, {"chunk": "x"}],
        [{"chunk": 1, "done": True}],
        [{"chunk": "", "done": "yes"}],
    ):
        with pytest.raises(cpb.StreamError):
            cpb.reassemble_stream(bad)


def test_member_mapping_assembly():
    source = {"a/b": {"c": [10, 20]}, "m~": 1, "t": "x"}
    mapping = {
        "fields": [
            {"source_pointer": "/a~1b/c/1", "preimage_pointer": "/x/y"},
            {"source_pointer": "/m~0", "preimage_pointer": "/m"},
        ],
        "constants": [{"value": "v1", "preimage_pointer": "/rule"}],
    }
    assert cpb.assemble_preimage(source, mapping) == {"x": {"y": 20}, "m": 1, "rule": "v1"}
    with pytest.raises(cpb.MemberMappingUndeclaredError):
        cpb.assemble_preimage(source, None)
    for bad in (
        {"fields": [{"source_pointer": "/nope", "preimage_pointer": "/x"}]},
        {
            "fields": [{"source_pointer": "/t", "preimage_pointer": "/x"}],
            "constants": [{"value": 1, "preimage_pointer": "/x"}],
        },
        {"fields": [{"source_pointer": "/a~1b/c/01", "preimage_pointer": "/x"}]},
        {"fields": [{"source_pointer": "", "preimage_pointer": "/x"}]},
    ):
        with pytest.raises(cpb.MemberMappingError):
            cpb.assemble_preimage(source, bad)


def test_errors_subclass_the_hierarchy():
    for cls in (cpb.NonIntegerNumberError, cpb.UnsafeIntegerError, cpb.DuplicateNameError):
        assert issubclass(cls, fastjcs.CanonicalizationError) and issubclass(cls, cpb.CPBError)
    assert issubclass(cpb.UnsafeIntegerError, fastjcs.IntegerDomainError)
    assert issubclass(cpb.NonIntegerNumberError, fastjcs.NonIntegerNumberError)  # one rule: the core's
    assert issubclass(cpb.DuplicateNameTextError, fastjcs.DuplicateKeyError)
    assert issubclass(cpb.WithdrawnCanonicalizationError, fastjcs.UnsupportedAlgorithmError)
    import pickle

    err = pickle.loads(pickle.dumps(cpb.NonIntegerNumberError("x", '$["a"]', b'{"a":1.5}', 5)))
    assert (err.path, err.offset, err.colno) == ('$["a"]', 5, 6)
