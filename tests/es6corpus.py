"""The ES6 number corpus of RFC 8785, regenerated (see docs/contract.md#the-es6-number-corpus).

The corpus is `<hex>,<rendering>\\n` lines over a deterministic sequence of doubles, defined in
`fastjcs.lab.corpus` (es6_bit_patterns: the 168 static values shipped with the package, a copy
of the shared conformance file, 2000 patterns counting up from the smallest normal, then forever
the four little-endian 64-bit words of each block of the chain block = SHA-256(block) from 32
zero bytes, skipping 0, NaN and the infinities). Its published SHA-256 at a few line counts
(PUBLISHED) checks a renderer without the 4 GB file.

Command line (the sanitizer script and the by-hand 10^8 run use it):
    python tests/es6corpus.py --lines N [--renderer python|native|walker] [--sha256]
prints the first N lines, or with --sha256 their digest and whether it matches the published one.
"""

from __future__ import annotations

import argparse
import struct
import sys
from collections.abc import Iterator, Sequence
from typing import Callable

from Crypto.Hash import SHA256

from fastjcs.lab.corpus import ES6_PUBLISHED as PUBLISHED
from fastjcs.lab.corpus import ES6_STATIC_VALUES as STATIC_VALUES
from fastjcs.lab.corpus import es6_bit_patterns as bit_patterns
from fastjcs.lab.corpus import es6_static_values as static_values

__all__ = ["PUBLISHED", "STATIC_VALUES", "bit_patterns", "static_values", "RENDERERS", "render_lines", "sha256_at"]

Renderer = Callable[[list[float]], list[str]]


def python_renderer() -> Renderer:
    from fastjcs.core import python_backend as _python

    fmt = _python.format_double
    return lambda values: [fmt(x) for x in values]


def native_renderer() -> Renderer:
    from fastjcs.core import native_backend as _native

    return _native.format_doubles


def walker_renderer() -> Renderer:
    """The direct entry's walker (CPython 3.10+): each chunk given to dumps as one list, its items
    split back out, so every double goes through the item loop's inlined writer."""
    import fastjcs
    from fastjcs.core import native_backend as _native

    if _native._direct is None:
        raise RuntimeError("the direct entry is not in use")
    return lambda values: fastjcs.dumps(values)[1:-1].decode().split(",")


RENDERERS = {"python": python_renderer, "native": native_renderer, "walker": walker_renderer}


def render_lines(renderer: Renderer, lines: int, stops: Sequence[int] = (), chunk: int = 1 << 16) -> Iterator[tuple]:
    """The first `lines` corpus lines as (lines done so far, ASCII bytes of the next lines), in
    chunks of up to `chunk` lines, cut so that every count in `stops` ends a chunk."""
    patterns = bit_patterns()
    cuts = sorted({s for s in stops if 0 < s < lines} | {lines})
    done = 0
    for cut in cuts:
        while done < cut:
            n = min(chunk, cut - done)
            bits = [next(patterns) for _ in range(n)]
            doubles = list(struct.unpack(f"<{n}d", struct.pack(f"<{n}Q", *bits)))
            texts = renderer(doubles)
            done += n
            yield done, "".join(map("{:x},{}\n".format, bits, texts)).encode("ascii")


def sha256_at(renderer: Renderer, counts: Sequence[int]) -> dict:
    """{N: SHA-256 hex of the first N lines} for each N in counts, in one pass."""
    result = {}
    hasher = SHA256.new()
    for done, data in render_lines(renderer, max(counts), stops=counts):
        hasher.update(data)
        if done in counts:
            result[done] = hasher.hexdigest()
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--renderer", choices=sorted(RENDERERS), default="python")
    parser.add_argument("--sha256", action="store_true", help="print the SHA-256 of the lines instead of the lines")
    args = parser.parse_args(argv)
    renderer = RENDERERS[args.renderer]()
    if args.sha256:
        digest = sha256_at(renderer, [args.lines])[args.lines]
        published = PUBLISHED.get(args.lines)
        verdict = (
            "no published hash"
            if published is None
            else ("matches the published hash" if digest == published else "MISMATCH with " + published)
        )
        print(f"{args.lines} lines: {digest} ({verdict})")
        return 0 if published in (None, digest) else 1
    out = sys.stdout.buffer
    for _, data in render_lines(renderer, args.lines):
        out.write(data)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
