"""Input shapes for the growth-ratio checks (tests/core/test_complexity.py, benchmarks/growth.py).

Each shape builds a JSON text, and where marshal can carry it a Python value, at a scale k (1 and
4): the input grows about k times. They are the shapes that make a canonicalizer quadratic when it
moves each object's bytes as the object closes (deep nests out of order), compares names naively
(long shared prefixes), or sorts badly (many members in reverse order).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

import fastjcs

# The nests go deeper than the default limit at the larger scales.
MAX_DEPTH = 1 << 20


def canonicalize(text: bytes) -> bytes:
    return fastjcs.canonicalize(text, max_depth=MAX_DEPTH)


def dumps(value: Any) -> bytes:
    return fastjcs.dumps(value, max_depth=MAX_DEPTH)


@dataclass(frozen=True)
class Shape:
    description: str
    text: Callable[[int], bytes]
    value: Callable[[int], Any] | None = None
    # time(4n)/time(n) allowed: 4 for linear work. Sorting is n log n (4.5x), and a sort whose
    # working set outgrows the caches measured up to 8x here: still far from a quadratic 16x.
    bound: float = 6.0
    # The C core reads text 10-100x faster: its text may be timed at a larger scale (and 4x it),
    # so that its times stay above the timer's noise. The sizes keep the C core's working set
    # (input, output, scratch) inside the 32 MB L3 cache at both scales: a working set that
    # leaves the cache between n and 4n can double the ratio on its own. Values are timed at 1
    # and 4 on both backends.
    native_scale: int = 1

    def scale(self, backend: str) -> int:
        """The scale at which `text` is timed on this backend ("native" or "python")."""
        return self.native_scale if backend == "native" else 1


def nested_disorder_text(depth: int, size: int) -> bytes:
    """{"b":{"b":...{"b":"xxx...","a":0}...,"a":0},"a":0}: every object out of order."""
    return ('{"b":' * depth + '"' + "x" * size + '"' + ',"a":0}' * depth).encode()


def nested_disorder_value(depth: int, size: int) -> Any:
    v: Any = "x" * size
    for _ in range(depth):
        v = {"b": v, "a": 0}
    return v


def _in_arrays_text(k: int) -> bytes:
    d = 500 * k
    return ('{"b":[' * d + '"' + "y" * (250_000 * k) + '"' + '],"a":0}' * d).encode()


def _many_members(k: int) -> dict[str, int]:
    n = 20_000 * k
    return {f"k{n - i:08d}": i for i in range(n)}


def _long_prefixes(k: int) -> dict[str, int]:
    n = 1_000 * k
    prefix = "p" * 2_000
    return {f"{prefix}{n - i:06d}": i for i in range(n)}


def _records(k: int) -> list:
    return [{"b": i, "a": {"d": [i, "x"], "c": None}} for i in range(20_000 * k)]


SHAPES: dict[str, Shape] = {
    "nested-disorder": Shape(
        "objects 1000 * k deep, each out of order, around a 1 MB * k string",
        lambda k: nested_disorder_text(1_000 * k, 1_000_000 * k),
        lambda k: nested_disorder_value(450 * k, 1_000_000 * k),
    ),
    "disorder-through-arrays": Shape(
        "objects out of order 500 * k deep, each member value an array, around 250 kB * k", _in_arrays_text
    ),
    "many-members": Shape(
        "one object of 20k * k members in reverse order",
        lambda k: json.dumps(_many_members(k)).encode(),
        _many_members,
        bound=10.0,
    ),
    "long-prefixes": Shape(
        "1000 * k members in reverse order whose names share a 2 kB prefix",
        lambda k: json.dumps(_long_prefixes(k)).encode(),
        _long_prefixes,
        bound=10.0,
    ),
    "records": Shape(
        "an array of 20k * k small records, members out of order",
        lambda k: json.dumps(_records(k)).encode(),
        _records,
        native_scale=2,
    ),
}
