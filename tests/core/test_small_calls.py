"""The C backend's lender (fjcs_lender_*), one per Python thread, which serves one small document
per call: the result lent to the caller, the memory a lender keeps, a thread's lender closed when
the thread ends, the digest without the compiled one-shot. Answers are checked against the
pure-Python backend or fixed expectations."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import weakref

import pytest
from _markers import MEASURED_ENV, rss_is_meaningful

import fastjcs
from fastjcs.core import python_backend


def test_results_hold_no_nul_byte_and_survive_the_nul_escape(backend):
    # The lender's results are NUL-terminated: a NUL in a string must come out escaped, whole.
    assert fastjcs.dumps({"k\x00": "a\x00b"}) == b'{"k\\u0000":"a\\u0000b"}'
    assert fastjcs.canonicalize(b'["a\\u0000b", 1]') == b'["a\\u0000b",1]'
    assert fastjcs.digest("\x00") == python_backend.digest("\x00", 10, "sha256")


def test_a_result_still_lent_is_not_overwritten(native):
    """A second call before the first result is handed back (as from a signal handler or a
    finalizer) writes elsewhere: the first result stays intact until it is handed back."""
    from fastjcs._native_ext import ffi, lib

    lender = ffi.gc(lib.fjcs_lender_open(), lib.fjcs_lender_close)
    first = lib.fjcs_lender_canonicalize(lender, b'{"b":1,"a":2}', 13, 10, 0)
    second = lib.fjcs_lender_canonicalize(lender, b"[3, 4]", 6, 10, 0)
    assert ffi.string(second) == b"[3,4]"
    second[-1] = b"\0"
    third = lib.fjcs_lender_format_double(lender, 0.5)
    assert ffi.string(third) == b"0.5"
    third[-1] = b"\0"
    assert ffi.string(first) == b'{"a":2,"b":1}'
    first[-1] = b"\0"


def test_each_thread_has_its_own_lender_closed_when_the_thread_ends(native):
    """The C core keeps no per-thread state (no pthread keys: they link at glibc 2.34): each Python
    thread's lender lives in a threading.local, and goes (fjcs_lender_close, through ffi.gc) when
    its thread ends. A lender kept anywhere else (a module-level list or dict) would outlive it."""
    from fastjcs._native_ext import ffi, lib

    seen: list = []

    def body() -> None:
        lender = native._lender()
        assert native._lender() is lender  # one per thread, opened on first use
        p = lib.fjcs_lender_canonicalize(lender, b'{"b":1,"a":[2]}', 15, 10, 0)
        assert ffi.string(p) == b'{"a":[2],"b":1}'
        p[-1] = b"\0"
        assert native.format_double(0.1) == "0.1" and native.canonicalize(b"[1 ]", 10, False) == b"[1]"
        seen.append(weakref.ref(lender))

    threads = [threading.Thread(target=body) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    assert len(seen) == 4 and [ref() for ref in seen] == [None] * 4
    assert native._lender() is native._lender()  # this thread's own, still open


def test_digest_text_goes_through_the_lender_without_the_direct_entry(native, monkeypatch):
    """Where the direct entry does not run (PyPy, CPython 3.9), a small text's digest is one call of
    fjcs_lender_digest_text; its answer is the pure-Python backend's, and a refusal the ordinary
    error."""
    calls: list = []
    real = native._lender_digest_text

    def counted(*args):  # type: ignore[no-untyped-def]
        calls.append(args[2])
        return real(*args)

    monkeypatch.setattr(native, "_direct", None)
    monkeypatch.setattr(native, "_lender_digest_text", counted)
    text = b'{"b": [1.5, "\\u20ac"], "a": null}'
    for algorithm in ("sha256", "sha384"):
        assert native.digest_text(text, 100, False, algorithm) == python_backend.digest_text(
            text, 100, False, algorithm
        )
    assert calls == [len(text), len(text)]
    with pytest.raises(fastjcs.DuplicateKeyError) as info:
        native.digest_text(b'{"a":1,"a":2}', 100, False, "sha256")
    assert info.value.offset == 7


REFUSED_TEXTS = [
    b'{"a":1,"a":2}',
    b'{"z":{"y":1,"y":2},"a":1}',
    b'{"\\u00e9t\\u00e9":1,"\\u00e9t\\u00e9":2}',
    b"[1,",
    b"\xff",
    b"01",
    b'["\\ud800"]',
    b"[1e400]",
    b"[9007199254740993]",
    b"[1.5]",
    b"[[[[[1]]]]]",
    b'{"a" 1}',
    b"[tru]",
    b"",
]


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - every exception is an outcome to compare
        return ("error", type(exc).__name__, str(exc), getattr(exc, "offset", None))


@pytest.mark.parametrize("text", REFUSED_TEXTS)
def test_a_refused_small_text_is_parsed_once_on_the_lender(native, monkeypatch, text):
    """On cffi's route (PyPy, CPython 3.9, FASTJCS_DIRECT=0; here the direct entry is set aside), the
    lender lends a refused text's error record with an empty result, which native_errors words: the
    text is parsed once by canonicalize and by digest_text. Before, the lender recorded nothing
    and the text was parsed again by the ordinary entry (_run_text; digest_text parsed it a third
    time, through the lender's canonicalize). Parser entries are counted where Python reaches
    them; the error (class, message, offset) equals the pure-Python backend's."""
    entries: list = []

    def counted(name, fn):
        text_at = 1 if name.startswith("_lender") else 0  # the lender's calls take it first
        return lambda *args: entries.append((name, args[text_at])) or fn(*args)

    monkeypatch.setattr(native, "_direct", None)
    monkeypatch.setattr(native, "_direct_canonicalize", None)
    for name in ("_lender_canonicalize", "_lender_digest_text", "_run_text"):
        monkeypatch.setattr(native, name, counted(name, getattr(native, name)))
    refused = 0
    for strict, integers_only in ((False, False), (True, False), (False, True)):
        expected = outcome(python_backend.canonicalize, text, 4, strict, integers_only)
        if expected[0] != "error":
            continue
        refused += 1
        entries.clear()
        assert outcome(native.canonicalize, text, 4, strict, integers_only) == expected
        assert entries == [("_lender_canonicalize", text)]
        entries.clear()
        assert outcome(native.digest_text, text, 4, strict, "sha256", integers_only) == expected
        assert entries == [("_lender_digest_text", text)]
    assert refused
    assert native.canonicalize(b'{"b":1, "a":[2]}', 4, False) == b'{"a":[2],"b":1}'  # the lender, usable after


@pytest.mark.parametrize(
    "value, depth",
    [({"a": [1, 2], "z": float("nan")}, 100), ([1, {2: 3}], 100), ({"d": [[[[1]]]]}, 3), ([{1}], 100), ([2**60], 100)],
)
def test_a_refused_small_value_is_read_once_by_c_on_the_marshal_route(native, monkeypatch, value, depth):
    """On the marshal route (the cffi route's dumps and digest of a value), the lender lends the
    refusal: the value goes straight to the pure-Python backend, which raises rfc8785's error with
    its path (the C record, an offset into marshal's copy, cannot say where). Before, the ordinary
    entry (_canonicalize_marshal) read marshal's copy a second time to learn it was refused.
    Counted: the C reader's entries and the Python backend's whole walks."""
    entries: list = []

    def counted(name, fn):
        return lambda *args, **kwargs: entries.append(name) or fn(*args, **kwargs)

    monkeypatch.setattr(native, "_direct_digest", None)
    monkeypatch.setattr(native, "_pypy_dumps", None)  # PyPy's own writer set aside: the marshal route
    expected = outcome(python_backend.dumps, value, depth, False, None)
    assert expected[0] == "error"
    for name in ("_lender_canonicalize_marshal", "_lender_digest_marshal", "_canonicalize_marshal"):
        monkeypatch.setattr(native, name, counted(name, getattr(native, name)))
    monkeypatch.setattr(python_backend, "dumps", counted("python", python_backend.dumps))
    assert outcome(native._dumps, value, depth) == expected
    assert entries == ["_lender_canonicalize_marshal", "python"]
    entries.clear()
    assert outcome(native.digest, value, depth, "sha256") == expected
    assert entries == ["_lender_digest_marshal", "python"]


def test_digest_many_on_the_marshal_route_reads_a_refused_item_once_more(native, monkeypatch):
    """digest_many on the marshal route (the batch's marshal copy read by C, fjcs_digest_marshal_items):
    the item C refuses goes straight to the pure-Python backend for its error, with its index;
    the items after it one by one. Before, the per-item path (native.dumps) marshalled it and read
    it in C again first. Counted: native.dumps calls by item, and the Python backend's whole walks."""
    from fastjcs.core import digests

    walks: list = []

    def counted(name, fn):
        return lambda obj, *args, **kwargs: walks.append((name, obj)) or fn(obj, *args, **kwargs)

    monkeypatch.setattr(native, "_direct", None)  # the batch through cffi's marshal reader
    refused = {"a": [1, {2: 3}], "z": float("nan")}
    batch = [[1], {"b": 2}, refused, [3]]
    expected = None
    try:
        digests._python_digest_many(batch)
    except fastjcs.CanonicalizationError as exc:
        expected = (type(exc), str(exc), exc.index)
    assert expected is not None and expected[2] == 2
    monkeypatch.setattr(native, "dumps", counted("native", native.dumps))
    monkeypatch.setattr(python_backend, "dumps", counted("python", python_backend.dumps))
    calls = (
        lambda: native.digest_many(batch, 10_000, "sha256"),
        lambda: native.digest_many_rendered(batch, 10_000, "sha256"),
    )
    for call in calls:
        walks.clear()
        with pytest.raises(fastjcs.CanonicalizationError) as info:
            call()
        assert (type(info.value), str(info.value), info.value.index) == expected
        assert walks == [("python", refused)]


def test_a_refusal_lent_is_not_overwritten_before_it_is_read(native):
    """The record of a refusal is lent as a result is: a call made on the same lender before it is
    read (a finalizer's, a signal handler's) writes elsewhere, refused or not."""
    from fastjcs._native_ext import ffi, lib

    lender = ffi.gc(lib.fjcs_lender_open(), lib.fjcs_lender_close)
    first = lib.fjcs_lender_canonicalize(lender, b'{"a":1,"a":2}', 13, 10, 0)
    assert ffi.string(first) == b""
    second = lib.fjcs_lender_canonicalize(lender, b"[1,", 3, 10, 0)
    third = lib.fjcs_lender_canonicalize(lender, b"[3, 4]", 6, 10, 0)
    err = ffi.new("fjcs_error *")
    assert lib.fjcs_lender_error(second, err) == lib.FJCS_E_SYNTAX and (err.offset, err.expected) == (
        3,
        lib.FJCS_EXPECT_VALUE,
    )
    second[-1] = b"\0"
    assert lib.fjcs_lender_error(third, err) == lib.FJCS_OK and ffi.string(third) == b"[3,4]"
    third[-1] = b"\0"
    assert lib.fjcs_lender_error(first, err) == lib.FJCS_E_DUPKEY and err.offset == 7
    first[-1] = b"\0"


def test_refusals_raise_the_ordinary_error_and_the_lender_serves_after(backend):
    with pytest.raises(fastjcs.DuplicateKeyError) as info:
        fastjcs.canonicalize(b'{"a":1,"a":2}')
    assert info.value.offset == 7
    assert fastjcs.canonicalize(b'{"a":1}') == b'{"a":1}'  # the thread's lender is usable after
    with pytest.raises(fastjcs.FloatDomainError):
        fastjcs.format_double(float("nan"))
    with pytest.raises(fastjcs.IntegerDomainError):
        fastjcs.digest({"a": 2**53})
    with pytest.raises(fastjcs.NonIntegerNumberError):
        fastjcs.digest([1.5], integers_only=True)
    assert fastjcs.format_double(1e21) == "1e+21"


def test_digest_without_the_compiled_one_shot(native, monkeypatch):
    """When pycryptodome's compiled one-shot is not found, digest hashes through its public API."""
    from fastjcs._native_ext import ffi
    from fastjcs.core import native_hash

    value = {"b": [1.5, "\u20ac"], "a": None}
    want = python_backend.digest(value, 100, "sha384")
    monkeypatch.setitem(native_hash.digest_args, "sha384", (ffi.NULL, 48, b"sha384:", 0, None))
    assert native.digest(value, 100, "sha384") == want
    with pytest.raises(fastjcs.CircularReferenceError):
        cyclic: list = []
        cyclic.append(cyclic)
        native.digest(cyclic, 100, "sha384")


# Run in a fresh interpreter: in this one, what earlier tests allocated and freed moves glibc's
# threshold between heap and mmap, and a freed block can then stay resident in a heap.
_HUGE_THEN_SMALL = """
import gc
import threading
from fastjcs.core import native_backend as native

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

def body():
    # a list: 100 strings of 10,002 bytes, 99 commas and 2 brackets; 40 of them and 39 commas
    value = [["x" * 10_000] * 100] * 40
    before = rss()
    out = native.dumps(value, 10)
    assert len(out) == 40 * (100 * 10_002 + 99 + 2) + 39 + 2
    del out
    gc.collect()  # PyPy frees the dropped result at a collection, not here: the test is about the thread's buffer
    assert native.dumps([1], 10) == b"[1]"
    print(rss() - before)

thread = threading.Thread(target=body)  # a fresh thread: its buffer starts empty
thread.start()
thread.join()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
@rss_is_meaningful
def test_a_huge_result_is_not_kept_by_the_thread(native):
    """A small encoding (11 kB: marshal writes each repeat as a back-reference) with a huge
    canonical form (40 MB) makes the thread's buffer grow; the next small call frees it."""
    run = subprocess.run(
        [sys.executable, "-c", _HUGE_THEN_SMALL],
        capture_output=True,
        text=True,
        env={**os.environ, "FASTJCS_BACKEND": "native", **MEASURED_ENV},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) < 8_000_000, run.stdout


def test_remembered_member_orders_give_each_object_its_own_order(backend):
    """The C core remembers the canonical order of recent sequences of names (within a call, and
    from one small call to the next): objects of one shape, the same names in other input orders,
    names that differ in one byte or in length, and a duplicate after its shape was remembered must
    each still come out as the pure-Python backend writes them (or fail as it fails)."""
    shapes = [
        ["b", "a", "c"],
        ["a", "b", "c"],
        ["c", "b", "a"],
        ["b", "a", "cc"],
        ["b", "a", "d"],
        ["\u20ac", "z", "\U0001f600", "\ufb33"],
        [f"k{i}" for i in range(16, 0, -1)],
        [f"k{i}" for i in range(17, 0, -1)],
        ["x" * 300, "y" * 300],
    ]
    values = [{name: [i, j] for j, name in enumerate(shape)} for i in range(3) for shape in shapes]
    for value in values + [values]:  # each alone (one call each), then all in one document
        assert fastjcs.dumps(value) == python_backend.dumps(value, 100)
        text = json.dumps(value).encode()
        assert fastjcs.canonicalize(text) == python_backend.canonicalize(text, 100, False)
    with pytest.raises(fastjcs.DuplicateKeyError) as info:
        fastjcs.canonicalize(b'[{"b":1,"a":2},{"b":1,"a":2},{"b":1,"b":2}]')
    assert info.value.offset == 36  # the second "b" of the third object: 29 + 7
