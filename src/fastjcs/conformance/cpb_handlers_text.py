"""The CPB vector handlers for canonical text and its transmission: jcs / jcs-n known answers,
the checker, divergence, JCS text, as-transmitted COSE bytes, the RFC 9995 Hash Envelope and the
raw-vs-hex representation of a derived identifier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.hashing import hex_digest
from ..cpb import CANONICALIZATIONS, checker, cose
from ..cpb.leaf import leaf_input
from .cpb_cases import Implementation, Vector
from .cpb_handler_base import (
    Handler,
    _check_cpb_refs,
    _check_signature,
    _expect_refusal,
    _lossless_under_json_loads,
    _must_fail,
    _pinned_bytes,
)
from .results import VectorOutcome


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
