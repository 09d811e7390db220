"""The interop lab: put a corpus of cases to canonicalizer peers, classify every answer, shrink one
reproducer per class of failure, and write the matrix (peers x families of cases) as text,
markdown, a self-contained HTML page or JSON (docs/interop.md).

A case (fastjcs.lab.corpus.Case) carries its document, its category and clause, and the
expected answer: the canonical bytes, or None for a document that must be refused. A peer is a
command speaking the batch protocol (`BatchPeer`) or, as a fallback, one process per document
(`OneShotPeer`), both in fastjcs.lab.peers with the manifests that name them. Every answer falls
in exactly one class (fastjcs.lab.classify.CLASSES); `agree` is the only pass. Shrinking is in
fastjcs.lab.shrink, the text, markdown and HTML reports in fastjcs.lab.report; this module runs a
peer and the matrix (`fastjcs interop`).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .classify import (
    AGREE,
    CHOICES,
    CLASSES,
    NO_ANSWER,
    SLOW,
    TIMED_FAMILIES,
    _family_rank,
    classify_case,
    classify_text,
    expected_of,
    family,
    slow_after,
)
from .corpus import expectation
from .peers import CANNOT_START, CRASH, TIMEOUT, Outcome, PeerSpec
from .report import _answer, _outcome, html_report, markdown_report, show, text_report
from .shrink import shrink_bytes

if TYPE_CHECKING:
    from .corpus import Case


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
    #: the reproducer, put alone to the peer, gave the same class (checked, never assumed); False
    #: when not even the case as found fails alone: the peer's answer to it depends on the
    #: documents sent with it (answers out of order, or mixed up)
    alone: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "reproduces_alone": self.alone,
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
    #: the peer answered only once its input was closed (PeerSpec protocol "batch" breached)
    needs_end_of_input: bool = False
    #: case id -> (seconds for the answer, seconds after which it is slow), for TIMED_FAMILIES
    timed: dict[str, tuple[float, float]] = field(default_factory=dict)

    def count(self, example: Example) -> int:
        """How many cases of the example's family fall in its class."""
        return self.cells[family(example.category)][example.cls]

    @property
    def failures(self) -> int:
        return sum(n for cls, n in self.totals.items() if cls not in (AGREE, *CHOICES))

    @property
    def answered(self) -> int:
        """Cases the peer answered (agreeing or not): what was compared."""
        return sum(n for cls, n in self.totals.items() if cls not in NO_ANSWER)

    @property
    def ok(self) -> bool:
        return self.cases > 0 and self.failures == 0 and not self.needs_end_of_input

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
            "needs_end_of_input": self.needs_end_of_input,
            "timed": {k: {"seconds": round(a, 3), "slow_after": round(b, 3)} for k, (a, b) in self.timed.items()},
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
    jobs: int = 2,
) -> PeerResult:
    """Put every case to the peer (timed), classify every answer, and shrink the smallest failing
    case of each class in each family of categories to a reproducer of that class."""
    result = PeerResult(spec, cases=len(cases), bytes_in=sum(len(c.text) for c in cases))
    peer = spec.start(timeout, newline, jobs)
    try:
        start = time.perf_counter()
        outcomes = peer.run([c.text for c in cases], progress)
        result.seconds = time.perf_counter() - start
        result.fault_seconds = getattr(peer, "fault_seconds", 0.0)
        result.needs_end_of_input = getattr(peer, "needs_end_of_input", False)
        first: dict[tuple[str, str], int] = {}
        limits: dict[int, float] = {}
        for k, (case, outcome) in enumerate(zip(cases, outcomes)):
            fam = family(case.category)
            after = None
            if fam in TIMED_FAMILIES and not outcome.fault:
                after = limits[k] = slow_after(case.text)
                result.timed[case.id] = (outcome.seconds, after)
            cls = classify_case(case.expected, getattr(case, "limit", ""), outcome, after, case.text)
            result.totals[cls] += 1
            result.cells.setdefault(fam, Counter())[cls] += 1
            if cls not in (AGREE, *CHOICES) and (
                (cls, fam) not in first or len(case.text) < len(cases[first[cls, fam]].text)
            ):
                first[cls, fam] = k
        order = {c: n for n, c in enumerate(CLASSES)}
        for cls, fam in sorted(first, key=lambda key: (order[key[0]], _family_rank(key[1]))):
            k = first[cls, fam]
            case, outcome = cases[k], outcomes[k]
            result.examples[f"{cls} {fam}"] = _example(peer, cls, case, outcome, limits.get(k), shrink_budget)
    finally:
        peer.close()
    return result


def _example(peer: Any, cls: str, case: Case, outcome: Outcome, after: float | None, budget: int) -> Example:
    """The example of a class: the case shrunk while the peer keeps answering it in that class,
    then put to the peer alone to check that it does (else the case as found, alone; else the
    example says it fails only among other documents)."""
    text = case.text
    # a timeout costs the whole timeout per trial, a command that cannot start has nothing to
    # shrink, and a slow answer is slow for its size: those keep their case as found
    if cls not in (TIMEOUT, CANNOT_START, SLOW) and budget > 0:

        def same_class(trials: list[bytes]) -> list[bool]:
            answers = peer.run(trials)
            return [classify_text(t, a) == cls for t, a in zip(trials, answers)]

        text = shrink_bytes(text, same_class, budget if cls != CRASH else min(budget, 40))

    def alone(candidate: bytes) -> tuple[Outcome, bool]:
        again = peer.run([candidate])[0]
        expected, limit = expectation(candidate)
        return again, classify_case(expected, limit, again, after, candidate) == cls

    if cls in (TIMEOUT, CANNOT_START):
        again, reproduces = outcome, True  # as found: trying again costs another timeout
    else:
        again, reproduces = alone(text)
        if not reproduces and text != case.text:
            text = case.text
            again, reproduces = alone(text)
    return Example(
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
        reproduces,
    )


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
    jobs: int = 2,
) -> Matrix:
    """Run every peer over the cases, one after the other (their throughput is not shared; a
    one-shot peer runs `jobs` processes at once). Raises NothingCompared when there is no case,
    or no peer answered a single one and none crashed or timed out."""
    if not cases:
        raise NothingCompared("nothing compared: the corpus has no case")
    results = [
        run_peer(s, cases, timeout, shrink_budget, newline, Progress(s.name, len(cases), progress), jobs) for s in specs
    ]
    # a crash or a timeout is a verdict on the peer (exit 1), as over the vector protocol
    if not any(r.answered or r.totals[CRASH] or r.totals[TIMEOUT] for r in results):
        why = "; ".join(f"{r.spec.name}: {next(iter(r.examples.values())).got.detail}" for r in results if r.examples)
        raise NothingCompared(f"nothing compared: no peer answered a case ({why})")
    return Matrix(results, {**meta, "cases": len(cases)})
