"""Every malformed registry snapshot is one SnapshotFormatError naming the place, and a snapshot is
read by fastjcs's strict parser, so a verdict cannot depend on which parser reads the file
(issue 32, findings 6 and 8)."""

from __future__ import annotations

import copy
import json
import shutil

import pytest
from conftest import UPSTREAM
from hypothesis import given, settings
from hypothesis import strategies as st

from fastjcs.cpb import Registry
from fastjcs.cpb.errors import SnapshotFormatError

BUNDLED = json.loads(json.dumps(Registry.bundled("960db41").raw))
TYPE = "agent-action-capsule"


def refused(data, *needles: str) -> str:
    with pytest.raises(SnapshotFormatError) as info:
        Registry.from_json(data)
    for needle in needles:
        assert needle in str(info.value), str(info.value)
    return str(info.value)


def with_type_member(key: str, value):
    doc = copy.deepcopy(BUNDLED)
    doc["artifact_types"][TYPE][key] = value
    return doc


def with_context_member(key: str, value):
    doc = copy.deepcopy(BUNDLED)
    doc["artifact_types"][TYPE]["digest_contexts"][0][key] = value
    return doc


def test_the_bundled_registry_reads():
    assert TYPE in Registry.from_json(json.dumps(BUNDLED)).artifact_types


@pytest.mark.parametrize("value", [5, None, "x", True])
def test_digest_contexts_of_another_shape(value):
    # was TypeError for 5 and None
    refused(with_type_member("digest_contexts", value), TYPE, "digest_contexts")


@pytest.mark.parametrize("key", ["field_set", "purpose", "representation", "profile_version"])
def test_context_prose_that_is_not_a_string(key):
    # field_set ["a"] was TypeError: unhashable type: 'list'
    refused(with_context_member(key, ["a"]), TYPE, key, "must be a string")


def test_a_deep_body_is_refused_with_its_place():
    # a body 10^5 deep was RecursionError from json.loads
    text = '{"schema_version": "1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    refused(text, "not a registry snapshot", "nesting deeper than", "byte")


def test_text_that_is_not_json():
    refused("{", "not a registry snapshot", "line 1 column 2")


def _duplicated(raw: str) -> str:
    """upstream's snapshot with a first `jcs-n` entry, withdrawn, before the real one (its pin kept)."""
    dup = raw.replace(
        '"canonicalization_algorithms": {', '"canonicalization_algorithms": {\n"jcs-n": {"status": "withdrawn"},', 1
    )
    assert dup != raw
    return dup


SNAPSHOT = UPSTREAM / "cpb-current" / "vectors" / "registry" / "snapshot-v1.json"
needs_upstream = pytest.mark.skipif(not SNAPSHOT.is_file(), reason=f"upstream's snapshot is not at {SNAPSHOT}")


@needs_upstream
def test_a_repeated_member_name_is_refused_not_verified(tmp_path):
    # json.loads kept the last `jcs-n`, so the snapshot verified (snapshot_hash_matches, VERIFIED)
    # while `fastjcs canon` refused it; a reader keeping the first saw `withdrawn`
    path = tmp_path / "snapshot-v1.json"
    path.write_text(_duplicated(SNAPSHOT.read_text("utf-8")), "utf-8")
    with pytest.raises(SnapshotFormatError) as info:
        Registry.load(path)
    message = str(info.value)
    assert str(path) in message and "duplicate member name 'jcs-n'" in message and "line 5 column 5" in message
    assert message.count("not a registry snapshot") == 1, message


@needs_upstream
def test_the_vectors_runner_fails_a_suite_whose_snapshot_repeats_a_name(tmp_path):
    from fastjcs.conformance import cpb_vectors

    suite = tmp_path / "vectors"
    shutil.copytree(SNAPSHOT.parent.parent, suite)
    summary = cpb_vectors.run_vectors(suite, probes=False)
    assert summary.ok  # the copy as published passes
    target = suite / "registry" / "snapshot-v1.json"
    target.chmod(0o644)
    target.write_text(_duplicated(target.read_text("utf-8")), "utf-8")
    summary = cpb_vectors.run_vectors(suite, probes=False)
    assert not summary.ok
    assert summary.failed and all("duplicate member name 'jcs-n'" in " ".join(o.failures) for o in summary.failed)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=8,
)
PLACES = [
    ("canonicalization_algorithms",),
    ("canonicalization_algorithms", "jcs"),
    ("canonicalization_algorithms", "jcs", "status"),
    ("canonicalization_algorithms", "jcs", "cose_alg"),
    ("canonicalization_algorithms", "jcs", "description"),
    ("artifact_types",),
    ("artifact_types", TYPE),
    ("artifact_types", TYPE, "status"),
    ("artifact_types", TYPE, "digest_contexts"),
    ("artifact_types", TYPE, "digest_contexts", 0),
    ("artifact_types", TYPE, "digest_contexts", 0, "algorithm"),
    ("artifact_types", TYPE, "digest_contexts", 0, "exclusion_set"),
    ("artifact_types", TYPE, "digest_contexts", 0, "constraints"),
    ("artifact_types", TYPE, "digest_contexts", 0, "field_set"),
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PLACES), JSON)
def test_any_value_anywhere_is_read_or_refused_as_a_snapshot_error(place, value):
    doc = copy.deepcopy(BUNDLED)
    node = doc
    for step in place[:-1]:
        node = node[step]
    node[place[-1]] = value
    try:
        Registry.from_json(json.dumps(doc))
    except SnapshotFormatError:
        pass  # anything else (TypeError, KeyError, AttributeError...) fails the test
