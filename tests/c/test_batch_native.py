"""The C batch digests (object.c/text.c, hashing through pycryptodome's compiled one-shot functions)
against the pure-Python backend, and against their own public-API fallback.

Expected digests come from the Python backend (itself checked against rfc8785 + pycryptodome in
test_digest.py). The batches here are long enough to cross the C side's internal limits: more
failing lines than one call reports (256), items past the first failure.
"""

from __future__ import annotations

import json
import random

import pytest

from fastjcs.core import jsonl_split as jsonl
from fastjcs.core import python_backend as _python

pytestmark = pytest.mark.usefixtures("native")

GOOD = [{"b": 1, "a": "x"}, [1.5, "\u20ac", None], "s", 12345678901234567890.0, {"k": {"z": [], "y": {}}}]
BAD = [b'{"a": 1,}', b"[1, 2", b'{"k": 1, "k": 2}', b"1e400", b"\xff", b"", b'"\\ud800"', b"01"]


def _jsonl(rng: random.Random, lines: int, bad_share: float) -> bytes:
    out = []
    for _ in range(lines):
        if rng.random() < bad_share:
            out.append(rng.choice(BAD))
        else:
            out.append(json.dumps(rng.choice(GOOD), ensure_ascii=rng.random() < 0.5).encode())
    return b"\n".join(out) + rng.choice([b"", b"\n"])


@pytest.mark.parametrize("algorithm", ["sha256", "sha384"])
@pytest.mark.parametrize("bad_share", [0.0, 0.1, 0.9])
def test_lines_hex_native_equals_python(native, algorithm, bad_share):
    data = _jsonl(random.Random(f"{algorithm}{bad_share}"), 3000, bad_share)
    got = native.digest_lines_hex(data, 100, False, algorithm, algorithm + ":")
    want = _python.digest_lines_hex(data, 100, False, algorithm, algorithm + ":")
    assert got[0] == want[0] and got[1] == want[1] == len(jsonl.split_lines(data))
    assert got[2] == want[2]  # the Python backend words them from its exceptions
    if bad_share > 0.5:
        assert len(got[2]) > 256  # more than one C call's worth of failures


# Failures whose wording depends on the bytes at the error: the character (ASCII, control,
# non-ASCII, a lone or truncated UTF-8 byte, a byte order mark at the start of a line, the end of
# the line), the repeated name (escaped or not), the depth limit.
WORDED = [
    '{"a": \u00e9}',
    "[1, \x01]",
    "[1, \u2028]",
    '{"a":"\u00e9"} \ufeff',
    "\ufeff[1]",
    "[1, 2",
    '{"a\\u0062": 1, "ab": 2}',
    '{"\\"": 1, "\\"": 2}',
    '{"k": {"x": 1, "x": 2}}',
    '{"\u00e9": 1, "\\u00e9": 2}',
    "[[[[[[1]]]]]]",
    "[1, 2]]",
    "{'a': 1}",
    "[tru]",
    "nul",
]


def test_failures_worded_once_per_kind_read_as_each_exception_says(native):
    """The C path words a failure once per (code, message, character or name) and reuses it:
    every line, in any order and repeated, must read as the Python backend's exception says."""
    rng = random.Random(11)
    texts = [t.encode("utf-8") for t in WORDED] + [b"[\xc3]", b'"\xe2\x82"', b"[1]\xff", b"\xed\xa0\x80"]
    data = b"\n".join(rng.choice(texts) for _ in range(2000)) + b"\n"
    got = native.digest_lines_hex(data, 5, False, "sha256", "sha256:")
    want = _python.digest_lines_hex(data, 5, False, "sha256", "sha256:")
    assert got == want
    assert {what.split(":")[0] for *_, what in got[2]} == {"InvalidJSONError", "DuplicateKeyError", "DepthLimitError"}


def test_lines_native_equals_python(native):
    data = _jsonl(random.Random(7), 500, 0.2)
    got, want = native.digest_lines(data, 100, True, "sha256"), _python.digest_lines(data, 100, True, "sha256")
    assert [r if type(r) is bytes else (type(r).__name__, r.offset, r.index) for r in got] == [
        r if type(r) is bytes else (type(r).__name__, r.offset, r.index) for r in want
    ]


def test_many_stops_at_the_first_bad_item(native):
    objs = [GOOD[i % len(GOOD)] for i in range(1000)]
    assert native.digest_many(objs, 100, "sha256") == _python.digest_many(objs, 100, "sha256")
    objs[700] = {"x": float("nan")}
    with pytest.raises(Exception) as info:
        native.digest_many(objs, 100, "sha256")
    assert type(info.value).__name__ == "FloatDomainError" and info.value.index == 700


def test_public_api_fallback_gives_the_same_digests(native, monkeypatch):
    """Without pycryptodome's compiled one-shot (address not found or failing its self-check),
    the batches hash through pycryptodome's public API and answer the same."""
    data = _jsonl(random.Random(3), 400, 0.3)
    texts = jsonl.split_lines(data)
    objs = [GOOD[i % len(GOOD)] for i in range(50)]
    fast = (
        native.digest_many(objs, 100, "sha384"),
        native.digest_lines_hex(data, 100, False, "sha384", "p:"),
        native.digest_texts(texts, 100, False, "sha384"),
    )
    from fastjcs.core import native_hash

    monkeypatch.setattr(native_hash, "_hash_fns", {"sha256": native.ffi.NULL, "sha384": native.ffi.NULL})
    slow = (
        native.digest_many(objs, 100, "sha384"),
        native.digest_lines_hex(data, 100, False, "sha384", "p:"),
        native.digest_texts(texts, 100, False, "sha384"),
    )
    assert fast[0] == slow[0]
    assert fast[1] == slow[1]
    assert [r if type(r) is bytes else str(r) for r in fast[2]] == [r if type(r) is bytes else str(r) for r in slow[2]]


def test_the_compiled_hash_is_found_here(native):
    """Where pycryptodome runs on cffi (as it does wherever fastjcs installs), the fast path is on:
    a silent fallback would cost the batch its speed without anyone noticing."""
    from Crypto.Util import _raw_api

    if getattr(_raw_api, "backend", None) != "cffi":
        pytest.skip("pycryptodome is not on its cffi backend here")
    from fastjcs.core import native_hash

    assert native_hash.find_oneshot("sha256") != native.ffi.NULL
    assert native_hash.find_oneshot("sha384") != native.ffi.NULL


@pytest.mark.parametrize("prefix", ["", "p:", "sha256:", "x" * 15, "y" * 16, "z" * 17, "long-prefix/" * 5])
def test_lines_hex_prefix_of_any_length(native, prefix):
    """fjcs_digest_lines_hex writes each line's prefix from a 16-byte block it fills once (one
    store a line, the hex after it at the prefix's length) and a longer prefix as it is: each
    line is the prefix, the hex of pycryptodome's SHA-256 of the canonical line, and a newline.
    Writing the hex where the prefix starts, or the block in place of a prefix longer than 16
    bytes, each fail."""
    from Crypto.Hash import SHA256

    lines = [b'{"b":1,"a":[true]}', b"[1.50]", b'{"a":"\xc3\xa9"}'] * 3  # canonical, then not, then canonical
    canonical = [b'{"a":[true],"b":1}', b"[1.5]", b'{"a":"\xc3\xa9"}'] * 3
    want = b"".join(prefix.encode() + SHA256.new(c).hexdigest().encode() + b"\n" for c in canonical)
    assert native.digest_lines_hex(b"\n".join(lines), 100, False, "sha256", prefix) == (want, len(lines), [])
