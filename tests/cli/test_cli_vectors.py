"""`fastjcs vectors`: suite detection, summaries, exit codes; the EAB runner's probes and mutants."""

from __future__ import annotations

import json
import shutil

import pytest
from _cli import fastjcs, lines
from conftest import SUITES, UPSTREAM

from fastjcs import eab
from fastjcs.conformance import eab_vectors as _eab_vectors

OURS_CPB = SUITES / "cpb"
OURS_EAB = SUITES / "eab"
UPSTREAM_EAB = UPSTREAM / "execution-action-binding-v1-vectors.json"


def test_our_cpb_suite_passes_with_probes():
    p = fastjcs("vectors", OURS_CPB)
    assert p.returncode == 0, p.stdout
    out = lines(p.stdout)
    assert out[0] == f"{OURS_CPB}: 62/62 vectors passed (fastjcs, draft -01)"  # the draft it was written for
    assert out[1].startswith("mutation probes: ") and "0/" not in out[1]
    assert out[-1].startswith("OK: 1 suite(s), 62 vectors")


def test_eab_directory_and_file_are_detected():
    p = fastjcs("vectors", OURS_EAB, "--json")
    assert p.returncode == 0
    suite = json.loads(p.stdout)["suites"][0]
    assert suite["by_handler"] == {"eab": suite["vectors"]} and suite["vectors"] > 30
    assert suite["probes"] and all(x["flipped"] for x in suite["probes"])
    if UPSTREAM_EAB.exists():
        p = fastjcs("vectors", UPSTREAM_EAB)
        assert p.returncode == 0 and lines(p.stdout)[0].endswith("6/6 vectors passed (fastjcs)")


def test_default_runs_the_shipped_suites_and_upstream_only_when_named():
    p = fastjcs("vectors", "--no-probes", cwd=OURS_EAB)
    assert p.returncode == 0, p.stdout
    suites = [line.split(":")[0] for line in lines(p.stdout) if "vectors passed" in line]
    assert suites == [str(OURS_CPB), str(OURS_EAB)]  # never found by walking up


def test_outside_the_checkout_the_shipped_suites_run(tmp_path):
    p = fastjcs("vectors", cwd=tmp_path)
    assert p.returncode == 0, p.stdout
    assert lines(p.stdout)[-1].startswith("OK: 2 suite(s)")
    p = fastjcs("vectors", tmp_path / "absent")
    assert p.returncode == 2


def test_a_wrong_pinned_digest_fails_the_suite(tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(OURS_CPB / "jcs-n", suite)
    path = suite / "kat-02-three-level-cascade.json"
    doc = json.loads(path.read_text("utf-8"))
    doc["digest"] = "0" * 64
    path.write_text(json.dumps(doc))
    p = fastjcs("vectors", suite)
    assert p.returncode == 1
    assert any(
        line.startswith("FAIL kat-02-three-level-cascade.json: ") and "digest" in line for line in lines(p.stdout)
    )
    assert lines(p.stdout)[-1].startswith("FAILED: ")


def test_an_unclaimed_file_fails_the_suite(tmp_path):
    shutil.copytree(OURS_CPB / "cpb-check", tmp_path / "suite")
    (tmp_path / "suite" / "mystery.json").write_text('{"what": "no handler reads this"}')
    p = fastjcs("vectors", tmp_path / "suite")
    assert p.returncode == 1
    assert "UNCLAIMED mystery.json: no handler reads this file" in lines(p.stdout)


@pytest.mark.parametrize("where", ["empty directory", "/dev/null", "second of two"])
def test_nothing_compared_is_exit_2(tmp_path, where):
    """Finding 15 of issue 23: `fastjcs vectors EMPTY_DIR` and `vectors /dev/null` printed
    "OK: ... 0 vectors" and exit 0. A suite of no vector compared nothing: one line, exit 2, as
    crosscheck says; the same when it is one of several suites."""
    (tmp_path / "empty").mkdir()
    empty = "/dev/null" if where == "/dev/null" else str(tmp_path / "empty")
    paths = [OURS_EAB, empty] if where == "second of two" else [empty]
    for extra in ([], ["--json"]):
        p = fastjcs("vectors", *paths, *extra)
        assert (p.returncode, p.stdout) == (2, b""), p
        assert p.stderr.decode() == f"fastjcs vectors: {empty}: no vectors found (nothing compared)\n"


def test_a_wrong_eab_binding_fails(tmp_path):
    doc = json.loads((OURS_EAB / "eab-accept.json").read_text("ascii"))
    doc["vectors"][0]["bindings"]["sha384"] = "sha384:" + "0" * 96
    path = tmp_path / "eab.json"
    path.write_text(json.dumps(doc))
    p = fastjcs("vectors", path)
    assert p.returncode == 1
    assert any(line.startswith("FAIL eab.json#FJ-EAB-A01") and "sha384 binding" in line for line in lines(p.stdout))


# ---- the EAB runner in process: a mutant implementation per check ---------------------------------

EAB_FILES = [OURS_EAB / "eab-accept.json", OURS_EAB / "eab-reject.json"]


def _failed() -> set:
    summary = _eab_vectors.run_vectors(EAB_FILES, "ours")
    return {v.name for v in summary.failed} | {"probe:" + c for c in summary.assertion_free}


def test_eab_runner_passes_unmutated(backend):
    summary = _eab_vectors.run_vectors(EAB_FILES, "ours")
    assert summary.ok and len(summary.vectors) == 39
    assert {p.category for p in summary.probes} >= {
        "eab:domain",
        "eab:version",
        "eab:members",
        "eab:non-canonical-bytes",
        "eab:unsupported-algorithm",
        "eab:field:agent_id",
        "eab:field:action_scope",
    }


@pytest.mark.parametrize(
    "name, attribute, mutant, caught",
    [
        ("version not checked", "_is_json_one", lambda value: True, "R"),
        (
            "domain and version not hashed",
            "_v1_bytes",
            lambda fields: fastjcs.dumps(dict(zip(eab.FIELDS, fields))),
            "A",
        ),
        ("empty fields allowed", "_field", lambda name, value: value, "R"),
        ("algorithm ignored", "check_algorithm", lambda algorithm: "sha256", "R"),
    ],
)
def test_eab_runner_catches_mutants(monkeypatch, name, attribute, mutant, caught):
    monkeypatch.setattr(eab.bindings, attribute, mutant)
    failed = _failed()
    assert any(f"#FJ-EAB-{caught}" in n for n in failed), f"{name}: not caught"


def test_a_probe_that_cannot_flip_is_assertion_free(monkeypatch):
    # An implementation that refuses every preimage: each refused vector passes, but no repair
    # makes it accept, so every fired category is reported assertion-free.
    monkeypatch.setattr(eab.bindings, "_check_object", lambda obj: (_ for _ in ()).throw(eab.ActionBindingError("no")))
    summary = _eab_vectors.run_vectors([OURS_EAB / "eab-reject.json"], "ours")
    assert not summary.ok and "eab:domain" in summary.assertion_free


AAC = UPSTREAM / "aac" / "vectors" / "capsule"


@pytest.mark.skipif(not AAC.is_dir(), reason=f"no {AAC}")
def test_the_agent_action_capsule_layout_is_claimed(tmp_path):
    p = fastjcs("vectors", AAC)
    assert p.returncode == 0, p.stdout
    out = lines(p.stdout)
    assert out[0] == f"{AAC}: 16/16 vectors passed (fastjcs, Agent Action Capsule profile)"
    assert out[-1] == "OK: 1 suite(s), 16 vectors, 11 mutation probes, 0 problem(s)"
    broken = tmp_path / "capsule"
    shutil.copytree(AAC, broken)
    (broken / "pos-v4-jcs-chain-committed" / "input.json").write_text("{}", encoding="utf-8")
    p = fastjcs("vectors", broken)
    assert p.returncode == 1 and any(line.startswith("FAIL pos-v4-jcs-chain-committed") for line in lines(p.stdout))
