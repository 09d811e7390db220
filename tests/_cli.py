"""Run the command line: in this process through `fastjcs.cli.main(argv)`, or as a user does,
`python -m fastjcs ...` in a child process.

`fastjcs(*args, input=..., cwd=..., extra_env=...)` returns a `subprocess.CompletedProcess` either
way (returncode, stdout and stderr as bytes), so a test reads the same whatever ran it.

In this process (the default): stdin is `input`, stdout and stderr are captured as bytes (text
written through `sys.stdout` and bytes through `sys.stdout.buffer` land in order), the exit status
is what `main` returns (or a SystemExit's code), `extra_env` is applied to `os.environ` for the call
and `cwd` is the working directory for the call; `FASTJCS_BACKEND` in `extra_env` installs that
backend for the call (what the child's import would choose, `backends._load`). Everything the call
may change is put back afterwards: the standard streams, the environment, the working directory,
the backend, the warnings filters and the signal handlers. An exception the command line lets
escape propagates (a child would print a traceback and exit 1: either way the test fails). A call
that outlives `timeout` ends the test run with every thread's traceback (faulthandler).

In a child process (`process=True`, or automatically where the environment asks for what only an
interpreter's start reads, `FASTJCS_DIRECT`, `PYTHON*`, and where the command may fork workers,
`--jobs` other than 1: fork() in a test process that runs threads can deadlock the child, and
3.12 warns of it; or for every call with FASTJCS_TEST_CLI=process, the way to compare the two): for
the tests that need a real process:
signals, broken pipes, closed stdio, /dev/stdin, the interpreter's exit codes, CPU time of children,
the environment read at import. The child gets this process's environment (PYTHONPATH made
absolute, FASTJCS_BACKEND as it is), so the tests run against the source tree (PYTHONPATH=src) or
an installed package alike, on the backend the run chose.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from conftest import REPO  # noqa: F401 - tests/test_readme_cli.py imports it from here

#: Variables read only when an interpreter starts or fastjcs is first imported: a call that sets
#: one runs in a child process (FASTJCS_BACKEND is read at import too, but a call can install the
#: backend it names; see `_backend`).
_AT_START = ("FASTJCS_DIRECT", "PYTHON")

#: The signals whose handlers a command may change (its stop signals, and SIGPIPE).
_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE") if hasattr(signal, n))


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    e = dict(os.environ)
    if e.get("PYTHONPATH"):
        e["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in e["PYTHONPATH"].split(os.pathsep) if p)
    e.update(extra or {})
    return e


def fastjcs(
    *args: str | Path,
    input: bytes = b"",
    cwd: Path | str | None = None,
    extra_env: dict[str, str] | None = None,
    timeout: float = 120,
    stderr: Any = subprocess.PIPE,
    process: bool = False,
) -> subprocess.CompletedProcess:
    """`fastjcs ARGS...`: in this process, or in a child with `process=True` (see the module)."""
    argv = [str(a) for a in args]
    extra = dict(extra_env or {})
    if (
        process
        or stderr is not subprocess.PIPE
        or any(k.startswith(_AT_START) for k in extra)
        or extra.get("FASTJCS_BACKEND", "python").strip().lower() not in ("", "python", "native")  # refused at import
        or _forks(argv)
        or os.environ.get("FASTJCS_TEST_CLI") == "process"
    ):
        return subprocess.run(
            [sys.executable, "-m", "fastjcs", *argv],
            input=input,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=cwd,
            env=env(extra),
            timeout=timeout,
        )
    return _in_process(argv, input, cwd, extra, timeout)


def _forks(argv: list[str]) -> bool:
    """Whether the command may fork worker processes: --jobs N with N other than 1."""
    for i, arg in enumerate(argv):
        if (arg == "--jobs" and argv[i + 1 : i + 2] != ["1"]) or (arg.startswith("--jobs=") and arg != "--jobs=1"):
            return True
    return False


def _in_process(
    argv: list[str], data: bytes, cwd: Path | str | None, extra: dict[str, str], timeout: float
) -> subprocess.CompletedProcess:
    from fastjcs.cli import main
    from fastjcs.cli import streams as _cli_streams  # noqa: F401 - registers stderr's "fastjcs.escape"

    out, err = io.BytesIO(), io.BytesIO()
    # as the command line's own streams are in a child (cli/streams.py, _standard_streams): UTF-8,
    # strict on stdout, on stderr a byte of a name that is not UTF-8 written \xff ("fastjcs.escape");
    # write_through keeps text and bytes in their order
    streams = (
        io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", errors="fastjcs.escape", line_buffering=True, write_through=True),
    )
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_handlers = {s: signal.getsignal(s) for s in _SIGNALS}
    saved_cwd = os.getcwd()
    with _environment(extra), _backend(extra.get("FASTJCS_BACKEND")), warnings.catch_warnings():
        _watchdog(timeout)
        try:
            if cwd is not None:
                os.chdir(cwd)
            sys.stdin, sys.stdout, sys.stderr = streams
            try:
                status = main(argv)
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            for stream in streams[1:]:
                stream.flush()
            stdout, stderr = out.getvalue(), err.getvalue()
        finally:
            faulthandler.cancel_dump_traceback_later()
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            os.chdir(saved_cwd)
            for signum, handler in saved_handlers.items():
                if handler is not None:
                    signal.signal(signum, handler)
    return subprocess.CompletedProcess([sys.executable, "-m", "fastjcs", *argv], status, stdout, stderr)


def _watchdog(timeout: float) -> None:
    """After `timeout` seconds, every thread's traceback on the process's stderr (file descriptor
    2, whatever pytest's capture put in sys.stderr) and the end of the run; none without one."""
    stream = sys.__stderr__
    try:
        stream.fileno()
    except (AttributeError, ValueError, OSError):  # (io.UnsupportedOperation is an OSError)
        return
    faulthandler.dump_traceback_later(timeout, exit=True, file=stream)


@contextlib.contextmanager
def _environment(extra: dict[str, str]) -> Iterator[None]:
    """os.environ with `extra` applied, and as it was afterwards. COLUMNS is set to 80 where it is
    unset: a child's stdout is a pipe, so argparse wraps its help at 80 columns; in this process
    the terminal pytest runs on would decide."""
    saved = dict(os.environ)
    try:
        os.environ.setdefault("COLUMNS", "80")
        os.environ.update(extra)
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _backend(choice: str | None) -> Iterator[None]:
    """The backend a child started with FASTJCS_BACKEND=choice would run on, for the call (the
    same swap as conftest's `backend` fixture); nothing when choice is None."""
    if choice is None:
        yield
        return
    from fastjcs.core import backends

    saved = backends.impl(), backends.why()
    backends.use(*backends._load(choice.strip().lower()))
    try:
        yield
    finally:
        backends.use(*saved)


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
