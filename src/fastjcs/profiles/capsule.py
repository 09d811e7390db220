"""The Agent Action Capsule (draft-mih-scitt-agent-action-capsule-05): Class 1 verification.

A profile beside typed references: the capsule's identity rules are its own (`data/
agent-action-capsule.json`, with their upstream source), never a CPB registry entry (upstream's
registry removed the entry on 2026-10-04, "to live in its own profile"). Format 4 is the only
format: `format_version: "4"` and `canonicalization_id: "jcs"`, both checked before any digest is
computed; the capsule id is SHA-256 over plain RFC 8785 JCS of the capsule without `capsule_id`
(and without the local-only `signature` / `key_id` envelope fields), `chain` and `references`
committed, null / [] / {} members hashed when present.

    >>> result = verify_capsule(capsule)                        # doctest: +SKIP
    >>> result.ok, result.verdict, result.reasons, result.capsule_id   # doctest: +SKIP

The result is a verdict with reasons, as `fastjcs.cpb.check` gives one: `ok` (no error finding),
`verdict` ("conforming" / "non-conforming"), the findings in the draft's check order (check
number 1-9 or None, severity error / warning / info, a code and a detail), the derived modes and
the recomputed id. Conformance with upstream is agreement on `ok`, the check numbers with their
severities, the derived modes and the capsule id; the codes are this library's labels.

Refused (check 1, fail closed, no digest computed): any format other than "4" (format "3" was never
published), and an absent, null, non-string, empty, unknown or "jcs-n" canonicalization_id.
Format 2 (the vintage jcs-n construction, exclusion set {capsule_id, chain}) is out of scope of -05;
upstream verifies it only with its frozen release legacy-verify/v0.1.0. Here it is verified only
when the caller asks (`legacy=Vintage(evidence, callback)`), and the result then says so
(`legacy=True` and a check-1 info finding `legacy-format-2`).

The checks (section "Class 1 verification"): 1 structural (required members and types, the closed
approver enum, no float and no integer beyond 2^53-1 anywhere in the capsule), 2 identity, 3
confirmed-effect binding, 4 verdict/effect orthogonality, 5 effect-attestation matrix, 6 chain
(store-level: an info finding without a store; with one, a missing parent is an error and a later
concurrent supersedes an info finding; a reference duplicating the chain parent is an error), 7
assurance reconciliation (an overclaim is informational), 8 unknown registry values
(informational), 9 provenance mode (a backfilled record's block, the witnessed time rung, the
laundering shape imported_at == source_asserted_at). The honesty invariant (human_disposed needs
approver "human") is a non-gating warning (check None), as the draft carves it out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from typing import Any

from ..core.api import check_depth, dumps
from ..core.errors import FastJCSError
from ..core.hashing import hex_digest
from ..cpb.errors import VintageError
from ..cpb.registry import artifact_digest
from ..cpb.vintage import Vintage, require

#: The profile's own data (format rules, registries, the upstream revision they were read from).
PROFILE: Mapping[str, Any] = json.loads(
    resources.files(__package__).joinpath("data/agent-action-capsule.json").read_text(encoding="utf-8")
)
FORMAT_VERSION = PROFILE["format"]["format_version"]
CANONICALIZATION_ID = PROFILE["format"]["canonicalization_id"]
EXCLUSION_SET: tuple[str, ...] = tuple(PROFILE["format"]["exclusion_set"])
LOCAL_ONLY: tuple[str, ...] = tuple(PROFILE["format"]["local_only"])
LEGACY_FORMAT = PROFILE["legacy"]["format_version"]
LEGACY_EXCLUSION_SET: tuple[str, ...] = tuple(PROFILE["legacy"]["exclusion_set"])
SPEC_VERSIONS: tuple[str, ...] = tuple(PROFILE["spec_versions"])
REGISTRIES: Mapping[str, tuple[str, ...]] = {k: tuple(v) for k, v in PROFILE["registries"].items()}
NEVER_DISPATCH = frozenset(PROFILE["never_dispatch"])
APPROVERS = frozenset(PROFILE["approver"])
EFFECT_STATUSES = frozenset(PROFILE["effect_status"])

CONFORMING = "conforming"
NON_CONFORMING = "non-conforming"
ERROR, WARNING, INFO = "error", "warning", "info"

_HEX64 = re.compile(r"\A[0-9a-f]{64}\Z")
_RFC3339 = re.compile(r"\A\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\Z")
_SAFE = 2**53 - 1
_REQUIRED = ("spec_version", "format_version", "canonicalization_id", "capsule_id", "action_id", "action_type",
             "operator", "developer", "timestamp", "disposition", "assurance")  # fmt: skip
_STRINGS = ("spec_version", "action_id", "action_type", "operator", "developer", "timestamp", "epoch_id")
#: the -02 addendum's members: strings, with codes of their own
_ADDENDUM = ("domain", "provenance")
_BLOCKS = ("disposition", "assurance", "effect", "chain", "cross_party", "provenance_mode", "self_reported_reasoning")
_BLOCK_STRINGS = {
    "disposition": ("decision", "approver", "verdict_class", "authority", "reason_digest"),
    "effect": ("type", "status", "external_ref", "effect_attestation", "irreversibility_class",
               "request_digest", "response_digest"),
    "chain": ("parent_capsule_id", "relation"),
    "cross_party": ("correlator",),
}  # fmt: skip
_LEDGER = ("standalone", "chained", "anchored")
_ATTESTATION = ("self_attested", "anchored")
_PROVENANCE_MODES = ("contemporaneous", "backfilled")
_TIME_RUNGS = ("self_attested", "witnessed")


@dataclass(frozen=True)
class Finding:
    check: int | None  # the draft's Class 1 check number; None for the non-gating honesty assert
    code: str
    detail: str
    severity: str = ERROR  # error (gates ok), warning (non-gating), info

    def as_dict(self) -> dict[str, Any]:
        return {"check": self.check, "code": self.code, "detail": self.detail, "severity": self.severity}


@dataclass(frozen=True)
class CapsuleResult:
    findings: tuple[Finding, ...]
    #: the recomputed capsule id (None when a declaration was refused or the capsule cannot be hashed)
    capsule_id: str | None = None
    derived: Mapping[str, str] = field(default_factory=dict)
    #: verified under the retired format 2 (jcs-n, vintage evidence), on the caller's request
    legacy: bool = False
    #: provenance_mode.mode and the time rung it can claim, when the block is present (check 9)
    provenance_mode: str | None = None
    time_rung: str | None = None

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)

    @property
    def verdict(self) -> str:
        return CONFORMING if self.ok else NON_CONFORMING

    @property
    def reasons(self) -> tuple[str, ...]:
        """The codes of the error findings, in check order: why the capsule is not conforming."""
        return tuple(f.code for f in self.findings if f.severity == ERROR)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ok": self.ok,
            "verdict": self.verdict,
            "capsule_id_recomputed": self.capsule_id,
            "derived": dict(self.derived),
            "findings": [f.as_dict() for f in self.findings],
        }
        if self.legacy:
            out["legacy"] = True
        if self.provenance_mode is not None:
            out["provenance_mode"] = {"mode": self.provenance_mode, "time_rung": self.time_rung}
        return out


class _Report:
    def __init__(self) -> None:
        self.findings: list[Finding] = []

    def add(self, check: int | None, code: str, detail: str, severity: str = ERROR) -> None:
        self.findings.append(Finding(check, code, detail, severity))

    def ordered(self) -> tuple[Finding, ...]:
        # check order, None (the honesty assert) last; stable within a check
        return tuple(sorted(self.findings, key=lambda f: 10 if f.check is None else f.check))


class _FloatToken(float):
    """A number token outside the integer grammar, as read from text (check 1 refuses it)."""


#: How deep a capsule's text may nest (far beyond any capsule; below Python's recursion limit,
#: which the standard library's reader needs).
MAX_DEPTH = 256


def parse_capsule(data: bytes | bytearray | memoryview | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """A capsule's JSON text as Python values: integer tokens as int (so `-0` is 0), any other
    number token as a float, duplicate member names refused (DuplicateKeyError) by fastjcs's strict
    parser, which also judges the text first (InvalidJSONError with the position, DepthLimitError
    beyond `max_depth`)."""
    from ..core.parser import parse

    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    parse(raw, check_depth(max_depth))  # strict RFC 8259 / I-JSON: raises for anything else
    return json.loads(raw, parse_float=_FloatToken)


def capsule_preimage(capsule: Mapping[str, Any]) -> bytes:
    """The format-4 capsule id's preimage: plain JCS of the capsule without `capsule_id` and the
    local-only envelope fields. Does not check the declarations: `verify_capsule` does, first."""
    return dumps({k: v for k, v in capsule.items() if k not in EXCLUSION_SET and k not in LOCAL_ONLY})


def capsule_id(capsule: Mapping[str, Any]) -> str:
    """The format-4 capsule id: SHA-256 over `capsule_preimage`, 64 lowercase hex."""
    return hex_digest(capsule_preimage(capsule))


def verify_capsule(
    capsule: Any,
    *,
    store: Iterable[Mapping[str, Any]] | None = None,
    legacy: Vintage | None = None,
) -> CapsuleResult:
    """Class 1 verification of one capsule (a mapping, or its JSON text as bytes); never raises for
    a verification failure. `store`: the producer's other capsules, for the store-level chain check
    (6); without it that check is an info finding. `legacy`: verify a format-2 capsule under the
    retired jcs-n construction with this vintage evidence (else format 2 is refused like any other
    format but 4)."""
    report = _Report()
    if isinstance(capsule, (bytes, bytearray, memoryview, str)):
        try:
            capsule = parse_capsule(capsule)
        except (FastJCSError, ValueError) as exc:
            report.add(1, "not-json", str(exc))
            return CapsuleResult(report.ordered())
    if not isinstance(capsule, Mapping):
        report.add(1, "not-an-object", "a capsule is a JSON object")
        return CapsuleResult(report.ordered())
    if not _declarations(capsule, report, legacy):
        return CapsuleResult(report.ordered())
    is_legacy = capsule.get("format_version") == LEGACY_FORMAT
    _structure(capsule, report)
    recomputed = _identity(capsule, report, legacy if is_legacy else None)
    derived = _derive(capsule)
    _effect_checks(capsule, derived, report)
    _chain_checks(capsule, report, store)
    _reconcile(capsule, derived, report)
    _unknown_values(capsule, report)
    mode, rung = _provenance(capsule, report)
    _honesty(capsule, report)
    return CapsuleResult(report.ordered(), recomputed, derived, is_legacy, mode, rung)


# ---- check 1: the declarations first, then structure -------------------------------------------


def _declarations(capsule: Mapping[str, Any], report: _Report, legacy: Vintage | None) -> bool:
    """format_version and canonicalization_id, before any digest (False: refused, nothing hashed)."""
    fmt = capsule.get("format_version")
    cid = capsule.get("canonicalization_id", _ABSENT)
    if fmt == LEGACY_FORMAT and legacy is not None:
        if cid is not _ABSENT:
            report.add(1, "legacy-declares-algorithm", f"a format-2 capsule declares canonicalization_id {cid!r}")
            return False
        report.add(1, "legacy-format-2", "verified under the retired format 2 (jcs-n, vintage evidence)", INFO)
        return True
    if fmt != FORMAT_VERSION:
        hint = " (format 2: legacy verification only, on request with vintage evidence)" if fmt == "2" else ""
        report.add(1, "unsupported-format-version", f"format_version {fmt!r} is not {FORMAT_VERSION!r}{hint}")
        return False
    if cid is _ABSENT:
        report.add(1, "canonicalization-missing", "format 4 requires canonicalization_id")
    elif cid == "jcs-n":
        report.add(1, "canonicalization-withdrawn", "jcs-n is withdrawn: an explicit jcs-n declaration is refused")
    elif not isinstance(cid, str):
        report.add(1, "canonicalization-not-string", f"canonicalization_id {cid!r} is not a string")
    elif cid != CANONICALIZATION_ID:
        report.add(1, "canonicalization-unknown", f"canonicalization_id {cid!r} is not {CANONICALIZATION_ID!r}")
    else:
        return True
    return False


_ABSENT: Any = object()


def _structure(capsule: Mapping[str, Any], report: _Report) -> None:
    legacy = capsule.get("format_version") == LEGACY_FORMAT  # format 2 carried no declaration
    for name in _REQUIRED:
        if legacy and name == "canonicalization_id":
            continue
        if capsule.get(name) is None:
            report.add(1, "missing-required-field", f"{name} is REQUIRED")
    for name in _STRINGS:
        if name in capsule and capsule[name] is not None and not isinstance(capsule[name], str):
            report.add(1, "field-not-string", f"{name} MUST be a string")
    for name in _ADDENDUM:
        if name in capsule and not isinstance(capsule[name], str):
            report.add(1, f"{name}-not-string", f"{name} MUST be a string when present (-02 addendum)")
    for name in _BLOCKS:
        if name in capsule and capsule[name] is not None and not isinstance(capsule[name], Mapping):
            report.add(1, "block-not-object", f"{name} MUST be a JSON object when present")
    for block, members in _BLOCK_STRINGS.items():
        b = capsule.get(block)
        if isinstance(b, Mapping):
            for m in members:
                if m in b and b[m] is not None and not isinstance(b[m], str):
                    report.add(1, "field-not-string", f"{block}.{m} MUST be a string")
    d = capsule.get("disposition")
    if isinstance(d, Mapping):
        for m in ("decision", "approver", "human_disposed"):
            if d.get(m) is None:
                report.add(1, "missing-required-field", f"disposition.{m} is REQUIRED")
        if isinstance(d.get("approver"), str) and d["approver"] not in APPROVERS:
            report.add(1, "approver-invalid", f"disposition.approver {d['approver']!r} is outside the closed enum")
        if "human_disposed" in d and d["human_disposed"] is not None and not isinstance(d["human_disposed"], bool):
            report.add(1, "field-not-boolean", "disposition.human_disposed MUST be a boolean")
    e = capsule.get("effect")
    if isinstance(e, Mapping) and isinstance(e.get("status"), str) and e["status"] not in EFFECT_STATUSES:
        report.add(1, "effect-status-invalid", f"effect.status {e['status']!r} is not one of the five")
    _references_structure(capsule, report)
    for path, value in _numbers(capsule, "$"):
        if isinstance(value, float):
            report.add(1, "float-in-digest-field", f"{path}: a floating-point value in digest-bearing material")
        elif abs(value) > _SAFE:
            report.add(1, "unsafe-integer", f"{path}: an integer beyond 2^53-1 must be a decimal string")


def _references_structure(capsule: Mapping[str, Any], report: _Report) -> None:
    if "references" not in capsule:
        return
    refs = capsule["references"]
    if not isinstance(refs, list):
        report.add(1, "references-not-array", "format-4 references MUST be an array")
        return
    for n, ref in enumerate(refs):
        where = f"references[{n}]"
        if not isinstance(ref, Mapping):
            report.add(1, "reference-not-object", f"{where} MUST be an object")
            continue
        if not isinstance(ref.get("type"), str) or not ref["type"]:
            report.add(1, "reference-type-missing", f"{where}.type is a REQUIRED non-empty string")
        for m in ("digest_alg", "digest"):
            if not isinstance(ref.get(m), str) or not ref[m]:
                report.add(1, "reference-field-invalid", f"{where}.{m} is a REQUIRED non-empty string")
        if ref.get("type") == "agent-action-capsule" and ref.get("digest_alg") == "SHA-256":
            if isinstance(ref.get("digest"), str) and _HEX64.match(ref["digest"]) is None:
                report.add(1, "reference-bad-capsule-id", f"{where}: an AAC SHA-256 reference carries a capsule id")
        if "citation_purpose" in ref and (not isinstance(ref["citation_purpose"], str) or not ref["citation_purpose"]):
            report.add(1, "field-not-string", f"{where}.citation_purpose is a non-empty string")


def _numbers(value: Any, path: str) -> Iterable[tuple[str, int | float]]:
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, Mapping):
            stack.extend((item, f"{p}.{k}") for k, item in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((item, f"{p}[{n}]") for n, item in reversed(list(enumerate(v))))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            yield p, v


# ---- check 2: identity -------------------------------------------------------------------------


def _identity(capsule: Mapping[str, Any], report: _Report, legacy: Vintage | None) -> str | None:
    try:
        if legacy is not None:  # format 2: jcs-n, {capsule_id, chain}, behind vintage evidence
            body = {k: v for k, v in capsule.items() if k not in LOCAL_ONLY}
            recomputed = artifact_digest(body, algorithm="jcs-n", exclusion_set=LEGACY_EXCLUSION_SET)
        else:
            recomputed = capsule_id(capsule)
    except FastJCSError as exc:  # an unsafe integer, a lone surrogate: reported by check 1 or here
        report.add(2, "not-canonicalizable", f"the capsule cannot be canonicalized: {exc}")
        return None
    carried = capsule.get("capsule_id")
    if carried != recomputed:
        report.add(2, "capsule-id-mismatch", f"carried {carried!r} != recomputed {recomputed}")
    elif legacy is not None:
        try:
            require(legacy, recomputed)
        except VintageError as exc:
            report.add(2, "vintage-unestablished", f"{exc} ({exc.reason})")
    return recomputed


# ---- derived modes and checks 3-5 --------------------------------------------------------------


def _effect_mode(capsule: Mapping[str, Any]) -> str:
    effect = capsule.get("effect")
    if not isinstance(effect, Mapping):
        return "not_applicable"
    status = effect.get("status")
    if status == "planned" or status is None:
        return "not_applicable"
    if status == "confirmed" and _well_formed_digest(effect.get("response_digest")):
        return "confirmed"
    return "dispatched_unconfirmed"  # dispatched, failed, reverted, a confirmed without its binding


def _derive(capsule: Mapping[str, Any]) -> dict[str, str]:
    chain = capsule.get("chain")
    chained = isinstance(chain, Mapping) and _well_formed_digest(chain.get("parent_capsule_id"))
    # `anchored` needs a verified receipt: a substrate step this payload layer never performs
    return {
        "attestation_mode": "self_attested",
        "effect_mode": _effect_mode(capsule),
        "ledger_mode": "chained" if chained else "standalone",
    }


def _block(capsule: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """A member that must be an object, or {} (a non-object is check 1's finding, not a crash here)."""
    value = capsule.get(name)
    return value if isinstance(value, Mapping) else {}


def _list(capsule: Mapping[str, Any], name: str) -> list[Any]:
    value = capsule.get(name)
    return value if isinstance(value, list) else []


def _well_formed_digest(value: Any) -> bool:
    return isinstance(value, str) and _HEX64.match(value) is not None


def _effect_checks(capsule: Mapping[str, Any], derived: Mapping[str, str], report: _Report) -> None:
    effect = _block(capsule, "effect")
    if effect.get("status") == "confirmed" and not _well_formed_digest(effect.get("response_digest")):
        report.add(3, "confirmed-without-response", "effect.status confirmed without a well-formed response_digest")
    disposition = _block(capsule, "disposition")
    verdict_class = disposition.get("verdict_class")
    if verdict_class in NEVER_DISPATCH and derived["effect_mode"] != "not_applicable":
        report.add(4, "never-dispatch-conflict", f"{verdict_class} never dispatches; effect_mode is "
                   f"{derived['effect_mode']}")  # fmt: skip
    present = "effect_attestation" in effect
    if derived["effect_mode"] == "not_applicable" and present:
        report.add(5, "attestation-present", "effect_attestation MUST be absent when nothing executed")
    elif derived["effect_mode"] != "not_applicable" and not present:
        report.add(5, "attestation-missing", f"effect_attestation is REQUIRED for {derived['effect_mode']}")


# ---- check 6: chain; 7: reconciliation; 8: unknown values --------------------------------------


def _chain_checks(capsule: Mapping[str, Any], report: _Report, store: Iterable[Mapping[str, Any]] | None) -> None:
    chain = capsule.get("chain")
    parent = chain.get("parent_capsule_id") if isinstance(chain, Mapping) else None
    refs = capsule.get("references")
    if parent is not None and isinstance(refs, list):
        for n, ref in enumerate(refs):
            if (
                isinstance(ref, Mapping)
                and ref.get("type") == "agent-action-capsule"
                and ref.get("digest_alg") == "SHA-256"
                and ref.get("digest") == parent
            ):
                report.add(6, "reference-duplicates-parent", f"references[{n}] names the chain parent")
    if not isinstance(chain, Mapping):
        return
    if store is None:
        report.add(6, "chain-check-store-level", "chain parent existence is a store-level check: no store", INFO)
        return
    ledger = [c for c in store if isinstance(c, Mapping)]
    if parent not in {c.get("capsule_id") for c in ledger}:
        report.add(6, "chain-missing-parent", f"no capsule {parent!r} in the store")
    if chain.get("relation") != "supersedes":
        return
    # concurrent supersedes: the earliest in ledger order over a parent is authoritative; a later
    # one is structurally valid and surfaces as a finding (section "Chained Capsules")
    for other in ledger:
        if other.get("capsule_id") == capsule.get("capsule_id"):
            break
        theirs = other.get("chain")
        if (
            isinstance(theirs, Mapping)
            and theirs.get("relation") == "supersedes"
            and theirs.get("parent_capsule_id") == parent
        ):
            report.add(6, "concurrent-supersedes", f"{other.get('capsule_id')!r} superseded {parent!r} first", INFO)
            break


def _reconcile(capsule: Mapping[str, Any], derived: Mapping[str, str], report: _Report) -> None:
    claimed = _block(capsule, "assurance")
    for name, order in (("attestation_mode", _ATTESTATION), ("ledger_mode", _LEDGER)):
        said = claimed.get(name)
        if said in order and order.index(said) > order.index(derived[name]):
            report.add(7, "overclaim", f"assurance.{name} {said!r} exceeds the derived {derived[name]!r}", INFO)
    if "effect_mode" in claimed and claimed["effect_mode"] != derived["effect_mode"]:
        report.add(7, "effect-mode-mismatch", f"assurance.effect_mode {claimed['effect_mode']!r} is derived "
                   f"{derived['effect_mode']!r}", INFO)  # fmt: skip


def _unknown_values(capsule: Mapping[str, Any], report: _Report) -> None:
    def note(registry: str, value: Any) -> None:
        if isinstance(value, str) and value not in REGISTRIES[registry]:
            report.add(8, "unknown-registry-value", f"{registry} {value!r} is not registered", INFO)

    d, e, c = (_block(capsule, k) for k in ("disposition", "effect", "chain"))
    note("verdict_class", d.get("verdict_class"))
    note("decision", d.get("decision"))
    note("effect.type", e.get("type"))
    note("irreversibility_class", e.get("irreversibility_class"))
    note("effect_attestation", e.get("effect_attestation"))
    note("chain.relation", c.get("relation"))
    for ref in _list(capsule, "references"):
        if isinstance(ref, Mapping):
            note("citation_purpose", ref.get("citation_purpose"))
    spec = capsule.get("spec_version")
    if isinstance(spec, str) and spec not in SPEC_VERSIONS:
        report.add(8, "unknown-spec-version", f"spec_version {spec!r} is not a published revision", INFO)


# ---- check 9: provenance mode; the honesty assert ----------------------------------------------


def _provenance(capsule: Mapping[str, Any], report: _Report) -> tuple[str | None, str | None]:
    block = capsule.get("provenance_mode")
    if not isinstance(block, Mapping):
        return None, None  # absent: contemporaneous; not an object: check 1 reported it
    mode = block.get("mode")
    if mode not in _PROVENANCE_MODES:
        report.add(9, "provenance-mode-invalid", f"provenance_mode.mode {mode!r} is not one of {_PROVENANCE_MODES}")
        return None, None
    rung = block.get("time_rung")
    if mode == "contemporaneous":
        if "time_rung" in block:
            report.add(9, "time-rung-not-backfilled", "time_rung MUST be absent unless mode is backfilled")
        return mode, None
    source = block.get("source_ref")
    if not (
        isinstance(source, Mapping)
        and all(isinstance(source.get(k), str) and source[k] for k in ("type", "digest_alg", "digest"))
    ):
        report.add(9, "backfilled-source-ref", "a backfilled record needs source_ref {type, digest_alg, digest}")
    for name in ("source_asserted_at", "imported_at"):
        if not _rfc3339(block.get(name)):
            report.add(9, "backfilled-time", f"provenance_mode.{name} must be an RFC 3339 time")
    if not isinstance(block.get("import_batch"), str) or not block["import_batch"]:
        report.add(9, "backfilled-import-batch", "provenance_mode.import_batch is a REQUIRED string")
    if isinstance(block.get("imported_at"), str) and block.get("imported_at") == block.get("source_asserted_at"):
        report.add(
            9, "laundered-time", "imported_at equals source_asserted_at: the laundering shape, not corroboration"
        )
    if rung is not None and rung not in _TIME_RUNGS:
        report.add(9, "time-rung-invalid", f"time_rung {rung!r} is not one of {_TIME_RUNGS}")
        return mode, "self_attested"
    if rung == "witnessed":
        refs = _list(capsule, "references")
        if not any(
            isinstance(r, Mapping)
            and r.get("citation_purpose") == "corroborates_source_time"
            and all(isinstance(r.get(k), str) and r[k] for k in ("type", "digest_alg", "digest"))
            for r in refs
        ):
            report.add(9, "time-rung-overclaim", "witnessed needs a references[] entry corroborates_source_time")
            return mode, "self_attested"
        return mode, "witnessed"
    return mode, "self_attested"


def _rfc3339(value: Any) -> bool:
    if not isinstance(value, str) or _RFC3339.match(value) is None:
        return False
    try:  # the calendar too (2026-02-30 matches the grammar)
        datetime.strptime(value[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


def _honesty(capsule: Mapping[str, Any], report: _Report) -> None:
    d = capsule.get("disposition")
    if isinstance(d, Mapping) and d.get("human_disposed") is True and d.get("approver") != "human":
        report.add(None, "dishonest-human-disposed", "human_disposed true with a non-human approver", WARNING)


__all__ = [
    "CONFORMING",
    "NON_CONFORMING",
    "PROFILE",
    "CapsuleResult",
    "Finding",
    "capsule_id",
    "capsule_preimage",
    "parse_capsule",
    "verify_capsule",
]
