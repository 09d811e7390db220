"""The `console` examples of README.md and of the documentation (docs/) run as written, on both
backends; and the README's two commands are the ones that work and that CI runs.

Each block is a shell session: a line `$ command` runs in bash (in one scratch directory per
block, `fastjcs` being this test run's `python -m fastjcs`), and the lines after it, up to the next
`$ ` line, are its expected output; an expected line ending in `...` matches any line that starts
with the rest (the two backends word some messages differently, with the same position).
`text` blocks (timings, paths of one machine) are not run. A command's output ends with a newline, as
the page shows the next prompt on a line of its own.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest
from _cli import REPO, env

README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
_SH = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)


def sessions():
    for page in PAGES:
        name = page.relative_to(REPO).as_posix()
        for n, block in enumerate(_BLOCK.findall(page.read_text("utf-8"))):
            steps = []
            for line in block.splitlines():
                if line.startswith("$ "):
                    steps.append((line[2:], []))
                else:
                    steps[-1][1].append(line)
            yield pytest.param(steps, id=f"{name}-block{n}")


def test_the_pages_have_examples():
    ids = [p.id for p in sessions()]
    assert sum(i.startswith("README.md-") for i in ids) >= 1
    assert sum(i.startswith("docs/cli.md-") for i in ids) >= 7  # the CLI reference's sessions
    steps = sum(len(p.values[0]) for p in sessions() if not p.id.startswith("README.md-"))
    assert steps >= 14  # every console command of the README of before runs on some page


@pytest.mark.parametrize("steps", list(sessions()))
def test_console_block(tmp_path, steps, cli_backend):
    prelude = f'fastjcs() {{ {shlex.quote(sys.executable)} -m fastjcs "$@"; }}\n'
    for command, expected in steps:
        p = subprocess.run(
            ["bash", "-c", prelude + command],
            cwd=tmp_path,
            env=env(cli_backend),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=60,
        )
        # The page shows the next prompt on a line of its own: the output ends its last line (canon
        # writes no newline of its own, so its examples end with `; echo`).
        assert not p.stdout or p.stdout.endswith(b"\n"), f"$ {command}: output does not end with a newline"
        got = p.stdout.decode("utf-8").splitlines()
        assert len(got) == len(expected) and all(
            g.startswith(e[:-3]) if e.endswith("...") else g == e for g, e in zip(got, expected)
        ), f"$ {command}\n" + "\n".join(got)


def _two_commands(page):
    return _SH.findall(page.read_text("utf-8"))[0].splitlines()


def test_the_two_commands():
    run, tests = _two_commands(README)
    assert _two_commands(REPO / "docs" / "index.md") == [run, tests]
    # CI runs the README's test command exactly.
    assert tests == 'python3 -m pip install ".[test]" && python3 -m pytest'
    # (.ci/run reads it from README.md: tests/test_ci.py)
    assert "command=$(python .ci/readme_command.py)" in (REPO / ".ci" / "run").read_text("utf-8")
    # The first command, past its install step, runs from the checkout: the sample's canonical
    # form (no newline of its own; `echo` ends the line), then its digest.
    install = "python3 -m pip install . && "
    assert run.startswith(install)
    command = run[len(install) :].replace("python3 ", shlex.quote(sys.executable) + " ")
    p = subprocess.run(["bash", "-c", command], cwd=REPO, env=env(), capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stderr == b""
    canon, digest = p.stdout.decode("utf-8").splitlines()
    assert canon.startswith('{"customer":{"email":"zoe@example.com","name":"Zo\u00eb M\u00fcller"},')
    assert canon.endswith('"\U0001f602":"astral key","\ufb33":"BMP key above U+E000"}')  # UTF-16
    assert re.fullmatch("sha256:[0-9a-f]{64}  examples/order.json", digest)  # a FILE is named (issue 36.5)
