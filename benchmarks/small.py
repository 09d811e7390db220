"""Where users call fastjcs: one small document per call, Python objects, one float. Every ratio
against its peer, measured in the same run, with its goal and PASS or MISS.

    python benchmarks/small.py [--repeat N] [--json]

The documents are the corpora of benchmarks/corpus.py: `eab` (10,000 objects shaped like the
Execution Action Binding v1 preimage, about 200 bytes of JCS each: one call per object), `floats`
(its 10,000 floats, one call per float, and the whole list as one document) and `records`; then
1 MB of non-ASCII strings and 10k ints (instructions.py's documents), and 1,000 records carrying
a datetime, a UUID, a Decimal and a dataclass each (default_records.py), dumped with
default=stdlib_types against the same records converted beforehand and against orjson. Each
row is timed as a plain loop over the documents, the same loop for fastjcs and for its peer
(`for d in docs: f(d)`), best of N runs (timeit, one pass per run); a ratio is the peer's time
over fastjcs's, so > 1 means fastjcs is faster. On a busy machine take ratios, not times: both
sides of a ratio are measured back to back, row by row, in the same run. The goals are issue 31's.

It measures the fastjcs of this checkout (../src). orjson is optional: without it, the rows that
need it say so. rfc8785 and pycryptodome are required (the test extras).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import timeit
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import corpus as corpora  # noqa: E402
import default_records  # noqa: E402
import instructions  # noqa: E402
import rfc8785  # noqa: E402
from Crypto.Hash import SHA256  # noqa: E402

import fastjcs  # noqa: E402

try:
    import orjson
except ImportError:  # pragma: no cover - depends on the machine
    orjson = None
try:
    import msgspec
except ImportError:  # pragma: no cover - depends on the machine
    msgspec = None


def loop_time(fn: Callable[[Any], Any], docs: Sequence[Any], repeat: int) -> float:
    """Best time of `for d in docs: fn(d)`, per document, in seconds."""
    timer = timeit.Timer("for d in docs: fn(d)", globals={"docs": docs, "fn": fn})
    return min(timer.repeat(repeat=repeat, number=1)) / len(docs)


def batch_time(fn: Callable[[Sequence[Any]], Any], docs: Sequence[Any], repeat: int) -> float:
    """Best time of fn(docs), per document, in seconds."""
    timer = timeit.Timer("fn(docs)", globals={"docs": docs, "fn": fn})
    return min(timer.repeat(repeat=repeat, number=1)) / len(docs)


@dataclass
class Ratio:
    """fastjcs against a peer: `goal` is the least acceptable peer/fastjcs time ratio."""

    name: str
    ours: float
    peer: float | None
    goal: float | None  # None: shown beside the others, no goal
    goal_text: str
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if self.peer is None else self.peer / self.ours

    @property
    def verdict(self) -> str:
        r = self.ratio
        if r is None:
            return "n/a"
        if self.goal is None:
            return "-"
        return "PASS" if r >= self.goal else f"MISS ({r / self.goal:.0%} of goal)"


def _orjson_sorted() -> Callable[[Any], bytes] | None:
    if orjson is None:
        return None
    option, dumps = orjson.OPT_SORT_KEYS, orjson.dumps
    return lambda o: dumps(o, option=option)


def _msgspec_sorted() -> Callable[[Any], bytes] | None:
    if msgspec is None:
        return None
    return msgspec.json.Encoder(order="sorted").encode


def _check(name: str, got: list[Any], want: list[Any]) -> None:
    if got != want:
        raise SystemExit(f"small.py: {name} gave wrong results; no figures printed")


def measure(repeat: int) -> list[Ratio]:
    eab = corpora.load("eab")
    objs, texts = eab.objects, eab.texts
    floats = corpora.load("floats")
    values = floats.objects[0]
    records = corpora.load("records")
    orj = _orjson_sorted()
    msg = _msgspec_sorted()
    no_orjson = "orjson not installed (pip install orjson)"
    no_msgspec = "msgspec not installed (pip install msgspec)"

    # Correctness first: every fastjcs result is checked against rfc8785's before any timing.
    want = [rfc8785.dumps(o) for o in objs]
    _check("dumps", [fastjcs.dumps(o) for o in objs], want)
    _check("canonicalize", [fastjcs.canonicalize(t) for t in texts], want)
    digests = ["sha256:" + SHA256.new(w).hexdigest() for w in want]
    _check("digest", [fastjcs.digest(o) for o in objs], digests)
    _check("digest_many", fastjcs.digest_many(objs), digests)
    _check("format_double", [fastjcs.format_double(x) for x in values], [rfc8785.dumps(x).decode() for x in values])

    oneshot = getattr(SHA256, "digest", None) or (lambda data: SHA256.new(data).digest())
    rfc_digest = lambda o: "sha256:" + oneshot(rfc8785.dumps(o)).hex()  # noqa: E731

    dumps = loop_time(fastjcs.dumps, objs, repeat)
    digest = loop_time(fastjcs.digest, objs, repeat)
    out = [
        Ratio("EAB dumps vs rfc8785.dumps", dumps, loop_time(rfc8785.dumps, objs, repeat), 10, ">= 10x"),
        Ratio(
            "EAB dumps vs orjson sorted",
            dumps,
            loop_time(orj, objs, repeat) if orj else None,
            1.0,
            ">= 1.0x",
            "" if orj else no_orjson,
        ),
        Ratio(
            "EAB dumps vs msgspec sorted",
            dumps,
            loop_time(msg, objs, repeat) if msg else None,
            None,
            "(shown)",
            "" if msg else no_msgspec,
        ),
        Ratio(
            "EAB canonicalize(text) vs orjson loads+dumps(sorted)",
            loop_time(fastjcs.canonicalize, texts, repeat),
            loop_time(lambda t: orj(orjson.loads(t)), texts, repeat) if orj else None,
            1.0,
            ">= 1.0x",
            "" if orj else no_orjson,
        ),
        Ratio(
            "EAB digest(obj) vs rfc8785 + pycryptodome one-shot",
            digest,
            loop_time(rfc_digest, objs, repeat),
            12,
            ">= 12x",
        ),
        Ratio(
            "EAB digest_many per object vs digest per object",
            batch_time(fastjcs.digest_many, objs, repeat),
            digest,
            1.0,
            ">= 1.0x (a batch costs no more)",
        ),
        Ratio(
            "format_double vs repr(float), 10k floats",
            loop_time(fastjcs.format_double, values, repeat),
            loop_time(repr, values, repeat),
            1 / 2,
            "within 2x (>= 0.5)",
        ),
        Ratio(
            "format_double(0.1) vs repr(0.1)",
            loop_time(fastjcs.format_double, [0.1] * 10_000, repeat),
            loop_time(repr, [0.1] * 10_000, repeat),
            1 / 2,
            "within 2x (>= 0.5)",
        ),
    ]

    def corpus_time(fn: Callable[[Any], Any], doc: Any) -> float:
        return loop_time(fn, [doc], repeat)

    rec_obj = records.objects[0]
    rec_dumps = corpus_time(fastjcs.dumps, rec_obj)
    out += [
        Ratio("records dumps vs rfc8785.dumps", rec_dumps, corpus_time(rfc8785.dumps, rec_obj), 30, ">= 30x"),
        Ratio(
            "records dumps vs orjson sorted",
            rec_dumps,
            corpus_time(orj, rec_obj) if orj else None,
            1.0,
            ">= 1.0x",
            "" if orj else no_orjson,
        ),
        Ratio(
            "records dumps vs msgspec sorted",
            rec_dumps,
            corpus_time(msg, rec_obj) if msg else None,
            None,
            "(shown)",
            "" if msg else no_msgspec,
        ),
    ]
    fl_obj, fl_text = floats.objects[0], floats.texts[0]
    orj_round = (lambda t: orj(orjson.loads(t))) if orj else None
    out += [
        Ratio(
            "floats canonicalize vs orjson loads+dumps(sorted)",
            corpus_time(fastjcs.canonicalize, fl_text),
            corpus_time(orj_round, fl_text) if orj_round else None,
            1.2,
            ">= 1.2x",
            "" if orj else no_orjson,
        ),
        Ratio(
            "floats dumps (10k doubles) vs orjson sorted",
            corpus_time(fastjcs.dumps, fl_obj),
            corpus_time(orj, fl_obj) if orj else None,
            1.0,
            ">= 1.0x",
            "" if orj else no_orjson,
        ),
        Ratio(
            "floats dumps (10k doubles) vs msgspec sorted",
            corpus_time(fastjcs.dumps, fl_obj),
            corpus_time(msg, fl_obj) if msg else None,
            None,
            "(shown)",
            "" if msg else no_msgspec,
        ),
        Ratio(
            "floats dumps vs rfc8785.dumps",
            corpus_time(fastjcs.dumps, fl_obj),
            corpus_time(rfc8785.dumps, fl_obj),
            50,
            ">= 50x",
        ),
    ]
    # 1 MB of non-ASCII strings and 10k small ints (instructions.py's documents)
    for workload, name in (("strings", "1 MB non-ASCII strings"), ("ints", "10k ints")):
        doc = instructions.documents(workload)[0]
        out.append(
            Ratio(
                f"{name} dumps vs orjson sorted",
                corpus_time(fastjcs.dumps, doc),
                corpus_time(orj, doc) if orj else None,
                1.0,
                ">= 1.0x",
                "" if orj else no_orjson,
            )
        )
    # 1,000 records with a datetime, a UUID, a Decimal and a dataclass each (default_records.py):
    # default=stdlib_types against the same records converted beforehand, and against orjson
    # given default_records.f (which it calls for the Decimals alone)
    recs = default_records.records(1000)
    pre = default_records.converted(recs)
    _check("default=stdlib_types", [fastjcs.dumps(recs, default=fastjcs.stdlib_types)], [fastjcs.dumps(pre)])
    stdlib = corpus_time(lambda r: fastjcs.dumps(r, default=fastjcs.stdlib_types), recs)
    out += [
        Ratio(
            "records default=stdlib_types vs pre-converted",
            stdlib,
            corpus_time(fastjcs.dumps, pre),
            1 / 1.5,
            "within 1.5x (>= 0.67)",
        ),
        Ratio(
            "records default=stdlib_types vs orjson default=f",
            stdlib,
            corpus_time(lambda r: orjson.dumps(r, default=default_records.f, option=orjson.OPT_SORT_KEYS), recs)
            if orj
            else None,
            1.0,
            ">= 1.0x",
            "" if orj else no_orjson,
        ),
    ]
    return out


def table(ratios: list[Ratio]) -> str:
    head = ("ratio", "fastjcs", "peer", "x", "goal", "verdict")
    rows = []
    for r in ratios:
        ours = f"{r.ours * 1e6:.3f} us"
        peer = f"{r.peer * 1e6:.3f} us" if r.peer is not None else r.note
        x = f"{r.ratio:.2f}" if r.ratio is not None else "-"
        rows.append((r.name, ours, peer, x, r.goal_text, r.verdict))
    widths = [max(len(row[i]) for row in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per row; the best counts")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    ratios = measure(max(1, args.repeat))
    if args.json:
        print(
            json.dumps(
                {
                    "python": platform.python_version(),
                    "backend": fastjcs.backend(),
                    "orjson": getattr(orjson, "__version__", None),
                    "repeat": args.repeat,
                    "ratios": [
                        dict(name=r.name, fastjcs=r.ours, peer=r.peer, ratio=r.ratio, goal=r.goal, verdict=r.verdict)
                        for r in ratios
                    ],
                },
                indent=2,
            )
        )
        return 0
    print(
        f"Python {platform.python_version()} on {platform.machine()}, fastjcs backend "
        f"{fastjcs.backend()}, orjson {getattr(orjson, '__version__', 'absent')}; best of "
        f"{args.repeat}; times per document (per call); x = peer time / fastjcs time"
    )
    print(table(ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
