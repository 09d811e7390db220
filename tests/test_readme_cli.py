"""The `console` examples of README.md run as written.

Each block is a shell session: a line `$ command` runs in bash (in one scratch directory per
block, `fastjcs` being this test run's `python -m fastjcs`), and the lines after it, up to the next
`$ ` line, are its expected output; an expected line ending in `...` matches any line that starts
with the rest (the two backends word some messages differently, with the same position).
`text` blocks (timings, paths of one machine) are not run.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from _cli import REPO, env

DOC = REPO / "README.md"
_BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def sessions():
    for n, block in enumerate(_BLOCK.findall(DOC.read_text("utf-8"))):
        steps = []
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        yield pytest.param(steps, id=f"block{n}")


def test_the_document_has_examples():
    assert len(list(sessions())) >= 6


@pytest.mark.parametrize("steps", list(sessions()))
def test_console_block(tmp_path, steps):
    prelude = f'fastjcs() {{ {shlex.quote(sys.executable)} -m fastjcs "$@"; }}\n'
    for command, expected in steps:
        p = subprocess.run(["bash", "-c", prelude + command], cwd=tmp_path, env=env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        got = p.stdout.decode("utf-8").splitlines()
        assert len(got) == len(expected) and all(
            g.startswith(e[:-3]) if e.endswith("...") else g == e for g, e in zip(got, expected)), \
            f"$ {command}\n" + "\n".join(got)
