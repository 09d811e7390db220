"""Growth-ratio checks: how the time of a function grows when its input grows 4x.

A linear (or n log n) algorithm takes about 4x (4.5x) as long on an input 4x as large; a quadratic
one 16x. The checks compare two sizes measured in the same run, never an absolute time, so a slow
or busy machine changes both sides alike. Each side is the best of a few runs; a ratio over the
bound is measured again (up to `attempts` times) before it counts, since one descheduling can
double a single timing on a shared machine, while a quadratic input fails every attempt.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Tuple

import pytest

RATIO = 6.0  # time(4n) / time(n): 4 for linear, ~4.5 for n log n, 16 for quadratic

# Under AddressSanitizer (.ci/asan.sh) every allocation goes through a quarantine whose cost
# depends on what was freed before: its timings say nothing about the product's growth.
timed = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                           reason="timings under AddressSanitizer")


def best_time(fn: Callable[[Any], Any], arg: Any, repeat: int = 3, budget: float = 0.25) -> float:
    """The best of at least `repeat` runs, and of more while they take under `budget` seconds in
    all (a run of a few milliseconds is at the mercy of the scheduler)."""
    best = float("inf")
    runs, spent = 0, 0.0
    while runs < repeat or (spent < budget and runs < 50):
        t0 = time.perf_counter()
        fn(arg)
        took = time.perf_counter() - t0
        best = min(best, took)
        runs += 1
        spent += took
    return best


def growth(fn: Callable[[Any], Any], small: Any, large: Any, *, repeat: int = 3,
           attempts: int = 3, bound: float = RATIO) -> Tuple[float, float, float]:
    """(time small, time large, ratio) of fn, the ratio under `bound` if any attempt makes it."""
    for _ in range(attempts):
        t_small = best_time(fn, small, repeat)
        t_large = best_time(fn, large, repeat)
        ratio = t_large / max(t_small, 1e-9)
        if ratio < bound:
            break
    return t_small, t_large, ratio


def assert_linear(fn: Callable[[Any], Any], small: Any, large: Any, *, what: str = "",
                  bound: float = RATIO, repeat: int = 3) -> None:
    """Fail unless fn's time on `large` (4x `small`) is under `bound` times its time on `small`."""
    t_small, t_large, ratio = growth(fn, small, large, repeat=repeat, bound=bound)
    assert ratio < bound, (f"{what}: time grows {ratio:.1f}x for 4x the input "
                           f"({t_small * 1e3:.1f} ms -> {t_large * 1e3:.1f} ms); bound {bound}x")
