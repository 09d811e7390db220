"""`fastjcs crosscheck`: hold another implementation against fastjcs over stdin/stdout.

Two protocols, one process per call:

- vector (`--impl CMD`): one vector JSON on stdin; `{"pre_image": ..., "digest": ...}` on stdout
  and exit 0, non-zero exit for a refusal, empty output with exit 0 for "skipped"
  (docs/cli.md). fastjcs's own answer is `fastjcs.conformance.protocol.answer`.
- canon (`--canon-impl CMD`): a JSON text on stdin, its canonical bytes on stdout and exit 0, or a
  non-zero exit for a text it refuses. Fed documents from a seeded generator (no hypothesis) that
  favours the delicate cases; a disagreement is shrunk (members and elements dropped, containers
  replaced by a child, scalars simplified) while it persists, then classified.

Honest verdicts (docs/cli.md): a call whose command cannot start (exit 126 or 127 from the shell,
or no shell at all), crashes (killed by a signal) or times out is a fault of that class, never an
answer; a run that compares nothing (no case to put, every case skipped, a command that never
starts) raises `NothingCompared`; every counter the summary prints agrees with `Summary.ok`,
whatever `per_kind` shows.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import shlex
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..conformance import protocol
from ..conformance.reader import Members, Token, read
from ..core import api
from ..core.errors import FastJCSError
from .peers import CANNOT_START, CRASH, FAULTS, TIMEOUT, Reply, call
from .peers import first_line as _first_line


class NothingCompared(Exception):
    """The run put no case to the other implementation, or got no answer to any (exit 2)."""


# ---------------------------------------------------------------------------------------------------
# Vector protocol
# ---------------------------------------------------------------------------------------------------


@dataclass
class Disagreement:
    kind: str  # vector | number-format | member-order | string-escaping | whitespace | trailing-newline
    #              | acceptance | other; or a fault: cannot-start | crash | timeout
    where: str  # vector name, or "document N"
    ours: str
    theirs: str
    reproducer: str | None = None  # the minimal JSON text (generated documents)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def report(self) -> str:
        if self.kind in FAULTS:
            return f"FAULT [{self.kind}] {self.where}: {_show(self.theirs)}; no answer, not a disagreement"
        lines = [f"DISAGREE [{self.kind}] {self.where}"]
        if self.reproducer is not None:
            lines.append(f"  reproducer: {_show(self.reproducer)}")
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
                doc = json.loads(raw)
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
        doc = json.loads(raw)
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
            # its conforming pre-image, an implementation that exits non-zero on every must_fail
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
    if ours.pre_image is None:  # a verdict, not a pre-image: exit 0 on both sides agrees
        return "agree", None
    if body.get("pre_image") != ours.pre_image.decode("utf-8") or body.get("digest") != ours.digest:
        return "disagree", Disagreement("vector", name, _describe(ours), theirs)
    return "agree", None


# ---------------------------------------------------------------------------------------------------
# Generated documents
# ---------------------------------------------------------------------------------------------------

_DELICATE_KEYS = [
    "\U0001f602",
    "\ufb33",
    "\ue000",
    "\uffff",
    "\U00010000",
    "a",
    "A",
    "b",
    "aa",
    "",
    "\u00e9",
    "e\u0301",
    "\u20ac",
    "\r",
    "\u0080",
    "\u007f",
    "1",
    "10",
    "2",
]
_DELICATE_STRINGS = [
    "",
    "\u0000",
    "\u001f",
    "\b\t\n\f\r",
    "\u000b",
    '"',
    "\\",
    "/",
    "\u007f",
    "\u2028\u2029",
    "\U0001f602",
    "\ufb33",
    "\ue000",
    "\u00e9",
    "e\u0301",
    "\ufeff",
    "</script>",
    "\u0001x\u001e",
]
_DELICATE_NUMBERS: list[Any] = [
    0,
    -0.0,
    0.0,
    1,
    -1,
    1.0,
    1.5,
    -1.5,
    0.1,
    0.2 + 0.1,
    1e21,
    1e20,
    1e-7,
    1e-6,
    0.000001,
    1e22,
    1e23,
    5e-324,
    1.7976931348623157e308,
    2.2250738585072014e-308,
    9007199254740991,
    -9007199254740991,
    9007199254740992,
    2**60,
    123456789012345678,
    333333333.3333334,
    1424953923781206.2,
    -0.0000033333333333333333,
    1e16,
    1e15,
    123e-20,
    4.35,
    0.5e-6,
    100,
    1e2,
    12.5,
]


class Generator:
    """Seeded JSON values that favour the cases canonicalizers get wrong."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def number(self) -> Any:
        r = self.rng
        pick = r.random()
        if pick < 0.5:
            return r.choice(_DELICATE_NUMBERS)
        if pick < 0.7:
            return r.randint(-(10 ** r.randint(1, 17)), 10 ** r.randint(1, 17))
        mantissa = r.random() * r.choice([1, -1])
        return float(f"{mantissa:.{r.randint(1, 17)}g}e{r.randint(-30, 30)}")

    def string(self) -> str:
        r = self.rng
        if r.random() < 0.5:
            return r.choice(_DELICATE_STRINGS)
        pool = [
            "a",
            "Z",
            " ",
            "\u0000",
            "\u001f",
            "\u007f",
            "\u00e9",
            "\u2028",
            "\U0001f602",
            "\ufb33",
            '"',
            "\\",
            "\n",
        ]
        return "".join(r.choice(pool) for _ in range(r.randint(0, 6)))

    def key(self) -> str:
        r = self.rng
        return r.choice(_DELICATE_KEYS) if r.random() < 0.7 else self.string()

    def value(self, depth: int) -> Any:
        r = self.rng
        pick = r.random()
        if depth > 0 and pick < 0.35:
            return {self.key(): self.value(depth - 1) for _ in range(r.randint(0, 5))}
        if depth > 0 and pick < 0.5:
            return [self.value(depth - 1) for _ in range(r.randint(0, 4))]
        if pick < 0.75:
            return self.number()
        if pick < 0.92:
            return self.string()
        return r.choice([True, False, None])

    def document(self, index: int) -> Any:
        """Small documents first (early disagreements shrink fast); every other one puts a key
        beyond the BMP beside one in U+E000..U+FFFF, where UTF-16 and code-point order differ."""
        r = self.rng
        depth = 1 + index % 3
        doc = {self.key(): self.value(depth - 1) for _ in range(r.randint(0, 3))}
        if index % 2 == 0:
            doc[r.choice(["\U0001f602", "\U00010000", "\U0001d11e"])] = self.value(0)
            doc[r.choice(["\ue000", "\ufb33", "\ufffd", "\uff41"])] = self.value(0)
        return doc or {self.key(): self.value(depth)}


def to_text(value: Any, ascii_only: bool = False) -> bytes:
    return json.dumps(value, ensure_ascii=ascii_only, allow_nan=False).encode("utf-8", "surrogatepass")


# ---- comparing one document ------------------------------------------------------------------


def ours_canon(text: bytes) -> tuple[bool, bytes]:
    try:
        return True, api.canonicalize(text)
    except FastJCSError as exc:
        return False, f"{type(exc).__name__}: {exc}".encode()


NEWLINE_MODES = ("strip", "keep")


def strip_newline(out: bytes) -> bytes:
    """The answer without one final line ending (\n or \r\n). A canonical JSON text never ends
    with one, so what is stripped is never part of a right answer."""
    if out.endswith(b"\r\n"):
        return out[:-2]
    return out[:-1] if out.endswith(b"\n") else out


def _differs(text: bytes, cmd: str, timeout: float, newline: str = "strip") -> tuple[str, ...] | None:
    """None when both sides agree; else (ours, theirs) as shown in a report, or (ours, theirs,
    fault) for a call that gave no answer."""
    ok, ours = ours_canon(text)
    reply = call(cmd, text, timeout)
    show_ours = ours.decode("utf-8", "backslashreplace") if ok else f"refused ({ours.decode()})"
    if reply.fault is not None:
        return show_ours, reply.describe_fault(), reply.fault
    theirs_ok = reply.status == 0
    out = strip_newline(reply.stdout) if newline == "strip" and theirs_ok else reply.stdout
    if ok and theirs_ok and out == ours:
        return None
    if not ok and not theirs_ok:
        return None
    show_theirs = (
        out.decode("utf-8", "backslashreplace")
        if theirs_ok
        else f"refused (exit {reply.status}: {_first_line(reply.stderr)})"
    )
    return show_ours, show_theirs


# ---- shrinking -------------------------------------------------------------------------------


def _simpler_scalars(v: Any) -> list[Any]:
    if isinstance(v, bool) or v is None:
        return [] if v is None else [None]
    if isinstance(v, (int, float)):
        out: list[Any] = [0] if v != 0 or isinstance(v, float) else []
        if isinstance(v, float) and v.is_integer() and abs(v) < 1e300:
            out.append(int(v))
        if isinstance(v, float) and math.isfinite(v):
            for digits in (1, 2, 4, 8):
                shorter = float(f"{v:.{digits}g}")
                if shorter != v:
                    out.append(shorter)
        if isinstance(v, int) and abs(v) >= 10:
            out.append(v // 10 if v > 0 else -(-v // 10))
        return out
    if isinstance(v, str):
        out = [""] if v else []
        if len(v) > 1:
            out += [v[: len(v) // 2], v[len(v) // 2 :]]
            out += [v[:i] + v[i + 1 :] for i in range(min(len(v), 8))]
        return out
    return []


def candidates(v: Any) -> Iterator[Any]:
    """Simpler variants of v, the biggest reductions first."""
    if isinstance(v, dict):
        keys = list(v)
        for k in keys:
            yield {x: v[x] for x in keys if x != k}
        for k in keys:
            if isinstance(v[k], (dict, list)):
                yield v[k]
        for k in keys:
            for c in candidates(v[k]):
                yield {**v, k: c}
        for k in keys:
            for simpler in _simpler_scalars(k):
                if simpler not in v:
                    yield {(simpler if x == k else x): v[x] for x in keys}
        if len(keys) == 1 and not isinstance(v[keys[0]], (dict, list)):
            yield v[keys[0]]
    elif isinstance(v, list):
        for i in range(len(v)):
            yield v[:i] + v[i + 1 :]
        for item in v:
            if isinstance(item, (dict, list)) or len(v) == 1:
                yield item
        for i, item in enumerate(v):
            for c in candidates(item):
                yield v[:i] + [c] + v[i + 1 :]
    else:
        yield from _simpler_scalars(v)


def shrink(value: Any, still_fails: Callable[[Any], bool], budget: int, parallel: int = 1) -> tuple[Any, int]:
    """Greedy: take the first simpler variant (in `candidates` order) that still disagrees, until
    none does or `budget` calls are spent. Candidates are tried `parallel` at a time."""
    calls = 0
    with ThreadPoolExecutor(max(1, parallel)) as pool:
        improved = True
        while improved and calls < budget:
            improved = False
            pending = candidates(value)
            while calls < budget:
                batch = list(itertools.islice(pending, min(max(1, parallel), budget - calls)))
                if not batch:
                    break
                calls += len(batch)
                verdicts = list(pool.map(still_fails, batch))
                if any(verdicts):
                    value, improved = batch[verdicts.index(True)], True
                    break
    return value, calls


# ---------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------


def _faults_line(counts: dict[str, int]) -> str:
    return "".join(f", {counts[f]} {f.replace('-', ' ')}" for f in FAULTS if counts[f])


@dataclass
class Summary:
    """The counters of a run and what it shows. Every counter is counted over every case; the
    lists hold what is shown (up to --per-kind per kind for documents). `ok` reads the counters,
    never the lists."""

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
    documents: dict[str, int] = field(default_factory=lambda: {"agree": 0, "disagree": 0, **dict.fromkeys(FAULTS, 0)})
    disagreements: list[Disagreement] = field(default_factory=list)
    #: contrast vectors the other implementation refuses as must_fail: reported, not a disagreement
    protocol_differences: list[Disagreement] = field(default_factory=list)
    #: calls that gave no answer (cannot-start, crash, timeout), shown; counted in vectors/documents
    faults: list[Disagreement] = field(default_factory=list)
    #: every disagreement counted, by kind (a document's kind guessed from the two outputs)
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def disagree(self) -> int:
        return self.vectors["disagree"] + self.documents["disagree"]

    @property
    def failed(self) -> int:
        """Calls that gave no answer."""
        return sum(self.vectors[f] + self.documents[f] for f in FAULTS)

    @property
    def ok(self) -> bool:
        return self.disagree == 0 and self.failed == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "vectors": self.vectors,
            "documents": self.documents,
            "kinds": self.kinds,
            "disagreements": [d.as_dict() for d in self.disagreements],
            "faults": [d.as_dict() for d in self.faults],
            "protocol_differences": [d.as_dict() for d in self.protocol_differences],
        }

    def report(self) -> str:
        lines = [d.report() for d in self.disagreements + self.faults]
        lines += [
            f"PROTOCOL {p.where}: a contrast vector; fastjcs answers the conforming pre-image, the other "
            f"implementation refuses every must_fail ({_show(p.theirs)})"
            for p in self.protocol_differences
        ]
        v, d = self.vectors, self.documents
        if sum(v.values()):
            lines.append(
                f"vectors: {v['agree']} agree, {v['disagree']} disagree, {v['skipped']} skipped by the "
                f"other implementation, {v['not-answered-by-fastjcs']} not answered by fastjcs, "
                f"{v['protocol-difference']} protocol difference(s) (contrast vectors)" + _faults_line(v)
            )
        if sum(d.values()):
            lines.append(f"documents: {d['agree']} agree, {d['disagree']} disagree" + _faults_line(d))
        shown = len(self.disagreements)
        if shown < self.disagree:
            lines.append(f"{shown} of {self.disagree} disagreement(s) shown (--per-kind)")
        verdict = []
        if self.disagree:
            verdict.append(f"{self.disagree} disagreement(s): " + ", ".join(sorted(self.kinds)))
        if self.failed:
            verdict.append(
                f"{self.failed} call(s) without an answer: "
                + ", ".join(f"{n} {f.replace('-', ' ')}" for f in FAULTS if (n := v[f] + d[f]))
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


def _kind_of(result: tuple[str, ...]) -> str:
    if len(result) == 3:
        return result[2]  # a fault: the call gave no answer
    ours, theirs = result
    if ours.startswith("refused (") or theirs.startswith("refused ("):
        return "acceptance"
    return difference_kind(ours.encode("utf-8", "surrogateescape"), theirs.encode("utf-8", "surrogateescape"))


def run_documents(
    cmd: str,
    count: int,
    seed: int,
    summary: Summary,
    timeout: float,
    jobs: int,
    shrink_budget: int,
    per_kind: int,
    newline: str = "strip",
) -> None:
    """Compare `count` generated documents; shrink and report up to `per_kind` disagreements of
    each kind (the kind guessed from the outputs first, then decided on the shrunk reproducer).
    Every disagreement and fault is counted, whatever `per_kind`; faults are shown, not shrunk.
    `newline`: "strip" removes one final line ending from each answer, "keep" compares bytes."""
    if count < 1:
        raise NothingCompared("nothing compared: no document to generate (--documents 0)")
    gen = Generator(seed)
    docs = [gen.document(i) for i in range(count)]
    texts = [to_text(doc, ascii_only=bool(i % 2)) for i, doc in enumerate(docs)]

    def compare(t: bytes) -> tuple[str, ...] | None:
        return _differs(t, cmd, timeout, newline)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(compare, texts))
    chosen: dict[str, list[int]] = {}
    for i, result in enumerate(results):
        if result is None:
            summary.documents["agree"] += 1
            continue
        guess = _kind_of(result)
        if guess in FAULTS:
            summary.documents[guess] += 1
            if sum(f.kind == guess for f in summary.faults) < per_kind:
                summary.faults.append(
                    Disagreement(
                        guess, f"document {i}", result[0], result[1], texts[i].decode("utf-8", "backslashreplace")
                    )
                )
            continue
        summary.documents["disagree"] += 1
        summary.kinds[guess] = summary.kinds.get(guess, 0) + 1
        chosen.setdefault(guess, [])
        if len(chosen[guess]) < per_kind:
            chosen[guess].append(i)
    if (
        summary.documents["agree"]
        + summary.documents["disagree"]
        + summary.documents[CRASH]
        + summary.documents[TIMEOUT]
        == 0
    ):
        first = next(r for r in results if r is not None)
        raise NothingCompared(f"{cmd!r}: {first[1]}")
    seen: set = set()
    for kind, indices in sorted(chosen.items()):
        for i in indices:
            ascii_only = bool(i % 2)

            def same_kind(v: Any, kind: str = kind, ascii_only: bool = ascii_only) -> bool:
                found = _differs(to_text(v, ascii_only), cmd, timeout, newline)
                return found is not None and _kind_of(found) == kind

            minimal, _ = shrink(docs[i], same_kind, shrink_budget, jobs)
            text = to_text(minimal, ascii_only)
            if text in seen:
                continue
            seen.add(text)
            again = _differs(text, cmd, timeout, newline)
            shown = again if again is not None and len(again) == 2 else results[i]
            assert shown is not None  # the documents chosen are ones that disagreed
            ours, theirs = shown[:2]
            summary.disagreements.append(
                Disagreement(kind, f"document {i}", ours, theirs, text.decode("utf-8", "backslashreplace"))
            )


def command(parts: Sequence[str]) -> str:
    """A command given as one string (shell syntax) or as several words."""
    return parts[0] if len(parts) == 1 else " ".join(shlex.quote(p) for p in parts)
