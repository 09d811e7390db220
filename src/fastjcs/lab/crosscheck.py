"""`fastjcs crosscheck`: hold another implementation against fastjcs over stdin/stdout.

Two protocols, one process per call:

- vector (`--impl CMD`): one vector JSON on stdin; `{"pre_image": ..., "digest": ...}` on stdout
  and exit 0, non-zero exit for a refusal, empty output with exit 0 for "skipped"
  (docs/cli.md). fastjcs's own answer is `fastjcs.conformance.protocol.answer`.
- canon (`--canon-impl CMD`): a JSON text on stdin, its canonical bytes on stdout and exit 0, or a
  non-zero exit for a text it refuses. Not run here: the command is a one-shot peer of the
  interop lab (`fastjcs.lab.interop`), put the lab's corpus ("quick" unless --corpus says) and
  held to its classes, as `fastjcs interop --one-shot` does.

Honest verdicts (docs/cli.md): a call whose command cannot start (exit 126 or 127 from the shell,
or no shell at all), crashes (killed by a signal) or times out is a fault of that class, never an
answer; a run that compares nothing (no case to put, every case skipped, a command that never
starts) raises `NothingCompared`; every counter the summary prints agrees with `Summary.ok`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..conformance import protocol
from ..conformance.reader import read_document
from .peers import CANNOT_START, CRASH, FAULTS, TIMEOUT, Reply, call
from .peers import first_line as _first_line


class NothingCompared(Exception):
    """The run put no case to the other implementation, or got no answer to any (exit 2)."""


# ---------------------------------------------------------------------------------------------------
# Vector protocol
# ---------------------------------------------------------------------------------------------------


@dataclass
class Disagreement:
    kind: str  # vector | protocol-difference; or a fault: cannot-start | crash | timeout
    where: str  # vector name
    ours: str
    theirs: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def report(self) -> str:
        if self.kind in FAULTS:
            return f"FAULT [{self.kind}] {self.where}: {_show(self.theirs)}; no answer, not a disagreement"
        lines = [f"DISAGREE [{self.kind}] {self.where}"]
        lines.append(f"  fastjcs: {_show(self.ours)}")
        lines.append(f"  other:   {_show(self.theirs)}")
        return "\n".join(lines)


def _show(text: str) -> str:
    """Text for a terminal: characters that do not print (controls, U+2028, lone surrogates) and
    the private-use and specials blocks as <U+XXXX>."""
    return "".join(
        c if c.isprintable() and not ("\ue000" <= c <= "\uf8ff" or "\ufff0" <= c <= "\uffff") else f"<U+{ord(c):04X}>"
        for c in text
    )


def vector_items(paths: Sequence[Path]) -> Iterator[tuple[str, bytes]]:
    """(name, vector JSON bytes) for every vector under `paths`: CPB files one by one, EAB files
    split into one JSON object per vector."""
    from ..conformance.eab_vectors import is_eab_file

    for root in paths:
        files = sorted(p for p in root.rglob("*.json") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            raw = path.read_bytes()
            name = path.relative_to(root).as_posix() if root.is_dir() else path.name
            try:
                doc = read_document(raw)
            except ValueError:
                continue
            if is_eab_file(doc):
                for i, v in enumerate(doc["vectors"]):
                    # ASCII: a lone surrogate (a vector that must be refused) stays a \ud800 escape
                    yield f"{name}#{v.get('id', i)}", json.dumps(v, ensure_ascii=True).encode("ascii")
            else:
                yield name, raw


def _describe(a: protocol.Answer) -> str:
    if a.status == protocol.FAIL:
        return f"refused ({a.reason})"
    if a.status == protocol.SKIP:
        return "skipped"
    if a.pre_image is None:
        return json.dumps(a.extra, ensure_ascii=False)
    return f"pre_image {a.pre_image.decode('utf-8')!r} digest {a.digest}"


def _is_contrast(raw: bytes) -> bool:
    """A MUST-FAIL vector whose failure_reason names a contrast (a wrong construction it pins)."""
    from ..conformance.cpb_vectors import failure_meaning

    try:
        doc = read_document(raw)
    except ValueError:
        return False
    return (
        isinstance(doc, dict)
        and doc.get("must_fail") is True
        and failure_meaning(doc.get("failure_reason")) == "contrast"
    )


def compare_vector(name: str, raw: bytes, reply: Reply) -> tuple[str, Disagreement | None]:
    """("agree" | "skipped", None), ("disagree", Disagreement), or ("protocol-difference",
    Disagreement) for a contrast vector we answer and the other implementation refuses as must_fail;
    (fault, Disagreement) for a call that gave no answer (cannot-start, crash, timeout)."""
    ours = protocol.answer(raw)
    if reply.fault is not None:
        return reply.fault, Disagreement(reply.fault, name, _describe(ours), reply.describe_fault())
    if reply.status == 0 and not reply.stdout.strip():
        return "skipped", None
    if reply.status != 0:
        theirs = f"refused (exit {reply.status}: {_first_line(reply.stderr)})"
        if ours.status == protocol.FAIL:
            return "agree", None
        if ours.status == protocol.OK and _is_contrast(raw):
            # A contrast vector is marked must_fail only to keep it out of the pass suite: we answer
            # its conforming preimage, an implementation that exits non-zero on every must_fail
            # refuses it. That is a difference of protocol, not of digests.
            return "protocol-difference", Disagreement("protocol-difference", name, _describe(ours), theirs)
        return "disagree", Disagreement("vector", name, _describe(ours), theirs)
    try:
        body = json.loads(reply.stdout)
        if not isinstance(body, dict):
            raise ValueError("not an object")
    except ValueError:
        return "disagree", Disagreement("vector", name, _describe(ours), f"unreadable output {reply.stdout[:120]!r}")
    theirs = f"pre_image {body.get('pre_image')!r} digest {body.get('digest')}"
    if ours.status != protocol.OK:
        return "disagree", Disagreement("vector", name, _describe(ours), theirs)
    if ours.pre_image is None:  # a verdict, not a preimage: exit 0 on both sides agrees
        return "agree", None
    if body.get("pre_image") != ours.pre_image.decode("utf-8") or body.get("digest") != ours.digest:
        return "disagree", Disagreement("vector", name, _describe(ours), theirs)
    return "agree", None


# ---------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------


def _faults_line(counts: dict[str, int]) -> str:
    return "".join(f", {counts[f]} {f.replace('-', ' ')}" for f in FAULTS if counts[f])


@dataclass
class Summary:
    """The counters of a vector run and what it shows. Every counter is counted over every
    vector; the lists hold what is shown. `ok` reads the counters, never the lists."""

    vectors: dict[str, int] = field(
        default_factory=lambda: {
            "agree": 0,
            "skipped": 0,
            "disagree": 0,
            "protocol-difference": 0,
            "not-answered-by-fastjcs": 0,
            **dict.fromkeys(FAULTS, 0),
        }
    )
    disagreements: list[Disagreement] = field(default_factory=list)
    #: contrast vectors the other implementation refuses as must_fail: reported, not a disagreement
    protocol_differences: list[Disagreement] = field(default_factory=list)
    #: calls that gave no answer (cannot-start, crash, timeout), shown; counted in vectors
    faults: list[Disagreement] = field(default_factory=list)
    #: every disagreement counted, by kind
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def disagree(self) -> int:
        return self.vectors["disagree"]

    @property
    def failed(self) -> int:
        """Calls that gave no answer."""
        return sum(self.vectors[f] for f in FAULTS)

    @property
    def ok(self) -> bool:
        return self.disagree == 0 and self.failed == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "vectors": self.vectors,
            "kinds": self.kinds,
            "disagreements": [d.as_dict() for d in self.disagreements],
            "faults": [d.as_dict() for d in self.faults],
            "protocol_differences": [d.as_dict() for d in self.protocol_differences],
        }

    def report(self) -> str:
        lines = [d.report() for d in self.disagreements + self.faults]
        lines += [
            f"PROTOCOL {p.where}: a contrast vector; fastjcs answers the conforming preimage, the other "
            f"implementation refuses every must_fail ({_show(p.theirs)})"
            for p in self.protocol_differences
        ]
        v = self.vectors
        if sum(v.values()):
            lines.append(
                f"vectors: {v['agree']} agree, {v['disagree']} disagree, {v['skipped']} skipped by the "
                f"other implementation, {v['not-answered-by-fastjcs']} not answered by fastjcs, "
                f"{v['protocol-difference']} protocol difference(s) (contrast vectors)" + _faults_line(v)
            )
        verdict = []
        if self.disagree:
            verdict.append(f"{self.disagree} disagreement(s): " + ", ".join(sorted(self.kinds)))
        if self.failed:
            verdict.append(
                f"{self.failed} call(s) without an answer: "
                + ", ".join(f"{n} {f.replace('-', ' ')}" for f in FAULTS if (n := v[f]))
            )
        lines.append("; ".join(verdict) or "no disagreement")
        return "\n".join(lines)


def _nothing_compared(what: str, cmd: str, counts: dict[str, int], replies: Sequence[Reply]) -> None:
    """Raise NothingCompared when not one case got an answer and none crashed or timed out: the
    command never started, or skipped every case."""
    if counts["agree"] + counts["disagree"] + counts.get("protocol-difference", 0) + counts[CRASH] + counts[TIMEOUT]:
        return
    first = next((r for r in replies if r.fault == CANNOT_START), None)
    if first is not None:
        raise NothingCompared(f"{cmd!r}: {first.describe_fault()}")
    raise NothingCompared(f"nothing compared: the other implementation skipped all {counts['skipped']} {what}")


def run_vectors(cmd: str, paths: Sequence[Path], summary: Summary, timeout: float, jobs: int) -> None:
    items = []
    for name, raw in vector_items(paths):
        try:
            ours = protocol.answer(raw)
        except protocol.VectorError:
            ours = protocol.Answer(protocol.SKIP)
        if ours.status == protocol.SKIP:
            summary.vectors["not-answered-by-fastjcs"] += 1
        else:
            items.append((name, raw))
    if not items:
        raise NothingCompared(
            f"nothing compared: no vector fastjcs answers under "
            f"{', '.join(str(p) for p in paths)} "
            f"({summary.vectors['not-answered-by-fastjcs']} not answered by fastjcs)"
        )
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        replies = list(pool.map(lambda item: call(cmd, item[1], timeout), items))
    for (name, raw), reply in zip(items, replies):
        verdict, disagreement = compare_vector(name, raw, reply)
        summary.vectors[verdict] += 1
        if disagreement is None:  # agree, skipped
            continue
        if verdict == "protocol-difference":
            summary.protocol_differences.append(disagreement)
        elif verdict in FAULTS:
            summary.faults.append(disagreement)
        else:
            summary.disagreements.append(disagreement)
            summary.kinds[disagreement.kind] = summary.kinds.get(disagreement.kind, 0) + 1
    _nothing_compared("vectors", cmd, summary.vectors, replies)


def command(parts: Sequence[str]) -> str:
    """A command given as one string (shell syntax) or as several words."""
    return parts[0] if len(parts) == 1 else " ".join(shlex.quote(p) for p in parts)
