"""Profile-level helpers built on CPB: what draft -06 moved out of the CPB core.

`fastjcs.profiles.typed_refs`: typed digest references (`{"type", "purpose"?, "digest_alg",
"digest"}`) resolved through an artifact-type registry, as drafts -01 to -05 defined them.
`fastjcs.profiles.capsule`: the Agent Action Capsule (format 4, draft -05 of its profile), Class 1
verification with its own identity rules (no CPB registry entry).
"""

from __future__ import annotations

from .capsule import CapsuleResult, verify_capsule
from .typed_refs import TypedRefResult, TypedRefVerdict, declared_registry, resolve_context, verify_typed_reference

__all__ = [
    "CapsuleResult",
    "TypedRefResult",
    "TypedRefVerdict",
    "declared_registry",
    "resolve_context",
    "verify_capsule",
    "verify_typed_reference",
]
