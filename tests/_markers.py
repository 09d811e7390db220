"""Markers for checks that an instrumented build cannot make.

Under AddressSanitizer (.ci/asan.sh preloads its runtime) freed memory waits in a quarantine and
every allocation costs what was freed before: RSS says nothing about the product's memory, and
timings nothing about its growth. Leaks of the C core are LeakSanitizer's business there (the
libFuzzer harnesses); growth and memory are checked by the plain run.
"""

from __future__ import annotations

import os

import pytest

UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")

rss_is_meaningful = pytest.mark.skipif(UNDER_ASAN, reason="RSS under AddressSanitizer's quarantine")
timed = pytest.mark.skipif(UNDER_ASAN, reason="timings under AddressSanitizer")

# PyPy sizes its GC's nursery from the CPU's last-level cache (PYPY_GC_NURSERY: half of it, or 4 MB
# when unknown), and garbage up to the nursery's size lives until a minor collection. A host that
# reports a 480 MiB L3 (CI's machines do) gets a 240 MB nursery, and a process's peak holds that
# much garbage whatever the product does: the resident-set checks of PyPy children fix the nursery
# at PyPy's own 4 MB default, so their bounds are the product's, not the host's cache.
MEASURED_ENV = {"PYPY_GC_NURSERY": "4MB"}
