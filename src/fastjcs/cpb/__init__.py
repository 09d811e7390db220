"""Canonical Payload Binding (CPB): digests that any two implementations agree on, and the checks
that make them accountable.

    >>> from fastjcs import cpb
    >>> cpb.canonical_digest({"b": "x", "a": None})                    # jcs-n by default
    'b00eaa755722bc692ce5f689bf1803497c9fa37bc557ba17ef211e10d6b368d9'
    >>> cpb.pre_image_text(b'{"id": "abc", "sub": {"id": "y", "n": []}}', exclusion_set=["id"])
    b'{"sub":{"id":"y"}}'
    >>> cpb.check(b'{"amount": 12.50}').verdict
    'non-conforming'

Algorithms (`ALGORITHMS`): `jcs` (RFC 8785 as is), `jcs-n` (top-level exclusion, then null/[]/{}
members removed bottom-up, integers only, NFC-distinct names, then RFC 8785), `as-transmitted` (the
octets as they are), `cde-n` (withdrawn: fails closed). All hash with SHA-256 and render bare
lowercase hex. The JCS step is fastjcs's own, on whichever backend is in use.
"""

from __future__ import annotations

from ._digest import (
    ALGORITHMS,
    Algorithm,
    canonical_digest,
    canonical_digest_text,
    get_algorithm,
    pre_image,
    pre_image_text,
)
from ._identifiers import derived_identifier, normalize, verify_derived_identifier
from .checker import (
    EXIT_ERROR,
    EXIT_NON_CONFORMING,
    EXIT_VERIFIED,
    NON_CONFORMING,
    VERIFIED,
    CheckResult,
    Violation,
    check,
)
from .constraints import ContextConstraints, ContextViolation, ContextViolationError
from .errors import (
    AlgorithmUsageError,
    CPBError,
    DuplicateNameError,
    DuplicateNameTextError,
    IdentifierMismatchError,
    MemberMappingError,
    MemberMappingUndeclaredError,
    NonIntegerNumberError,
    RegistryFormatError,
    StreamError,
    StreamIncompleteError,
    UnknownAlgorithmError,
    UnsafeIntegerError,
    WireRuleError,
    WithdrawnAlgorithmError,
)
from .registry import (
    AlgorithmEntry,
    ArtifactType,
    DigestContext,
    Lookup,
    LookupVerdict,
    Registry,
    Representation,
    Status,
    artifact_digest,
)
from .transforms import assemble_preimage, reassemble_stream
from .typed_refs import TypedRefResult, TypedRefVerdict, resolve_context, verify_typed_reference

__all__ = [
    # algorithms and digests
    "ALGORITHMS",
    "Algorithm",
    "get_algorithm",
    "canonical_digest",
    "canonical_digest_text",
    "pre_image",
    "pre_image_text",
    "normalize",
    "artifact_digest",
    # derived identifiers
    "derived_identifier",
    "verify_derived_identifier",
    # registries
    "Registry",
    "AlgorithmEntry",
    "ArtifactType",
    "DigestContext",
    "Status",
    "Representation",
    "Lookup",
    "LookupVerdict",
    # digest-context constraints
    "ContextConstraints",
    "ContextViolation",
    "ContextViolationError",
    # typed references
    "verify_typed_reference",
    "resolve_context",
    "TypedRefResult",
    "TypedRefVerdict",
    # checker
    "check",
    "CheckResult",
    "Violation",
    "VERIFIED",
    "NON_CONFORMING",
    "EXIT_VERIFIED",
    "EXIT_NON_CONFORMING",
    "EXIT_ERROR",
    # transforms
    "reassemble_stream",
    "assemble_preimage",
    # errors
    "CPBError",
    "WireRuleError",
    "NonIntegerNumberError",
    "UnsafeIntegerError",
    "DuplicateNameError",
    "DuplicateNameTextError",
    "UnknownAlgorithmError",
    "WithdrawnAlgorithmError",
    "AlgorithmUsageError",
    "IdentifierMismatchError",
    "RegistryFormatError",
    "StreamError",
    "StreamIncompleteError",
    "MemberMappingError",
    "MemberMappingUndeclaredError",
]
