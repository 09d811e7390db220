"""`fastjcs bench`: compare the JSON canonicalizers installed here, on one corpus, in one run.

Each candidate (fastjcs.lab.canonicalizers, the one registry) is first probed on fixed inputs
whose RFC 8785 form is written out in fastjcs.lab.probes (the examples of RFC 8785 and a few
delicate values) and labelled JCS-correct or not, with the probes it fails; then timed on the
corpus. Two tasks:

- text (default): JSON text in, canonical bytes out. A candidate that takes Python values is given
  `json.loads(text)` first, and that time counts, since a user holding text pays it.
- object: Python values in (json.loads done beforehand, not timed), canonical bytes out.

Throughput is corpus megabytes (the JSON text, 10^6 bytes) per second, best of `repeat` runs of at
least `min_time` seconds each; the ratio is against rfc8785 measured in the same run.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable

from ..core.api import canonicalize
from ..core.errors import FastJCSError
from .canonicalizers import Candidate, CannotStart, candidates
from .classify import IJSON_CHOICE_WORDS
from .peers import OK
from .probes import probe_report

#: The widest line of `Result.table()`: it fits a 100-column terminal (a narrower one: its width).
TABLE_WIDTH = 100
#: The narrowest width `Result.table()` is laid out for (the fixed columns take 45).
MIN_TABLE_WIDTH = 60


def table_width() -> int:
    """The width `Result.table()` lays out for by default: the terminal's (COLUMNS, else the
    terminal of stdout; TABLE_WIDTH when there is none, as in a pipe), at most TABLE_WIDTH, so a
    line never wraps in the terminal, where the wrap would cut a word."""
    columns = shutil.get_terminal_size((TABLE_WIDTH, 24)).columns
    return max(MIN_TABLE_WIDTH, min(TABLE_WIDTH, columns))


class NoCandidate(ValueError):
    """An --only NAME that matches no candidate: nothing of what was asked for would be timed."""


#: The PyPI name in a "not installed (pip install NAME; import MODULE)" reason.
_PIP_INSTALL = re.compile(r"^not installed \(pip install (\S+);")


def not_installed(skipped: dict[str, str]) -> list[str]:
    """The names in `skipped` that are absent (not installed), in order."""
    return [name for name, why in skipped.items() if why.startswith("not installed")]


# ---------------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------------


def builtin_corpus(size: int = 1 << 20, seed: int = 8785) -> list[bytes]:
    """About `size` bytes of JSON documents: EAB-size records, nested orders with numbers and
    non-ASCII text, made from a fixed seed."""
    import random

    rng = random.Random(seed)
    docs: list[bytes] = []
    total = 0
    i = 0
    while total < size:
        if i % 2 == 0:
            doc: Any = {
                "domain": "cmcp.execution-action-binding",
                "version": 1,
                "agent_id": f"spiffe://agent.example/payments/prod-{i % 97}",
                "action_type": ("transfer", "refund", "read")[i % 3],
                "action_scope": f"account:merchant-{i}",
                "action_timestamp": f"2026-09-10T16:{i % 60:02d}:00Z",
            }
        else:
            doc = {
                "id": i,
                "customer": {
                    "name": rng.choice(["Zo\u00eb", "\u5de5\u5177", "Ren\u00e9e", "Ann"]),
                    "tags": ["vip", "\u20ac", "\U0001f602"][: rng.randint(0, 3)],
                },
                "lines": [
                    {
                        "sku": f"SKU-{rng.randint(1, 9999)}",
                        "qty": rng.randint(1, 9),
                        "price": round(rng.uniform(0.5, 500), 2),
                        "ratio": rng.random(),
                    }
                    for _ in range(rng.randint(1, 6))
                ],
                "paid": rng.random() < 0.5,
                "note": None,
            }
        text = json.dumps(doc, ensure_ascii=False).encode("utf-8")
        docs.append(text)
        total += len(text)
        i += 1
    return docs


def read_corpus(data: bytes) -> list[bytes]:
    """A JSON text is one document; otherwise every non-empty line is one (JSONL)."""

    try:
        canonicalize(data)
        return [data]
    except FastJCSError:
        pass
    lines = [line for line in data.split(b"\n") if line.strip()]
    for n, line in enumerate(lines, 1):
        try:
            canonicalize(line)
        except FastJCSError as exc:
            raise ValueError(f"neither one JSON text nor JSON Lines: line {n}: {exc}") from exc
    return lines


# ---------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------


@dataclass
class Row:
    name: str
    correct: bool
    failed_probes: list[str]
    mb_per_s: float | None = None  # over the documents it handled
    ratio: float | None = None  # throughput / rfc8785's, over the documents both handled
    error: str | None = None  # the candidate handled no document
    refused_probes: list[str] = field(default_factory=list)  # beyond a double's precision
    not_jcs: str | None = None
    command: str | None = None
    documents: int = 0  # the documents it handled (and was timed on)
    refused: dict[int, str] = field(default_factory=dict)  # document index -> its refusal
    ratio_documents: int | None = None  # how many documents the ratio is over
    ms_per_document: float | None = None
    batch: bool = False  # an external command over the batch protocol

    @property
    def label(self) -> str:
        return self.name if self.not_jcs is None else f"{self.name} (not JCS)"

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["refused"] = {str(k): v for k, v in self.refused.items()}
        return d


@dataclass
class Result:
    mode: str
    corpus_bytes: int
    documents: int
    rows: list[Row] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "corpus_bytes": self.corpus_bytes,
            "documents": self.documents,
            "rows": [r.as_dict() for r in self.rows],
            "skipped": self.skipped,
            "not_installed": not_installed(self.skipped),
        }

    def table(self, width: int | None = None) -> str:
        """The table and its notes, every line at most `width` columns (default: `table_width()`):
        what does not fit a cell (the probes a candidate gets wrong, an error) is a note below the
        table, a long name wraps inside its column, and a long note wraps with an indent, between
        words (only a word longer than a whole line is cut)."""
        if width is None:
            width = table_width()
        head = ("canonicalizer", "JCS-correct", "MB/s", "vs rfc8785")
        body = []
        notes = []
        for r in self.rows:
            correct = "yes"
            if not r.correct:
                correct = "NO (below)"
                notes.append(f"{r.label} is not JCS-correct: " + ", ".join(r.failed_probes))
            speed = f"{r.mb_per_s:.1f}" if r.mb_per_s is not None else "error (below)"
            if r.mb_per_s is None:
                notes.append(f"{r.name}: error: {r.error}")
            ratio = "-"
            if r.ratio is not None:
                ratio = f"{r.ratio:.2f}x" if r.ratio >= 0.1 else f"{r.ratio:.3f}x"
                if r.ratio_documents != self.documents:
                    ratio += f" ({r.ratio_documents}/{self.documents} docs)"
            body.append((r.label, correct, speed, ratio))
        widths = [max(len(row[i]) for row in [head, *body]) for i in range(4)]
        # the name column takes what the others leave (3 columns of " | " between 4 cells)
        widths[0] = max(len(head[0]), min(widths[0], width - sum(widths[1:]) - 3 * 3))
        lines = []
        for row in [head, *body]:
            names = textwrap.wrap(row[0], widths[0], break_on_hyphens=False) or [""]
            for k, name in enumerate(names):
                cells = (name, *row[1:]) if k == 0 else (name, "", "", "")
                lines.append(" | ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells)).rstrip())
        lines.insert(1, "-+-".join("-" * w for w in widths))
        notes.insert(0, f"{self.mode} mode; corpus {self.corpus_bytes / 1e6:.2f} MB in {self.documents} document(s)")
        for r in self.rows:
            if r.refused:
                shown = "; ".join(f"#{i + 1}: {why}" for i, why in list(r.refused.items())[:3])
                more = f"; and {len(r.refused) - 3} more" if len(r.refused) > 3 else ""
                notes.append(f"{r.name} refused {len(r.refused)} of {self.documents} document(s): {shown}{more}")
            if r.refused_probes:
                notes.append(f"{r.name} refuses, as an {IJSON_CHOICE_WORDS}: {', '.join(r.refused_probes)}")
            if r.command is not None and r.ms_per_document is not None:
                how = "batch protocol, one process" if r.batch else "one process per document"
                notes.append(f"{r.name}: command {r.command!r}, {how}: {r.ms_per_document:.3f} ms per document")
        absent = not_installed(self.skipped)
        if absent:
            notes.append("not installed: " + ", ".join(absent))
            pypi = [m.group(1) for m in (_PIP_INSTALL.search(self.skipped[n]) for n in absent) if m]
            if pypi:
                notes.append("to compare them too: pip install " + " ".join(dict.fromkeys(pypi)))
        notes.extend(f"skipped {name}: {why}" for name, why in self.skipped.items() if name not in absent)
        for note in notes:
            lines += textwrap.wrap(note, width, subsequent_indent="  ", break_on_hyphens=False) or [""]
        return "\n".join(lines)


def _check_only(only: Sequence[str], names: Sequence[str], skipped: dict[str, str]) -> None:
    """NoCandidate for an --only NAME that is in no candidate's name: it was asked for, and an
    empty table (or one without it) would pass for an answer."""
    for wanted in only:
        if any(wanted.lower() in n.lower() for n in names):
            continue
        absent = [n for n in skipped if wanted.lower() in n.lower()]
        why = f"{', '.join(absent)}: not installed here" if absent else f"candidates here: {', '.join(names)}"
        raise NoCandidate(f"no candidate matched --only {wanted!r} ({why})")


def _time(fn: Callable[[], Any], min_time: float, repeat: int) -> float:
    """Best seconds per call of fn, over `repeat` runs of at least `min_time` seconds."""
    best = float("inf")
    for _ in range(repeat):
        calls, start = 0, time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        best = min(best, elapsed / calls)
    return best


def _note_mismatches(row: Row, bad: set[int] | None, total: int) -> None:
    """Mark a row not JCS-correct when some of its timed answers were not RFC 8785's."""
    if not bad:
        return
    note = f"{len(bad)} of {total} timed answers (e.g. document #{min(bad) + 1})"
    row.failed_probes = [p for p in row.failed_probes if not p.endswith(")") or "timed answers" not in p] + [note]
    row.correct = False


def measure(
    docs: Sequence[bytes],
    mode: str = "text",
    min_time: float = 0.3,
    repeat: int = 3,
    only: Sequence[str] | None = None,
    extra: Sequence[Candidate] = (),
) -> Result:
    """Probe and time the candidates installed (those whose name contains one of `only`, if
    given) and the `extra` ones (external commands, one process per document or batch peers) on
    `docs`. A candidate that refuses some
    documents is timed on the others; its ratio to rfc8785 is timed again on the documents both
    handled when those are not the same. CannotStart propagates (a command that cannot run)."""
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, not {repeat}")
    if not math.isfinite(min_time) or min_time < 0:  # nan: no timing loop would ever end
        raise ValueError(f"min_time must be a finite number of seconds >= 0, not {min_time}")
    cands, skipped = candidates()
    if only:
        _check_only(only, [c.name for c in (*cands, *extra)], skipped)
        wanted = [w.lower() for w in only]
        cands = [c for c in cands if any(w in c.name.lower() for w in wanted)]
    taken = {c.name for c in cands}
    for c in extra:  # a peer serving an installed candidate (serve-canon --candidate) keeps both rows
        if c.name in taken:
            c.name += " (batch)" if c.many is not None else " (command)"
    cands = [*cands, *extra]
    result = Result(mode, sum(len(d) for d in docs), len(docs), skipped=skipped)
    inputs: Sequence[Any] = [json.loads(d) for d in docs] if mode == "object" else docs

    def call(c: Candidate) -> Callable[[Any], bytes]:
        return c.from_obj if mode == "object" else c.text

    # what a batch peer is sent: the texts, or in object mode the values written back as text
    texts = docs if mode == "text" else [json.dumps(x).encode("ascii") for x in inputs]

    # a batch peer's every answer, timed or not, is held to RFC 8785 (fastjcs's answer): a peer
    # that mixes its answers up must not time well and be called correct on its probes alone
    expected: dict[int, bytes | None] = {}

    def want(i: int) -> bytes | None:
        if i not in expected:
            try:
                expected[i] = canonicalize(texts[i])
            except FastJCSError:
                expected[i] = None
        return expected[i]

    def wrong_answers(answers: Sequence[Any], idx: Sequence[int]) -> list[int]:
        return [i for i, a in zip(idx, answers) if a.status == OK and a.data != want(i)]

    def work(c: Candidate, idx: Sequence[int]) -> Callable[[], Any]:
        if c.many is not None:
            many, batch = c.many, [texts[i] for i in idx]
            bad = mismatched.setdefault(c.name, set())

            def timed() -> None:
                bad.update(wrong_answers(many(batch), idx))

            return timed
        f, chosen = call(c), [inputs[i] for i in idx]
        return lambda: [f(x) for x in chosen]

    mismatched: dict[str, set[int]] = {}
    try:
        handled: dict[str, list[int]] = {}
        for c in cands:
            wrong, refused_probes = probe_report(c)
            row = Row(
                c.name,
                not wrong,
                wrong,
                refused_probes=refused_probes,
                not_jcs=c.not_jcs,
                command=c.command,
                batch=c.many is not None,
            )
            f, ok = call(c), []
            if c.many is not None:
                answers = c.many(texts)
                mismatched.setdefault(c.name, set()).update(wrong_answers(answers, range(len(texts))))
                for i, answer in enumerate(answers):
                    if answer.status == OK:
                        ok.append(i)
                    else:
                        row.refused[i] = (answer.detail or answer.data.decode("utf-8", "replace"))[:80]
            for i, x in enumerate(inputs if c.many is None else ()):
                try:
                    f(x)
                    ok.append(i)
                except CannotStart:
                    raise
                except Exception as exc:  # noqa: BLE001 - a peer may raise anything: a refusal
                    row.refused[i] = f"{type(exc).__name__}: {exc}"[:80]
            handled[c.name] = ok
            row.documents = len(ok)
            if ok:
                seconds = _time(work(c, ok), min_time, repeat)
                row.mb_per_s = sum(len(docs[i]) for i in ok) / 1e6 / seconds
                row.ms_per_document = seconds / len(ok) * 1e3
            else:
                row.error = "refused every document" + (f" ({next(iter(row.refused.values()))})" if row.refused else "")
            _note_mismatches(row, mismatched.get(c.name), len(docs))
            result.rows.append(row)
        base = next((r for r in result.rows if r.name == "rfc8785" and r.mb_per_s), None)
        if base is None:
            return result
        base_rate = base.mb_per_s
        assert base_rate  # the row was chosen for having one
        base_c = next(c for c in cands if c.name == "rfc8785")
        for r, c in zip(result.rows, cands):
            if not r.mb_per_s:
                continue
            if handled[r.name] == handled[base.name]:
                r.ratio, r.ratio_documents = r.mb_per_s / base_rate, len(handled[r.name])
                continue
            common = sorted(set(handled[r.name]) & set(handled[base.name]))
            if common:
                mine = _time(work(c, common), min_time, repeat)
                theirs = _time(work(base_c, common), min_time, repeat)
                r.ratio, r.ratio_documents = theirs / mine, len(common)
        for r in result.rows:  # the ratio runs time the answers again
            _note_mismatches(r, mismatched.get(r.name), len(docs))
        return result
    finally:
        for c in cands:
            if c.close is not None:
                c.close()


def plot_title(result: Result, when: str | None = None, machine: str | None = None) -> str:
    """The chart's title: what was measured (mode, corpus), when and where; a figure without them
    cannot be compared with another."""
    import datetime
    import os
    import platform

    when = when or datetime.date.today().isoformat()
    machine = machine or (
        f"{platform.machine()}, {os.cpu_count()} CPU(s), {platform.python_implementation()} {platform.python_version()}"
    )
    return (
        f"JSON canonicalizers: {result.mode} mode, {result.documents} documents "
        f"({result.corpus_bytes / 1e6:.2f} MB), one call each\n{when}, {machine}"
    )


def bar_note(r: Row) -> str:
    """What the chart writes at the end of a bar: its MB/s, and why it is hatched unless the label
    says it already (a label ends "(not JCS)" for what is no JCS implementation at all)."""
    if r.correct or r.not_jcs is not None:
        return f" {r.mb_per_s:.1f}"
    return f" {r.mb_per_s:.1f} (fails probes)"


def plot(result: Result, out: BinaryIO, image_format: str, when: str | None = None, machine: str | None = None) -> None:
    """A bar chart of throughput, correct candidates in one colour, others hatched, written to
    `out` as `image_format` (png, svg, pdf...), titled with the mode, the corpus, the date and the
    machine (`plot_title`)."""
    import matplotlib  # ImportError is the caller's to report

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in result.rows if r.mb_per_s is not None]
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.45 * len(rows)))
    bars = ax.barh(
        [r.label for r in rows], [r.mb_per_s for r in rows], color=["#2a7ab9" if r.correct else "#bbbbbb" for r in rows]
    )
    for bar, r in zip(bars, rows):
        if not r.correct:
            bar.set_hatch("//")
        ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, bar_note(r), va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max([r.mb_per_s or 0.0 for r in rows], default=1.0) * 1.25)  # room for the notes
    ax.set_xlabel("MB/s of canonical output (hatched: not JCS-correct)")
    ax.set_title(plot_title(result, when, machine), fontsize=9)
    fig.tight_layout()
    fig.savefig(out, format=image_format)
    plt.close(fig)
