"""The CPB vector handlers: each claims a kind of vector file (`claim`, in `HANDLERS` order), runs
the implementation on it and asserts every pinned value: preimage bytes, digests, verdicts. A
MUST-FAIL vector must fail for its stated `failure_reason` (`cpb_cases.FAILURE_REASONS`), and the
check categories it fired are recorded for the mutation probes (`cpb_mutants`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Callable

from ..core.hashing import hex_digest
from ..cpb import CANONICALIZATIONS, checker, cose
from ..cpb.errors import (
    IdentifierMismatchError,
    VintageError,
)
from ..cpb.leaf import leaf_input
from ..cpb.registry import (
    ArtifactType,
    DigestContext,
    LookupVerdict,
    Registry,
    Status,
    parse_representation,
    read_digest_contexts,
)
from ..cpb.transforms import assemble_preimage, reassemble_stream
from ..cpb.vintage import Vintage
from ..profiles import typed_refs
from ..profiles.typed_refs import TypedRefVerdict
from .cpb_cases import (
    _WIRE_CODES,
    CONTEXT_REASONS,
    Implementation,
    Vector,
    _vintage_of,
    bundled_registry,
    failure_meaning,
    jcs_n_withdrawn,
)
from .reader import Members, Token, read, rewrite
from .results import VectorOutcome

# ---------------------------------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------------------------------


def _lossless_under_json_loads(text: bytes) -> bool:
    """Whether json.loads keeps what jcs-n judges: no duplicate names, no `-0` (json.loads reads it
    as the int 0). Where it loses something, only the text path can see the defect."""
    lost = False

    def leaf(v: Any) -> Any:
        nonlocal lost
        if isinstance(v, Token) and v == "-0":
            lost = True
        return v

    def pairs(p: Members) -> Members:
        nonlocal lost
        if len({k for k, _ in p}) != len(p):
            lost = True
        return p

    rewrite(read(text), leaf, pairs)
    return not lost


def _must_fail(doc: Mapping[str, Any]) -> bool:
    return doc.get("must_fail") is True


def _pinned_bytes(
    out: VectorOutcome,
    what: str,
    got: bytes,
    doc: Mapping[str, Any],
    text_key: str = "pre_image",
    hex_key: str = "pre_image_bytes_hex",
    digest_keys: Sequence[str] = ("digest",),
) -> None:
    """Compare a preimage with every pinned form of it in `doc`, and its digest."""
    pinned = False
    if isinstance(doc.get(text_key), str):
        pinned = out.eq(f"{what} preimage", got, doc[text_key].encode("utf-8")) or True
    if isinstance(doc.get(hex_key), str):
        pinned = out.eq(f"{what} preimage bytes", got.hex(), doc[hex_key]) or True
    for key in digest_keys:
        if isinstance(doc.get(key), str):
            pinned = out.eq(f"{what} {key}", hex_digest(got), doc[key]) or True
    if not pinned:
        out.true(f"{what}: a preimage was computed", isinstance(got, bytes) and len(got) > 0)


def _expect_refusal(out: VectorOutcome, reason: str | None, what: str, call: Callable[[], Any], prefix: str) -> None:
    expected = failure_meaning(reason)
    if not (isinstance(expected, type) and issubclass(expected, BaseException)):
        out.fail(f"failure_reason {reason!r} is not mapped to an exception")
        return
    exc = out.refuses(what, call, expected)
    if exc is not None:
        code = getattr(exc, "code", None) or _WIRE_CODES.get(expected, expected.__name__)
        out.fired.add(f"{prefix}:{code}")


class Handler:
    name = "?"
    payload_key: str | None = None  # the member holding the payload text, for generators

    def claims(self, v: Vector) -> bool:
        raise NotImplementedError

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        raise NotImplementedError

    def payload(self, v: Vector) -> bytes:
        assert self.payload_key is not None
        return v.text(self.payload_key)

    def with_payload(self, v: Vector, text: bytes, category: str, doc: dict[str, Any]) -> Vector:
        assert self.payload_key is not None
        return v.mutant(category, doc, **{self.payload_key: text})


class KatHandler(Handler):
    """jcs / jcs-n known answers: `input` (+ `exclusion_set`) to pinned bytes, or a refusal; the
    contrast vectors pin a wrong construction that must not be what we produce."""

    name = "jcs-n-kat"
    payload_key = "input"

    def claims(self, v: Vector) -> bool:
        return "input" in v.doc and v.doc.get("algorithm", "jcs-n") in ("jcs-n", "jcs")

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        text = v.text("input")
        algorithm = doc.get("algorithm", "jcs-n")
        exclusion = doc.get("exclusion_set", [])
        value_path = _lossless_under_json_loads(text)
        reason = doc.get("failure_reason")
        contrast = _contrast_keys(doc)
        if contrast is not None:
            self._contrast(v, impl, out, text, algorithm, exclusion, contrast)
            return
        if _must_fail(doc):
            _expect_refusal(
                out,
                reason,
                "text path",
                lambda: impl.preimage_text(text, algorithm=algorithm, exclusion_set=exclusion),
                algorithm,
            )
            if value_path:
                _expect_refusal(
                    out,
                    reason,
                    "value path",
                    lambda: impl.preimage(doc["input"], algorithm=algorithm, exclusion_set=exclusion),
                    algorithm,
                )
            return
        got = impl.preimage_text(text, algorithm=algorithm, exclusion_set=exclusion)
        _pinned_bytes(out, "text path", got, doc)
        if value_path:
            out.eq(
                "value path == text path",
                impl.preimage(doc["input"], algorithm=algorithm, exclusion_set=exclusion),
                got,
            )
        if algorithm == "jcs-n" and "normalized" in doc:
            out.eq("normal form", impl.normalize(doc["input"], exclusion_set=exclusion), doc["normalized"])
        if "after_exclusion" in doc:
            out.eq("after_exclusion digests the same", impl.preimage(doc["after_exclusion"], algorithm=algorithm), got)

    def _contrast(
        self,
        v: Vector,
        impl: Implementation,
        out: VectorOutcome,
        text: bytes,
        algorithm: str,
        exclusion: Sequence[str],
        contrast: tuple[str, str],
    ) -> None:
        doc = v.doc
        wrong_hex, wrong_digest = contrast
        got = impl.preimage_text(text, algorithm=algorithm, exclusion_set=exclusion)
        _pinned_bytes(
            out,
            "conforming",
            got,
            doc,
            "jcs_n_correct_pre_image",
            "jcs_n_correct_pre_image_bytes_hex",
            ("jcs_n_correct_digest",),
        )
        wrong = bytes.fromhex(doc[wrong_hex])
        out.eq("the contrast preimage hashes to the contrast digest", hex_digest(wrong), doc[wrong_digest])
        if _must_fail(doc):
            if out.true(f"we do not produce the {doc.get('failure_reason')} construction", got != wrong):
                out.fired.add(f"contrast:{doc.get('failure_reason')}")
        else:
            out.eq("the contrast construction is ours", got, wrong)


def _contrast_keys(doc: Mapping[str, Any]) -> tuple[str, str] | None:
    for key in doc:
        if key.endswith("_contrast_pre_image_bytes_hex"):
            digest = key[: -len("_pre_image_bytes_hex")] + "_digest"
            if digest in doc:
                return key, digest
    return None


class CheckerHandler(Handler):
    """cpb-check verdicts: `record` (raw JSON in the file) or `record_raw` (a string of JSON text)."""

    name = "cpb-check"

    def claims(self, v: Vector) -> bool:
        return "expected_verdict" in v.doc and ("record" in v.doc or "record_raw" in v.doc)

    def payload(self, v: Vector) -> bytes:
        if "record_raw" in v.doc:
            return v.doc["record_raw"].encode("utf-8")
        return v.text("record")

    def with_payload(self, v: Vector, text: bytes, category: str, doc: dict[str, Any]) -> Vector:
        if "record_raw" in doc:
            doc["record_raw"] = text.decode("utf-8")
            return v.mutant(category, doc)
        return v.mutant(category, doc, record=text)

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        result = impl.check(self.payload(v))
        # newer upstream text says "conforming" for the verdict this checker calls "verified"
        expected = {"conforming": checker.VERIFIED}.get(v.doc["expected_verdict"], v.doc["expected_verdict"])
        out.eq("verdict", result.verdict, expected)
        want = sorted((e["path"], e["rule"]) for e in v.doc.get("expected_violations", []))
        out.eq("violations (path, rule)", sorted((x.path, x.rule) for x in result.violations), want)
        if v.doc["expected_verdict"] == checker.NON_CONFORMING:
            out.fired.update(f"cpb-check:{x.rule}:{x.code}" for x in result.violations)


class DivergenceHandler(Handler):
    """jcs vs jcs-n over one action: both pinned, or jcs-n refusing while jcs digests."""

    name = "jcs-vs-jcs-n"
    payload_key = "action"

    def claims(self, v: Vector) -> bool:
        return v.doc.get("diverge") is True and "action" in v.doc

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        text = v.text("action")
        value_path = _lossless_under_json_loads(text)
        jcs = impl.preimage_text(text, algorithm="jcs")
        _pinned_bytes(out, "jcs", jcs, doc["jcs"])
        if value_path:
            out.eq("jcs value path == text path", impl.preimage(doc["action"], algorithm="jcs"), jcs)
        side = doc["jcs_n"]
        if doc.get("jcs_n_must_fail") is True or side.get("must_fail") is True:
            reason = side.get("failure_reason") or doc.get("failure_reason")
            _expect_refusal(
                out, reason, "jcs-n text path", lambda: impl.preimage_text(text, algorithm="jcs-n"), "jcs-n"
            )
            if value_path:
                _expect_refusal(
                    out, reason, "jcs-n value path", lambda: impl.preimage(doc["action"], algorithm="jcs-n"), "jcs-n"
                )
            return
        jcs_n = impl.preimage_text(text, algorithm="jcs-n")
        _pinned_bytes(out, "jcs-n", jcs_n, side)
        if value_path:
            out.eq("jcs-n value path == text path", impl.preimage(doc["action"], algorithm="jcs-n"), jcs_n)
        if "jcs" in doc and "pre_image" in doc["jcs"]:
            out.true("jcs and jcs-n preimages diverge", jcs != jcs_n)


class JcsTextHandler(Handler):
    """Active jcs known answers (cpb-current `jcs/`): `input_json` (JSON text) to pinned bytes, or a
    refusal; `input_data_model` (the same value) must give the same bytes."""

    name = "jcs-kat"
    payload_key = "input_json"

    def claims(self, v: Vector) -> bool:
        return isinstance(v.doc.get("input_json"), str)

    def payload(self, v: Vector) -> bytes:
        return v.doc["input_json"].encode("utf-8")

    def with_payload(self, v: Vector, text: bytes, category: str, doc: dict[str, Any]) -> Vector:
        doc["input_json"] = text.decode("utf-8")
        return v.mutant(category, doc)

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        algorithm = doc.get("algorithm")
        if not out.eq("algorithm", algorithm, "jcs"):
            return
        text, exclusion = self.payload(v), doc.get("exclusion_set", [])
        if _must_fail(doc):
            _expect_refusal(
                out,
                doc.get("failure_reason"),
                "text path",
                lambda: impl.preimage_text(text, algorithm="jcs", exclusion_set=exclusion),
                "jcs",
            )
            return
        got = impl.preimage_text(text, algorithm="jcs", exclusion_set=exclusion)
        _pinned_bytes(out, "text path", got, doc)
        if "input_data_model" in doc:
            out.eq(
                "value path == text path",
                impl.preimage(doc["input_data_model"], algorithm="jcs", exclusion_set=exclusion),
                got,
            )
        if "digest_alg" in doc:
            out.eq("digest_alg", doc["digest_alg"], CANONICALIZATIONS["jcs"].hash_name)
        if "digest_representation" in doc:
            out.eq("digest representation", doc["digest_representation"], "lowercase-hex")


class AsTransmittedHandler(Handler):
    """as-transmitted over a COSE_Sign1 (cpb-current `as-transmitted/`): the RFC 9052 §4.4
    Sig_structure octets selected from the container, their digest; a carried digest over the hex
    text of those octets is refused."""

    name = "as-transmitted"

    def claims(self, v: Vector) -> bool:
        return v.doc.get("algorithm") == "as-transmitted" and isinstance(v.doc.get("container"), Mapping)

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        container = doc["container"]
        if not out.eq("container format", container.get("format"), "COSE_Sign1"):
            return
        selector = doc.get("byte_boundary_selector", {})
        cose.check_selector(selector)
        data = bytes.fromhex(container["bytes_hex"])
        aad = bytes.fromhex(selector.get("external_aad_bytes_hex", ""))
        selected = cose.sig_structure(data, external_aad=aad)
        out.eq("selected octets (Sig_structure)", selected.hex(), doc.get("selected_bytes_hex"))
        if "selected_length_octets" in doc:
            out.eq("selected length", len(selected), doc["selected_length_octets"])
        digest = cose.as_transmitted_digest(data, external_aad=aad)
        out.eq("digest", digest, doc.get("digest"))
        out.eq("digest_alg", doc.get("digest_alg"), CANONICALIZATIONS["as-transmitted"].hash_name)
        wrong = doc.get("nonconforming_pre_image")
        if isinstance(wrong, Mapping):  # the construction the vector describes is the one it pins
            text = selected.hex().encode("ascii")
            out.eq("non-conforming preimage: the selected octets' hex text", wrong.get("bytes_hex"), text.hex())
            out.eq("non-conforming length", wrong.get("length_octets"), len(text))
            out.eq("non-conforming digest", wrong.get("digest"), hex_digest(text))
        if "carried_digest" not in doc:
            return
        carried = doc["carried_digest"]
        if _must_fail(doc):
            _expect_refusal(
                out,
                doc.get("failure_reason"),
                "carried digest",
                lambda: cose.verify_as_transmitted(data, carried, external_aad=aad),
                "as-transmitted",
            )
            if out.fired and isinstance(wrong, Mapping) and carried == wrong.get("digest"):
                out.fired.discard("as-transmitted:IdentifierMismatchError")
                out.fired.add("as-transmitted:textual-hex-substitution")
            return
        out.eq("carried digest verifies", cose.verify_as_transmitted(data, carried, external_aad=aad), digest)


class HashEnvelopeHandler(Handler):
    """An RFC 9995 Hash Envelope COSE_Sign1 carrying a `cpb-refs` entry (typed-refs/pass/04): the
    signature over the Sig_structure, the protected parameters, the payload as the RAW digest of
    the preimage, and the header entry as the typed reference."""

    name = "hash-envelope"

    def claims(self, v: Vector) -> bool:
        return v.doc.get("statement_mode") == "rfc9995-hash-envelope"

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        data = bytes.fromhex(doc["cose_sign1_bytes_hex"])
        preimage = bytes.fromhex(doc["payload_preimage_hex"])
        msg = cose.check_hash_envelope(data, preimage)  # raises COSEError for a broken rule
        out.eq("payload (raw digest octets)", msg.payload.hex() if msg.payload else None, doc.get("payload_hex"))
        out.eq("payload = SHA-256(preimage), raw", msg.payload, bytes.fromhex(hex_digest(preimage)))
        out.eq("protected header as transmitted", msg.protected.hex(), doc["protected_header"]["bytes_hex"])
        tbs = cose.sig_structure(data)
        out.eq("Sig_structure", tbs.hex(), doc.get("signature_structure_hex"))
        protected = msg.protected_header()
        want = doc.get("expected_protected_parameters", {})
        if "payload_hash_alg_258" in want:
            out.eq("label 258", protected.get(258), want["payload_hash_alg_258"])
        if "preimage_content_type_259" in want:
            out.eq("label 259", protected.get(259), want["preimage_content_type_259"])
        if want.get("content_type_3") == "ABSENT":
            out.true("label 3 absent", 3 not in protected and 3 not in msg.unprotected)
        _check_signature(doc, msg, tbs, out)
        _check_cpb_refs(doc, protected, out)
        # the reference's target is not in the fixture: it is carried, not verified (UNRESOLVED)


def _check_signature(doc: Mapping[str, Any], msg: cose.COSESign1, tbs: bytes, out: VectorOutcome) -> None:
    """The fixture's Ed25519 signature, pinned and verified over the Sig_structure (other algorithms: not checked)."""
    sig = doc.get("signature", {})
    if sig.get("algorithm") == "EdDSA" and sig.get("curve") == "Ed25519":
        from Crypto.Signature import eddsa

        key = eddsa.import_public_key(bytes.fromhex(sig["public_key_hex"]))
        out.eq("signature", msg.signature.hex(), sig.get("signature_hex"))
        try:
            eddsa.new(key, "rfc8032").verify(tbs, msg.signature)
            out.true("the Ed25519 signature verifies over the Sig_structure", True)
        except ValueError:
            out.fail("the Ed25519 signature does not verify over the Sig_structure")


def _check_cpb_refs(doc: Mapping[str, Any], protected: Mapping[Any, Any], out: VectorOutcome) -> None:
    """The `cpb-refs` entry decoded from the protected header is the vector's map entry and typed reference."""
    label, index = doc["protected_header"].get("cpb_refs_label"), doc["protected_header"].get("entry_index", 0)
    entries = protected.get(label)
    if isinstance(entries, list):
        entry = _cpb_refs_entry(entries[index])
        out.eq("the cpb-refs entry decoded", entry, _cpb_refs_entry(doc["cbor_map_entry"]))
        out.eq("the cpb-refs entry is the typed reference", entry, doc["typed_reference"])
    else:
        out.fail(f"the cpb-refs parameter ({label}) is not a list in the protected header")


class RepresentationHandler(Handler):
    """Raw vs hex (cpb-current `representation-contrast/`, `leaf-construction/`): the declared
    representation of a derived identifier fixes the input octets; the other form is a distinct
    value, never coerced."""

    name = "representation"

    def claims(self, v: Vector) -> bool:
        return v.doc.get("representation_contrast") is True or v.doc.get("leaf_construction") is True

    @staticmethod
    def _sides(doc: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any], Mapping[str, Any]]:
        declared = doc.get("declared_input_representation", doc.get("declared_leaf_representation"))
        correct = doc.get("raw_input", doc.get("correct_leaf_input", {}))
        contrast = doc.get("ascii_hex_contrast_input", doc.get("wrong_ascii_hex_leaf_input", {}))
        return declared, correct, contrast

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        declared, correct, contrast = self._sides(doc)
        identifier = doc["derived_identifier_bare_hex"]
        got = leaf_input(identifier, str(declared))  # CanonicalizationUsageError for an undeclared form
        out.eq(f"{declared} input octets", got.hex(), correct.get("bytes_hex"))
        out.eq(f"{declared} input length", len(got), correct.get("length_octets"))
        out.eq(f"{declared} input SHA-256", hex_digest(got), correct.get("check_sha256", correct.get("sha256")))
        other = bytes.fromhex(contrast.get("bytes_hex", ""))
        out.eq("contrast length", len(other), contrast.get("length_octets"))
        out.eq("contrast SHA-256 (self-check)", hex_digest(other), contrast.get("check_sha256", contrast.get("sha256")))
        if out.true(f"the {declared} input is not the contrast form", got != other):
            out.fired.add(f"representation:{declared}-declared")


def _vector_contexts(type_name: str, entry: Mapping[str, Any]) -> list[DigestContext]:
    """The contexts of an inline entry or profile declaration: one (the entry itself), or several
    under `digest_contexts` / `contexts`: `{purpose: summary}` (the older vectors), or context
    objects as a list (typed-refs fail/07 and pass/03 @550ba20) or by purpose, read as a registry
    reads them."""
    several = entry.get("digest_contexts", entry.get("contexts"))
    if isinstance(several, Mapping) and all(isinstance(text, str) for text in several.values()):
        return [_vector_context(type_name, {"digest_context": text, "purpose": p}) for p, text in several.items()]
    if isinstance(several, (Mapping, list)):
        return list(read_digest_contexts(type_name, several))
    return [_vector_context(type_name, entry)]


#: The members of a `cpb-refs` COSE header entry (drafts -03 to -05, section 8.2), by label.
CPB_REFS_LABELS = {"1": "type", "2": "purpose", "3": "digest_alg", "4": "digest"}


def _cpb_refs_entry(entry: Mapping[Any, Any]) -> dict[str, Any]:
    """A `cpb-refs` entry (labels as in the vector's JSON, or ints as decoded from CBOR) as a typed reference."""
    out = {}
    for label, value in entry.items():
        name = CPB_REFS_LABELS.get(str(label))
        out[name if name is not None else f"label {label}"] = value
    return out


def _vector_context(type_name: str, entry: Mapping[str, Any], **overrides: Any) -> DigestContext:
    """A digest context from the inline registry entries typed-reference vectors carry, in any of
    their shapes: explicit fields, or the summary string "jcs-n; exclusion set {doc_id}; 64-char
    lowercase hex"."""
    summary = entry.get("digest_context", "") or ""
    algorithm = entry.get("algorithm") or summary.split(";")[0].strip()
    if "exclusion_set" in entry:
        exclusion: tuple[str, ...] = tuple(entry["exclusion_set"])
    else:
        m = re.search(r"exclusion set \{([^}]*)\}", summary)
        exclusion = tuple(n.strip() for n in m.group(1).split(",")) if m else ()
    representation = parse_representation(entry.get("representation")) or parse_representation(summary)
    fields: dict[str, Any] = dict(
        artifact_type=type_name,
        purpose=entry.get("purpose"),
        algorithm=algorithm,
        exclusion_set=exclusion,
        representation=representation,
    )
    fields.update(overrides)
    return DigestContext(**fields)


def _registry_of(draft: str, *contexts: DigestContext) -> Registry:
    algorithms = bundled_registry(draft).algorithms
    types: dict[str, list[DigestContext]] = {}
    for c in contexts:
        types.setdefault(c.artifact_type, []).append(c)
    return Registry(
        dict(algorithms),
        {
            name: ArtifactType(name, "inline vector entry", Status.OWNER_CONFIRMED, "vector", tuple(cs))
            for name, cs in types.items()
        },
    )


def _first(doc: Mapping[str, Any], *paths: str) -> Any:
    for path in paths:
        node: Any = doc
        for part in path.split("."):
            node = node.get(part) if isinstance(node, Mapping) else None
        if node is not None:
            return node
    return None


_PASSING = (TypedRefVerdict.VERIFIED, TypedRefVerdict.VINTAGE_UNESTABLISHED)


def _passing_verdict(result: typed_refs.TypedRefResult, draft: str, vintage: Vintage | None) -> TypedRefVerdict:
    """What a reference whose bytes agree yields under the run's draft: verified, or, under the
    withdrawn jcs-n without vintage evidence (-02 on), vintage-unestablished (fail closed)."""
    context = result.context
    if context is not None and context.algorithm == "jcs-n" and jcs_n_withdrawn(draft) and vintage is None:
        return TypedRefVerdict.VINTAGE_UNESTABLISHED
    return TypedRefVerdict.VERIFIED


class TypedRefHandler(Handler):
    """Typed references: every reference in the vector against the cited artifact, each with the
    verdict its failure_reason maps to (or verified)."""

    name = "typed-ref"

    def claims(self, v: Vector) -> bool:
        return any(k.startswith("typed_reference") for k in v.doc)

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        if "artifact_a" in doc:
            self._equal_hex(v, impl, out)
            return
        cited = doc.get("cited_artifact", {})
        registry, current = self._registry(v, impl.draft)
        references = self._references(doc)
        if isinstance(doc.get("cose_sign1_bytes_hex"), str):  # real COSE_Sign1 bytes: the carrier, checked
            msg = cose.decode_sign1(bytes.fromhex(doc["cose_sign1_bytes_hex"]))
            out.eq("protected header as transmitted", msg.protected.hex(), doc["protected_header"]["bytes_hex"])
            tbs = cose.sig_structure(bytes.fromhex(doc["cose_sign1_bytes_hex"]))
            pinned_tbs = doc.get("signature_structure_hex", doc.get("signature", {}).get("signature_structure_hex"))
            out.eq("Sig_structure", tbs.hex(), pinned_tbs)
            _check_signature(doc, msg, tbs, out)
            _check_cpb_refs(doc, msg.protected_header(), out)
        elif isinstance(doc.get("cbor_map_entry"), Mapping):  # carried in the cpb-refs header: the same reference
            out.eq(
                "the cpb-refs entry is the typed reference",
                _cpb_refs_entry(doc["cbor_map_entry"]),
                doc["typed_reference"],
            )
        # JSON from the vector, as every value of `doc` is (a str in a well-formed vector)
        type_name: Any = references[0].get("type") if references else None
        payload = cited.get("payload")
        if isinstance(cited.get("payload_text"), str):  # JSON text, judged token by token
            payload = cited["payload_text"].encode("utf-8")
        elif isinstance(cited.get("payload_octets"), str):  # octets as transmitted (an SD-JWT)
            payload = cited["payload_octets"].encode("utf-8")
        # the pinned values of the cited artifact, reproduced under the registered context
        if registry is None:
            entry = (
                cited.get("registry_entry")
                or cited.get("artifact_type_registry_entry")
                or doc.get("artifact_type_registry_entry")
                or doc.get("digest_context_declaration")  # a profile's stable declaration (pass/03 @550ba20)
                or {}
            )
            contexts = _vector_contexts(type_name, entry)
            context = contexts[0]
            if "digest_context_declaration" in doc:
                registry = typed_refs.declared_registry(entry, algorithms=bundled_registry(impl.draft))
            else:
                registry = _registry_of(impl.draft, *contexts)
            if payload is None:  # no cited artifact in the vector: resolution only
                self._resolve_only(v, impl, out, references, registry)
                return
            recomputed = impl.preimage(payload, algorithm=context.algorithm, exclusion_set=context.exclusion_set or ())
            _pinned_bytes(
                out,
                "cited artifact",
                recomputed,
                cited,
                digest_keys=("derived_id", "correct_derived_id", "correct_derived_id_bare_hex"),
            )
            for key in ("verification.recomputed_digest", "correct_recomputed_digest", "expected.recomputed_digest"):
                pinned = _first(doc, key)
                if isinstance(pinned, str):
                    out.eq(f"{key}", hex_digest(recomputed), pinned)
            pinned = _first(doc, "verification.correct_pre_image")
            if isinstance(pinned, str):
                out.eq("verification.correct_pre_image", recomputed, pinned.encode("utf-8"))
            wrong_pre_image = doc.get("erroneous_pre_image_that_produced_wrong_digest")
            if isinstance(wrong_pre_image, str):  # the carried digest is what that preimage hashes to
                out.eq(
                    "the erroneous preimage's digest is the carried one",
                    hex_digest(wrong_pre_image.encode()),
                    references[0].get("digest"),
                )
            wrong = _first(doc, "erroneous_verification.wrong_exclusion_set")
            if wrong is not None:
                # The verifier that applies the wrong exclusion set: a digest mismatch, as the vector says.
                wrong_context = replace(context, exclusion_set=tuple(wrong))
                bad = impl.verify_typed_reference(
                    references[0], payload, registry=_registry_of(impl.draft, wrong_context)
                )
                out.eq("under the erroneous context", bad.verdict, TypedRefVerdict.DIGEST_MISMATCH)
                out.eq(
                    "erroneous recomputation",
                    bad.recomputed,
                    doc["erroneous_verification"].get("wrong_recomputed_digest"),
                )
                if bad.verdict is TypedRefVerdict.DIGEST_MISMATCH:
                    out.fired.add("typed-ref:digest-mismatch")
                want_verdict = TypedRefVerdict.VERIFIED  # the declared context verifies the carried digest
                self._verify_all(out, impl, doc, references, payload, registry, current, want_verdict, fire=False)
                return
        want = failure_meaning(doc.get("failure_reason")) if _must_fail(doc) else TypedRefVerdict.VERIFIED
        if not isinstance(want, TypedRefVerdict):
            out.fail(f"failure_reason {doc.get('failure_reason')!r} is not mapped to a typed-reference verdict")
            return
        self._verify_all(out, impl, doc, references, payload, registry, current, want, fire=True)

    @staticmethod
    def _resolve_only(
        v: Vector, impl: Implementation, out: VectorOutcome, references: list[dict[str, Any]], registry: Registry
    ) -> None:
        """A vector without the cited artifact: step 1 alone (the reference resolves, or fails to as stated)."""
        doc = v.doc
        want = failure_meaning(doc.get("failure_reason")) if _must_fail(doc) else TypedRefVerdict.VERIFIED
        if not isinstance(want, TypedRefVerdict):
            out.fail(f"failure_reason {doc.get('failure_reason')!r} is not mapped to a typed-reference verdict")
            return
        for n, ref in enumerate(references):
            got = typed_refs.resolve_context(ref, registry).verdict  # VERIFIED here: "context resolved"
            if out.eq(f"reference {n} resolution", got, want) and want is not TypedRefVerdict.VERIFIED:
                out.fired.add(f"typed-ref:{want.value}")

    def _registry(self, v: Vector, draft: str) -> tuple[Registry | None, Registry | None]:
        """A registry snapshot named by the vector (ours do this), else None: build it inline."""
        name = v.doc.get("registry_snapshot")
        if name is None:
            return None, None
        if name == "bundled":  # the registry shipped with the package, as of the run's draft
            return bundled_registry(draft), None
        registry = Registry.load(v.path.parent / name, pinned=v.doc.get("registry_pinned") is True)
        current = v.doc.get("current_registry_snapshot")
        return registry, (Registry.load(v.path.parent / current) if current else None)

    @staticmethod
    def _references(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
        refs: list[dict[str, Any]] = []
        for key, value in doc.items():
            if not key.startswith("typed_reference"):
                continue
            if isinstance(value, Mapping):
                refs.append(dict(value))
            elif isinstance(value, list):  # variants of one reference: the type is the cited one
                base = _first(doc, "cited_artifact.type", "cited_artifact.registry_entry.name")
                refs.extend({"type": base, **item} for item in value)
        return refs

    @staticmethod
    def _verify_all(
        out: VectorOutcome,
        impl: Implementation,
        doc: Mapping[str, Any],
        references: list[dict[str, Any]],
        payload: Any,
        registry: Registry,
        current: Registry | None,
        want: TypedRefVerdict,
        fire: bool,
    ) -> None:
        reason, expected = doc.get("failure_reason"), doc.get("expected_violation")
        vintage = _vintage_of(doc, impl.draft)
        agreement = _first(doc, "expected.digest_agreement")
        for n, ref in enumerate(references):
            result = impl.verify_typed_reference(ref, payload, registry=registry, current=current, vintage=vintage)
            what = f"reference {n} ({ref.get('digest_alg')!r}, {ref.get('digest')!r})"
            expect = _passing_verdict(result, impl.draft, vintage) if want is TypedRefVerdict.VERIFIED else want
            if agreement is not None:
                out.eq(f"{what}: digest agreement", result.digest_agreement, agreement)
            if not out.eq(what, result.verdict, expect):
                continue
            if expect is TypedRefVerdict.VINTAGE_UNESTABLISHED:
                if out.true(f"{what}: the bytes agree (digest agreement only)", result.digest_agreement):
                    out.fired.add("vintage:no-evidence")
                continue
            if not fire or want is TypedRefVerdict.VERIFIED:
                continue
            if want is TypedRefVerdict.ARTIFACT_VIOLATES_CONTEXT:
                # the violation must be the constraint the reason names, at the pinned path
                constraint = CONTEXT_REASONS.get(reason or "")
                got = result.violation
                ok = out.eq(f"{what}: violated constraint", got.constraint if got else None, constraint)
                if expected and "path" in expected:
                    ok = out.eq(f"{what}: violation path", got.path if got else None, expected["path"]) and ok
                if ok:
                    out.fired.add(f"context:{constraint}")
                continue
            out.fired.add(f"typed-ref:{want.value}")

    def _equal_hex(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        """Two types, one hex: the verifier holds artifact B but the reference cites type A."""
        doc = v.doc
        contexts = {}
        for key in ("artifact_a", "artifact_b"):
            art = doc.get(key)
            if art is None:
                continue
            contexts[key] = _vector_context(art["type"], art["registry_entry"])
            got = impl.preimage(
                art["payload"], algorithm=contexts[key].algorithm, exclusion_set=contexts[key].exclusion_set or ()
            )
            out.eq(f"{key} canonical form", got, doc["common_canonical_form"].encode())
            out.eq(f"{key} derived id", hex_digest(got), art["derived_id"])
        registry = _registry_of(impl.draft, *contexts.values())
        ref = doc["typed_reference_claiming_artifact_a"]
        in_hand = "artifact_b" if "artifact_b" in doc else "artifact_a"  # the vector's erroneous verifier
        vintage = _vintage_of(doc, impl.draft)
        result = impl.verify_typed_reference(
            ref, doc[in_hand]["payload"], registry=registry, artifact_type=doc[in_hand]["type"], vintage=vintage
        )
        want = failure_meaning(doc.get("failure_reason")) if _must_fail(doc) else TypedRefVerdict.VERIFIED
        if want is TypedRefVerdict.VERIFIED:
            want = _passing_verdict(result, impl.draft, vintage)
            if want is TypedRefVerdict.VINTAGE_UNESTABLISHED and result.verdict is want and result.digest_agreement:
                out.fired.add("vintage:no-evidence")
        if out.eq(f"verdict with {in_hand} in hand", result.verdict, want) and want not in _PASSING:
            out.fired.add(f"typed-ref:{result.verdict.value}")


class ProfileIndependenceHandler(Handler):
    """Profile A cites profile B only through a typed reference; its verdict never depends on B's
    internal fields. The MUST-FAIL vector describes a verifier that reads them: it is built from
    the vector and shown to diverge from ours exactly where the vector says (a renamed field)."""

    name = "profile-independence"

    def claims(self, v: Vector) -> bool:
        return "profile_a" in v.doc or "scenario" in v.doc

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        if "profile_a" in doc:
            a, b = doc["profile_a"], doc["profile_b"]
            b_payload, b_excl, b_id = b["payload"], b["exclusion_set"], b["derived_id"]
            b_type, ref = b["name"], a["payload"]["authorization"]
            out.true(
                "profile A's own identifier",
                len(hex_digest(impl.preimage(a["payload"], algorithm=a["algorithm"], exclusion_set=a["exclusion_set"])))
                == 64,
            )
            algorithm = b["algorithm"]
        else:
            scenario = doc["scenario"]
            ref = scenario["decision_record"]["payload"]["authorization"]
            b = scenario["authorization_doc"]
            # no exclusion set is stated for B here; its null doc_id normalizes away either way
            b_payload, b_id, b_type, algorithm = b["payload"], b["derived_id"], b["payload_class"], "jcs-n"
            b_excl = []
        context = DigestContext(b_type, None, algorithm, tuple(b_excl))
        registry = _registry_of(impl.draft, context)
        out.eq(
            "profile B derived id",
            hex_digest(impl.preimage(b_payload, algorithm=algorithm, exclusion_set=b_excl)),
            b_id,
        )
        vintage = _vintage_of(doc, impl.draft)
        first = impl.verify_typed_reference(ref, b_payload, registry=registry, vintage=vintage)
        passing = _passing_verdict(first, impl.draft, vintage)
        if out.eq("typed reference from A to B", first.verdict, passing) and passing is not TypedRefVerdict.VERIFIED:
            if out.true("A's reference to B: the bytes agree (digest agreement only)", first.digest_agreement):
                out.fired.add("vintage:no-evidence")
        behaviour = doc.get("non_conforming_verifier_behavior")
        rename = re.search(r"renames '(\w+)' to '(\w+)'", (behaviour or {}).get("consequence", ""))
        old, new = rename.groups() if rename else ("scope", "permission_scope")
        # B's next profile version renames a field: A's binding must still verify.
        renamed = {(new if k == old else k): val for k, val in b_payload.items()}
        renamed_ref = dict(ref, digest=hex_digest(impl.preimage(renamed, algorithm=algorithm, exclusion_set=b_excl)))
        # the renamed B is another record: the vector's evidence (if any) does not bind its digest
        renamed_vintage = _vintage_of({}, impl.draft)
        renamed_result = impl.verify_typed_reference(renamed_ref, renamed, registry=registry, vintage=renamed_vintage)
        ours = renamed_result.verdict
        renamed_passing = _passing_verdict(renamed_result, impl.draft, renamed_vintage)
        out.eq("after B renames a field", ours, renamed_passing)
        if behaviour is not None:
            required = dict(re.findall(r"(\w+)='([^']*)'", behaviour.get("violation", "")))
            out.true("the vector names the fields the non-conforming verifier requires", bool(required))

            def reads_inside(payload: Mapping[str, Any]) -> bool:  # the verifier the vector forbids
                return all(payload.get(k) == val for k, val in required.items())

            if _must_fail(doc) and out.true(
                "the non-conforming verifier breaks on the rename while ours holds",
                reads_inside(b_payload) and not reads_inside(renamed) and ours is renamed_passing,
            ):
                out.fired.add("profile-independence:violation")


class StreamHandler(Handler):
    """The stream-reassemble domain transform: complete streams digest, truncated ones fail."""

    name = "domain-transform"

    def claims(self, v: Vector) -> bool:
        return "domain_transforms" in v.doc

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        ids = [t.get("id") for t in doc["domain_transforms"]]
        if not out.eq("declared transforms", ids, ["stream-reassemble"]):
            return
        if _must_fail(doc):
            _expect_refusal(
                out, doc.get("failure_reason"), "reassembly", lambda: reassemble_stream(doc["source"]), "stream"
            )
            return
        text = reassemble_stream(doc["source"])
        got = impl.preimage_text(
            text, algorithm=doc.get("algorithm", "jcs-n"), exclusion_set=doc.get("exclusion_set", [])
        )
        _pinned_bytes(out, "reassembled", got, doc)
        if "input" in doc:
            out.eq("reassembled == input", json.loads(text), doc["input"])
            out.eq("value path", impl.preimage(doc["input"], algorithm=doc.get("algorithm", "jcs-n")), got)


class AssembledHandler(Handler):
    """Assembled preimages: derivable only from a declared member mapping."""

    name = "assembled-preimage"

    def claims(self, v: Vector) -> bool:
        return "declared_digest_context" in v.doc

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        ctx = doc["declared_digest_context"]
        algorithm = ctx.get("canonicalization_algorithm", doc.get("algorithm", "jcs-n"))
        forks = [doc[k] for k in ("implementation_a", "implementation_b") if k in doc]
        for n, impl_side in enumerate(forks):  # the fork the vector describes is real
            got = impl.preimage(impl_side["assembled"], algorithm=algorithm)
            _pinned_bytes(out, f"implementation {'ab'[n]}", got, impl_side)
        if len(forks) == 2:
            out.true("the two readings diverge", forks[0]["digest"] != forks[1]["digest"])
        mapping = ctx.get("member_mapping")
        if _must_fail(doc):
            _expect_refusal(
                out,
                doc.get("failure_reason"),
                "assembly",
                lambda: assemble_preimage(doc["source_object"], mapping),
                "assembled",
            )
            return
        assembled = assemble_preimage(doc["source_object"], mapping)
        if "input" in doc:
            out.eq("assembled == input", assembled, doc["input"])
        elif forks:
            out.true(
                "the declared mapping selects exactly one reading", sum(assembled == f["assembled"] for f in forks) == 1
            )
        got = impl.preimage(assembled, algorithm=algorithm, exclusion_set=ctx.get("exclusion_set", []))
        _pinned_bytes(out, "assembled", got, doc)


class DerivedIdHandler(Handler):
    """Derived identifiers: computed over the payload minus its exclusion set; carried ones recomputed."""

    name = "derived-id"

    def claims(self, v: Vector) -> bool:
        return "full_payload" in v.doc or "sd_encoded_payload" in v.doc

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        algorithm, excl = doc.get("algorithm", "jcs-n"), doc.get("exclusion_set", [])
        key = "sd_encoded_payload" if "sd_encoded_payload" in doc else "full_payload"
        text = v.text(key)

        vintage = _vintage_of(doc, impl.draft)
        fails_closed = algorithm == "jcs-n" and vintage is None  # -02 on, no evidence in the vector

        def verify(payload: Any, carried: Any) -> str:
            if fails_closed:  # the record fails closed (a mismatch still raises as the mismatch it is)
                try:
                    impl.verify_derived_identifier(payload, carried, algorithm=algorithm, exclusion_set=excl)
                except VintageError:
                    out.fired.add("vintage:no-evidence")
                else:
                    out.fail("a withdrawn jcs-n identifier verified without vintage evidence")
                # digest agreement, which is all the vector can show without evidence
                vintage_or_draft: Vintage | None = Vintage.pre_withdrawal_draft()
            else:
                vintage_or_draft = vintage
            return impl.verify_derived_identifier(
                payload, carried, algorithm=algorithm, exclusion_set=excl, vintage=vintage_or_draft
            )

        if _must_fail(doc):
            exc = out.refuses(
                "carried identifier", lambda: verify(doc[key], doc["carried_id"]), IdentifierMismatchError
            )
            if exc is not None:
                out.eq("recomputed", exc.recomputed, doc["correct_derived_id"])
                if failure_meaning(doc.get("failure_reason")) is IdentifierMismatchError:
                    out.fired.add("derived-id:carried-id-mismatch")
                else:
                    out.fail(f"failure_reason {doc.get('failure_reason')!r} is not a carried-id mismatch")
            return
        got = impl.preimage_text(text, algorithm=algorithm, exclusion_set=excl)
        _pinned_bytes(out, key, got, doc, digest_keys=("derived_id",))
        out.eq("value path", impl.preimage(doc[key], algorithm=algorithm, exclusion_set=excl), got)
        if "normalized" in doc:
            out.eq("normal form", impl.normalize(doc[key], exclusion_set=excl), doc["normalized"])
        if "plaintext_payload_for_reference" in doc:
            out.true(
                "the SD-encoded form, not the plaintext, is digested",
                hex_digest(
                    impl.preimage(doc["plaintext_payload_for_reference"], algorithm=algorithm, exclusion_set=excl)
                )
                != hex_digest(got),
            )
        carrying = doc.get("full_payload_with_carried_id")
        if carrying is not None:
            carried = next(carrying[n] for n in excl if isinstance(carrying.get(n), str))
            out.eq("carried identifier verifies", verify(carrying, carried), doc["derived_id"])
        if "carried_id" in doc:
            out.eq("carried identifier verifies", verify(doc[key], doc["carried_id"]), doc.get("correct_derived_id"))


class RegistryLookupHandler(Handler):
    """Registry look-ups against a named snapshot: verified / unknown-id / id-unknown-to-snapshot /
    withdrawn / held."""

    name = "registry-lookup"

    def claims(self, v: Vector) -> bool:
        return v.doc.get("kind") == "registry-lookup"

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        doc = v.doc
        registry = Registry.load(v.path.parent / doc["snapshot"], pinned=doc.get("pinned") is True)
        current = Registry.load(v.path.parent / doc["current"]) if "current" in doc else None
        if "artifact_type" in doc:
            got = registry.lookup_artifact_type(doc["artifact_type"], current=current).verdict
        else:
            got = registry.lookup_algorithm(doc["algorithm_id"], current=current).verdict
        if out.eq("verdict", got.value, doc["expected_verdict"]) and got is not LookupVerdict.VERIFIED:
            out.fired.add(f"registry:{got.value}")


class SnapshotHandler(Handler):
    """A registry snapshot: it loads, and its snapshot_sha256 reproduces as upstream computes it:
    SHA-256 over json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")) of the
    snapshot without that member (not JCS, which agrees only on ASCII-only bodies)."""

    name = "registry-snapshot"

    def claims(self, v: Vector) -> bool:
        return "canonicalization_algorithms" in v.doc and "schema_version" in v.doc

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        registry = Registry.from_json(v.doc)
        body = {k: val for k, val in v.doc.items() if k != "snapshot_sha256"}
        text = json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        out.eq("snapshot_sha256", hex_digest(text), v.doc.get("snapshot_sha256"))
        out.eq("the registry's own check agrees", registry.snapshot_hash_matches, True)
        out.true("every algorithm has a status", all(a.status for a in registry.algorithms.values()))


#: In claim order: the first handler that claims a file runs it.
HANDLERS: tuple[Handler, ...] = (
    SnapshotHandler(),
    AsTransmittedHandler(),
    HashEnvelopeHandler(),
    RepresentationHandler(),
    JcsTextHandler(),
    RegistryLookupHandler(),
    CheckerHandler(),
    DivergenceHandler(),
    TypedRefHandler(),
    ProfileIndependenceHandler(),
    StreamHandler(),
    AssembledHandler(),
    DerivedIdHandler(),
    KatHandler(),
)


def claim(v: Vector) -> Handler | None:
    return next((h for h in HANDLERS if h.claims(v)), None)
