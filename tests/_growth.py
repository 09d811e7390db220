"""Growth-ratio checks: how the time of a function grows when its input grows 4x.

A linear (or n log n) algorithm takes about 4x (4.5x) as long on an input 4x as large; a quadratic
one 16x. The checks compare two sizes measured in the same run, never an absolute time, so a slow
or busy machine changes both sides alike. Each side is the best of a few runs; a ratio over the
bound is measured again (up to `attempts` times) before it counts, since one descheduling can
double a single timing on a shared machine, while a quadratic input fails every attempt.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
import time
from typing import Any, Callable

RATIO = 6.0  # time(4n) / time(n): 4 for linear, ~4.5 for n log n, 16 for quadratic


def _steady_allocator() -> None:
    """Keep glibc's malloc from returning freed memory to the system between two timed runs.

    By default a buffer past the mmap threshold gets fresh pages (a page fault per 4 kB) and the
    threshold moves with what was freed last, so one call can cost 4x another of the same work,
    depending on the calls before it. With both thresholds fixed, repeated calls of up to 32 MB
    reuse warm memory and the timings measure the work. (Only the process that times is
    affected; it keeps up to its peak in memory.)
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: glibc's maximum, no longer adjusted
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: keep freed memory
    except (OSError, AttributeError):  # not glibc: timings as they come
        pass


_steady_allocator()


def best_time(fn: Callable[[Any], Any], arg: Any, repeat: int = 3, budget: float = 0.25) -> float:
    """The best CPU time of this process (user + system: what other processes do on a shared
    machine does not count) over at least `repeat` runs, and more while they take under
    `budget` seconds in all. The garbage collector is paused while a run is timed (a collection
    falls on one run or another by chance)."""
    best = float("inf")
    runs, spent = 0, 0.0
    while runs < repeat or (spent < budget and runs < 50):
        gc.collect()
        gc.disable()
        try:
            t0 = time.process_time()
            fn(arg)
            took = time.process_time() - t0
        finally:
            gc.enable()
        best = min(best, took)
        runs += 1
        spent += took
    return best


def growth(
    fn: Callable[[Any], Any], small: Any, large: Any, *, repeat: int = 3, attempts: int = 3, bound: float = RATIO
) -> tuple[float, float, float]:
    """(time small, time large, ratio) of fn, the ratio under `bound` if any attempt makes it."""
    for _ in range(attempts):
        t_small = best_time(fn, small, repeat)
        t_large = best_time(fn, large, repeat)
        ratio = t_large / max(t_small, 1e-9)
        if ratio < bound:
            break
    return t_small, t_large, ratio


def assert_linear(
    fn: Callable[[Any], Any], small: Any, large: Any, *, what: str = "", bound: float = RATIO, repeat: int = 3
) -> None:
    """Fail unless fn's time on `large` (4x `small`) is under `bound` times its time on `small`."""
    t_small, t_large, ratio = growth(fn, small, large, repeat=repeat, bound=bound)
    assert ratio < bound, (
        f"{what}: time grows {ratio:.1f}x for 4x the input "
        f"({t_small * 1e3:.1f} ms -> {t_large * 1e3:.1f} ms); bound {bound}x"
    )


def child_cpu(args: Any, data: bytes, extra_env: Any, runs: int = 3) -> float:
    """CPU seconds (user + system) of one `python -m fastjcs ARGS` child reading `data` on stdin,
    the least of `runs` (other work on the machine slows a run down, never speeds it up)."""
    import resource

    from _cli import fastjcs

    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = fastjcs(*args, input=data, extra_env=extra_env, process=True)  # its CPU time: a child's
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert p.returncode in (0, 1, 2), p.stderr[-300:]  # (2: a bad line of JSON Lines, bad input)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best
