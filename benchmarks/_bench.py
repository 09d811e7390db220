"""The body of every benchmark: time one row on one corpus, and record its correctness.

Every benchmark stores in `benchmark.extra_info` whether its output was the correct JCS bytes
(rfc8785's: `jcs_correct`), and whether the implementation claims JCS at all (`jcs: false` = a
"not JCS" peer).
"""

from __future__ import annotations

import os

import corpus as corpora
import impls
import pytest

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
_REFERENCES = {}


def reference(name):
    if name not in _REFERENCES:
        _REFERENCES[name] = impls.reference(corpora.load(name).objects)
    return _REFERENCES[name]


def run_benchmark(benchmark, row, corpus_name):
    """Time `row` on the corpus and record its correctness; skip with the row's reason."""
    if row.skip:
        pytest.skip(row.skip)
    c = corpora.load(corpus_name)
    docs = impls.documents(c, row.kind)
    expected = row.expect(reference(corpus_name))
    benchmark.group = f"{corpus_name} ({row.kind})"
    benchmark.extra_info.update(
        corpus=corpus_name, implementation=row.label, jcs=row.jcs, bytes=sum(len(b) for b in reference(corpus_name))
    )
    try:
        outputs = row.run(docs)
    except Exception as exc:  # e.g. RecursionError on the deep corpus: recorded, then skipped
        benchmark.extra_info.update(jcs_correct=False, error=type(exc).__name__)
        pytest.skip(f"{row.label} fails on {corpus_name}: {type(exc).__name__}")
    benchmark.extra_info["jcs_correct"] = outputs == expected
    benchmark.pedantic(row.run, args=(docs,), rounds=ROUNDS, iterations=1, warmup_rounds=1)
