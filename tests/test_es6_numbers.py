"""The ES6 number corpus (../shared/conformance/es6-numbers.md): the lines rendered by our
format_double must hash to the published SHA-256.

The sequence and the hashes come from that file (the RFC author's generator, re-specified); the
number of lines is `--es6-lines` (default 100,000; CI passes 1,000,000). Every published count up
to it is checked, so a failure says how early the first wrong line is.
"""

from __future__ import annotations

import pathlib
import re
import struct
from typing import Iterator, List, Tuple

import pytest
from Crypto.Hash import SHA256

import fastjcs

CONFORMANCE = pathlib.Path(__file__).resolve().parents[2] / "shared" / "conformance"
DEFAULT_LINES = 100_000


def _published() -> List[Tuple[int, int, str]]:
    text = (CONFORMANCE / "es6-numbers.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([\d,]+) \| ([\d,]+) \| ([0-9a-f]{64}) \|$", text, re.M)
    return [(int(n.replace(",", "")), int(b.replace(",", "")), h) for n, b, h in rows]


def _bit_patterns() -> Iterator[int]:
    """The corpus's doubles, as 64-bit patterns, in order (es6-numbers.md, "The sequence")."""
    for line in (CONFORMANCE / "es6-static-values.txt").read_text().split():
        yield int(line, 16)
    for k in range(2000):
        yield 0x0010000000000000 + k
    block = bytes(32)
    while True:
        block = SHA256.new(block).digest()
        for j in range(0, 32, 8):
            bits = int.from_bytes(block[j:j + 8], "little")
            if bits & 0x7FFFFFFFFFFFFFFF == 0 or bits >> 52 & 0x7FF == 0x7FF:
                continue  # zero, NaN, infinities
            yield bits


@pytest.fixture(scope="module")
def published():
    if not (CONFORMANCE / "es6-numbers.md").exists():
        pytest.skip(f"the ES6 corpus description is not at {CONFORMANCE}")
    rows = _published()
    assert [n for n, _, _ in rows] == [1_000, 10_000, 100_000, 1_000_000]
    return rows


def check_corpus(fmt, lines: int, published) -> None:
    """Render the first `lines` lines with `fmt` and compare every published hash up to there."""
    checkpoints = {n: (size, digest) for n, size, digest in published if n <= lines}
    assert checkpoints, f"--es6-lines={lines} is below the first published count"
    last = max(checkpoints)
    pack = struct.Struct("<Q").pack
    unpack = struct.Struct("<d").unpack
    h = SHA256.new()
    size = 0
    for i, bits in enumerate(_bit_patterns(), 1):
        line = f"{bits:x},{fmt(unpack(pack(bits))[0])}\n".encode("ascii")
        h.update(line)
        size += len(line)
        if i in checkpoints:
            assert (size, h.hexdigest()) == checkpoints[i], f"first {i:,} lines"
            if i == last:
                break


def test_es6_number_corpus(backend, published, request):
    lines = request.config.getoption("--es6-lines") or DEFAULT_LINES
    check_corpus(fastjcs.format_double, lines, published)
