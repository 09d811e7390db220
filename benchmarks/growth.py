"""Print how the time of each core function grows with its input: the growth-ratio table.

    python benchmarks/growth.py [--backend native|python ...] [--shape NAME ...]

For each shape of tests/shapes.py (inputs at scale 1 and 4) and each backend, the best time of
`canonicalize` on the text and of `dumps` on the value, and the ratio time(4n)/time(n): about 4
for linear work, 4.5 for n log n, 16 for quadratic. tests/core/test_complexity.py asserts the same
ratios (under 6, or the shape's own bound); this prints them, for the README and for a reviewer.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

from _growth import growth  # noqa: E402
from shapes import SHAPES, canonicalize, dumps  # noqa: E402

from fastjcs.core import backends  # noqa: E402


def backend_modules(names):
    for name in names:
        if name == "python":
            from fastjcs.core import python_backend as module
        else:
            from fastjcs.core import native_backend as module
        yield name, module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append", choices=["native", "python"])
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES))
    args = parser.parse_args()
    print(f"{'shape':24} {'backend':7} {'call':13} {'n':>10} {'4n':>10} {'ratio':>6} {'bound':>6}")
    for shape_name in args.shape or sorted(SHAPES):
        shape = SHAPES[shape_name]
        calls = [("canonicalize", canonicalize, shape.text, True)]
        if shape.value is not None:
            calls.append(("dumps", dumps, shape.value, False))
        for backend_name, module in backend_modules(args.backend or ["native", "python"]):
            backends.use(module)
            for call_name, fn, build, scaled in calls:
                k = shape.scale(backend_name) if scaled else 1
                t1, t4, ratio = growth(fn, build(k), build(4 * k), attempts=1, bound=shape.bound)
                print(
                    f"{shape_name:24} {backend_name:7} {call_name:13} {t1 * 1e3:8.1f}ms "
                    f"{t4 * 1e3:8.1f}ms {ratio:6.2f} {shape.bound:6.1f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
