"""No input shape makes the core quadratic: time at n and 4n, on both backends.

Each test builds one shape at two sizes, 4x apart, and checks the growth ratio of the time
(tests/_growth.py), never an absolute time. The shapes are those that hurt a canonicalizer that
moves bytes or compares names naively: objects nested deep whose members are out of order (each
closing object moving its whole subtree), many members, long shared name prefixes, deep arrays.
`benchmarks/growth.py` prints the same measurements as a table.
"""

from __future__ import annotations

import pytest

from _growth import assert_linear, timed
from shapes import SHAPES, canonicalize, dumps

pytestmark = timed


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_canonicalize_grows_linearly(backend, name):
    shape = SHAPES[name]
    k = shape.scale(backend.__name__.rsplit("_", 1)[-1])
    small, large = shape.text(k), shape.text(4 * k)
    assert_linear(canonicalize, small, large, bound=shape.bound,
                  what=f"canonicalize {name} ({backend.__name__})")


@pytest.mark.parametrize("name", sorted(n for n, s in SHAPES.items() if s.value is not None))
def test_dumps_grows_linearly(backend, name):
    shape = SHAPES[name]
    small, large = shape.value(1), shape.value(4)
    assert_linear(dumps, small, large, bound=shape.bound,
                  what=f"dumps {name} ({backend.__name__})")
