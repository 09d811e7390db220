"""Digests of canonical JSON, and the three representations of a digest.

A digest is the hash of the RFC 8785 canonical bytes, through pycryptodome (never hashlib), with
two algorithms: ``sha256`` and ``sha384``. Names are exact; any other value, "SHA256" and
"sha-256" included, raises UnsupportedAlgorithmError.

    >>> import fastjcs
    >>> fastjcs.digest({"b": 2, "a": 1.0})
    'sha256:43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777'
    >>> fastjcs.digest_text(b'{"a": 1, "b": 2}') == fastjcs.digest({"b": 2, "a": 1.0})
    True

A digest has three representations, and no function converts one into another on its own:

- prefixed, ``"<alg>:<lowercase hex>"`` (cMCP): what `digest` returns, `parse_digest` checks;
- bare lowercase hex, 64 characters (CPB identifiers): `parse_hex_digest` checks it;
- raw bytes: `render_digest(algorithm, raw)` renders them, `ParsedDigest.raw` gives them back.

Each function takes exactly one representation and refuses the others: a malformed or
wrong-representation string raises InvalidDigestError (a ValueError), a value of the wrong Python
type (bytes where a str is expected, or the reverse) raises TypeError.

Every name here is re-exported by `fastjcs`, and `fastjcs.digest` is the function, not this module:
write ``fastjcs.parse_digest`` or ``from fastjcs.core.digests import parse_digest``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from . import api, backends
from .api import DEFAULT_MAX_DEPTH, Data, as_bytes, check_default, check_depth, refuse_single
from .errors import CanonicalizationError, InvalidDigestError
from .hashing import ALGORITHMS, check_algorithm, render

__all__ = [
    "ALGORITHMS",
    "digest",
    "digest_text",
    "digest_many",
    "digest_texts",
    "ParsedDigest",
    "parse_digest",
    "parse_hex_digest",
    "render_digest",
    "digests_equal",
]

# ---------------------------------------------------------------------------------------------------
# Computing digests
# ---------------------------------------------------------------------------------------------------


def digest(
    obj: Any,
    algorithm: str = "sha256",
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    integers_only: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """The digest of ``fastjcs.dumps(obj)``, rendered ``"<algorithm>:<lowercase hex>"``.

    Raises UnsupportedAlgorithmError for any algorithm but "sha256" and "sha384" (checked before
    the value), and what `dumps` raises for a value JCS cannot represent (with
    `integers_only=True`, any float too: NonIntegerNumberError). `default` as `dumps` takes it.

    >>> digest({"x": 1})
    'sha256:5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22'
    >>> digest({"x": 1}, "sha384")[:15]
    'sha384:9ce595e9'
    """
    # The default path checks nothing it need not (a hot path): an exact str the table holds.
    alg = algorithm if type(algorithm) is str and algorithm in ALGORITHMS else check_algorithm(algorithm)
    if max_depth is not DEFAULT_MAX_DEPTH:
        max_depth = check_depth(max_depth)
    if default is not None:
        return backends.impl().digest(obj, max_depth, alg, bool(integers_only), check_default(default))
    return backends.impl().digest(obj, max_depth, alg, bool(integers_only))


def digest_text(
    data: Data,
    algorithm: str = "sha256",
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> str:
    """The digest of ``fastjcs.canonicalize(data)``: JSON text in, parsed strictly, then hashed
    (`strict_integers` and `integers_only` as `canonicalize` takes them).

    >>> digest_text('{"x": 1.0}') == digest({"x": 1})
    True
    """
    alg = algorithm if type(algorithm) is str and algorithm in ALGORITHMS else check_algorithm(algorithm)
    if type(data) is not bytes:
        data = api.as_buffer(data)
    if max_depth is not DEFAULT_MAX_DEPTH:
        max_depth = check_depth(max_depth)
    return backends.impl().digest_text(data, max_depth, bool(strict_integers), alg, bool(integers_only))


# The public digest and digest_text: these Python functions, or the direct entry's C functions of
# the same signatures (backends.public_functions), which serve the common calls without their
# frames and hand every other call to the Python function, kept here under its own name.
_python_digest, _python_digest_text = digest, digest_text
if not TYPE_CHECKING:
    _public = backends.public_functions({"digest": digest, "digest_text": digest_text})
    digest, digest_text = _public["digest"], _public["digest_text"]
    del _public


def digest_many(
    objs: Iterable[Any],
    algorithm: str = "sha256",
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    integers_only: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> list[str]:
    """``[digest(obj, algorithm) for obj in objs]`` in one call to the backend.

    The C backend canonicalizes and hashes the whole batch without returning to Python per item.
    All or nothing: the first value that cannot be canonicalized raises its error, with `index`
    set to its position in `objs`, and no digest is returned. `objs` must not be a str, a
    bytes-like object or a mapping (TypeError): they iterate as characters, bytes or keys.
    With `integers_only=True`, a float in an item is that item's NonIntegerNumberError. `default`
    as `dumps` takes it.

    >>> digest_many([{"x": 1}, [1, 2]]) == [digest({"x": 1}), digest([1, 2])]
    True
    """
    alg = check_algorithm(algorithm)
    refuse_single(objs, "digest_many takes an iterable of values", "to digest one value use digest()")
    items = objs if type(objs) is list else list(objs)
    depth = check_depth(max_depth)
    if default is not None:
        return backends.impl().digest_many_rendered(items, depth, alg, bool(integers_only), check_default(default))
    return backends.impl().digest_many_rendered(items, depth, alg, bool(integers_only))


# The public digest_many: this Python function or the direct entry's C function (as digest's above).
_python_digest_many = digest_many
if not TYPE_CHECKING:
    digest_many = backends.public_functions({"digest_many": digest_many})["digest_many"]


def digest_texts(
    texts: Iterable[Data],
    algorithm: str = "sha256",
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> list[str | CanonicalizationError]:
    """Digest many JSON texts (the lines of a JSONL file, say) in one call; one result per text.

    Each result is the rendered digest of that text, or the CanonicalizationError instance it
    raised (InvalidJSONError, DuplicateKeyError, ...), with `index` set to its position and
    `offset`/`lineno`/`colno` relative to that text. Nothing is raised for a bad item, so a
    caller can report it and go on; test each result with ``isinstance(result, str)``.
    A line's trailing newline is JSON whitespace and may stay; an empty line is an error item.
    An item that is not bytes, bytearray, memoryview or str raises TypeError for the whole call,
    and so does a `texts` that is itself one text (a str or bytes-like object) or a mapping.
    `strict_integers` and `integers_only` apply to every text, as `canonicalize` takes them.

    >>> results = digest_texts([b'{"x":1}\\n', b'{"x":', b'[]'])
    >>> results[0] == digest({"x": 1}), type(results[1]).__name__, results[1].index
    (True, 'InvalidJSONError', 1)
    """
    alg = check_algorithm(algorithm)
    refuse_single(texts, "digest_texts takes an iterable of JSON texts", "to digest one text use digest_text()")
    items = []
    for index, text in enumerate(texts):
        try:
            items.append(as_bytes(text))
        except TypeError as exc:
            raise TypeError(f"item {index}: {exc}") from None
    results = backends.impl().digest_texts(
        items, check_depth(max_depth), bool(strict_integers), alg, bool(integers_only)
    )
    prefix = alg + ":"
    return [prefix + r.hex() if isinstance(r, bytes) else r for r in results]


# ---------------------------------------------------------------------------------------------------
# The three representations
# ---------------------------------------------------------------------------------------------------

_LOWER_HEX = re.compile(r"[0-9a-f]+")
_ANY_HEX = re.compile(r"[0-9a-fA-F]+")
_WHITESPACE = re.compile(r"\s")


class ParsedDigest(NamedTuple):
    """A checked ``<alg>:<hex>`` digest: its algorithm name and its lowercase hex."""

    algorithm: str
    hex: str

    @property
    def raw(self) -> bytes:
        """The digest as raw bytes (an explicit conversion, asked for by name)."""
        return bytes.fromhex(self.hex)


def _need_str(value: object, what: str) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"{what} is a str; raw digest bytes are another representation "
            "and are not converted (render them with render_digest(algorithm, raw))"
        )
    if not isinstance(value, str):
        raise TypeError(f"{what} is a str, not {type(value).__name__}")
    if _WHITESPACE.search(value) is not None:
        raise InvalidDigestError(f"{what} contains whitespace: {value!r}")
    return str.__str__(value)


def _check_hex(hexpart: str, size: int, value: str) -> None:
    if _LOWER_HEX.fullmatch(hexpart) is None:
        if _ANY_HEX.fullmatch(hexpart) is not None:
            raise InvalidDigestError(f"digest hex must be lowercase: {value!r}")
        raise InvalidDigestError(f"digest is not hexadecimal: {value!r}")
    if len(hexpart) != 2 * size:
        raise InvalidDigestError(f"digest has {len(hexpart)} hex digits where {2 * size} are expected: {value!r}")


def parse_digest(value: str) -> ParsedDigest:
    """Check a prefixed digest ``"<alg>:<lowercase hex>"`` and split it.

    Refused with InvalidDigestError: a missing prefix (a bare hex digest is another
    representation), an unknown prefix (also "SHA256:" and "sha512:"), uppercase hex, a length
    that is not the algorithm's (64 for sha256, 96 for sha384), any whitespace. bytes are a
    TypeError.

    >>> parse_digest("sha256:" + "ab" * 32).algorithm
    'sha256'
    >>> parse_digest("ab" * 32)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    fastjcs.core.errors.InvalidDigestError: missing algorithm prefix: a bare hex digest (a CPB identifier) is ...
    """
    text = _need_str(value, "a prefixed digest")
    algorithm, colon, hexpart = text.partition(":")
    if not colon:
        if _ANY_HEX.fullmatch(text) is not None:
            raise InvalidDigestError(
                "missing algorithm prefix: a bare hex digest (a CPB identifier) is not '<alg>:<hex>'"
            )
        raise InvalidDigestError(f"missing algorithm prefix ('<alg>:<hex>'): {text!r}")
    if algorithm not in ALGORITHMS:
        raise InvalidDigestError(
            f"unknown digest algorithm prefix {algorithm!r}: 'sha256:' or 'sha384:' (exact, lowercase)"
        )
    _check_hex(hexpart, ALGORITHMS[algorithm], text)
    return ParsedDigest(algorithm, hexpart)


def parse_hex_digest(value: str) -> str:
    """Check a bare SHA-256 hex digest (a CPB identifier, ``\\A[0-9a-f]{64}\\Z``); return it.

    A prefixed digest is refused (InvalidDigestError), never stripped; so are uppercase hex,
    another length and whitespace. bytes are a TypeError.

    >>> parse_hex_digest("ab" * 32) == "ab" * 32
    True
    """
    text = _need_str(value, "a bare hex digest")
    if ":" in text:
        raise InvalidDigestError(f"a bare hex digest has no prefix: {text!r} is a prefixed digest")
    _check_hex(text, 32, text)
    return text


def digests_equal(a: str, b: str) -> bool:
    """Whether two digests name the same bytes, each written bare (SHA-256 hex, a CPB identifier) or
    prefixed (``"sha256:<hex>"``, ``"sha384:<hex>"``), without gluing strings together.

    Both are checked first (InvalidDigestError for an unknown prefix, uppercase hex, a wrong length,
    whitespace; bytes are a TypeError); a bare digest is SHA-256, so it never equals a sha384 one.
    The hex is compared in constant time (`hmac.compare_digest`), so where one side is expected and
    the other comes from a caller, the time taken says nothing about how much of it matched.

    >>> digests_equal("ab" * 32, "sha256:" + "ab" * 32)
    True
    >>> digests_equal("ab" * 32, "sha512:" + "ab" * 32)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    fastjcs.core.errors.InvalidDigestError: unknown digest algorithm prefix 'sha512': 'sha256:' or ...
    """
    from hmac import compare_digest  # constant time; hmac's import of hashlib is not used for digests

    x, y = _either(a), _either(b)
    return compare_digest(x.hex.encode("ascii"), y.hex.encode("ascii")) and x.algorithm == y.algorithm


def _either(value: str) -> ParsedDigest:
    text = _need_str(value, "a digest")
    if ":" in text:
        return parse_digest(text)
    return ParsedDigest("sha256", parse_hex_digest(text))


def render_digest(algorithm: str, raw: bytes) -> str:
    """Render raw digest bytes as ``"<algorithm>:<lowercase hex>"``.

    `raw` must be bytes (or bytearray) of the algorithm's length; a str, hex or not, is a TypeError.

    >>> render_digest("sha256", bytes(32)) == "sha256:" + "0" * 64
    True
    """
    alg = check_algorithm(algorithm)
    if isinstance(raw, str):
        raise TypeError(
            "raw digest must be bytes; a str (hex or prefixed) is another representation and is not converted"
        )
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError(f"raw digest must be bytes, not {type(raw).__name__}")
    if len(raw) != ALGORITHMS[alg]:
        raise InvalidDigestError(f"a raw {alg} digest has {ALGORITHMS[alg]} bytes, not {len(raw)}")
    return render(alg, bytes(raw))
