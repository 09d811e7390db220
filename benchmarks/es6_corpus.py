"""Regenerate the RFC 8785 ES6 number corpus with a renderer and compare its SHA-256 with the
published one (by hand; the test suite checks up to 10^6 lines):

    PYTHONPATH=src python benchmarks/es6_corpus.py --lines 100000000            # C, about 5 minutes
    PYTHONPATH=src python benchmarks/es6_corpus.py --lines 1000000 --renderer python

Prints the digest at every published count on the way, the time taken, and exits 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import es6corpus  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000_000)
    parser.add_argument("--renderer", choices=sorted(es6corpus.RENDERERS), default="native")
    args = parser.parse_args()
    renderer = es6corpus.RENDERERS[args.renderer]()
    counts = sorted({n for n in es6corpus.PUBLISHED if n <= args.lines} | {args.lines})
    start = time.perf_counter()
    digests = es6corpus.sha256_at(renderer, counts)
    elapsed = time.perf_counter() - start
    ok = True
    for n in counts:
        published = es6corpus.PUBLISHED.get(n)
        if published is None:
            verdict = "no published hash"
        elif published == digests[n]:
            verdict = "matches"
        else:
            verdict, ok = f"MISMATCH (published {published})", False
        print(f"{n:>11,} lines  {digests[n]}  {verdict}")
    print(
        f"{args.renderer} renderer, {args.lines:,} lines in {elapsed:.1f} s "
        f"({elapsed / args.lines * 1e9:.0f} ns per line, generation and hashing included)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
