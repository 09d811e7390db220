"""pytest-benchmark suites: `PYTHONPATH=src python -m pytest benchmarks/` (not in the default run).

The suites time each row of benchmarks/impls.py on each corpus of benchmarks/corpus.py; the
shared code is in _bench.py. BENCH_ROUNDS (default 5) sets the timed rounds per benchmark.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# Measure the checkout these benchmarks belong to, not whatever fastjcs is installed elsewhere.
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
