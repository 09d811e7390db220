"""Finding pycryptodome's compiled one-shot hash functions for the C core, which hashes the
canonical forms of a batch itself (and of one value, on the direct entry).

pycryptodome's per-call cost from Python (about 3.5 us) is larger than canonicalizing a small
object in C, so the batch functions hash in C too, through the one-shot functions of
pycryptodome's own compiled SHA-2 modules (SHA256_oneshot, SHA384_oneshot), reached by address
from the library object pycryptodome itself loaded. That address is private to pycryptodome;
it is checked at first use against pycryptodome's public API, and when anything about it is
off, the batch falls back to a loop over the public API (tested both ways).

The address is found first without cffi's C parser: importing Crypto.Hash.SHA256 has cffi parse
pycryptodome's declarations with pycparser (20-25 ms of every `fastjcs digest`), so
`find_oneshot_raw` opens the library file pycryptodome ships (the variant pycryptodome itself
would choose, asking its own CPU-feature module) with ctypes and reads the function's address;
the function must then give the FIPS 180-4 examples' digests (and one of 768 bytes) before it is
used. When anything about that is off (another layout, another release, no ctypes), the address
comes the older way, from the library object pycryptodome loaded (`find_oneshot_cffi`).
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


# Known answers: (message, digest hex) of the FIPS 180-4 examples ("", "abc", the two-block
# message) and of bytes(range(256)) * 3 (12 blocks; its digests are pycryptodome's public API's,
# which tests/c/test_raw_oneshot.py checks again).
_ABC2 = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
_ABC4 = (
    b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
)
KNOWN_ANSWERS: dict[str, tuple[tuple[bytes, str], ...]] = {
    "sha256": (
        (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (_ABC2, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (bytes(range(256)) * 3, "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363"),
    ),
    "sha384": (
        (b"", "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"),
        (b"abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (_ABC4, "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039"),
        (
            bytes(range(256)) * 3,
            "6bee04118003cf5630ccb22cdb53f78dc079231c7d09209955dfc34234cbab03d41da198e30bf1e77ef8b289ddd794ec",
        ),
    ),
}

#: pycryptodome's compiled modules of each algorithm, in the order pycryptodome prefers them
#: (Crypto/Hash/SHA256.py, SHA384.py): (folder, module, one-shot, the function of its
#: Util/_cpuid_c module that says the CPU has what the module needs, or None).
VARIANTS: dict[str, tuple[tuple[str, str, str, str | None], ...]] = {
    "sha256": (
        ("Hash", "_SHA256_shani", "SHA256_oneshot", "have_sha_ni"),
        ("Hash", "_SHA256_armv8", "SHA256_oneshot", "have_sha256_armv8"),
        ("Hash", "_SHA256", "SHA256_oneshot", None),
    ),
    "sha384": (
        ("Hash", "_SHA384_armv8", "SHA384_oneshot", "have_sha512_armv8"),
        ("Hash", "_SHA384", "SHA384_oneshot", None),
    ),
}

_libraries: dict[str, Any] = {}  # the libraries opened by find_oneshot_raw, by path, kept open


def answers_known(algorithm: str, pointer: Any) -> bool:
    """Does the one-shot `pointer` give the known digests of `algorithm`?"""
    size = DIGEST_SIZES[algorithm]
    for message, expected in KNOWN_ANSWERS[algorithm]:
        out = ffi.new("uint8_t[]", size)
        if pointer(message, len(message), out, size) != 0 or ffi.buffer(out, size)[:].hex() != expected:
            return False
    return True


def find_oneshot(algorithm: str) -> Any:
    """pycryptodome's compiled one-shot function as an fjcs_hash_fn, or ffi.NULL: from its
    library file (no C parser), else from the library object pycryptodome loaded."""
    fn = find_oneshot_raw(algorithm)
    return fn if fn != ffi.NULL else find_oneshot_cffi(algorithm)


def _open(root: str, folder: str, module: str, mode: int) -> Any:
    """pycryptodome's compiled `module` (in Crypto/`folder`) opened by ctypes, or None; found
    as pycryptodome finds it: the module's name and each of this Python's extension suffixes."""
    import ctypes
    import os
    from importlib.machinery import EXTENSION_SUFFIXES

    for suffix in EXTENSION_SUFFIXES:
        path = os.path.join(root, folder, module + suffix)
        if path in _libraries:
            return _libraries[path]
        if os.path.isfile(path):
            try:
                library = ctypes.CDLL(path, mode=mode)
            except OSError:
                continue
            _libraries[path] = library
            return library
    return None


def find_oneshot_raw(algorithm: str) -> Any:
    """pycryptodome's compiled one-shot from the library file pycryptodome would load for it
    (the first of VARIANTS whose CPU feature pycryptodome's _cpuid_c reports), its address
    read by ctypes, checked against KNOWN_ANSWERS; ffi.NULL when anything is not as expected."""
    try:
        import ctypes
        import os

        import Crypto

        root = os.path.dirname(os.path.abspath(Crypto.__file__))
        mode = ctypes.DEFAULT_MODE
        # as pycryptodome opens them (Crypto/Util/_raw_api.py), so that the first to open a
        # library binds its symbols the same way
        if hasattr(os, "RTLD_DEEPBIND") and not os.getenv("PYCRYPTODOME_DISABLE_DEEPBIND"):
            mode |= os.RTLD_DEEPBIND
        cpuid = None
        for folder, module, name, feature in VARIANTS[algorithm]:
            if feature is not None:
                if cpuid is None:
                    cpuid = _open(root, "Util", "_cpuid_c", mode) or False
                has = getattr(cpuid, feature, None) if cpuid else None
                if has is None:
                    continue
                has.restype, has.argtypes = ctypes.c_int, ()
                if not has():
                    continue
            library = _open(root, folder, module, mode)
            fn = getattr(library, name, None) if library is not None else None
            if fn is None:
                continue
            pointer = ffi.cast("fjcs_hash_fn", ctypes.cast(fn, ctypes.c_void_p).value or 0)
            return pointer if pointer != ffi.NULL and answers_known(algorithm, pointer) else ffi.NULL
        return ffi.NULL
    except Exception:  # noqa: BLE001 - any surprise means: the route through pycryptodome's loader
        return ffi.NULL


def find_oneshot_cffi(algorithm: str) -> Any:
    """pycryptodome's compiled one-shot from the library object its hash module loaded (cffi
    parses the module's declarations), checked against its public API, or ffi.NULL."""
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
