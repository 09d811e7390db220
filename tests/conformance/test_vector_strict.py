"""A vector file's envelope is read by fastjcs's strict parser (issue 32, finding 6): a repeated
member name is refused, not resolved by whichever parser reads it; the text under test is not."""

from __future__ import annotations

import pytest

from fastjcs.conformance.cpb_cases import Vector

KAT = b"""{"id": "k", "algorithm": "jcs-n", "must_fail": true, "failure_reason": "duplicate_key",
 "input": {"a": 1, "a": 2}%s}"""


def _load(tmp_path, text: bytes) -> Vector:
    path = tmp_path / "v.json"
    path.write_bytes(text)
    return Vector.load(path, tmp_path)


def test_a_repeated_name_in_the_input_under_test_is_kept(tmp_path):
    v = _load(tmp_path, KAT % b"")
    assert v.text("input") == b'{"a": 1, "a": 2}' and v.doc["must_fail"] is True


@pytest.mark.parametrize(
    "extra, says",
    [(b', "must_fail": false', "'must_fail' is repeated"), (b', "expected": {"x": 1, "x": 2}', "member 'expected'")],
)
def test_a_repeated_name_in_the_envelope_is_refused(tmp_path, extra, says):
    with pytest.raises(ValueError, match=says):
        _load(tmp_path, KAT % extra)
