"""Derived identifiers: the digest of a payload minus its declared exclusion set.

A carried identifier is advisory: a verifier recomputes it from the payload and compares exactly
(no trimming, no case folding); a mismatch is a defect in the record (IdentifierMismatchError).
For a registered artifact type, take the context from the registry instead:
`Registry.bundled().context("agent-action-capsule").verify_carried(capsule, capsule["capsule_id"])`.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..core.api import DEFAULT_MAX_DEPTH
from .errors import IdentifierMismatchError
from ._normalize import exclude, exclusion_names, normal_form
from .registry import artifact_digest


def derived_identifier(payload: Any, exclusion_set: Iterable[str] = (), algorithm: str = "jcs-n", *,
                       max_depth: int = DEFAULT_MAX_DEPTH) -> str:
    """The derived identifier (bare lowercase hex) of a payload: a Python value, or JSON text as bytes.

    >>> derived_identifier({"record_id": None, "station_id": "WS-42"}, ["record_id"])[:16]
    'e9ab98fb7dea71b6'
    """
    return artifact_digest(payload, algorithm, exclusion_set, max_depth=max_depth)


def verify_derived_identifier(payload: Any, carried: Any, exclusion_set: Iterable[str] = (),
                              algorithm: str = "jcs-n", *, max_depth: int = DEFAULT_MAX_DEPTH) -> str:
    """Recompute the identifier and return it; IdentifierMismatchError if `carried` is not it."""
    recomputed = derived_identifier(payload, exclusion_set, algorithm, max_depth=max_depth)
    if type(carried) is not str or carried != recomputed:
        raise IdentifierMismatchError(carried, recomputed)
    return recomputed


def normalize(value: Any, exclusion_set: Iterable[str] = (), *,
              max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """The jcs-n normal form of a Python value (exclusion applied), as fresh dicts and lists.

    >>> normalize({"id": 1, "a": {"b": None}, "c": [{"d": []}, None]}, ["id"])
    {'c': [{}, None]}
    """
    return normal_form(exclude(value, exclusion_names(exclusion_set)), max_depth)
