"""pycryptodome's compiled one-shot found without cffi's C parser (native_hash.find_oneshot_raw:
the library file pycryptodome ships, opened by ctypes, the function checked against known
answers), and the older route through pycryptodome's own loader when that lookup fails.

Expected digests come from pycryptodome's public API (Crypto.Hash.SHA256/SHA384.new), and the
known answers of the FIPS 180-4 examples are checked against it too.
"""

from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.usefixtures("native")


def _public(algorithm: str, data: bytes) -> bytes:
    from Crypto.Hash import SHA256, SHA384

    return (SHA256 if algorithm == "sha256" else SHA384).new(data).digest()


def _digest_with(native, pointer, algorithm: str, data: bytes) -> bytes:
    size = 32 if algorithm == "sha256" else 48
    out = native.ffi.new("uint8_t[]", size)
    assert pointer(data, len(data), out, size) == 0
    return bytes(native.ffi.buffer(out, size))


@pytest.mark.parametrize("algorithm", ["sha256", "sha384"])
def test_the_known_answers_are_pycryptodomes(algorithm):
    """The constants the found function must reproduce are right: a typo in one would refuse the
    raw route everywhere (and the fallback would hide it)."""
    from fastjcs.core import native_hash

    for message, expected in native_hash.KNOWN_ANSWERS[algorithm]:
        assert _public(algorithm, message).hex() == expected


@pytest.mark.parametrize("algorithm", ["sha256", "sha384"])
def test_the_raw_route_finds_pycryptodomes_one_shot(native, algorithm):
    """Where pycryptodome ships its compiled modules as files (every wheel), the one-shot is found
    without the C parser, and hashes as the public API does on messages of 0 to 600 bytes (every
    tail length of a block, several blocks)."""
    from fastjcs.core import native_hash

    pointer = native_hash.find_oneshot_raw(algorithm)
    assert pointer != native.ffi.NULL
    rng = random.Random(5)
    for n in range(0, 600, 7):
        data = rng.randbytes(n)
        assert _digest_with(native, pointer, algorithm, data) == _public(algorithm, data)


def test_a_function_that_is_not_the_algorithm_is_refused(native, monkeypatch):
    """A layout where the name leads to another function (SHA-224's one-shot in SHA-256's place):
    the known answers refuse it. Catches a lookup that trusts the address without checking."""
    from fastjcs.core import native_hash

    monkeypatch.setitem(native_hash.VARIANTS, "sha256", (("Hash", "_SHA224", "SHA224_oneshot", None),))
    assert native_hash.find_oneshot_raw("sha256") == native.ffi.NULL


@pytest.mark.parametrize(
    "layout",
    [
        {"sha256": (("Hash", "_SHA256_renamed", "SHA256_oneshot", None),)},  # no such file
        {"sha256": (("Hash", "_SHA256", "SHA256_renamed_oneshot", None),)},  # no such function
        {"sha256": (("Hash", "_SHA256_shani", "SHA256_oneshot", "have_no_such_feature"),)},
    ],
)
def test_another_layout_falls_back_to_pycryptodomes_loader(native, monkeypatch, layout):
    """When pycryptodome's files are not what the raw route expects, find_oneshot takes the route
    through pycryptodome's loader: the batch still hashes in C, with the same digests. Catches a
    find_oneshot without the fallback (the batch would then go through the public API: the same
    digests, but has_compiled_oneshot false)."""
    from fastjcs.core import native_hash

    data = b"".join(b'{"b":%d,"a":[%d.50,"\\u00e9"]}\n' % (i, i) for i in range(300))
    want = native.digest_lines_hex(data, 100, False, "sha256", "p:")
    monkeypatch.setattr(native_hash, "VARIANTS", layout)
    monkeypatch.setattr(native_hash, "_hash_fns", {})
    monkeypatch.setattr(native_hash, "_libraries", {})
    monkeypatch.setattr(native_hash, "digest_args", {})
    assert native_hash.find_oneshot_raw("sha256") == native.ffi.NULL
    assert native_hash.has_compiled_oneshot("sha256")
    assert native.digest_lines_hex(data, 100, False, "sha256", "p:") == want


def test_pycryptodome_elsewhere_falls_back(native, monkeypatch):
    """Crypto's files not where its __file__ says: NULL from the raw route, never an exception."""
    import Crypto

    from fastjcs.core import native_hash

    monkeypatch.setattr(Crypto, "__file__", "/nonexistent/Crypto/__init__.py")
    monkeypatch.setattr(native_hash, "_libraries", {})
    assert native_hash.find_oneshot_raw("sha256") == native.ffi.NULL
    assert native_hash.find_oneshot_cffi("sha256") != native.ffi.NULL
