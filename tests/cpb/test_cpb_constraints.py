"""Digest-context constraints: each clause of the bundled registry's contexts, quoted from the
registry, checked before hashing; the verdict artifact-violates-context; value and text alike.

Expected digests come from rfc8785 and pycryptodome, never from the code under test.
"""

from __future__ import annotations

import base64
import json

import pytest
import rfc8785
from conftest import UPSTREAM
from Crypto.Hash import SHA256

from fastjcs import cpb, profiles
from fastjcs.cpb import ContextConstraints, ContextViolationError, Registry, SnapshotFormatError
from fastjcs.cpb.constraints import KNOWN_PROSE
from fastjcs.profiles import TypedRefVerdict as V

# The registry these clauses were written against (upstream c33ce1a, jcs-n registered): the
# capsule had one context then. tests/cpb/test_cpb_draft06.py covers the newer versions.
REGISTRY = Registry.bundled("c33ce1a")
EQUIVALENCE = REGISTRY.context("machine-mandate", "equivalence")
MM_IDENTIFIER = REGISTRY.context("machine-mandate", "identifier")
CAPSULE = REGISTRY.context("agent-action-capsule", "identifier")


def sha(b: bytes) -> str:
    return SHA256.new(b).hexdigest()


def b64(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


JWS = ".".join(
    [
        b64(b'{"alg":"ES256","typ":"dc+sd-jwt"}'),
        b64(b'{"_sd":["x"],"iss":"https://issuer"}'),
        b64(b"\x01\x02\x03signature"),
    ]
)
DISCLOSURE = b64(b'["salt","given_name","Ada"]')


def equivalence_ref(digest_hex: str) -> dict:
    return {
        "type": "machine-mandate",
        "purpose": "equivalence",
        "digest_alg": "SHA-256",
        "digest": "sha256:" + digest_hex,
    }


def verify(artifact, digest_hex):
    return profiles.verify_typed_reference(equivalence_ref(digest_hex), artifact, registry=REGISTRY)


def field_set_prose(type_name: str, purpose: str) -> str:
    raw = (
        json.loads(open(UPSTREAM / "cpb-registry.json", encoding="utf-8").read())
        if (UPSTREAM / "cpb-registry.json").exists()
        else REGISTRY.raw
    )
    for c in raw["artifact_types"][type_name]["digest_contexts"]:
        if c["purpose"] == purpose:
            return c["field_set"]
    raise KeyError(purpose)


# ---------------------------------------------------------------------------------------------------
# The bundled contexts carry the constraints their prose states (one test per clause)
# ---------------------------------------------------------------------------------------------------


def test_the_constraints_are_read_from_the_registrys_exact_words():
    # The bundled snapshot is upstream's file verbatim; the built-in reading applies to that prose only.
    for type_name, purpose, prose in KNOWN_PROSE:
        assert field_set_prose(type_name, purpose) == prose
    for ctx in (EQUIVALENCE, MM_IDENTIFIER, CAPSULE):
        assert ctx.constraints is not None and ctx.not_machine_checked == ()


def test_clause_closed_field_set():
    # "{action_id, outcome}, closed"
    assert "{action_id, outcome}, closed" in EQUIVALENCE.field_set
    c = EQUIVALENCE.constraints
    assert c.field_set == "closed" and dict(c.members).keys() == {"action_id", "outcome"}
    art = {"action_id": "a-1", "outcome": "done", "note": "x"}
    r = verify(art, sha(rfc8785.dumps(art)))
    assert r.verdict is V.ARTIFACT_VIOLATES_CONTEXT
    assert (r.violation.constraint, r.violation.path) == ("field-set", '$["note"]')
    assert r.violation.clause == "{action_id, outcome}, closed"


def test_clause_closed_field_set_members_are_required():
    # "{action_id, outcome}, closed": the field set is those two members
    art = {"action_id": "a-1"}
    r = verify(art, sha(rfc8785.dumps(art)))
    assert r.verdict is V.ARTIFACT_VIOLATES_CONTEXT
    assert (r.violation.constraint, r.violation.path) == ("required-member", '$["outcome"]')


def test_clause_every_member_is_a_string():
    # "every member is a string"
    assert "every member is a string" in EQUIVALENCE.field_set
    for bad in (7, True, None, ["done"], {"k": "v"}):
        art = {"action_id": "a-1", "outcome": bad}
        r = verify(art, sha(rfc8785.dumps(art)))
        assert r.verdict is V.ARTIFACT_VIOLATES_CONTEXT, bad
        assert (r.violation.constraint, r.violation.path) == ("member-type", '$["outcome"]')
        assert r.violation.clause == "every member is a string"


def test_clause_a_floating_point_value_is_rejected_rather_than_digested():
    # "a floating-point value is rejected rather than digested"
    assert "a floating-point value is rejected rather than digested" in EQUIVALENCE.field_set
    art = {"action_id": "a-1", "outcome": 1.5}
    r = verify(art, sha(b'{"action_id":"a-1","outcome":1.5}'))
    assert r.verdict is V.ARTIFACT_VIOLATES_CONTEXT and r.recomputed is None
    assert (r.violation.constraint, r.violation.path) == ("number-policy", '$["outcome"]')
    assert "a floating-point value is rejected" in r.violation.clause
    text = b'{"action_id":"a-1","outcome":1.5}'
    rt = verify(text, sha(text))
    assert (rt.verdict, rt.violation.constraint, rt.violation.path) == (r.verdict, "number-policy", '$["outcome"]')
    for token in (b"1.0", b"1e2", b"-0.0"):  # a fraction or an exponent, whatever its value
        text = b'{"action_id":"a-1","outcome":' + token + b"}"
        assert verify(text, "0" * 64).violation.constraint == "number-policy", token


def test_clause_an_unsafe_integer_is_rejected_value_and_text_alike():
    # "an integer whose magnitude exceeds 2^53−1 (the ECMAScript safe-integer bound) is rejected as a typed error"
    assert "an integer whose magnitude exceeds 2^53\u22121" in EQUIVALENCE.field_set
    rounded = sha(b'{"outcome":9007199254740992}')  # what a reader through doubles digests
    text = verify(b'{"outcome":9007199254740993}', rounded)
    value = verify({"outcome": 9007199254740993}, rounded)
    for r in (text, value):
        assert r.verdict is V.ARTIFACT_VIOLATES_CONTEXT
        assert (r.violation.constraint, r.violation.path) == ("number-policy", '$["outcome"]')
    with pytest.raises(ContextViolationError):
        EQUIVALENCE.identifier({"action_id": "a-1", "outcome": -(2**53)})
    # the bound itself is an integer, but not a string: the member-type clause, not the number one
    assert verify({"action_id": "a-1", "outcome": 2**53 - 1}, "0" * 64).violation.constraint == "member-type"


def test_conforming_equivalence_artifact_verifies_value_and_text():
    art = {"action_id": "a-1", "outcome": "done"}
    digest = sha(rfc8785.dumps(art))
    assert verify(art, digest).verified
    assert verify(b'{ "outcome": "done", "action_id": "a-1" }', digest).verified
    assert verify(art, digest).not_machine_checked == ()


def test_clause_sd_jwt_first_component_only():
    # "the issuer-signed JWS component of the SD-JWT ... the first ~-separated component exactly as
    # transmitted); everything after the first ~ is outside the preimage"
    assert "the first ~-separated component exactly as transmitted" in MM_IDENTIFIER.field_set
    assert MM_IDENTIFIER.constraints.byte_selector == "sd-jwt-issuer-jws"
    want = sha(JWS.encode())
    for sd_jwt in (JWS + "~", JWS + "~" + DISCLOSURE + "~", JWS + "~" + DISCLOSURE + "~" + DISCLOSURE + "~", JWS):
        assert MM_IDENTIFIER.identifier(sd_jwt.encode()) == want, sd_jwt
    ref = {"type": "machine-mandate", "purpose": "identifier", "digest_alg": "SHA-256", "digest": want}
    whole = (JWS + "~" + DISCLOSURE + "~").encode()
    assert profiles.verify_typed_reference(ref, whole, registry=REGISTRY).verified
    # the digest of the whole SD-JWT is not the identifier
    r = profiles.verify_typed_reference({**ref, "digest": sha(whole)}, whole, registry=REGISTRY)
    assert r.verdict is V.DIGEST_MISMATCH


@pytest.mark.parametrize(
    "bad",
    [
        "a.b~",
        "only-one-part~",
        "a.b.c.d~",
        "a..c~",
        "a.b.c d~",
        "a.b.c=~",
        "e30.e30.a~",
        "~" + JWS,
    ],
)
def test_clause_sd_jwt_a_malformed_jws_is_refused(bad):
    # "RFC 7515 §7.1 compact serialization": three base64url parts separated by dots
    ref = {
        "type": "machine-mandate",
        "purpose": "identifier",
        "digest_alg": "SHA-256",
        "digest": sha(bad.split("~")[0].encode()),
    }
    r = profiles.verify_typed_reference(ref, bad.encode(), registry=REGISTRY)
    assert r.verdict is V.ARTIFACT_VIOLATES_CONTEXT
    assert r.violation.constraint == "byte-selector"
    with pytest.raises(ContextViolationError):
        MM_IDENTIFIER.identifier(bad.encode())


def test_clause_capsule_all_fields_open_and_integers_only():
    # "all capsule fields" (an open field set) under jcs-n: no floats in a digest-bearing field
    assert CAPSULE.field_set == "all capsule fields" and CAPSULE.constraints.field_set == "open"
    capsule = {"capsule_id": None, "chain": [], "action": "x", "any_other": {"k": 1}}
    assert CAPSULE.identifier(capsule) == sha(rfc8785.dumps({"action": "x", "any_other": {"k": 1}}))
    ref = {"type": "agent-action-capsule", "digest_alg": "SHA-256", "digest": "0" * 64}
    r = profiles.verify_typed_reference(ref, {"action": "x", "confidence": 0.95}, registry=REGISTRY)
    assert (r.verdict, r.violation.constraint, r.violation.path) == (
        V.ARTIFACT_VIOLATES_CONTEXT,
        "number-policy",
        '$["confidence"]',
    )


# ---------------------------------------------------------------------------------------------------
# Registry documents: user-declared constraints, and prose with no machine form
# ---------------------------------------------------------------------------------------------------


def registry_with(context: dict) -> Registry:
    doc = {
        "schema_version": "1",
        "canonicalization_algorithms": {},
        "artifact_types": {
            "order": {
                "reference": "x",
                "status": "provisional",
                "digest_contexts": [
                    {
                        "purpose": "identifier",
                        "algorithm": "jcs",
                        "exclusion_set": "{order_id}",
                        "representation": "bare-hex",
                        **context,
                    }
                ],
            }
        },
    }
    return Registry.from_json(doc)


def test_user_declared_constraints():
    reg = registry_with(
        {
            "field_set": "{order_id, sku, qty}",
            "constraints": {
                "field_set": "closed",
                "members": {"order_id": "string", "sku": "string", "qty": "integer"},
                "required": ["sku", "qty"],
                "number_policy": "integers-only",
                "clauses": {"field-set": "{order_id, sku, qty}, closed"},
            },
        }
    )
    ctx = reg.context("order")
    ok = {"order_id": "o-1", "sku": "A", "qty": 2}
    assert ctx.identifier(ok) == sha(rfc8785.dumps({"qty": 2, "sku": "A"}))
    ref = {"type": "order", "digest_alg": "SHA-256", "digest": ctx.identifier(ok)}
    assert profiles.verify_typed_reference(ref, ok, registry=reg).verified
    cases = {
        "field-set": {"sku": "A", "qty": 2, "x": 1},
        "required-member": {"sku": "A"},
        "member-type": {"sku": "A", "qty": "2"},
        "number-policy": {"sku": "A", "qty": 2.0},
    }
    for constraint, art in cases.items():
        r = profiles.verify_typed_reference(ref, art, registry=reg)
        assert (r.verdict, r.violation.constraint) == (V.ARTIFACT_VIOLATES_CONTEXT, constraint)
    assert (
        profiles.verify_typed_reference(ref, {"sku": "A", "qty": 2, "x": 1}, registry=reg).violation.clause
        == "{order_id, sku, qty}, closed"
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"field_set": "half-open"},
        {"number_policy": "floats"},
        {"byte_selector": "jwe"},
        {"members": {"a": "decimal"}},
        {"required": "a"},
        {"unknown_key": 1},
        {"field_set": "closed", "members": {"a": "string"}, "required": ["b"]},
        "closed",
    ],
)
def test_malformed_constraints_are_refused_when_loading(bad):
    with pytest.raises(SnapshotFormatError):
        registry_with({"constraints": bad})


def test_prose_with_no_machine_form_is_reported_not_machine_checked():
    prose = "{sku, qty}, closed; qty is a positive integer"
    reg = registry_with({"field_set": prose})
    ctx = reg.context("order")
    assert ctx.constraints is None and ctx.not_machine_checked == (prose,)
    art = {"sku": "A", "qty": 2}
    ref = {"type": "order", "digest_alg": "SHA-256", "digest": sha(rfc8785.dumps(art))}
    for r in (
        profiles.verify_typed_reference(ref, art, registry=reg),
        profiles.verify_typed_reference({**ref, "digest": "0" * 64}, art, registry=reg),
    ):
        assert r.not_machine_checked == (prose,)
    assert cpb.check(b'{"sku":"A","qty":2}', context=ctx).not_machine_checked == (prose,)
    # a declared constraints object can name the clauses it leaves unchecked
    reg2 = registry_with({"constraints": {"field_set": "open", "not_machine_checked": ["qty is positive"]}})
    assert profiles.verify_typed_reference(ref, art, registry=reg2).not_machine_checked == ("qty is positive",)
    # a revised prose of a known context is not checked against words it no longer says
    doc = json.loads(json.dumps(REGISTRY.raw))
    doc["artifact_types"]["machine-mandate"]["digest_contexts"][1]["field_set"] = "{action_id, outcome}, open"
    revised = Registry.from_json(doc).context("machine-mandate", "equivalence")
    assert revised.constraints is None and revised.not_machine_checked == ("{action_id, outcome}, open",)


# ---------------------------------------------------------------------------------------------------
# identifier(), derived identifiers, the checker
# ---------------------------------------------------------------------------------------------------


def test_identifier_and_verify_carried_apply_the_constraints():
    with pytest.raises(ContextViolationError) as info:
        EQUIVALENCE.identifier({"action_id": "a-1", "outcome": 1.5})
    assert info.value.violation.path == '$["outcome"]'
    with pytest.raises(ContextViolationError):
        EQUIVALENCE.verify_carried(b'{"outcome":9007199254740993}', "sha256:" + "0" * 64)


def test_derived_identifier_with_constraints():
    c = EQUIVALENCE.constraints
    art = {"action_id": "a-1", "outcome": "done"}
    assert cpb.derived_identifier(art, algorithm="jcs", exclusion_set=(), constraints=c) == sha(rfc8785.dumps(art))
    with pytest.raises(ContextViolationError):
        cpb.derived_identifier({**art, "x": "y"}, algorithm="jcs", exclusion_set=(), constraints=c)
    with pytest.raises(ContextViolationError):
        cpb.verify_derived_identifier(
            b'{"outcome":9007199254740993}', "0" * 64, algorithm="jcs", exclusion_set=(), constraints=c
        )
    sel = MM_IDENTIFIER.constraints
    whole = (JWS + "~" + DISCLOSURE + "~").encode()
    assert cpb.derived_identifier(whole, algorithm="as-transmitted", exclusion_set=None or (), constraints=sel) == sha(
        JWS.encode()
    )


def test_checker_reports_context_violations_as_rule_c():
    text = b'{"action_id":"a-1","outcome":"done","note":"x"}'
    assert cpb.check(text).verdict == "verified"
    r = cpb.check(text, context=EQUIVALENCE)
    assert r.verdict == "non-conforming"
    assert [v.as_dict() for v in r.violations] == [
        {"path": '$["note"]', "rule": "C", "code": "field-set", "offset": -1}
    ]
    assert cpb.check(b'{"action_id":"a-1","outcome":"done"}', context=EQUIVALENCE).verdict == "verified"


def test_constraints_from_json_defaults():
    c = ContextConstraints.from_json({"field_set": "closed", "members": {"a": "string"}})
    assert c.required == ("a",) and c.number_policy == "any" and c.byte_selector == "whole"
