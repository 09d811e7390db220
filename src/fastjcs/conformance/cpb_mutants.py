"""The CPB mutation generators: for each check category a MUST-FAIL vector fires (e.g.
`jcs-n:non-integer-number`, `cpb-check:P:empty-member`, `typed-ref:digest-alg-mismatch`), a
generator in `GENERATORS` builds the condition-removed mutant: the same vector with the defect
taken out and its expectation flipped to a pass.

The generators are written independently of the code under test: payload rewrites go through the
standard library's json module with hooks that keep number tokens and duplicate members.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Callable

from ..cpb import checker
from .cpb_cases import Vector
from .cpb_handler_base import Handler
from .cpb_handlers_refs import _first
from .cpb_handlers_text import RepresentationHandler, _contrast_keys
from .reader import Members, Token, emit, read, rewrite

# ---------------------------------------------------------------------------------------------------
# Payload rewrites
# ---------------------------------------------------------------------------------------------------

_SPEC_INTEGER = re.compile(r"\A(?:0|-?[1-9][0-9]*)\Z")  # typed from docs/contract.md, "jcs-n"
_SPEC_INT_MAX = 9007199254740991


def _is_integer_token(t: str) -> bool:
    return _SPEC_INTEGER.match(t) is not None


def _without_non_integers(text: bytes) -> bytes:
    """Number tokens outside the integer grammar become exact decimal strings: 12.50 -> "12.50"."""

    def leaf(v):
        return str(v) if isinstance(v, Token) and not _is_integer_token(v) else v

    return emit(rewrite(read(text), leaf, lambda p: p)).encode()


def _without_unsafe_integers(text: bytes) -> bytes:
    def leaf(v):
        return str(v) if isinstance(v, Token) and _is_integer_token(v) and abs(int(v)) > _SPEC_INT_MAX else v

    return emit(rewrite(read(text), leaf, lambda p: p)).encode()


def _without_duplicates(text: bytes) -> bytes:
    """Later members whose name repeats an earlier one (after NFC) are dropped."""
    import unicodedata

    def pairs(p: Members) -> Members:
        seen: set[str] = set()
        out = Members()
        for k, v in p:
            form = unicodedata.normalize("NFC", k)
            if form not in seen:
                seen.add(form)
                out.append((k, v))
        return out

    return emit(rewrite(read(text), lambda v: v, pairs)).encode()


def _without_empty_members(text: bytes) -> bytes:
    """Members whose value is null, [] or {} are dropped, children first."""

    def empty(v: Any) -> bool:
        return v is None or (isinstance(v, list) and not v)

    return emit(rewrite(read(text), lambda v: v, lambda p: Members((k, v) for k, v in p if not empty(v)))).encode()


# ---------------------------------------------------------------------------------------------------
# Mutation generators: the condition-removed mutant of a vector, expectation flipped to a pass
# ---------------------------------------------------------------------------------------------------


def _passing(doc: dict[str, Any], category: str = "") -> dict[str, Any]:
    """The expectation of a MUST-FAIL vector flipped to a pass, without the now-stale pinned bytes.

    A checker vector keeps the violations of the other rule: its mutant for `cpb-check:P:...` must
    still report every R violation, and the other way round."""
    doc = copy.deepcopy(doc)
    for key in (
        "must_fail",
        "failure_reason",
        "jcs_n_must_fail",
        "pre_image",
        "pre_image_bytes_hex",
        "digest",
        "normalized",
        "after_exclusion",
    ):
        doc.pop(key, None)
    for side in ("jcs", "jcs_n"):  # divergence vectors: the payload changes, so do both sides' bytes
        if isinstance(doc.get(side), dict):
            doc[side] = {
                k: val
                for k, val in doc[side].items()
                if k not in ("must_fail", "failure_reason", "pre_image", "pre_image_bytes_hex", "digest")
            }
    if "expected_verdict" in doc:
        rule = category.split(":")[1] if category.startswith("cpb-check:") else None
        kept = [e for e in doc.get("expected_violations", []) if rule is not None and e.get("rule") != rule]
        doc["expected_verdict"] = checker.NON_CONFORMING if kept else checker.VERIFIED
        doc["expected_violations"] = kept
    return doc


def _payload_rewrite(rewrite: Callable[[bytes], bytes]) -> Callable[[Vector, Handler, str], Vector]:
    def generate(v: Vector, handler: Handler, category: str) -> Vector:
        return handler.with_payload(v, rewrite(handler.payload(v)), category, _passing(v.doc, category))

    generate.__name__ = rewrite.__name__
    return generate


def _ref_rewrite(fix: Callable[[dict[str, Any], dict[str, Any]], None]) -> Callable[[Vector, Handler, str], Vector]:
    """Apply `fix(reference, doc)` to every typed reference in the vector."""

    def generate(v: Vector, handler: Handler, category: str) -> Vector:
        doc = _passing(v.doc)
        for key, value in list(doc.items()):
            if key.startswith("typed_reference"):
                for ref in value if isinstance(value, list) else [value]:
                    fix(ref, doc)
        return v.mutant(category, doc)

    generate.__name__ = fix.__name__
    return generate


def _registered_digest_alg(ref: dict[str, Any], doc: dict[str, Any]) -> None:
    ref["digest_alg"] = "SHA-256"  # what the jcs-n registry entry names


def _bare_hex(ref: dict[str, Any], doc: dict[str, Any]) -> None:
    m = re.search(r"[0-9a-fA-F]{64}", ref.get("digest", ""))
    if m:
        ref["digest"] = m.group(0).lower()


def _correct_digest(ref: dict[str, Any], doc: dict[str, Any]) -> None:
    doc.pop("erroneous_pre_image_that_produced_wrong_digest", None)  # it pinned the wrong digest
    ref["digest"] = _first(
        doc,
        "verification.recomputed_digest",
        "correct_recomputed_digest",
        "cited_artifact.correct_derived_id",
        "cited_artifact.derived_id",
    )


def _declared_context(v: Vector, handler: Handler, category: str) -> Vector:
    if "mutant" in v.doc:  # ours carry their own
        return _own_mutant(v, handler, category)
    doc = _passing(v.doc)
    if "erroneous_verification" in doc:  # the verifier applies the declared exclusion set
        del doc["erroneous_verification"]
        return v.mutant(category, doc)
    return _ref_rewrite(_correct_digest)(v, handler, category)


def _cited_artifact_in_hand(v: Vector, handler: Handler, category: str) -> Vector:
    doc = _passing(v.doc)
    doc.pop("artifact_b", None)  # the verifier holds the artifact of the type the reference cites
    return v.mutant(category, doc)


def _correct_carried_id(v: Vector, handler: Handler, category: str) -> Vector:
    doc = _passing(v.doc)
    doc["carried_id"] = doc["correct_derived_id"]
    return v.mutant(category, doc)


def _terminal_chunk(v: Vector, handler: Handler, category: str) -> Vector:
    doc = _passing(v.doc)
    doc["source"] = list(doc["source"]) + [{"chunk": "", "done": True}]
    return v.mutant(category, doc)


def _declared_member_mapping(v: Vector, handler: Handler, category: str) -> Vector:
    doc = _passing(v.doc)
    pointers = doc.get("selected_source_pointers", [])
    doc["declared_digest_context"]["member_mapping"] = {
        "fields": [{"source_pointer": p, "preimage_pointer": "/" + p.rsplit("/", 1)[-1]} for p in pointers]
    }
    return v.mutant(category, doc)


def _own_mutant(v: Vector, handler: Handler, category: str) -> Vector:
    """Registry vectors carry their own condition-removed mutant."""
    doc = _passing(v.doc)
    change = {k: val for k, val in doc.pop("mutant").items() if k != "description"}
    doc.update(change)
    return v.mutant(category, doc)


def _no_contrast(v: Vector, handler: Handler, category: str) -> Vector:
    doc = _passing(v.doc)
    keys = _contrast_keys(doc)
    assert keys is not None  # the repair of a contrast check, which fired on a vector that has them
    wrong_hex, wrong_digest = keys
    doc[wrong_hex] = doc["jcs_n_correct_pre_image_bytes_hex"]
    doc[wrong_digest] = doc["jcs_n_correct_digest"]
    return v.mutant(category, doc)


def _conforming_verifier(v: Vector, handler: Handler, category: str) -> Vector:
    doc = _passing(v.doc)
    doc.pop("non_conforming_verifier_behavior", None)
    return v.mutant(category, doc)


def _without_exact_duplicates(text: bytes) -> bytes:
    """Later members whose (escape-decoded) name repeats an earlier one are dropped: jcs compares
    names after escape decoding and without NFC."""

    def pairs(p: Members) -> Members:
        seen: set[str] = set()
        out = Members()
        for k, v in p:
            if k not in seen:
                seen.add(k)
                out.append((k, v))
        return out

    return emit(rewrite(read(text), lambda v: v, pairs)).encode()


def _raw_octets_carried(v: Vector, handler: Handler, category: str) -> Vector:
    """The carried digest is the one over the selected octets themselves, not over their hex text."""
    doc = _passing(v.doc)
    doc["digest"] = v.doc["digest"]  # the container is unchanged: so is its pinned digest
    doc["carried_digest"] = v.doc["digest"]
    return v.mutant(category, doc)


def _other_declaration(v: Vector, handler: Handler, category: str) -> Vector:
    """The other representation declared: the contrast form becomes the input, and the other way round."""
    doc = copy.deepcopy(v.doc)
    declared, correct, contrast = RepresentationHandler._sides(doc)
    flipped = {"raw": "hex", "hex": "raw"}.get(str(declared), "raw")
    for key in ("declared_input_representation", "declared_leaf_representation"):
        if key in doc:
            doc[key] = flipped
    for a, b in (("raw_input", "ascii_hex_contrast_input"), ("correct_leaf_input", "wrong_ascii_hex_leaf_input")):
        if a in doc and b in doc:
            doc[a], doc[b] = doc[b], doc[a]
    return v.mutant(category, doc)


def _with_vintage_evidence(v: Vector, handler: Handler, category: str) -> Vector:
    """Authenticated vintage evidence added: it binds the record's digest to a time before 2026-08-18."""
    doc = copy.deepcopy(v.doc)
    digest = _first(
        doc,
        "typed_reference.digest",
        "typed_reference_claiming_artifact_a.digest",
        "derived_id",
        "correct_derived_id",
        "cited_artifact.derived_id",
        "profile_b.derived_id",
        "scenario.authorization_doc.derived_id",
    )
    doc["vintage_evidence"] = {"binds_digest": digest, "authenticated_time": "2026-07-24T00:00:00Z"}
    return v.mutant(category, doc)


def _purpose_given(v: Vector, handler: Handler, category: str) -> Vector:
    """The reference names the purpose of one of the contexts its type declares."""
    if "mutant" in v.doc:  # ours carry their own
        return _own_mutant(v, handler, category)
    doc = _passing(v.doc)
    entry = _first(doc, "artifact_type_registry_entry", "cited_artifact.artifact_type_registry_entry") or {}
    declared = entry.get("digest_contexts", {"identifier": None})
    # by purpose (older vectors) or a list of context objects (typed-refs fail/07 @550ba20)
    purpose = declared[0]["purpose"] if isinstance(declared, list) else next(iter(declared))
    for key, value in doc.items():
        if key.startswith("typed_reference"):
            for ref in value if isinstance(value, list) else [value]:
                ref["purpose"] = purpose
    if isinstance(doc.get("cbor_map_entry"), dict):  # the cpb-refs carriage of the same reference
        doc["cbor_map_entry"]["2"] = purpose
    if isinstance(doc.get("cose_sign1_bytes_hex"), str):
        _recarry(doc, purpose)
    return v.mutant(category, doc)


#: The Ed25519 test seed upstream's COSE fixtures state in their provenance (public on purpose).
_TEST_SEED = bytes(range(1, 33))


def _recarry(doc: dict[str, Any], purpose: str) -> None:
    """The COSE_Sign1 of a vector re-made with `purpose` (label 2) in its cpb-refs entry and signed
    again with the fixtures' public test seed: the carrier stays real, only the defect is gone.
    cbor2 and pycryptodome, not fastjcs.cpb.cose."""
    import cbor2
    from Crypto.PublicKey import ECC
    from Crypto.Signature import eddsa

    key = ECC.construct(curve="Ed25519", seed=_TEST_SEED)
    if key.public_key().export_key(format="raw").hex() != doc["signature"]["public_key_hex"]:
        raise ValueError("the fixture is not signed with the public test seed: it cannot be re-signed")
    sign1 = cbor2.loads(bytes.fromhex(doc["cose_sign1_bytes_hex"]))
    _, unprotected, payload, _ = sign1.value
    header = cbor2.loads(sign1.value[0])
    label, index = doc["protected_header"]["cpb_refs_label"], doc["protected_header"].get("entry_index", 0)
    entry = header[label][index]
    header[label][index] = (
        {k: entry[k] for k in sorted(entry) if k < 2} | {2: purpose} | {k: entry[k] for k in sorted(entry) if k > 2}
    )
    protected = cbor2.dumps(header)
    tbs = cbor2.dumps(["Signature1", protected, b"", payload])
    signature = eddsa.new(key, "rfc8032").sign(tbs)
    doc["protected_header"]["bytes_hex"] = protected.hex()
    doc["cose_sign1_bytes_hex"] = cbor2.dumps(cbor2.CBORTag(18, [protected, unprotected, payload, signature])).hex()
    doc["signature"]["signature_hex"] = signature.hex()
    for holder in (doc, doc["signature"]):
        if "signature_structure_hex" in holder:
            holder["signature_structure_hex"] = tbs.hex()


Generator = Callable[[Vector, Handler, str], Vector]

#: category prefix (before the last ":" part, or the whole category) -> generator
GENERATORS: dict[str, Generator] = {
    "jcs-n:non-integer-number": _payload_rewrite(_without_non_integers),
    "jcs-n:unsafe-integer": _payload_rewrite(_without_unsafe_integers),
    "jcs-n:duplicate-name": _payload_rewrite(_without_duplicates),
    "cpb-check:R:non-integer-number": _payload_rewrite(_without_non_integers),
    "cpb-check:R:unsafe-integer": _payload_rewrite(_without_unsafe_integers),
    "cpb-check:R:duplicate-name": _payload_rewrite(_without_duplicates),
    "cpb-check:P:empty-member": _payload_rewrite(_without_empty_members),
    "typed-ref:representation-mismatch": _ref_rewrite(_bare_hex),
    "typed-ref:digest-alg-mismatch": _ref_rewrite(_registered_digest_alg),
    "typed-ref:digest-mismatch": _declared_context,
    "typed-ref:artifact-type-mismatch": _cited_artifact_in_hand,
    "typed-ref:purpose-required": _purpose_given,
    "typed-ref:unknown-type": _own_mutant,
    "typed-ref:type-unknown-to-snapshot": _own_mutant,
    "context:field-set": _own_mutant,  # ours carry the artifact with the defect taken out
    "context:required-member": _own_mutant,
    "context:member-type": _own_mutant,
    "context:number-policy": _own_mutant,
    "context:byte-selector": _own_mutant,
    "derived-id:carried-id-mismatch": _correct_carried_id,
    "stream:StreamIncompleteError": _terminal_chunk,
    "assembled:MemberMappingUndeclaredError": _declared_member_mapping,
    "registry:unknown-id": _own_mutant,
    "registry:id-unknown-to-snapshot": _own_mutant,
    "registry:withdrawn": _own_mutant,
    "registry:held": _own_mutant,
    "contrast:nfc_normalisation_deviation": _no_contrast,
    "contrast:string_escape_uppercase_hex": _no_contrast,
    "contrast:string_escape_long_form_for_named_char": _no_contrast,
    "contrast:key_sort_by_escaped_bytes_not_code_units": _no_contrast,
    "profile-independence:violation": _conforming_verifier,
    # cpb-current (drafts -03 to -06)
    "jcs:duplicate-name": _payload_rewrite(_without_exact_duplicates),
    "as-transmitted:textual-hex-substitution": _raw_octets_carried,
    "representation:raw-declared": _other_declaration,
    "representation:hex-declared": _other_declaration,
    "vintage:no-evidence": _with_vintage_evidence,
}
