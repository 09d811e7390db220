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


# --- the API reference: docstring examples render as code ---------------------------------------

_DIRECTIVE = re.compile(r"^::: (\S+)\n((?:    .*\n)*)", re.M)
_MEMBERS = re.compile(r"members:\s*\[([^\]]*)\]")
_CODE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S)
_TAG = re.compile(r"<[^>]+>")


def documented_docstrings(page: Path) -> list[str]:
    """The docstrings a reference page renders, read from the source by Griffe (as mkdocstrings
    reads them, before any extension of the build): each `::: module` directive's module, its
    members (the directive's `members:` option, else the module's __all__), and the public
    members of each class among them that have a docstring."""
    griffe = pytest.importorskip("griffe")
    package = griffe.load("fastjcs", search_paths=[str(REPO / "src")], resolve_aliases=True, resolve_external=False)
    found: list[str] = []
    for name, options in _DIRECTIVE.findall(page.read_text("utf-8")):
        module = package if name == "fastjcs" else package[name[len("fastjcs.") :]]
        listed = _MEMBERS.search(options)
        names = re.findall(r"\"(\w+)\"", listed.group(1)) if listed else list(module.exports or ())
        objects = [module]
        for member in (module[n] for n in names):
            objects.append(member)
            if member.is_class:
                objects += [m for k, m in member.members.items() if not k.startswith("_")]
        found += [o.docstring.value for o in objects if o.docstring]
    return found


def rendered_code(html_text: str) -> str:
    """The text of every <pre> block of a page, tags stripped, entities decoded."""
    import html

    return "\n".join(html.unescape(_TAG.sub("", block)) for block in _CODE.findall(html_text))


REFERENCE_PAGES = sorted((REPO / "docs" / "reference").glob("*.md"))


@pytest.mark.parametrize("page", REFERENCE_PAGES, ids=lambda p: p.stem)
def test_the_reference_renders_every_docstring_example_as_code(site, page):
    """Each example (doctest block) of a documented docstring is in a code block of the page, its
    `>>>` prompt and its expected output kept; nothing is a blockquote (what Markdown makes of an
    unfenced `>>>`, with input and output run into one paragraph)."""
    import doctest

    html_text = (site / "reference" / page.stem / "index.html").read_text("utf-8")
    article = html_text[html_text.find("<article") :]
    assert "<blockquote" not in article
    code = rendered_code(article)
    prose = _CODE.sub("", article)
    assert "&gt;&gt;&gt;" not in prose
    examples = [e for doc in documented_docstrings(page) for e in doctest.DocTestParser().get_examples(doc)]
    for e in examples:
        first = e.source.splitlines()[0]
        assert f">>> {first}" in code, f"{page.name}: example not rendered as code: {first}"
        if e.want:
            assert e.want.splitlines()[0] in code, f"{page.name}: output of {first} not rendered: {e.want}"


def doctest_blocks(doc: str) -> int:
    """How many doctest blocks a docstring holds (a block: `>>>` lines and their output, up to a blank line)."""
    return len(re.findall(r"(?:\A|\n[ \t]*\n)[ \t]*>>> ", doc))


def test_the_reference_pages_have_their_examples():
    """The examples of the reference pages, as counted when they were found garbled (a blockquote
    each): 11 on the fastjcs page, 7 on eab, 3 on cpb, 1 on arrow."""
    blocks = {p.stem: sum(map(doctest_blocks, documented_docstrings(p))) for p in REFERENCE_PAGES}
    assert blocks["fastjcs"] >= 11 and blocks["eab"] >= 7 and blocks["cpb"] >= 3 and blocks["arrow"] >= 1, blocks


def test_fence_examples():
    griffe = pytest.importorskip("griffe")  # the extension subclasses griffe.Extension
    import importlib.util

    spec = importlib.util.spec_from_file_location("fastjcs_docs_fences", REPO / "docs_hooks" / "doctest_fences.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert isinstance(hook.DoctestFences(), griffe.Extension)
    text = "Prose.\n>>> f(1)\n... # more\n2\n\nAfter.\n\n  >>> g()\n\n```python\n>>> h()\n```\n"
    assert hook.fence_examples(text) == (
        "Prose.\n\n```python\n>>> f(1)\n... # more\n2\n```\n\nAfter.\n\n  ```python\n  >>> g()\n  ```\n\n"
        "```python\n>>> h()\n```\n"
    )


# --- pages read at 1280 px: tables and the home page's commands fit their column ----------------

#: What the measuring page reports: each table of the article (its columns, its width, the width of
#: the box that scrolls it) and each code block wider than its box.
_MEASURE = r"""<script>
window.addEventListener('load', function () {
  var out = {tables: [], code: []};
  document.querySelectorAll('article table').forEach(function (t) {
    var box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
    out.tables.push({columns: t.rows[0] ? t.rows[0].cells.length : 0, width: t.scrollWidth, box: box.clientWidth,
                     head: t.rows[0] ? t.rows[0].textContent.trim().slice(0, 60) : ''});
  });
  out.cut = [];  // inline code in table cells broken across lines between two letters or digits
  document.querySelectorAll('article td code').forEach(function (c) {
    var node = c.firstChild, range = document.createRange(), top = null;
    if (!node || node.nodeType !== 3) return;
    var text = node.textContent;
    for (var i = 0; i < text.length; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      var y = range.getBoundingClientRect().top;
      if (top !== null && y > top + 2 && /\w/.test(text[i - 1]) && /\w/.test(text[i])) { out.cut.push(text); break; }
      top = y;
    }
  });
  document.querySelectorAll('article pre > code').forEach(function (c) {
    out.code.push({width: c.scrollWidth, box: c.clientWidth, text: c.textContent.slice(0, 60)});
  });
  var pre = document.createElement('pre'); pre.id = 'fjcs-measure'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def measure(page: Path, width: int = 1280) -> dict:
    """The page laid out by headless Chromium in a window `width` px wide (its scripts run: the
    theme wraps tables in their scrolling boxes): the tables and code blocks of its article."""
    import html
    import json
    import shutil

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no chromium here (Debian's chromium package) to lay the pages out")
    probe = page.with_name("fjcs-measure.html")
    probe.write_text(page.read_text("utf-8").replace("</body>", _MEASURE + "</body>"), "utf-8")
    try:
        p = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},2000"]
            + ["--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        probe.unlink()
    found = re.search(r'<pre id="fjcs-measure">(.*?)</pre>', p.stdout, re.S)
    assert found, f"chromium laid out nothing: {p.stderr[-500:]}"
    return json.loads(html.unescape(found.group(1)))


_MEASURED: dict[Path, dict] = {}


def measured(page: Path) -> dict:
    """measure(page), once per page for the whole run (a browser start is a second or more)."""
    if page not in _MEASURED:
        _MEASURED[page] = measure(page)
    return _MEASURED[page]


def site_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("index.html") if "<table" in p.read_text("utf-8", errors="replace"))


def test_every_table_fits_its_column_at_1280_px(site):
    """No table of the site is wider than the content column at 1280 px (a wider one scrolls,
    hiding its last columns: the 13-column interop matrix showed 6)."""
    wide = []
    for page in site_pages(site):
        for t in measured(page)["tables"]:
            if t["width"] > t["box"] + 1:
                wide.append(f"{page.relative_to(site).parent}: {t['columns']} columns, {t['width']} px in {t['box']}")
    assert wide == []


def test_no_name_in_a_table_is_cut_mid_word_at_1280_px(site):
    """Inline code in a table cell (a module, a file) stays whole: the theme lets code break
    anywhere, which cut `fastjcs.cli` into `fastjcs.cl` and `i` on the architecture page."""
    cut = {str(page.relative_to(site).parent): measured(page)["cut"] for page in site_pages(site)}
    assert {page: names for page, names in cut.items() if names} == {}


def test_the_home_pages_commands_fit_at_1280_px(site):
    first = measured(site / "index.html")["code"][0]
    assert first["text"].startswith("python3 -m venv") and first["width"] <= first["box"] + 1, first


def test_the_measure_sees_a_wide_table(site, tmp_path):
    """The check above can fail: a 13-column table of the matrix's cells, in a page of the site."""
    page = site / "interop-matrix" / "index.html"
    text = page.read_text("utf-8")
    head = "".join(f"<th>family {n}</th>" for n in range(13))
    cells = "".join(f"<td>{n} accepts-invalid, {n} refuses-valid, 9 limit</td>" for n in range(13))
    opening = re.search(r"<article\b[^>]*>", text).group(0)
    wide = text.replace(opening, f"{opening}<table><thead><tr>{head}</tr></thead><tr>{cells}</tr></table>", 1)
    copy = page.with_name("fjcs-wide.html")
    copy.write_text(wide, "utf-8")
    try:
        tables = measure(copy)["tables"]
    finally:
        copy.unlink()
    assert any(t["columns"] == 13 and t["width"] > t["box"] + 1 for t in tables), tables


def test_the_matrix_page_has_tables_of_the_columns_that_fit():
    from fastjcs.lab import report

    text = (REPO / "docs" / "interop-matrix.md").read_text("utf-8")
    heads = [line for line in text.splitlines() if line.startswith("| peer |")]
    assert len(heads) >= 3
    assert max(line.count(" | ") + 1 for line in heads) <= report.MATRIX_COLUMNS
    families = ["number", "string", "order", "structure", "large", "whitespace", "syntax", "vectors", "es6"]
    rows = [[f"p{k}", "1.0", "Go", *(f"{k}-{f}" for f in families), "9/s"] for k in range(3)]
    tables = "\n".join(report.matrix_tables(families, rows))
    assert max(line.count("|") - 1 for line in tables.splitlines() if line) <= report.MATRIX_COLUMNS
    for row in rows:  # every cell once, on its peer's line
        assert all(tables.count(f"| {row[0]} |") == 3 and cell in tables for cell in row)


def test_the_bench_transcripts_fit_80_columns():
    for page in (REPO / "docs").glob("*.md"):
        for block in re.findall(r"^```text\n(\$ fastjcs bench .*?)^```", page.read_text("utf-8"), re.S | re.M):
            lines = block.splitlines()[1:]
            assert max(map(len, lines)) <= 80, (page.name, lines[0])
