"""The implementations the benchmarks compare: one registry for compare.py and the pytest suites.

A `Row` is one function to measure on a corpus: `run(documents) -> outputs`, one output per
document. `kind` says what the documents are: "object" (Python values) or "text" (JSON bytes), or
"digest" (Python values, each hashed with SHA-256: the batch digest against a loop).
`jcs` is False for peers that are not JCS at all (labelled "not JCS" in every report): they are
timed for scale, and their output is still checked, to show it differs. `expect` turns the JCS
reference outputs into the outputs this row should produce (the identity for canonicalizers; a
digest row would hash them).

To add a row (a batch digest, say): write a function over the list of documents and append a
`Row` in `rows()`; compare.py and the pytest suites pick it up.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence

import rfc8785
from Crypto.Hash import SHA256

from fastjcs import DEFAULT_MAX_DEPTH
from fastjcs.core import python_backend as _python

try:
    import orjson
except ImportError:  # pragma: no cover - optional peer
    orjson = None

try:
    from fastjcs.core import native_backend as _native
except ImportError as exc:  # pragma: no cover - depends on the build
    _native = None
    _NATIVE_MISSING: Optional[str] = f"C extension not built ({exc})"
else:
    _NATIVE_MISSING = None

Run = Callable[[Sequence[Any]], List[bytes]]


@dataclass
class Row:
    name: str
    kind: str                  # "object" or "text"
    run: Run
    jcs: bool = True           # False: a peer that is not JCS, timed for scale only
    baseline: bool = False     # the row others are compared with (rfc8785, per kind)
    skip: Optional[str] = None  # why the row cannot run here
    expect: Callable[[List[bytes]], List[bytes]] = field(default=lambda refs: refs)

    @property
    def label(self) -> str:
        return self.name if self.jcs else f"{self.name} (not JCS)"


def each(fn: Callable[[Any], bytes]) -> Run:
    """A per-document function as a Run."""
    return lambda docs: [fn(d) for d in docs]


def _native_skip() -> Optional[str]:
    if _native is None:
        return _NATIVE_MISSING
    try:
        _native.dumps([1], DEFAULT_MAX_DEPTH)
        _native.canonicalize(b"[1]", DEFAULT_MAX_DEPTH, False)
    except NotImplementedError as exc:
        return f"native dumps/canonicalize not implemented yet ({exc})"
    return None


def _json_sorted(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _rfc8785_of_text(text: bytes) -> bytes:
    return rfc8785.dumps(json.loads(text))


def rows() -> List[Row]:
    depth = DEFAULT_MAX_DEPTH
    native_skip = _native_skip()
    no_orjson = None if orjson is not None else "orjson not installed"
    out = [
        # ---- Python objects in ----
        Row("rfc8785.dumps", "object", each(rfc8785.dumps), baseline=True),
        Row("fastjcs[python].dumps", "object", each(lambda o: _python.dumps(o, depth))),
        Row("fastjcs[native].dumps", "object",
            each(lambda o: _native.dumps(o, depth)), skip=native_skip),
        Row("json.dumps(sort_keys)", "object", each(_json_sorted), jcs=False),
        Row("orjson.dumps(OPT_SORT_KEYS)", "object",
            each(lambda o: orjson.dumps(o, option=orjson.OPT_SORT_KEYS)), jcs=False,
            skip=no_orjson),
        # ---- JSON text in ----
        Row("rfc8785.dumps(json.loads)", "text", each(_rfc8785_of_text), baseline=True),
        Row("fastjcs[python].canonicalize", "text",
            each(lambda t: _python.canonicalize(t, depth, False))),
        Row("fastjcs[native].canonicalize", "text",
            each(lambda t: _native.canonicalize(t, depth, False)), skip=native_skip),
        Row("json.loads+json.dumps(sort_keys)", "text",
            each(lambda t: _json_sorted(json.loads(t))), jcs=False),
        Row("orjson.loads+orjson.dumps(OPT_SORT_KEYS)", "text",
            each(lambda t: orjson.dumps(orjson.loads(t), option=orjson.OPT_SORT_KEYS)),
            jcs=False, skip=no_orjson),
        # ---- digests of Python objects (each object's SHA-256, raw) ----
        Row("rfc8785.dumps+SHA256 loop", "digest", each(_rfc8785_sha256), baseline=True,
            expect=_sha256_all),
        Row("fastjcs[python].digest_many", "digest",
            lambda docs: _python.digest_many(list(docs), depth, "sha256"), expect=_sha256_all),
        Row("fastjcs[native].digest_many", "digest",
            lambda docs: _native.digest_many(list(docs), depth, "sha256"), skip=native_skip,
            expect=_sha256_all),
    ]
    return out


def _rfc8785_sha256(obj: Any) -> bytes:
    """What a user writes today: rfc8785, then pycryptodome's SHA-256."""
    return SHA256.new(rfc8785.dumps(obj)).digest()


def _sha256_all(refs: List[bytes]) -> List[bytes]:
    return [SHA256.new(r).digest() for r in refs]


def reference(objects: Sequence[Any]) -> List[bytes]:
    """The JCS bytes of each document, by rfc8785 (the recursion limit raised for deep ones)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 50_000))
    try:
        return [rfc8785.dumps(o) for o in objects]
    finally:
        sys.setrecursionlimit(limit)


def documents(corpus: Any, kind: str) -> Sequence[Any]:
    return corpus.texts if kind == "text" else corpus.objects
