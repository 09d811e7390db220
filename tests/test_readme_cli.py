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


#: The step each README command starts with: a virtual environment, made and activated (a stock
#: Debian or Ubuntu Python refuses `pip install` outside one: PEP 668, "externally-managed-environment").
VENV_STEP = "python3 -m venv .venv && . .venv/bin/activate && "


def logical_lines(text: str) -> list[str]:
    """A shell text's commands, a line ending in `&&` (or `\\`) joined with the next, as bash reads them."""
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        line = pending + (line.strip() if pending else line)
        if line.endswith("&&"):
            pending = line + " "
        elif line.endswith("\\"):
            pending = line[:-1]
        else:
            out.append(line)
            pending = ""
    return out


def _two_commands(page):
    return logical_lines(_SH.findall(page.read_text("utf-8"))[0])


def test_logical_lines():
    assert logical_lines("a &&\n    b && c &&\n  d\ne \\\n  f\ng\n") == ["a && b && c && d", "e f", "g"]


def test_the_two_commands_start_with_a_virtual_environment():
    run, tests = _two_commands(README)
    assert _two_commands(REPO / "docs" / "index.md") == [run, tests]
    assert run.startswith(VENV_STEP + "python3 -m pip install . && ")
    assert tests == VENV_STEP + 'python3 -m pip install ".[test]" && python3 -m pytest'


def test_ci_runs_the_readme_test_command_and_the_readme_says_what_it_adds():
    """.ci/run runs the README's test command: as written, or past its venv step where .ci/run has
    made and activated a virtual environment of its own (the later steps of CI run in it); and every
    setting .ci/run exports before it is named where the README describes the command."""
    _run, tests = _two_commands(README)
    ci = (REPO / ".ci" / "run").read_text("utf-8")
    lines = logical_lines(ci)
    # .ci/run reads the command from README.md (.ci/readme_command.py) and runs it as written
    read = subprocess.run([sys.executable, str(REPO / ".ci" / "readme_command.py")], capture_output=True, text=True)
    assert read.returncode == 0 and read.stdout.strip() == tests, read
    at = next(i for i, line in enumerate(lines) if "command=$(python .ci/readme_command.py)" in line)
    assert any('bash -c "$command"' in line for line in lines[at:])
    exported = {
        name
        for line in lines[:at]
        if line.lstrip().startswith("export ")
        for name in re.findall(r"\b([A-Z][A-Z0-9_]*)=", line.split("#")[0])
        if not name.startswith("FASTJCS_CI_")  # (the run's own bookkeeping, not a test setting)
    }
    exported |= {"FASTJCS_TEST_POSTGRES_URL"} if "postgres.sh start" in "\n".join(lines[:at]) else set()
    assert exported >= {"FASTJCS_SLOW", "FASTJCS_REQUIRE_NATIVE"}  # what the scan must find today
    for page in (README, REPO / "docs" / "index.md"):
        # the prose after the commands' block
        said = page.read_text("utf-8").split("```sh\n", 1)[1].split("```", 2)[1].split("\n## ")[0]
        assert [name for name in sorted(exported) if f"`{name}" not in said] == [], page.name


def test_the_first_command_runs_from_the_checkout():
    run, _tests = _two_commands(README)
    # The first command, past its venv and install steps, runs from the checkout: the sample's
    # canonical form (no newline of its own; `echo` ends the line), then its digest.
    install = VENV_STEP + "python3 -m pip install . && "
    command = run[len(install) :].replace("python3 ", shlex.quote(sys.executable) + " ")
    p = subprocess.run(["bash", "-c", command], cwd=REPO, env=env(), capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stderr == b""
    canon, digest = p.stdout.decode("utf-8").splitlines()
    assert canon.startswith('{"customer":{"email":"zoe@example.com","name":"Zo\u00eb M\u00fcller"},')
    assert canon.endswith('"\U0001f602":"astral key","\ufb33":"BMP key above U+E000"}')  # UTF-16
    assert re.fullmatch("sha256:[0-9a-f]{64}  examples/order.json", digest)  # a FILE is named (issue 36.5)


def _unmanaged_python3() -> tuple[str, bool]:
    """A python3 outside any virtual environment, as a new user's shell finds one, and whether it
    is externally managed (PEP 668: its stdlib holds EXTERNALLY-MANAGED, as Debian's and Ubuntu's
    do, so `pip install` outside a venv is refused). An externally managed one is preferred."""
    import os
    import shutil

    found = []
    for candidate in (shutil.which("python3", path="/usr/bin:/bin"), getattr(sys, "_base_executable", None)):
        if not candidate or candidate in (c for c, _ in found):
            continue
        probe = subprocess.run(
            [
                candidate,
                "-c",
                "import os, sys, sysconfig; print(sys.prefix == sys.base_prefix,"
                " os.path.exists(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))",
            ],
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")},
        )
        if probe.returncode == 0 and probe.stdout.split()[0] == "True":
            found.append((candidate, probe.stdout.split()[1] == "True"))
    found.sort(key=lambda f: not f[1])
    if not found:
        pytest.skip("no python3 outside a virtual environment here")
    return found[0]


@pytest.mark.slow
def test_the_first_command_as_written_on_a_python_without_a_venv(tmp_path):
    """The README's first command, verbatim, in a copy of the checkout, from a shell whose python3
    is the machine's own (externally managed where the machine is Debian-like): no venv active, no
    setting of this test run. It must make its environment, install, and print the canonical form
    and the digest of the sample (what the checkout's fastjcs prints)."""
    import os
    import shutil

    python3, managed = _unmanaged_python3()
    run, _tests = _two_commands(README)
    tree = tmp_path / "fastjcs"
    shutil.copytree(
        REPO,
        tree,
        ignore=shutil.ignore_patterns(
            ".git", ".venv*", "build", "dist", "site", "*.egg-info", "__pycache__", ".hypothesis", "*.so"
        ),
    )
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "python3").symlink_to(python3)
    keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy")
    child = {k: v for k, v in os.environ.items() if k in keep or k.startswith("PIP_")}
    child["PATH"] = f"{bin_}:/usr/bin:/bin"
    p = subprocess.run(["bash", "-c", run], cwd=tree, env=child, capture_output=True, timeout=1200)
    assert p.returncode == 0, (managed, p.stderr.decode("utf-8", "replace")[-3000:])
    canon, digest = p.stdout.decode("utf-8").splitlines()[-2:]
    want = subprocess.run(
        ["bash", "-c", run[run.index("python3 -m fastjcs") :].replace("python3 ", shlex.quote(sys.executable) + " ")],
        cwd=REPO,
        env=env(),
        capture_output=True,
    )
    assert [canon, digest] == want.stdout.decode("utf-8").splitlines()
    assert (tree / ".venv" / "bin" / "fastjcs").exists()  # installed into the venv it made
