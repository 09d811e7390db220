"""The CPB vector handlers for typed references and what they point at: typed references,
profile independence, streams, assembled preimages, derived identifiers, registry lookups and
registry snapshots, with the inline registry entries their vectors carry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.hashing import hex_digest
from ..cpb import cose
from ..cpb.errors import IdentifierMismatchError, VintageError
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
    CONTEXT_REASONS,
    Implementation,
    Vector,
    _vintage_of,
    bundled_registry,
    failure_meaning,
    jcs_n_withdrawn,
)
from .cpb_handler_base import (
    Handler,
    _check_cpb_refs,
    _check_signature,
    _cpb_refs_entry,
    _expect_refusal,
    _must_fail,
    _pinned_bytes,
)
from .results import VectorOutcome


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
