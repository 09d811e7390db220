"""The implementations the benchmarks compare, for compare.py and the pytest suites.

The canonicalizers are those of `fastjcs bench` (fastjcs.lab.canonicalizers.candidates: the one
registry); this module adds the batch digest rows and the reference outputs.

A `Row` is one function to measure on a corpus: `run(documents) -> outputs`, one output per
document. `kind` says what the documents are: "object" (Python values) or "text" (JSON bytes), or
"digest" (Python values, each hashed with SHA-256: the batch digest against a loop).
`jcs` is False for peers that are not JCS at all (labelled "not JCS" in every report): they are
timed for scale, and their output is still checked, to show it differs. `expect` turns the JCS
reference outputs into the outputs this row should produce (the identity for canonicalizers; a
digest row would hash them).

To add a canonicalizer, add it to fastjcs.lab.canonicalizers.candidates(): `fastjcs bench`,
compare.py and the pytest suites all pick it up. To add a batch row (a digest, say): write a
function over the list of documents and append a `Row` in `rows()`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import rfc8785
from Crypto.Hash import SHA256

from fastjcs import DEFAULT_MAX_DEPTH
from fastjcs.core import python_backend as _python
from fastjcs.lab import canonicalizers, probes

try:
    from fastjcs.core import native_backend as _native
except ImportError as exc:  # pragma: no cover - depends on the build
    _native = None
    _NATIVE_MISSING: str | None = f"C extension not built ({exc})"
else:
    _NATIVE_MISSING = None

Run = Callable[[Sequence[Any]], list[bytes]]


@dataclass
class Row:
    name: str
    kind: str  # "object" or "text"
    run: Run
    jcs: bool = True  # False: a peer that is not JCS, timed for scale only
    baseline: bool = False  # the row others are compared with (rfc8785, per kind)
    skip: str | None = None  # why the row cannot run here
    expect: Callable[[list[bytes]], list[bytes]] = field(default=lambda refs: refs)

    @property
    def label(self) -> str:
        return self.name if self.jcs else f"{self.name} (not JCS)"


def each(fn: Callable[[Any], bytes]) -> Run:
    """A per-document function as a Run."""
    return lambda docs: [fn(d) for d in docs]


def _unavailable(reason: str) -> Run:
    def run(docs: Sequence[Any]) -> list[bytes]:  # pragma: no cover - the row is skipped
        raise RuntimeError(reason)

    return run


def rows() -> list[Row]:
    """One object row and one text row per canonicalizer of `fastjcs bench` (the one registry,
    fastjcs.lab.canonicalizers: JCS-correct or not by fastjcs.lab.probes), then the batch digest rows."""
    depth = DEFAULT_MAX_DEPTH
    found, skipped = canonicalizers.candidates()
    out: list[Row] = []
    for kind in ("object", "text"):
        for c in found:
            run = each(c.from_obj) if kind == "object" else each(c.text)
            out.append(
                Row(c.name, kind, run, jcs=c.not_jcs is None and not probes.probe(c), baseline=c.name == "rfc8785")
            )
        out += [Row(name, kind, _unavailable(why), skip=why) for name, why in skipped.items()]
    # ---- digests of Python values (each value's SHA-256, raw) ----
    out += [
        Row("rfc8785.dumps+SHA256 loop", "digest", each(_rfc8785_sha256), baseline=True, expect=_sha256_all),
        Row(
            "fastjcs (python) digest_many",
            "digest",
            lambda docs: _python.digest_many(list(docs), depth, "sha256"),
            expect=_sha256_all,
        ),
        Row(
            "fastjcs (native) digest_many",
            "digest",
            lambda docs: _native.digest_many(list(docs), depth, "sha256"),
            skip=_NATIVE_MISSING,
            expect=_sha256_all,
        ),
    ]
    return out


def _rfc8785_sha256(obj: Any) -> bytes:
    """What a user writes today: rfc8785, then pycryptodome's SHA-256."""
    return SHA256.new(rfc8785.dumps(obj)).digest()


def _sha256_all(refs: list[bytes]) -> list[bytes]:
    return [SHA256.new(r).digest() for r in refs]


def reference(objects: Sequence[Any]) -> list[bytes]:
    """The JCS bytes of each document, by rfc8785 (the recursion limit raised for deep ones)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 50_000))
    try:
        return [rfc8785.dumps(o) for o in objects]
    finally:
        sys.setrecursionlimit(limit)


def documents(corpus: Any, kind: str) -> Sequence[Any]:
    return corpus.texts if kind == "text" else corpus.objects
