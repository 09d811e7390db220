"""The CPB conformance suites: upstream (read in place from ../shared/upstream) and ours
(src/fastjcs/conformance/suites/cpb).

Every file is run by a handler on both backends; every MUST-FAIL vector must fire the check its
failure_reason maps to; every fired check must flip on its condition-removed mutant; and four
mutant implementations are each shown to be caught by named vectors.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SUITES, UPSTREAM

import fastjcs
from fastjcs import cpb, profiles
from fastjcs.conformance import cpb_handlers_text, cpb_mutants
from fastjcs.conformance import cpb_vectors as vectors
from fastjcs.core import python_backend as _python
from fastjcs.cpb._scan import format_path
from fastjcs.cpb.checker import CheckResult, Violation

UPSTREAM_VECTORS = UPSTREAM / "cpb-vectors"  # c33ce1a: written for draft -01 (jcs-n registered)
CURRENT = UPSTREAM / "cpb-current"  # the newest stored files (draft -06; PROVENANCE.md)
CURRENT_VECTORS = CURRENT / "vectors"
OURS = SUITES / "cpb"
MISSING = f"the upstream CPB suite is not at {UPSTREAM_VECTORS} (expected beside the repository)"
needs_upstream = pytest.mark.skipif(not UPSTREAM_VECTORS.is_dir(), reason=MISSING)
needs_current = pytest.mark.skipif(not CURRENT_VECTORS.is_dir(), reason=f"no {CURRENT_VECTORS}")
#: The draft each suite was written for: the older ones keep passing in their historical mode.
DRAFT = {UPSTREAM_VECTORS: "-01", OURS: "-01", CURRENT_VECTORS: "-06"}


def _params(root: Path) -> list:
    if not root.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING), id="missing")]
    return [pytest.param(p, id=p.relative_to(root).as_posix()) for p in vectors.iter_files(root)]


def _run_one(root: Path, path: Path) -> vectors.VectorOutcome:
    v = vectors.Vector.load(path, root)
    handler, out = vectors.run_vector(v, replace(vectors.FASTJCS, draft=DRAFT[root]))
    assert handler is not None, f"{out.name}: no handler claims this file"
    assert out.passed, f"{out.name}: " + "; ".join(out.failures or ["no assertion made"])
    if out.must_fail:
        assert out.fired, f"{out.name}: a MUST-FAIL vector fired no check"
    return out


# ---------------------------------------------------------------------------------------------------
# every file, on both backends
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", _params(UPSTREAM_VECTORS))
def test_upstream_vector(backend, path):
    _run_one(UPSTREAM_VECTORS, path)


@pytest.mark.parametrize("path", _params(OURS))
def test_our_vector(backend, path):
    _run_one(OURS, path)


@pytest.mark.parametrize("path", [p for p in _params(CURRENT_VECTORS) if p.values[0] is None or p.id.endswith(".json")])
def test_current_vector(backend, path):
    _run_one(CURRENT_VECTORS, path)


@needs_upstream
def test_upstream_suite_is_the_77_files_we_account_for():
    summary = vectors.run_vectors(UPSTREAM_VECTORS, probes=False, draft="-01")
    assert len(summary.vectors) + len(summary.unclaimed) == 77
    assert summary.unclaimed == []
    assert summary.counts() == {
        "cpb-check": 13,
        "domain-transform": 2,
        "assembled-preimage": 2,
        "derived-id": 3,
        "jcs-n-kat": 37,
        "typed-ref": 10,
        "profile-independence": 2,
        "registry-lookup": 2,
        "registry-snapshot": 2,
        "jcs-vs-jcs-n": 4,
    }


@needs_current
def test_current_suite_every_file_claimed_under_draft_06():
    summary = vectors.run_vectors(CURRENT_VECTORS, probes=False)  # the default draft: the newest
    assert vectors.DEFAULT_DRAFT == "-06" and summary.ok, summary.report()
    assert summary.unclaimed == [] and len(summary.vectors) == 88
    assert summary.ignored == ["CANONICALIZATION_DECLARATION.md", "README.md", "subject-binding-diff/README.md"]
    assert summary.counts() == {
        "as-transmitted": 2,
        "cpb-check": 14,
        "domain-transform": 2,
        "jcs-kat": 2,
        "assembled-preimage": 2,
        "derived-id": 3,
        "jcs-n-kat": 37,
        "typed-ref": 12,
        "representation": 2,
        "profile-independence": 2,
        "registry-lookup": 2,
        "registry-snapshot": 2,
        "jcs-vs-jcs-n": 5,
        "hash-envelope": 1,
    }


@needs_current
def test_current_fires_the_new_checks_and_each_flips():
    summary = vectors.run_vectors(CURRENT_VECTORS)
    assert summary.ok and all(p.flipped for p in summary.probes), summary.report()
    fired = summary.categories()
    assert {
        "jcs:duplicate-name": ["jcs/fail/01-duplicate-member-name.json"],
        "as-transmitted:textual-hex-substitution": ["as-transmitted/fail/01-textual-hex-substitution.json"],
        "typed-ref:purpose-required": ["typed-refs/fail/07-header-carriage-purpose-absent-multi-context.json"],
        "representation:raw-declared": [
            "leaf-construction/01-raw-vs-hex-text.json",
            "representation-contrast/01-raw-vs-hex-text.json",
        ],
    }.items() <= {k: sorted(v) for k, v in fired.items()}.items()
    # jcs-n withdrawn: every jcs-n record whose bytes agree fails closed without vintage evidence
    assert sorted(fired["vintage:no-evidence"]) == [
        "jcs-n/derived-id/01-basic-derived-id.json",
        "profile-independence/fail/01-cross-profile-field-access.json",
        "profile-independence/pass/01-conforming-typed-ref.json",
        "typed-refs/fail/01-digest-context-mismatch.json",  # under the declared context the digest agrees
        "typed-refs/pass/01-matching-digest.json",
        "typed-refs/pass/02-arp-conformance-baseline.json",
        # typed-refs/pass/03 @550ba20 (the copy since 2026-12-02) cites a jcs context: it verifies
    ]
    assert len(summary.probes) == 48  # the a0bd7c3 pass/03 (jcs-n) fired vintage:no-evidence: 49 then


@needs_current
def test_typed_refs_pass_02_is_digest_agreement_not_verified():
    path = CURRENT_VECTORS / "typed-refs" / "pass" / "02-arp-conformance-baseline.json"
    doc = json.loads(path.read_bytes())
    assert doc["expected"] == {"digest_agreement": True, "recomputed_digest": doc["typed_reference"]["digest"]}
    out = _run_one(CURRENT_VECTORS, path)
    assert out.fired == {"vintage:no-evidence"}
    # the same vector in the historical mode (-01): verified, as the drafts before the withdrawal said
    v = vectors.Vector.load(path, CURRENT_VECTORS)
    _, old = vectors.run_vector(v, replace(vectors.FASTJCS, draft="-01"))
    assert old.passed and old.fired == set()


@needs_current
def test_a_current_file_of_a_new_shape_is_an_error_naming_it(tmp_path):
    shutil.copytree(CURRENT_VECTORS, tmp_path / "suite")
    (tmp_path / "suite" / "jcs" / "pass" / "02-new-shape.json").write_text('{"id": "x", "algorithm": "jcs"}')
    summary = vectors.run_vectors(tmp_path / "suite", probes=False)
    assert not summary.ok and summary.unclaimed == ["jcs/pass/02-new-shape.json"]
    assert "UNCLAIMED jcs/pass/02-new-shape.json" in summary.report()


@needs_current
def test_the_packaged_checker_vectors_with_the_newer_verdict_word_pass():
    # upstream's lib/cpb/_vectors copies say "conforming" where the vectors/ copies say "verified"
    summary = vectors.run_vectors(CURRENT / "lib" / "cpb" / "_vectors")
    assert summary.ok and len(summary.vectors) == 4, summary.report()


def test_an_unknown_draft_is_refused():
    with pytest.raises(ValueError, match="unknown draft"):
        vectors.run_vectors(OURS, draft="-07")
    assert vectors.suite_draft(OURS) == "-01" and vectors.suite_draft(UPSTREAM_VECTORS) == "-06"


def _failure_reasons(node: Any) -> Iterable[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "failure_reason":
                yield v
            yield from _failure_reasons(v)
    elif isinstance(node, list):
        for v in node:
            yield from _failure_reasons(v)


@pytest.mark.parametrize(
    "root",
    [
        pytest.param(UPSTREAM_VECTORS, marks=needs_upstream, id="upstream"),
        pytest.param(CURRENT_VECTORS, marks=needs_current, id="current"),
        pytest.param(OURS, id="ours"),
    ],
)
def test_every_failure_reason_is_mapped(root):
    reasons = {
        r for p in vectors.iter_files(root) if p.suffix == ".json" for r in _failure_reasons(json.loads(p.read_bytes()))
    }
    assert reasons, "no MUST-FAIL vectors found"
    assert reasons <= set(vectors.FAILURE_REASONS), reasons - set(vectors.FAILURE_REASONS)


def test_a_file_nobody_claims_fails_the_run(tmp_path):
    shutil.copytree(OURS, tmp_path / "suite")
    (tmp_path / "suite" / "jcs-n" / "new-kind.json").write_text('{"id": "x", "something": "new"}')
    (tmp_path / "suite" / "notes.json").write_text("not a vector")
    summary = vectors.run_vectors(tmp_path / "suite", probes=False, draft="-01")
    assert not summary.ok
    # json's own words for the bad file, read as Vector.load reads it (bytes, a pairs hook):
    # CPython's "Expecting value: line 1 column 1 (char 0)"; PyPy's differ between its decoders
    with pytest.raises(ValueError) as bad:
        json.loads(b"not a vector", object_pairs_hook=dict)
    assert summary.unclaimed == ["jcs-n/new-kind.json", f"notes.json (unreadable: {bad.value})"]


def test_files_that_are_not_vectors_are_reported_ignored(tmp_path):
    shutil.copytree(OURS / "contexts", tmp_path / "suite")
    (tmp_path / "suite" / "README.md").write_text("# notes\n")
    (tmp_path / "suite" / "notes.txt").write_text("not a vector")
    summary = vectors.run_vectors(tmp_path / "suite", probes=False, draft="-01")
    assert summary.ok and summary.unclaimed == []
    assert summary.ignored == ["README.md", "notes.txt"]
    assert "IGNORED README.md" in summary.report() and summary.as_dict()["ignored"] == ["README.md", "notes.txt"]


def test_an_unmapped_failure_reason_fails_the_vector(tmp_path):
    (tmp_path / "v.json").write_text(
        '{"algorithm": "jcs-n", "must_fail": true, "failure_reason": "a_new_reason", "input": {"a": 1.5}}'
    )
    summary = vectors.run_vectors(tmp_path)
    assert [v.failures for v in summary.failed] == [
        [
            "failure_reason 'a_new_reason' is not mapped to an exception",
            "failure_reason 'a_new_reason' is not mapped to an exception",
        ]
    ]


def test_a_must_fail_vector_that_is_accepted_fails(tmp_path):
    (tmp_path / "v.json").write_text(
        '{"algorithm": "jcs-n", "must_fail": true, "failure_reason": "duplicate_key", "input": {"a": 1, "b": 2}}'
    )
    summary = vectors.run_vectors(tmp_path)
    assert not summary.ok
    assert "accepted" in summary.failed[0].failures[0]


# ---------------------------------------------------------------------------------------------------
# mutation probes
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "root",
    [
        pytest.param(UPSTREAM_VECTORS, marks=needs_upstream, id="upstream"),
        pytest.param(CURRENT_VECTORS, marks=needs_current, id="current"),
        pytest.param(OURS, id="ours"),
    ],
)
def test_every_fired_check_flips_on_its_mutant(backend, root):
    summary = vectors.run_vectors(root, draft=DRAFT[root])
    assert summary.ok, summary.report()
    fired = summary.categories()
    assert set(fired) <= set(vectors.GENERATORS)
    assert {p.category for p in summary.probes} == set(fired)
    assert all(p.flipped for p in summary.probes)
    assert len(summary.probes) == sum(len(v) for v in fired.values())


@needs_upstream
def test_upstream_fires_these_categories():
    fired = vectors.run_vectors(UPSTREAM_VECTORS, probes=False, draft="-01").categories()
    assert sorted(fired) == [
        "assembled:MemberMappingUndeclaredError",
        "contrast:key_sort_by_escaped_bytes_not_code_units",
        "contrast:nfc_normalisation_deviation",
        "contrast:string_escape_long_form_for_named_char",
        "contrast:string_escape_uppercase_hex",
        "cpb-check:P:empty-member",
        "cpb-check:R:duplicate-name",
        "cpb-check:R:non-integer-number",
        "derived-id:carried-id-mismatch",
        "jcs-n:duplicate-name",
        "jcs-n:non-integer-number",
        "jcs-n:unsafe-integer",
        "profile-independence:violation",
        "registry:id-unknown-to-snapshot",
        "registry:unknown-id",
        "stream:StreamIncompleteError",
        "typed-ref:artifact-type-mismatch",
        "typed-ref:digest-alg-mismatch",
        "typed-ref:digest-mismatch",
        "typed-ref:representation-mismatch",
    ]


def test_a_category_without_generator_is_assertion_free(monkeypatch):
    generators = dict(vectors.GENERATORS)
    del generators["jcs-n:duplicate-name"]
    monkeypatch.setattr(vectors, "GENERATORS", generators)
    summary = vectors.run_vectors(OURS)
    assert not summary.ok
    assert summary.assertion_free == ["jcs-n:duplicate-name"]
    assert "ASSERTION-FREE jcs-n:duplicate-name" in summary.report()


def test_a_mutant_that_keeps_the_defect_is_assertion_free(monkeypatch):
    """A generator that flips the expectation but leaves the defect in: the check still fires."""

    def keeps_defect(v, handler, category):
        return v.mutant(category, cpb_mutants._passing(v.doc, category))

    monkeypatch.setattr(vectors, "GENERATORS", dict(vectors.GENERATORS, **{"jcs-n:unsafe-integer": keeps_defect}))
    summary = vectors.run_vectors(OURS)
    assert summary.assertion_free == ["jcs-n:unsafe-integer"]


def test_a_check_that_cannot_fire_is_caught(monkeypatch):
    """A checker that never reports P: its MUST-FAIL vectors fail outright."""

    def blind(data, **kw):
        real = cpb.check(data, **kw)
        return CheckResult(tuple(x for x in real.violations if x.rule != "P"))

    summary = vectors.run_vectors(OURS, vectors.Implementation("blind-to-P", check=blind))
    assert {v.name for v in summary.failed} == {
        "cpb-check/02-empty-in-object-in-array.json",
        "cpb-check/03-several-in-document-order.json",
        "cpb-check/05-escaped-name-in-path.json",
    }


def test_generators_do_not_use_the_code_under_test():
    text = b'{"a": 12.50, "b": -0, "c": 9007199254740992, "d": {"\\u00c5": null, "A\\u030a": 1}, "e": {"f": []}}'
    assert cpb_mutants._without_non_integers(text) == (
        b'{"a":"12.50","b":"-0","c":9007199254740992,"d":{"\xc3\x85":null,"A\xcc\x8a":1},"e":{"f":[]}}'
    )
    assert cpb_mutants._without_unsafe_integers(text).startswith(b'{"a":12.50,"b":-0,"c":"9007199254740992"')
    assert cpb_mutants._without_duplicates(text).endswith(b'"d":{"\xc3\x85":null},"e":{"f":[]}}')
    assert cpb_mutants._without_empty_members(text) == b'{"a":12.50,"b":-0,"c":9007199254740992,"d":{"A\xcc\x8a":1}}'


# ---------------------------------------------------------------------------------------------------
# mutant implementations, each caught by named vectors
# ---------------------------------------------------------------------------------------------------


def _failed(root: Path, impl: vectors.Implementation = vectors.FASTJCS) -> set:
    draft = next(d for suite, d in DRAFT.items() if root == suite or suite in root.parents)
    return {v.name for v in vectors.run_vectors(root, impl, probes=False, draft=draft).failed}


def _no_cascade(value: Any, max_depth: int) -> Any:
    """jcs-n without the cascade: members empty as given are removed, members that become {} stay."""
    if isinstance(value, float):
        raise cpb.NonIntegerNumberError("float", "$")
    if isinstance(value, dict):
        return {k: _no_cascade(v, max_depth) for k, v in value.items() if not (v is None or v == [] or v == {})}
    if isinstance(value, list):
        return [_no_cascade(v, max_depth) for v in value]
    return value


def test_mutant_jcs_n_without_the_cascade_is_caught(backend, monkeypatch):
    from fastjcs.cpb import _digest, _identifiers

    monkeypatch.setattr(_digest, "normal_form", _no_cascade)
    monkeypatch.setattr(_identifiers, "normal_form", _no_cascade)
    assert {
        "jcs-n/kat-02-three-level-cascade.json",
        "jcs-n/kat-04-top-level-becomes-empty.json",
        "divergence/02-cascade-to-empty.json",
    } <= _failed(OURS)
    if UPSTREAM_VECTORS.is_dir():
        assert {
            "jcs-n/kats/06-nested-null-bottom-up.json",
            "jcs-n/kats/07-nested-empty-array-bottom-up.json",
        } <= _failed(UPSTREAM_VECTORS)


def _json_loads_check(data: Any, **kw: Any) -> CheckResult:
    """The checker json.loads makes possible: values, not tokens; the last duplicate wins."""
    found = []
    stack = [((), json.loads(data))]
    while stack:
        path, value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for k, v in items:
            p = path + (k,)
            if isinstance(value, dict) and (v is None or v == [] or v == {}):
                found.append(Violation(format_path(p), "P", "empty-member", 0))
            elif isinstance(v, float) or (isinstance(v, int) and abs(v) > 2**53 - 1):
                found.append(Violation(format_path(p), "R", "non-integer-number", 0))
            stack.append((p, v))
    return CheckResult(tuple(found))


def test_mutant_checker_parsing_with_json_loads_is_caught(backend):
    impl = vectors.Implementation("json.loads-checker", check=_json_loads_check)
    assert "cpb-check/04-nfc-duplicate-nested.json" in _failed(OURS, impl)
    if UPSTREAM_VECTORS.is_dir():
        assert {
            "cpb-check/non-conforming/07-negative-zero.json",
            "cpb-check/non-conforming/09-duplicate-key.json",
            "cpb-check/non-conforming/10-duplicate-key-nested.json",
        } <= _failed(UPSTREAM_VECTORS, impl)


def _casefolding_verify(reference: Any, artifact: Any, **kw: Any) -> Any:
    alg = reference.get("digest_alg")
    if isinstance(alg, str) and alg.casefold() == "sha-256":
        reference = dict(reference, digest_alg="SHA-256")
    return profiles.verify_typed_reference(reference, artifact, **kw)


def test_mutant_typed_ref_verifier_that_case_folds_digest_alg_is_caught(backend):
    impl = vectors.Implementation("case-folding", verify_typed_reference=_casefolding_verify)
    assert _failed(OURS, impl) == {"typed-refs/01-digest-alg-lowercase.json"}
    if UPSTREAM_VECTORS.is_dir():  # upstream alone cannot see it: every digest_alg it pins differs in more than case
        assert _failed(UPSTREAM_VECTORS, impl) == set()


def _constraint_blind_verify(reference: Any, artifact: Any, *, registry: Any, **kw: Any) -> Any:
    """The verifier before digest-context constraints: the registry's contexts without them."""
    from dataclasses import replace

    blind = cpb.Registry(
        registry.algorithms,
        {
            name: replace(t, contexts=tuple(replace(c, constraints=None) for c in t.contexts))
            for name, t in registry.artifact_types.items()
        },
    )
    return profiles.verify_typed_reference(reference, artifact, registry=blind, **kw)


def test_mutant_verifier_blind_to_context_constraints_is_caught(backend):
    impl = vectors.Implementation("constraint-blind", verify_typed_reference=_constraint_blind_verify)
    caught = _failed(OURS / "contexts", impl)
    # every vector but the conforming JSON artifacts (the SD-JWT ones too: it hashes the whole SD-JWT; and
    # 2^53+1 as a value, which it calls not canonicalizable instead of a context violation)
    assert caught == {p.name for p in vectors.iter_files(OURS / "contexts")} - {
        "01-equivalence-conforming.json",
        "02-equivalence-conforming-text.json",
        "17-capsule-open-field-set.json",
    }
    if UPSTREAM_VECTORS.is_dir():  # upstream has no vector on a registered context's constraints
        assert _failed(UPSTREAM_VECTORS, impl) == set()


def test_context_vectors_are_what_their_generator_writes():
    done = subprocess.run(
        [sys.executable, str(REPO / "vectors" / "gen_contexts.py"), "--check", "--out", str(OURS / "contexts")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mutant_sort_by_code_point_is_caught(monkeypatch, swap_backend):
    """The Python backend's key order with UTF-16 replaced by code points (a mutant of the JCS step,
    so it runs on the Python backend only)."""
    swap_backend(_python)
    monkeypatch.setattr(_python, "_utf16_key", lambda key: key)
    assert fastjcs.dumps({"\U0001f602": 1, "\ufb33": 2}) == '{"\ufb33":2,"\U0001f602":1}'.encode()
    assert "jcs-n/kat-01-astral-vs-private-use.json" in _failed(OURS)
    if UPSTREAM_VECTORS.is_dir():
        assert {"jcs-n/kats/18-utf16-key-order.json", "jcs-n/kats/19-rfc8785-sorting-example.json"} <= _failed(
            UPSTREAM_VECTORS
        )


def _vintage_blind_verify(reference: Any, artifact: Any, **kw: Any) -> Any:
    """A verifier that still treats jcs-n as live: digest agreement reported as verified."""
    return profiles.verify_typed_reference(reference, artifact, **dict(kw, vintage=cpb.Vintage.pre_withdrawal_draft()))


@needs_current
def test_mutant_verifier_that_ignores_the_withdrawal_is_caught(backend):
    impl = vectors.Implementation("vintage-blind", verify_typed_reference=_vintage_blind_verify)
    assert _failed(CURRENT_VECTORS, impl) == {
        "profile-independence/fail/01-cross-profile-field-access.json",
        "profile-independence/pass/01-conforming-typed-ref.json",
        "typed-refs/fail/01-digest-context-mismatch.json",
        "typed-refs/pass/01-matching-digest.json",
        "typed-refs/pass/02-arp-conformance-baseline.json",
        # not typed-refs/pass/03: its 550ba20 copy cites a jcs context, which no withdrawal touches
    }


@needs_current
def test_mutant_as_transmitted_over_the_hex_text_is_caught(backend, monkeypatch):
    from fastjcs.cpb import cose

    real = cose.sig_structure
    monkeypatch.setattr(cose, "as_transmitted_digest", lambda data, **kw: sha256_hex(real(data, **kw).hex().encode()))
    assert _failed(CURRENT_VECTORS) == {
        "as-transmitted/pass/01-cose-sign1-to-be-signed.json",
        "as-transmitted/fail/01-textual-hex-substitution.json",
    }


@needs_current
def test_mutant_sig_structure_that_re_encodes_the_protected_header_is_caught(monkeypatch):
    import cbor2

    from fastjcs.cpb import cose

    def reencoded(data, external_aad=b"", detached_payload=None):
        msg = cose.decode_sign1(data)  # the protected map re-encoded (here: with a 2-byte length head)
        protected = b"\xb9\x00" + bytes([len(msg.protected_header())]) + cbor2.dumps(msg.protected_header())[1:]
        return cbor2.dumps(["Signature1", protected, external_aad, msg.payload])

    monkeypatch.setattr(cose, "sig_structure", reencoded)
    assert {
        "as-transmitted/pass/01-cose-sign1-to-be-signed.json",
        "as-transmitted/fail/01-textual-hex-substitution.json",
        "typed-refs/pass/04-rfc9995-hash-envelope.json",
    } <= _failed(CURRENT_VECTORS)


@needs_current
def test_mutant_leaf_from_the_hex_text_is_caught(monkeypatch):
    monkeypatch.setattr(cpb_handlers_text, "leaf_input", lambda identifier, representation: identifier.encode("ascii"))
    assert _failed(CURRENT_VECTORS) == {
        "leaf-construction/01-raw-vs-hex-text.json",
        "representation-contrast/01-raw-vs-hex-text.json",
    }


def sha256_hex(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------------------------------
# provenance
# ---------------------------------------------------------------------------------------------------


def test_our_vectors_are_what_the_generator_writes():
    done = subprocess.run(
        [sys.executable, str(REPO / "vectors" / "gen_cpb.py"), "--check", "--out", str(OURS)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(not (UPSTREAM / "cpb-current").is_dir(), reason=MISSING)
def test_bundled_registries_are_the_upstream_files_verbatim():
    upstream = {
        "c33ce1a": UPSTREAM / "cpb-registry.json",
        "11fa7c0": UPSTREAM / "cpb-current" / "registry.11fa7c0.json",
        "960db41": UPSTREAM / "cpb-current" / "registry.960db41.json",
    }
    assert set(upstream) == set(cpb.registry.BUNDLED_VERSIONS)
    for name, path in upstream.items():
        assert cpb.registry.BUNDLED_VERSIONS[name].read_bytes() == path.read_bytes(), name
    schema = UPSTREAM / "cpb-current" / ".github" / "registry_schema.json"
    assert cpb.registry.SCHEMA.read_bytes() == schema.read_bytes()


def test_vectors_readme_lists_every_failure_reason_we_map():
    readme = (REPO / "vectors" / "README.md").read_text(encoding="utf-8")
    missing = [r for r in vectors.FAILURE_REASONS if f"`{r}`" not in readme]
    assert missing == []
