"""The canonicalizations and the digests: jcs, jcs-n, as-transmitted, cde-n.

    jcs             RFC 8785 over the value as it is (after the top-level exclusion, if any): the default
    jcs-n           withdrawn 2026-08-18 (draft -06): top-level exclusion, then the jcs-n normal form and
                    wire rules, then RFC 8785; computed for verifying vintage records only (asking for it
                    by name warns: WithdrawnCanonicalizationWarning)
    as-transmitted  no canonicalisation: the exact octets a cited production names
    cde-n           withdrawn, never defined: every use fails closed

Every live canonicalization hashes with SHA-256 (pycryptodome) and renders bare lowercase hex. The JCS
step is fastjcs's own (`fastjcs.core.api.dumps` / `canonicalize`), so both backends serve it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..core import api
from ..core.api import DEFAULT_MAX_DEPTH, Data
from ..core.hashing import hex_digest
from ._normalize import exclude, exclusion_names, normal_form
from ._scan import Finding, format_path, scan
from .errors import (
    CanonicalizationUsageError,
    DuplicateNameTextError,
    NonIntegerNumberError,
    UnknownCanonicalizationError,
    UnsafeIntegerError,
    WireRuleError,
    WithdrawnCanonicalizationError,
    WithdrawnCanonicalizationWarning,
)

_Octets = (bytes, bytearray, memoryview)


@dataclass(frozen=True)
class Canonicalization:
    """A canonicalization (upstream: a canonicalization algorithm) as this library implements it."""

    name: str
    description: str
    live: bool  # computable here (jcs-n stays computable, for verifying vintage records)
    hash_name: str = "SHA-256"  # the digest_alg a typed reference must carry, byte for byte
    #: draft -06 status: Active, or Withdrawn (no new use; jcs-n: historical verification only)
    status: str = "Active"
    #: the COSE hash algorithm id for RFC 9995 Hash Envelope Mode (-16: SHA-256); None: N/A
    cose_alg: int | None = -16

    @property
    def withdrawn(self) -> bool:
        return self.status == "Withdrawn"


CANONICALIZATIONS: dict[str, Canonicalization] = {
    a.name: a
    for a in (
        Canonicalization("jcs", "RFC 8785 JCS over the value as is; SHA-256; bare lowercase hex", True),
        Canonicalization(
            "jcs-n",
            "withdrawn 2026-08-18: RFC 8785 JCS over the jcs-n normal form (null, [] and {} members "
            "removed bottom-up; integers only; NFC-distinct names); SHA-256; bare lowercase hex",
            True,
            status="Withdrawn",
        ),
        Canonicalization(
            "as-transmitted",
            "no canonicalisation: the exact octets a cited production names; SHA-256; bare lowercase hex",
            True,
        ),
        Canonicalization(
            "cde-n",
            "withdrawn: reserved for a deterministic CBOR profile, never defined",
            False,
            status="Withdrawn",
            cose_alg=None,
        ),
    )
}


def get_canonicalization(name: str) -> Canonicalization:
    """The registered canonicalization `name` (exact, case-sensitive); unknown and withdrawn names raise."""
    algorithm = CANONICALIZATIONS.get(name) if isinstance(name, str) else None
    if algorithm is None:
        raise UnknownCanonicalizationError(
            f"unknown canonicalization algorithm {name!r}; registered: {', '.join(CANONICALIZATIONS)}"
        )
    if not algorithm.live:
        raise WithdrawnCanonicalizationError(f"canonicalization algorithm {name!r} is withdrawn")
    return algorithm


#: The canonicalization of every new digest and identifier (draft -06). Before 0.x (CHANGELOG) it was jcs-n.
DEFAULT_CANONICALIZATION = "jcs"


def _warn_if_withdrawn(algorithm: str, stacklevel: int = 3) -> None:
    if algorithm == "jcs-n":
        warnings.warn(
            "jcs-n is withdrawn (2026-08-18, draft -06): no new digest or declaration may use it; "
            "use algorithm='jcs', and verify vintage jcs-n records with fastjcs.cpb.vintage",
            WithdrawnCanonicalizationWarning,
            stacklevel=stacklevel,
        )


def sha256_hex(octets: bytes) -> str:
    return hex_digest(octets, "sha256")


# ---------------------------------------------------------------------------------------------------
# Python values in
# ---------------------------------------------------------------------------------------------------


def preimage(
    value: Any,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> bytes:
    """The octets `canonical_digest` hashes (jcs unless `algorithm` says otherwise; `jcs-n` by name
    warns: WithdrawnCanonicalizationWarning). See `historical_preimage`."""
    _warn_if_withdrawn(algorithm)
    return historical_preimage(value, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth)


def historical_preimage(
    value: Any,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> bytes:
    """The octets `canonical_digest` hashes, without the withdrawal warning (for verifying records):
    the JCS UTF-8 bytes of the (normalized) value.

    For `as-transmitted` the value must already be the octets (bytes-like) and there is no
    exclusion set. Raises WireRuleError subclasses for jcs-n refusals (with the JSON path), the
    usual CanonicalizationError subclasses for what RFC 8785 cannot carry, UnknownCanonicalizationError
    or WithdrawnCanonicalizationError for the algorithm.
    """
    alg = get_canonicalization(algorithm)
    names = exclusion_names(exclusion_set)
    max_depth = api.check_depth(max_depth)
    if alg.name == "as-transmitted":
        return _as_transmitted(value, names)
    if alg.name == "jcs":
        return api.dumps(exclude(value, names), max_depth=max_depth)
    # normal_form refuses floats and unsafe integers with their JSON path first; the core's
    # integer-only JCS is the rule that stands behind it (one rule for values and text).
    return api.dumps(normal_form(exclude(value, names), max_depth), max_depth=max_depth, integers_only=True)


def canonical_digest(
    value: Any,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> str:
    """SHA-256 of `preimage(value, algorithm=..., exclusion_set=...)`, as bare lowercase hex.

    >>> canonical_digest({"b": "x", "a": None, "c": {"d": []}})   # jcs: null and {} are kept
    'ece5b98f647b814d4f26c9dae7e0532d4dd76157969089e83b00956fa51a4a7d'
    """
    _warn_if_withdrawn(algorithm)
    return sha256_hex(historical_preimage(value, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth))


def _as_transmitted(value: Any, names: tuple[str, ...]) -> bytes:
    if names:
        raise CanonicalizationUsageError(
            "as-transmitted has a byte-boundary selector, not a field set: an exclusion set does not apply"
        )
    if not isinstance(value, _Octets):
        raise CanonicalizationUsageError(
            f"as-transmitted digests the exact octets as transmitted; pass bytes, not {type(value).__name__}"
        )
    return bytes(value)


# ---------------------------------------------------------------------------------------------------
# JSON text in
# ---------------------------------------------------------------------------------------------------


def preimage_text(
    data: Data,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> bytes:
    """The preimage of a JSON text (jcs unless `algorithm` says otherwise; `jcs-n` by name warns).
    See `historical_preimage_text`."""
    _warn_if_withdrawn(algorithm)
    return historical_preimage_text(data, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth)


def historical_preimage_text(
    data: Data,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> bytes:
    """The preimage of a JSON text, without the withdrawal warning (for verifying records). jcs-n
    judges the tokens themselves before anything collapses
    them: `-0`, `1.0` and `1e2` are refused although json.loads would make them 0, 1.0 and 100.0.

    Order of judgement: first strict RFC 8259 (every text `fastjcs.canonicalize` refuses is
    refused with its error, class and byte offset); then, for jcs-n, the first wire-rule finding
    in document order among the members that are not excluded.
    """
    alg = get_canonicalization(algorithm)
    names = exclusion_names(exclusion_set)
    max_depth = api.check_depth(max_depth)
    if alg.name == "as-transmitted":
        if isinstance(data, str):
            raise CanonicalizationUsageError("as-transmitted digests octets; pass the bytes as transmitted")
        return _as_transmitted(data, names)
    raw = api.as_bytes(data)
    if alg.name == "jcs":
        if not names:
            return api.canonicalize(raw, max_depth=max_depth)
        return api.dumps(exclude(scan(raw, max_depth, "jcs").value, names), max_depth=max_depth)
    result = scan(raw, max_depth, "jcs-n")
    for finding in _applicable(result.findings, names, type(result.value) is dict):
        raise finding_error(finding, raw)
    return api.dumps(normal_form(exclude(result.value, names), max_depth), max_depth=max_depth, integers_only=True)


def canonical_digest_text(
    data: Data,
    *,
    algorithm: str = DEFAULT_CANONICALIZATION,
    exclusion_set: Iterable[str] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> str:
    """SHA-256 of `preimage_text(data, algorithm=..., exclusion_set=...)`, as bare lowercase hex.

    >>> canonical_digest_text(b'{"b": "x", "a": null}')
    '7f50a16d8ed0dc4a8890fb342067aae8fe8597dcd4a1fb44ddec0d86afdcc4e3'
    """
    _warn_if_withdrawn(algorithm)
    return sha256_hex(
        historical_preimage_text(data, algorithm=algorithm, exclusion_set=exclusion_set, max_depth=max_depth)
    )


def _applicable(findings: list[Finding], names: tuple[str, ...], top_object: bool) -> Iterator[Finding]:
    """The findings the digest covers, first in document order: those under an excluded top-level
    member are dropped (that member is not digested). A top-level duplicate stays only if both it
    and one of the names it repeats survive the exclusion."""
    for f in sorted(findings, key=lambda f: f.offset):
        if names and top_object:
            head = f.path[0]
            if f.code == "duplicate-name" and len(f.path) == 1:
                if head in names or all(e in names for e in f.earlier):
                    continue
            elif head in names:
                continue
        yield f


def finding_error(f: Finding, data: bytes) -> WireRuleError:
    """The exception for a wire-rule finding in text."""
    path = format_path(f.path)
    if f.code == "non-integer-number":
        return NonIntegerNumberError(
            f"number token {f.token} is not an integer token (0|-?[1-9][0-9]*)", path, data, f.offset
        )
    if f.code == "unsafe-integer":
        return UnsafeIntegerError(f"integer token {f.token} is outside +/-(2^53-1)", path, data, f.offset)
    if f.code == "duplicate-name":
        return DuplicateNameTextError(
            f"member name {f.key!r} equals {f.earlier[0]!r} after NFC normalization", path, data, f.offset, key=f.key
        )
    raise AssertionError(f"no error for finding {f.code}")  # pragma: no cover
