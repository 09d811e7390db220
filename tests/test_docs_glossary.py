"""Every term of the glossary (docs/glossary.md) is linked to it where a page first uses it in
prose (outside code, headings and the text of other links).

Left out: the glossary itself, docs/interop-matrix.md (written by `fastjcs interop`) and
docs/cli.md (the command line's reference, kept by the CLI's own change; its terms link from the
pages it points to).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
GLOSSARY = DOCS / "glossary.md"
#: The terms checked, and their anchors on the glossary page.
TERMS = {
    "cMCP": "cmcp",
    "EAB": "eab",
    "CPB": "cpb",
    "jcs-n": "jcs-n",
    "preimage": "preimage",
    "JCS": "jcs",
    "I-JSON": "i-json",
    "backend": "backend",
    "mutation probes": "mutation-probes",
    "Schubfach": "schubfach",
    "batch protocol": "batch-protocol",
    "exclusion set": "exclusion-set",
}
LEFT_OUT = {"glossary.md", "interop-matrix.md", "cli.md"}
_SEGMENT = re.compile(r"(`[^`]*`|!?\[[^\]]*\]\([^)]*\)|<[^>]+>|https?://\S+)")


def first_use(markdown: str, term: str, anchor: str) -> str | None:
    """ "link" when the first prose use of `term` is a link to its glossary entry, "plain" when
    it is not, None when the page does not use it in prose."""
    plain = re.compile(rf"(?<![\w/.-]){re.escape(term)}(?![\w-])")
    link = re.compile(rf"\[{re.escape(term)}\]\((?:\.\./)*glossary\.md#{re.escape(anchor)}\)")
    fence = False
    for line in markdown.split("\n"):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence or line.startswith("#") or line.startswith("    "):
            continue
        for k, part in enumerate(_SEGMENT.split(line)):
            if k % 2 == 0 and plain.search(part):
                return "plain"
            if k % 2 == 1 and link.fullmatch(part):
                return "link"
    return None


PAGES = [p for p in sorted(DOCS.rglob("*.md")) if p.name not in LEFT_OUT]


def test_the_glossary_has_every_term():
    headings = re.findall(r"^## (.+)$", GLOSSARY.read_text("utf-8"), re.M)
    for term in TERMS:
        assert term in headings
    assert headings == sorted(headings, key=str.lower)  # in alphabetical order, as the page says


def test_the_glossary_expands_cmcp():
    entry = GLOSSARY.read_text("utf-8").split("## cMCP\n", 1)[1].split("\n## ", 1)[0]
    assert "Confidential MCP Runtime" in entry and "Model Context Protocol" in entry


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_first_use_links_the_glossary(page):
    text = page.read_text("utf-8")
    assert [t for t, a in TERMS.items() if first_use(text, t, a) == "plain"] == []


def test_the_check_catches_an_unlinked_first_use():
    assert first_use("CPB is here; [CPB](glossary.md#cpb) later.\n", "CPB", "cpb") == "plain"
    assert first_use("[CPB](glossary.md#cpb) first; CPB after.\n", "CPB", "cpb") == "link"
    assert first_use("`CPB` in code, JCS-correct, EAB-size.\n", "CPB", "cpb") is None
    assert first_use("```\nCPB\n```\n", "CPB", "cpb") is None
    assert first_use("[Canonical Payload Binding (CPB)](cpb.md)\n", "CPB", "cpb") is None
