"""The Python examples of README.md and of the documentation (docs/) run as written, on both backends.

Each page's ```python blocks are one doctest session: names carry from one block to the next within
a page, never from one page to another, so every page imports what it uses. The console examples
run in tests/test_readme_cli.py.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def examples(page: Path) -> str:
    """The page's Python blocks, as one doctest text."""
    return "\n".join(_BLOCK.findall(page.read_text(encoding="utf-8")))


def _name(page: Path) -> str:
    return page.relative_to(REPO).as_posix()


WITH_EXAMPLES = [p for p in PAGES if examples(p)]


def test_the_pages_have_examples():
    # Every example of the 1,000-line README of before (60) still runs on some page, and the front
    # door keeps a tour of its own.
    count = {_name(p): len(doctest.DocTestParser().get_examples(examples(p))) for p in PAGES}
    assert count["README.md"] >= 8
    assert sum(count.values()) - count["README.md"] >= 60, count
    for page in ("docs/python.md", "docs/errors.md", "docs/digests.md", "docs/eab.md", "docs/cpb.md"):
        assert count[page] >= 2, page


@pytest.mark.parametrize("page", WITH_EXAMPLES, ids=_name)
def test_page_examples(backend, page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that touches a file touches a scratch directory
    test = doctest.DocTestParser().get_doctest(examples(page), {}, _name(page), str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
