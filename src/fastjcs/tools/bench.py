"""`fastjcs bench`: compare the JSON canonicalizers installed here, on one corpus, in one run.

Each candidate is first probed on fixed inputs whose RFC 8785 form is written out below (the
examples of RFC 8785 and a few delicate values) and labelled JCS-correct or not, with the probes it
fails; then timed on the corpus. Two tasks:

- text (default): JSON text in, canonical bytes out. A candidate that takes Python values is given
  `json.loads(text)` first, and that time counts, since a user holding text pays it.
- object: Python values in (json.loads done beforehand, not timed), canonical bytes out.

Throughput is corpus megabytes (the JSON text, 10^6 bytes) per second, best of `repeat` runs of at
least `min_time` seconds each; the ratio is against rfc8785 measured in the same run.
"""

from __future__ import annotations

import importlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable, Dict, List, Optional, Sequence, Tuple

from ..core import python_backend as _python
from ..core.api import DEFAULT_MAX_DEPTH, canonicalize
from ..core.errors import FastJCSError

# ---------------------------------------------------------------------------------------------------
# Probes: (name, value, RFC 8785 bytes), the expected bytes typed from RFC 8785 and docs/contract.md ("The canonical form")
# ---------------------------------------------------------------------------------------------------

PROBES: List[Tuple[str, Any, bytes]] = [
    ("rfc8785-3.2.2-numbers", {"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]},
     b'{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27]}'),
    ("rfc8785-3.2.2-string", {"string": "\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"/"},
     '{"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'.encode("utf-8")),
    ("rfc8785-3.2.2-literals", {"literals": [None, True, False]}, b'{"literals":[null,true,false]}'),
    ("rfc8785-3.2.3-sorting", {"\u20ac": "Euro Sign", "\r": "Carriage Return",
                               "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
                               "\U0001f600": "Emoji: Grinning Face", "\u0080": "Control",
                               "\u00f6": "Latin Small Letter O With Diaeresis"},
     ('{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",'
      '"\u20ac":"Euro Sign","\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
      ).encode("utf-8")),
    ("astral-vs-private-use", {"\ue000": 1, "\U0001f602": 2}, '{"\U0001f602":2,"\ue000":1}'.encode("utf-8")),
    ("1e21", [1e21, 1e20], b"[1e+21,100000000000000000000]"),
    ("1e-7", [1e-7, 1e-6], b"[1e-7,0.000001]"),
    ("-0", [-0.0, 0.0], b"[0,0]"),
    ("integral-float", [1.0, -5.0], b"[1,-5]"),
    ("extremes", [5e-324, 1.7976931348623157e308], b"[5e-324,1.7976931348623157e+308]"),
    ("tie-to-even", [1424953923781206.2], b"[1424953923781206.2]"),
    ("controls", ["\u0000\u001f\u007f\u2028"], '["\\u0000\\u001f\u007f\u2028"]'.encode("utf-8")),
    ("non-ascii-raw", ["\u00e9\U0001f602"], '["\u00e9\U0001f602"]'.encode("utf-8")),
]


# ---------------------------------------------------------------------------------------------------
# Candidates
# ---------------------------------------------------------------------------------------------------


@dataclass
class Candidate:
    name: str
    from_obj: Callable[[Any], bytes]
    from_text: Optional[Callable[[bytes], bytes]] = None   # None: json.loads, then from_obj

    def text(self, data: bytes) -> bytes:
        return self.from_text(data) if self.from_text is not None else self.from_obj(json.loads(data))


def _as_bytes(f: Callable[[Any], Any]) -> Callable[[Any], bytes]:
    def call(obj: Any) -> bytes:
        out = f(obj)
        return out.encode("utf-8") if isinstance(out, str) else bytes(out)
    return call


def candidates() -> Tuple[List[Candidate], Dict[str, str]]:
    """The canonicalizers importable here, and the reason each absent one is skipped."""
    found: List[Candidate] = []
    skipped: Dict[str, str] = {}
    D = DEFAULT_MAX_DEPTH

    try:
        from ..core import native_backend as _native
    except ImportError as exc:
        skipped["fastjcs (native)"] = f"C extension not built: {exc}"
    else:
        found.append(Candidate("fastjcs (native)", lambda o: _native.dumps(o, D),
                               lambda t: _native.canonicalize(t, D, False)))
    found.append(Candidate("fastjcs (python)", lambda o: _python.dumps(o, D),
                           lambda t: _python.canonicalize(t, D, False)))

    def optional(name: str, module: str, build: Callable[[Any], Callable[[Any], bytes]]) -> None:
        try:
            mod = importlib.import_module(module)
            found.append(Candidate(name, build(mod)))
        except ImportError:
            skipped[name] = f"not installed (import {module})"
        except AttributeError as exc:
            skipped[name] = f"installed, API not recognised: {exc}"

    optional("rfc8785", "rfc8785", lambda m: m.dumps)
    optional("canonicaljson", "canonicaljson", lambda m: _as_bytes(m.encode_canonical_json))
    optional("jcs", "jcs", lambda m: _as_bytes(m.canonicalize))
    optional("json-canonical", "json_canonical", lambda m: _as_bytes(getattr(m, "canonicalize", None) or m.dumps))

    def orjson_sorted(m: Any) -> Callable[[Any], bytes]:
        option = m.OPT_SORT_KEYS
        return lambda o: m.dumps(o, option=option)

    optional("orjson (sorted keys)", "orjson", orjson_sorted)
    found.append(Candidate("json.dumps (sorted keys)", lambda o: json.dumps(
        o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")))
    return found, skipped


def probe(c: Candidate) -> List[str]:
    """The names of the probes `c` gets wrong (an exception counts as wrong)."""
    failed = []
    for name, value, want in PROBES:
        try:
            ok = c.from_obj(value) == want and c.text(json.dumps(value).encode()) == want
        except Exception:  # noqa: BLE001 - a peer may raise anything; it is then not correct
            ok = False
        if not ok:
            failed.append(name)
    return failed


# ---------------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------------


def builtin_corpus(size: int = 1 << 20, seed: int = 8785) -> List[bytes]:
    """About `size` bytes of JSON documents: EAB-size records, nested orders with numbers and
    non-ASCII text, made from a fixed seed."""
    import random

    rng = random.Random(seed)
    docs: List[bytes] = []
    total = 0
    i = 0
    while total < size:
        if i % 2 == 0:
            doc: Any = {"domain": "cmcp.execution-action-binding", "version": 1,
                        "agent_id": f"spiffe://agent.example/payments/prod-{i % 97}",
                        "action_type": ("transfer", "refund", "read")[i % 3],
                        "action_scope": f"account:merchant-{i}", "action_timestamp": f"2026-09-10T16:{i % 60:02d}:00Z"}
        else:
            doc = {"id": i, "customer": {"name": rng.choice(["Zo\u00eb", "\u5de5\u5177", "Ren\u00e9e", "Ann"]),
                                         "tags": ["vip", "\u20ac", "\U0001f602"][: rng.randint(0, 3)]},
                   "lines": [{"sku": f"SKU-{rng.randint(1, 9999)}", "qty": rng.randint(1, 9),
                              "price": round(rng.uniform(0.5, 500), 2), "ratio": rng.random()}
                             for _ in range(rng.randint(1, 6))],
                   "paid": rng.random() < 0.5, "note": None}
        text = json.dumps(doc, ensure_ascii=False).encode("utf-8")
        docs.append(text)
        total += len(text)
        i += 1
    return docs


def read_corpus(data: bytes) -> List[bytes]:
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
    failed_probes: List[str]
    mb_per_s: Optional[float] = None
    ratio: Optional[float] = None           # throughput / rfc8785's
    error: Optional[str] = None             # the candidate failed on the corpus

    def as_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Result:
    mode: str
    corpus_bytes: int
    documents: int
    rows: List[Row] = field(default_factory=list)
    skipped: Dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> Dict[str, Any]:
        return {"mode": self.mode, "corpus_bytes": self.corpus_bytes, "documents": self.documents,
                "rows": [r.as_dict() for r in self.rows], "skipped": self.skipped}

    def table(self) -> str:
        head = ("canonicalizer", "JCS-correct", "MB/s", "vs rfc8785")
        body = []
        for r in self.rows:
            correct = "yes" if r.correct else "NO: " + ", ".join(r.failed_probes)
            speed = f"{r.mb_per_s:.1f}" if r.mb_per_s is not None else f"error: {r.error}"
            ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
            body.append((r.name, correct, speed, ratio))
        widths = [max(len(row[i]) for row in [head, *body]) for i in range(4)]
        lines = [" | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in [head, *body]]
        lines.insert(1, "-+-".join("-" * w for w in widths))
        lines.append(f"{self.mode} mode; corpus {self.corpus_bytes / 1e6:.2f} MB in {self.documents} document(s)")
        lines.extend(f"skipped {name}: {why}" for name, why in self.skipped.items())
        return "\n".join(lines)


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


def run(docs: Sequence[bytes], mode: str = "text", min_time: float = 0.3, repeat: int = 3,
        only: Optional[Sequence[str]] = None) -> Result:
    cands, skipped = candidates()
    if only:
        wanted = [w.lower() for w in only]
        cands = [c for c in cands if any(w in c.name.lower() for w in wanted)]
    result = Result(mode, sum(len(d) for d in docs), len(docs), skipped=skipped)
    objs = [json.loads(d) for d in docs] if mode == "object" else None
    for c in cands:
        failed = probe(c)
        row = Row(c.name, not failed, failed)
        if objs is not None:
            work: Callable[[], Any] = lambda c=c: [c.from_obj(o) for o in objs]  # noqa: E731
        else:
            work = lambda c=c: [c.text(d) for d in docs]  # noqa: E731
        try:
            seconds = _time(work, min_time, repeat)
            row.mb_per_s = result.corpus_bytes / 1e6 / seconds
        except Exception as exc:  # noqa: BLE001 - a peer that cannot take the corpus
            row.error = f"{type(exc).__name__}: {exc}"[:80]
        result.rows.append(row)
    base = next((r.mb_per_s for r in result.rows if r.name == "rfc8785" and r.mb_per_s), None)
    for r in result.rows:
        if base and r.mb_per_s:
            r.ratio = r.mb_per_s / base
    return result


def plot(result: Result, out: BinaryIO, image_format: str) -> None:
    """A bar chart of throughput, correct candidates in one colour, others hatched, written to
    `out` as `image_format` (png, svg, pdf...)."""
    import matplotlib  # ImportError is the caller's to report

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in result.rows if r.mb_per_s is not None]
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * len(rows)))
    bars = ax.barh([r.name for r in rows], [r.mb_per_s for r in rows],
                   color=["#2a7ab9" if r.correct else "#bbbbbb" for r in rows])
    for bar, r in zip(bars, rows):
        if not r.correct:
            bar.set_hatch("//")
        ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2,
                f" {r.mb_per_s:.1f}" + ("" if r.correct else " (not JCS)"), va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"MB/s ({result.mode} mode; {result.corpus_bytes / 1e6:.1f} MB corpus)")
    ax.set_title("JSON canonicalizers")
    fig.tight_layout()
    fig.savefig(out, format=image_format)
    plt.close(fig)
