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
