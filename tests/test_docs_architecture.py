"""docs/architecture.md names every package of src/fastjcs and every C file of csrc/, and the
diagrams of the documentation (```diagram blocks, drawn at build time by docs_hooks/diagrams.py)
render to well-formed SVG.

A package is a folder of src/fastjcs holding Python modules (`fastjcs.bulk`, and a package a split
would make, such as `fastjcs.lab.corpus`): the page names it as `fastjcs.<dotted path>`. A C file
is a .c or .h file under csrc/: the page names it by its path under csrc/ (`text.c`,
`cpython/direct.c`). A test plants a package and a C file in a copy of the tree and shows they are
caught.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import fastjcs

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "architecture.md"


def _hook():
    spec = importlib.util.spec_from_file_location("fastjcs_docs_diagrams", REPO / "docs_hooks" / "diagrams.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


diagrams = _hook()


def packages(src: Path) -> list[str]:
    """The dotted names of the folders of `src`/fastjcs that hold Python modules."""
    root = src / "fastjcs"
    found = []
    for folder in sorted(p for p in root.rglob("*") if p.is_dir() and "__pycache__" not in p.parts):
        if any(folder.glob("*.py")):
            found.append(".".join(("fastjcs", *folder.relative_to(root).parts)))
    return found


def c_files(csrc: Path) -> list[str]:
    """The .c and .h files under csrc/, by their path under it."""
    return sorted(p.relative_to(csrc).as_posix() for p in csrc.rglob("*") if p.suffix in (".c", ".h"))


def unnamed(src: Path, csrc: Path, page: str) -> list[str]:
    """The packages and C files the page does not name."""
    missing = [name for name in packages(src) if not re.search(rf"`{re.escape(name)}`", page)]
    missing += [
        f"csrc/{name}"
        for name in c_files(csrc)
        if not re.search(rf"(?<![\w/]){re.escape(name)}(?![\w])", page) and f"csrc/{name}" not in page
    ]
    return missing


#: The package under test: the source tree's, or the installed copy's when the suite runs against
#: an install (whose run folder has no src/); its parent plays `src`.
SRC = Path(fastjcs.__file__).resolve().parent.parent


def test_the_page_names_every_package_and_c_file():
    assert packages(SRC) and c_files(REPO / "csrc")  # something was looked at
    assert unnamed(SRC, REPO / "csrc", PAGE.read_text("utf-8")) == []


def test_a_planted_package_and_c_file_are_caught(tmp_path):
    src, csrc = tmp_path / "src", tmp_path / "csrc"
    shutil.copytree(SRC / "fastjcs", src / "fastjcs", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    shutil.copytree(REPO / "csrc", csrc)
    page = PAGE.read_text("utf-8")
    assert unnamed(src, csrc, page) == []
    (src / "fastjcs" / "lab" / "newroom").mkdir()
    (src / "fastjcs" / "lab" / "newroom" / "__init__.py").write_text("")
    (csrc / "cpython" / "fresh.c").write_text("/* new */\n")
    (csrc / "hashes.h").write_text("/* new */\n")
    assert unnamed(src, csrc, page) == ["fastjcs.lab.newroom", "csrc/cpython/fresh.c", "csrc/hashes.h"]
    # named, they pass
    page += "\n`fastjcs.lab.newroom`, `cpython/fresh.c`, `csrc/hashes.h`\n"
    assert unnamed(src, csrc, page) == []


def test_a_name_inside_another_does_not_count():
    # `direct.c` alone does not name cpython/direct.c's neighbour `rect.c`; `fastjcs.cpb` is not `fastjcs.cp`
    assert re.search(r"(?<![\w/])rect\.c(?![\w])", "cpython/direct.c") is None
    assert re.search(r"`fastjcs\.cp`", "`fastjcs.cpb`") is None


DOC_PAGES = sorted((REPO / "docs").rglob("*.md"))


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_diagram_renders(page):
    for block in diagrams.blocks(page.read_text("utf-8")):
        svg = diagrams.render(block)
        root = ET.fromstring(svg)  # well-formed
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        nodes, _edges, _rows = diagrams.parse(block)
        titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        for lines in nodes.values():
            assert lines[0] in titles  # every box is drawn with its title
        assert "\n" not in svg  # one raw HTML line: Markdown cannot break it apart


def test_architecture_has_its_diagrams():
    text = PAGE.read_text("utf-8")
    assert len(diagrams.blocks(text)) >= 6  # layers, dumps, canonicalize, digest, --jsonl, Dask, registry
    assert "```mermaid" not in text  # mermaid needs a script from a CDN
    replaced = diagrams.replace(text)
    assert "```diagram" not in replaced and replaced.count("<svg") == len(diagrams.blocks(text))


def test_a_diagram_with_an_unknown_box_fails_the_build():
    with pytest.raises(ValueError, match="not defined: 'c'"):
        diagrams.render("a: A\nb: B\na -> c\n")
    with pytest.raises(ValueError, match="not a box or an arrow"):
        diagrams.render("a: A\nwhat is this\n")


def test_layout_rows_and_arrows():
    nodes, edges, rows = diagrams.parse("a: A | detail\nb: B\nc: C\na -> b: uses\nb -> c\na -> c\nrow: b c\n")
    assert nodes == {"a": ["A", "detail"], "b": ["B"], "c": ["C"]}
    assert edges == [("a", "b", "uses"), ("b", "c", ""), ("a", "c", "")]
    assert diagrams._ranks(nodes, edges, rows) == {"a": 0, "b": 1, "c": 1}
    assert diagrams._ranks(nodes, edges, []) == {"a": 0, "b": 1, "c": 2}  # longest path
    # labels and text are escaped
    assert "&lt;hex&gt;" in diagrams.render("a: sha256:<hex>")


def test_diagrams_of_one_page_have_distinct_ids():
    ids = [
        re.search(r'<marker id="([^"]+)"', diagrams.render(b)).group(1)
        for b in diagrams.blocks(PAGE.read_text("utf-8"))
    ]
    assert len(set(ids)) == len(ids)


def _crossings(svg: str) -> list[str]:
    """The arrows of a drawn diagram that pass through a box other than their two ends: each
    stretch of an arrow clipped against each box (shrunk by 1 px: an arrow ends on its box's edge)."""
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    boxes = [
        tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
        for r in root.iter(f"{ns}rect")
        if r.get("rx") == "5"  # the boxes (a label's backdrop has rx 3)
    ]

    def inside(x, y, box):
        bx, by, bw, bh = box
        return bx - 1.5 <= x <= bx + bw + 1.5 and by - 1.5 <= y <= by + bh + 1.5

    def cuts(p, q, box):  # Liang-Barsky: does segment p-q enter the box's interior?
        bx, by, bw, bh = box[0] + 1, box[1] + 1, box[2] - 2, box[3] - 2
        t0, t1 = 0.0, 1.0
        dx, dy = q[0] - p[0], q[1] - p[1]
        for d, lo in ((-dx, p[0] - bx), (dx, bx + bw - p[0]), (-dy, p[1] - by), (dy, by + bh - p[1])):
            if d == 0:
                if lo < 0:
                    return False
                continue
            t = lo / d
            if d < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
        return t0 < t1

    arrows = [[tuple(map(float, xy.split(","))) for xy in p.get("points").split()] for p in root.iter(f"{ns}polyline")]
    arrows += [
        [(float(a.get("x1")), float(a.get("y1"))), (float(a.get("x2")), float(a.get("y2")))]
        for a in root.iter(f"{ns}line")
    ]
    found = []
    for points in arrows:
        ends = [b for b in boxes if inside(*points[0], b) or inside(*points[-1], b)]
        for p, q in zip(points, points[1:]):
            found += [f"{points[0]} -> {points[-1]} through {b}" for b in boxes if b not in ends and cuts(p, q, b)]
    return found


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_arrow_passes_through_a_box(page):
    for block in diagrams.blocks(page.read_text("utf-8")):
        assert _crossings(diagrams.render(block)) == []


def test_the_crossing_check_sees_an_arrow_through_a_box():
    # three boxes in a column: the arrow from the first to the last is routed beside the middle one
    drawn = diagrams.render("a: A\nb: B\nc: C\na -> b\nb -> c\na -> c\n")
    assert _crossings(drawn) == []
    # the same arrow drawn straight, from a's bottom to c's top, goes through b
    routed = re.findall(r'<polyline points="([^"]*)"', drawn)[2].split()
    assert len(routed) == 4  # start, into b's row, out of it, end
    straight = drawn.replace(" ".join(routed), f"{routed[0]} {routed[-1]}")
    assert len(_crossings(straight)) == 1
