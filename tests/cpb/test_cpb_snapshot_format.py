"""A malformed or ambiguous registry snapshot is a SnapshotFormatError naming the place
(issue 32, findings 6 and 8)."""

from __future__ import annotations

import json

import pytest
from conftest import UPSTREAM

from fastjcs.cpb import Registry
from fastjcs.cpb.errors import SnapshotFormatError
from fastjcs.cpb.registry import BUNDLED_VERSIONS as BUNDLED

SNAPSHOT = UPSTREAM / "cpb-vectors" / "registry" / "snapshot-v1.json"
needs_upstream = pytest.mark.skipif(not SNAPSHOT.exists(), reason="upstream's CPB vectors are not here")


@needs_upstream
def test_a_snapshot_with_a_repeated_name_is_refused(tmp_path):
    """Finding 6: a first `"jcs-n": {... "withdrawn"}` before the real entry, pin kept: json.loads
    kept the last one, so the snapshot verified (pin matching, jcs-n VERIFIED), while a reader
    keeping the first sees it withdrawn. Now the strict parser refuses it, naming the name."""
    raw = SNAPSHOT.read_text(encoding="utf-8")
    assert Registry.from_json(raw).snapshot_hash_matches is True
    doctored = raw.replace(
        '"canonicalization_algorithms": {',
        '"canonicalization_algorithms": {"jcs-n": {"description": "x", "reference": "x", "status": "withdrawn"},',
        1,
    )
    assert doctored != raw
    path = tmp_path / "snapshot.json"
    path.write_text(doctored, encoding="utf-8")
    for read in (
        lambda: Registry.from_json(doctored),
        lambda: Registry.from_json(doctored.encode()),
        lambda: Registry.load(path),
    ):
        with pytest.raises(SnapshotFormatError, match="duplicate.*jcs-n|jcs-n.*duplicate"):
            read()


def _doc() -> dict:
    return json.loads(BUNDLED["11fa7c0"].read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "change, place",
    [
        (lambda d, t: d["artifact_types"][t].update(digest_contexts=5), "digest_contexts"),
        (lambda d, t: d["artifact_types"][t].update(digest_contexts=None), "digest_contexts"),
        (lambda d, t: d["artifact_types"][t]["digest_contexts"][0].update(field_set=["a"]), ""),
        (lambda d, t: d["artifact_types"][t]["digest_contexts"][0].update(field_set={"a": 1}), ""),
    ],
)
def test_a_malformed_entry_is_a_snapshot_format_error_naming_it(change, place):
    """Finding 8: `"digest_contexts": 5` or null, `"field_set": ["a"]` raised TypeError."""
    doc = _doc()
    name = next(t for t, e in doc["artifact_types"].items() if e.get("digest_contexts"))
    change(doc, name)
    for data in (doc, json.dumps(doc)):
        with pytest.raises(SnapshotFormatError) as info:
            Registry.from_json(data)
        assert str(info.value).startswith(f"$.artifact_types.{name}"), info.value
        assert place in str(info.value)


def test_a_body_nested_deep_is_a_snapshot_format_error():
    """Finding 8: a body 10^5 deep raised RecursionError."""
    deep = '{"schema_version": "1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    for data in (deep, deep.encode()):
        with pytest.raises(SnapshotFormatError, match="max_depth"):
            Registry.from_json(data)
