"""The Python examples of README.md run as written, on both backends.

Every ```python block is a doctest session; the README's console examples run in
tests/test_readme_cli.py.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import fastjcs

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_readme_examples(backend):
    blocks = _BLOCK.findall(README.read_text(encoding="utf-8"))
    assert len(blocks) >= 10
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {"fastjcs": fastjcs},
                                               README.name, str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 50
    assert result.failed == 0
