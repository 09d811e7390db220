"""CPB registries in the upstream snapshot format: algorithms, artifact types, digest contexts.

A snapshot (`cpb-registry.json` upstream) is::

    {"schema_version": "1",
     "canonicalization_algorithms": {NAME: {"description", "reference", "status"}},
     "artifact_types": {NAME: {"reference", "status",
                               "digest_contexts": [{"purpose", "profile_version", "algorithm",
                                                    "field_set", "exclusion_set", "domain_separation",
                                                    "pre_image_encoding", "representation",
                                                    "constraints"?}]}},
     "snapshot_sha256": HEX}

Statuses: owner-confirmed, third-party-documented, provisional, standards-referenced, active (all
live), withdrawn (not live); the legacy `Registered` reads as owner-confirmed and `Reserved` as held
(a name kept back, not live); draft -06's template spellings `Active`, `Reserved` and `Withdrawn`
read as active, held and withdrawn. An algorithm entry may carry draft -06's `digest_alg` token and
COSE hash algorithm id (`cose_alg`, an integer or "N/A").

The integrity pin `snapshot_sha256` is checked as upstream computes it: SHA-256 over
`json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":"))`, the snapshot without
the pin. That is NOT RFC 8785 JCS (non-ASCII is escaped as \\uXXXX, numbers are Python's); it is
the publisher's definition, so it is the one a verifier checks. Departures from upstream's
registry schema (.github/registry_schema.json @ 550ba20) are reported as `findings`, not refused.

Bundled versions (`Registry.bundled(version)`): "11fa7c0" (the default), "960db41" (the two
published registry.json versions that cannot be ordered) and "c33ce1a" (the snapshot the older
vector suite was written against, jcs-n still registered). See docs/cpb.md for the choice.

Lookups answer with a verdict, never by raising: `verified`,
`unknown-id` (not registered), `id-unknown-to-snapshot` (absent from a snapshot the verifier is
pinned to, which cannot tell a newer registration from none), `withdrawn`, `held`.

Kept whole (about 680 lines): one reader of the snapshot format and the model it builds; the
schema checks read the same tables as the model.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..core.api import DEFAULT_MAX_DEPTH, dumps
from ..core.documents import read_json
from ..core.errors import CanonicalizationError
from ._digest import CANONICALIZATIONS, historical_preimage, historical_preimage_text, sha256_hex
from .constraints import ContextConstraints, constraints_for
from .errors import ContextResolutionError, IdentifierMismatchError, SnapshotFormatError
from .vintage import Vintage, require

_REGISTRIES = Path(__file__).with_name("registries")
#: The registry versions shipped with fastjcs, by upstream commit (files copied verbatim).
BUNDLED_VERSIONS: dict[str, Path] = {
    "11fa7c0": _REGISTRIES / "11fa7c0.json",
    "960db41": _REGISTRIES / "960db41.json",
    "c33ce1a": _REGISTRIES / "c33ce1a.json",
}
#: The default: 11fa7c0 validates against upstream's registry schema (machine representation
#: tokens, no prose to interpret); 960db41 does not (six prose representations). Its missing
#: evidence-* entries fail closed (unknown-type); load "960db41" by name to resolve them.
DEFAULT_VERSION = "11fa7c0"
BUNDLED_SNAPSHOT = BUNDLED_VERSIONS[DEFAULT_VERSION]
#: upstream's registry schema (.github/registry_schema.json @ 550ba20), for `findings`
SCHEMA = _REGISTRIES / "schema-550ba20.json"


class Status(str, Enum):
    """Registration status of an algorithm or artifact type."""

    OWNER_CONFIRMED = "owner-confirmed"
    THIRD_PARTY_DOCUMENTED = "third-party-documented"
    PROVISIONAL = "provisional"
    STANDARDS_REFERENCED = "standards-referenced"
    ACTIVE = "active"  # draft -06's template: `Active`
    WITHDRAWN = "withdrawn"
    HELD = "held"

    @property
    def live(self) -> bool:
        """Whether an entry with this status may be used (all but withdrawn and held)."""
        return self not in (Status.WITHDRAWN, Status.HELD)


#: Statuses of the first registry revision, read as their current equivalents.
LEGACY_STATUSES = {"Registered": Status.OWNER_CONFIRMED, "Reserved": Status.HELD}
#: Draft -06's registration template (Active / Reserved / Withdrawn).
DRAFT_06_STATUSES = {"Active": Status.ACTIVE, "Withdrawn": Status.WITHDRAWN}


def parse_status(text: Any) -> Status:
    """A status string (current or legacy spelling, exact) as a Status."""
    if isinstance(text, str):
        if text in LEGACY_STATUSES:
            return LEGACY_STATUSES[text]
        if text in DRAFT_06_STATUSES:
            return DRAFT_06_STATUSES[text]
        try:
            return Status(text)
        except ValueError:
            pass
    raise SnapshotFormatError(f"unknown registry status {text!r}")


class Representation(str, Enum):
    """How a digest is written where it is carried; the forms are distinct, never coerced."""

    BARE_HEX = "bare-hex"  # 64 lowercase hex characters
    SHA256_PREFIXED = "sha256-prefixed"  # "sha256:" then 64 lowercase hex characters
    RAW = "raw"  # the 32 digest octets themselves (draft -06 section 7.1): never text

    def grammar(self) -> re.Pattern[str]:
        if self is Representation.RAW:
            raise SnapshotFormatError("the raw representation is octets, not text: it has no text grammar")
        return _GRAMMAR[self]

    def render(self, hex_digest: str) -> str:
        if self is Representation.RAW:
            raise SnapshotFormatError("the raw representation is octets: use bytes.fromhex(identifier)")
        return hex_digest if self is Representation.BARE_HEX else "sha256:" + hex_digest


# \A and \Z, never ^ and $: `$` also matches before a trailing newline.
_GRAMMAR = {
    Representation.BARE_HEX: re.compile(r"\A[0-9a-f]{64}\Z"),
    Representation.SHA256_PREFIXED: re.compile(r"\Asha256:[0-9a-f]{64}\Z"),
}


def parse_representation(text: Any) -> Representation | None:
    """The representation a registry entry declares in prose, or None when it declares none we know."""
    if not isinstance(text, str):
        return None
    if text in ("bare_hex", "bare-hex"):
        return Representation.BARE_HEX
    if text == "raw":
        return Representation.RAW
    if text == "sha256-prefixed":  # the schema's token (registry 11fa7c0)
        return Representation.SHA256_PREFIXED
    if text.startswith("sha256:") or "sha256: +" in text:
        return Representation.SHA256_PREFIXED
    if re.search(r"\b64-char(?:acter)? lowercase hex\b", text):
        return Representation.BARE_HEX
    return None


def parse_exclusion_set(value: Any) -> tuple[str, ...] | None:
    """An exclusion set as written in a registry: a list, "{a, b}", "none", or "N/A ..." (None)."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "none":
            return ()
        if text.startswith("N/A"):
            return None
        m = re.fullmatch(r"\{([^{}]*)\}", text)
        if m:
            return tuple(name.strip() for name in m.group(1).split(",") if name.strip())
    raise SnapshotFormatError(f"cannot read exclusion set {value!r}")


@dataclass(frozen=True)
class DigestContext:
    """One registered way to digest an artifact type: the context a typed reference resolves to."""

    artifact_type: str
    purpose: str | None
    algorithm: str
    exclusion_set: tuple[str, ...] | None = ()  # None: not applicable (as-transmitted)
    representation: Representation | None = Representation.BARE_HEX
    profile_version: str | None = None
    field_set: str | None = None
    domain_separation: str | None = None
    pre_image_encoding: str | None = None
    representation_text: str | None = None
    #: What the context declares about its artifacts, checked before hashing (None: nothing machine-readable).
    constraints: ContextConstraints | None = None
    #: Prose clauses of the context that no machine form covers: reported by every verdict relying on it.
    not_machine_checked: tuple[str, ...] = ()

    @property
    def hash_name(self) -> str | None:
        """The digest_alg a reference under this context must carry (None if the algorithm is unknown)."""
        algorithm = CANONICALIZATIONS.get(self.algorithm)
        return algorithm.hash_name if algorithm is not None else None

    def check(self, artifact: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
        """Apply the context's constraints to an artifact before hashing; return what is hashed.

        Bytes-like is JSON text (judged token by token) or, for as-transmitted, the octets the byte
        selector narrows (the issuer-signed JWS of an SD-JWT); anything else is a Python value.
        Raises ContextViolationError (constraint, path, clause) for a violation.
        """
        c = self.constraints
        if c is None:
            return artifact
        if self.algorithm == "as-transmitted":
            if isinstance(artifact, (bytes, bytearray, memoryview)):
                return c.select(bytes(artifact))
            return artifact  # as-transmitted refuses a value itself (CanonicalizationUsageError)
        text = isinstance(artifact, (bytes, bytearray, memoryview))
        c.check(artifact, exclusion_set=self.exclusion_set or (), as_text=text, max_depth=max_depth)
        return artifact

    def digest(self, artifact: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> str:
        """The artifact's digest under this context, bare hex (JSON text if bytes-like, else a value),
        after its constraints are checked (ContextViolationError if the artifact breaks one)."""
        checked = self.check(artifact, max_depth=max_depth)
        return artifact_digest(
            checked, algorithm=self.algorithm, exclusion_set=self.exclusion_set or (), max_depth=max_depth
        )

    def identifier(self, artifact: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> str:
        """The digest rendered in this context's representation."""
        if self.representation is None:
            raise SnapshotFormatError(f"{self.artifact_type}: the context declares no known representation")
        return self.representation.render(self.digest(artifact, max_depth=max_depth))

    def verify_carried(
        self, artifact: Any, carried: Any, *, max_depth: int = DEFAULT_MAX_DEPTH, vintage: Vintage | None = None
    ) -> str:
        """Recompute the identifier and compare it with a carried one, exactly; return it.

        Raises IdentifierMismatchError when they differ: the carried value is only advisory. Under
        the withdrawn jcs-n an equal identifier also needs `vintage` (`fastjcs.cpb.vintage`), else
        VintageError: the record fails closed.
        """
        recomputed = self.identifier(artifact, max_depth=max_depth)
        if carried != recomputed or type(carried) is not str:
            raise IdentifierMismatchError(carried, recomputed)
        if self.algorithm == "jcs-n":
            require(vintage, self.digest(artifact, max_depth=max_depth))
        return recomputed


def artifact_digest(
    artifact: Any, *, algorithm: str, exclusion_set: Iterable[str] = (), max_depth: int = DEFAULT_MAX_DEPTH
) -> str:
    """Digest of a cited artifact: bytes-like is JSON text (or the octets, for as-transmitted), any
    other value is a Python value (a str is a JSON string, not text to parse). A recomputation for
    verification: a withdrawn jcs-n context computes without warning (the vintage rule is the
    verifier's: `fastjcs.cpb.vintage`)."""
    if isinstance(artifact, (bytes, bytearray, memoryview)):
        pre = historical_preimage_text(artifact, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth)
    else:
        pre = historical_preimage(artifact, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth)
    return sha256_hex(pre)


@dataclass(frozen=True)
class CanonicalizationEntry:
    name: str
    description: str
    reference: str
    status: Status
    status_text: str
    #: draft -06: the exact digest_alg token a context under this entry uses (None: not stated)
    digest_alg: str | None = None
    #: draft -06: the COSE hash algorithm id for RFC 9995 Hash Envelope Mode (None: N/A or not stated)
    cose_alg: int | None = None

    @property
    def live(self) -> bool:
        return self.status.live


#: The older name of CanonicalizationEntry (the same class; docs/cpb.md, "Older names").
AlgorithmEntry = CanonicalizationEntry


@dataclass(frozen=True)
class ArtifactType:
    name: str
    reference: str
    status: Status
    status_text: str
    contexts: tuple[DigestContext, ...]

    @property
    def live(self) -> bool:
        return self.status.live


class LookupVerdict(str, Enum):
    VERIFIED = "verified"
    UNKNOWN_ID = "unknown-id"
    ID_UNKNOWN_TO_SNAPSHOT = "id-unknown-to-snapshot"
    WITHDRAWN = "withdrawn"
    HELD = "held"
    REMOVED = "removed-from-registry"  # once registered upstream, since removed (REMOVED_ARTIFACT_TYPES)


#: Artifact types upstream's registry held and has removed, with where they went. A snapshot without
#: one of these answers `removed-from-registry`, never `unknown-id`: the name was registered, and a
#: verifier must not read its absence as "never heard of it". Source: upstream's REGISTRY.md
#: "Removed" log as issue 34 reports it (read 2026-12-02 at a commit abbreviated 7b6fd1a; quarantined
#: 2026-09-05, repaired 2026-09-15, removed 2026-10-04); docs/cpb.md, "Registry versions".
REMOVED_ARTIFACT_TYPES: dict[str, str] = {
    "agent-action-capsule": "removed on 2026-10-04 to live in its own profile (fastjcs.profiles.capsule)",
}


_Entry = TypeVar("_Entry", CanonicalizationEntry, ArtifactType)


@dataclass(frozen=True)
class Lookup(Generic[_Entry]):
    verdict: LookupVerdict
    entry: _Entry | None = None  # the registry's entry; None for an unknown name

    @property
    def verified(self) -> bool:
        return self.verdict is LookupVerdict.VERIFIED


@dataclass
class Registry:
    """A registry snapshot. `pinned=True` marks a snapshot a verifier is pinned to (possibly stale):
    a name absent from it is `id-unknown-to-snapshot`, not `unknown-id`, unless the `current`
    registry given to the lookup lacks it too."""

    algorithms: dict[str, CanonicalizationEntry] = field(default_factory=dict)
    artifact_types: dict[str, ArtifactType] = field(default_factory=dict)
    pinned: bool = False
    schema_version: str = "1"
    snapshot_sha256: str | None = None
    raw: Mapping[str, Any] | None = None

    #: departures from upstream's registry schema, one line each ("$.path: what"); empty if none
    findings: tuple[str, ...] = ()
    #: the bundled version name, for a bundled registry
    version: str | None = None

    # ---- loading ----
    @classmethod
    def from_json(cls, data: bytes | str | Mapping[str, Any], *, pinned: bool = False) -> Registry:
        """A registry from a snapshot's text (read by fastjcs's strict parser: a repeated member name,
        a lone surrogate or nesting past 256 levels is refused, so the verdict cannot depend on
        which parser reads the file) or from its parsed value. Every malformed snapshot is one
        SnapshotFormatError naming the place."""
        if isinstance(data, (bytes, bytearray, memoryview, str)):
            try:
                doc = read_json(data)
            except CanonicalizationError as exc:
                raise SnapshotFormatError(f"not a registry snapshot: {exc}") from None
        else:
            doc = data
        if not isinstance(doc, Mapping) or doc.get("schema_version") != "1":
            raise SnapshotFormatError("not a schema_version 1 registry snapshot")
        algorithms = {}
        for name, entry in _members(doc, "canonicalization_algorithms").items():
            with _entry("canonicalization_algorithms", name):
                algorithms[name] = CanonicalizationEntry(
                    name,
                    _text(entry, "description"),
                    _text(entry, "reference"),
                    parse_status(entry.get("status")),
                    entry["status"],
                    _digest_alg(name, entry.get("digest_alg")),
                    _cose_alg(name, entry.get("cose_alg")),
                )
        types = {}
        for name, entry in _members(doc, "artifact_types").items():
            with _entry("artifact_types", name):
                contexts = read_digest_contexts(name, entry.get("digest_contexts", ()))
                types[name] = ArtifactType(
                    name, _text(entry, "reference"), parse_status(entry.get("status")), entry["status"], contexts
                )
        digest = doc.get("snapshot_sha256")
        findings = tuple(schema_findings(doc))
        return cls(algorithms, types, pinned, "1", digest if isinstance(digest, str) else None, doc, findings)

    @classmethod
    def load(cls, path: str | Path, *, pinned: bool = False) -> Registry:
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise SnapshotFormatError(f"cannot read registry {path}: {exc.strerror or exc}") from None
        try:
            return cls.from_json(raw, pinned=pinned)
        except SnapshotFormatError as exc:  # from_json words every fault; say which file
            raise SnapshotFormatError(f"{path}: {exc}") from None

    @classmethod
    def bundled(cls, version: str | None = None) -> Registry:
        """A registry version shipped with fastjcs (upstream's registry.json, copied verbatim):
        `DEFAULT_VERSION` unless `version` names one of `BUNDLED_VERSIONS`."""
        name = DEFAULT_VERSION if version is None else version
        path = BUNDLED_VERSIONS.get(name)
        if path is None:
            raise SnapshotFormatError(f"no bundled registry {name!r}; bundled: {', '.join(BUNDLED_VERSIONS)}")
        registry = cls.load(path)
        registry.version = name
        return registry

    # ---- integrity ----
    def computed_snapshot_sha256(self) -> str | None:
        """The pin as upstream computes it (.github/gen_registry.py, and the schema's description):
        SHA-256 over json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")) of
        the snapshot without `snapshot_sha256`. This is not RFC 8785 (see `jcs_snapshot_sha256`)."""
        if self.raw is None:
            return None
        body = {k: v for k, v in self.raw.items() if k != "snapshot_sha256"}
        return sha256_hex(json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode("ascii"))

    def jcs_snapshot_sha256(self) -> str | None:
        """SHA-256 over the JCS bytes of the body: equal to the pin only where the two constructions
        agree (an ASCII-only body); fastjcs checked this before 0.x and reported every live pin wrong."""
        if self.raw is None:
            return None
        return sha256_hex(dumps({k: v for k, v in self.raw.items() if k != "snapshot_sha256"}))

    @property
    def snapshot_hash_matches(self) -> bool | None:
        """Whether the carried pin reproduces under the publisher's construction (None: no pin).
        Internal consistency only: authenticity needs a digest from a trusted channel."""
        if self.snapshot_sha256 is None or self.raw is None:
            return None
        return self.computed_snapshot_sha256() == self.snapshot_sha256

    # ---- lookups ----
    def lookup_algorithm(self, name: str, *, current: Registry | None = None) -> Lookup[CanonicalizationEntry]:
        return self._lookup(self.algorithms, name, None if current is None else current.algorithms)

    def lookup_artifact_type(self, name: str, *, current: Registry | None = None) -> Lookup[ArtifactType]:
        found = self._lookup(self.artifact_types, name, None if current is None else current.artifact_types)
        if found.entry is None and name in REMOVED_ARTIFACT_TYPES:
            if current is None or name not in current.artifact_types:
                return Lookup(LookupVerdict.REMOVED)
        return found

    def _lookup(self, table: Mapping[str, _Entry], name: str, current: Mapping[str, _Entry] | None) -> Lookup[_Entry]:
        entry = table.get(name) if isinstance(name, str) else None
        if entry is None:
            if self.pinned and (current is None or name in current):
                return Lookup(LookupVerdict.ID_UNKNOWN_TO_SNAPSHOT)
            return Lookup(LookupVerdict.UNKNOWN_ID)
        if entry.status is Status.WITHDRAWN:
            return Lookup(LookupVerdict.WITHDRAWN, entry)
        if entry.status is Status.HELD:
            return Lookup(LookupVerdict.HELD, entry)
        return Lookup(LookupVerdict.VERIFIED, entry)

    def contexts(
        self,
        artifact_type: str,
        purpose: str | None = None,
        *,
        profile_version: str | None = None,
        canonicalization_id: str | None = None,
    ) -> tuple[DigestContext, ...]:
        """The digest contexts of a live artifact type that match every selector given.

        Raises ContextResolutionError when the type is not found or not live."""
        found = self.lookup_artifact_type(artifact_type)
        if not found.verified:
            why = found.verdict.value
            if found.verdict is LookupVerdict.REMOVED:
                why = f"{why}: {REMOVED_ARTIFACT_TYPES[artifact_type]}"
            raise ContextResolutionError(f"artifact type {artifact_type!r}: {why}", found.verdict.value)
        assert found.entry is not None  # a verified lookup carries its entry
        return tuple(
            c
            for c in found.entry.contexts
            if (purpose is None or c.purpose == purpose)
            and (profile_version is None or c.profile_version == profile_version)
            and (canonicalization_id is None or c.algorithm == canonicalization_id)
        )

    def context(
        self,
        artifact_type: str,
        purpose: str | None = None,
        *,
        profile_version: str | None = None,
        canonicalization_id: str | None = None,
    ) -> DigestContext:
        """The one digest context of a live artifact type for `purpose`, told apart by
        `profile_version` (exact, as the registry writes it) and/or `canonicalization_id` (the
        context's algorithm) when the type registers several.

        Raises ContextResolutionError (a CPBError; `reason` is a typed-reference verdict name) when
        the type is not found or not live, or when not exactly one context matches. For a verdict
        instead of an exception, use `fastjcs.profiles.typed_refs.verify_typed_reference`.
        """
        matches = self.contexts(
            artifact_type, purpose, profile_version=profile_version, canonicalization_id=canonicalization_id
        )
        if len(matches) != 1:
            selectors = {
                "purpose": purpose,
                "profile_version": profile_version,
                "canonicalization_id": canonicalization_id,
            }
            given = ", ".join(f"{k}={v!r}" for k, v in selectors.items() if v is not None) or "no selector"
            raise ContextResolutionError(
                f"artifact type {artifact_type!r} has {len(matches)} digest contexts for {given}",
                "unknown-purpose" if not matches else "ambiguous-context",
            )
        return matches[0]

    def capsule_context(self, capsule: Mapping[str, Any], purpose: str = "identifier") -> DigestContext:
        """Deprecated: verify capsules with `fastjcs.profiles.capsule.verify_capsule` (the capsule
        is its own profile; upstream's registry no longer holds it). Kept for registries that still
        hold the `agent-action-capsule` entry (bundled 11fa7c0, 960db41, c33ce1a).

        Format 4 with `canonicalization_id: "jcs"`: the jcs context (exclusion set {capsule_id}).
        A capsule without `format_version` "4" and without `canonicalization_id` is of the earlier
        formats: the jcs-n context ({capsule_id, chain}: withdrawn, verifiable only with vintage
        evidence, `fastjcs.cpb.vintage`). Refused (ContextResolutionError, reason
        malformed-reference), as draft -05 of the capsule refuses them: format 3 and any other
        format that declares an algorithm, a format-4 capsule without the declaration, and an
        explicit "jcs-n" or any other declaration than "jcs".
        """
        warnings.warn(
            "Registry.capsule_context is deprecated: the Agent Action Capsule is its own profile "
            "(fastjcs.profiles.capsule.verify_capsule)",
            DeprecationWarning,
            stacklevel=2,
        )
        if not isinstance(capsule, Mapping):
            raise ContextResolutionError("a capsule is an object", "malformed-reference")
        fmt, cid = capsule.get("format_version"), capsule.get("canonicalization_id")
        if cid is None and fmt != "4" and "canonicalization_id" not in capsule:
            return self.context("agent-action-capsule", purpose, canonicalization_id="jcs-n")
        if fmt != "4" or cid != "jcs":
            raise ContextResolutionError(
                f"format_version {fmt!r} with canonicalization_id {cid!r}: only format 4 with jcs is verifiable",
                "malformed-reference",
            )
        return self.context("agent-action-capsule", purpose, canonicalization_id="jcs")


_SCHEMA_TYPES: dict[str, type | tuple[type, ...]] = {"object": dict, "array": list, "string": str}


def schema_findings(doc: Any, schema: Mapping[str, Any] | None = None) -> list[str]:
    """Where `doc` departs from upstream's registry schema: one "$.path: what" line each.

    The schema's own keywords only (type, required, properties, additionalProperties, enum,
    minLength, minItems, pattern, items): a small draft-07 subset, enough for this schema."""
    if schema is None:
        schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    out: list[str] = []
    _validate(doc, schema, "$", out)
    return out


def _validate(value: Any, schema: Mapping[str, Any], path: str, out: list[str]) -> None:
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _SCHEMA_TYPES and not isinstance(value, _SCHEMA_TYPES[kind]):
        out.append(f"{path}: expected {kind}, got {type(value).__name__}")
        return
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            out.append(f"{path}: shorter than {schema['minLength']}")
        if "pattern" in schema and re.search(schema["pattern"], value) is None:
            out.append(f"{path}: does not match {schema['pattern']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if isinstance(schema.get("items"), Mapping):
            for n, item in enumerate(value):
                _validate(item, schema["items"], f"{path}[{n}]", out)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in value:
                out.append(f"{path}: required member {name!r} is missing")
        extra = schema.get("additionalProperties", True)
        for name, member in value.items():
            where = f"{path}.{name}"
            if name in props:
                _validate(member, props[name], where, out)
            elif extra is False:
                out.append(f"{where}: member not allowed by the schema")
            elif isinstance(extra, Mapping):
                _validate(member, extra, where, out)


def _digest_alg(name: str, value: Any) -> str | None:
    if value is None or value == "N/A":
        return None
    if not isinstance(value, str) or not value:
        raise SnapshotFormatError(f"{name}: digest_alg must be a non-empty string or N/A")
    return value


def _cose_alg(name: str, value: Any) -> int | None:
    if value is None or value == "N/A":
        return None
    if type(value) is not int:
        raise SnapshotFormatError(f"{name}: cose_alg must be an integer COSE algorithm id or N/A")
    return value


@contextmanager
def _entry(table: str, name: str) -> Iterator[None]:
    """Reading one entry of a snapshot's table: every failure is a SnapshotFormatError led by the
    entry's JSON path (`$.artifact_types.NAME: ...`), also one the checks above did not word (a value
    of a type no reader expects), never a raw TypeError."""
    try:
        yield
    except SnapshotFormatError as exc:
        raise SnapshotFormatError(f"$.{table}.{name}: {exc}") from None
    except (TypeError, KeyError, AttributeError, ValueError) as exc:
        raise SnapshotFormatError(f"$.{table}.{name}: malformed entry ({type(exc).__name__}: {exc})") from None


def _members(doc: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = doc.get(name, {})
    if not isinstance(table, Mapping) or not all(isinstance(v, Mapping) for v in table.values()):
        raise SnapshotFormatError(f"{name} must map names to entries")
    return table


def _text(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise SnapshotFormatError(f"{key} must be a string")
    return value


def read_digest_contexts(type_name: str, value: Any) -> tuple[DigestContext, ...]:
    """A type's digest contexts in either published form: a list of context objects (registry.json,
    and the vectors and profile declarations of drafts -03 on) or a mapping of purpose to context
    object (the form of earlier declarations; the key is the purpose). SnapshotFormatError for any
    other shape, and for a mapping entry whose own `purpose` is another."""
    if isinstance(value, Mapping):
        items = []
        for purpose, c in value.items():
            if not isinstance(c, Mapping):
                raise SnapshotFormatError(f"{type_name}: digest context {purpose!r} must be an object")
            if c.get("purpose", purpose) != purpose:
                raise SnapshotFormatError(f"{type_name}: digest context {purpose!r} declares purpose {c['purpose']!r}")
            items.append({**c, "purpose": purpose})
        return tuple(_context(type_name, c) for c in items)
    if isinstance(value, (list, tuple)):
        return tuple(_context(type_name, c) for c in value)
    raise SnapshotFormatError(f"{type_name}: digest_contexts must be a list of contexts or map purposes to them")


#: The members of a digest context that registries write as prose (a string, when present).
_CONTEXT_PROSE = (
    "purpose",
    "profile_version",
    "field_set",
    "domain_separation",
    "pre_image_encoding",
    "representation",
)


def _context(type_name: str, c: Mapping[str, Any]) -> DigestContext:
    if not isinstance(c, Mapping) or not isinstance(c.get("algorithm"), str):
        raise SnapshotFormatError(f"{type_name}: a digest context needs an algorithm")
    for key in _CONTEXT_PROSE:
        if not isinstance(c.get(key, ""), str):
            raise SnapshotFormatError(
                f"{type_name}: digest context {key} must be a string, not {type(c[key]).__name__}"
            )
    constraints, unchecked = constraints_for(
        type_name, c.get("purpose"), c.get("field_set"), c.get("constraints"), c["algorithm"]
    )
    return DigestContext(
        artifact_type=type_name,
        purpose=c.get("purpose"),
        algorithm=c["algorithm"],
        exclusion_set=parse_exclusion_set(c.get("exclusion_set", "none")),
        representation=parse_representation(c.get("representation")),
        profile_version=c.get("profile_version"),
        field_set=c.get("field_set"),
        domain_separation=c.get("domain_separation"),
        pre_image_encoding=c.get("pre_image_encoding"),
        representation_text=c.get("representation"),
        constraints=constraints,
        not_machine_checked=unchecked,
    )
