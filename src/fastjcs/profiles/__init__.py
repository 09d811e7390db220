"""Profile-level helpers built on CPB: what draft -06 moved out of the CPB core.

`fastjcs.profiles.typed_refs`: typed digest references (`{"type", "purpose"?, "digest_alg",
"digest"}`) resolved through an artifact-type registry, as drafts -01 to -05 defined them.
"""

from __future__ import annotations

from .typed_refs import TypedRefResult, TypedRefVerdict, declared_registry, resolve_context, verify_typed_reference

__all__ = [
    "TypedRefResult",
    "TypedRefVerdict",
    "declared_registry",
    "resolve_context",
    "verify_typed_reference",
]
