"""JSON text in: fastjcs canonicalize against rfc8785.dumps(json.loads(text)), and peers that are not JCS."""

from __future__ import annotations

import corpus as corpora
import impls
import pytest
from _bench import run_benchmark

ROWS = [r for r in impls.rows() if r.kind == "text"]


@pytest.mark.parametrize("corpus_name", corpora.NAMES)
@pytest.mark.parametrize("row", ROWS, ids=[r.label for r in ROWS])
def test_canonicalize(benchmark, row, corpus_name):
    run_benchmark(benchmark, row, corpus_name)
