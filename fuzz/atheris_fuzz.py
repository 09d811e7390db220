"""atheris harnesses: the C and pure-Python backends held to each other on fuzz input.

    PYTHONPATH=<dir with a built fastjcs> python fuzz/atheris_fuzz.py text|dumps [libFuzzer options] [corpus dirs]

`text` runs fuzzlib.check_text (fastjcs.canonicalize on the raw bytes), `dumps` fuzzlib.check_dumps
(fastjcs.dumps on a value built from the bytes), `walker` fuzzlib.check_walker (the same, with
Python code running during the walk: a lying __class__, default= callbacks, a finalizer); see
their docstrings. An AssertionError, or any
exception that is not a CanonicalizationError, is a finding. The pure-Python backend is instrumented
for coverage feedback; the C side is instrumented in the libFuzzer harnesses (fuzz_*.c).
.ci/fuzz.sh runs each as the harness atheris_text / atheris_dumps / atheris_walker, on
fuzz/corpus/<harness>.
"""

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

with atheris.instrument_imports():
    import fuzzlib

    import fastjcs.core.native_backend  # noqa: F401 - fail now, not in the first input, if C is missing
    import fastjcs.core.python_backend  # noqa: F401

CHECKS = {"text": fuzzlib.check_text, "dumps": fuzzlib.check_dumps, "walker": fuzzlib.check_walker}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in CHECKS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(CHECKS)} [libFuzzer options] [corpus dirs]")
    check = CHECKS[sys.argv.pop(1)]
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()
