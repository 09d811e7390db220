"""What .ci/run reads from the project's own files, so that the two cannot drift apart.

    python .ci/readme_command.py                      the README's test command, as written there
    python .ci/readme_command.py --venv               the folder that command makes a virtual
                                                      environment in (`python3 -m venv DIR`), or nothing
    python .ci/readme_command.py --lint-requirements  the pins of pyproject.toml's lint extra and the
                                                      project's run-time dependencies (the gates' tools)
    python .ci/readme_command.py --extra NAME         the requirements of pyproject.toml's extra NAME
                                                      (without the project, which pip would build)

The test command is the second command of README.md's first `sh` block (the first runs the
sample; a line ending in `&&` goes on in the next). Runs on Python 3.9 (no tomllib): pyproject.toml
is read with patterns.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commands(block: str) -> list[str]:
    """A shell block's commands: a line ending in `&&` (or `\\`) continues on the next, as bash reads it."""
    out: list[str] = []
    pending = ""
    for line in block.splitlines():
        line = pending + (line.strip() if pending else line.strip())
        if line.endswith("&&"):
            pending = line + " "
        elif line.endswith("\\"):
            pending = line[:-1]
        else:
            out.append(line)
            pending = ""
    return out


def test_command(readme: str) -> str:
    blocks = re.findall(r"^```sh\n(.*?)^```", readme, re.S | re.M)
    if not blocks or len(commands(blocks[0])) < 2:
        raise SystemExit("README.md: no test command (the second command of the first sh block)")
    return commands(blocks[0])[1]


def venv_of(command: str) -> str:
    """DIR of a `python3 -m venv DIR` step in the command ("" when it makes none)."""
    for part in re.split(r"&&|;", command):
        words = shlex.split(part)
        if len(words) >= 4 and words[1:3] == ["-m", "venv"] and words[0].startswith("python"):
            return [w for w in words[3:] if not w.startswith("-")][0]
    return ""


def extra(pyproject: str, name: str) -> list[str]:
    (body,) = re.findall(rf"^{re.escape(name)} = \[(.*?)\][ \t]*(?:#[^\n]*)?$", pyproject, re.M | re.S)
    return re.findall(r'"([^"]+)"', body)


def lint_requirements(pyproject: str) -> list[str]:
    return extra(pyproject, "lint") + extra(pyproject, "dependencies")


def main(argv: list[str]) -> int:
    command = test_command((ROOT / "README.md").read_text("utf-8"))
    if argv == ["--venv"]:
        print(venv_of(command))
    elif argv == ["--lint-requirements"]:
        print(" ".join(lint_requirements((ROOT / "pyproject.toml").read_text("utf-8"))))
    elif len(argv) == 2 and argv[0] == "--extra":
        print(" ".join(extra((ROOT / "pyproject.toml").read_text("utf-8"), argv[1])))
    elif not argv:
        print(command)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
