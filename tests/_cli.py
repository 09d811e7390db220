"""Run the command line as a user does: `python -m fastjcs ...` in a child process.

The child gets this process's environment (PYTHONPATH made absolute, FASTJCS_BACKEND as it is), so
the tests run against the source tree (PYTHONPATH=src) or an installed package alike, on the
backend the run chose.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conftest import REPO  # noqa: F401 - tests/test_readme_cli.py imports it from here


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    e = dict(os.environ)
    if e.get("PYTHONPATH"):
        e["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in e["PYTHONPATH"].split(os.pathsep) if p)
    e.update(extra or {})
    return e


def fastjcs(
    *args: str | Path,
    input: bytes = b"",
    cwd: Path | None = None,
    extra_env: dict[str, str] | None = None,
    timeout: float = 120,
    stderr=subprocess.PIPE,
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fastjcs", *map(str, args)],
        input=input,
        stdout=subprocess.PIPE,
        stderr=stderr,
        cwd=cwd,
        env=env(extra_env),
        timeout=timeout,
    )


def me(*args: str) -> str:
    """A shell command that runs this fastjcs (for --impl): the interpreter of this test run."""
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


def run_together(argvs: Sequence[Sequence[str]], go: Path, timeout: float = 60) -> list[Any]:
    """Start `python ARGV...` once per argv, the children waiting for the file `go`; create it
    once they have had time to start, so they begin together; return what each printed, read as
    JSON, in order. Each must exit 0 with nothing on stderr."""
    procs = [
        subprocess.Popen([sys.executable, *map(str, argv)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
        for argv in argvs
    ]
    time.sleep(0.3)  # let the interpreters start, so they begin together
    go.touch()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0 and err == b"", err.decode()
        results.append(json.loads(out))
    return results
