"""Write fastjcs's own CPB vectors (src/fastjcs/conformance/suites/cpb/) with expected values computed independently.

    python vectors/gen_cpb.py [--check] [--out DIR]

rewrites src/fastjcs/conformance/suites/cpb/ (a test checks it is up to date).

Nothing here imports fastjcs. Expected bytes come from `rfc8785.dumps` (the reference RFC 8785
implementation) over a ten-line jcs-n normalizer written from docs/contract.md ("jcs-n"), digests from pycryptodome;
raw inputs whose tokens matter (-0, 1.0, duplicate names) are typed by hand as text. The file formats
are the upstream suite's (jcs-n kats, jcs vs jcs-n divergence, cpb-check, typed references, registry
look-ups), plus `registry_snapshot`/`registry_pinned`/`current_registry_snapshot` on typed-reference
vectors that resolve against a snapshot file instead of an inline entry.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import rfc8785
from _gen import sync  # vectors/_gen.py: write or --check the files
from Crypto.Hash import SHA256

OUT = Path(__file__).resolve().parents[1] / "src" / "fastjcs" / "conformance" / "suites" / "cpb"
SPEC = "fastjcs docs/contract.md (jcs-n); draft-mih-sokolov-scitt-payload-binding-01"


def sha(data: bytes) -> str:
    return SHA256.new(data).hexdigest()


def normalize(value: Any) -> Any:
    """jcs-n (docs/contract.md), written independently: drop null/[]/{} members, children first; keep elements."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = normalize(v)
            if v is None or v == [] or v == {}:
                continue
            out[k] = v
        return out
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def jcs_n(value: Any, exclusion: Iterable[str] = ()) -> bytes:
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in set(exclusion)}
    return rfc8785.dumps(normalize(value))


def dump(doc: dict[str, Any], raw: dict[str, str] | None = None) -> str:
    """The vector as JSON text; members in `raw` are written as the given JSON text verbatim."""
    raw = raw or {}
    parts = []
    for key, value in doc.items():
        text = raw[key] if key in raw else json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


FILES: dict[str, str] = {}


def kat(
    name: str,
    description: str,
    value: Any = None,
    exclusion: Iterable[str] = (),
    *,
    raw: str | None = None,
    algorithm: str = "jcs-n",
    failure_reason: str | None = None,
    note: str | None = None,
    expected: str | None = None,
) -> None:
    doc: dict[str, Any] = {
        "id": f"fastjcs-{name}",
        "description": description,
        "algorithm": algorithm,
        "spec_ref": SPEC,
    }
    if failure_reason:
        doc.update(must_fail=True, failure_reason=failure_reason)
    doc["input"] = json.loads(raw) if raw is not None else value
    doc["exclusion_set"] = list(exclusion)
    if expected is not None:  # typed by hand from the spec; cross-checked against rfc8785 here
        pre = expected.encode("utf-8")
        assert algorithm == "jcs" and raw is not None and rfc8785.dumps(json.loads(raw)) == pre
        doc.update(pre_image=expected, pre_image_bytes_hex=pre.hex(), digest=sha(pre))
    elif not failure_reason:
        pre = (
            jcs_n(value, exclusion)
            if algorithm == "jcs-n"
            else rfc8785.dumps(
                {k: v for k, v in value.items() if k not in set(exclusion)} if isinstance(value, dict) else value
            )
        )
        if algorithm == "jcs-n":
            doc["normalized"] = normalize(
                {k: v for k, v in value.items() if k not in set(exclusion)} if isinstance(value, dict) else value
            )
        doc.update(pre_image=pre.decode("utf-8"), pre_image_bytes_hex=pre.hex(), digest=sha(pre))
    if note:
        doc["note"] = note
    FILES[f"jcs-n/{name}.json"] = dump(doc, {"input": raw} if raw is not None else None)


def divergence(name: str, description: str, raw: str, *, jcs_n_failure: str | None = None) -> None:
    action = json.loads(raw)
    jcs_pre = rfc8785.dumps(action)
    doc: dict[str, Any] = {
        "id": f"fastjcs-{name}",
        "diverge": True,
        "description": description,
        "action": action,
        "jcs": {"pre_image": jcs_pre.decode(), "pre_image_bytes_hex": jcs_pre.hex(), "digest": sha(jcs_pre)},
    }
    if jcs_n_failure:
        doc["jcs_n_must_fail"] = True
        doc["jcs_n"] = {"must_fail": True, "failure_reason": jcs_n_failure}
    else:
        pre = jcs_n(action)
        doc["jcs_n"] = {"pre_image": pre.decode(), "pre_image_bytes_hex": pre.hex(), "digest": sha(pre)}
    FILES[f"divergence/{name}.json"] = dump(doc, {"action": raw})


def check(name: str, description: str, *, raw: str, violations: list, note: str | None = None) -> None:
    doc: dict[str, Any] = {
        "id": f"fastjcs-check-{name}",
        "description": description,
        "expected_verdict": "non-conforming" if violations else "verified",
    }
    if violations:
        doc["expected_violations"] = [{"path": p, "rule": r} for p, r in violations]
    doc["record_raw"] = raw
    if note:
        doc["note"] = note
    FILES[f"cpb-check/{name}.json"] = dump(doc)


# ---- registry snapshots (snapshot_sha256 as upstream computes it: SHA-256 of
# json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":")), not of the JCS bytes) ----

MACHINE_MANDATE = {  # copied from the upstream cpb-registry.json
    "reference": "tyche-institute/machine-mandate @ 524e6a3129b7f1ab850dd9471967458d3cb6f4cd",
    "status": "owner-confirmed",
    "digest_contexts": [
        {
            "purpose": "identifier",
            "profile_version": "N/A",
            "algorithm": "as-transmitted",
            "field_set": "byte-boundary selector",
            "exclusion_set": "N/A (as-transmitted has no field set)",
            "domain_separation": "none",
            "pre_image_encoding": "N/A (no separate encoding step)",
            "representation": "bare 64-char lowercase hex",
        },
        {
            "purpose": "equivalence",
            "profile_version": "N/A",
            "algorithm": "jcs",
            "field_set": "{action_id, outcome}, closed",
            "exclusion_set": "none",
            "domain_separation": "none",
            "pre_image_encoding": "JCS UTF-8 octets (per jcs)",
            "representation": "sha256: + 64-char lowercase hex, as carried in the in-document action_hash claim",
        },
    ],
}
LATE_TYPE = {
    "reference": "fastjcs test entry",
    "status": "provisional",
    "digest_contexts": [
        {
            "purpose": "identifier",
            "profile_version": "v1",
            "algorithm": "jcs-n",
            "field_set": "all fields",
            "exclusion_set": "{late_id}",
            "domain_separation": "none",
            "pre_image_encoding": "JCS UTF-8 octets (per jcs-n)",
            "representation": "64-char lowercase hex",
        }
    ],
}


def snapshot(name: str, with_late_type: bool) -> None:
    algorithms = {
        "jcs-n": {
            "description": "jcs-n",
            "reference": "draft-mih-sokolov-scitt-payload-binding",
            "status": "Registered",
        },
        "jcs": {"description": "jcs", "reference": "RFC 8785 \u00a73", "status": "standards-referenced"},
        "as-transmitted": {"description": "as-transmitted", "reference": "draft", "status": "owner-confirmed"},
        "cde-n": {"description": "withdrawn", "reference": "draft", "status": "withdrawn"},
        "cde-x": {"description": "a held name", "reference": "fastjcs test entry", "status": "Reserved"},
        "prov-alg": {"description": "a provisional entry", "reference": "fastjcs test entry", "status": "provisional"},
        "third-alg": {
            "description": "a third-party entry",
            "reference": "fastjcs test entry",
            "status": "third-party-documented",
        },
    }
    types = {
        "machine-mandate": MACHINE_MANDATE,
        "retired-type": {"reference": "fastjcs test entry", "status": "withdrawn", "digest_contexts": []},
    }
    if with_late_type:
        types["late-type"] = LATE_TYPE
    doc: dict[str, Any] = {"schema_version": "1", "canonicalization_algorithms": algorithms, "artifact_types": types}
    doc["snapshot_sha256"] = sha(json.dumps(doc, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode())
    FILES[f"registry/{name}.json"] = dump(doc)


def lookup(
    name: str,
    description: str,
    ident: str,
    verdict: str,
    *,
    snapshot_name: str = "snapshot-fastjcs.json",
    pinned: bool = False,
    current: str | None = None,
    table: str = "algorithm_id",
    mutant: dict[str, Any] | None = None,
) -> None:
    doc: dict[str, Any] = {
        "id": f"fastjcs-lookup-{name}",
        "kind": "registry-lookup",
        "description": description,
        "snapshot": snapshot_name,
        table: ident,
        "pinned": pinned,
    }
    if current:
        doc["current"] = current
    doc["expected_verdict"] = verdict
    if mutant:
        doc["mutant"] = mutant
    FILES[f"registry/lookup-{name}.json"] = dump(doc)


def typed_ref(
    name: str,
    description: str,
    reference: dict[str, Any],
    payload: dict[str, Any],
    *,
    entry: dict[str, Any] | None = None,
    failure_reason: str | None = None,
    registry: dict[str, Any] | None = None,
    mutant: dict[str, Any] | None = None,
) -> None:
    doc: dict[str, Any] = {"id": f"fastjcs-typed-ref-{name}", "description": description, "spec_ref": SPEC}
    if failure_reason:
        doc.update(must_fail=True, failure_reason=failure_reason)
    if entry is not None:
        doc["artifact_type_registry_entry"] = entry
        pre = jcs_n(payload, entry["exclusion_set"])
        doc["cited_artifact"] = {"payload": payload, "pre_image": pre.decode(), "derived_id": sha(pre)}
    else:
        doc.update(registry or {})
        doc["cited_artifact"] = {"payload": payload}
    doc["typed_reference"] = reference
    if mutant:
        doc["mutant"] = mutant
    FILES[f"typed-refs/{name}.json"] = dump(doc)


def build() -> None:
    # ---- jcs-n known answers, positive ----
    kat(
        "kat-01-astral-vs-private-use",
        "UTF-16 order where it differs from code-point order: U+1F602 (D83D DE02) "
        "sorts before U+E000 and U+FB33, whose code points are lower.",
        {"\ue000": "private use", "\U0001f602": "astral", "\ufb33": "dalet", "a": "ascii"},
        note="A code-point sort puts the astral key last.",
    )
    kat(
        "kat-02-three-level-cascade",
        "A member whose value becomes {} after its own members go is removed, "
        "at every level: three levels collapse, only `keep` survives.",
        {"keep": "x", "l1": {"l2": {"l3": {"gone": None, "also": []}, "empty": {}}}},
    )
    kat(
        "kat-03-arrays-of-empties",
        "Array elements are never removed, but normalization recurses into them; "
        "an array member that is [] is removed, one holding [] is not.",
        {"a": [None, [], {}, {"x": None}, [{}]], "b": [[]], "c": []},
    )
    kat("kat-04-top-level-becomes-empty", "A top-level object may normalize to {}.", {"a": {"b": None}, "c": []})
    kat(
        "kat-05-exclusion-key-also-nested",
        "The agent-action-capsule exclusion set {capsule_id, chain} strips "
        "top-level members only: the nested capsule_id stays; the nested chain [] goes by normalization.",
        {"capsule_id": "c0ffee", "chain": ["prev"], "action": {"capsule_id": "inner", "chain": []}, "n": 1},
        ["capsule_id", "chain"],
    )
    kat(
        "kat-06-strings-not-nfc-normalized",
        "Output strings and names keep their code points: a decomposed "
        "A + U+030A stays decomposed; a precomposed U+00C5 stays precomposed.",
        {"s1": "A\u030a", "s2": "\u00c5", "A\u030a": "decomposed name"},
    )
    kat(
        "kat-07-safe-integer-boundaries",
        "The integer grammar and range at their edges.",
        {"max": 9007199254740991, "min": -9007199254740991, "zero": 0, "neg": -1},
    )
    # ---- jcs-n known answers, MUST-FAIL (raw text: the tokens are the point) ----
    kat(
        "kat-08-must-fail-nfc-duplicate-nested",
        "U+00C5 and A + U+030A are equal after NFC: duplicate names in a nested object, written as escapes.",
        raw='{"outer": {"inner": {"\\u00c5": 1, "A\\u030a": 2}}}',
        failure_reason="duplicate_key",
    )
    kat(
        "kat-09-must-fail-nfc-duplicate-literal",
        "The same pair at the top level, as literal UTF-8.",
        raw='{"\u00c5": 1, "A\u030a": 2}',
        failure_reason="duplicate_key",
    )
    kat(
        "kat-10-must-fail-kelvin-sign",
        "U+212A KELVIN SIGN normalizes (NFC, a singleton) to ASCII K: a duplicate.",
        raw='{"K": 1, "\\u212a": 2}',
        failure_reason="duplicate_key",
    )
    kat(
        "kat-11-must-fail-negative-zero-in-array",
        "-0 inside an array; json.loads would read it as 0.",
        raw='{"a": [0, -0]}',
        failure_reason="invalid_wire_number_token",
    )
    kat(
        "kat-12-must-fail-one-point-zero",
        "1.0 has an integer value but a float token.",
        raw='{"n": 1.0}',
        failure_reason="float_in_digest_bearing_field",
    )
    kat(
        "kat-13-must-fail-uppercase-exponent",
        "1E0 is a float token.",
        raw='{"n": 1E0}',
        failure_reason="float_in_digest_bearing_field",
    )
    kat(
        "kat-14-must-fail-unsafe-negative",
        "-(2^53) is outside +/-(2^53-1).",
        raw='{"n": -9007199254740992}',
        failure_reason="unsafe_integer_in_digest_bearing_field",
    )
    # ---- jcs: RFC 8785 as is ----
    kat(
        "kat-15-jcs-keeps-everything",
        "Under jcs, null, [] and {} members stay, floats are rendered, -0 is 0.",
        raw='{"a": null, "b": [], "c": {}, "d": 1.5, "e": -0}',
        algorithm="jcs",
        expected='{"a":null,"b":[],"c":{},"d":1.5,"e":0}',
    )
    # ---- jcs vs jcs-n ----
    divergence(
        "01-nfc-distinct-under-jcs",
        "Under jcs the two names are distinct (sorted by UTF-16: the "
        "decomposed one first); under jcs-n they are duplicates.",
        '{"\u00c5": 1, "A\u030a": 2}',
        jcs_n_failure="duplicate_key",
    )
    divergence("02-cascade-to-empty", "jcs keeps the nested null; jcs-n cascades to {}.", '{"a": {"b": null}}')
    # ---- the checker ----
    check(
        "01-array-elements-exempt",
        "Array elements are not members: null, [] and {} elements conform.",
        raw='{"a": [null, [], {}], "b": [[null]]}',
        violations=[],
    )
    check(
        "02-empty-in-object-in-array",
        "An object inside an array is checked.",
        raw='{"a": [{"b": []}]}',
        violations=[('$["a"][0]["b"]', "P")],
    )
    check(
        "03-several-in-document-order",
        "Every violation, in document order, both rules.",
        raw='{"a": null, "b": 1.5, "c": {"d": {}}}',
        violations=[('$["a"]', "P"), ('$["b"]', "R"), ('$["c"]["d"]', "P")],
    )
    check(
        "04-nfc-duplicate-nested",
        "An NFC-equal duplicate inside a nested object; the path names the later member by its own (decomposed) name.",
        raw='{"outer": {"inner": {"\\u00c5": 1, "A\\u030a": 2}}}',
        violations=[('$["outer"]["inner"]["A\u030a"]', "R")],
    )
    check(
        "05-escaped-name-in-path",
        "Paths write names as JSON strings.",
        raw='{"a\\"b": null}',
        violations=[('$["a\\"b"]', "P")],
    )
    check(
        "06-unsafe-integer",
        "An integer token outside +/-(2^53-1) breaks the jcs-n wire rule.",
        raw='{"n": 9007199254740992}',
        violations=[('$["n"]', "R")],
        note="fastjcs reads R as every jcs-n wire rule on number tokens, the range included.",
    )
    check(
        "07-negative-zero-float-and-exponent",
        "-0.0 and 1E2 are not integer tokens.",
        raw='{"n": -0.0, "m": 1E2}',
        violations=[('$["n"]', "R"), ('$["m"]', "R")],
    )
    # ---- registries ----
    snapshot("snapshot-fastjcs", with_late_type=False)
    snapshot("snapshot-current", with_late_type=True)
    lookup(
        "withdrawn",
        "cde-n is withdrawn: not live.",
        "cde-n",
        "withdrawn",
        mutant={"algorithm_id": "jcs-n", "expected_verdict": "verified"},
    )
    lookup(
        "held",
        "A Reserved (legacy) name is held: not live.",
        "cde-x",
        "held",
        mutant={"algorithm_id": "jcs", "expected_verdict": "verified"},
    )
    lookup("provisional-is-live", "A provisional entry is live.", "prov-alg", "verified")
    lookup("third-party-is-live", "A third-party-documented entry is live.", "third-alg", "verified")
    lookup("legacy-registered", "Legacy `Registered` reads as owner-confirmed.", "jcs-n", "verified")
    lookup(
        "pinned-and-current-lack-it",
        "A pinned verifier that also holds the current registry, where the id is absent too, can say unknown-id.",
        "not-a-real-alg",
        "unknown-id",
        pinned=True,
        current="snapshot-current.json",
        mutant={"algorithm_id": "jcs-n", "expected_verdict": "verified"},
    )
    lookup(
        "type-withdrawn",
        "A withdrawn artifact type.",
        "retired-type",
        "withdrawn",
        table="artifact_type",
        mutant={"artifact_type": "machine-mandate", "expected_verdict": "verified"},
    )
    lookup(
        "type-unknown-to-snapshot",
        "An artifact type registered after the pinned snapshot.",
        "late-type",
        "id-unknown-to-snapshot",
        pinned=True,
        current="snapshot-current.json",
        table="artifact_type",
        mutant={"snapshot": "snapshot-current.json", "expected_verdict": "verified"},
    )
    # ---- typed references ----
    entry = {
        "name": "example-doc",
        "digest_context": "jcs-n; exclusion set {doc_id}; 64-char lowercase hex",
        "algorithm": "jcs-n",
        "exclusion_set": ["doc_id"],
        "representation": "bare_hex",
    }
    payload = {"doc_id": "d-1", "subject": "WS-42", "scope": "read"}
    good = sha(jcs_n(payload, ["doc_id"]))
    for name, alg in (
        ("01-digest-alg-lowercase", "sha-256"),
        ("02-digest-alg-no-hyphen", "SHA256"),
        ("03-digest-alg-trailing-space", "SHA-256 "),
    ):
        typed_ref(
            name,
            f"digest_alg {alg!r} is not 'SHA-256' byte for byte (the draft compares exactly; no case "
            "folding, no trimming).",
            {"type": "example-doc", "digest_alg": alg, "digest": good},
            payload,
            entry=entry,
            failure_reason="digest_alg_inconsistent_with_registered_context",
        )
    typed_ref(
        "04-digest-leading-tab",
        "A digest led by a tab is not bare hex.",
        {"type": "example-doc", "digest_alg": "SHA-256", "digest": "\t" + good},
        payload,
        entry=entry,
        failure_reason="representation_mismatch_surrounding_whitespace",
    )
    typed_ref(
        "05-digest-uppercase-hex",
        "Bare hex is lowercase.",
        {"type": "example-doc", "digest_alg": "SHA-256", "digest": good.upper()},
        payload,
        entry=entry,
        failure_reason="representation_mismatch",
    )
    typed_ref(
        "06-extra-fields-ignored",
        "Fields other than type, purpose, digest_alg and digest are ignored.",
        {"type": "example-doc", "digest_alg": "SHA-256", "digest": good, "comment": "x", "uri": None},
        payload,
        entry=entry,
    )
    mandate = {"action_id": "a-1", "outcome": "done"}
    prefixed = "sha256:" + sha(rfc8785.dumps(mandate))
    reg = {"registry_snapshot": "../registry/snapshot-fastjcs.json"}
    typed_ref(
        "07-prefixed-representation",
        "machine-mandate's equivalence context: jcs, rendered sha256:<hex>.",
        {"type": "machine-mandate", "purpose": "equivalence", "digest_alg": "SHA-256", "digest": prefixed},
        mandate,
        registry=reg,
    )
    typed_ref(
        "08-purpose-required",
        "machine-mandate registers two contexts: a reference without a purpose resolves to none.",
        {"type": "machine-mandate", "digest_alg": "SHA-256", "digest": prefixed},
        mandate,
        registry=reg,
        failure_reason="typed_ref_purpose_required",
        mutant={
            "typed_reference": {
                "type": "machine-mandate",
                "purpose": "equivalence",
                "digest_alg": "SHA-256",
                "digest": prefixed,
            }
        },
    )
    late = {"late_id": "x", "k": "v"}
    late_digest = sha(jcs_n(late, ["late_id"]))
    late_ref = {"type": "late-type", "digest_alg": "SHA-256", "digest": late_digest}
    typed_ref(
        "09-type-unknown-to-snapshot",
        "late-type is registered now, after the snapshot the verifier is pinned to.",
        late_ref,
        late,
        failure_reason="typed_ref_type_unknown_to_snapshot",
        registry={**reg, "registry_pinned": True, "current_registry_snapshot": "../registry/snapshot-current.json"},
        mutant={"registry_snapshot": "../registry/snapshot-current.json", "registry_pinned": False},
    )
    typed_ref(
        "10-type-unknown",
        "An authoritative registry without the type: not registered at all.",
        late_ref,
        late,
        failure_reason="typed_ref_type_unknown",
        registry=reg,
        mutant={"registry_snapshot": "../registry/snapshot-current.json"},
    )


def main(argv: list) -> int:
    build()
    # contexts/ is written by gen_contexts.py
    return sync(FILES, OUT, argv, others=("contexts",))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
