"""The options as a user types them (issue 36, item 11): a typo gets the option meant, `--version`
stands alone, and `canon` on a terminal (the progress bar without tqdm: test_cli_digest.py).

Where a terminal is needed, the child gets one end of a pseudo-terminal (pty) as stdout or
stderr, so `isatty()` is true as it is for a user; `fastjcs(...)` holds pipes, so those runs
start the child themselves, the same way.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest
from _cli import env, fastjcs, one_line_error


@pytest.mark.parametrize(
    "argv, meant",
    [
        (["digest", "--algoritm", "sha384"], "--algorithm"),
        (["digest", "--algoritm=sha384"], "--algorithm"),
        (["digest", "--jsnl"], "--jsonl"),
        (["canon", "--strict-intgers"], "--strict-integers"),
        (["--verison"], "--version"),
    ],
)
def test_a_typo_of_an_option_gets_the_option_meant(argv, meant):
    p = fastjcs(*argv)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "unrecognized arguments", f"did you mean '{meant}'?")


def test_an_option_like_none_gets_no_guess():
    p = fastjcs("digest", "--zzz")
    assert p.returncode == 2
    assert "did you mean" not in one_line_error(p, "unrecognized arguments: --zzz")


@pytest.mark.parametrize("argv", [["--version", "canon"], ["--version", "--verbose", "digest", "x.json"]])
def test_version_with_a_command_is_refused(argv):
    p = fastjcs(*argv)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "--version takes no COMMAND", f"'{argv[-1] if argv[-1] != 'x.json' else 'digest'}' given")


def _on_a_terminal(argv, stream, cwd, extra_env=None, input=b""):
    """Run `fastjcs ARGV` with `stream` ("stdout" or "stderr") on a pty; return (exit status,
    what the terminal got, what the other stream got)."""
    master, slave = pty.openpty()
    other = subprocess.PIPE
    kwargs = {"stdout": slave, "stderr": other} if stream == "stdout" else {"stdout": other, "stderr": slave}
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastjcs", *map(str, argv)],
        stdin=subprocess.PIPE,
        cwd=cwd,
        env=env(extra_env),
        **kwargs,
    )
    os.close(slave)
    piped = proc.communicate(input, timeout=120)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child's side is closed and everything was read
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    return proc.returncode, got, piped[0] if stream == "stderr" else piped[1]


def test_canon_on_a_terminal_ends_its_line(tmp_path, cli_backend):
    (tmp_path / "a.json").write_bytes(b'{"b": 2, "a": 1}')
    status, shown, err = _on_a_terminal(["canon", "a.json"], "stdout", tmp_path, cli_backend)
    assert (status, err) == (0, b"")
    assert shown == b'{"a":1,"b":2}\r\n'  # the terminal's line discipline writes the newline as CR LF
    p = fastjcs("canon", "a.json", cwd=tmp_path, extra_env=cli_backend)  # a pipe: the exact bytes
    assert p.stdout == b'{"a":1,"b":2}'
    status, shown, _ = _on_a_terminal(["canon", "a.json", "-o", "out.json"], "stdout", tmp_path)
    assert (status, shown) == (0, b"") and (tmp_path / "out.json").read_bytes() == b'{"a":1,"b":2}'
