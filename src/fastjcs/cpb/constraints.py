"""What a digest context declares about the artifacts it digests, in machine-readable form.

A registry states, beside the algorithm, what an artifact under a context must look like: the
machine-mandate `equivalence` context digests "{action_id, outcome}, closed — every member is a
string; a floating-point value is rejected rather than digested, and an integer whose magnitude
exceeds 2^53−1 ... is rejected", and its `identifier` context hashes "the first ~-separated
component" of an SD-JWT. `ContextConstraints` carries those statements so that a verifier checks
them before hashing (docs/cpb.md, "Digest-context constraints"):

    field_set       "closed" (no member beyond `members`) or "open"; None when the context declares none
    members         the JSON type of each named member: string, integer, number, boolean, null,
                    object, array, any
    required        the members that must be present (by default every member named in `members`)
    number_policy   "any" or "integers-only" (no float, no fraction or exponent token, nothing
                    outside +/-(2^53-1))
    byte_selector   "whole" (the octets as given) or "sd-jwt-issuer-jws" (the first `~`-separated
                    component, which must be a three-part compact JWS)
    not_machine_checked  prose clauses the context states that no machine form covers: every verdict
                    that relies on the context reports them, never passes them silently

A violation is a `ContextViolation` (constraint, JSON path, the clause it breaks); the typed-reference
verdict for it is `artifact-violates-context`, distinct from a digest mismatch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core import api
from ..core.errors import IntegerDomainError, NonIntegerNumberError
from ._scan import format_path, scan
from .errors import CPBError, SnapshotFormatError

FIELD_SETS = ("closed", "open")
NUMBER_POLICIES = ("any", "integers-only")
BYTE_SELECTORS = ("whole", "sd-jwt-issuer-jws")
JSON_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array", "any")

#: A base64url segment of a compact JWS (RFC 7515 section 7.1; no padding): never of length 1 mod 4.
_B64URL = re.compile(r"\A[A-Za-z0-9_-]+\Z")


@dataclass(frozen=True)
class ContextViolation:
    """One way an artifact breaks its digest context: nothing was hashed."""

    constraint: str  # field-set, required-member, member-type, number-policy, byte-selector
    path: str  # a JSON path ($["outcome"]) or "$" for the whole artifact
    clause: str  # the registry's words the constraint encodes
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.constraint} at {self.path}: {self.detail} (the context says: {self.clause})"


class ContextViolationError(CPBError):
    """The artifact breaks a constraint its digest context declares; `violation` says which."""

    def __init__(self, violation: ContextViolation) -> None:
        self.violation = violation
        super().__init__(str(violation))


@dataclass(frozen=True)
class ContextConstraints:
    """The constraints a digest context declares (see the module docstring)."""

    field_set: str | None = None
    members: tuple[tuple[str, str], ...] = ()
    required: tuple[str, ...] = ()
    number_policy: str = "any"
    byte_selector: str = "whole"
    clauses: tuple[tuple[str, str], ...] = ()  # (constraint, the prose it encodes)
    not_machine_checked: tuple[str, ...] = ()

    def clause(self, constraint: str) -> str:
        return dict(self.clauses).get(constraint, "")

    @classmethod
    def from_json(cls, doc: Any, *, prose: str | None = None) -> ContextConstraints:
        """Read the `constraints` object of a registry digest context (schema: docs/cpb.md)."""
        if not isinstance(doc, Mapping):
            raise SnapshotFormatError("constraints must be an object")
        unknown = set(doc) - {
            "field_set",
            "members",
            "required",
            "number_policy",
            "byte_selector",
            "clauses",
            "not_machine_checked",
        }
        if unknown:
            raise SnapshotFormatError(f"constraints: unknown member(s) {sorted(unknown)}")
        field_set = doc.get("field_set")
        if field_set is not None and field_set not in FIELD_SETS:
            raise SnapshotFormatError(f"constraints.field_set must be one of {FIELD_SETS}")
        members = doc.get("members", {})
        if not isinstance(members, Mapping) or not all(t in JSON_TYPES for t in members.values()):
            raise SnapshotFormatError(f"constraints.members maps names to one of {JSON_TYPES}")
        required = doc.get("required", list(members))
        if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
            raise SnapshotFormatError("constraints.required must be a list of names")
        if field_set == "closed" and not set(required) <= set(members):
            raise SnapshotFormatError("constraints.required names a member a closed field set lacks")
        number_policy = doc.get("number_policy", "any")
        if number_policy not in NUMBER_POLICIES:
            raise SnapshotFormatError(f"constraints.number_policy must be one of {NUMBER_POLICIES}")
        byte_selector = doc.get("byte_selector", "whole")
        if byte_selector not in BYTE_SELECTORS:
            raise SnapshotFormatError(f"constraints.byte_selector must be one of {BYTE_SELECTORS}")
        clauses = doc.get("clauses", {})
        unchecked = doc.get("not_machine_checked", [])
        if not isinstance(clauses, Mapping) or not all(isinstance(v, str) for v in clauses.values()):
            raise SnapshotFormatError("constraints.clauses maps constraint names to prose")
        if not isinstance(unchecked, list) or not all(isinstance(v, str) for v in unchecked):
            raise SnapshotFormatError("constraints.not_machine_checked must be a list of prose clauses")
        default = prose or "the registry's constraints object"
        names = ("field-set", "required-member", "member-type", "number-policy", "byte-selector")
        return cls(
            field_set,
            tuple(members.items()),
            tuple(required),
            number_policy,
            byte_selector,
            tuple((n, clauses.get(n, default)) for n in names),
            tuple(unchecked),
        )

    # ---- the checks, before hashing ----
    def _violation(self, code: str, path: str, message: str) -> ContextViolationError:
        """The error for a breach of the constraint `code` at `path`, citing its registry clause."""
        return ContextViolationError(ContextViolation(code, path, self.clause(code), message))

    def select(self, octets: bytes) -> bytes:
        """The preimage octets the byte selector names; ContextViolationError if they are malformed."""
        if self.byte_selector == "whole":
            return octets
        jws = octets.split(b"~", 1)[0]
        parts = jws.split(b".")
        bad = None
        if len(parts) != 3:
            bad = f"the first ~-separated component has {len(parts)} dot-separated part(s), not 3"
        else:
            for n, part in enumerate(parts):
                text = part.decode("ascii", "replace")
                if not _B64URL.match(text) or len(text) % 4 == 1:
                    bad = f"part {n + 1} of the first ~-separated component is not base64url"
                    break
        if bad is not None:
            raise self._violation("byte-selector", "$", bad)
        return jws

    def check_value(self, value: Any, *, exclusion_set: tuple[str, ...] = ()) -> None:
        """Check a Python value (already parsed, numbers already judged): the field set."""
        if self.field_set is None and not self.members and not self.required:
            return
        if type(value) is not dict:
            raise self._violation("field-set", "$", f"the artifact is a {_json_type(value)}, not an object")
        names = [k for k in value if k not in exclusion_set]
        types = dict(self.members)
        if self.field_set == "closed":
            for name in names:
                if name not in types:
                    raise self._violation(
                        "field-set",
                        format_path((name,)),
                        f"member {name!r} is outside the closed field set {sorted(types)}",
                    )
        for name in self.required:
            if name not in value:
                raise self._violation("required-member", format_path((name,)), f"required member {name!r} is absent")
        for name in names:
            want = types.get(name)
            if want is not None and not _is_type(value[name], want):
                raise self._violation(
                    "member-type", format_path((name,)), f"member {name!r} is a {_json_type(value[name])}, not a {want}"
                )

    def check(
        self,
        artifact: Any,
        *,
        exclusion_set: tuple[str, ...] = (),
        as_text: bool = False,
        max_depth: int = api.DEFAULT_MAX_DEPTH,
    ) -> None:
        """Check an artifact (a Python value, or JSON text when `as_text`): number policy first (on
        the tokens, for text), then the field set. Raises ContextViolationError; a text that is not
        JSON raises the CanonicalizationError canonicalize raises."""
        if as_text:
            raw = api.as_bytes(artifact)
            if self.number_policy == "integers-only":
                self._numbers(raw, True)
            if self.field_set is None and not self.members and not self.required:
                return
            value = scan(raw, api.check_depth(max_depth), "jcs").value
        else:
            value = artifact
            if self.number_policy == "integers-only":
                self._numbers(value, False)
        self.check_value(value, exclusion_set=exclusion_set)

    def _numbers(self, artifact: Any, as_text: bool) -> None:
        """Refuse what an integers-only context refuses, by the core's integers_only rule (the
        one place cpb asks for it). Other errors (not JSON, too deep) pass through: such an
        artifact is not canonicalizable at all."""
        try:
            if as_text:
                api.canonicalize(artifact, integers_only=True)
            else:
                api.dumps(artifact, integers_only=True)
        except (NonIntegerNumberError, IntegerDomainError) as exc:
            if isinstance(exc, IntegerDomainError):
                what = "an integer outside +/-(2^53-1)"
            else:
                what = "a number that is not an integer"
            path = getattr(exc, "path", None) or _number_path(artifact, as_text, getattr(exc, "offset", None))
            raise self._violation("number-policy", path, f"{what}: {exc}") from exc


def _first_non_integer(artifact: Any) -> tuple[tuple[Any, ...], Any] | None:
    """(path, value) of the first float or integer outside +/-(2^53-1) in a Python value, in order."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), artifact)]
    while stack:
        path, value = stack.pop()
        if type(value) is float or (type(value) is int and abs(value) > 2**53 - 1):
            return path, value
        if isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(value))))
    return None


def _number_path(artifact: Any, as_text: bool, offset: int | None) -> str:
    """The JSON path of a refused number when the core's error gives only an offset (text) or nothing."""
    if as_text:
        if offset is not None:
            for f in scan(api.as_bytes(artifact), api.DEFAULT_MAX_DEPTH, "jcs-n").findings:
                if f.offset == offset:
                    return format_path(f.path)
        return "$"
    found_at = _first_non_integer(artifact)
    return format_path(found_at[0]) if found_at is not None else "$"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "boolean"
    if type(value) is int:
        return "integer"
    if type(value) is float:
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _is_type(value: Any, want: str) -> bool:
    got = _json_type(value)
    return want == "any" or got == want or (want == "number" and got == "integer")


# ---------------------------------------------------------------------------------------------------
# The bundled registry's contexts, written from its words
# ---------------------------------------------------------------------------------------------------

_MM_EQUIVALENCE = (
    "{action_id, outcome}, closed \u2014 every member is a string; a floating-point value is "
    "rejected rather than digested, and an integer whose magnitude exceeds 2^53\u22121 (the "
    "ECMAScript safe-integer bound) is rejected as a typed error rather than serialized"
)
_MM_IDENTIFIER = (
    "byte-boundary selector \u2014 the issuer-signed JWS component of the SD-JWT (RFC 7515 \u00a77.1 "
    "compact serialization; the first ~-separated component exactly as transmitted); everything "
    "after the first ~ is outside the pre-image"
)
_AAC_IDENTIFIER = "all capsule fields"

#: (artifact type, purpose, the exact field_set prose) -> the constraints that prose states. A
#: registry whose prose differs (a revised entry) does not match: its context is reported as not
#: machine-checked instead of being checked against words it no longer says.
KNOWN_PROSE: dict[tuple[str, str, str], ContextConstraints] = {
    ("machine-mandate", "equivalence", _MM_EQUIVALENCE): ContextConstraints(
        field_set="closed",
        members=(("action_id", "string"), ("outcome", "string")),
        required=("action_id", "outcome"),
        number_policy="integers-only",
        clauses=(
            ("field-set", "{action_id, outcome}, closed"),
            ("required-member", "{action_id, outcome}, closed"),
            ("member-type", "every member is a string"),
            (
                "number-policy",
                "a floating-point value is rejected rather than digested, and an integer whose "
                "magnitude exceeds 2^53\u22121 (the ECMAScript safe-integer bound) is rejected as "
                "a typed error rather than serialized",
            ),
        ),
    ),
    ("machine-mandate", "identifier", _MM_IDENTIFIER): ContextConstraints(
        byte_selector="sd-jwt-issuer-jws",
        clauses=(
            (
                "byte-selector",
                "the issuer-signed JWS component of the SD-JWT (RFC 7515 \u00a77.1 compact "
                "serialization; the first ~-separated component exactly as transmitted); "
                "everything after the first ~ is outside the pre-image",
            ),
        ),
    ),
    ("agent-action-capsule", "identifier", _AAC_IDENTIFIER): ContextConstraints(
        field_set="open",
        number_policy="integers-only",
        clauses=(
            ("field-set", "all capsule fields"),
            (
                "number-policy",
                "jcs-n: JSON floating-point numbers MUST NOT appear in any field from "
                "which a digest is computed (draft-mih-sokolov-scitt-payload-binding "
                "\u00a711.3)",
            ),
        ),
    ),
}


#: The capsule's jcs context (format 4, in registries that still hold the capsule): the same open
#: field set, and RFC 8785's number domain (the integers-only clause cites jcs-n, which this
#: context does not use).
_AAC_JCS = ContextConstraints(field_set="open", clauses=(("field-set", "all capsule fields"),))


def constraints_for(
    type_name: str,
    purpose: str | None,
    field_set_prose: str | None,
    declared: Any = None,
    algorithm: str | None = None,
) -> tuple[ContextConstraints | None, tuple[str, ...]]:
    """The constraints of a registry digest context and the prose clauses no machine form covers.

    A `constraints` object in the document wins; else the built-in reading of prose we know word
    for word; else none, and a non-empty field_set prose is reported as not machine-checked.
    """
    if declared is not None:
        c = ContextConstraints.from_json(declared, prose=field_set_prose)
        return c, c.not_machine_checked
    known = KNOWN_PROSE.get((type_name, purpose or "", field_set_prose or ""))
    if known is not None and type_name == "agent-action-capsule" and algorithm not in (None, "jcs-n"):
        known = _AAC_JCS
    if known is not None:
        return known, known.not_machine_checked
    if field_set_prose:
        return None, (field_set_prose,)
    return None, ()
