"""Typed references: verify `{"type", "purpose"?, "digest_alg", "digest"}` against a cited artifact.

A profile-level helper, outside the CPB core: draft -06 removed typed references, `cpb-refs` and
the artifact-type registry from CPB itself (they were sections 7.1 / 8 of drafts -01 to -05). The
verification below follows those drafts; profiles that keep typed references use it as is.
(Before, it was `fastjcs.cpb.typed_refs`; the layers are now profiles -> cpb -> core.)

The order is the drafts' (section 7.1 of -01), and each step that fails has its own verdict:

1. resolve `type` (and `purpose`, required when the type registers several contexts) to exactly one
   registered digest context: malformed-reference, unknown-type, type-unknown-to-snapshot,
   type-withdrawn, type-held, type-removed (removed from the registry, as the capsule was),
   purpose-required, unknown-purpose, ambiguous-context,
   algorithm-unavailable (the context's algorithm is unknown here or not live in the registry);
2. `digest_alg` equals the context's hash algorithm byte for byte (`SHA-256`; `sha-256` is not it):
   digest-alg-mismatch;
3. `digest` matches the context's representation grammar (bare hex: `\\A[0-9a-f]{64}\\Z`; nothing
   is trimmed or stripped): representation-mismatch;
4. recompute the cited artifact's digest under that context: artifact-type-mismatch (the artifact
   in hand is known to be of another type: equal hex under another context is not a join),
   artifact-violates-context (the artifact breaks a constraint the context declares: a closed
   field set, a member type, integers only, an SD-JWT byte selector; checked before hashing, with
   the member path and the clause), artifact-not-canonicalizable (it breaks the algorithm);
5. compare exactly: digest-mismatch;
6. a context under the withdrawn jcs-n (the registry lists it withdrawn, or does not list it):
   verified only when `vintage` establishes the record predates 2026-08-18
   (`fastjcs.cpb.vintage`), else vintage-unestablished, with `digest_agreement` True (the bytes
   agree; the record is still not verified: draft -06 fails closed). Else verified.

A reference may carry `profile_version` and `canonicalization_id` to select among several contexts
of one purpose (the Agent Action Capsule registers a jcs-n and a jcs context). Other fields are
ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..core.api import DEFAULT_MAX_DEPTH
from ..core.errors import FastJCSError
from ..cpb.constraints import ContextViolation, ContextViolationError
from ..cpb.errors import SnapshotFormatError, VintageError
from ..cpb.registry import (
    REMOVED_ARTIFACT_TYPES,
    ArtifactType,
    DigestContext,
    LookupVerdict,
    Registry,
    Status,
    read_digest_contexts,
)
from ..cpb.vintage import Vintage, require


class TypedRefVerdict(str, Enum):
    VERIFIED = "verified"
    MALFORMED_REFERENCE = "malformed-reference"
    UNKNOWN_TYPE = "unknown-type"
    TYPE_UNKNOWN_TO_SNAPSHOT = "type-unknown-to-snapshot"
    TYPE_WITHDRAWN = "type-withdrawn"
    TYPE_HELD = "type-held"
    TYPE_REMOVED = "type-removed"  # removed from the registry (cpb.registry.REMOVED_ARTIFACT_TYPES)
    PURPOSE_REQUIRED = "purpose-required"
    UNKNOWN_PURPOSE = "unknown-purpose"
    AMBIGUOUS_CONTEXT = "ambiguous-context"
    ALGORITHM_UNAVAILABLE = "algorithm-unavailable"
    DIGEST_ALG_MISMATCH = "digest-alg-mismatch"
    REPRESENTATION_MISMATCH = "representation-mismatch"
    ARTIFACT_TYPE_MISMATCH = "artifact-type-mismatch"
    ARTIFACT_VIOLATES_CONTEXT = "artifact-violates-context"
    ARTIFACT_NOT_CANONICALIZABLE = "artifact-not-canonicalizable"
    DIGEST_MISMATCH = "digest-mismatch"
    VINTAGE_UNESTABLISHED = "vintage-unestablished"


_TYPE_LOOKUP = {
    LookupVerdict.UNKNOWN_ID: TypedRefVerdict.UNKNOWN_TYPE,
    LookupVerdict.ID_UNKNOWN_TO_SNAPSHOT: TypedRefVerdict.TYPE_UNKNOWN_TO_SNAPSHOT,
    LookupVerdict.WITHDRAWN: TypedRefVerdict.TYPE_WITHDRAWN,
    LookupVerdict.HELD: TypedRefVerdict.TYPE_HELD,
    LookupVerdict.REMOVED: TypedRefVerdict.TYPE_REMOVED,
}


@dataclass(frozen=True)
class TypedRefResult:
    verdict: TypedRefVerdict
    detail: str = ""
    context: DigestContext | None = None
    recomputed: str | None = None  # in the context's representation, once step 4 ran
    violation: ContextViolation | None = None  # for artifact-violates-context
    #: prose clauses of the context that no machine form covers: this verdict did not check them
    not_machine_checked: tuple[str, ...] = ()
    #: the recomputed digest equals the carried one (True for verified and vintage-unestablished)
    digest_agreement: bool = False
    #: for vintage-unestablished: why (no-evidence, callback-error, at-or-after-cutoff, ...)
    vintage_reason: str | None = None

    @property
    def verified(self) -> bool:
        return self.verdict is TypedRefVerdict.VERIFIED


def declared_registry(
    declaration: Mapping[str, Any], *, algorithms: Registry | None = None, reference: str = "profile declaration"
) -> Registry:
    """A consuming profile's stable declaration of an artifact type's digest contexts as a registry
    to verify typed references against: `{"type", "contexts"}` (or `digest_contexts`), the contexts
    as a list of context objects or a mapping of purpose to context object
    (`fastjcs.cpb.registry.read_digest_contexts`). A context's own `digest_alg`, where it gives one,
    must be its algorithm's (SnapshotFormatError if not: the declaration contradicts itself). The
    algorithm statuses are `algorithms`' (default: the bundled registry)."""
    if not isinstance(declaration, Mapping) or not isinstance(declaration.get("type"), str):
        raise SnapshotFormatError("a digest-context declaration is an object with a string `type`")
    name = declaration["type"]
    raw = declaration.get("contexts", declaration.get("digest_contexts"))
    contexts = read_digest_contexts(name, raw)
    entries = raw.values() if isinstance(raw, Mapping) else raw
    for context, entry in zip(contexts, entries):
        stated = entry.get("digest_alg")
        if stated is not None and stated != context.hash_name:
            raise SnapshotFormatError(
                f"{name}: a {context.algorithm} context declares digest_alg {stated!r}, not {context.hash_name!r}"
            )
    base = Registry.bundled() if algorithms is None else algorithms
    entry = ArtifactType(name, reference, Status.OWNER_CONFIRMED, "declared", contexts)
    return Registry(dict(base.algorithms), {name: entry})


def resolve_context(
    reference: Mapping[str, Any], registry: Registry, *, current: Registry | None = None
) -> TypedRefResult:
    """Step 1 alone: the reference's type and purpose to exactly one digest context."""
    if not isinstance(reference, Mapping):
        return TypedRefResult(TypedRefVerdict.MALFORMED_REFERENCE, "a typed reference is an object")
    type_name = reference.get("type")
    if not isinstance(type_name, str):
        return TypedRefResult(TypedRefVerdict.MALFORMED_REFERENCE, "`type` must be a string")
    purpose = reference.get("purpose")
    if purpose is not None and not isinstance(purpose, str):
        return TypedRefResult(TypedRefVerdict.MALFORMED_REFERENCE, "`purpose` must be a string")
    selectors = {k: reference.get(k) for k in ("profile_version", "canonicalization_id")}
    if any(v is not None and not isinstance(v, str) for v in selectors.values()):
        return TypedRefResult(
            TypedRefVerdict.MALFORMED_REFERENCE, "`profile_version` and `canonicalization_id` must be strings"
        )
    found = registry.lookup_artifact_type(type_name, current=current)
    if found.verdict is LookupVerdict.REMOVED:
        why = REMOVED_ARTIFACT_TYPES[type_name]
        return TypedRefResult(
            TypedRefVerdict.TYPE_REMOVED, f"artifact type {type_name!r} was removed from the registry: {why}"
        )
    if not found.verified:
        return TypedRefResult(_TYPE_LOOKUP[found.verdict], f"artifact type {type_name!r}")
    assert found.entry is not None  # a verified lookup carries its entry
    contexts = found.entry.contexts
    if purpose is None:
        if len(contexts) > 1:
            return TypedRefResult(
                TypedRefVerdict.PURPOSE_REQUIRED, f"{type_name!r} registers {len(contexts)} digest contexts"
            )
        matches = list(contexts)
    else:
        matches = [c for c in contexts if c.purpose == purpose]
    if selectors["profile_version"] is not None:
        matches = [c for c in matches if c.profile_version == selectors["profile_version"]]
    if selectors["canonicalization_id"] is not None:
        matches = [c for c in matches if c.algorithm == selectors["canonicalization_id"]]
    if not matches:
        return TypedRefResult(TypedRefVerdict.UNKNOWN_PURPOSE, f"{type_name!r} has no context for {purpose!r}")
    if len(matches) > 1:
        return TypedRefResult(
            TypedRefVerdict.AMBIGUOUS_CONTEXT, f"{type_name!r} has {len(matches)} contexts for {purpose!r}"
        )
    context = matches[0]
    listed = registry.algorithms.get(context.algorithm)
    if context.hash_name is None or (listed is not None and not listed.live and not _historical(context, registry)):
        return TypedRefResult(
            TypedRefVerdict.ALGORITHM_UNAVAILABLE, f"algorithm {context.algorithm!r} is not available", context
        )
    if context.representation is None:
        return TypedRefResult(
            TypedRefVerdict.REPRESENTATION_MISMATCH,
            "the context declares no representation this verifier knows",
            context,
        )
    return TypedRefResult(TypedRefVerdict.VERIFIED, "context resolved", context)


def verify_typed_reference(
    reference: Mapping[str, Any],
    artifact: Any,
    *,
    registry: Registry,
    artifact_type: str | None = None,
    current: Registry | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    vintage: Vintage | None = None,
) -> TypedRefResult:
    """Verify a typed reference against the cited artifact, in the draft's order.

    `artifact` is the cited artifact: JSON text as bytes (judged token by token under jcs-n; the
    exact octets for as-transmitted) or a Python value. `artifact_type`, when the caller knows the
    type of the artifact in hand, must be the reference's type. `current` is the authoritative
    registry when `registry` is a pinned snapshot. `vintage` is the evidence for a record under the
    withdrawn jcs-n (step 6). Never raises for a verification failure.
    """
    resolved = resolve_context(reference, registry, current=current)
    if not resolved.verified:
        return resolved
    context = resolved.context
    assert context is not None
    # 2. digest_alg, byte for byte: no case folding, no trimming, no aliases.
    digest_alg = reference.get("digest_alg")
    if type(digest_alg) is not str or digest_alg != context.hash_name:
        return TypedRefResult(
            TypedRefVerdict.DIGEST_ALG_MISMATCH, f"digest_alg {digest_alg!r} is not {context.hash_name!r}", context
        )
    # 3. the representation grammar.
    carried = reference.get("digest")
    representation = context.representation
    assert representation is not None
    if type(carried) is not str or representation.grammar().match(carried) is None:
        return TypedRefResult(
            TypedRefVerdict.REPRESENTATION_MISMATCH, f"digest {carried!r} is not {representation.value}", context
        )
    # 4. recompute under the resolved context.
    if artifact_type is not None and artifact_type != reference["type"]:
        return TypedRefResult(
            TypedRefVerdict.ARTIFACT_TYPE_MISMATCH,
            f"the artifact in hand is a {artifact_type!r}, the reference cites a "
            f"{reference['type']!r}: equal hex is not a join",
            context,
        )
    unchecked = context.not_machine_checked
    try:
        recomputed = context.identifier(artifact, max_depth=max_depth)
    except ContextViolationError as exc:
        return TypedRefResult(
            TypedRefVerdict.ARTIFACT_VIOLATES_CONTEXT,
            str(exc),
            context,
            violation=exc.violation,
            not_machine_checked=unchecked,
        )
    except FastJCSError as exc:
        return TypedRefResult(
            TypedRefVerdict.ARTIFACT_NOT_CANONICALIZABLE, str(exc), context, not_machine_checked=unchecked
        )
    # 5. compare, exactly.
    if carried != recomputed:
        return TypedRefResult(
            TypedRefVerdict.DIGEST_MISMATCH,
            f"carried {carried} != recomputed {recomputed}",
            context,
            recomputed,
            not_machine_checked=unchecked,
        )
    # 6. the withdrawn jcs-n: verified only with authenticated vintage evidence.
    if _historical(context, registry):
        try:
            require(vintage, recomputed)
        except VintageError as exc:
            return TypedRefResult(
                TypedRefVerdict.VINTAGE_UNESTABLISHED,
                str(exc),
                context,
                recomputed,
                not_machine_checked=unchecked,
                digest_agreement=True,
                vintage_reason=exc.reason,
            )
    return TypedRefResult(
        TypedRefVerdict.VERIFIED, "", context, recomputed, not_machine_checked=unchecked, digest_agreement=True
    )


def _historical(context: DigestContext, registry: Registry) -> bool:
    """Whether the context's algorithm is the withdrawn jcs-n as this registry sees it: listed as
    withdrawn, or not listed (the library's own status then: withdrawn). A registry from before the
    withdrawal (jcs-n registered) judges as the drafts of its time did."""
    if context.algorithm != "jcs-n":
        return False
    listed = registry.algorithms.get("jcs-n")
    return listed is None or listed.status is Status.WITHDRAWN
