"""docs/index.md lists every command of the parser and every extra of pyproject.toml, no more and
no fewer: its "Commands" table against the subcommands argparse knows (walked from
`fastjcs.cli.build_parser()`), its extras table against `[project.optional-dependencies]`.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from fastjcs import cli

REPO = Path(__file__).resolve().parents[1]
INDEX = REPO / "docs" / "index.md"


def parser_commands() -> set[str]:
    """The subcommands of the `fastjcs` parser."""
    parser = cli.build_parser()
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found |= set(action.choices)
    return found


def pyproject_extras(text: str) -> set[str]:
    """The names under [project.optional-dependencies] (tomllib where there is one, else a
    reader of that one table: `name = [` at the start of a line, up to the next table)."""
    if sys.version_info >= (3, 11):
        import tomllib

        return set(tomllib.loads(text)["project"]["optional-dependencies"])
    table = re.search(r"^\[project\.optional-dependencies\]\n(.*?)(?=^\[)", text, re.S | re.M)
    assert table, "no [project.optional-dependencies] table"
    return set(re.findall(r"^([A-Za-z0-9_.-]+)\s*=", table.group(1), re.M))


def table_names(markdown: str, header: str) -> set[str]:
    """The first column (a `name` in backticks) of the table whose header row starts with `header`."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    names = set()
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        names.add(re.match(r"\|\s*`([^`]+)`", line).group(1))
    return names


def test_index_lists_every_command():
    listed = table_names(INDEX.read_text("utf-8"), "| command |")
    assert listed == parser_commands()


def test_index_lists_every_extra():
    text = (REPO / "pyproject.toml").read_text("utf-8")
    listed = table_names(INDEX.read_text("utf-8"), "| extra |")
    assert listed == pyproject_extras(text)


def test_the_fallback_reader_agrees_with_tomllib():
    # The reader for 3.9 and 3.10, on this pyproject (comments, inline lists, several lines).
    text = (REPO / "pyproject.toml").read_text("utf-8")
    table = re.search(r"^\[project\.optional-dependencies\]\n(.*?)(?=^\[)", text, re.S | re.M)
    names = set(re.findall(r"^([A-Za-z0-9_.-]+)\s*=", table.group(1), re.M))
    assert names >= {"test", "docs", "plot"}
    if sys.version_info >= (3, 11):
        assert names == pyproject_extras(text)


def test_a_missing_row_is_caught():
    # The check above, on index.md with one command row and one extra row taken out.
    text = INDEX.read_text("utf-8")
    text = re.sub(r"^\| `serve-canon` \|.*\n", "", text, flags=re.M)
    text = re.sub(r"^\| `dask` \|.*\n", "", text, flags=re.M)
    assert table_names(text, "| command |") == parser_commands() - {"serve-canon"}
    assert "dask" not in table_names(text, "| extra |")


def test_install_hints_install_from_a_checkout():
    # fastjcs is on no package index: `pip install 'fastjcs[plot]'` fails; '.[plot]' from a checkout works.
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    wrong = [
        f"{p.relative_to(REPO)}: {m.group(0)}"
        for p in pages
        for m in re.finditer(r"pip install\s+['\"]?fastjcs\b[^\s`]*", p.read_text("utf-8"))
    ]
    assert wrong == []
    assert "no public repository" in (REPO / "README.md").read_text("utf-8")
