"""Write fastjcs's own digest-context vectors (src/fastjcs/conformance/suites/cpb/contexts/), two-sided.

    python vectors/gen_contexts.py [--check] [--out DIR]   # a test checks the files are up to date

Nothing here imports fastjcs. Each clause of the bundled registry's contexts (machine-mandate
`equivalence` and `identifier`, agent-action-capsule `identifier`) has a conforming vector and
MUST-FAIL vectors; every MUST-FAIL vector carries its own condition-removed `mutant` (the defect taken
out, the reference re-pointed at the mutant's digest) for the runner's mutation probe. Digests come
from `rfc8785.dumps` and pycryptodome; JSON texts whose tokens matter (1.5, 9007199254740993) are
typed by hand and carried as strings (`payload_text`), SD-JWTs as `payload_octets`. The typed
reference of a MUST-FAIL vector carries the digest a verifier that ignores the constraint would
compute, so only the constraint tells the verdicts apart. Format: the typed-reference vectors of
gen_cpb.py, with `registry_snapshot: "bundled"` (the registry shipped with the package) and
`expected_violation` ({constraint, path}).
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import rfc8785
from _gen import sync  # vectors/_gen.py: write or --check the files
from Crypto.Hash import SHA256

OUT = Path(__file__).resolve().parents[1] / "src" / "fastjcs" / "conformance" / "suites" / "cpb" / "contexts"
REGISTRY = "cpb-registry.json (action-state-group/scitt-payload-binding), bundled as the package's registry snapshot"

EQUIVALENCE = (
    "{action_id, outcome}, closed \u2014 every member is a string; a floating-point value is rejected "
    "rather than digested, and an integer whose magnitude exceeds 2^53\u22121 (the ECMAScript "
    "safe-integer bound) is rejected as a typed error rather than serialized"
)
IDENTIFIER = (
    "byte-boundary selector \u2014 the issuer-signed JWS component of the SD-JWT (RFC 7515 \u00a77.1 compact "
    "serialization; the first ~-separated component exactly as transmitted); everything after the "
    "first ~ is outside the pre-image"
)
CAPSULE = "all capsule fields"


def sha(data: bytes) -> str:
    return SHA256.new(data).hexdigest()


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


JWS = ".".join(
    [
        b64(b'{"alg":"ES256","typ":"dc+sd-jwt"}'),
        b64(b'{"_sd":["r8v0Q0YkM2p0cX0"],"_sd_alg":"sha-256","iss":"https://issuer.example"}'),
        b64(b"\x30\x45\x02\x20 not a real signature"),
    ]
)
DISCLOSURES = [
    b64(b'["2GLC42sKQveCfGfryNRN9w","given_name","Ada"]'),
    b64(b'["eluV5Og3gSNII8EYnsxA_A","amount","12.50"]'),
]

FILES: dict[str, str] = {}


def dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def ref(type_name: str, purpose: str, digest: str, prefixed: bool) -> dict[str, Any]:
    r = {
        "type": type_name,
        "purpose": purpose,
        "digest_alg": "SHA-256",
        "digest": ("sha256:" if prefixed else "") + digest,
    }
    if type_name == "agent-action-capsule":
        del r["purpose"]  # one context: no purpose needed
    return r


def cited(payload: Any = None, *, text: str | None = None, octets: str | None = None) -> dict[str, Any]:
    if text is not None:
        return {"payload_text": text}
    if octets is not None:
        return {"payload_octets": octets}
    return {"payload": payload}


def vector(
    name: str,
    description: str,
    clause: str,
    type_name: str,
    purpose: str,
    artifact: dict[str, Any],
    digest: str,
    *,
    failure_reason: str | None = None,
    violation: dict[str, str] | None = None,
    mutant: tuple | None = None,
    prefixed: bool = False,
) -> None:
    doc: dict[str, Any] = {
        "id": f"fastjcs-context-{name}",
        "description": description,
        "spec_ref": f"{REGISTRY}: {type_name} {purpose} field_set",
        "clause": clause,
        "registry_snapshot": "bundled",
    }
    if failure_reason:
        doc.update(must_fail=True, failure_reason=failure_reason, expected_violation=violation)
    doc["cited_artifact"] = artifact
    doc["typed_reference"] = ref(type_name, purpose, digest, prefixed)
    if mutant:
        why, fixed, fixed_digest = mutant
        doc["mutant"] = {
            "description": why,
            "cited_artifact": fixed,
            "typed_reference": ref(type_name, purpose, fixed_digest, prefixed),
        }
    FILES[f"{name}.json"] = dump(doc)


def equivalence(name: str, description: str, clause: str, artifact: dict[str, Any], digest: str, **kw: Any) -> None:
    vector(name, description, clause, "machine-mandate", "equivalence", artifact, digest, prefixed=True, **kw)


def build() -> None:
    good = {"action_id": "a-1", "outcome": "done"}
    good_digest = sha(rfc8785.dumps(good))
    conforming = (cited(good), good_digest)
    # ---- machine-mandate equivalence ----
    equivalence(
        "01-equivalence-conforming",
        "Two string members, exactly the closed set: verified.",
        EQUIVALENCE,
        cited(good),
        good_digest,
    )
    equivalence(
        "02-equivalence-conforming-text",
        "The same artifact as JSON text, spaced and reordered: verified.",
        EQUIVALENCE,
        cited(text='{ "outcome": "done", "action_id": "a-1" }'),
        good_digest,
    )
    flt = '{"action_id":"a-1","outcome":1.5}'
    fixed = {"action_id": "a-1", "outcome": "1.5"}
    number = (
        "a floating-point value is rejected rather than digested, and an integer whose magnitude exceeds "
        "2^53\u22121 (the ECMAScript safe-integer bound) is rejected as a typed error rather than serialized"
    )
    at_outcome = '$["outcome"]'
    equivalence(
        "03-must-fail-float-value",
        "A float member (a Python value): refused before hashing, not digested.",
        number,
        cited(json.loads(flt)),
        sha(rfc8785.dumps(json.loads(flt))),
        failure_reason="context_number_policy",
        violation={"constraint": "number-policy", "path": at_outcome},
        mutant=("the float written as a decimal string", cited(fixed), sha(rfc8785.dumps(fixed))),
    )
    equivalence(
        "04-must-fail-float-text",
        "A float token in JSON text: the same verdict as the value.",
        number,
        cited(text=flt),
        sha(flt.encode()),
        failure_reason="context_number_policy",
        violation={"constraint": "number-policy", "path": at_outcome},
        mutant=(
            "the float token written as a decimal string",
            cited(text=json.dumps(fixed)),
            sha(rfc8785.dumps(fixed)),
        ),
    )
    # 2^53+1 read through a double becomes 2^53: the digest a rounding verifier computes
    unsafe = '{"action_id":"a-1","outcome":9007199254740993}'
    rounded = sha(b'{"action_id":"a-1","outcome":9007199254740992}')
    unsafe_fixed = {"action_id": "a-1", "outcome": "9007199254740993"}
    equivalence(
        "05-must-fail-unsafe-integer-value",
        "2^53+1 as a Python int: refused as a typed error.",
        number,
        cited(json.loads(unsafe)),
        rounded,
        failure_reason="context_number_policy",
        violation={"constraint": "number-policy", "path": at_outcome},
        mutant=("the integer written as a decimal string", cited(unsafe_fixed), sha(rfc8785.dumps(unsafe_fixed))),
    )
    equivalence(
        "06-must-fail-unsafe-integer-text",
        "2^53+1 as a token in JSON text: refused like the value, not rounded to 2^53 and digested.",
        number,
        cited(text=unsafe),
        rounded,
        failure_reason="context_number_policy",
        violation={"constraint": "number-policy", "path": at_outcome},
        mutant=(
            "the token written as a decimal string",
            cited(text=json.dumps(unsafe_fixed)),
            sha(rfc8785.dumps(unsafe_fixed)),
        ),
    )
    extra = {"action_id": "a-1", "outcome": "done", "note": "x"}
    equivalence(
        "07-must-fail-extra-member",
        "A member outside {action_id, outcome}: the set is closed.",
        "{action_id, outcome}, closed",
        cited(extra),
        sha(rfc8785.dumps(extra)),
        failure_reason="context_closed_field_set",
        violation={"constraint": "field-set", "path": '$["note"]'},
        mutant=("the extra member removed", *conforming),
    )
    equivalence(
        "08-must-fail-extra-member-text",
        "The extra member in JSON text.",
        "{action_id, outcome}, closed",
        cited(text=json.dumps(extra)),
        sha(rfc8785.dumps(extra)),
        failure_reason="context_closed_field_set",
        violation={"constraint": "field-set", "path": '$["note"]'},
        mutant=("the extra member removed", cited(text=json.dumps(good)), good_digest),
    )
    missing = {"action_id": "a-1"}
    equivalence(
        "09-must-fail-missing-member",
        "outcome is absent from the closed field set {action_id, outcome}.",
        "{action_id, outcome}, closed",
        cited(missing),
        sha(rfc8785.dumps(missing)),
        failure_reason="context_required_member",
        violation={"constraint": "required-member", "path": at_outcome},
        mutant=("the member supplied", *conforming),
    )
    non_string = {"action_id": "a-1", "outcome": 7}
    equivalence(
        "10-must-fail-non-string-member",
        "A safe integer, but not a string: every member is a string.",
        "every member is a string",
        cited(non_string),
        sha(rfc8785.dumps(non_string)),
        failure_reason="context_member_type",
        violation={"constraint": "member-type", "path": at_outcome},
        mutant=(
            "the member written as a string",
            cited({"action_id": "a-1", "outcome": "7"}),
            sha(rfc8785.dumps({"action_id": "a-1", "outcome": "7"})),
        ),
    )
    equivalence(
        "11-must-fail-non-string-member-text",
        "A boolean member in JSON text.",
        "every member is a string",
        cited(text='{"action_id":"a-1","outcome":true}'),
        sha(b'{"action_id":"a-1","outcome":true}'),
        failure_reason="context_member_type",
        violation={"constraint": "member-type", "path": at_outcome},
        mutant=(
            "the member written as a string",
            cited(text='{"action_id":"a-1","outcome":"true"}'),
            sha(b'{"action_id":"a-1","outcome":"true"}'),
        ),
    )
    # ---- machine-mandate identifier: the SD-JWT's issuer-signed JWS ----
    sel = (
        "the issuer-signed JWS component of the SD-JWT (RFC 7515 \u00a77.1 compact serialization; the first "
        "~-separated component exactly as transmitted); everything after the first ~ is outside the pre-image"
    )
    jws_digest = sha(JWS.encode())
    vector(
        "12-identifier-sd-jwt-without-disclosures",
        "An SD-JWT with no disclosures (JWS~): its id is the digest of the JWS.",
        sel,
        "machine-mandate",
        "identifier",
        cited(octets=JWS + "~"),
        jws_digest,
    )
    vector(
        "13-identifier-sd-jwt-with-disclosures",
        "Two disclosures after the JWS: outside the pre-image, the id is the same.",
        sel,
        "machine-mandate",
        "identifier",
        cited(octets=JWS + "~" + "~".join(DISCLOSURES) + "~"),
        jws_digest,
    )
    whole = JWS + "~" + "~".join(DISCLOSURES) + "~"
    vector(
        "14-must-fail-identifier-whole-sd-jwt-digest",
        "A reference carrying the digest of the whole SD-JWT: not the identifier.",
        sel,
        "machine-mandate",
        "identifier",
        cited(octets=whole),
        sha(whole.encode()),
        failure_reason="identifier_inconsistent_with_context",
        mutant=("the reference carries the digest of the first component", cited(octets=whole), jws_digest),
    )
    two_parts = JWS.rsplit(".", 1)[0] + "~" + DISCLOSURES[0] + "~"
    vector(
        "15-must-fail-identifier-malformed-jws",
        "The first component has two dot-separated parts, not the three of a compact JWS: refused, not hashed.",
        sel,
        "machine-mandate",
        "identifier",
        cited(octets=two_parts),
        sha(two_parts.split("~")[0].encode()),
        failure_reason="context_byte_selector",
        violation={"constraint": "byte-selector", "path": "$"},
        mutant=("a three-part JWS", cited(octets=JWS + "~" + DISCLOSURES[0] + "~"), jws_digest),
    )
    not_b64 = JWS.replace(".", ".*", 1) + "~"
    vector(
        "16-must-fail-identifier-not-base64url",
        "A part holds '*', outside the base64url alphabet.",
        sel,
        "machine-mandate",
        "identifier",
        cited(octets=not_b64),
        sha(not_b64.split("~")[0].encode()),
        failure_reason="context_byte_selector",
        violation={"constraint": "byte-selector", "path": "$"},
        mutant=("the part in base64url", cited(octets=JWS + "~"), jws_digest),
    )
    # ---- agent-action-capsule identifier: open field set under jcs-n, integers only ----
    capsule = {"capsule_id": "c-1", "chain": ["p-0"], "action": "write", "attempt": 2, "extra_field": "kept"}
    body = {k: v for k, v in capsule.items() if k not in ("capsule_id", "chain")}
    cap_clause = (
        "jcs-n: JSON floating-point numbers MUST NOT appear in any field from which a digest is computed "
        "(draft-mih-sokolov-scitt-payload-binding \u00a711.3)"
    )
    vector(
        "17-capsule-open-field-set",
        "Any member is allowed (all capsule fields); capsule_id and chain are excluded.",
        CAPSULE,
        "agent-action-capsule",
        "identifier",
        cited(capsule),
        sha(rfc8785.dumps(body)),
    )
    flt_capsule = {**capsule, "confidence": 0.95}
    fixed_capsule = {**capsule, "confidence": "0.95"}
    vector(
        "18-must-fail-capsule-float",
        "A float in a capsule field.",
        cap_clause,
        "agent-action-capsule",
        "identifier",
        cited(flt_capsule),
        sha(rfc8785.dumps({k: v for k, v in flt_capsule.items() if k not in ("capsule_id", "chain")})),
        failure_reason="context_number_policy",
        violation={"constraint": "number-policy", "path": '$["confidence"]'},
        mutant=(
            "the float written as a decimal string",
            cited(fixed_capsule),
            sha(rfc8785.dumps({k: v for k, v in fixed_capsule.items() if k not in ("capsule_id", "chain")})),
        ),
    )


def main(argv: list) -> int:
    build()
    return sync(FILES, OUT, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
