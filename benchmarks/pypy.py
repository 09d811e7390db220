"""fastjcs against rfc8785 on the interpreter that runs it (written for PyPy; runs on CPython too).

    pypy3 benchmarks/pypy.py [--repeat N] [--json]

For three corpora of benchmarks/corpus.py (`eab`: 10,000 EAB-preimage-sized objects, one call
each; `records`: one document of 1,000 nested records, 0.5 MB; `floats`: one list of 10,000
floats), two rows each: Python objects to canonical bytes (fastjcs.dumps, rfc8785.dumps) and JSON text to
canonical bytes (fastjcs.canonicalize; rfc8785 has no text input, so json.loads then
rfc8785.dumps). fastjcs is timed on its C core (through cffi on PyPy) and on its pure-Python
backend. Each figure is the best of N passes of `for d in docs: f(d)`; the first passes are the
JIT's warm-up, which the best of N leaves out. A ratio is rfc8785's time over fastjcs's, measured
back to back in the same run: on a busy machine take the ratios, not the times. With --cpu, the
figures are the thread's CPU time (time.thread_time) rather than wall time: on a loaded machine
that leaves out the time the process waited for a core, the larger part of the noise.

It measures the fastjcs of this checkout (../src) and checks every result against rfc8785's
before timing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import timeit
from collections.abc import Sequence
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import corpus as corpora  # noqa: E402
import rfc8785  # noqa: E402

import fastjcs  # noqa: E402
from fastjcs.core import python_backend  # noqa: E402

DEPTH = 1000


def loop_time(fn: Callable[[Any], Any], docs: Sequence[Any], repeat: int, cpu: bool = False) -> float:
    """Best time of `for d in docs: fn(d)`, per document, in seconds (CPU time of the thread if cpu)."""
    timer = timeit.Timer(
        "for d in docs: fn(d)", globals={"docs": docs, "fn": fn}, timer=time.thread_time if cpu else time.perf_counter
    )
    return min(timer.repeat(repeat=repeat, number=1)) / len(docs)


def measure(repeat: int, cpu: bool = False) -> list[dict[str, Any]]:
    rows = []
    for name in ("eab", "records", "floats"):
        c = corpora.load(name)
        want = [rfc8785.dumps(o) for o in c.objects]
        candidates: dict[str, tuple[Callable[[Any], bytes], Callable[[Any], bytes], Callable[[Any], bytes]]] = {
            # input kind: (fastjcs C core, fastjcs pure Python, rfc8785), and the documents
            "objects": (
                fastjcs.dumps,
                lambda o: python_backend.dumps(o, DEPTH),
                rfc8785.dumps,
            ),
            "text": (
                fastjcs.canonicalize,
                lambda t: python_backend.canonicalize(t, DEPTH, False),
                lambda t: rfc8785.dumps(json.loads(t)),
            ),
        }
        for kind, fns in candidates.items():
            docs = c.objects if kind == "objects" else c.texts
            for fn in fns:
                if [fn(d) for d in docs] != want:
                    raise SystemExit(f"pypy.py: wrong result on {name} {kind}; no figures printed")
            native, pure, peer = (loop_time(fn, docs, repeat, cpu) for fn in fns)
            rows.append(
                {
                    "corpus": name,
                    "input": kind,
                    "docs": len(docs),
                    "bytes": sum(len(w) for w in want),
                    "rfc8785_us": peer * 1e6,
                    "native_us": native * 1e6,
                    "python_us": pure * 1e6,
                    "native_x": peer / native,
                    "python_x": peer / pure,
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="passes per figure; the best counts (default 7)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--cpu", action="store_true", help="time the thread's CPU time, not wall time")
    args = ap.parse_args(argv)
    rows = measure(args.repeat, args.cpu)
    where = (
        f"{platform.python_implementation()} {platform.python_version()}"
        + (f" (PyPy {'.'.join(map(str, sys.pypy_version_info[:3]))})" if hasattr(sys, "pypy_version_info") else "")
        + f", fastjcs {fastjcs.__version__} backend {fastjcs.backend()}, rfc8785 {rfc8785.__version__}"
        + f", {platform.machine()}, best of {args.repeat}"
        + (", CPU time" if args.cpu else "")
    )
    if args.json:
        print(json.dumps({"where": where, "rows": rows}, indent=2))
        return 0
    print(where)
    print(f"{'corpus':8} {'input':7} {'rfc8785 us/doc':>14} {'C core':>8} {'vs':>7} {'pure Py':>8} {'vs':>7}")
    for r in rows:
        print(
            f"{r['corpus']:8} {r['input']:7} {r['rfc8785_us']:14.1f} {r['native_us']:8.1f} "
            f"{r['native_x']:6.2f}x {r['python_us']:8.1f} {r['python_x']:6.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
