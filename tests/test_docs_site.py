"""The built site reads offline: no page loads a script, a style sheet, a font or an image from
another host (mermaid from a CDN, Google Fonts, ...). Links to other sites (<a href>) are fine.

The site checked is FASTJCS_SITE_DIR when set (.ci/run builds it, then runs this file), else one
built here with mkdocs into a scratch folder (slow: about 15 s; skipped without the docs extra).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: What makes a browser fetch: src= of any element, href= of <link>, url(...) and @import in CSS.
_SRC = re.compile(r"""<(?:script|img|iframe|source|audio|video|embed)\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)""", re.I)
_LINK = re.compile(r"""<link\b[^>]*\bhref\s*=\s*["']?([^"'\s>]+)""", re.I)
_CSS = re.compile(r"""(?:url\(\s*["']?|@import\s+["'])([^"')\s]+)""", re.I)
_REMOTE = re.compile(r"^(?:https?:)?//", re.I)


def remote_loads(site: Path) -> list[str]:
    """'file: url' for every resource a page or a style sheet of the site would fetch from a host."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix == ".html":
            text = path.read_text("utf-8", errors="replace")
            links = [m for m in _LINK.finditer(text) if not re.search(r"""rel\s*=\s*["']?canonical""", m.group(0))]
            urls = [m.group(1) for m in _SRC.finditer(text)] + [m.group(1) for m in links]
            urls += [m.group(1) for m in _CSS.finditer(text)]
            if re.search(r"""class\s*=\s*["'][^"']*\bmermaid\b""", text):
                # mkdocs-material's script fetches mermaid from a CDN when a page has such a block
                urls.append("https://unpkg.com/mermaid (fetched by the theme for a mermaid block)")
        elif path.suffix == ".css":
            urls = [m.group(1) for m in _CSS.finditer(path.read_text("utf-8", errors="replace"))]
        else:
            continue
        found += [f"{path.relative_to(site).as_posix()}: {u}" for u in urls if _REMOTE.match(u)]
    return found


def test_the_scanner_finds_remote_loads(tmp_path):
    (tmp_path / "a.html").write_text(
        '<html><head><link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
        '<script src="https://unpkg.com/mermaid@10/dist/mermaid.min.js"></script>'
        '<link rel="canonical" href="https://example.org/a/"></head>'
        '<body><a href="https://www.rfc-editor.org/rfc/rfc8785">RFC 8785</a><img src="img/bench.png">'
        '<script src="assets/main.js"></script></body></html>'
    )
    (tmp_path / "c.html").write_text('<pre class="mermaid"><code>flowchart TB</code></pre>')
    (tmp_path / "b.css").write_text("@import 'https://x.example/y.css'; .a { background: url(img/a.png) }")
    assert remote_loads(tmp_path) == [
        "a.html: https://unpkg.com/mermaid@10/dist/mermaid.min.js",
        "a.html: https://fonts.googleapis.com/css?family=Roboto",
        "b.css: https://x.example/y.css",
        "c.html: https://unpkg.com/mermaid (fetched by the theme for a mermaid block)",
    ]


@pytest.fixture(scope="module")
def site(tmp_path_factory, request):
    given = os.environ.get("FASTJCS_SITE_DIR")
    if given:
        return Path(given)
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    if not (os.environ.get("FASTJCS_SLOW") or request.config.getoption("--slow")):
        pytest.skip("builds the site (about 15 s): run with --slow or FASTJCS_SLOW=1, or give FASTJCS_SITE_DIR")
    out = tmp_path_factory.mktemp("site")
    p = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return out


def test_the_site_loads_nothing_from_another_host(site):
    assert (site / "index.html").exists()
    assert remote_loads(site) == []


def test_the_site_has_its_diagrams_and_the_html_matrix(site):
    architecture = (site / "architecture" / "index.html").read_text("utf-8")
    assert architecture.count('<svg xmlns="http://www.w3.org/2000/svg" class="fjcs-diagram"') >= 6
    assert "mermaid" not in architecture
    assert (site / "interop-matrix.html").exists()
    assert "interop-matrix.html" in (site / "interop" / "index.html").read_text("utf-8")
