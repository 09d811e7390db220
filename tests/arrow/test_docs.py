"""The `py` examples of docs/arrow.md run as written, on both backends, where the packages they
import are installed (pyarrow for all of them; Polars, DuckDB for their own). They are `py` blocks,
not `python` ones, because tests/test_readme.py runs those everywhere, optional packages or not.
Each block runs after the page's first block (which imports pyarrow and fastjcs)."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

PAGE = REPO / "docs" / "arrow.md"
BLOCKS = re.findall(r"^```py\n(.*?)^```", PAGE.read_text("utf-8"), re.S | re.M)
_IMPORT = re.compile(r"^(?:import|from) (\w+)", re.M)


def test_the_page_has_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("n", range(len(BLOCKS)))
def test_example(backend, n):
    for module in sorted({m for b in (BLOCKS[0], BLOCKS[n]) for m in _IMPORT.findall(b)} - {"fastjcs"}):
        pytest.importorskip(module, reason=f"the example needs {module}, which is not installed")
    namespace: dict = {}
    exec(compile(BLOCKS[0], f"{PAGE}:py-block-0", "exec"), namespace)
    if n:
        exec(compile(BLOCKS[n], f"{PAGE}:py-block-{n}", "exec"), namespace)
