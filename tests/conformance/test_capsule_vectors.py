"""Agent Action Capsule vectors (upstream `vectors/capsule/`, read in place from ../shared/upstream/aac):
every file claimed, every case passing, every fired check flipping on its condition-removed
mutant, and three mutant implementations (format 3 accepted, explicit jcs-n accepted,
provenance_mode ignored) each caught by named cases (issue 34)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import UPSTREAM

from fastjcs.conformance import capsule_vectors
from fastjcs.profiles import capsule

AAC = UPSTREAM / "aac" / "vectors" / "capsule"
pytestmark = pytest.mark.skipif(not AAC.is_dir(), reason=f"no {AAC}")


def _failed(summary) -> set[str]:
    return {v.name for v in summary.failed}


def test_every_file_claimed_every_case_passing_every_probe_flipping(backend):
    summary = capsule_vectors.run_vectors(AAC)
    assert summary.ok, summary.report()
    assert summary.unclaimed == [] and summary.ignored == ["README.md"]  # the README is not a vector
    assert summary.counts() == {"capsule": 14, "capsule-manifest": 1, "capsule-sums": 1}
    names = {v.name for v in summary.vectors}
    assert {"pos-v4-jcs-chain-committed", "derived:neg-v3-format-version-unsupported",
            "derived:neg-v4-canonicalization-jcs-n", "derived:neg-v2-canonicalization-absent"} <= names  # fmt: skip
    assert len(summary.probes) == 11 and all(p.flipped for p in summary.probes)
    fired = summary.categories()
    assert fired["capsule:1:block-not-object"] == ["neg-block-not-object-provenance-mode"]
    assert fired["capsule:1:canonicalization-withdrawn"] == ["derived:neg-v4-canonicalization-jcs-n"]


def _rewriting(change):
    def verify(data, **kw):
        value = capsule.parse_capsule(data) if isinstance(data, (bytes, str)) else dict(data)
        return capsule.verify_capsule(change(value), **kw)

    return verify


def test_a_verifier_that_accepts_format_3_is_caught():
    accept_3 = _rewriting(lambda c: {**c, "format_version": "4"} if c.get("format_version") == "3" else c)
    assert _failed(capsule_vectors.run_vectors(AAC, verify=accept_3)) == {"derived:neg-v3-format-version-unsupported"}


def test_a_verifier_that_accepts_explicit_jcs_n_is_caught():
    accept = _rewriting(lambda c: {**c, "canonicalization_id": "jcs"} if c.get("canonicalization_id") == "jcs-n" else c)
    assert _failed(capsule_vectors.run_vectors(AAC, verify=accept)) == {"derived:neg-v4-canonicalization-jcs-n"}


def test_a_verifier_that_ignores_provenance_mode_is_caught(monkeypatch):
    monkeypatch.setattr(capsule, "_BLOCKS", tuple(b for b in capsule._BLOCKS if b != "provenance_mode"))
    monkeypatch.setattr(capsule, "_provenance", lambda c, report: (None, None))
    assert _failed(capsule_vectors.run_vectors(AAC)) == {"neg-block-not-object-provenance-mode"}


def test_a_file_nobody_claims_or_a_pin_that_disagrees_fails_the_run(tmp_path):
    root = tmp_path / "capsule"
    shutil.copytree(AAC, root)
    (root / "notes.json").write_text("{}", encoding="utf-8")
    summary = capsule_vectors.run_vectors(root)
    assert not summary.ok and summary.unclaimed == ["notes.json"]
    (root / "notes.json").unlink()
    case = root / "pos-v4-jcs-chain-committed" / "expected.json"
    case.write_bytes(case.read_bytes() + b"\n")  # the case still passes; its SHA256SUMS pin does not
    assert _failed(capsule_vectors.run_vectors(root)) == {"SHA256SUMS"}


def test_a_wrong_expectation_fails_its_case(tmp_path):
    root = tmp_path / "capsule"
    shutil.copytree(AAC, root)
    (root / "SHA256SUMS").unlink()
    case = root / "neg-field-not-string-domain-number" / "expected.json"
    doc = json.loads(case.read_bytes())
    doc["findings"][0]["check"] = 2
    case.write_text(json.dumps(doc), encoding="utf-8")
    assert _failed(capsule_vectors.run_vectors(root)) == {"neg-field-not-string-domain-number"}
