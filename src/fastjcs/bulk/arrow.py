"""JSON texts in Apache Arrow columns: canonical forms and digests, a column at a time.

`canonicalize_array` and `digest_array` take a pyarrow Array or ChunkedArray of JSON texts, of type
string, large_string, binary or large_binary (what Parquet, Polars, DuckDB, Dask and Spark hand
over), and return pyarrow arrays of the same length, row for row:

- `canonicalize_array`: the canonical bytes, as binary (large_binary for a large_* input);
- `digest_array`: ``"<algorithm>:<hex>"`` strings (string; large_string for a large_* input), or
  with ``raw=True`` the digest bytes as fixed_size_binary(32 or 48).

With the C core, each chunk is one C call that reads the rows straight from the Arrow buffers
(offsets, data, validity: no copy) and writes the result column's buffers: no Python object per
row. The pure-Python backend loops over the rows and gives the same answers and the same errors.

A null row gives a null result. A row that cannot be canonicalized is handled by `errors`:

- ``"raise"`` (the default): its error is raised, the exception `canonicalize` raises for that
  row's bytes (InvalidJSONError, DuplicateKeyError, ...), with `index` set to the row's number in
  the whole array (chunks counted) and `offset` the byte offset of the error in that row;
- ``"null"``: its result is null, and the call returns `Results(values, errors)`, where `errors`
  is a string array of the same shape holding "ErrorClass: message" for each failed row and null
  for every other row; a billion-row job is not lost to one bad row.

    >>> import fastjcs, pyarrow as pa
    >>> from fastjcs.arrow import canonicalize_array, digest_array
    >>> canonicalize_array(pa.array(['{"b": 1E2, "a": true}', None])).to_pylist()
    [b'{"a":true,"b":100}', None]
    >>> digest_array(pa.array(['{"x": 1.0}']))[0].as_py() == fastjcs.digest({"x": 1})
    True
    >>> values, errors = digest_array(pa.array(['[1]', '{"x":']), errors="null")
    >>> values.null_count, errors[1].as_py()
    (1, 'InvalidJSONError: unexpected end of input, expected a value: line 1 column 6 (byte 5)')

Python values (not JSON text) keep going through `fastjcs.digest_many`. Needs pyarrow (the
`arrow` extra: ``pip install '.[arrow]'`` from a fastjcs checkout).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Union

try:
    import pyarrow as pa
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"fastjcs.arrow needs pyarrow (install the arrow extra: pip install '.[arrow]' from a fastjcs checkout): {exc}"
    ) from exc

from ..core import backends, hashing
from ..core.api import DEFAULT_MAX_DEPTH, check_depth
from ..core.errors import CanonicalizationError

__all__ = ["Results", "canonicalize_array", "digest_array"]

ArrayLike = Union["pa.Array", "pa.ChunkedArray"]

#: The error policies.
POLICIES = ("raise", "null")


class Results(NamedTuple):
    """What `errors="null"` returns: the results, with a null for each failed row, and a string
    array of the same shape with "ErrorClass: message" for each failed row (null elsewhere)."""

    values: ArrayLike
    errors: ArrayLike


class _Job(NamedTuple):
    """One call's settings."""

    digest: bool  # digests (else canonical forms)
    algorithm: str
    raw: bool  # raw digests (fixed_size_binary) rather than "<alg>:<hex>"
    raise_first: bool  # errors="raise"
    max_depth: int
    strict_integers: bool
    integers_only: bool


# ---- the public functions --------------------------------------------------------------------


def canonicalize_array(
    arr: ArrayLike,
    *,
    errors: str = "raise",
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> ArrayLike | Results:
    """The canonical form (RFC 8785) of each JSON text of a pyarrow Array or ChunkedArray.

    Returns binary (large_binary for a large_string or large_binary input), of the same shape;
    nulls stay null. `errors` ("raise" or "null") and the text options (`max_depth`,
    `strict_integers`, `integers_only`) are as the module and `fastjcs.canonicalize` describe.
    An array of another type is a TypeError (cast it first); an array whose offsets are not
    valid (decreasing, or past its data buffer) a ValueError.
    """
    job = _job(False, "sha256", False, errors, max_depth, strict_integers, integers_only)
    return _apply(arr, job)


def digest_array(
    arr: ArrayLike,
    *,
    algorithm: str = "sha256",
    raw: bool = False,
    errors: str = "raise",
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> ArrayLike | Results:
    """The digest of the canonical form of each JSON text of a pyarrow Array or ChunkedArray:
    ``fastjcs.digest_text`` per row.

    Returns ``"<algorithm>:<lowercase hex>"`` strings (large_string for a large_* input), or with
    `raw` the digest bytes as fixed_size_binary; nulls stay null. `algorithm` is "sha256" or
    "sha384" (UnsupportedAlgorithmError otherwise); `errors` and the text options as in
    `canonicalize_array`.
    """
    alg = hashing.check_algorithm(algorithm)
    job = _job(True, alg, bool(raw), errors, max_depth, strict_integers, integers_only)
    return _apply(arr, job)


def _job(
    digest: bool, algorithm: str, raw: bool, errors: str, max_depth: int, strict_integers: bool, integers_only: bool
) -> _Job:
    if errors not in POLICIES:
        raise ValueError(f"errors must be 'raise' or 'null', not {errors!r}")
    return _Job(
        digest, algorithm, raw, errors == "raise", check_depth(max_depth), bool(strict_integers), bool(integers_only)
    )


# ---- arrays and chunks -----------------------------------------------------------------------


def _is_large(t: Any) -> bool:
    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        return True
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return False
    raise TypeError(
        f"an array of JSON texts is string, large_string, binary or large_binary, not "
        f"{t}; cast it first (arr.cast(pa.large_string()))"
    )


def _result_type(job: _Job, large: bool) -> Any:
    if not job.digest:
        return pa.large_binary() if large else pa.binary()
    if job.raw:
        return pa.binary(hashing.ALGORITHMS[job.algorithm])
    return pa.large_string() if large else pa.string()


def _apply(arr: ArrayLike, job: _Job) -> ArrayLike | Results:
    if isinstance(arr, pa.ChunkedArray):
        chunks, chunked = list(arr.chunks), True
    elif isinstance(arr, pa.Array):
        chunks, chunked = [arr], False
    else:
        raise TypeError(
            "canonicalize_array and digest_array take a pyarrow Array or ChunkedArray of "
            f"JSON texts, not {type(arr).__name__} (Python values: fastjcs.digest_many; "
            "a list of texts: fastjcs.digest_texts)"
        )
    large = _is_large(arr.type)
    out_type = _result_type(job, large)
    values: list[Any] = []
    messages: list[Any] = []
    base = 0
    for chunk in chunks:
        result, failures = _chunk(chunk, job, large, out_type)
        if failures and job.raise_first:
            row, exc = failures[0]
            exc.index = base + row
            raise exc
        values.append(result)
        messages.append(_messages(len(chunk), failures))
        base += len(chunk)
    if chunked:
        out: Any = pa.chunked_array(values, type=out_type)
        errors: Any = pa.chunked_array(messages, type=pa.string())
    else:
        out, errors = values[0], messages[0]
    return out if job.raise_first else Results(out, errors)


def _messages(n: int, failures: list[tuple[int, CanonicalizationError]]) -> Any:
    """The error-message column of a chunk: "ErrorClass: message" per failed row."""
    if not failures:
        return pa.nulls(n, pa.string())
    texts: list[str | None] = [None] * n
    for row, exc in failures:
        texts[row] = f"{type(exc).__name__}: {exc}"
    return pa.array(texts, pa.string())


def _malformed(row: int) -> ValueError:
    return ValueError(f"malformed Arrow array: the offsets of row {row} decrease or point past the data buffer")


def _buffers(chunk: Any, large: bool) -> tuple[Any, Any, Any]:
    """(validity or None, offsets, data) of a chunk, checked to cover its rows."""
    validity, offsets, data = chunk.buffers()[:3]
    n, first = len(chunk), chunk.offset
    width = 8 if large else 4
    if (
        offsets is None
        or offsets.size < (first + n + 1) * width
        or (validity is not None and validity.size * 8 < first + n)
    ):
        raise ValueError("malformed Arrow array: its buffers are smaller than its length says")
    return validity, offsets, data


def _chunk(chunk: Any, job: _Job, large: bool, out_type: Any) -> tuple[Any, list[tuple[int, CanonicalizationError]]]:
    """One chunk's result array and its failed rows (only the first with errors="raise")."""
    n = len(chunk)
    if n == 0:
        return pa.array([], out_type), []
    validity, offsets, data = _buffers(chunk, large)
    columns = backends.arrow_columns()
    if columns is not None:
        done = _native_chunk(columns, chunk, job, large, out_type, validity, offsets, data)
        if done is not None:
            return done
    return _python_chunk(chunk, job, large, out_type, validity, offsets, data)


# ---- the C path ------------------------------------------------------------------------------


def _native_chunk(
    _c: Any, chunk: Any, job: _Job, large: bool, out_type: Any, validity: Any, offsets: Any, data: Any
) -> tuple[Any, list[tuple[int, CanonicalizationError]]] | None:
    """The chunk by `_c`, the C path of Arrow columns (`backends.arrow_columns()`)."""
    n = len(chunk)
    col = _c.Column(
        offsets.address,
        large,
        data.address if data is not None else 0,
        data.size if data is not None else 0,
        validity.address if validity is not None else 0,
        chunk.offset,
        n,
    )
    options = (col, job.max_depth, job.strict_integers, job.integers_only)
    if job.digest:
        done = _c.digest_column(*options, job.algorithm, not job.raw, job.raise_first)
        if done is None:  # no compiled hash function for C: the loop below, on the C parser
            return None
        values, offs, valid, failures, bad = done
        if bad is not None:
            raise _malformed(bad)
        if job.raw:
            return pa.Array.from_buffers(out_type, n, [pa.py_buffer(valid), pa.py_buffer(values)]), failures
        wide = pa.Array.from_buffers(
            pa.large_string(), n, [pa.py_buffer(valid), pa.py_buffer(offs), pa.py_buffer(values)]
        )
    else:
        (address, size, owner), offs, valid, failures, bad = _c.canonicalize_column(*options, job.raise_first)
        if bad is not None:
            raise _malformed(bad)
        payload = pa.foreign_buffer(address, size, base=owner) if size else pa.py_buffer(b"")
        wide = pa.Array.from_buffers(pa.large_binary(), n, [pa.py_buffer(valid), pa.py_buffer(offs), payload])
    return _narrow(wide, out_type), failures


def _narrow(arr: Any, out_type: Any) -> Any:
    """A large_* result as the (32-bit offset) type asked for."""
    if arr.type == out_type:
        return arr
    try:
        return arr.cast(out_type)
    except pa.ArrowInvalid as exc:
        raise OverflowError(
            f"the results of one chunk pass 2 GiB, the most a {out_type} array "
            f"holds; cast the input to a large_ type first ({exc})"
        ) from None


# ---- the Python path -------------------------------------------------------------------------


def _python_chunk(
    chunk: Any, job: _Job, large: bool, out_type: Any, validity: Any, offsets: Any, data: Any
) -> tuple[Any, list[tuple[int, CanonicalizationError]]]:
    """The same answers by a loop over the rows, through the backend in use."""
    n, first = len(chunk), chunk.offset
    size = 8 if large else 4
    offs = memoryview(offsets)[: (first + n + 1) * size].cast("q" if large else "i")
    payload = memoryview(data) if data is not None else memoryview(b"")
    bits = memoryview(validity) if validity is not None else None
    canonicalize = backends.impl().canonicalize
    oneshot = hashing.oneshot(job.algorithm) if job.digest else None
    prefix = job.algorithm + ":"
    results: list[Any] = []
    failures: list[tuple[int, CanonicalizationError]] = []
    for i in range(n):
        slot = first + i
        if bits is not None and not (bits[slot >> 3] >> (slot & 7)) & 1:
            results.append(None)
            continue
        a, b = offs[slot], offs[slot + 1]
        if a < 0 or b < a or b > len(payload):
            raise _malformed(i)
        try:
            canonical = canonicalize(bytes(payload[a:b]), job.max_depth, job.strict_integers, job.integers_only)
        except CanonicalizationError as exc:
            exc.index = i
            failures.append((i, exc.with_traceback(None)))
            if job.raise_first:
                break
            results.append(None)
            continue
        if oneshot is None:
            results.append(canonical)
        elif job.raw:
            results.append(oneshot(canonical))
        else:
            results.append(prefix + oneshot(canonical).hex())
    if job.raise_first and failures:
        return None, failures
    return pa.array(results, out_type), failures
