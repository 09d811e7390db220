"""Derived identifiers: the digest of a payload minus its declared exclusion set.

A carried identifier is advisory: a verifier recomputes it from the payload and compares exactly
(no trimming, no case folding); a mismatch is a defect in the record (IdentifierMismatchError).
New identifiers use jcs (draft -06). A jcs-n identifier (withdrawn 2026-08-18) verifies only with
vintage evidence (`vintage=Vintage(evidence, callback)`); without it, VintageError: fail closed.
For a registered artifact type, take the context from the registry instead:
`Registry.bundled().context(type, purpose).verify_carried(payload, carried)`; an Agent Action
Capsule is verified by its own profile, `fastjcs.profiles.capsule.verify_capsule`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.api import DEFAULT_MAX_DEPTH
from ._digest import DEFAULT_CANONICALIZATION, _warn_if_withdrawn
from ._normalize import exclude, exclusion_names, normal_form
from .constraints import ContextConstraints
from .errors import IdentifierMismatchError
from .registry import artifact_digest
from .vintage import Vintage, require


def derived_identifier(
    payload: Any,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
    constraints: ContextConstraints | None = None,
) -> str:
    """A new derived identifier (jcs by default; `jcs-n` by name warns: WithdrawnCanonicalizationWarning)."""
    _warn_if_withdrawn(algorithm)
    return _derived_identifier(
        payload, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth, constraints=constraints
    )


def _derived_identifier(
    payload: Any,
    *,
    algorithm: str,
    exclusion_set: Iterable[str],
    max_depth: int,
    constraints: ContextConstraints | None,
) -> str:
    """The derived identifier (bare lowercase hex) of a payload: a Python value, or JSON text as bytes.

    `constraints`, when given, are checked first (ContextViolationError, nothing hashed); a
    registered type's context does this itself: `Registry.bundled().context(...).identifier(x)`.

    >>> derived_identifier({"record_id": None, "station_id": "WS-42"}, exclusion_set=["record_id"])[:16]
    'e9ab98fb7dea71b6'
    """
    names = tuple(exclusion_set)
    if constraints is not None:
        octets = isinstance(payload, (bytes, bytearray, memoryview))
        if algorithm == "as-transmitted":
            payload = constraints.select(bytes(payload)) if octets else payload
        else:
            constraints.check(payload, exclusion_set=names, as_text=octets, max_depth=max_depth)
    return artifact_digest(payload, algorithm=algorithm, exclusion_set=names, max_depth=max_depth)


def verify_derived_identifier(
    payload: Any,
    carried: Any,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
    constraints: ContextConstraints | None = None,
    vintage: Vintage | None = None,
) -> str:
    """Recompute the identifier and return it; IdentifierMismatchError if `carried` is not it.

    Under jcs-n (withdrawn) an equal identifier is returned only when `vintage` establishes that
    the record predates the withdrawal; otherwise VintageError (fail closed, after the comparison:
    a mismatch is reported as the mismatch it is)."""
    recomputed = _derived_identifier(
        payload, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth, constraints=constraints
    )
    if type(carried) is not str or carried != recomputed:
        raise IdentifierMismatchError(carried, recomputed)
    if algorithm == "jcs-n":
        require(vintage, recomputed)
    return recomputed


def normalize(value: Any, *, exclusion_set: Iterable[str] = (), max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """The jcs-n normal form of a Python value (exclusion applied), as fresh dicts and lists.

    >>> normalize({"id": 1, "a": {"b": None}, "c": [{"d": []}, None]}, exclusion_set=["id"])
    {'c': [{}, None]}
    """
    return normal_form(exclude(value, exclusion_names(exclusion_set)), max_depth)
