"""The ES6 number corpus (docs/contract.md#the-es6-number-corpus) against its published SHA-256.

Every published count up to --es6-lines (default 100,000; CI passes 1,000,000) is checked, on both
backends. The 10^8-line run is by hand: benchmarks/es6_corpus.py.
"""

from __future__ import annotations

import es6corpus
import pytest
from conftest import REPO

DEFAULT_LINES = 100_000


@pytest.fixture
def es6_lines(request) -> int:
    lines = request.config.getoption("--es6-lines")
    return DEFAULT_LINES if lines is None else lines


def test_corpus_sha256(backend, es6_lines):
    counts = [n for n in es6corpus.PUBLISHED if n <= es6_lines]
    assert counts, f"--es6-lines {es6_lines} is below every published count"
    renderer = (
        (lambda xs: [backend.format_double(x) for x in xs]) if backend.NAME == "python" else backend.format_doubles
    )
    digests = es6corpus.sha256_at(renderer, counts)
    assert digests == {n: es6corpus.PUBLISHED[n] for n in counts}


def test_corpus_sha256_through_the_walker(es6_lines):
    """dumps of each chunk as one list: the walker's float reading and its inlined writer (catches
    a double read from the wrong word, a comma lost around one, a writer the walker's copy of
    number_format.c no longer matches)."""
    try:
        renderer = es6corpus.walker_renderer()
    except (ImportError, RuntimeError) as exc:  # pragma: no cover - PyPy, CPython 3.9, no build
        pytest.skip(f"the direct entry is not in use: {exc}")
    counts = [n for n in es6corpus.PUBLISHED if n <= es6_lines]
    assert es6corpus.sha256_at(renderer, counts) == {n: es6corpus.PUBLISHED[n] for n in counts}


def test_corpus_first_lines():
    """The head of the corpus, as the conformance notes describe it."""
    lines = b"".join(data for _, data in es6corpus.render_lines(es6corpus.python_renderer(), 172)).decode().splitlines()
    assert lines[:4] == ["0,0", "8000000000000000,0", "1,5e-324", "8000000000000001,-5e-324"]
    assert lines[168] == "10000000000000,2.2250738585072014e-308"
    assert lines[169] == "10000000000001,2.225073858507202e-308"


def test_bit_patterns_skip_zero_nan_and_infinity():
    patterns = es6corpus.bit_patterns()
    head = [next(patterns) for _ in range(168 + 2000)]
    assert head[168] == 0x0010000000000000 and head[-1] == 0x0010000000000000 + 1999
    for _ in range(100_000):
        bits = next(patterns)
        assert bits & 0x7FFFFFFFFFFFFFFF and (bits >> 52) & 0x7FF != 0x7FF


def test_static_values_are_the_shared_ones():
    """The package holds a copy of the shared conformance file (fastjcs/lab/corpus/es6-static-values.txt);
    where shared/ is beside the checkout (CI lays it there), they must not have drifted apart."""
    shared = REPO.parent / "shared" / "conformance" / "es6-static-values.txt"
    if not shared.exists():
        pytest.skip(f"{shared} is not beside this checkout")
    assert shared.read_bytes() == es6corpus.STATIC_VALUES.read_bytes()
    assert len(es6corpus.static_values()) == 168
