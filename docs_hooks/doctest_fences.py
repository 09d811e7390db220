"""Docstring examples as code on the API reference: a Griffe extension (mkdocs.yml, the python
handler's `extensions:`) that fences every doctest block of a docstring before mkdocstrings renders
it as Markdown.

A doctest block is a run of lines whose first starts with `>>> `, up to the next blank line (the
same end as the doctest module's): the `>>>` and `...` lines are the input, the others its
expected output. Unfenced, Markdown reads each `>>>` as three nested blockquotes and runs input and
output into one paragraph; fenced as `python` (as the guide pages fence their sessions), it
shows as code, prompts and all. Blocks already inside a fence are left as they are.
`fence_examples(text)` does the work.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_PROMPT = re.compile(r"^([ \t]*)>>>(?: |$)")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


def fence_examples(text: str) -> str:
    """The docstring text with each doctest block wrapped in a ```python fence (its indentation kept)."""
    out: list[str] = []
    lines = text.split("\n")
    fenced = None  # the fence marker of the fenced block we are in, if any
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence and (fenced is None or fence.group(1) == fenced):
            fenced = fence.group(1) if fenced is None else None
        prompt = None if fenced else _PROMPT.match(line)
        if prompt is None:
            out.append(line)
            i += 1
            continue
        indent = prompt.group(1)
        if out and out[-1].strip():
            out.append("")  # a fence must not continue a paragraph
        out.append(f"{indent}```python")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctest blocks of every docstring Griffe loads."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_examples(obj.docstring.value)
