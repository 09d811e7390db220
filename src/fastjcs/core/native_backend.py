"""The C backend: the entry points. With `native_errors` (the words of the C core's errors),
`native_hash` (pycryptodome's compiled one-shot, found for C), `arrow_native` (the Arrow column
path), `native_stream` (the stream) and `pypy_writer` (PyPy's writer of Python values), the only
modules that touch cffi's `ffi` and `lib`.

It implements the backend interface (`fastjcs.core.protocol.Backend`) as
`fastjcs.core.python_backend` does, with the same answers and the same exceptions. Importing it
raises ImportError when the extension `fastjcs._native_ext` is not built.

Kept whole (about 660 lines): the whole backend interface in one module, as `python_backend` holds
the reference; the two are read and held to one interface side by side
(tests/core/test_backend_interface.py).
"""

from __future__ import annotations

import importlib
import marshal
import operator
import re
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from .._native_ext import ffi, lib  # ImportError here means: not built
from . import hashing as _hash
from . import jsonl_split as jsonl
from . import native_errors as _errors
from . import native_hash as _hashfn
from . import pypy_writer as _pypy
from . import python_backend as _python
from ._direct_loader import direct as _direct
from .errors import CanonicalizationError, FloatDomainError

NAME = "native"

# A call costs mostly cffi's overhead: the functions and the constants are bound once.
#
# One small document per call goes through the lender (fjcs_lender_*, fastjcs.h) of the calling
# thread: one crossing, no allocation; the result is NUL-terminated and lent, copied by `_string`
# and handed back by clearing the byte before it (`p[-1] = _DONE`). A refused input is lent as an
# empty result carrying its error record (`_lent_error` words a text's; a value's error is the
# pure-Python backend's, with its path): C reads the input once. They return NULL on any other
# failure (out of memory, a failed hash), and the ordinary entry point is run on the same input. An
# input larger than _SMALL takes the ordinary entry point from the start: its output buffer is
# freed as soon as it is copied, rather than kept by the lender until its next call.
_SMALL = 1 << 16
_string, _DONE = ffi.string, b"\0"
_lender_format_double = lib.fjcs_lender_format_double
_INFINITIES = (float("inf"), float("-inf"))

# Each Python thread has its own lender, opened on its first small call and closed (ffi.gc) when
# the thread ends and its threading.local goes: the C core keeps no per-thread state of its own.
_threads = threading.local()


def _open_lender() -> Any:
    lender = lib.fjcs_lender_open()
    if lender == ffi.NULL:
        raise MemoryError("fastjcs: out of memory")
    _threads.lender = lender = ffi.gc(lender, lib.fjcs_lender_close)
    return lender


def _lender() -> Any:
    """The calling thread's lender."""
    try:
        return _threads.lender
    except AttributeError:
        return _open_lender()


_lender_error = lib.fjcs_lender_error


def _lent_error(p: Any, data: Any, max_depth: int) -> Exception:
    """The error of a text the lender refused, worded from the record lent with its empty result
    `p` (which is handed back): the text is not parsed again."""
    err = ffi.new("fjcs_error *")
    _lender_error(p, err)
    p[-1] = _DONE
    return _errors.text_error(err, data, max_depth)


def format_double(x: float) -> str:
    """A double formatted as ECMAScript formats it, by the C core (through the direct entry on CPython)."""
    if _direct is not None:
        text = _direct.format_float(x)
        if text is not None:
            return text
        raise FloatDomainError(f"{x!r} is not representable in JCS")
    p = _lender_format_double(_lender(), x)
    if p:
        text = _string(p)
        p[-1] = _DONE
        return text.decode("ascii")
    if x != x or x in _INFINITIES:
        raise FloatDomainError(f"{x!r} is not representable in JCS")
    raise MemoryError("fastjcs: out of memory")


def format_doubles(values: Sequence[float]) -> list[str]:
    """Format many doubles (the corpus check and the benchmarks use it)."""
    return [format_double(x) for x in values]


# The C error records are worded by `native_errors` (shared with `arrow_native`); pycryptodome's
# compiled one-shot, which C calls to hash, is found by `native_hash`.


# ---------------------------------------------------------------------------------------------------
# JSON text in
# ---------------------------------------------------------------------------------------------------


_STRICT, _INTEGERS_ONLY = lib.FJCS_STRICT_INTEGERS, lib.FJCS_INTEGERS_ONLY


def _flags(strict_integers: bool, integers_only: bool) -> int:
    """The fjcs_flags of the text functions (FJCS_INTEGERS_ONLY implies strict integers in C)."""
    return (_STRICT if strict_integers else 0) | (_INTEGERS_ONLY if integers_only else 0)


def _run_text(data: Any, max_depth: int, flags: int, out: Any) -> None:
    """Canonicalize into the C buffer `out`; raise the mapped error on failure."""
    err = ffi.new("fjcs_error *")
    if type(data) is bytes:
        rc = lib.fjcs_canonicalize(data, len(data), max_depth, flags, out, err)
    else:  # bytearray, memoryview (a mapped file): no copy; released before any error is raised
        with ffi.from_buffer(data) as buf:
            rc = lib.fjcs_canonicalize(buf, len(buf), max_depth, flags, out, err)
    if rc != lib.FJCS_OK:
        raise _errors.text_error(err, data, max_depth)


_lender_canonicalize = lib.fjcs_lender_canonicalize

# The direct entry (fastjcs._direct: CPython's C API, the GIL held for the whole call) takes a text
# of up to its held-text limit (8 MiB; csrc/cpython/direct.h says why) and answers None for a
# longer one, which goes through cffi, which releases the GIL while C works so that other threads run.
_direct_canonicalize = _direct.backend_canonicalize if _direct is not None else None


def canonicalize(data: Any, max_depth: int, strict_integers: bool, integers_only: bool = False) -> bytes:
    """Canonical bytes of a JSON text, by the C parser (text.c): through the direct entry (the GIL
    held) up to its held-text limit, through cffi (the GIL released) above."""
    if _direct_canonicalize is not None and type(data) is bytes:
        result = _direct_canonicalize(
            data, max_depth, (_STRICT if strict_integers else 0) | (_INTEGERS_ONLY if integers_only else 0)
        )
        if type(result) is bytes:
            return result
        if result is not None:  # None: longer than the held-text limit
            raise _errors.refused_text(result, data, max_depth)
    if type(data) is bytes and len(data) <= _SMALL:
        p = _lender_canonicalize(
            _lender(),
            data,
            len(data),
            max_depth,
            (_STRICT if strict_integers else 0) | (_INTEGERS_ONLY if integers_only else 0),
        )
        if p:
            text = _string(p)
            if text:
                p[-1] = _DONE
                return text
            raise _lent_error(p, data, max_depth)  # refused: its record, lent with the empty result
    out = ffi.new("fjcs_buf *")
    try:
        _run_text(data, max_depth, _flags(strict_integers, integers_only), out)
        return ffi.unpack(out.data, out.len)
    finally:
        lib.fjcs_buf_free(out)


def canonicalize_to(data: Any, write: Any, max_depth: int, strict_integers: bool, integers_only: bool = False) -> None:
    """Canonicalize, then hand write() a view of the C buffer: no second copy of the output."""
    out = ffi.new("fjcs_buf *")
    try:
        _run_text(data, max_depth, _flags(strict_integers, integers_only), out)
        if out.len:
            write(ffi.buffer(out.data, out.len))
        else:
            write(b"")
    finally:
        lib.fjcs_buf_free(out)


# ---------------------------------------------------------------------------------------------------
# Python objects in
# ---------------------------------------------------------------------------------------------------
#
# The value crosses into C as marshal.dumps(value, 4) (object.c documents the codes it reads).
# marshal writes only exact types: a subclass (IntEnum, StrEnum, OrderedDict...) makes it raise
# ValueError, and so does nesting beyond marshal's own limit (2,000 levels); such a value goes to
# the pure-Python backend, which reads it once, calling its hooks (__int__, __float__, __iter__...)
# once each, in rfc8785's order (rebuilding it with exact types for C was no faster). When C refuses
# a value, the pure-Python backend is run on it to raise the error rfc8785 raises, in rfc8785's
# order (C meets members in insertion order, rfc8785 in sorted order, so the first error can differ
# when there are several); should it accept the value, another thread changed it meanwhile, and the
# pure-Python backend is run on marshal's copy, which holds exactly what C read.


# The hot path of a small value is mostly Python and cffi overhead: the functions and constants it
# uses are bound once here (an attribute of `lib` costs as much as a short C call).
_marshal_dumps = marshal.dumps
_new, _unpack, _NULL = ffi.new, ffi.unpack, ffi.NULL
_canonicalize_marshal, _buf_free, _OK = lib.fjcs_canonicalize_marshal, lib.fjcs_buf_free, lib.FJCS_OK
_lender_canonicalize_marshal = lib.fjcs_lender_canonicalize_marshal


# On CPython (3.10 and later), a value is read directly by the walker of the direct entry
# (csrc/cpython/direct.c), the GIL held: it answers bytes, or REFUSE (1: a value JCS cannot carry)
# or BAIL (2: a value it does not read: a container subclass, a hook, a __class__ that claims
# another class): for dumps and digest, the pure-Python backend goes on from that point
# (python_backend.resume, which the direct entry imports itself; the walker calls default= itself),
# so nothing is walked twice; for digest_many, it answers for the item and the rest. It is
# used for values of every size and for batches: it is faster than marshal + the C reader at every
# size measured, and reading Python values needs the GIL either way (docs/decisions.md).
_direct_digest = _direct.backend_digest if _direct is not None else None

# On PyPy, a value of exact JSON types is first offered to Python code the JIT compiles
# (`pypy_writer`: marshal.dumps is slow there and a cffi call cheap); None elsewhere.
_pypy_dumps = _pypy.dumps if _pypy.StringBuilder is not None else None


def _dumps(obj: Any, max_depth: int, integers_only: bool = False, default: Any = None) -> bytes:
    """Canonical bytes of a Python value where the direct entry does not run: on PyPy the JIT's
    own writer (`pypy_writer`), else the C reader of its marshal encoding."""
    if _pypy_dumps is not None:
        try:
            return _pypy_dumps(obj, max_depth, integers_only, _lender)
        except _pypy.LEAVES:
            pass  # a value the writer does not read: the marshal route answers, or raises the error
    return _dumps_marshal(obj, max_depth, integers_only, default)


# On CPython, dumps is the direct entry's own function (no Python frame on the way).
if _direct is not None:
    dumps = _direct.backend_dumps
else:
    dumps = _dumps


def _dumps_marshal(obj: Any, max_depth: int, integers_only: bool = False, default: Any = None) -> bytes:
    """Canonical bytes of a Python value, by the C reader of its marshal encoding (object.c). A
    value C refuses goes to the pure-Python backend, with `default`: it answers for values of
    other types (marshal writes some that JSON has not: sets, bytes, complex)."""
    try:
        encoded = _marshal_dumps(obj, 4)
    except ValueError:
        return _python.dumps(obj, max_depth, integers_only, default)
    if len(encoded) <= _SMALL:
        p = _lender_canonicalize_marshal(
            _lender(), encoded, len(encoded), max_depth, _INTEGERS_ONLY if integers_only else 0
        )
        if p:
            text = _string(p)
            p[-1] = _DONE
            if text:
                return text
            return _refused_value(obj, encoded, max_depth, integers_only, default)  # C read it once
    return _dumps_encoded(obj, encoded, max_depth, integers_only, default)


def _dumps_encoded(obj: Any, encoded: bytes, max_depth: int, integers_only: bool, default: Any = None) -> bytes:
    """dumps by the ordinary entry point, given marshal's encoding of obj: a large value, or the
    error of one the C core refused."""
    out = _new("fjcs_buf *")
    try:
        rc = _canonicalize_marshal(encoded, len(encoded), max_depth, _INTEGERS_ONLY if integers_only else 0, out, _NULL)
        if rc == _OK:
            return _unpack(out.data, out.len)
    finally:
        _buf_free(out)
    if rc == lib.FJCS_E_NOMEM:
        raise MemoryError("fastjcs: out of memory")
    return _refused_value(obj, encoded, max_depth, integers_only, default)


def _refused_value(obj: Any, encoded: bytes, max_depth: int, integers_only: bool, default: Any = None) -> bytes:
    """The answer for a value whose marshal encoding (`encoded`) the C reader refused: with
    `default`, the pure-Python backend's (values of other types: default's answers, or the error);
    without, the error rfc8785 raises, which the pure-Python backend raises. The C record, an
    offset into marshal's copy, has no path to word it with."""
    if default is not None:
        return _python.dumps(obj, max_depth, integers_only, default)
    _python.dumps(obj, max_depth, integers_only)  # raises the error rfc8785 would
    _python.dumps(marshal.loads(encoded), max_depth, integers_only)  # obj changed meanwhile: what C read
    raise AssertionError(  # pragma: no cover - a defect: the two backends disagree
        "fastjcs internal error: the C core refused a value the Python backend accepts"
    )


# ---------------------------------------------------------------------------------------------------
# Digests in bulk: canonicalize and hash in C (the hash function: `native_hash`)
# ---------------------------------------------------------------------------------------------------

has_compiled_oneshot = _hashfn.has_compiled_oneshot


def extension_path() -> str:
    """The file of the loaded C extension."""
    # (by import_module: `from .. import _native_ext` would meet fastjcs.__getattr__ in mypy's eyes)
    return str(importlib.import_module(".._native_ext", __package__).__file__)


def digest_many(
    objs: list, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None
) -> list[bytes]:
    """Raw digests of the canonical forms of many values; the first failure is raised, with
    `index` set to its position."""
    return _digest_many(objs, max_depth, algorithm, integers_only, default, False)


def digest_many_rendered(
    objs: list, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None
) -> list[str]:
    """digest_many's digests rendered "<algorithm>:<hex>" (in C, on the direct entry)."""
    return _digest_many(objs, max_depth, algorithm, integers_only, default, True)


def _digest_many(
    objs: list, max_depth: int, algorithm: str, integers_only: bool, default: Any, rendered: bool
) -> list[Any]:
    fn, size, prefix, address, hasher = _hashfn.digest_args.get(algorithm) or _hashfn.digest_args_of(algorithm)
    if default is None and _direct is not None and address:
        results, code, stop = _direct.backend_digest_many(
            objs, max_depth, _INTEGERS_ONLY if integers_only else 0, address, size, prefix if rendered else None
        )
        if code == 0:
            return results
        if rendered:
            return digest_many_rest(results, objs, max_depth, algorithm, integers_only, stop)
        first = _hashfn.public_digest(algorithm, _finish_item(stop, len(results), max_depth, integers_only))
        raws = [first, *_digest_each(objs, len(results) + 1, max_depth, algorithm, integers_only)]
    elif default is None:
        results, raws = [], _digest_many_marshal(objs, max_depth, algorithm, integers_only)
    else:
        results, raws = [], _digest_each(objs, 0, max_depth, algorithm, integers_only, default)
    return results + ([_hash.render(algorithm, raw) for raw in raws] if rendered else raws)


def digest_many_rest(
    results: list, objs: list, max_depth: int, algorithm: str, integers_only: bool, stop: tuple
) -> list[str]:
    """The rendered digests of a batch whose first len(results) items the direct entry digested
    (`results`) and whose next item's walk stopped (`stop`: the item, then where it stopped, as
    python_backend.resume takes it): that item is finished from there (its error raised with its
    index), not walked again, and the rest are answered by the per-item path, which raises the
    first failure with its index (the public digest_many of csrc/cpython/api.c, and _digest_many,
    call it)."""
    at = len(results)
    first = _hashfn.public_digest(algorithm, _finish_item(stop, at, max_depth, integers_only))
    rest = _digest_each(objs, at + 1, max_depth, algorithm, integers_only)
    return [*results, _hash.render(algorithm, first), *(_hash.render(algorithm, raw) for raw in rest)]


def _finish_item(stop: tuple, index: int, max_depth: int, integers_only: bool) -> bytes:
    """The canonical bytes of the batch item at `index`, whose walk by the direct entry stopped where
    `stop` says (the item, then resume's arguments): python_backend.resume goes on from there, as
    dumps does (the item as the walker read it); its error is raised with the item's index."""
    item, *where = stop
    try:
        return _python.resume(item, max_depth, integers_only, None, *where)
    except CanonicalizationError as exc:
        exc.index = index
        raise


def _digest_many_marshal(objs: list, max_depth: int, algorithm: str, integers_only: bool = False) -> list[bytes]:
    """digest_many by the C reader of the batch's marshal encoding."""
    size = _hashfn.DIGEST_SIZES[algorithm]
    fn = _hashfn.hash_fn(algorithm)
    n = len(objs)
    if fn != ffi.NULL and n:
        try:
            encoded: bytes | None = marshal.dumps(objs, 4)
        except ValueError:
            encoded = None  # subclasses or deep values somewhere: per item below
        if encoded is not None:
            digests = ffi.new("uint8_t[]", n * size)
            count = ffi.new("size_t *")
            hasher = _hashfn.hasher(fn, size, None)
            rc = lib.fjcs_digest_marshal_items(
                encoded,
                len(encoded),
                max_depth,
                _INTEGERS_ONLY if integers_only else 0,
                hasher,
                digests,
                n,
                count,
                ffi.NULL,
            )
            done = int(count[0])
            raw = ffi.buffer(digests, done * size)[:]
            result = [raw[i * size : (i + 1) * size] for i in range(done)]
            if rc == lib.FJCS_OK:
                return result
            if rc == lib.FJCS_E_NOMEM:
                raise MemoryError("fastjcs: out of memory")
            # C refused item `done`: the pure-Python backend raises its error (rfc8785's, with its
            # path), not the per-item path, which would marshal it and read it in C again; should
            # Python accept it (changed meanwhile), its answer is the item's. The rest one by one.
            try:
                canonical = _python.dumps(objs[done], max_depth, integers_only)
            except CanonicalizationError as exc:
                exc.index = done
                raise
            result.append(_hashfn.public_digest(algorithm, canonical))
            return result + _digest_each(objs, done + 1, max_depth, algorithm, integers_only)
    return _digest_each(objs, 0, max_depth, algorithm, integers_only)


_lender_digest_marshal = lib.fjcs_lender_digest_marshal
_lender_digest_text = lib.fjcs_lender_digest_text


def digest(obj: Any, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None) -> str:
    """The rendered digest "<algorithm>:<hex>" of a value's canonical form, canonicalized and
    hashed in one C call (the public hash API when the compiled one-shot is not found). The
    algorithm's entry is made first, whatever the call: making it registers the algorithm with the
    direct entry, whose public digest then serves every later call, default= ones included."""
    fn, size, prefix, address, hasher = _hashfn.digest_args.get(algorithm) or _hashfn.digest_args_of(algorithm)
    if default is not None:
        return _hash.render(algorithm, _hashfn.public_digest(algorithm, dumps(obj, max_depth, integers_only, default)))
    flags = _INTEGERS_ONLY if integers_only else 0
    if _direct_digest is not None and address:
        return cast(str, _direct_digest(obj, max_depth, flags, address, size, prefix))
    try:
        encoded = _marshal_dumps(obj, 4)
    except ValueError:
        encoded = b""  # a subclass or a deep value: the pure-Python reader, through dumps
    if fn != _NULL and 0 < len(encoded) <= _SMALL:
        p = _lender_digest_marshal(_lender(), encoded, len(encoded), max_depth, flags, hasher)
        if p:
            text = _string(p)
            p[-1] = _DONE
            if text:
                return text.decode("ascii")
            _refused_value(obj, encoded, max_depth, integers_only)  # raises its error (C read it once)
    # A value C refused raises its error here; what is returned is hashed through the public API.
    # The encoding made above is reused: a large value is marshalled once.
    canonical = (
        _dumps_encoded(obj, encoded, max_depth, integers_only) if encoded else dumps(obj, max_depth, integers_only)
    )
    return _hash.render(algorithm, _hashfn.public_digest(algorithm, canonical))


def digest_text(data: Any, max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False) -> str:
    """The rendered digest of a JSON text's canonical form: canonicalized and hashed in one C call
    for a text of bytes up to the direct entry's held-text limit (or, without it, the lender's)."""
    fn, size, prefix, address, hasher = _hashfn.digest_args.get(algorithm) or _hashfn.digest_args_of(algorithm)
    flags = _flags(strict_integers, integers_only)
    if address and type(data) is bytes:
        if _direct is not None:
            result = _direct.backend_digest_text(data, max_depth, flags, address, size, prefix)
            if type(result) is str:
                return result
            if result is not None:  # None: longer than the held-text limit
                raise _errors.refused_text(result, data, max_depth)
        elif len(data) <= _SMALL:
            p = _lender_digest_text(_lender(), data, len(data), max_depth, flags, hasher)
            if p:
                text = _string(p)
                if text:
                    p[-1] = _DONE
                    return text.decode("ascii")
                raise _lent_error(p, data, max_depth)  # refused: its record, lent with the empty result
    canonical = canonicalize(data, max_depth, strict_integers, integers_only)
    return _hash.render(algorithm, _hashfn.public_digest(algorithm, canonical))


def _digest_each(
    objs: list, start: int, max_depth: int, algorithm: str, integers_only: bool, default: Any = None
) -> list[bytes]:
    out = []
    for i in range(start, len(objs)):
        try:
            out.append(_hashfn.public_digest(algorithm, dumps(objs[i], max_depth, integers_only, default)))
        except CanonicalizationError as exc:
            exc.index = i
            raise
    return out


def _items_results(items: Any, n: int, size: int, texts: Sequence[bytes], max_depth: int) -> list[Any]:
    results: list[Any] = []
    for i in range(n):
        item = items[i]
        code = item.err.code
        if code == lib.FJCS_OK:
            results.append(ffi.buffer(item.digest, size)[:])
        elif code == lib.FJCS_E_HASH:  # pragma: no cover - pycryptodome failed
            raise RuntimeError("the hash function failed")
        else:
            exc = _errors.item_error(item.err, bytes(texts[i]), max_depth)
            exc.index = i
            results.append(exc)
    return results


def digest_texts(
    texts: list, max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
) -> list[Any]:
    """Per text: the raw digest of its canonical form, or the CanonicalizationError instance."""
    size = _hashfn.DIGEST_SIZES[algorithm]
    fn = _hashfn.hash_fn(algorithm)
    n = len(texts)
    if fn == ffi.NULL or n == 0:
        return _python_texts(texts, max_depth, strict_integers, algorithm, integers_only)
    texts = [t if type(t) is bytes else bytes(t) for t in texts]
    hasher = _hashfn.hasher(fn, size, None)
    items = ffi.new("fjcs_item[]", n)
    buffers = [ffi.from_buffer(t) for t in texts]  # no copies; alive until the call returns
    pointers = ffi.new("char *[]", buffers)
    lens = ffi.new("size_t[]", [len(t) for t in texts])
    flags = _flags(strict_integers, integers_only)
    rc = lib.fjcs_digest_texts(pointers, lens, n, max_depth, flags, hasher, items)
    if rc == lib.FJCS_E_NOMEM:
        raise MemoryError("fastjcs: out of memory")
    return _items_results(items, n, size, texts, max_depth)


def digest_lines(
    data: Any, max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
) -> list[Any]:
    """digest_texts over the lines of a JSON Lines text (`jsonl.split_lines`)."""
    return digest_texts(jsonl.split_lines(bytes(data)), max_depth, strict_integers, algorithm, integers_only)


def _python_texts(
    texts: Sequence[Any], max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
) -> list[Any]:
    """The fallback: canonicalize each text in C, hash it through pycryptodome's public API."""
    results: list[Any] = []
    for i, text in enumerate(texts):
        try:
            results.append(
                _hashfn.public_digest(algorithm, canonicalize(text, max_depth, strict_integers, integers_only))
            )
        except CanonicalizationError as exc:
            exc.index = i
            results.append(exc.with_traceback(None))
    return results


_DUPKEY = lib.FJCS_E_DUPKEY
_NAME = re.compile(rb'"(?:[^"\\]|\\.)*"')  # a JSON string token

#: The fields of an fjcs_item that the JSON Lines path reads, in the order it reads them.
ITEM_FIELDS = (("err", "code"), ("err", "expected"), ("err", "offset"), ("start",), ("len",), ("index",), ("out_at",))


def item_reader(ffi: Any, ctype: str = "fjcs_item") -> Callable[[Any], Iterator[tuple[int, ...]]]:
    """A function from the bytes of consecutive `ctype` records to one tuple of ITEM_FIELDS per
    record. The layout is asked of cffi (`ffi.offsetof`, `ffi.sizeof`), never written by hand, so
    it follows the header wherever a field moves; the records are read in one pass over their
    bytes (struct), not field by field through cffi."""
    placed = []
    for i, path in enumerate(ITEM_FIELDS):
        ftype = ffi.typeof(ctype)
        for name in path:
            ftype = dict(ftype.fields)[name].type
        size = ffi.sizeof(ftype)
        signed = int(ffi.cast(ftype, -1)) < 0
        placed.append((ffi.offsetof(ctype, *path), size, signed, i))
    placed.sort()
    fmt, at = "=", 0  # native byte order, standard sizes, no padding but what is written here
    for offset, size, signed, _ in placed:
        letter = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
        fmt += f"{offset - at}x" + (letter if signed else letter.upper())
        at = offset + size
    record = struct.Struct(fmt + f"{ffi.sizeof(ctype) - at}x")
    order = [memory for memory, entry in sorted(enumerate(placed), key=lambda pair: pair[1][3])]  # field -> place
    if order == list(range(len(order))):
        return record.iter_unpack
    pick = operator.itemgetter(*order)
    return lambda records: map(pick, record.iter_unpack(records))


_read_items = item_reader(ffi)
_ITEM_SIZE = ffi.sizeof("fjcs_item")


def digest_lines_hex(
    data: Any, max_depth: int, strict_integers: bool, algorithm: str, prefix: str, integers_only: bool = False
) -> tuple[bytes, int, list[tuple[Any, ...]]]:
    """JSON Lines for the CLI: (output, lines, failures), as `_python.digest_lines_hex` gives them.

    A failed line costs no exception: its message is worded by the same rules as the exception's
    (`native_errors.error_parts`), from the C record and the bytes at the error."""
    fn = _hashfn.hash_fn(algorithm)
    if fn == ffi.NULL:
        data = bytes(data)
        return jsonl.lines_hex_from(
            digest_lines(data, max_depth, strict_integers, algorithm, integers_only), data, prefix
        )
    size = _hashfn.DIGEST_SIZES[algorithm]
    flags = _flags(strict_integers, integers_only)
    hasher = _hashfn.hasher(fn, size, prefix.encode("ascii"))
    capacity = 256
    items = ffi.new("fjcs_item[]", capacity)
    records = ffi.buffer(items)
    failed = ffi.new("fjcs_failures *", {"items": items, "capacity": capacity})
    counts = ffi.new("size_t[2]")  # lines, consumed
    out = ffi.new("fjcs_buf *")
    failures: list[tuple[Any, ...]] = []
    worded: dict[Any, str] = {}
    known, add = worded.get, failures.append
    view = memoryview(data).cast("B")
    lines = done = 0
    try:
        with ffi.from_buffer(data) as buf:
            total = len(buf)
            while done < total:
                rc = lib.fjcs_digest_lines_hex(
                    buf + done,
                    total - done,
                    max_depth,
                    flags,
                    hasher,
                    out,
                    failed,
                    counts,
                    counts + 1,
                )
                if rc == lib.FJCS_E_NOMEM:
                    raise MemoryError("fastjcs: out of memory")
                nf = int(failed.count)
                for code, expected, offset, start, length, index, out_at in _read_items(records[: nf * _ITEM_SIZE]):
                    start += done
                    # The wording depends only on the code, what was expected and the character at
                    # the error (a duplicate: the name): worded once per call for each such key.
                    at = start + offset
                    if code == _DUPKEY:
                        name = _NAME.match(view, at, start + length)
                        assert name is not None  # the C core validated the name
                        key: Any = name.group()
                        what = known(key)
                        if what is None:
                            what = worded[key] = _errors.what(code, expected, key, 0, max_depth)
                    else:
                        byte = view[at] if offset < length else -1
                        key = (code, expected, byte if byte < 0x80 else bytes(view[at : at + 4]), offset == 0)
                        what = known(key)
                        if what is None:
                            what = worded[key] = _errors.what(
                                code, expected, view[start : start + length], offset, max_depth
                            )
                    add((lines + index, start, out_at, offset, what))
                lines += int(counts[0])
                done += int(counts[1])
        return (ffi.buffer(out.data, out.len)[:] if out.len else b""), lines, failures
    finally:
        view.release()
        lib.fjcs_buf_free(out)
