"""Diagrams drawn at build time, with no script and nothing fetched: a mkdocs hook (mkdocs.yml
`hooks:`) that turns each fenced ```diagram block of a page into an inline SVG of boxes and arrows.

The block's format, one statement a line (blank lines and lines starting with # ignored):

    id: Title | a detail line | another detail line     a box (the title bold, the details under it)
    a -> b                                              an arrow from box a to box b
    a -> b: label                                       an arrow with a label at its middle
    row: a b c                                          boxes a, b and c on one row

Boxes are laid out in rows from top to bottom: a box sits one row below the lowest box that points
at it (the longest path from a box nothing points at), in the order the block names them; a `row`
statement puts its boxes on one row (the lowest of theirs). Arrows run from the bottom of one box
to the top of another (or, within a row, from side to side); an arrow that spans rows passes each
row between through a gap between its boxes (or beside them), never through a box.
`render(text)` returns the SVG; an arrow to a box the block does not define raises ValueError,
which fails the build.
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Any

FONT = 13  # px
CHAR = 7.2  # px per character, an estimate for the theme's sans-serif at 13 px
LINE = 17  # px per text line
PAD = 10  # px inside a box
GAP_X = 28  # px between boxes of a row
GAP_Y = 56  # px between rows
MARGIN = 8
LANE = 10  # px between a box and an arrow passing beside it

_FENCE = re.compile(r"^```diagram[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_EDGE = re.compile(r"^(\S+)\s*->\s*(\S+?)(?:\s*:\s*(.*))?$")
_NODE = re.compile(r"^([A-Za-z0-9_.-]+)\s*:\s*(.*)$")


Parsed = tuple[dict[str, list[str]], list[tuple[str, str, str]], list[list[str]]]


def parse(text: str) -> Parsed:
    """The boxes (id -> lines, the title first), the arrows (from, to, label) and the rows (ids
    drawn on one row) of a block."""
    nodes: dict[str, list[str]] = {}
    edges: list[tuple[str, str, str]] = []
    rows: list[list[str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("row:"):
            rows.append(line[4:].split())
            continue
        edge = _EDGE.match(line)
        if edge:
            edges.append((edge.group(1), edge.group(2), (edge.group(3) or "").strip()))
            continue
        node = _NODE.match(line)
        if not node:
            raise ValueError(f"diagram: not a box or an arrow: {line!r}")
        nodes[node.group(1)] = [part.strip() for part in node.group(2).split("|")]
    for a, b, _ in edges:
        for end in (a, b):
            if end not in nodes:
                raise ValueError(f"diagram: arrow {a} -> {b} names a box that is not defined: {end!r}")
    for row in rows:
        for end in row:
            if end not in nodes:
                raise ValueError(f"diagram: row {' '.join(row)} names a box that is not defined: {end!r}")
    return nodes, edges, rows


def _ranks(nodes: dict[str, list[str]], edges: list[tuple[str, str, str]], rows: list[list[str]]) -> dict[str, int]:
    rank = {n: 0 for n in nodes}
    together = {n: row for row in rows for n in row}
    for _ in range(2 * len(nodes)):  # longest path; a cycle stops after 2 * len(nodes) rounds
        changed = False
        for a, b, _label in edges:
            step = 0 if together.get(a) is not None and b in together[a] else 1
            if a != b and rank[b] < rank[a] + step and rank[a] + step < len(nodes):
                rank[b] = rank[a] + step
                changed = True
        for row in rows:
            top = max(rank[n] for n in row)
            for n in row:
                if rank[n] != top:
                    rank[n] = top
                    changed = True
        if not changed:
            break
    return rank


def render(text: str) -> str:
    """The SVG (one element, no newline inside a tag) of one diagram block."""
    nodes, edges, row_of = parse(text)
    rank = _ranks(nodes, edges, row_of)
    size = {
        n: (
            max(len(s) * CHAR * (1.12 if i == 0 else 1.0) for i, s in enumerate(lines)) + 2 * PAD,
            len(lines) * LINE + 2 * PAD - 4,
        )
        for n, lines in nodes.items()
    }
    rows: dict[int, list[str]] = {}
    for n in nodes:
        rows.setdefault(rank[n], []).append(n)
    widths = {r: sum(size[n][0] for n in ns) + GAP_X * (len(ns) - 1) for r, ns in rows.items()}
    width = max(widths.values()) + 2 * MARGIN
    pos: dict[str, tuple[float, float]] = {}
    y = float(MARGIN)
    for r in sorted(rows):
        x = MARGIN + (width - 2 * MARGIN - widths[r]) / 2
        height = max(size[n][1] for n in rows[r])
        for n in rows[r]:
            pos[n] = (x, y + (height - size[n][1]) / 2)
            x += size[n][0] + GAP_X
        y += height + GAP_Y
    height_total = y - GAP_Y + MARGIN
    band = {
        r: (pos[ns[0]][1] - (max(size[n][1] for n in ns) - size[ns[0]][1]) / 2, max(size[n][1] for n in ns))
        for r, ns in rows.items()
    }

    def lane(r: int, want: float) -> float:
        """The x nearest `want` at which an arrow crosses row r clear of its boxes."""
        spans = sorted((pos[n][0] - LANE, pos[n][0] + size[n][0] + LANE) for n in rows[r])
        if not any(lo < want < hi for lo, hi in spans):
            return want
        free = [spans[0][0]] + [x for (_, hi), (lo, _) in zip(spans, spans[1:]) for x in (hi, lo) if hi <= lo]
        return min([*free, spans[-1][1]], key=lambda x: abs(x - want))

    def route(a: str, b: str) -> list[tuple[float, float]]:
        """The arrow's points: from a's bottom (top, going up) to b's top (bottom), through a lane of
        every row between."""
        (ax, ay), (aw, ah) = pos[a], size[a]
        (bx, by), (bw, bh) = pos[b], size[b]
        down = rank[a] < rank[b]
        start = (ax + aw / 2, ay + ah if down else ay)
        end = (bx + bw / 2, by if down else by + bh)
        between = range(rank[a] + 1, rank[b]) if down else range(rank[a] - 1, rank[b], -1)
        points = [start]
        for r in between:
            top, tall = band[r]
            t = ((top + tall / 2) - start[1]) / (end[1] - start[1])
            x = lane(r, start[0] + t * (end[0] - start[0]))
            points += [(x, top - 4), (x, top + tall + 4)] if down else [(x, top + tall + 4), (x, top - 4)]
        return [*points, end]

    routes = {}
    for a, b, _label in edges:
        if rank[a] != rank[b]:
            routes[(a, b)] = route(a, b)
    # an arrow beside the widest row widens the drawing: everything moves right by what it needs
    xs = [x for points in routes.values() for x, _ in points]
    shift = max(0.0, MARGIN / 2 - min(xs, default=MARGIN))
    width = max(width + shift, max(xs, default=0) + shift + MARGIN / 2)
    pos = {n: (x + shift, y0) for n, (x, y0) in pos.items()}
    routes = {k: [(x + shift, y0) for x, y0 in points] for k, points in routes.items()}
    # the arrowhead's id, unique per diagram (several diagrams share a page, and an id a page)
    marker = "fjcs-arrow-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="fjcs-diagram" viewBox="0 0 {width:.0f} {height_total:.0f}" '
        f'width="{width:.0f}" style="max-width:100%;height:auto" font-family="sans-serif" font-size="{FONT}" '
        'role="img">',
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="currentColor"/></marker></defs>',
    ]

    def box(n: str) -> tuple[float, float, float, float]:
        return (*pos[n], *size[n])

    for a, b, label in edges:
        ax, ay, aw, ah = box(a)
        bx, by, bw, bh = box(b)
        if rank[a] == rank[b]:  # side to side
            left = ax < bx
            x1, y1 = (ax + aw, ay + ah / 2) if left else (ax, ay + ah / 2)
            x2, y2 = (bx, by + bh / 2) if left else (bx + bw, by + bh / 2)
            points = [(x1, y1), (x2, y2)]
        else:
            points = routes[(a, b)]
        out.append(
            '<polyline points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '" fill="none" '
            f'stroke="currentColor" stroke-width="1.3" marker-end="url(#{marker})"/>'
        )
        if label:  # at the middle of the arrow's first stretch
            (x1, y1), (x2, y2) = points[0], points[1]
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            lw = len(label) * CHAR * 0.85 + 6
            out.append(
                f'<rect x="{mx - lw / 2:.1f}" y="{my - 9:.1f}" width="{lw:.1f}" height="16" rx="3" '
                'fill="var(--md-default-bg-color, #fff)" opacity="0.9"/>'
                f'<text x="{mx:.1f}" y="{my + 3:.1f}" text-anchor="middle" font-size="{FONT - 2}" '
                f'font-style="italic" fill="currentColor">{html.escape(label)}</text>'
            )
    for n, lines in nodes.items():
        x, y0, w, h = box(n)
        out.append(
            f'<rect x="{x:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" rx="5" '
            'fill="var(--md-code-bg-color, #f5f5f5)" stroke="currentColor" stroke-width="1.2"/>'
        )
        for i, s in enumerate(lines):
            weight = ' font-weight="bold"' if i == 0 else ""
            out.append(
                f'<text x="{x + w / 2:.1f}" y="{y0 + PAD + 9 + i * LINE:.1f}" text-anchor="middle"'
                f'{weight} fill="currentColor">{html.escape(s)}</text>'
            )
    out.append("</svg>")
    return "".join(out)


def blocks(markdown: str) -> list[str]:
    """The texts of a page's diagram blocks."""
    return _FENCE.findall(markdown)


def replace(markdown: str) -> str:
    """The page with each diagram block replaced by its SVG (a raw HTML block of one line)."""
    return _FENCE.sub(lambda m: f'<div class="fjcs-diagram">{render(m.group(1))}</div>\n', markdown)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """mkdocs' hook: every page's diagram blocks drawn."""
    return replace(markdown)
