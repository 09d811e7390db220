"""The C path of `fastjcs.arrow`: a column of JSON texts in Arrow buffers, canonicalized or
digested by one C call (csrc/arrow.c), results written into new column buffers.

This module knows nothing of pyarrow: it takes a `Column` (the addresses of an array's buffers,
which the caller keeps alive for the duration of the call) and gives back the result buffers as
Python objects (bytearray, or an owner of C memory with its address) and the failed rows. It
reaches the C extension as `fastjcs.core.native_backend` does, and words every error through
`fastjcs.core.native_errors` as it does, so a failed row raises what `canonicalize` raises for the
same bytes.
Importing it raises ImportError when the extension is not built.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._native_ext import ffi, lib  # ImportError here means: not built
from . import native_backend as _native
from . import native_errors as _errors
from . import native_hash as _hashfn
from .errors import CanonicalizationError


class Column(NamedTuple):
    """The buffers of an Arrow variable-size binary array (string, binary, large_string,
    large_binary), by address: row i is data[offsets[offset + i]:offsets[offset + i + 1]], null
    when bit offset + i of the validity bitmap is 0 (validity 0: no nulls)."""

    offsets: int
    large: bool
    data: int
    data_len: int
    validity: int
    offset: int
    length: int


#: Failures recorded per C call when every failure is collected.
_CAPACITY = 256

#: A failed row: its number in the column and the exception canonicalize raises for its bytes.
#: Each function below also gives back the first row whose offsets decrease or point past the data
#: buffer (not a valid Arrow array; the rows after it are not done), or None.
Failure = tuple[int, CanonicalizationError]


def _texts(col: Column) -> Any:
    texts = ffi.new("fjcs_arrow_texts *")
    texts.offsets = ffi.cast("void *", col.offsets)
    texts.large = 1 if col.large else 0
    texts.data = ffi.cast("char *", col.data)
    texts.data_len = col.data_len
    texts.validity = ffi.cast("uint8_t *", col.validity)
    texts.offset = col.offset
    return texts


def _failures(items: Any, count: int, col: Column, max_depth: int) -> list[Failure]:
    """The exception of each failed row, worded as canonicalize words it, `index` set to the row."""
    found: list[Failure] = []
    for k in range(count):
        item = items[k]
        if item.err.code == lib.FJCS_E_HASH:  # pragma: no cover - pycryptodome failed
            raise RuntimeError("the hash function failed")
        row = ffi.buffer(ffi.cast("char *", col.data + item.start), item.len)[:] if item.len else b""
        exc = _errors.item_error(item.err, row, max_depth)
        exc.index = int(item.index)
        found.append((int(item.index), exc))
    return found


def _run(call: Any, col: Column, first_only: bool, max_depth: int) -> tuple[list[Failure], int | None]:
    """Call `call(start, failed, done)` until every row is done (or, with `first_only`, until the
    first failure); the failed rows, and the malformed row or None."""
    capacity = 1 if first_only else _CAPACITY
    items = ffi.new("fjcs_item[]", capacity)
    failed = ffi.new("fjcs_failures *", {"items": items, "capacity": capacity})
    counts = ffi.new("size_t[1]")  # done
    failures: list[Failure] = []
    done = 0
    while done < col.length:
        rc = call(done, failed, counts)
        if rc == lib.FJCS_E_NOMEM:
            raise MemoryError("fastjcs: out of memory")
        if rc == lib.FJCS_E_ENCODING:
            return failures, int(counts[0])
        failures += _failures(items, int(failed.count), col, max_depth)
        done = int(counts[0])
        if first_only and failures:
            break
    return failures, None


def canonicalize_column(
    col: Column, max_depth: int, strict_integers: bool, integers_only: bool, first_only: bool
) -> tuple[tuple[int, int, Any], bytearray, bytearray, list[Failure], int | None]:
    """The canonical form of every row: ((data address, size, owner), int64 offsets, validity
    bitmap, failed rows, malformed row). The data is C memory, freed when `owner` is collected."""
    flags = _native._flags(strict_integers, integers_only)
    texts = _texts(col)
    n = col.length
    offsets = bytearray(8 * (n + 1))
    validity = bytearray((n + 7) // 8)
    out = ffi.new("fjcs_buf *")
    owner = ffi.gc(out, lib.fjcs_buf_free)
    c_offsets = ffi.from_buffer("int64_t[]", offsets)
    c_validity = ffi.from_buffer("uint8_t[]", validity)

    def call(start: int, failed: Any, done: Any) -> int:
        return lib.fjcs_arrow_canonicalize(texts, start, n, max_depth, flags, out, c_offsets, c_validity, failed, done)

    failures, bad = _run(call, col, first_only, max_depth)
    address = int(ffi.cast("uintptr_t", out.data))
    return (address, int(out.len), owner), offsets, validity, failures, bad


def digest_column(
    col: Column,
    max_depth: int,
    strict_integers: bool,
    integers_only: bool,
    algorithm: str,
    rendered: bool,
    first_only: bool,
) -> tuple[bytearray, bytearray | None, bytearray, list[Failure], int | None] | None:
    """The digest of every row: (values, int64 offsets or None, validity bitmap, failed rows,
    malformed row).

    Rendered: values hold "<algorithm>:<hex>" per row with a result, at its offsets (a string
    column). Raw: the digest of row i at values[i * size] (a fixed-size binary column, no offsets).
    None when pycryptodome's compiled one-shot function is not available to C (the caller then
    loops over the rows)."""
    fn = _hashfn.hash_fn(algorithm)
    if fn == ffi.NULL:
        return None
    size = _hashfn.DIGEST_SIZES[algorithm]
    flags = _native._flags(strict_integers, integers_only)
    texts = _texts(col)
    n = col.length
    prefix = (algorithm + ":").encode("ascii")
    width = len(prefix) + 2 * size if rendered else size
    values = bytearray(n * width)
    offsets = bytearray(8 * (n + 1)) if rendered else None
    validity = bytearray((n + 7) // 8)
    c_values = ffi.from_buffer("uint8_t[]", values)
    c_offsets = ffi.from_buffer("int64_t[]", offsets) if offsets is not None else ffi.NULL
    c_validity = ffi.from_buffer("uint8_t[]", validity)
    hasher = _hashfn.hasher(fn, size, prefix if rendered else None)
    column = ffi.new("fjcs_arrow_digests *", {"data": c_values, "offsets": c_offsets, "validity": c_validity})

    def call(start: int, failed: Any, done: Any) -> int:
        return lib.fjcs_arrow_digest(texts, start, n, max_depth, flags, hasher, column, failed, done)

    failures, bad = _run(call, col, first_only, max_depth)
    return values, offsets, validity, failures, bad
