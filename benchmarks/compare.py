"""Measure every available implementation on every corpus in one run, and print one table.

    python benchmarks/compare.py [--repeat N] [--corpus NAME ...] [--timer cpu] [--json]

For each corpus (benchmarks/corpus.py) and each row of benchmarks/impls.py: the best of N timed
runs over the corpus's documents (timeit, one pass per run), as MB/s of canonical output, the
ratio to rfc8785 measured in the same run (rfc8785.dumps for Python objects, rfc8785.dumps of
json.loads for text; > 1 is faster), and whether the output was byte-for-byte the JCS bytes
(rfc8785's). Peers that are not JCS are labelled so; a row that raises (e.g. RecursionError on
the deep corpus) is reported with the exception instead of a time.

It measures the fastjcs of this checkout (../src), whatever else is installed. To measure a new
function, add a Row to benchmarks/impls.py: it appears here and in the pytest-benchmark suites.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
import timeit
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# Measure the checkout these benchmarks belong to, not whatever fastjcs is installed elsewhere.
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import corpus as corpora  # noqa: E402
import impls  # noqa: E402

TIMERS = {"wall": time.perf_counter, "cpu": time.process_time}


def measure(row: impls.Row, docs, expected: list[bytes], repeat: int, timer: str = "wall") -> dict[str, Any]:
    result: dict[str, Any] = {"implementation": row.label, "kind": row.kind, "jcs": row.jcs}
    if row.skip:
        result.update(status="skipped", reason=row.skip)
        return result
    try:
        outputs = row.run(docs)
    except Exception as exc:  # noqa: BLE001 - reported, not hidden
        result.update(status="error", error=type(exc).__name__, correct=False)
        return result
    result["correct"] = outputs == row.expect(expected)
    gc.collect()
    best = min(timeit.Timer(lambda: row.run(docs), timer=TIMERS[timer]).repeat(repeat=repeat, number=1))
    result.update(status="ok", seconds=best)
    return result


def run(names: list[str], repeat: int, timer: str = "wall") -> list[dict[str, Any]]:
    results = []
    for name in names:
        c = corpora.load(name)
        expected = impls.reference(c.objects)
        size = sum(len(b) for b in expected)
        for kind in ("object", "text", "digest"):
            docs = impls.documents(c, kind)
            rows = [r for r in impls.rows() if r.kind == kind]
            measured = [measure(r, docs, expected, repeat, timer) for r in rows]
            base: float | None = next((m.get("seconds") for r, m in zip(rows, measured) if r.baseline), None)
            for m in measured:
                m["corpus"] = name
                m["bytes"] = size
                if m["status"] == "ok":
                    m["mb_per_s"] = size / m["seconds"] / 1e6
                    m["ratio"] = base / m["seconds"] if base else None
                results.append(m)
    return results


def table(results: list[dict[str, Any]]) -> str:
    head = ("corpus", "implementation", "MB/s", "x rfc8785", "JCS-correct")
    lines = []
    for m in results:
        if m["status"] == "skipped":
            mbs, ratio, ok = "skipped", "", m["reason"]
        elif m["status"] == "error":
            mbs, ratio, ok = "error", "", f"no ({m['error']})"
        else:
            mbs = f"{m['mb_per_s']:.1f}"
            ratio = f"{m['ratio']:.2f}" if m["ratio"] else "-"
            ok = "yes" if m["correct"] else "no"
        lines.append((m["corpus"], m["implementation"], mbs, ratio, ok))
    widths = [max(len(str(x[i])) for x in [head] + lines) for i in range(4)]
    fmt = "  ".join(f"{{:{'<' if i < 2 else '>'}{w}}}" for i, w in enumerate(widths)) + "  {}"
    out = [fmt.format(*head), fmt.format(*("-" * w for w in widths), "-" * 11)]
    prev = None
    for line in lines:
        if prev is not None and line[0] != prev:
            out.append("")
        prev = line[0]
        out.append(fmt.format(*line))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per row; the best counts")
    parser.add_argument(
        "--corpus", action="append", choices=corpora.NAMES, help="corpus to measure (repeatable; default: all)"
    )
    parser.add_argument(
        "--timer",
        choices=sorted(TIMERS),
        default="wall",
        help="wall clock (default), or this process's CPU time, steadier on a busy machine",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    results = run(args.corpus or corpora.NAMES, max(1, args.repeat), args.timer)
    if args.json:
        print(
            json.dumps(
                {
                    "python": platform.python_version(),
                    "machine": platform.machine(),
                    "repeat": args.repeat,
                    "timer": args.timer,
                    "results": results,
                },
                indent=2,
            )
        )
    else:
        print(
            f"Python {platform.python_version()} on {platform.machine()}, best of "
            f"{args.repeat} ({args.timer} time); MB/s of canonical output; "
            f"x rfc8785 = speed ratio to the rfc8785 row of the same kind, same run (for "
            f"digests: to rfc8785.dumps + pycryptodome SHA-256 in a loop)"
        )
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
