"""The interop lab: put a corpus of cases to canonicalizer peers, classify every answer, shrink one
reproducer per class of failure, and write the matrix (peers x families of cases) as text,
markdown, a self-contained HTML page or JSON (docs/interop.md).

A case (fastjcs.lab.corpus.Case) carries its document, its category and clause, and the
expected answer: the canonical bytes, or None for a document that must be refused. A peer is a
command speaking the batch protocol (`BatchPeer`) or, as a fallback, one process per document
(`OneShotPeer`). Every answer falls in exactly one class (CLASSES); `agree` is the only pass.
"""

from __future__ import annotations

import html
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ..conformance.reader import Members, Token, read
from .corpus import expectation
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
#: The right bytes, but later than SLOW_FACTOR times what fastjcs takes in-process plus
#: SLOW_FLOOR seconds (cases of the `large` family, where a superlinear peer shows).
SLOW = "slow"
SLOW_FACTOR, SLOW_FLOOR = 100, 1.0
#: A refusal of a document that fastjcs refuses only for its own depth limit (no RFC sets one):
#: counted and shown, neither a pass nor a failure.
LIMIT = "limit"
#: A refusal of a valid document that holds an integer token beyond 2^53 in magnitude: I-JSON
#: (RFC 7493 2.2, which RFC 8785 leans on) lets a receiver refuse numbers beyond a double's
#: precision (rfc8785 does). Counted and shown, neither a pass nor a failure; `bench` reports the
#: same refusals of its probes in the same words (IJSON_CHOICE_WORDS).
IJSON_CHOICE = "i-json-choice"
IJSON_CHOICE_WORDS = "I-JSON choice (integers beyond 2^53)"
#: Classes counted and shown that are neither a pass nor a failure.
CHOICES = (LIMIT, IJSON_CHOICE)
_INTEGER_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|(-?[0-9]+)(?![0-9.eE])')


def beyond_2_53(text: bytes) -> bool:
    """Whether the JSON text holds an integer token (no fraction, no exponent) beyond 2^53 in
    magnitude (strings skipped)."""
    return any(m and abs(int(m)) > 2**53 for m in _INTEGER_TOKEN.findall(text))


#: Every class of failure, in the order reports list them.
CLASSES = (
    WRONG_NUMBER,
    WRONG_STRING,
    WRONG_ORDER,
    WRONG_WHITESPACE,
    WRONG_OTHER,
    ACCEPTS_INVALID,
    REFUSES_VALID,
    SLOW,
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
FAMILIES = ("number", "string", "order", "structure", "large", "whitespace", "syntax", "vectors", "es6", "user")
#: Families whose answers are timed against fastjcs's (class `slow`).
TIMED_FAMILIES = ("large",)


def strip_newline(out: bytes) -> bytes:
    """The answer without one final line ending (\n or \r\n). A canonical JSON text never ends
    with one, so what is stripped is never part of a right answer."""
    if out.endswith(b"\r\n"):
        return out[:-2]
    return out[:-1] if out.endswith(b"\n") else out


def difference_kind(ours: bytes, theirs: bytes) -> str:
    """The kind of disagreement between two outputs for the same text, read token-preserving:
    member-order when the same objects list their members in another order, number-format when
    a number token differs, whitespace when only insignificant whitespace differs, string-escaping
    when the tokens are equal but the bytes are not (a string written with other escapes),
    trailing-newline when the other output is ours plus a final line ending, other for anything
    else."""
    if theirs in (ours + b"\n", ours + b"\r\n"):
        return "trailing-newline"
    try:
        a, b = read(ours), read(theirs)
    except (ValueError, RecursionError):  # not JSON, or nested past what Python's reader takes
        return "other"
    stack = [(a, b)]
    order = number = False
    while stack:
        x, y = stack.pop()
        if isinstance(x, Members) and isinstance(y, Members):
            kx, ky = [k for k, _ in x], [k for k, _ in y]
            if kx != ky:
                if sorted(kx) != sorted(ky):
                    return "other"
                order = True
            vy = dict(y)
            stack.extend((v, vy[k]) for k, v in x if k in vy)
        elif type(x) is list and type(y) is list and len(x) == len(y):
            stack.extend(zip(x, y))
        elif isinstance(x, Token) and isinstance(y, Token):
            number = number or x != y
        elif type(x) is not type(y) or x != y:
            return "other"
    if order:
        return "member-order"
    if number:
        return "number-format"
    return "whitespace" if _without_whitespace(theirs) == _without_whitespace(ours) else "string-escaping"


def _without_whitespace(text: bytes) -> bytes:
    """A JSON text without its insignificant whitespace (outside strings)."""
    out = bytearray()
    in_string = escaped = False
    for byte in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == 0x5C, byte != 0x22)
        elif byte == 0x22:
            in_string = True
        elif byte in b" \t\n\r":
            continue
        out.append(byte)
    return bytes(out)


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
    """fastjcs's answer for a text: its canonical bytes, or None when it refuses it (the bytes
    without the limit for a text refused only for fastjcs's depth limit)."""
    return expectation(text)[0]


def classify_case(
    expected: bytes | None, limit: str, outcome: Outcome, slow_after: float | None = None, text: bytes = b""
) -> str:
    """The class of one answer to a case: `limit` for a refusal of a document refused only for
    fastjcs's own limit, `i-json-choice` for a refusal of a valid `text` with an integer beyond
    2^53, `slow` for the right bytes after more than `slow_after` seconds, else as `classify`."""
    if limit and outcome.status == ERROR:
        return LIMIT
    if expected is not None and outcome.status == ERROR and beyond_2_53(text):
        return IJSON_CHOICE
    cls = classify(expected, outcome)
    if cls == AGREE and slow_after is not None and outcome.seconds > slow_after:
        return SLOW
    return cls


def classify_text(text: bytes, outcome: Outcome) -> str:
    """The class of an answer to any text (a shrinking trial, a reproducer)."""
    expected, limit = expectation(text)
    return classify_case(expected, limit, outcome, text=text)


_REFERENCE_SECONDS: dict[bytes, float] = {}


def slow_after(text: bytes) -> float:
    """When an answer to the text is `slow`: SLOW_FLOOR + SLOW_FACTOR x fastjcs's time for it
    in this process (the best of three)."""
    if text not in _REFERENCE_SECONDS:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            expected_of(text)
            best = min(best, time.perf_counter() - start)
        _REFERENCE_SECONDS[text] = best
    return SLOW_FLOOR + SLOW_FACTOR * _REFERENCE_SECONDS[text]


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
        start = time.perf_counter()
        reply = call(self.command, document, self.timeout)
        took = time.perf_counter() - start
        if reply.fault is not None:
            return Outcome(reply.fault, reply.stderr, reply.describe_fault(), took)
        if reply.status != 0:
            return Outcome(ERROR, reply.stderr.strip()[-300:], "", took)
        return Outcome(OK, strip_newline(reply.stdout) if self.newline == "strip" else reply.stdout, "", took)

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

    def start(self, timeout: float, newline: str = "strip", jobs: int = 2) -> Any:
        if self.protocol == "one-shot":
            return OneShotPeer(self.command, timeout, newline, jobs)
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
    return read_manifest(path)[0]


def read_manifest(path: str) -> tuple[list[PeerSpec], list[dict[str, str]]]:
    """(peers, skipped) of a manifest, as interop/setup.sh writes one: {"peers": [{"name",
    "command", and optionally "protocol", "ecosystem", "language", "package", "version"}],
    "skipped": [{"name", "why"}]}. ValueError, naming the file and the entry, for anything else."""
    with open(path, "rb") as f:
        try:
            doc = json.load(f)
        except ValueError as exc:  # not JSON, or not UTF-8
            raise ValueError(f"{path}: not a peers manifest (not JSON: {exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("peers"), list):
        raise ValueError(f'{path}: not a peers manifest (an object with a "peers" list)')
    fields = set(PeerSpec.__dataclass_fields__)
    specs = []
    for n, p in enumerate(doc["peers"]):
        if not isinstance(p, dict) or not all(isinstance(p.get(k), str) and p[k].strip() for k in ("name", "command")):
            raise ValueError(f'{path}: peers[{n}] is not an object with a "name" and a "command" (strings)')
        if p.get("protocol", "batch") not in ("batch", "one-shot"):
            raise ValueError(f'{path}: peers[{n}]: protocol must be "batch" or "one-shot", not {p["protocol"]!r}')
        specs.append(PeerSpec(**{k: str(v) for k, v in p.items() if k in fields}))
    skipped = doc.get("skipped", [])
    if not isinstance(skipped, list):
        raise ValueError(f'{path}: "skipped" is not a list')
    for n, item in enumerate(skipped):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError(f'{path}: skipped[{n}] is not an object with a "name" (and a "why")')
    return specs, [{"name": str(s["name"]), "why": str(s.get("why", ""))} for s in skipped]


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
    limit = "".join(f", {counts[c]} {c}" for c in CHOICES if counts.get(c))
    if not bad:
        return f"pass ({counts[AGREE]}){limit}"
    return ", ".join(f"{n} {cls}" for cls, n in bad) + limit


NEEDS_EOF = (
    "answers only once its input is closed (the batch protocol wants each answer flushed as it "
    "is made): each run cost a timeout"
)
NOT_ALONE = "does not fail alone: the peer's answer depends on the documents sent with it"


def _slowest(r: PeerResult) -> str:
    if not r.timed:
        return ""
    case_id, (took, after) = max(r.timed.items(), key=lambda kv: kv[1][0])
    return f"slowest timed answer {took:.2f} s ({case_id}; slow after {after:.2f} s)"


def _ijson_note(r: PeerResult) -> str:
    n = r.totals[IJSON_CHOICE]
    return f"{IJSON_CHOICE}: {n} valid case(s) refused, an {IJSON_CHOICE_WORDS}: shown, not a failure"


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
        if r.needs_end_of_input:
            lines.append(f"  protocol: {NEEDS_EOF}")
        for fam in _columns([r]):
            lines.append(f"  {fam:<11} {_cell(r.cells.get(fam))}")
        if r.timed:
            lines.append(f"  {_slowest(r)}")
        if r.totals.get(IJSON_CHOICE):
            lines.append(f"  {_ijson_note(r)}")
        for e in r.examples.values():
            lines.append(f"  [{e.cls}] {r.count(e)} {family(e.category)} cases, e.g. {e.case_id} ({e.clause})")
            if not e.alone:
                lines.append(f"    {NOT_ALONE}; as found:")
            lines.append(f"    reproducer: {clip(show(e.reproducer))}")
            lines.append(f"    fastjcs:    {clip(_answer(e.reproducer_expected))}")
            lines.append(f"    peer:       {clip(_outcome(e.reproducer_got))}")
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "\\`")


#: The most columns a table of the matrix page has: what the documentation's content column shows
#: at 1280 px without a scroll (tests/test_docs_site.py measures it in a browser).
MATRIX_COLUMNS = 6


def matrix_tables(families: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The matrix as markdown tables of at most MATRIX_COLUMNS columns, every one led by the peer:
    the peers (version, language, documents/s), then the families, a few at a time. `rows` are
    (peer, version, language, family cells..., documents/s), as markdown cell text."""
    out = ["| peer | version | language | documents/s |", "|---|---|---|---:|"]
    out += [f"| {r[0]} | {r[1]} | {r[2]} | {r[-1]} |" for r in rows]
    per = MATRIX_COLUMNS - 1
    for start in range(0, len(families), per):
        names = families[start : start + per]
        out += ["", "| peer | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        out += [f"| {r[0]} | " + " | ".join(r[3 + start : 3 + start + len(names)]) + " |" for r in rows]
    return out


def markdown_report(results: Sequence[PeerResult], meta: dict[str, Any]) -> str:
    """The matrix as markdown (for the docs), then each peer's classes with a shrunk reproducer."""
    cols = _columns(results)
    rows = [
        [_md(r.spec.name), _md(r.spec.version or "-"), _md(r.spec.language or "-")]
        + [_md(_cell(r.cells.get(f))) for f in cols]
        + [_throughput(r)]
        for r in results
    ]
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
        *matrix_tables(cols, rows),
    ]
    for r in results:
        if not r.examples and not r.needs_end_of_input and not r.totals.get(IJSON_CHOICE):
            continue
        out += ["", f"### {r.spec.name}", ""]
        if r.needs_end_of_input:
            out.append(f"- **protocol**: {NEEDS_EOF}")
        if r.totals.get(IJSON_CHOICE):
            out.append(f"- {_ijson_note(r)}")
        for e in r.examples.values():
            if not e.alone:
                out.append(f"- **{e.cls}** ({r.count(e)} {family(e.category)} cases): {NOT_ALONE}")
                continue
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
        if r.needs_end_of_input:
            details.append(f'<tr><td>{e(r.spec.name)}</td><td>protocol</td><td colspan="5">{e(NEEDS_EOF)}</td></tr>')
        for x in r.examples.values():
            if not x.alone:
                details.append(
                    f"<tr><td>{e(r.spec.name)}</td><td>{e(x.cls)}</td><td>{r.count(x)}</td>"
                    f'<td>{e(x.category)}<br>{e(x.clause)}</td><td colspan="3">{e(NOT_ALONE)}</td></tr>'
                )
                continue
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
