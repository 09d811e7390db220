"""`fastjcs eab`: compute and verify Execution Action Binding v1 bindings, through a child process."""

from __future__ import annotations

import json

import pytest
from _cli import fastjcs, lines, one_line_error
from conftest import UPSTREAM

# EAB-001 and EAB-005 of the upstream file (docs/spec of cMCP); pinned here so the test runs without it
FIELDS = [
    "--agent-id",
    "spiffe://agent.example/payments/prod",
    "--action-type",
    "transfer",
    "--action-scope",
    "account:merchant-7",
    "--action-timestamp",
    "2026-09-10T16:30:00Z",
]
B256 = "sha256:305b05b249b159fa9dea8cbbfaa0c19b71aa867a6da718693c1c7d4b83f52fe4"
B384 = "sha384:14e4e39e8eaaccd693e4120e6df5baaf2a351d4f74d0648ad586232403569d3b7313cb54b5517de7777565633bf30021"
PREIMAGE = {
    "domain": "cmcp.execution-action-binding",
    "version": 1,
    "agent_id": "spiffe://agent.example/payments/prod",
    "action_type": "transfer",
    "action_scope": "account:merchant-7",
    "action_timestamp": "2026-09-10T16:30:00Z",
}


def test_compute_from_the_fields():
    p = fastjcs("eab", *FIELDS)
    assert (p.returncode, p.stdout, p.stderr) == (0, (B256 + "\n").encode(), b"")
    assert fastjcs("eab", *FIELDS, "--algorithm", "sha384").stdout == (B384 + "\n").encode()


def test_verify_match_mismatch_invalid():
    assert fastjcs("eab", *FIELDS, "--verify", B256).returncode == 0
    assert fastjcs("eab", *FIELDS, "--verify", B384).returncode == 0  # the binding's own algorithm
    other = FIELDS[:-1] + ["2026-09-10T16:30:01Z"]
    p = fastjcs("eab", *other, "--verify", B256)
    assert p.returncode == 1 and p.stdout.startswith(b"mismatch: the preimage binds to sha256:")
    # changing the algorithm changes the binding: exact comparison of the whole string
    assert fastjcs("eab", *FIELDS, "--algorithm", "sha384", "--verify", B256).returncode == 1
    for bad in (B256.upper(), B256[7:], "sha512:" + B256[7:], B256 + " ", B256[:-1]):
        p = fastjcs("eab", *FIELDS, "--verify", bad)
        assert p.returncode == 2, bad
        one_line_error(p, "InvalidDigestError")


def test_invalid_fields_are_exit_2():
    p = fastjcs("eab", *FIELDS[:-1], "")
    assert p.returncode == 2
    one_line_error(p, "ActionBindingError", "action_timestamp must not be empty")
    p = fastjcs("eab", *FIELDS[:4])
    assert p.returncode == 2
    one_line_error(p, "missing --action-scope, --action-timestamp")
    p = fastjcs("eab", *FIELDS[:-1], "", "--verify", B256)  # invalid input, not a mismatch
    assert p.returncode == 2


def test_from_a_preimage_file(tmp_path):
    path = tmp_path / "pre.json"
    path.write_text(json.dumps(PREIMAGE, indent=2) + "\n")  # any spelling of the object
    assert fastjcs("eab", "--preimage", path).stdout == (B256 + "\n").encode()
    assert fastjcs("eab", "--preimage", path, "--verify", B256).returncode == 0
    p = fastjcs("eab", "--preimage", "-", "--print-preimage", input=json.dumps(dict(PREIMAGE, version=1.0)).encode())
    assert lines(p.stdout) == [json.dumps(PREIMAGE, sort_keys=True, separators=(",", ":")), B256]


@pytest.mark.parametrize(
    "change, error",
    [
        ({"domain": "cmcp.other-binding"}, "NotV1BindingError"),
        ({"version": 2}, "NotV1BindingError"),
        ({"extra": "x"}, "unexpected member"),
        ({"agent_id": ""}, "agent_id must not be empty"),
        ({"version": True}, "NotV1BindingError"),
    ],
)
def test_not_a_v1_preimage_is_exit_2(tmp_path, change, error):
    p = fastjcs("eab", "--preimage", "-", "--verify", B256, input=json.dumps(dict(PREIMAGE, **change)).encode())
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, error)


def test_preimage_that_is_not_json_names_the_position():
    p = fastjcs("eab", "--preimage", "-", input=b'{"domain": "cmcp.execution-action-binding",\n "version": 1,,}')
    assert p.returncode == 2
    one_line_error(p, "<stdin>:2:15:", "InvalidJSONError")
    p = fastjcs("eab", "--preimage", "-", input=b'{"version": 1, "version": 1}')
    assert p.returncode == 2
    one_line_error(p, "DuplicateKeyError")


def test_fields_and_preimage_together_are_refused(tmp_path):
    p = fastjcs("eab", *FIELDS, "--preimage", "-", input=json.dumps(PREIMAGE).encode())
    assert p.returncode == 2
    one_line_error(p, "not both")


def test_upstream_vectors_through_the_command_line():
    path = UPSTREAM / "execution-action-binding-v1-vectors.json"
    if not path.exists():
        pytest.skip(f"upstream EAB vectors not found at {path}")
    for v in json.loads(path.read_text("utf-8"))["vectors"]:
        pre = json.dumps(v["preimage"]).encode()
        p = fastjcs("eab", "--preimage", "-", "--algorithm", v["algorithm"], input=pre)
        if v["expected"] == "accept":
            assert p.stdout.decode().strip() == v["binding"], v["id"]
        else:
            assert p.returncode == 2, v["id"]
