"""Finding pycryptodome's compiled one-shot hash functions for the C core, which hashes the
canonical forms of a batch itself (and of one value, on the direct entry).

pycryptodome's per-call cost from Python (about 3.5 us) is larger than canonicalizing a small
object in C, so the batch functions hash in C too, through the one-shot functions of
pycryptodome's own compiled SHA-2 modules (SHA256_oneshot, SHA384_oneshot), reached by address
from the library object pycryptodome itself loaded. That address is private to pycryptodome;
it is checked at first use against pycryptodome's public API, and when anything about it is
off, the batch falls back to a loop over the public API (tested both ways).
"""

from __future__ import annotations

from typing import Any

from .._native_ext import ffi  # ImportError here means: not built
from . import hashing as _hash
from ._direct_loader import direct as _direct

DIGEST_SIZES = _hash.ALGORITHMS
_hash_fns: dict[str, Any] = {}


def public_digest(algorithm: str, data: bytes) -> bytes:
    """The raw digest through pycryptodome's public API."""
    return _hash.oneshot(algorithm)(data)


def find_oneshot(algorithm: str) -> Any:
    """pycryptodome's compiled one-shot function as an fjcs_hash_fn, or ffi.NULL."""
    try:
        from Crypto.Util import _raw_api

        if getattr(_raw_api, "backend", None) != "cffi":
            return ffi.NULL
        library = getattr(_hash.hash_module(algorithm), f"_raw_{algorithm}_lib")
        fn = getattr(library, f"{algorithm.upper()}_oneshot")  # SHA256_oneshot, SHA384_oneshot
        pointer = ffi.cast("fjcs_hash_fn", int(_raw_api.ffi.cast("uintptr_t", fn)))
        size = DIGEST_SIZES[algorithm]
        for probe in (b"", b"abc", bytes(range(256)) * 3):
            out = ffi.new("uint8_t[]", size)
            if pointer(probe, len(probe), out, size) != 0 or ffi.buffer(out, size)[:] != public_digest(
                algorithm, probe
            ):
                return ffi.NULL
        return pointer
    except Exception:  # noqa: BLE001 - any surprise means: use the public API
        return ffi.NULL


def has_compiled_oneshot(algorithm: str) -> bool:
    """Does the batch path hash in C, through pycryptodome's compiled one-shot function?"""
    return hash_fn(algorithm) != ffi.NULL


def hash_fn(algorithm: str) -> Any:
    """pycryptodome's compiled one-shot for `algorithm`, found once, or ffi.NULL."""
    fn = _hash_fns.get(algorithm)
    if fn is None:
        fn = _hash_fns[algorithm] = find_oneshot(algorithm)
    return fn


def address(fn: Any) -> int:
    """The address of a C function pointer, for the direct entry."""
    return int(ffi.cast("uintptr_t", fn))


# The hashers made, by (one-shot, size, prefix), each with the prefix it points to (kept alive).
_hashers: dict[tuple[int, int, bytes | None], tuple[Any, Any]] = {}


def hasher(fn: Any, size: int, prefix: bytes | None) -> Any:
    """The fjcs_hasher of the C digest functions for a one-shot, a size and a prefix (None: raw
    digests, for fjcs_arrow_digest), made once."""
    key = (address(fn), size, prefix)
    made = _hashers.get(key)
    if made is None:
        text = ffi.new("char[]", prefix) if prefix is not None else ffi.NULL
        made = _hashers[key] = (ffi.new("fjcs_hasher *", {"fn": fn, "size": size, "prefix": text}), text)
    return made[0]


# Per algorithm: (pycryptodome's one-shot as an fjcs_hash_fn, digest size, b"<algorithm>:", the
# one-shot's address for the direct entry (0 when there is none), and the fjcs_hasher of the one-shot,
# the size and the prefix, None when there is no one-shot).
digest_args: dict[str, tuple[Any, int, bytes, int, Any]] = {}


def digest_args_of(algorithm: str) -> tuple[Any, int, bytes, int, Any]:
    """The `digest_args` entry of `algorithm`, made on first use. Where there is a one-shot and the
    direct entry, the entry is registered with it too (`register_hasher`): from then on the public
    `digest` and `digest_text` (its C functions) serve the algorithm without a Python frame."""
    args = digest_args.get(algorithm)
    if args is None:
        fn = hash_fn(algorithm)
        size, prefix = DIGEST_SIZES[algorithm], f"{algorithm}:".encode("ascii")
        args = digest_args[algorithm] = (
            fn,
            size,
            prefix,
            address(fn) if fn != ffi.NULL else 0,
            hasher(fn, size, prefix) if fn != ffi.NULL else None,
        )
        if _direct is not None and args[3]:
            _direct.register_hasher(algorithm, args[3], size, prefix)
    return args
