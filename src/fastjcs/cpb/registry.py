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

Statuses: owner-confirmed, third-party-documented, provisional, standards-referenced (all live),
withdrawn (not live); the legacy `Registered` reads as owner-confirmed and `Reserved` as held (a
name kept back, not live). Lookups answer with a verdict, never by raising: `verified`,
`unknown-id` (not registered), `id-unknown-to-snapshot` (absent from a snapshot the verifier is
pinned to, which cannot tell a newer registration from none), `withdrawn`, `held`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..core.api import DEFAULT_MAX_DEPTH, dumps
from ._digest import ALGORITHMS, canonical_digest, canonical_digest_text, sha256_hex
from .constraints import ContextConstraints, constraints_for
from .errors import IdentifierMismatchError, RegistryFormatError

BUNDLED_SNAPSHOT = Path(__file__).with_name("registry-snapshot.json")


class Status(str, Enum):
    """Registration status of an algorithm or artifact type."""

    OWNER_CONFIRMED = "owner-confirmed"
    THIRD_PARTY_DOCUMENTED = "third-party-documented"
    PROVISIONAL = "provisional"
    STANDARDS_REFERENCED = "standards-referenced"
    WITHDRAWN = "withdrawn"
    HELD = "held"

    @property
    def live(self) -> bool:
        """Whether an entry with this status may be used (all but withdrawn and held)."""
        return self not in (Status.WITHDRAWN, Status.HELD)


#: Statuses of the first registry revision, read as their current equivalents.
LEGACY_STATUSES = {"Registered": Status.OWNER_CONFIRMED, "Reserved": Status.HELD}


def parse_status(text: Any) -> Status:
    """A status string (current or legacy spelling, exact) as a Status."""
    if isinstance(text, str):
        if text in LEGACY_STATUSES:
            return LEGACY_STATUSES[text]
        try:
            return Status(text)
        except ValueError:
            pass
    raise RegistryFormatError(f"unknown registry status {text!r}")


class Representation(str, Enum):
    """How a digest is written where it is carried; the forms are distinct, never coerced."""

    BARE_HEX = "bare-hex"  # 64 lowercase hex characters
    SHA256_PREFIXED = "sha256-prefixed"  # "sha256:" then 64 lowercase hex characters

    def grammar(self) -> re.Pattern[str]:
        return _GRAMMAR[self]

    def render(self, hex_digest: str) -> str:
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
    raise RegistryFormatError(f"cannot read exclusion set {value!r}")


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
        algorithm = ALGORITHMS.get(self.algorithm)
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
            return artifact  # as-transmitted refuses a value itself (AlgorithmUsageError)
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
            raise RegistryFormatError(f"{self.artifact_type}: the context declares no known representation")
        return self.representation.render(self.digest(artifact, max_depth=max_depth))

    def verify_carried(self, artifact: Any, carried: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> str:
        """Recompute the identifier and compare it with a carried one, exactly; return it.

        Raises IdentifierMismatchError when they differ: the carried value is only advisory.
        """
        recomputed = self.identifier(artifact, max_depth=max_depth)
        if carried != recomputed or type(carried) is not str:
            raise IdentifierMismatchError(carried, recomputed)
        return recomputed


def artifact_digest(
    artifact: Any, *, algorithm: str, exclusion_set: Iterable[str] = (), max_depth: int = DEFAULT_MAX_DEPTH
) -> str:
    """Digest of a cited artifact: bytes-like is JSON text (or the octets, for as-transmitted), any
    other value is a Python value (a str is a JSON string, not text to parse)."""
    if isinstance(artifact, (bytes, bytearray, memoryview)):
        return canonical_digest_text(artifact, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth)
    return canonical_digest(artifact, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth)


@dataclass(frozen=True)
class AlgorithmEntry:
    name: str
    description: str
    reference: str
    status: Status
    status_text: str

    @property
    def live(self) -> bool:
        return self.status.live


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


_Entry = TypeVar("_Entry", AlgorithmEntry, ArtifactType)


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

    algorithms: dict[str, AlgorithmEntry] = field(default_factory=dict)
    artifact_types: dict[str, ArtifactType] = field(default_factory=dict)
    pinned: bool = False
    schema_version: str = "1"
    snapshot_sha256: str | None = None
    raw: Mapping[str, Any] | None = None

    # ---- loading ----
    @classmethod
    def from_json(cls, data: bytes | str | Mapping[str, Any], *, pinned: bool = False) -> Registry:
        doc = json.loads(data) if isinstance(data, (bytes, str)) else data
        if not isinstance(doc, Mapping) or doc.get("schema_version") != "1":
            raise RegistryFormatError("not a schema_version 1 registry snapshot")
        algorithms = {}
        for name, entry in _members(doc, "canonicalization_algorithms").items():
            algorithms[name] = AlgorithmEntry(
                name,
                _text(entry, "description"),
                _text(entry, "reference"),
                parse_status(entry.get("status")),
                entry["status"],
            )
        types = {}
        for name, entry in _members(doc, "artifact_types").items():
            contexts = tuple(_context(name, c) for c in entry.get("digest_contexts", ()))
            types[name] = ArtifactType(
                name, _text(entry, "reference"), parse_status(entry.get("status")), entry["status"], contexts
            )
        digest = doc.get("snapshot_sha256")
        return cls(algorithms, types, pinned, "1", digest if isinstance(digest, str) else None, doc)

    @classmethod
    def load(cls, path: str | Path, *, pinned: bool = False) -> Registry:
        return cls.from_json(Path(path).read_bytes(), pinned=pinned)

    @classmethod
    def bundled(cls) -> Registry:
        """The upstream snapshot shipped with fastjcs (cpb-registry.json, copied verbatim)."""
        return cls.load(BUNDLED_SNAPSHOT)

    # ---- integrity ----
    def computed_snapshot_sha256(self) -> str | None:
        """SHA-256 of the JCS bytes of the snapshot without its `snapshot_sha256` member (the
        construction the upstream vector snapshots use)."""
        if self.raw is None:
            return None
        return sha256_hex(dumps({k: v for k, v in self.raw.items() if k != "snapshot_sha256"}))

    @property
    def snapshot_hash_matches(self) -> bool | None:
        if self.snapshot_sha256 is None or self.raw is None:
            return None
        return self.computed_snapshot_sha256() == self.snapshot_sha256

    # ---- lookups ----
    def lookup_algorithm(self, name: str, *, current: Registry | None = None) -> Lookup[AlgorithmEntry]:
        return self._lookup(self.algorithms, name, None if current is None else current.algorithms)

    def lookup_artifact_type(self, name: str, *, current: Registry | None = None) -> Lookup[ArtifactType]:
        return self._lookup(self.artifact_types, name, None if current is None else current.artifact_types)

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

    def context(self, artifact_type: str, purpose: str | None = None) -> DigestContext:
        """The one digest context of a live artifact type for `purpose` (optional when it has one).

        Raises KeyError when the type is not found or not live, or when not exactly one context
        matches. For a verdict instead of an exception, use `verify_typed_reference`.
        """
        found = self.lookup_artifact_type(artifact_type)
        if not found.verified:
            raise KeyError(f"artifact type {artifact_type!r}: {found.verdict.value}")
        assert found.entry is not None  # a verified lookup carries its entry
        contexts = found.entry.contexts
        matches = [c for c in contexts if purpose is None or c.purpose == purpose]
        if len(matches) != 1:
            raise KeyError(
                f"artifact type {artifact_type!r} has {len(matches)} digest contexts for purpose {purpose!r}"
            )
        return matches[0]


def _members(doc: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = doc.get(name, {})
    if not isinstance(table, Mapping) or not all(isinstance(v, Mapping) for v in table.values()):
        raise RegistryFormatError(f"{name} must map names to entries")
    return table


def _text(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key, "")
    if not isinstance(value, str):
        raise RegistryFormatError(f"{key} must be a string")
    return value


def _context(type_name: str, c: Mapping[str, Any]) -> DigestContext:
    if not isinstance(c, Mapping) or not isinstance(c.get("algorithm"), str):
        raise RegistryFormatError(f"{type_name}: a digest context needs an algorithm")
    constraints, unchecked = constraints_for(type_name, c.get("purpose"), c.get("field_set"), c.get("constraints"))
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
