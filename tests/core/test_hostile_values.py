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

import pytest
import rfc8785

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


@pytest.mark.parametrize(
    "single", ['{"chunk":"1","done":true}', b"x", {"chunk": "1", "done": True}], ids=lambda v: type(v).__name__
)
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
    assert cpb.canonical_digest({"id": 1, "b": 2}, exclusion_set={"id"}) == cpb.canonical_digest({"b": 2})


# ---- hostile values: one answer on both backends ------------------------------------------------


class FlipInt(int):
    """An int whose __int__ answers `first` on the first call and `then` afterwards."""

    def __new__(cls, first: int, then: int) -> FlipInt:
        self = super().__new__(cls, 0)
        self.answers = [first, then]
        self.calls = 0
        return self

    def __int__(self) -> int:
        self.calls += 1
        return self.answers[min(self.calls, 2) - 1]


def test_int_subclass_is_read_once(backend):
    # Before: the C backend read 2**60, refused it, then asked the Python backend, which read 1,
    # accepted, and the disagreement surfaced as AssertionError("fastjcs internal error").
    big_first = FlipInt(2**60, 1)
    with pytest.raises(fastjcs.IntegerDomainError):
        fastjcs.dumps([big_first])
    assert big_first.calls == 1
    small_first = FlipInt(1, 2**60)
    assert fastjcs.dumps({"a": [small_first]}) == b'{"a":[1]}'
    assert small_first.calls == 1


class MemberRemover(int):
    """An int whose __int__ removes a member from a dict: a dict changed during traversal."""

    def __new__(cls, target: dict, name: str) -> MemberRemover:
        self = super().__new__(cls, 5)
        self.target, self.name = target, name
        return self

    def __int__(self) -> int:
        self.target.pop(self.name, None)
        return 5


class MemberAdder(MemberRemover):
    def __int__(self) -> int:
        self.target[self.name] = 1
        return 5


def test_dict_changed_during_dumps_is_runtime_error(backend):
    # Before: a bare KeyError on the Python backend (the member it was about to read was gone).
    d: dict = {"a": None, "b": 1, "c": 2}
    d["a"] = MemberRemover(d, "b")
    with pytest.raises(RuntimeError, match="changed during"):
        fastjcs.dumps(d)
    # A member added while the object is written is not part of it: its names are read once.
    d = {"a": None}
    d["a"] = MemberAdder(d, "z")
    assert fastjcs.dumps(d) == b'{"a":5}'


def test_dict_changed_by_another_thread(backend):
    """A real thread adds and removes members while dumps runs: each call returns bytes or raises
    RuntimeError, nothing else (before: KeyError on the Python backend). Bounded in time."""
    shared = {f"k{i:04d}": [i, f"v{i}", {"x": 1.5}] for i in range(300)}
    stop = threading.Event()

    def mutate() -> None:
        i = 0
        while not stop.is_set():
            i = (i + 1) % 300
            shared.pop(f"k{i:04d}", None)
            shared[f"k{i:04d}"] = [i]

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=mutate)
    thread.start()
    errors = []
    try:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                assert fastjcs.dumps(shared).startswith(b'{"k')
            except RuntimeError:
                pass
            except Exception as exc:  # noqa: BLE001 - the test is that nothing else escapes
                errors.append(exc)
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(old_interval)
    assert not errors, f"{len(errors)} unexpected errors, first {errors[0]!r}"


@pytest.mark.parametrize("depth", [2**64, 10**30, sys.maxsize + 1])
def test_huge_max_depth_is_accepted(backend, depth):
    # Before: OverflowError on the C backend (the limit is a size_t there), accepted in Python.
    assert fastjcs.dumps([[1]], max_depth=depth) == b"[[1]]"
    assert fastjcs.canonicalize(b"[[1]]", max_depth=depth) == b"[[1]]"
    out: list = []
    fastjcs.canonicalize_to(b"[[1]]", lambda b: out.append(bytes(b)), max_depth=depth)
    assert out[0] == b"[[1]]"
    assert fastjcs.digest_many([[[1]]], max_depth=depth) == [fastjcs.digest([[1]])]
    assert fastjcs.digest_texts([b"[[1]]"], max_depth=depth) == [fastjcs.digest([[1]])]
    assert cpb.check(b"[[1]]", max_depth=depth).verdict == cpb.VERIFIED
    with pytest.raises(ValueError, match="non-negative int"):
        fastjcs.dumps([], max_depth=-depth)


def test_non_contiguous_memoryview_is_read_as_its_bytes(backend):
    # Before: BufferError on the C backend; the Python backend read bytes(view).
    strided = memoryview(b"[x1x,x2x]")[::2]
    assert strided.tobytes() == b"[1,2]"
    assert fastjcs.canonicalize(strided) == b"[1,2]"
    out: list = []
    fastjcs.canonicalize_to(strided, lambda b: out.append(bytes(b)))
    assert out[0] == b"[1,2]"
    assert fastjcs.digest_text(strided) == fastjcs.digest([1, 2])
    assert fastjcs.digest_texts([strided]) == [fastjcs.digest([1, 2])]
    with pytest.raises(fastjcs.InvalidJSONError) as info:
        fastjcs.canonicalize(memoryview(b"[x1x,x,y")[::2])  # b"[1,,": the offset is in the copy
    assert info.value.offset == 3


class _Backwards(str):
    """A str whose own comparisons and encode lie: member order must not listen to them."""

    def __lt__(self, other):
        return str.__gt__(self, other)

    def __gt__(self, other):
        return str.__lt__(self, other)

    def encode(self, *args, **kwargs):
        return b"x"


def test_str_subclass_comparisons_do_not_order_members(backend):
    names = ["b", "a", "\ufb33", "\U0001f602", "c"]
    value = {_Backwards(n): i for i, n in enumerate(names)}
    assert fastjcs.dumps(value) == rfc8785.dumps({n: i for i, n in enumerate(names)})
