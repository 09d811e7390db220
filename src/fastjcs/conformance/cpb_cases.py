"""What a CPB conformance vector is and what it means here: the vector file (`Vector`), the
implementation under test (`Implementation`, `FASTJCS`; a mutant replaces one function), the
failure reasons a MUST-FAIL vector may state (`FAILURE_REASONS`) and the draft revisions a run can
follow (`DRAFTS`, `suite_draft`). The handlers (`cpb_handlers`), the mutation generators
(`cpb_mutants`) and the runner (`cpb_vectors`) stand on it.

Drafts: a run follows one revision of draft-mih-sokolov-scitt-payload-binding (`DRAFTS`, default
`DEFAULT_DRAFT`, the newest: -06). From -02 on, jcs-n is withdrawn: a jcs-n typed reference or
derived identifier whose bytes agree is expected to fail closed as `vintage-unestablished`
(digest agreement only) unless the vector carries vintage evidence, and "bundled" names the default
registry (11fa7c0). Under -00/-01 (the c33ce1a suite, and ours) jcs-n verifies as it did then, and
"bundled" is the registry of that time (c33ce1a). Pick the draft the suite was written for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from ..core.documents import read_json
from ..core.errors import CanonicalizationError, DuplicateKeyError
from ..cpb import checker, historical_preimage, historical_preimage_text, normalize, verify_derived_identifier
from ..cpb.errors import (
    DuplicateNameError,
    IdentifierMismatchError,
    MemberMappingUndeclaredError,
    NonIntegerNumberError,
    StreamIncompleteError,
    UnsafeIntegerError,
)
from ..cpb.registry import (
    Registry,
)
from ..cpb.vintage import Vintage
from ..profiles import typed_refs
from ..profiles.typed_refs import TypedRefVerdict
from .reader import member_texts

# ---------------------------------------------------------------------------------------------------
# What an upstream failure_reason means here
# ---------------------------------------------------------------------------------------------------

_V = TypedRefVerdict

#: Every failure_reason a MUST-FAIL vector may state, and what stands for it in this library: an
#: exception class, a typed-reference verdict, or a named check of the runner (contrast vectors pin
#: a wrong construction the library must not produce; profile independence is a property of the
#: verifier, shown against the non-conforming verifier the vector describes).
FAILURE_REASONS: dict[str, type[BaseException] | TypedRefVerdict | str] = {
    "float_in_digest_bearing_field": NonIntegerNumberError,
    "invalid_wire_number_token": NonIntegerNumberError,
    "unsafe_integer_in_digest_bearing_field": UnsafeIntegerError,
    "integer_formatting_divergence": UnsafeIntegerError,  # 10^21 is past 2^53-1: refused
    "duplicate_key": DuplicateNameError,
    "carried_id_mismatch": IdentifierMismatchError,
    "stream_incomplete": StreamIncompleteError,
    "assembled_preimage_member_mapping_undeclared": MemberMappingUndeclaredError,
    "representation_mismatch": _V.REPRESENTATION_MISMATCH,
    "representation_mismatch_trailing_newline": _V.REPRESENTATION_MISMATCH,
    "representation_mismatch_surrounding_whitespace": _V.REPRESENTATION_MISMATCH,
    "recomputed_digest_mismatch": _V.DIGEST_MISMATCH,
    "identifier_inconsistent_with_context": _V.DIGEST_MISMATCH,
    "digest_context_incompatible_equal_hex_is_not_a_join": _V.ARTIFACT_TYPE_MISMATCH,
    "digest_algorithm_inconsistent_with_context": _V.DIGEST_ALG_MISMATCH,
    "digest_alg_inconsistent_with_registered_context": _V.DIGEST_ALG_MISMATCH,
    "typed_ref_purpose_required": _V.PURPOSE_REQUIRED,
    "typed_ref_type_unknown": _V.UNKNOWN_TYPE,
    "typed_ref_type_unknown_to_snapshot": _V.TYPE_UNKNOWN_TO_SNAPSHOT,
    "context_closed_field_set": _V.ARTIFACT_VIOLATES_CONTEXT,
    "context_required_member": _V.ARTIFACT_VIOLATES_CONTEXT,
    "context_member_type": _V.ARTIFACT_VIOLATES_CONTEXT,
    "context_number_policy": _V.ARTIFACT_VIOLATES_CONTEXT,
    "context_byte_selector": _V.ARTIFACT_VIOLATES_CONTEXT,
    "nfc_normalisation_deviation": "contrast",  # upstream's spelling of the reason
    "string_escape_uppercase_hex": "contrast",
    "string_escape_long_form_for_named_char": "contrast",
    "key_sort_by_escaped_bytes_not_code_units": "contrast",
    "profile_independence_violation": "profile-independence",
    # cpb-current (drafts -03 to -06)
    "jcs_duplicate_member_name": DuplicateKeyError,  # jcs: I-JSON, names compared after escape decoding
    "as_transmitted_textual_hex_substitution": IdentifierMismatchError,  # the hex text's digest was carried
    "purpose_absent_on_multi_context_type_envelope_carriage": _V.PURPOSE_REQUIRED,
}


def failure_meaning(reason: str | None) -> type[BaseException] | TypedRefVerdict | str | None:
    """What a vector's failure_reason stands for (`FAILURE_REASONS`); None for no reason or an
    unmapped one."""
    return None if reason is None else FAILURE_REASONS.get(reason)


#: The context constraint each `context_*` failure_reason names (the violation must be that one).
CONTEXT_REASONS: dict[str, str] = {
    "context_closed_field_set": "field-set",
    "context_required_member": "required-member",
    "context_member_type": "member-type",
    "context_number_policy": "number-policy",
    "context_byte_selector": "byte-selector",
}

_WIRE_CODES: dict[type[BaseException], str] = {
    NonIntegerNumberError: "non-integer-number",
    UnsafeIntegerError: "unsafe-integer",
    DuplicateNameError: "duplicate-name",
    DuplicateKeyError: "duplicate-name",
}

#: The revisions of draft-mih-sokolov-scitt-payload-binding a run can follow.
DRAFTS = ("-00", "-01", "-02", "-03", "-04", "-05", "-06")
DEFAULT_DRAFT = "-06"


def suite_draft(directory: str | Path, draft: str | None = None) -> str:
    """The draft a run of `directory` follows: `draft` when given, else the one fastjcs's shipped
    suite was written for (-01, with upstream c33ce1a), else `DEFAULT_DRAFT`. ValueError for an
    unknown draft."""
    if draft is not None:
        if draft not in DRAFTS:
            raise ValueError(f"unknown draft {draft!r}; known: {', '.join(DRAFTS)}")
        return draft
    from . import SUITES

    try:
        ours = Path(directory).resolve() == (SUITES / "cpb").resolve()
    except OSError:
        ours = False
    return "-01" if ours else DEFAULT_DRAFT


def jcs_n_withdrawn(draft: str) -> bool:
    """jcs-n is withdrawn from -02 on (PR #57; 2026-08-18)."""
    return DRAFTS.index(draft) >= DRAFTS.index("-02")


def bundled_registry(draft: str) -> Registry:
    """The registry "bundled" means under `draft`: the one of its time."""
    return Registry.bundled() if jcs_n_withdrawn(draft) else Registry.bundled("c33ce1a")


#: The vintage evidence a vector (or a mutant) may carry: {"binds_digest": HEX, "authenticated_time": ISO}.
#: The callback checks the binding the way a profile's check would (here: equality, the vector
#: being the trusted source) and returns the time.
def _vintage_of(doc: Mapping[str, Any], draft: str) -> Vintage | None:
    if not jcs_n_withdrawn(draft):
        return Vintage.pre_withdrawal_draft()
    evidence = doc.get("vintage_evidence")
    if not isinstance(evidence, Mapping):
        return None

    def check(ev: Mapping[str, Any], digest: str) -> datetime:
        if ev.get("binds_digest") != digest:
            raise ValueError("the evidence binds another digest")
        return datetime.fromisoformat(str(ev["authenticated_time"]).replace("Z", "+00:00"))

    return Vintage(evidence, check)


# ---------------------------------------------------------------------------------------------------
# The implementation under test (mutants replace one function)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Implementation:
    name: str = "fastjcs"
    # the runner verifies vectors (records), never declares: no withdrawal warning for jcs-n
    preimage: Callable[..., bytes] = historical_preimage
    preimage_text: Callable[..., bytes] = historical_preimage_text
    normalize: Callable[..., Any] = normalize
    check: Callable[..., checker.CheckResult] = checker.check
    verify_typed_reference: Callable[..., typed_refs.TypedRefResult] = typed_refs.verify_typed_reference
    verify_derived_identifier: Callable[..., str] = verify_derived_identifier
    #: the draft revision the run follows (`DRAFTS`)
    draft: str = DEFAULT_DRAFT


FASTJCS = Implementation()


# ---------------------------------------------------------------------------------------------------
# Vectors and outcomes
# ---------------------------------------------------------------------------------------------------


#: The members of a vector file that carry the text under test (read as written, never judged
#: by a parser: a must-fail vector's input may repeat a name on purpose).
_SUBJECTS = frozenset({"input", "action", "record"})


@dataclass(frozen=True)
class Vector:
    """A vector file: its metadata (a repeated top-level name refused, the envelope's members read
    by the strict parser) and the raw text of each top-level member's value, read
    token-preserving: `{"count": -0}` stays `-0`."""

    name: str
    path: Path
    doc: dict[str, Any]
    members: dict[str, bytes]
    mutant_of: str | None = None

    @classmethod
    def load(cls, path: Path, root: Path) -> Vector:
        raw = path.read_bytes()
        outer: list[list[tuple[str, Any]]] = []

        def pairs(found: list[tuple[str, Any]]) -> dict[str, Any]:
            outer[:] = [found]  # the top-level object closes last
            return dict(found)

        try:
            doc = json.loads(raw, object_pairs_hook=pairs)
            if not isinstance(doc, dict):
                raise ValueError("a vector file holds one JSON object")
            names = [name for name, _ in outer[0]]
            if len(set(names)) != len(names):
                twice = next(n for n in names if names.count(n) > 1)
                raise ValueError(f"{path}: the member name {twice!r} is repeated (which one is the vector's?)")
            members = member_texts(raw)
            for name, text in members.items():  # the envelope is read strictly; the texts under test are not
                if name not in _SUBJECTS:
                    try:
                        read_json(text)
                    except CanonicalizationError as exc:
                        raise ValueError(f"{path}: member {name!r}: {exc}") from None
        except RecursionError:  # the ValueError of a file nested past what Python code walks
            raise ValueError(f"{path}: nested too deep to be read") from None
        return cls(path.relative_to(root).as_posix(), path, doc, members)

    def text(self, key: str) -> bytes:
        return self.members[key]

    def mutant(self, category: str, doc: dict[str, Any], **texts: bytes) -> Vector:
        members = dict(self.members)
        for key, text in texts.items():
            members[key] = text
            doc[key] = json.loads(text)
        return replace(self, doc=doc, members=members, mutant_of=category)
