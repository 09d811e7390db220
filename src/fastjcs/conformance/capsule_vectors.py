"""Run Agent Action Capsule conformance vectors (upstream `vectors/capsule/`), with mutation probes.

The layout (upstream's `vectors/capsule/README.md`)::

    vectors.json            the manifest: {format_versions, spec, count, cases: [{name, kind, description}]}
    SHA256SUMS              sha256 of every file
    <case>/input.json       a capsule, or {"ledger": [...]} for a store-level case
    <case>/expected.json    {ok, derived, capsule_id_recomputed, findings: [{check, severity, ...}]}
                            (store cases: {results: [...]}, one per capsule of the ledger)

Every JSON file is claimed: a case folder's two files by the case, `vectors.json` by the manifest
check (its count, its format list against the profile's, each listed case that is present), and
`SHA256SUMS` pins each JSON file it lists (a JSON file it pins with another hash fails the run).
A case passes on upstream's conformance terms: `ok`, the check numbers with their severities in
order, the derived modes and the capsule id (and the canonical preimage where the case pins one);
the `code` and `detail` strings are upstream's labels and are not compared.

Manifest cases absent from the copy whose change the manifest states (format "3", format "1",
format 2 without a declaration or with a null one, and each refused canonicalization_id
declaration) are built from the format-4 chain case with that change alone and run as well
("derived:<name>"), expected as the draft's Class 1 check 1 says: not ok, one check-1 error, no
digest computed.

Mutation probes, as `cpb_vectors` does them: each error a negative case fires is a check category
(`capsule:<check>:<code>`); its generator, written from the draft's text with the standard
library's json module (not the profile), takes that defect out, recomputes the capsule id and
flips the expectation to a pass. A category whose mutant does not flip fails the run.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.hashing import hex_digest
from ..profiles import capsule as _capsule
from .reader import read_document
from .results import ProbeOutcome, RunSummary, VectorOutcome

MANIFEST = "vectors.json"
SUMS = "SHA256SUMS"
#: the case a manifest-derived case is built from, and the change each derived case makes (the one
#: its manifest description states: format 2 lacks the declaration, or carries it null)
BASE_CASE = "pos-v4-jcs-chain-committed"
_ABSENT = object()
DERIVED_CASES: dict[str, dict[str, Any]] = {
    "neg-v3-format-version-unsupported": {"format_version": "3"},
    "neg-format-version-unknown": {"format_version": "1"},
    "neg-v2-canonicalization-absent": {"format_version": "2", "canonicalization_id": _ABSENT},
    "neg-v2-canonicalization-null": {"format_version": "2", "canonicalization_id": None},
    "neg-v4-canonicalization-missing": {"canonicalization_id": _ABSENT},
    "neg-v4-canonicalization-jcs-n": {"canonicalization_id": "jcs-n"},
    "neg-v4-canonicalization-non-string": {"canonicalization_id": 4},
    "neg-v4-canonicalization-null": {"canonicalization_id": None},
    "neg-v4-canonicalization-empty": {"canonicalization_id": ""},
}

Verify = Callable[..., "_capsule.CapsuleResult"]


@dataclass(frozen=True)
class Case:
    name: str
    input: Any  # the parsed capsule (or {"ledger": [...]})
    raw: bytes | None  # the input text, when read from a file (judged token by token)
    expected: Mapping[str, Any]
    mutant_of: str | None = None
    #: the case without its one defect, for a case built from another (`DERIVED_CASES`)
    repaired: Case | None = None


def is_capsule_suite(path: Path) -> bool:
    """Whether `path` is a directory in AAC's layout: a manifest, or case folders of input/expected."""
    if not path.is_dir():
        return False
    if (path / MANIFEST).is_file():
        try:
            doc = read_document((path / MANIFEST).read_bytes())
        except ValueError:
            return False
        return isinstance(doc, dict) and "format_versions" in doc and isinstance(doc.get("cases"), list)
    return any((d / "input.json").is_file() and (d / "expected.json").is_file() for d in path.iterdir() if d.is_dir())


# ---- one case ----------------------------------------------------------------------------------


def run_case(case: Case, verify: Verify, out: VectorOutcome) -> None:
    want = case.expected
    if isinstance(case.input, Mapping) and "ledger" in case.input:
        ledger = case.input["ledger"]
        results = want.get("results", [])
        out.eq("ledger results", len(ledger), len(results))
        for n, (capsule, expected) in enumerate(zip(ledger, results)):
            _compare(f"ledger[{n}]", verify(capsule, store=ledger), expected, out)
        return
    result = verify(case.raw if case.raw is not None else case.input)
    _compare("capsule", result, want, out)
    pre = want.get("canonical_preimages", {}).get("capsule_id")
    if isinstance(pre, str) and result.capsule_id is not None:  # case.input: the text as parsed
        out.eq("canonical preimage", _capsule.capsule_preimage(case.input), pre.encode("utf-8"))
    if not want.get("ok", True) and not result.ok:
        for f in result.findings:
            if f.severity == _capsule.ERROR:
                out.fired.add(f"capsule:{f.check}:{f.code}")


def _compare(what: str, result: Any, want: Mapping[str, Any], out: VectorOutcome) -> None:
    out.eq(f"{what}: ok", result.ok, want.get("ok"))
    got = [(f.check, f.severity) for f in result.findings]
    out.eq(f"{what}: findings (check, severity)", got, [(f["check"], f["severity"]) for f in want.get("findings", [])])
    if "derived" in want:
        out.eq(f"{what}: derived modes", dict(result.derived), dict(want["derived"]))
    if "capsule_id_recomputed" in want:
        out.eq(f"{what}: capsule_id", result.capsule_id, want["capsule_id_recomputed"])


# ---- the generators: the defect out, the id recomputed (json, not the profile) -----------------


def _spec_jcs(value: Any) -> bytes:
    """RFC 8785 for what these generators write: sorted members, compact, no floats. Exactly JCS
    for member names of the Basic Multilingual Plane (code-point order = UTF-16 order there)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _resealed(capsule: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in capsule.items() if k not in ("capsule_id", "signature", "key_id")}
    capsule["capsule_id"] = hex_digest(_spec_jcs(body))
    return capsule


def _passing(case: Case, capsule: dict[str, Any], category: str, keep: Callable[[Mapping[str, Any]], bool]) -> Case:
    """`capsule` resealed, expected to pass with the findings of the original that are not errors
    (those `keep` says survive the repair)."""
    capsule = _resealed(capsule)
    findings = [f for f in case.expected.get("findings", []) if f.get("severity") != "error" and keep(f)]
    expected = {"ok": True, "findings": findings, "capsule_id_recomputed": capsule["capsule_id"]}
    if "derived" in case.expected:
        expected["derived"] = case.expected["derived"]
    return Case(case.name, capsule, None, expected, category)


#: string members of the capsule and its blocks, as the draft's tables type them
_SPEC_STRINGS = {
    None: ("spec_version", "action_id", "action_type", "operator", "developer", "timestamp", "epoch_id",
           "domain", "provenance"),
    "disposition": ("decision", "approver", "verdict_class"),
    "effect": ("type", "status", "external_ref", "effect_attestation"),
    "chain": ("parent_capsule_id", "relation"),
    "cross_party": ("correlator",),
}  # fmt: skip
_SPEC_BLOCKS = (
    "disposition",
    "assurance",
    "effect",
    "chain",
    "cross_party",
    "provenance_mode",
    "self_reported_reasoning",
)


def _drop_mistyped(case: Case, handler: Any, category: str) -> Case:
    """Type errors (check 1): the optional member that is not of its type is dropped."""
    capsule = copy.deepcopy(dict(case.input))
    for name in _SPEC_BLOCKS:
        if name in capsule and not isinstance(capsule[name], dict):
            del capsule[name]
    for block, names in _SPEC_STRINGS.items():
        holder = capsule if block is None else capsule.get(block)
        if isinstance(holder, dict):
            for name in names:
                if name in holder and not isinstance(holder[name], str):
                    del holder[name]
    return _passing(case, capsule, category, lambda f: True)


def _declared_format_4(case: Case, handler: Any, category: str) -> Case:
    """A refused declaration (check 1): format "4" and canonicalization_id "jcs", as the draft requires."""
    if case.repaired is not None:  # built from a passing case by one change: that case
        return Case(case.repaired.name, case.repaired.input, case.repaired.raw, case.repaired.expected, category)
    capsule = copy.deepcopy(dict(case.input))
    capsule["format_version"], capsule["canonicalization_id"] = "4", "jcs"
    return _passing(case, capsule, category, lambda f: True)


GENERATORS: dict[str, Callable[[Case, Any, str], Case]] = {
    "block-not-object": _drop_mistyped,
    "field-not-string": _drop_mistyped,
    "domain-not-string": _drop_mistyped,
    "provenance-not-string": _drop_mistyped,
    "unsupported-format-version": _declared_format_4,
    "canonicalization-missing": _declared_format_4,
    "canonicalization-withdrawn": _declared_format_4,
    "canonicalization-not-string": _declared_format_4,
    "canonicalization-unknown": _declared_format_4,
}


def probe(case: Case, category: str, verify: Verify) -> ProbeOutcome:
    code = category.rsplit(":", 1)[-1]
    generator = GENERATORS.get(code)
    if generator is None:
        return ProbeOutcome(category, case.name, None, False, "no generator builds a condition-removed mutant")
    try:
        mutant = generator(case, None, category)
    except Exception as exc:
        return ProbeOutcome(category, case.name, generator.__name__, False, f"the generator failed: {exc}")
    out = _outcome(mutant, verify)
    if category in out.fired:
        return ProbeOutcome(category, case.name, generator.__name__, False, "the mutant still fires the check")
    if not out.passed:
        detail = "the mutant does not pass: " + "; ".join(out.failures or ["no assertion"])
        return ProbeOutcome(category, case.name, generator.__name__, False, detail)
    return ProbeOutcome(category, case.name, generator.__name__, True)


def _outcome(case: Case, verify: Verify) -> VectorOutcome:
    out = VectorOutcome(case.name, "capsule", not case.expected.get("ok", True), None)
    try:
        run_case(case, verify, out)
    except Exception as exc:  # an implementation (or mutant) that raises where it should answer
        out.fail(f"raised {type(exc).__name__}: {exc}")
    if out.must_fail and out.passed and not out.fired:
        out.fail("a negative case passed without firing any check")
    return out


# ---- the run -----------------------------------------------------------------------------------


def _derived_case(name: str, base: Case) -> Case:
    capsule = copy.deepcopy(dict(base.input)) if isinstance(base.input, Mapping) else {}
    for member, value in DERIVED_CASES[name].items():
        if value is _ABSENT:
            capsule.pop(member, None)
        else:
            capsule[member] = value
    expected = {
        "ok": False,
        "findings": [{"check": 1, "severity": "error"}],
        "capsule_id_recomputed": None,  # both declarations are checked before any digest
    }
    return Case(f"derived:{name}", capsule, None, expected, repaired=base)


def run_vectors(directory: str | Path, *, probes: bool = True, verify: Verify | None = None) -> RunSummary:
    """Run an AAC `vectors/capsule/` directory (see the module docstring). Never raises for a case."""
    verify = verify or _capsule.verify_capsule
    root = Path(directory)
    outcomes: list[VectorOutcome] = []
    unclaimed: list[str] = []
    ignored: list[str] = []
    probe_outcomes: list[ProbeOutcome] = []
    cases: dict[str, Case] = {}
    claimed: set[str] = set()
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        files = {f.name for f in folder.iterdir() if f.is_file()}
        if {"input.json", "expected.json"} <= files:
            raw = (folder / "input.json").read_bytes()
            try:
                capsule = _capsule.parse_capsule(raw)
                expected = read_document((folder / "expected.json").read_bytes())
            except Exception as exc:
                unclaimed.append(f"{folder.name} (unreadable: {exc})")
                continue
            cases[folder.name] = Case(folder.name, capsule, raw, expected)
            claimed |= {f"{folder.name}/input.json", f"{folder.name}/expected.json"}
    manifest = _manifest(root, cases, outcomes, claimed)
    sums = _sums(root, outcomes, claimed)
    if sums is not None:
        claimed.add(SUMS)
    runs = list(cases.values())
    base = cases.get(BASE_CASE)
    if base is not None:
        runs += [_derived_case(name, base) for name in sorted(DERIVED_CASES) if name in manifest and name not in cases]
    for case in runs:
        out = _outcome(case, verify)
        outcomes.append(out)
        if probes and out.passed:
            probe_outcomes.extend(probe(case, category, verify) for category in sorted(out.fired))
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        name = path.relative_to(root).as_posix()
        if name in claimed:
            continue
        (unclaimed if path.suffix == ".json" else ignored).append(name)
    return RunSummary(str(root), "fastjcs, Agent Action Capsule profile", outcomes, unclaimed, probe_outcomes, ignored)


def _manifest(root: Path, cases: Mapping[str, Case], outcomes: list[VectorOutcome], claimed: set[str]) -> set[str]:
    """Check `vectors.json` (as an outcome of its own) and return the case names it lists."""
    path = root / MANIFEST
    if not path.is_file():
        return set()
    claimed.add(MANIFEST)
    out = VectorOutcome(MANIFEST, "capsule-manifest", False, None)
    outcomes.append(out)
    try:
        doc = read_document(path.read_bytes())
        listed = [c["name"] for c in doc["cases"]]
    except (ValueError, KeyError, TypeError) as exc:
        out.fail(f"not a capsule manifest: {exc}")
        return set()
    out.eq("count", doc.get("count"), len(listed))
    out.eq("listed names are unique", len(set(listed)), len(listed))
    out.eq("format_versions", doc.get("format_versions"), [_capsule.FORMAT_VERSION])
    out.true(f"spec {doc.get('spec')!r} is a revision the profile knows", doc.get("spec") in _capsule.SPEC_VERSIONS)
    kinds = {c["name"]: c.get("kind") for c in doc["cases"]}
    for name, case in cases.items():
        if name in kinds and "kind" in case.expected:
            out.eq(f"{name}: kind", case.expected["kind"], kinds[name])
    return set(listed)


def _sums(root: Path, outcomes: list[VectorOutcome], claimed: set[str]) -> dict[str, str] | None:
    """Check every JSON file `SHA256SUMS` pins (as an outcome of its own); None without the file."""
    path = root / SUMS
    if not path.is_file():
        return None
    out = VectorOutcome(SUMS, "capsule-sums", False, None)
    outcomes.append(out)
    pins: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        if name:
            pins[name.strip()] = digest.strip()
    out.true("SHA256SUMS lists files", bool(pins))
    for name, digest in sorted(pins.items()):
        target = root / name
        if name.endswith(".json") and target.is_file() and name in claimed | {MANIFEST}:
            out.eq(f"sha256 {name}", hex_digest(target.read_bytes()), digest)
    return pins
