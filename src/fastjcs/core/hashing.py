"""The digest algorithms: one table, one-shot hashing through pycryptodome, and a digest
rendered "<algorithm>:<hex>".

This is the one module of fastjcs that imports `Crypto.Hash` (and the package never imports
hashlib): every digest fastjcs computes goes through `hash_module` and `oneshot`. pycryptodome is
imported on first use, not with `fastjcs`, because loading its compiled modules costs tens of
milliseconds that a caller who only canonicalizes should not pay.
"""

from __future__ import annotations

from typing import Any, Callable

from .errors import UnsupportedAlgorithmError

#: The algorithms fastjcs offers: name -> digest size in bytes. Names are exact: lowercase, no dash.
ALGORITHMS: dict[str, int] = {"sha256": 32, "sha384": 48}

_ONESHOT: dict[str, Callable[[bytes], bytes]] = {}


def check_algorithm(algorithm: object) -> str:
    """`algorithm` as an exact str if fastjcs offers it, else UnsupportedAlgorithmError.

    The comparison is exact: "SHA256", "sha-256" and " sha256" are refused like "sha512". A str
    subclass (a StrEnum member) is taken by its characters, never by its __eq__.
    """
    if not isinstance(algorithm, str):
        raise UnsupportedAlgorithmError(
            f"digest algorithm must be the str 'sha256' or 'sha384', not {type(algorithm).__name__}"
        )
    name = str.__str__(algorithm)  # an exact str with the same characters
    if name not in ALGORITHMS:
        raise UnsupportedAlgorithmError(
            f"unsupported digest algorithm {name!r}: fastjcs offers 'sha256' and 'sha384' "
            "(names are exact and lowercase)"
        )
    return name


def oneshot(algorithm: str) -> Callable[[bytes], bytes]:
    """The function computing the raw digest of a whole message under `algorithm`."""
    try:
        return _ONESHOT[algorithm]
    except KeyError:
        pass
    name = check_algorithm(algorithm)
    fn = _oneshot_of(hash_module(name))
    _ONESHOT[name] = fn
    return fn


def hash_module(algorithm: str) -> Any:
    """pycryptodome's module for `algorithm` (Crypto.Hash.SHA256 or SHA384)."""
    if check_algorithm(algorithm) == "sha256":
        from Crypto.Hash import SHA256

        return SHA256
    from Crypto.Hash import SHA384

    return SHA384


def _oneshot_of(module: Any) -> Callable[[bytes], bytes]:
    """The one-shot function of a pycryptodome hash module.

    Its module-level digest() calls the compiled one-shot (SHA256_oneshot) and is the fastest
    route from Python; releases without it get the same bytes from the public hash object.
    """
    fast = getattr(module, "digest", None)
    if fast is not None:
        return fast
    new = module.new

    def fallback(data: bytes) -> bytes:
        return new(data).digest()

    return fallback


def raw_digest(data: bytes, algorithm: str) -> bytes:
    """The raw digest of `data`."""
    return oneshot(algorithm)(data)


def hex_digest(data: bytes, algorithm: str = "sha256") -> str:
    """The digest of `data` as lowercase hex (no prefix).

    >>> hex_digest(b"abc")[:16]
    'ba7816bf8f01cfea'
    """
    return oneshot(algorithm)(data).hex()


def render(algorithm: str, raw: bytes) -> str:
    """`<algorithm>:<lowercase hex>`."""
    return algorithm + ":" + raw.hex()
