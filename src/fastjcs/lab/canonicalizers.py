"""The one registry of canonicalizers (`candidates`), used by `fastjcs bench` and benchmarks/: the
ones importable here (fastjcs's two backends, the PyPI canonicalizers `bench` knows, sorted-key
serializers labelled not JCS), and the external ones (`command_candidate`: one process per
document; `batch_candidate`: the batch protocol).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..core import backends
from ..core.api import DEFAULT_MAX_DEPTH
from .peers import CANNOT_START, OK, BatchPeer


@dataclass
class Candidate:
    name: str
    from_obj: Callable[[Any], bytes]
    from_text: Callable[[bytes], bytes] | None = None  # None: json.loads, then from_obj
    not_jcs: str | None = None  # why this is not a JCS implementation at all (labelled so)
    obj_native: bool = True  # False: from_obj is json.dumps, then from_text
    command: str | None = None  # an external command (one process per document, or batch)
    #: a batch peer: many JSON texts in one call, an answer (peers.Outcome) for each
    many: Callable[[Sequence[bytes]], list[Any]] | None = None
    close: Callable[[], None] | None = None

    def text(self, data: bytes) -> bytes:
        """The canonical form of a JSON text, as a user of the candidate gets it: its own text
        entry point, or the text decoded as UTF-8 (strictly) and read by json.loads first."""
        if self.from_text is not None:
            return self.from_text(data)
        return self.from_obj(json.loads(data.decode("utf-8")))

    @property
    def label(self) -> str:
        return self.name if self.not_jcs is None else f"{self.name} (not JCS)"


def _as_bytes(f: Callable[[Any], Any]) -> Callable[[Any], bytes]:
    def call(obj: Any) -> bytes:
        out = f(obj)
        return out.encode("utf-8") if isinstance(out, str) else bytes(out)

    return call


def _via_text(from_text: Callable[[bytes], bytes]) -> Callable[[Any], bytes]:
    return lambda obj: from_text(json.dumps(obj).encode("ascii"))


Build = Callable[[Any], tuple[Callable[[Any], bytes], Optional[Callable[[bytes], bytes]]]]


def _admit(m: Any) -> tuple[Callable[[Any], bytes], Callable[[bytes], bytes] | None]:
    admit = m.admit  # bytes in, bytes out: text only; object mode pays json.dumps first
    return _via_text(admit), admit


# The PyPI canonicalizers `bench` knows: (name on PyPI, import name (that of the package's wheel),
# how to build (from_obj, from_text or None) from the module, why it is not JCS or None).
PYPI: list[tuple[str, str, Build, str | None]] = [
    ("rfc8785", "rfc8785", lambda m: (m.dumps, None), None),
    ("jcs", "jcs", lambda m: (_as_bytes(m.canonicalize), None), None),
    ("json-canonical", "json_canonical", lambda m: (_as_bytes(m.canonicalize), None), None),
    ("jsoncanon", "jsoncanon", lambda m: (_as_bytes(m.canonicalize), None), None),
    ("jcs-admit", "jcs_admit", _admit, None),
    (
        "canonicaljson",
        "canonicaljson",
        lambda m: (_as_bytes(m.encode_canonical_json), None),
        "Matrix's canonical JSON: members sorted by code point, not UTF-16 units; numbers and escapes "
        "differ from RFC 8785",
    ),
]


class CannotStart(Exception):
    """An external candidate's command could not be started (not found, not executable)."""


class Refused(Exception):
    """An external candidate refused a document (non-zero exit, or a timeout)."""


def command_candidate(name: str, command: str, strip_newline: bool = False, timeout: float = 10.0) -> Candidate:
    """A canonicalizer that is a command, one process per document (docs/cli.md, "bench"): the
    JSON text on its standard input; the canonical bytes on its standard output and exit 0, or a
    non-zero exit to refuse the document. With `strip_newline`, one trailing newline of its output
    is not part of the canonical bytes (the protocol's trailing-newline option). The timing is the
    whole process per document: start, read, canonicalize, write, exit."""
    import shlex
    import subprocess

    argv = shlex.split(command)
    if not argv:
        raise ValueError(f"{name}: empty command")

    def from_text(data: bytes) -> bytes:
        try:
            p = subprocess.run(argv, input=data, capture_output=True, timeout=timeout)
        except OSError as exc:
            raise CannotStart(f"cannot start {command!r}: {exc.strerror or exc}") from exc
        except subprocess.TimeoutExpired as exc:
            raise Refused(f"timed out after {timeout:g} s") from exc
        if p.returncode != 0:
            said = p.stderr.decode("utf-8", "replace").strip().splitlines()
            raise Refused(f"exit {p.returncode}" + (f": {said[-1][:60]}" if said else ""))
        out = p.stdout
        if strip_newline and out.endswith(b"\n"):
            out = out[:-1]
        return out

    return Candidate(name, _via_text(from_text), from_text, obj_native=False, command=command)


def batch_candidate(name: str, command: str, timeout: float = 10.0) -> Candidate:
    """A canonicalizer that is a command speaking the batch protocol (docs/interop.md): started
    once, every document of a timing run sent down one pipe. The timing is the round trip:
    base64 both ways, the pipe, and the peer's own work. A command that cannot start raises
    CannotStart; any other fault (crash, timeout) is a refusal of that document."""
    peer = BatchPeer(command, timeout)

    def many(docs: Sequence[bytes]) -> list[Any]:
        out = peer.run(docs)
        if out and out[0].status == CANNOT_START:
            raise CannotStart(f"cannot start {command!r}: {out[0].detail}")
        return out

    def from_text(data: bytes) -> bytes:
        (answer,) = many([data])
        if answer.status != OK:
            raise Refused(answer.detail or answer.data.decode("utf-8", "replace")[:80])
        return answer.data

    return Candidate(
        name, _via_text(from_text), from_text, obj_native=False, command=command, many=many, close=peer.close
    )


def candidates() -> tuple[list[Candidate], dict[str, str]]:
    """The canonicalizers importable here, and the reason each absent one is skipped (a known
    PyPI one: "not installed (pip install NAME; import MODULE)")."""
    found: list[Candidate] = []
    skipped: dict[str, str] = {}
    D = DEFAULT_MAX_DEPTH

    try:
        _native = backends.load("native")
    except ImportError as exc:
        skipped["fastjcs (native)"] = f"C extension not built: {exc}"
    else:
        found.append(
            Candidate("fastjcs (native)", lambda o: _native.dumps(o, D), lambda t: _native.canonicalize(t, D, False))
        )
    _python = backends.load("python")
    found.append(
        Candidate("fastjcs (python)", lambda o: _python.dumps(o, D), lambda t: _python.canonicalize(t, D, False))
    )

    def optional(name: str, module: str, build: Build, not_jcs: str | None, pypi: str) -> None:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            skipped[name] = f"not installed (pip install {pypi}; import {module})"
            return
        except Exception as exc:  # noqa: BLE001 - a broken install: say so, do not end the run
            skipped[name] = f"installed, import failed: {type(exc).__name__}: {exc}"[:120]
            return
        try:
            from_obj, from_text = build(mod)
        except AttributeError as exc:
            skipped[name] = f"installed, API not recognised: {exc}"
            return
        found.append(Candidate(name, from_obj, from_text, not_jcs=not_jcs, obj_native=from_text is None))

    for pypi, module, build, not_jcs in PYPI:
        optional(pypi, module, build, not_jcs, pypi)

    def orjson_sorted(m: Any) -> tuple[Callable[[Any], bytes], None]:
        option = m.OPT_SORT_KEYS
        return (lambda o: m.dumps(o, option=option)), None

    optional("orjson (sorted keys)", "orjson", orjson_sorted, "a JSON serializer with sorted keys", "orjson")
    found.append(
        Candidate(
            "json.dumps (sorted keys)",
            lambda o: json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"),
            not_jcs="a JSON serializer with sorted keys",
        )
    )
    return found, skipped
