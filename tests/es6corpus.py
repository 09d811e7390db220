"""The ES6 number corpus of RFC 8785, regenerated (see docs/contract.md#the-es6-number-corpus).

The corpus is `<hex>,<rendering>\\n` lines over a deterministic sequence of doubles: the 168 static
values (tests/data/es6-static-values.txt, a copy of the shared conformance file), 2000 patterns
counting up from the smallest normal, then forever the four little-endian 64-bit words of each
block of the chain block = SHA-256(block) from 32 zero bytes, skipping 0, NaN and the infinities.
Its published SHA-256 at a few line counts (PUBLISHED) checks a renderer without the 4 GB file.

Command line (the sanitizer script and the by-hand 10^8 run use it):
    python tests/es6corpus.py --lines N [--renderer python|native] [--sha256]
prints the first N lines, or with --sha256 their digest and whether it matches the published one.
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path
from typing import Callable, Iterator, List, Sequence

from Crypto.Hash import SHA256

HERE = Path(__file__).resolve().parent
STATIC_VALUES = HERE / "data" / "es6-static-values.txt"

# SHA-256 of the first N lines, as published (docs/contract.md#the-es6-number-corpus).
PUBLISHED = {
    1_000: "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687",
    10_000: "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892",
    100_000: "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7",
    1_000_000: "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16",
    100_000_000: "0f7dda6b0837dde083c5d6b896f7d62340c8a2415b0c7121d83145e08a755272",
}

SMALLEST_NORMAL = 0x0010000000000000
_EXPONENT_MASK = 0x7FF0000000000000
_MAGNITUDE_MASK = 0x7FFFFFFFFFFFFFFF

Renderer = Callable[[List[float]], List[str]]


def static_values() -> List[int]:
    return [int(line, 16) for line in STATIC_VALUES.read_text(encoding="ascii").split()]


def bit_patterns() -> Iterator[int]:
    """The corpus's bit patterns, in order, without end."""
    yield from static_values()
    yield from range(SMALLEST_NORMAL, SMALLEST_NORMAL + 2000)
    unpack = struct.Struct("<4Q").unpack
    block = bytes(32)
    while True:
        block = SHA256.new(block).digest()
        for word in unpack(block):
            # Skip +0/-0 (magnitude 0) and NaN/infinities (all exponent bits set).
            if word & _MAGNITUDE_MASK and word & _EXPONENT_MASK != _EXPONENT_MASK:
                yield word


def python_renderer() -> Renderer:
    from fastjcs.core import python_backend as _python

    fmt = _python.format_double
    return lambda values: [fmt(x) for x in values]


def native_renderer() -> Renderer:
    from fastjcs.core import native_backend as _native

    return _native.format_doubles


RENDERERS = {"python": python_renderer, "native": native_renderer}


def render_lines(renderer: Renderer, lines: int, stops: Sequence[int] = (),
                 chunk: int = 1 << 16) -> Iterator[tuple]:
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
    parser.add_argument("--sha256", action="store_true",
                        help="print the SHA-256 of the lines instead of the lines")
    args = parser.parse_args(argv)
    renderer = RENDERERS[args.renderer]()
    if args.sha256:
        digest = sha256_at(renderer, [args.lines])[args.lines]
        published = PUBLISHED.get(args.lines)
        verdict = "no published hash" if published is None else (
            "matches the published hash" if digest == published else "MISMATCH with " + published)
        print(f"{args.lines} lines: {digest} ({verdict})")
        return 0 if published in (None, digest) else 1
    out = sys.stdout.buffer
    for _, data in render_lines(renderer, args.lines):
        out.write(data)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
