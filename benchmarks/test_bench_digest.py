"""Digests of many Python objects: fastjcs's batch (digest_many) against rfc8785 + SHA-256 in a loop."""

from __future__ import annotations

import impls
import pytest
from _bench import run_benchmark

ROWS = [r for r in impls.rows() if r.kind == "digest"]


@pytest.mark.parametrize("corpus_name", ["eab", "records"])
@pytest.mark.parametrize("row", ROWS, ids=[r.label for r in ROWS])
def test_digest(benchmark, row, corpus_name):
    run_benchmark(benchmark, row, corpus_name)
