"""The examples of docs/README-digests-eab.md run, on both backends.

The fragment is to be folded into README.md; when it is, point DOC at README.md.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import fastjcs

DOC = Path(__file__).resolve().parents[1] / "docs" / "README-digests-eab.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_readme_examples(backend):
    blocks = _BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {"fastjcs": fastjcs},
                                               DOC.name, str(DOC), 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 20
    assert result.failed == 0
