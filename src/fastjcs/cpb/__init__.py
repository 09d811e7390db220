"""Canonical Payload Binding (CPB): digests that any two implementations agree on, and the checks
that make them accountable.

    >>> from fastjcs import cpb
    >>> cpb.canonical_digest({"b": "x", "a": None})                    # jcs by default (draft -06)
    '7f50a16d8ed0dc4a8890fb342067aae8fe8597dcd4a1fb44ddec0d86afdcc4e3'
    >>> cpb.preimage_text(b'{"id": "abc", "sub": {"id": "y", "n": []}}', exclusion_set=["id"])
    b'{"sub":{"id":"y","n":[]}}'
    >>> cpb.check(b'{"amount": 12.50}').verdict
    'non-conforming'

Canonicalizations (`CANONICALIZATIONS`; the `algorithm=` parameters name one), as of draft -06:
`jcs` (RFC 8785 as is; the default and the only canonicalization for new digests and
identifiers), `as-transmitted` (the octets as they are; over a COSE_Sign1, the RFC 9052
Sig_structure: `fastjcs.cpb.cose`, the `cose` extra), `jcs-n` (withdrawn 2026-08-18: top-level
exclusion, then null/[]/{} members removed bottom-up, integers only, NFC-distinct names, then
RFC 8785; computed to verify vintage records, which need authenticated evidence:
`fastjcs.cpb.vintage`; asking for it by name warns), `cde-n` (withdrawn, never defined: fails
closed). All hash with SHA-256 and render bare lowercase hex (or the raw 32 octets where a
profile declares raw: `leaf_input`). The JCS step is fastjcs's own, on whichever backend is in use.

Typed references moved out of the CPB core in draft -06: `fastjcs.profiles.typed_refs` (the names
`fastjcs.cpb.verify_typed_reference` & co. are gone: an API change, CHANGELOG).

Names: a canonicalization is what cpb calls jcs, jcs-n, as-transmitted, cde-n (in the core an
"algorithm" is a hash: sha256, sha384); a preimage is the bytes that are hashed; a snapshot is a
registry document in the upstream format. The older names (`ALGORITHMS`, `pre_image`,
`RegistryFormatError`...) stay, each the same object as its new name (docs/cpb.md, "Older names").
"""

from __future__ import annotations

from . import errors as _errors
from ._digest import (
    CANONICALIZATIONS,
    DEFAULT_CANONICALIZATION,
    Canonicalization,
    canonical_digest,
    canonical_digest_text,
    get_canonicalization,
    historical_preimage,
    historical_preimage_text,
    preimage,
    preimage_text,
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
from .errors import *  # noqa: F401,F403 - CPBError and the rest of cpb.errors.__all__
from .leaf import leaf_input
from .registry import (
    AlgorithmEntry,
    ArtifactType,
    CanonicalizationEntry,
    DigestContext,
    Lookup,
    LookupVerdict,
    Registry,
    Representation,
    Status,
    artifact_digest,
)
from .transforms import assemble_preimage, reassemble_stream
from .vintage import JCS_N_CUTOFF, Vintage

# Older names, kept working: each is the same object as its new name (docs/cpb.md, "Older names").
pre_image = preimage
pre_image_text = preimage_text
historical_pre_image = historical_preimage
historical_pre_image_text = historical_preimage_text
ALGORITHMS = CANONICALIZATIONS
DEFAULT_ALGORITHM = DEFAULT_CANONICALIZATION
Algorithm = Canonicalization
get_algorithm = get_canonicalization

__all__ = [
    # canonicalizations and digests
    "CANONICALIZATIONS",
    "DEFAULT_CANONICALIZATION",
    "Canonicalization",
    "get_canonicalization",
    "canonical_digest",
    "canonical_digest_text",
    "preimage",
    "preimage_text",
    "historical_preimage",
    "historical_preimage_text",
    "normalize",
    "leaf_input",
    # jcs-n vintage
    "Vintage",
    "JCS_N_CUTOFF",
    "artifact_digest",
    # derived identifiers
    "derived_identifier",
    "verify_derived_identifier",
    # registries
    "Registry",
    "CanonicalizationEntry",
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
    # errors (every public name of cpb.errors, older names included)
    *_errors.__all__,
    # older names (aliases)
    "pre_image",
    "pre_image_text",
    "historical_pre_image",
    "historical_pre_image_text",
    "ALGORITHMS",
    "DEFAULT_ALGORITHM",
    "Algorithm",
    "get_algorithm",
    "AlgorithmEntry",
]
