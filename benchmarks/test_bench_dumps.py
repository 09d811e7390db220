"""Python objects in: fastjcs's backends against rfc8785.dumps, and peers that are not JCS."""

from __future__ import annotations

import corpus as corpora
import impls
import pytest
from _bench import run_benchmark

ROWS = [r for r in impls.rows() if r.kind == "object"]


@pytest.mark.parametrize("corpus_name", corpora.NAMES)
@pytest.mark.parametrize("row", ROWS, ids=[r.label for r in ROWS])
def test_dumps(benchmark, row, corpus_name):
    run_benchmark(benchmark, row, corpus_name)
