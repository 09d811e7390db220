"""fastjcs's own Execution Action Binding v1 vectors (src/fastjcs/conformance/suites/eab/), through fastjcs.eab.

The expected values in the files were computed by vectors/gen_eab.py with rfc8785 and
pycryptodome, not by fastjcs; the first tests check that the committed files are exactly what the
generator writes, and that the generator does not import fastjcs.
"""

from __future__ import annotations

import ast
import importlib.util
import json

import pytest
from conftest import REPO, SUITES

import fastjcs
from fastjcs import UnsupportedAlgorithmError, eab
from fastjcs.eab import ActionBindingError, Disposition, NotV1BindingError

VECTOR_DIR = SUITES / "eab"
GENERATOR = REPO / "vectors" / "gen_eab.py"


def _load(name: str) -> dict:
    return {v["id"]: v for v in json.loads((VECTOR_DIR / name).read_text("ascii"))["vectors"]}


ACCEPT = _load("eab-accept.json")
REJECT = _load("eab-reject.json")

# reason -> the exact exception class parse_preimage raises
NOT_V1 = {"other_domain", "other_version"}
INPUT_ERRORS = {
    "empty_field",
    "lone_surrogate",
    "wrong_type",
    "extra_member",
    "missing_member",
    "renamed_member",
    "non_canonical_bytes",
}
FIELD_ERRORS = {"empty_field", "lone_surrogate", "wrong_type"}


def test_files_are_what_the_generator_writes():
    spec = importlib.util.spec_from_file_location("eab_vector_generator", GENERATOR)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    for name, text in generator.build().items():
        assert (VECTOR_DIR / name).read_text("ascii") == text, f"{name} is stale: regenerate it"


def test_generator_is_independent_of_fastjcs():
    tree = ast.parse(GENERATOR.read_text("utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert "fastjcs" not in imported
    assert {"rfc8785", "Crypto"} <= imported


def test_every_refusal_kind_is_covered():
    reasons = {v["reason"] for v in REJECT.values()}
    assert reasons == NOT_V1 | INPUT_ERRORS | {"unsupported_algorithm"}
    assert {v["field"] for v in REJECT.values() if v["reason"] == "lone_surrogate"} >= {"agent_id", "action_scope"}


@pytest.mark.parametrize("vector_id", ACCEPT)
def test_accept_vector(backend, vector_id):
    v = ACCEPT[vector_id]
    fields = {name: v["preimage"][name] for name in eab.FIELDS}
    jcs = v["jcs_utf8"].encode("utf-8")
    assert eab.preimage(**fields) == jcs
    assert eab.parse_preimage(jcs) == tuple(fields.values())
    assert eab.parse_preimage(v["preimage"]) == tuple(fields.values())
    for algorithm, expected in v["bindings"].items():
        assert eab.binding(**fields, algorithm=algorithm) == expected
        assert eab.classify(v["preimage"], algorithm) is Disposition.ACCEPT
        assert eab.verify(expected, jcs) and eab.verify(expected, v["preimage"])
    assert eab.binding(**fields) == v["bindings"]["sha256"]  # the default algorithm


def test_nonbmp_vector_really_is_beyond_the_bmp():
    scope = ACCEPT["FJ-EAB-A01-nonbmp-scope"]["preimage"]["action_scope"]
    assert max(map(ord, scope)) > 0xFFFF
    assert b"\xf0\x9f\x98\x82" in ACCEPT["FJ-EAB-A01-nonbmp-scope"]["jcs_utf8"].encode("utf-8")


def test_long_fields_are_hashed_whole(backend):
    v = ACCEPT["FJ-EAB-A05-long-fields"]
    fields = {name: v["preimage"][name] for name in eab.FIELDS}
    assert min(len(f) for f in fields.values()) >= 4096
    shortened = dict(fields, action_timestamp=fields["action_timestamp"][:-1])
    assert eab.binding(**shortened) != v["bindings"]["sha256"]


@pytest.mark.parametrize("vector_id", REJECT)
def test_reject_vector(backend, vector_id):
    v = REJECT[vector_id]
    reason, expected = v["reason"], v["expected"]
    data = v["preimage_utf8"].encode("utf-8") if "preimage_utf8" in v else v["preimage"]

    if reason == "unsupported_algorithm":
        fields = {name: data[name] for name in eab.FIELDS}
        assert eab.classify(data, v["algorithm"]) is Disposition.REJECT_UNSUPPORTED_ALGORITHM
        with pytest.raises(UnsupportedAlgorithmError):
            eab.binding(**fields, algorithm=v["algorithm"])
        assert eab.is_v1_preimage(data)  # only the algorithm is wrong
        return

    assert expected == Disposition.REJECT_AS_V1_EXECUTION_ACTION_BINDING.value
    for algorithm in ("sha256", "sha384"):
        assert eab.classify(data, algorithm).value == expected
    assert not eab.is_v1_preimage(data)
    with pytest.raises(ActionBindingError) as info:
        eab.parse_preimage(data)
    if reason in NOT_V1:
        assert type(info.value) is NotV1BindingError
    else:
        assert type(info.value) is ActionBindingError
    if "field" in v:
        assert info.value.field == v["field"]

    # The binding a careless implementation would have computed does not verify.
    for algorithm, unchecked in v.get("unchecked_bindings", {}).items():
        assert fastjcs.digest(data, algorithm) == unchecked  # the file and fastjcs agree on bytes
        assert not eab.verify(unchecked, data)

    if reason in FIELD_ERRORS:
        fields = {name: data[name] for name in eab.FIELDS}
        for call in (eab.preimage, eab.binding):
            with pytest.raises(ActionBindingError) as info:
                call(**fields)
            assert type(info.value) is ActionBindingError and info.value.field == v["field"]
    action_members = (
        {k: val for k, val in data.items() if k not in ("domain", "version")} if isinstance(data, dict) else {}
    )
    if reason in ("extra_member", "missing_member", "renamed_member") and set(action_members) != set(eab.FIELDS):
        # The functions take exactly the four fields: no more, no fewer, no other names.
        with pytest.raises(TypeError):
            eab.binding(**action_members)


def test_non_canonical_bytes_hold_a_v1_object():
    # These vectors would be accepted as objects; it is only their spelling that is refused.
    for v in REJECT.values():
        if v["reason"] == "non_canonical_bytes":
            assert eab.is_v1_preimage(json.loads(v["preimage_utf8"]))
