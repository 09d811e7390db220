"""atheris harness: fastjcs.dumps on values built from the fuzz input, on both backends.

The check is fuzzlib.check_dumps (see its docstring); an AssertionError, or any exception that is
not a CanonicalizationError, is a finding. The pure-Python backend is instrumented for coverage
feedback; the C side is instrumented in the libFuzzer harnesses (fuzz_*.c).

    PYTHONPATH=<dir with a built fastjcs> python fuzz/atheris_dumps.py [libFuzzer options] [corpus dirs]

.ci/fuzz.sh runs it on fuzz/corpus/atheris_dumps for a bounded time.
"""

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

with atheris.instrument_imports():
    import fastjcs._native  # noqa: F401 - fail now, not in the first input, if C is missing
    import fastjcs._python  # noqa: F401
    import fuzzlib


def test_one_input(data: bytes) -> None:
    fuzzlib.check_dumps(data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
