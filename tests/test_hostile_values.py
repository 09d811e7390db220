"""Misuse and hostile values get the same, documented answer on both backends.

- A batch API given one value (a str, a bytes-like object, a mapping) refuses it with TypeError
  instead of iterating its characters, bytes or keys.
- An int subclass whose __int__ answers differently on each call, a dict changed while it is
  being canonicalized, a huge max_depth and a non-contiguous memoryview each get one answer,
  whichever backend runs (every test here runs on both, via the `backend` fixture).
"""

from __future__ import annotations

import sys
import threading
import time
from array import array

import pytest

import fastjcs
from fastjcs import cpb

# ---- batch APIs refuse a single value ----------------------------------------------------------

SINGLE_VALUES = ["ab", b"ab", bytearray(b"ab"), memoryview(b"ab"), {"a": 1}]


@pytest.mark.parametrize("single", SINGLE_VALUES, ids=lambda v: type(v).__name__)
def test_digest_many_refuses_a_single_value(backend, single):
    with pytest.raises(TypeError, match=r"digest_many takes an iterable of values.*use digest\(\)"):
        fastjcs.digest_many(single)


@pytest.mark.parametrize("single", SINGLE_VALUES, ids=lambda v: type(v).__name__)
def test_digest_texts_refuses_a_single_text(backend, single):
    with pytest.raises(TypeError, match=r"digest_texts takes an iterable of JSON texts.*digest_text\(\)"):
        fastjcs.digest_texts(single)


@pytest.mark.parametrize("single", SINGLE_VALUES, ids=lambda v: type(v).__name__)
def test_cpb_exclusion_set_refuses_a_single_name(backend, single):
    with pytest.raises(TypeError, match="exclusion_set takes a collection of member names"):
        cpb.canonical_digest({"a": 1}, exclusion_set=single)
    with pytest.raises(TypeError, match="exclusion_set takes a collection of member names"):
        cpb.pre_image_text(b'{"a": 1}', exclusion_set=single)


@pytest.mark.parametrize("single", ['{"chunk":"1","done":true}', b"x", {"chunk": "1", "done": True}],
                         ids=lambda v: type(v).__name__)
def test_reassemble_stream_refuses_a_single_chunk(single):
    with pytest.raises(TypeError, match=r"reassemble_stream takes a sequence of chunk objects"):
        cpb.reassemble_stream(single)


def test_batch_apis_still_take_any_iterable(backend):
    values = [{"a": 1}, [2], "s"]
    expected = [fastjcs.digest(v) for v in values]
    assert fastjcs.digest_many(values) == expected
    assert fastjcs.digest_many(tuple(values)) == expected
    assert fastjcs.digest_many(iter(values)) == expected
    assert fastjcs.digest_texts(t for t in (b'{"a":1}', "[2]", '"s"')) == expected
    assert cpb.canonical_digest({"id": 1, "b": 2}, exclusion_set={"id"}) == \
        cpb.canonical_digest({"b": 2})
