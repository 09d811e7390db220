"""The interop lab: put a corpus of cases to canonicalizer peers, classify every answer, shrink one
reproducer per class of failure, and write the matrix (peers x families of cases) as text,
markdown, a self-contained HTML page or JSON (docs/interop.md).

A case (fastjcs.tools.corpus.Case) carries its document, its category and clause, and the
expected answer: the canonical bytes, or None for a document that must be refused. A peer is a
command speaking the batch protocol (`BatchPeer`) or, as a fallback, one process per document
(`OneShotPeer`). Every answer falls in exactly one class (CLASSES); `agree` is the only pass.
"""

from __future__ import annotations

import html
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ..core import api
from ..core.errors import FastJCSError
from .crosscheck import difference_kind, strip_newline
from .peers import (
    CANNOT_START,
    CRASH,
    ERROR,
    OK,
    PROTOCOL_ERROR,
    TIMEOUT,
    BatchPeer,
    Outcome,
    call,
)

if TYPE_CHECKING:
    from .corpus import Case

AGREE = "agree"
#: Wrong bytes, by the area where they differ from the canonical form.
WRONG_NUMBER, WRONG_STRING, WRONG_ORDER, WRONG_WHITESPACE, WRONG_OTHER = (
    "wrong-number",
    "wrong-string",
    "wrong-order",
    "wrong-whitespace",
    "wrong-other",
)
ACCEPTS_INVALID, REFUSES_VALID = "accepts-invalid", "refuses-valid"
#: Every class of failure, in the order reports list them.
CLASSES = (
    WRONG_NUMBER,
    WRONG_STRING,
    WRONG_ORDER,
    WRONG_WHITESPACE,
    WRONG_OTHER,
    ACCEPTS_INVALID,
    REFUSES_VALID,
    CRASH,
    TIMEOUT,
    CANNOT_START,
    PROTOCOL_ERROR,
)
#: Classes where the peer gave no answer: not compared.
NO_ANSWER = (CRASH, TIMEOUT, CANNOT_START, PROTOCOL_ERROR)
_AREA = {
    "number-format": WRONG_NUMBER,
    "string-escaping": WRONG_STRING,
    "member-order": WRONG_ORDER,
    "whitespace": WRONG_WHITESPACE,
    "trailing-newline": WRONG_WHITESPACE,
    "other": WRONG_OTHER,
}
#: The families of categories, the matrix's columns, in order (a category is "<family>-<what>").
FAMILIES = ("number", "string", "order", "structure", "whitespace", "syntax", "vectors", "es6", "user")


def family(category: str) -> str:
    """The matrix column of a category: the part before its first hyphen."""
    return category.split("-", 1)[0]


def _family_rank(fam: str) -> tuple[int, str]:
    return (FAMILIES.index(fam) if fam in FAMILIES else len(FAMILIES), fam)


def classify(expected: bytes | None, outcome: Outcome) -> str:
    """The class of one answer: agree, or one of CLASSES."""
    if outcome.fault:
        return outcome.status
    if expected is None:
        return AGREE if outcome.status == ERROR else ACCEPTS_INVALID
    if outcome.status == ERROR:
        return REFUSES_VALID
    if outcome.data == expected:
        return AGREE
    return _AREA[difference_kind(expected, outcome.data)]


def expected_of(text: bytes) -> bytes | None:
    """fastjcs's answer for a text: its canonical bytes, or None when it refuses it."""
    try:
        return api.canonicalize(text)
    except FastJCSError:
        return None


# ---------------------------------------------------------------------------------------------------
# Peers
# ---------------------------------------------------------------------------------------------------


class OneShotPeer:
    """The fallback protocol: one process per document, the document on stdin, its canonical
    bytes on stdout with exit 0, any other exit a refusal. `newline="strip"` takes one final line
    ending off each answer (a canonical text never ends with one)."""

    def __init__(self, command: str, timeout: float = 10.0, newline: str = "strip", jobs: int = 2) -> None:
        self.command, self.timeout, self.newline, self.jobs = command, timeout, newline, jobs

    def _one(self, document: bytes) -> Outcome:
        reply = call(self.command, document, self.timeout)
        if reply.fault is not None:
            return Outcome(reply.fault, reply.stderr, reply.describe_fault())
        if reply.status != 0:
            return Outcome(ERROR, reply.stderr.strip()[-300:])
        return Outcome(OK, strip_newline(reply.stdout) if self.newline == "strip" else reply.stdout)

    def run(self, documents: Sequence[bytes], progress: Callable[[int], None] | None = None) -> list[Outcome]:
        out: list[Outcome] = []
        with ThreadPoolExecutor(max(1, self.jobs)) as pool:
            for outcome in pool.map(self._one, documents):
                out.append(outcome)
                if progress is not None:
                    progress(1)
        return out

    def close(self) -> None:
        pass


@dataclass
class PeerSpec:
    """A peer to run: a name, its command and protocol ("batch" or "one-shot"), and what is known
    of it (ecosystem, language, package, version) for the report."""

    name: str
    command: str
    protocol: str = "batch"
    ecosystem: str = ""
    language: str = ""
    package: str = ""
    version: str = ""

    def start(self, timeout: float, newline: str = "strip") -> Any:
        if self.protocol == "one-shot":
            return OneShotPeer(self.command, timeout, newline)
        return BatchPeer(self.command, timeout)


def parse_peer(text: str, protocol: str = "batch") -> PeerSpec:
    """NAME=COMMAND (a command with no name is named by its first word)."""
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or " " in name.strip():
        name, command = text.split()[0] if text.split() else "", text
    if not command.strip():
        raise ValueError(f"{text!r}: expected NAME=COMMAND")
    return PeerSpec(name.strip(), command.strip(), protocol)


def read_peers(path: str) -> list[PeerSpec]:
    """The peers of a manifest ({"peers": [{"name", "command", ...}]}, as interop/setup.sh writes)."""
    with open(path, "rb") as f:
        doc = json.load(f)
    fields = set(PeerSpec.__dataclass_fields__)
    try:
        return [PeerSpec(**{k: str(v) for k, v in p.items() if k in fields}) for p in doc["peers"]]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a peers manifest ({exc})") from exc


# ---------------------------------------------------------------------------------------------------
# Shrinking
# ---------------------------------------------------------------------------------------------------


#: Texts longer than this are cut down by bytes before their inner values are tried (trying every
#: start of a value is quadratic in the length).
DESCEND_BELOW = 4096


def sub_values(text: bytes) -> list[bytes]:
    """Every complete JSON value inside the text but the whole (members' values, elements,
    strings, numbers), smallest first: the candidates for descending into a child."""
    decoder = json.JSONDecoder()
    chars = text.decode("utf-8", "surrogateescape")
    found = set()
    for start, ch in enumerate(chars):
        if ch in '{["-0123456789tfn' and (start == 0 or chars[start - 1] not in "0123456789.eE+-"):
            try:
                _, end = decoder.raw_decode(chars, start)
            except (ValueError, RecursionError):
                continue
            if end - start < len(chars):
                found.add(chars[start:end].encode("utf-8", "surrogateescape"))
    return sorted(found, key=lambda t: (len(t), t))


class _Budget:
    def __init__(self, calls: int) -> None:
        self.left = calls

    def take(self, trials: list[bytes]) -> list[bytes]:
        trials = trials[: max(0, self.left)]
        self.left -= len(trials)
        return trials


def _descend(text: bytes, same_class: Callable[[list[bytes]], list[bool]], budget: _Budget) -> bytes:
    inner = budget.take(sub_values(text))
    if inner:
        verdicts = same_class(inner)
        if any(verdicts):
            return inner[verdicts.index(True)]
    return text


def _ddmin(text: bytes, same_class: Callable[[list[bytes]], list[bool]], budget: _Budget) -> bytes:
    n = 2
    while len(text) > 1 and budget.left > 0:
        size = max(1, len(text) // n)
        pieces = [(k, min(k + size, len(text))) for k in range(0, len(text), size)]
        trials = [text[:a] + text[b:] for a, b in pieces]
        if n > 2:
            trials += [text[a:b] for a, b in pieces]
        trials = budget.take(trials)
        verdicts = same_class(trials)
        if any(verdicts):
            text = trials[verdicts.index(True)]
            n = max(n - 1, 2)
        elif size == 1:
            break
        else:
            n = min(len(text), n * 2)
    return text


def shrink_bytes(text: bytes, same_class: Callable[[list[bytes]], list[bool]], budget: int) -> bytes:
    """A smaller text of the same class, in at most `budget` trials: the smallest value inside it
    that keeps the class, then delta debugging over bytes (each round's candidates, the text
    without one of n chunks and each chunk alone, put to the peer together in one batch). A long
    text is cut down by bytes first."""
    left = _Budget(budget)
    if len(text) > DESCEND_BELOW:
        text = _ddmin(text, same_class, left)
    if len(text) <= DESCEND_BELOW:
        text = _descend(text, same_class, left)
    return _ddmin(text, same_class, left)


# ---------------------------------------------------------------------------------------------------
# A peer's run
# ---------------------------------------------------------------------------------------------------


@dataclass
class Example:
    """One failure of a class, as found and as shrunk."""

    cls: str
    case_id: str
    category: str
    clause: str
    text: bytes
    expected: bytes | None
    got: Outcome
    reproducer: bytes
    reproducer_expected: bytes | None
    reproducer_got: Outcome

    def as_dict(self) -> dict[str, Any]:
        return {
            "class": self.cls,
            "case": self.case_id,
            "category": self.category,
            "clause": self.clause,
            "text": show(self.text),
            "expected": _answer(self.expected),
            "got": _outcome(self.got),
            "reproducer": show(self.reproducer),
            "reproducer_expected": _answer(self.reproducer_expected),
            "reproducer_got": _outcome(self.reproducer_got),
        }


@dataclass
class PeerResult:
    """Everything one peer did with the corpus."""

    spec: PeerSpec
    cases: int = 0
    bytes_in: int = 0
    seconds: float = 0.0
    #: of `seconds`, the time lost to faults (timeouts waited out, probes, restarts after a crash)
    fault_seconds: float = 0.0
    #: family -> class (or "agree") -> count
    cells: dict[str, Counter] = field(default_factory=dict)
    totals: Counter = field(default_factory=Counter)
    examples: dict[str, Example] = field(default_factory=dict)

    def count(self, example: Example) -> int:
        """How many cases of the example's family fall in its class."""
        return self.cells[family(example.category)][example.cls]

    @property
    def failures(self) -> int:
        return sum(n for cls, n in self.totals.items() if cls != AGREE)

    @property
    def answered(self) -> int:
        """Cases the peer answered (agreeing or not): what was compared."""
        return sum(n for cls, n in self.totals.items() if cls not in NO_ANSWER)

    @property
    def ok(self) -> bool:
        return self.cases > 0 and self.failures == 0

    @property
    def docs_per_second(self) -> float:
        """Answers per second of the run, the time lost to faults left out."""
        busy = self.seconds - self.fault_seconds
        return self.answered / busy if busy > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "peer": self.spec.__dict__,
            "cases": self.cases,
            "answered": self.answered,
            "failures": self.failures,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "fault_seconds": round(self.fault_seconds, 3),
            "documents_per_second": round(self.docs_per_second),
            "bytes": self.bytes_in,
            "totals": dict(self.totals),
            "cells": {f: dict(c) for f, c in self.cells.items()},
            "examples": [e.as_dict() for e in self.examples.values()],
        }


def run_peer(
    spec: PeerSpec,
    cases: Sequence[Case],
    timeout: float = 10.0,
    shrink_budget: int = 400,
    newline: str = "strip",
    progress: Callable[[int], None] | None = None,
) -> PeerResult:
    """Put every case to the peer (timed), classify every answer, and shrink the smallest failing
    case of each class in each family of categories to a reproducer of that class."""
    result = PeerResult(spec, cases=len(cases), bytes_in=sum(len(c.text) for c in cases))
    peer = spec.start(timeout, newline)
    try:
        start = time.perf_counter()
        outcomes = peer.run([c.text for c in cases], progress)
        result.seconds = time.perf_counter() - start
        result.fault_seconds = getattr(peer, "fault_seconds", 0.0)
        first: dict[tuple[str, str], int] = {}
        for k, (case, outcome) in enumerate(zip(cases, outcomes)):
            cls = classify(case.expected, outcome)
            fam = family(case.category)
            result.totals[cls] += 1
            result.cells.setdefault(fam, Counter())[cls] += 1
            if cls != AGREE and ((cls, fam) not in first or len(case.text) < len(cases[first[cls, fam]].text)):
                first[cls, fam] = k
        order = {c: n for n, c in enumerate(CLASSES)}
        for cls, fam in sorted(first, key=lambda key: (order[key[0]], _family_rank(key[1]))):
            case, outcome = cases[first[cls, fam]], outcomes[first[cls, fam]]
            text = case.text
            # a timeout costs the whole timeout per trial, a command that cannot start has nothing to
            # shrink: those keep their case as found
            if cls not in (TIMEOUT, CANNOT_START) and shrink_budget > 0:

                def same_class(trials: list[bytes], cls: str = cls) -> list[bool]:
                    answers = peer.run(trials)
                    return [classify(expected_of(t), a) == cls for t, a in zip(trials, answers)]

                text = shrink_bytes(text, same_class, shrink_budget if cls != CRASH else min(shrink_budget, 40))
            again = peer.run([text])[0] if text != case.text else outcome
            result.examples[f"{cls} {fam}"] = Example(
                cls,
                case.id,
                case.category,
                case.clause,
                case.text,
                case.expected,
                outcome,
                text,
                expected_of(text) if text != case.text else case.expected,
                again,
            )
    finally:
        peer.close()
    return result


# ---------------------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------------------


def show(text: bytes) -> str:
    """Bytes for a report, printable: printable ASCII as itself, every other character as
    \\u{XXXX} and every byte that is not UTF-8 as \\xNN (the braces and the x tell them from
    a JSON escape, which shows as itself)."""
    out = []
    for ch in text.decode("utf-8", "surrogateescape"):
        o = ord(ch)
        if 0x20 <= o < 0x7F:
            out.append(ch)
        elif 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02X}")
        else:
            out.append(f"\\u{{{o:04X}}}")
    return "".join(out)


def clip(text: str, most: int = 160) -> str:
    """A shown text cut to `most` characters, saying how long it was (reports; JSON keeps all)."""
    return text if len(text) <= most else f"{text[:most]}... ({len(text)} characters)"


def _answer(data: bytes | None) -> str:
    return "refused" if data is None else show(data)


def _outcome(o: Outcome) -> str:
    if o.status == OK:
        return show(o.data)
    if o.status == ERROR:
        return f"refused ({show(o.data[:120])})"
    return f"{o.status}: {o.detail}"


def _cell(counts: Counter | None) -> str:
    if not counts:
        return "-"
    bad = [(cls, counts[cls]) for cls in CLASSES if counts.get(cls)]
    if not bad:
        return f"pass ({counts[AGREE]})"
    return ", ".join(f"{n} {cls}" for cls, n in bad)


def _columns(results: Sequence[PeerResult]) -> list[str]:
    return sorted({f for r in results for f in r.cells}, key=_family_rank)


def _throughput(r: PeerResult) -> str:
    return f"{r.docs_per_second:,.0f}/s" if r.seconds else "-"


def text_report(results: Sequence[PeerResult]) -> str:
    """The matrix and every reproducer, for a terminal."""
    lines = []
    for r in results:
        verdict = "pass" if r.ok else f"{r.failures} of {r.cases} fail"
        lines.append(
            f"{r.spec.name}: {verdict}; {r.answered} answered, {_throughput(r)} ({r.seconds:.2f} s for {r.cases} cases)"
        )
        for fam in _columns([r]):
            lines.append(f"  {fam:<11} {_cell(r.cells.get(fam))}")
        for e in r.examples.values():
            lines.append(f"  [{e.cls}] {r.count(e)} {family(e.category)} cases, e.g. {e.case_id} ({e.clause})")
            lines.append(f"    reproducer: {clip(show(e.reproducer))}")
            lines.append(f"    fastjcs:    {clip(_answer(e.reproducer_expected))}")
            lines.append(f"    peer:       {clip(_outcome(e.reproducer_got))}")
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "\\`")


def markdown_report(results: Sequence[PeerResult], meta: dict[str, Any]) -> str:
    """The matrix as markdown (for the docs), then each peer's classes with a shrunk reproducer."""
    cols = _columns(results)
    out = [
        "# JCS interop matrix",
        "",
        f"Generated {meta.get('date', '')} by `{meta.get('command', 'fastjcs interop')}` "
        f"(fastjcs {meta.get('fastjcs', '')}): {meta.get('cases', 0)} cases "
        f"({meta.get('corpus', '')}), seed {meta.get('seed', '')}. A cell is `pass (N)` when the "
        "peer agrees with RFC 8785 on all N cases of that family, else the count of each class "
        "of failure; documents/s is the batch run's throughput, faults left out "
        "([the lab](interop.md) says how to read it).",
        "",
        "| peer | version | language | " + " | ".join(cols) + " | documents/s |",
        "|---|---|---|" + "---|" * len(cols) + "---:|",
    ]
    for r in results:
        s = r.spec
        cells = [_md(_cell(r.cells.get(f))) for f in cols]
        out.append(
            f"| {_md(s.name)} | {_md(s.version or '-')} | {_md(s.language or '-')} | "
            + " | ".join(cells)
            + f" | {_throughput(r)} |"
        )
    for r in results:
        if not r.examples:
            continue
        out += ["", f"### {r.spec.name}", ""]
        for e in r.examples.values():
            out.append(
                f"- **{e.cls}** ({r.count(e)} {family(e.category)} cases; e.g. `{e.category}`, {e.clause}): "
                f"`{_md(clip(show(e.reproducer)))}` gives `{_md(clip(_outcome(e.reproducer_got)))}`, "
                f"RFC 8785: `{_md(clip(_answer(e.reproducer_expected)))}`"
            )
    return "\n".join(out) + "\n"


def html_report(results: Sequence[PeerResult], meta: dict[str, Any]) -> str:
    """The matrix as one self-contained HTML page (no script, no external resource)."""
    cols = _columns(results)
    e = html.escape
    rows = []
    for r in results:
        cells = []
        for f in cols:
            counts = r.cells.get(f)
            bad = counts is not None and any(counts.get(c) for c in CLASSES)
            klass = "none" if counts is None else ("fail" if bad else "pass")
            cells.append(f'<td class="{klass}">{e(_cell(counts))}</td>')
        rows.append(
            f"<tr><th>{e(r.spec.name)}</th><td>{e(r.spec.version or '-')}</td>"
            f"<td>{e(r.spec.language or '-')}</td>{''.join(cells)}<td>{e(_throughput(r))}</td></tr>"
        )
    details = []
    for r in results:
        for x in r.examples.values():
            details.append(
                f"<tr><td>{e(r.spec.name)}</td><td>{e(x.cls)}</td><td>{r.count(x)}</td>"
                f"<td>{e(x.category)}<br>{e(x.clause)}</td><td><code>{e(clip(show(x.reproducer)))}</code></td>"
                f"<td><code>{e(clip(_outcome(x.reproducer_got)))}</code></td>"
                f"<td><code>{e(clip(_answer(x.reproducer_expected)))}</code></td></tr>"
            )
    head = "".join(f"<th>{e(c)}</th>" for c in cols)
    summary = (
        f"Generated {meta.get('date', '')}: {meta.get('cases', 0)} cases ({meta.get('corpus', '')}), "
        f"seed {meta.get('seed', '')}."
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>JCS interop matrix</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; margin-bottom: 2em; }}
th, td {{ border: 1px solid #ccc; padding: 4px 8px; vertical-align: top; }}
td.pass {{ background: #d9f2d9; }} td.fail {{ background: #f8d0d0; }} td.none {{ color: #999; }}
code {{ word-break: break-all; }}
</style></head><body>
<h1>JCS interop matrix</h1>
<p>{e(summary)}</p>
<table><tr><th>peer</th><th>version</th><th>language</th>{head}<th>documents/s</th></tr>
{chr(10).join(rows)}
</table>
<h2>Reproducers (shrunk)</h2>
<table><tr><th>peer</th><th>class</th><th>cases</th><th>category</th><th>input</th>
<th>peer answers</th><th>RFC 8785</th></tr>
{chr(10).join(details)}
</table></body></html>
"""


class Progress:
    """Cases answered so far, on stderr: redrawn in place on a terminal (five times a second at
    most), one line per tenth otherwise; nothing when disabled."""

    def __init__(self, name: str, total: int, enabled: bool = True) -> None:
        self.name, self.total, self.done, self.enabled = name, total, 0, enabled and total > 0
        self.tty = sys.stderr.isatty()
        self._start = time.perf_counter()
        self._next: float = self._start if self.tty else max(1, total // 10)

    def __call__(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.tty:
            due = now >= self._next or self.done == self.total
        else:
            due = self.done >= self._next or self.done == self.total
        if due:
            rate = self.done / max(now - self._start, 1e-9)
            end = "\r" if self.tty and self.done < self.total else "\n"
            self._next = now + 0.2 if self.tty else self.done + max(1, self.total // 10)
            print(f"{self.name}: {self.done}/{self.total} cases, {rate:,.0f}/s", end=end, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------
# The matrix
# ---------------------------------------------------------------------------------------------------


class NothingCompared(Exception):
    """No peer answered one case (every one could not start, or there was no case): exit 2."""


@dataclass
class Matrix:
    """A run of several peers over one corpus, with what is needed to publish it."""

    results: list[PeerResult]
    meta: dict[str, Any]
    #: peers that were not run, and why (a manifest's "skipped": not installable here)
    skipped: list[dict[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def text(self) -> str:
        lines = [text_report(self.results)]
        lines += [f"{s.get('name')}: not run ({s.get('why')})" for s in self.skipped]
        failing = [r.spec.name for r in self.results if not r.ok]
        lines.append(
            f"{len(self.results)} peer(s), {self.meta.get('cases', 0)} cases each: "
            + (f"{len(failing)} with failures ({', '.join(failing)})" if failing else "all agree")
        )
        return "\n".join(lines)

    def markdown(self) -> str:
        out = markdown_report(self.results, self.meta)
        if self.skipped:
            out += "\nNot run: " + "; ".join(f"{s.get('name')} ({s.get('why')})" for s in self.skipped) + ".\n"
        return out

    def html(self) -> str:
        return html_report(self.results, self.meta)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "meta": self.meta,
            "results": [r.as_dict() for r in self.results],
            "skipped": self.skipped,
        }


def run_matrix(
    specs: Sequence[PeerSpec],
    cases: Sequence[Case],
    meta: dict[str, Any],
    timeout: float = 10.0,
    shrink_budget: int = 400,
    newline: str = "strip",
    progress: bool = True,
) -> Matrix:
    """Run every peer over the cases, one after the other (their throughput is not shared).
    Raises NothingCompared when there is no case, or no peer answered a single one."""
    if not cases:
        raise NothingCompared("nothing compared: the corpus has no case")
    results = [
        run_peer(s, cases, timeout, shrink_budget, newline, Progress(s.name, len(cases), progress)) for s in specs
    ]
    if not any(r.answered for r in results):
        why = "; ".join(f"{r.spec.name}: {next(iter(r.examples.values())).got.detail}" for r in results if r.examples)
        raise NothingCompared(f"nothing compared: no peer answered a case ({why})")
    return Matrix(results, {**meta, "cases": len(cases)})
