"""Run the command line as a user does: `python -m fastjcs ...` in a child process.

The child gets this process's environment (PYTHONPATH made absolute, FASTJCS_BACKEND as it is), so
the tests run against the source tree (PYTHONPATH=src) or an installed package alike, on the
backend the run chose.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional, Sequence, Union

from conftest import REPO  # noqa: F401 - tests/test_readme_cli.py imports it from here



def env(extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    e = dict(os.environ)
    if e.get("PYTHONPATH"):
        e["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in e["PYTHONPATH"].split(os.pathsep) if p)
    e.update(extra or {})
    return e


def fastjcs(*args: Union[str, Path], input: bytes = b"", cwd: Optional[Path] = None,
            extra_env: Optional[Dict[str, str]] = None, timeout: float = 120,
            stderr=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fastjcs", *map(str, args)], input=input,
                          stdout=subprocess.PIPE, stderr=stderr, cwd=cwd, env=env(extra_env),
                          timeout=timeout)


def me(*args: str) -> str:
    """A shell command that runs this fastjcs (for --impl): the interpreter of this test run."""
    import shlex

    return " ".join(shlex.quote(a) for a in (sys.executable, "-m", "fastjcs", *args))


def one_line_error(p: subprocess.CompletedProcess, *needles: str) -> str:
    """The stderr of a failed run: exactly one line, holding every needle."""
    text = p.stderr.decode("utf-8")
    assert text.endswith("\n") and text.count("\n") == 1, f"not one line: {text!r}"
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"
    return text


def lines(data: bytes) -> Sequence[str]:
    return data.decode("utf-8").splitlines()
