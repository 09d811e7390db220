"""Run Execution Action Binding v1 vector files, with mutation probes (`fastjcs vectors`).

A vector file is a JSON object whose `vectors` list holds objects with a `preimage` (or the raw
`preimage_utf8` bytes) and an `expected` disposition: the upstream cMCP file and ours
(fastjcs/conformance/suites/eab/) share that shape. Each vector is run through `fastjcs.eab`: the disposition under
each algorithm it names; for `accept`, the JCS bytes and every pinned binding, and that the binding
verifies; for a refusal, that the preimage is refused and that no binding the file gives for it
verifies.

Mutation probes: the runner finds the defects of a refused vector itself, from the spec (docs/contract.md,
"Execution Action Binding v1", typed here rather than imported from the code under test): an algorithm other than
sha256/sha384, preimage bytes that are not JCS, another domain, another version, members added,
dropped or renamed, a field that is not a non-empty string without lone surrogates. Each defect is
a check category; its condition-removed mutant repairs that defect alone and must flip the verdict
(accepted, with the JCS bytes and binding computed here with json and pycryptodome). A category
whose mutant does not flip is assertion-free and fails the run, as in `fastjcs.conformance.cpb_vectors`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from .. import eab
from ..core.errors import FastJCSError, UnsupportedAlgorithmError
from ..core.hashing import hex_digest
from ..eab.errors import ActionBindingError
from .reader import read_document
from .results import ProbeOutcome, RunSummary, VectorOutcome

SPEC_DOMAIN = "cmcp.execution-action-binding"
SPEC_FIELDS = ("agent_id", "action_type", "action_scope", "action_timestamp")
SPEC_MEMBERS = ("domain", "version") + SPEC_FIELDS
SPEC_ALGORITHMS = ("sha256", "sha384")


def is_eab_file(doc: Any) -> bool:
    """Whether a parsed JSON document has the shape of an EAB vector file."""
    vectors = doc.get("vectors") if isinstance(doc, dict) else None
    return (
        isinstance(vectors, list)
        and bool(vectors)
        and all(isinstance(v, dict) and ("preimage" in v or "preimage_utf8" in v) and "expected" in v for v in vectors)
    )


# ---- what the spec says about a preimage (independent of fastjcs.eab) -----------------------


def _spec_jcs(obj: dict[str, Any]) -> bytes:
    """JCS bytes of a v1-shaped object: ASCII member names, strings and the integer 1, for
    which sorted compact json.dumps is exactly RFC 8785."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _good_field(value: Any) -> bool:
    if not isinstance(value, str) or not value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_one(value: Any) -> bool:
    return type(value) in (int, float) and value == 1


def defects(v: dict[str, Any]) -> list[str]:
    """The defects of a vector as the spec sees them, as check categories."""
    found = []
    if v.get("algorithm", "sha256") not in SPEC_ALGORITHMS:
        found.append("eab:unsupported-algorithm")
    if "preimage_utf8" in v:
        raw = v["preimage_utf8"].encode("utf-8")
        obj = json.loads(raw)
        if raw != _spec_jcs(_integral(obj)):
            found.append("eab:non-canonical-bytes")
    else:
        obj = v["preimage"]
    if not isinstance(obj, dict):
        return found + ["eab:not-an-object"]
    if "domain" in obj and obj["domain"] != SPEC_DOMAIN:
        found.append("eab:domain")
    if "version" in obj and not _is_one(obj["version"]):
        found.append("eab:version")
    if set(obj) != set(SPEC_MEMBERS):
        found.append("eab:members")
    found.extend(f"eab:field:{name}" for name in SPEC_FIELDS if name in obj and not _good_field(obj[name]))
    return found


def _integral(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: (int(x) if type(x) is float and x.is_integer() else x) for k, x in obj.items()}
    return obj


def repair(v: dict[str, Any], category: str) -> dict[str, Any]:
    """The condition-removed mutant: `v` with the one defect `category` taken out."""
    m = copy.deepcopy(v)
    for key in ("binding", "bindings", "jcs_utf8", "unchecked_bindings", "unchecked_jcs_utf8"):
        m.pop(key, None)
    if category == "eab:unsupported-algorithm":
        m["algorithm"] = "sha256"
        return m
    if category == "eab:non-canonical-bytes":
        m["preimage_utf8"] = _spec_jcs(_integral(json.loads(m["preimage_utf8"]))).decode("utf-8")
        return m
    obj = json.loads(m.pop("preimage_utf8")) if "preimage_utf8" in m else m["preimage"]
    if category == "eab:domain":
        obj["domain"] = SPEC_DOMAIN
    elif category == "eab:version":
        obj["version"] = 1
    elif category == "eab:members":
        for name in [k for k in obj if k not in SPEC_MEMBERS]:
            del obj[name]
        for name in SPEC_MEMBERS:
            obj.setdefault(name, {"domain": SPEC_DOMAIN, "version": 1}.get(name, "x"))
    elif category.startswith("eab:field:"):
        obj[category[len("eab:field:") :]] = "x"
    m["preimage"] = obj
    return m


def _expected_after(m: dict[str, Any]) -> dict[str, Any]:
    """A mutant's expectation: accept with the spec's bytes and binding when no defect is left."""
    if defects(m):
        return m
    obj = json.loads(m["preimage_utf8"]) if "preimage_utf8" in m else m["preimage"]
    jcs = _spec_jcs(_integral(obj))
    algorithm = m.get("algorithm", "sha256")
    m["expected"] = "accept"
    m["jcs_utf8"] = jcs.decode("utf-8")
    m["bindings"] = {algorithm: algorithm + ":" + hex_digest(jcs, algorithm)}
    return m


# ---- running a vector ------------------------------------------------------------------------


def run_vector(name: str, v: dict[str, Any]) -> VectorOutcome:
    out = VectorOutcome(name, "eab", v.get("expected") != "accept", v.get("reason"))
    try:
        _run(v, out)
    except Exception as exc:  # a defect of the implementation: report, never crash the run
        out.fail(f"raised {type(exc).__name__}: {exc}")
    return out


def _run(v: dict[str, Any], out: VectorOutcome) -> None:
    data: Any = v["preimage_utf8"].encode("utf-8") if "preimage_utf8" in v else v["preimage"]
    expected = v["expected"]
    pinned: dict[str, str] = dict(v.get("bindings") or {})
    if "binding" in v:
        pinned[v["algorithm"]] = v["binding"]
    algorithms = [v["algorithm"]] if "algorithm" in v else (list(pinned) or ["sha256"])
    for algorithm in algorithms:
        out.eq(f"disposition under {algorithm}", eab.classify(data, algorithm).value, expected)
    if expected == "accept":
        fields = eab.parse_preimage(data)
        out.eq("preimage bytes", eab.preimage(*fields), v["jcs_utf8"].encode("utf-8"))
        for algorithm, want in pinned.items():
            out.eq(f"{algorithm} binding", eab.binding(*fields, algorithm=algorithm), want)
            out.true(f"{algorithm} binding verifies", eab.verify(want, data))
        return
    found = defects(v)
    if not out.true("the runner finds the defect of a refused vector", bool(found)):
        return
    if "eab:unsupported-algorithm" in found:
        named = {n: data[n] for n in SPEC_FIELDS} if isinstance(data, dict) else {}  # binding's parameters
        if (
            out.refuses(
                "binding under the algorithm",
                lambda: eab.binding(**named, algorithm=v["algorithm"]),
                UnsupportedAlgorithmError,
            )
            is not None
        ):
            out.fired.add("eab:unsupported-algorithm")
    others = [c for c in found if c != "eab:unsupported-algorithm"]
    if others:
        if out.refuses("parse_preimage", lambda: eab.parse_preimage(data), ActionBindingError) is not None:
            out.fired.update(others)
        for other in [*pinned.values(), *(v.get("unchecked_bindings") or {}).values()]:
            try:
                accepted = eab.verify(other, data)
            except FastJCSError:
                accepted = False
            out.true(f"{other[:14]}... does not verify against the refused preimage", not accepted)


def probe(name: str, v: dict[str, Any], category: str) -> ProbeOutcome:
    mutant = _expected_after(repair(v, category))
    outcome = run_vector(name, mutant)
    if category in outcome.fired:
        return ProbeOutcome(category, name, "repair", False, "the mutant still fires the check")
    if not outcome.passed:
        return ProbeOutcome(
            category,
            name,
            "repair",
            False,
            "the mutant does not pass: " + "; ".join(outcome.failures or ["no assertion"]),
        )
    return ProbeOutcome(category, name, "repair", True)


def load(path: Path) -> list[tuple[str, dict[str, Any]]]:
    doc = read_document(path.read_bytes())
    if not is_eab_file(doc):
        raise ValueError(f"{path}: not an EAB vector file (a `vectors` list of preimages)")
    return [(f"{path.name}#{v.get('id', i)}", v) for i, v in enumerate(doc["vectors"])]


def run_vectors(paths: list[Path], label: str, *, probes: bool = True) -> RunSummary:
    outcomes: list[VectorOutcome] = []
    probe_outcomes: list[ProbeOutcome] = []
    unreadable: list[str] = []
    for path in paths:
        try:
            vectors = load(path)
        except (OSError, ValueError) as exc:
            unreadable.append(f"{path.name} (unreadable: {exc})")
            continue
        for name, v in vectors:
            out = run_vector(name, v)
            outcomes.append(out)
            if probes and out.passed:
                probe_outcomes.extend(probe(name, v, c) for c in sorted(out.fired))
    return RunSummary(label, "fastjcs", outcomes, unreadable, probe_outcomes)
