"""The C backend: with `fastjcs.core.arrow_native` (the Arrow column path, which words its
errors through this module), the only module that touches cffi's `ffi` and `lib`.

It implements the backend interface (`fastjcs.core.backend.Backend`) as
`fastjcs.core.python_backend` does, with the same answers and the same exceptions. Importing it
raises ImportError when the extension `fastjcs._native_ext` is not built.
"""

from __future__ import annotations

import marshal
import re
import struct
import threading
from collections.abc import Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]  # exists, not in typeshed
from typing import Any

from .._native_ext import ffi, lib  # ImportError here means: not built
from . import hashing as _hash
from . import jsonl, parser
from . import python_backend as _python
from ._direct_loader import direct as _direct
from .errors import (
    CanonicalizationError,
    DepthLimitError,
    DuplicateKeyError,
    FloatDomainError,
    IntegerDomainError,
    InvalidJSONError,
    NonIntegerNumberError,
)

NAME = "native"

# A call costs mostly cffi's overhead: the functions and the constants are bound once.
#
# One small document per call goes through the lender (fjcs_lender_*, fastjcs.h) of the calling
# thread: one crossing, no allocation; the result is NUL-terminated and lent, copied by `_string`
# and handed back by clearing the byte before it (`p[-1] = _DONE`). They return NULL on any
# failure, and the ordinary entry point is run on the same input for the error (a rare path). An
# input larger than _SMALL takes the ordinary entry point from the start: its output buffer is
# freed as soon as it is copied, rather than kept by the lender until its next call.
_SMALL = 1 << 16
_string, _DONE = ffi.string, b"\0"
_lender_format_double = lib.fjcs_lender_format_double

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


_INFINITIES = (float("inf"), float("-inf"))


def format_double(x: float) -> str:
    """ECMAScript rendering of a double, by the C core (through the direct entry on CPython)."""
    if _direct is not None:
        text = _direct.format_double(x)
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
    """Render many doubles (the corpus check and the benchmarks use it)."""
    return [format_double(x) for x in values]


# ---------------------------------------------------------------------------------------------------
# Errors: one table from the C codes to the exception classes (text input)
# ---------------------------------------------------------------------------------------------------

# The exception class and, where it does not depend on the input, the message of each code. The
# words are the pure-Python backend's: the C core's own messages (for C callers) are never shown.
_TEXT_ERRORS: dict[int, tuple[type[CanonicalizationError], str]] = {
    lib.FJCS_E_SYNTAX: (InvalidJSONError, ""),  # from `expected` and the input: _error_parts
    lib.FJCS_E_ESCAPE: (InvalidJSONError, "invalid escape sequence"),
    lib.FJCS_E_CONTROL: (InvalidJSONError, "control character in string (must be escaped)"),
    lib.FJCS_E_LEADING_ZERO: (InvalidJSONError, "leading zero in number"),
    lib.FJCS_E_UNTERMINATED: (InvalidJSONError, "unterminated string"),
    lib.FJCS_E_UTF8: (InvalidJSONError, "invalid UTF-8"),
    lib.FJCS_E_SURROGATE: (InvalidJSONError, "lone surrogate escape"),
    lib.FJCS_E_DUPKEY: (DuplicateKeyError, ""),  # names the repeated name: _error_parts
    lib.FJCS_E_DEPTH: (DepthLimitError, ""),  # names the limit: _error_parts
    lib.FJCS_E_FLOAT_DOMAIN: (FloatDomainError, "number overflows a double"),
    lib.FJCS_E_INT_DOMAIN: (IntegerDomainError, parser.UNSAFE_INTEGER_TOKEN),
    lib.FJCS_E_NOT_INTEGER: (NonIntegerNumberError, parser.NOT_INTEGER_TOKEN),
}

# What the grammar wanted, for FJCS_E_SYNTAX, in the words of the unexpected-character messages.
_EXPECTED: dict[int, str] = {
    lib.FJCS_EXPECT_VALUE: "a value",
    lib.FJCS_EXPECT_DIGIT: "a digit",
    lib.FJCS_EXPECT_FRACTION_DIGIT: "a digit after the decimal point",
    lib.FJCS_EXPECT_EXPONENT_DIGIT: "a digit in the exponent",
    lib.FJCS_EXPECT_TRUE: "'true'",
    lib.FJCS_EXPECT_FALSE: "'false'",
    lib.FJCS_EXPECT_NULL: "'null'",
    lib.FJCS_EXPECT_COMMA_OR_BRACKET: "',' or ']'",
    lib.FJCS_EXPECT_COMMA_OR_BRACE: "',' or '}'",
    lib.FJCS_EXPECT_NAME: "a member name",
    lib.FJCS_EXPECT_COLON: "':'",
    lib.FJCS_EXPECT_END: "end of input",
}


def _member_name(data: Any, offset: int) -> str:
    """The member name whose opening quote is at `offset` (checked by C), decoded from a window of
    the input that grows until it holds the closing quote: the cost follows the name's length."""
    size = 256
    while True:
        window = str(data[offset : offset + size], "utf-8", "surrogateescape")
        try:
            return scanstring(window, 1)[0]
        except ValueError:  # the window ends inside the name
            if offset + size >= len(data):
                raise
            size *= 4


def _text_error(err: Any, data: Any, max_depth: int) -> Exception:
    """The exception for a C error record (an fjcs_error). `data` is the input (any bytes-like
    object); building the error copies none of it beyond what the message shows."""
    if err.code == lib.FJCS_E_NOMEM:
        return MemoryError("fastjcs: out of memory")
    return _item_error(err, data, max_depth)


def _item_error(err: Any, data: Any, max_depth: int) -> CanonicalizationError:
    """The exception for a C error record that is not out of memory: the record of a batch's
    item never is (running out of memory ends the whole call, with its own return code)."""
    offset = int(err.offset)
    cls, message, key = _error_parts(err.code, err.expected, data, offset, max_depth)
    if cls is DuplicateKeyError:
        return DuplicateKeyError(message, data, offset, key=key)
    return cls(message, data, offset)


def _error_parts(
    code: int, expected: int, data: Any, offset: int, max_depth: int
) -> tuple[type[CanonicalizationError], str, str | None]:
    """(exception class, message, repeated name or None) for a C error at data[offset].

    Messages are built from the code and the record's fields, as the Python backend words them:
    an unexpected character or end names the character found (read from the input) and what the
    grammar wanted, the depth limit its number, a duplicate its name.
    """
    cls, message = _TEXT_ERRORS.get(code, (None, ""))
    if cls is None:  # pragma: no cover - the text path returns no other code
        return CanonicalizationError, f"unexpected error code {code}", None
    if code == lib.FJCS_E_SYNTAX:
        message = parser.unexpected_message(parser.char_at(data, offset), offset == 0, _EXPECTED[expected])
    elif cls is DuplicateKeyError:
        # The offset is the opening quote of the repeated name, already validated by C.
        key = _member_name(data, offset)
        return cls, f"duplicate member name {key!r}", key
    elif cls is DepthLimitError:
        message = f"nesting deeper than max_depth={max_depth}"
    return cls, message, None


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
        raise _text_error(err, data, max_depth)


_lender_canonicalize = lib.fjcs_lender_canonicalize

# The direct entry (fastjcs._direct: CPython's C API, the GIL held for the whole call) takes a text
# of up to DIRECT_TEXT bytes; a larger one goes through cffi, which releases the GIL while C works
# so that other threads run. Taking the GIL back after costs up to the switch interval (5 ms by
# default) when another thread holds it, so the GIL is released only where the call itself takes
# at least twice that (10 ms: about 8 MiB of text), where the wait costs at most half of the call
# (docs/decisions.md, "The direct entry"; benchmarks/contention.py measures both routes).
DIRECT_TEXT = 8 << 20
_direct_canonicalize = _direct.backend_canonicalize if _direct is not None else None


def _refused_text(data: Any, max_depth: int, flags: int) -> None:
    """Raise the error of a text the direct entry refused (its record comes from the cffi entry)."""
    out = ffi.new("fjcs_buf *")
    try:
        _run_text(data, max_depth, flags, out)
    finally:
        lib.fjcs_buf_free(out)
    raise AssertionError(  # pragma: no cover - a defect: the two entries disagree
        "fastjcs internal error: the direct entry refused a text the cffi entry accepts"
    )


def canonicalize(data: Any, max_depth: int, strict_integers: bool, integers_only: bool = False) -> bytes:
    """Canonical bytes of a JSON text, by the C parser (text.c): through the direct entry (the GIL
    held) below DIRECT_TEXT bytes, through cffi (the GIL released) above."""
    if _direct_canonicalize is not None and type(data) is bytes and len(data) <= DIRECT_TEXT:
        result = _direct_canonicalize(
            data, max_depth, (_STRICT if strict_integers else 0) | (_INTEGERS_ONLY if integers_only else 0)
        )
        if result is not None:
            return result
        _refused_text(data, max_depth, _flags(strict_integers, integers_only))
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
            p[-1] = _DONE
            return text
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
# or BAIL (2: a value it does not read, a container subclass or a hook) having run no Python code,
# and the pure-Python backend then answers, as it does for the marshal route's refusals. It is
# used for values of every size and for batches: it is faster than marshal + the C reader at every
# size measured, and reading Python values needs the GIL either way (docs/decisions.md).
_REFUSE = 1
_direct_digest = _direct.digest if _direct is not None else None


def _answer(obj: Any, code: int, max_depth: int, integers_only: bool, default: Any = None) -> bytes:
    """The pure-Python backend's answer for a value the walker refused (code 1) or left (2)."""
    result = _python.dumps(obj, max_depth, integers_only, default)
    if code == _REFUSE:  # pragma: no cover - a defect: the walker and the Python backend disagree
        raise AssertionError("fastjcs internal error: the direct entry refused a value the Python backend accepts")
    return result


def _dumps(obj: Any, max_depth: int, integers_only: bool = False, default: Any = None) -> bytes:
    """Canonical bytes of a Python value where the direct entry does not run: the C reader of its
    marshal encoding."""
    return _dumps_marshal(obj, max_depth, integers_only, default)


# On CPython, dumps is the direct entry's own function (no Python frame on the way), which calls
# _answer for a value its walker does not give.
if _direct is not None:
    _direct.set_answer(_answer)
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
            return text
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
    if default is not None:  # values of other types: default's answers, or the error
        return _python.dumps(obj, max_depth, integers_only, default)
    _python.dumps(obj, max_depth, integers_only)  # raises the error rfc8785 would
    _python.dumps(marshal.loads(encoded), max_depth, integers_only)  # obj changed meanwhile: what C read
    raise AssertionError(  # pragma: no cover - a defect: the two backends disagree
        f"fastjcs internal error: the C core refused a value (code {rc}) the Python backend accepts"
    )


# ---------------------------------------------------------------------------------------------------
# Digests in bulk: canonicalize and hash in C
# ---------------------------------------------------------------------------------------------------
#
# pycryptodome's per-call cost from Python (about 3.5 us) is larger than canonicalizing a small
# object in C, so the batch functions hash in C too, through the one-shot functions of
# pycryptodome's own compiled SHA-2 modules (SHA256_oneshot, SHA384_oneshot), reached by address
# from the library object pycryptodome itself loaded. That address is private to pycryptodome;
# it is checked at first use against pycryptodome's public API, and when anything about it is
# off, the batch falls back to a loop over the public API (tested both ways).

_DIGEST_SIZES = _hash.ALGORITHMS
_hash_fns: dict[str, Any] = {}


def _public_digest(algorithm: str, data: bytes) -> bytes:
    return _hash.oneshot(algorithm)(data)


def _find_oneshot(algorithm: str) -> Any:
    """pycryptodome's compiled one-shot function as an fjcs_hash_fn, or ffi.NULL."""
    try:
        from Crypto.Util import _raw_api

        if getattr(_raw_api, "backend", None) != "cffi":
            return ffi.NULL
        library = getattr(_hash.hash_module(algorithm), f"_raw_{algorithm}_lib")
        fn = getattr(library, f"{algorithm.upper()}_oneshot")  # SHA256_oneshot, SHA384_oneshot
        pointer = ffi.cast("fjcs_hash_fn", int(_raw_api.ffi.cast("uintptr_t", fn)))
        size = _DIGEST_SIZES[algorithm]
        for probe in (b"", b"abc", bytes(range(256)) * 3):
            out = ffi.new("uint8_t[]", size)
            if pointer(probe, len(probe), out, size) != 0 or ffi.buffer(out, size)[:] != _public_digest(
                algorithm, probe
            ):
                return ffi.NULL
        return pointer
    except Exception:  # noqa: BLE001 - any surprise means: use the public API
        return ffi.NULL


def has_compiled_oneshot(algorithm: str) -> bool:
    """Does the batch path hash in C, through pycryptodome's compiled one-shot function?"""
    return _hash_fn(algorithm) != ffi.NULL


def extension_path() -> str:
    """The file of the loaded C extension."""
    from .. import _native_ext

    return str(_native_ext.__file__)


def _hash_fn(algorithm: str) -> Any:
    fn = _hash_fns.get(algorithm)
    if fn is None:
        fn = _hash_fns[algorithm] = _find_oneshot(algorithm)
    return fn


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
    fn, size, prefix, address, _ = _digest_args.get(algorithm) or _digest_args_of(algorithm)
    if default is None and _direct is not None and address:
        results, code = _direct.digest_many(
            objs, max_depth, _INTEGERS_ONLY if integers_only else 0, address, size, prefix if rendered else None
        )
        if code == 0:
            return results
        # The item after the last result was refused or left to the Python backend: the per-item
        # path answers it, and the rest.
        raws = _digest_each(objs, len(results), max_depth, algorithm, integers_only)
    elif default is None:
        results, raws = [], _digest_many_marshal(objs, max_depth, algorithm, integers_only)
    else:
        results, raws = [], _digest_each(objs, 0, max_depth, algorithm, integers_only, default)
    return results + ([_hash.render(algorithm, raw) for raw in raws] if rendered else raws)


def _address(fn: Any) -> int:
    """The address of a C function pointer, for the direct entry."""
    return int(ffi.cast("uintptr_t", fn))


def _digest_many_marshal(objs: list, max_depth: int, algorithm: str, integers_only: bool = False) -> list[bytes]:
    """digest_many by the C reader of the batch's marshal encoding."""
    fn, size = _hash_fn(algorithm), _DIGEST_SIZES[algorithm]
    n = len(objs)
    if fn != ffi.NULL and n:
        try:
            encoded: bytes | None = marshal.dumps(objs, 4)
        except ValueError:
            encoded = None  # subclasses or deep values somewhere: per item below
        if encoded is not None:
            digests = ffi.new("uint8_t[]", n * size)
            count = ffi.new("size_t *")
            hasher = _hasher(fn, size, None)
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
            # Item `done` failed: the per-item path below raises its proper error.
            return result + _digest_each(objs, done, max_depth, algorithm, integers_only)
    return _digest_each(objs, 0, max_depth, algorithm, integers_only)


_lender_digest_marshal = lib.fjcs_lender_digest_marshal
_lender_digest_text = lib.fjcs_lender_digest_text
# Per algorithm: (pycryptodome's one-shot as an fjcs_hash_fn, digest size, b"<algorithm>:", the
# one-shot's address for the direct entry (0 when there is none), and the fjcs_hasher of the C
# digest functions: the one-shot, the size and the prefix "<algorithm>:").
_digest_args: dict[str, tuple[Any, int, bytes, int, Any]] = {}
# The hashers made, by (one-shot, size, prefix), each with the prefix it points to (kept alive).
_hashers: dict[tuple[int, int, bytes | None], tuple[Any, Any]] = {}


def _hasher(fn: Any, size: int, prefix: bytes | None) -> Any:
    """The fjcs_hasher of a one-shot, a size and a prefix (None: raw digests, fjcs_arrow_digest)."""
    key = (_address(fn), size, prefix)
    made = _hashers.get(key)
    if made is None:
        text = ffi.new("char[]", prefix) if prefix is not None else ffi.NULL
        made = _hashers[key] = (ffi.new("fjcs_hasher *", {"fn": fn, "size": size, "prefix": text}), text)
    return made[0]


def _digest_args_of(algorithm: str) -> tuple[Any, int, bytes, int, Any]:
    args = _digest_args.get(algorithm)
    if args is None:
        fn = _hash_fn(algorithm)
        size, prefix = _DIGEST_SIZES[algorithm], f"{algorithm}:".encode("ascii")
        args = _digest_args[algorithm] = (
            fn,
            size,
            prefix,
            _address(fn) if fn != ffi.NULL else 0,
            _hasher(fn, size, prefix),
        )
    return args


def digest(obj: Any, max_depth: int, algorithm: str, integers_only: bool = False, default: Any = None) -> str:
    """The rendered digest "<algorithm>:<hex>" of a value's canonical form, canonicalized and
    hashed in one C call (the public hash API when the compiled one-shot is not found)."""
    if default is not None:
        return _hash.render(algorithm, _public_digest(algorithm, dumps(obj, max_depth, integers_only, default)))
    fn, size, prefix, address, hasher = _digest_args.get(algorithm) or _digest_args_of(algorithm)
    flags = _INTEGERS_ONLY if integers_only else 0
    if _direct_digest is not None and address:
        result = _direct_digest(obj, max_depth, flags, address, size, prefix)
        if type(result) is str:
            return result
        return _hash.render(algorithm, _public_digest(algorithm, _answer(obj, result, max_depth, integers_only)))
    try:
        encoded = _marshal_dumps(obj, 4)
    except ValueError:
        encoded = b""  # a subclass or a deep value: the pure-Python reader, through dumps
    if fn != _NULL and 0 < len(encoded) <= _SMALL:
        p = _lender_digest_marshal(_lender(), encoded, len(encoded), max_depth, flags, hasher)
        if p:
            text = _string(p)
            p[-1] = _DONE
            return text.decode("ascii")
    # A value C refused raises its error here; what is returned is hashed through the public API.
    # The encoding made above is reused: a large value is marshalled once.
    canonical = (
        _dumps_encoded(obj, encoded, max_depth, integers_only) if encoded else dumps(obj, max_depth, integers_only)
    )
    return _hash.render(algorithm, _public_digest(algorithm, canonical))


def digest_text(data: Any, max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False) -> str:
    """The rendered digest of a JSON text's canonical form: canonicalized and hashed in one C call
    for a text of bytes up to DIRECT_TEXT (the direct entry, or the thread's lender)."""
    fn, size, prefix, address, hasher = _digest_args.get(algorithm) or _digest_args_of(algorithm)
    flags = _flags(strict_integers, integers_only)
    if address and type(data) is bytes:
        if _direct is not None and len(data) <= DIRECT_TEXT:
            result = _direct.digest_text(data, max_depth, flags, address, size, prefix)
            if result is not None:
                return result
        elif len(data) <= _SMALL:
            p = _lender_digest_text(_lender(), data, len(data), max_depth, flags, hasher)
            if p:
                text = _string(p)
                p[-1] = _DONE
                return text.decode("ascii")
    canonical = canonicalize(data, max_depth, strict_integers, integers_only)
    return _hash.render(algorithm, _public_digest(algorithm, canonical))


def _digest_each(
    objs: list, start: int, max_depth: int, algorithm: str, integers_only: bool, default: Any = None
) -> list[bytes]:
    out = []
    for i in range(start, len(objs)):
        try:
            out.append(_public_digest(algorithm, dumps(objs[i], max_depth, integers_only, default)))
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
            exc = _item_error(item.err, bytes(texts[i]), max_depth)
            exc.index = i
            results.append(exc)
    return results


def digest_texts(
    texts: list, max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
) -> list[Any]:
    """Per text: the raw digest of its canonical form, or the CanonicalizationError instance."""
    fn, size = _hash_fn(algorithm), _DIGEST_SIZES[algorithm]
    n = len(texts)
    if fn == ffi.NULL or n == 0:
        return _python_texts(texts, max_depth, strict_integers, algorithm, integers_only)
    texts = [t if type(t) is bytes else bytes(t) for t in texts]
    hasher = _hasher(fn, size, None)
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
    """digest_texts over the lines of a JSONL text (split at b"\\n"; a final newline ends the
    last line; empty input has no lines)."""
    return digest_texts(jsonl.split_lines(bytes(data)), max_depth, strict_integers, algorithm, integers_only)


def _python_texts(
    texts: Sequence[Any], max_depth: int, strict_integers: bool, algorithm: str, integers_only: bool = False
) -> list[Any]:
    """The fallback: canonicalize each text in C, hash it through pycryptodome's public API."""
    results: list[Any] = []
    for i, text in enumerate(texts):
        try:
            results.append(_public_digest(algorithm, canonicalize(text, max_depth, strict_integers, integers_only)))
        except CanonicalizationError as exc:
            exc.index = i
            results.append(exc.with_traceback(None))
    return results


_DUPKEY = lib.FJCS_E_DUPKEY
_NAME = re.compile(rb'"(?:[^"\\]|\\.)*"')  # a JSON string token


def _what(code: int, expected: int, data: Any, offset: int, max_depth: int) -> str:
    """The text "ErrorClass: message" for a C error, as its exception would say it."""
    cls, text, _ = _error_parts(code, expected, data, offset, max_depth)
    return f"{cls.__name__}: {text}"


# An fjcs_item: its fjcs_error (code, expected, offset, message), then start, len, index, out_at
# and the digest, in the platform's C layout (struct's native mode; enums are ints): the failures
# of a call are read in one pass over their bytes, not field by field through cffi.
_ITEM = struct.Struct("@iiNPNNNN48x")


def digest_lines_hex(
    data: Any, max_depth: int, strict_integers: bool, algorithm: str, prefix: str, integers_only: bool = False
) -> tuple[bytes, int, list[tuple[Any, ...]]]:
    """JSON Lines for the CLI: (output, lines, failures), as `_python.digest_lines_hex` gives them.

    A failed line costs no exception: its message is worded by the same rules as the exception's
    (`_error_parts`), from the C record and the bytes at the error."""
    fn, size = _hash_fn(algorithm), _DIGEST_SIZES[algorithm]
    if fn == ffi.NULL:
        data = bytes(data)
        return jsonl.lines_hex_from(
            digest_lines(data, max_depth, strict_integers, algorithm, integers_only), data, prefix
        )
    flags = _flags(strict_integers, integers_only)
    hasher = _hasher(fn, size, prefix.encode("ascii"))
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
                for code, expected, offset, _message, start, length, index, out_at in _ITEM.iter_unpack(
                    records[: nf * _ITEM.size]
                ):
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
                            what = worded[key] = _what(code, expected, key, 0, max_depth)
                    else:
                        byte = view[at] if offset < length else -1
                        key = (code, expected, byte if byte < 0x80 else bytes(view[at : at + 4]), offset == 0)
                        what = known(key)
                        if what is None:
                            what = worded[key] = _what(code, expected, view[start : start + length], offset, max_depth)
                    add((lines + index, start, out_at, offset, what))
                lines += int(counts[0])
                done += int(counts[1])
        return (ffi.buffer(out.data, out.len)[:] if out.len else b""), lines, failures
    finally:
        view.release()
        lib.fjcs_buf_free(out)
