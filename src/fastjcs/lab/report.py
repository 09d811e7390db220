"""The interop lab's reports: the matrix (peers x families of cases) and every shrunk reproducer,
as text for a terminal, as markdown (for the docs) and as a self-contained HTML page; and how bytes
and answers are shown in them (`show`, `clip`). The JSON report is the results' `as_dict`
(fastjcs.lab.interop).
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .classify import AGREE, CHOICES, CLASSES, IJSON_CHOICE, IJSON_CHOICE_WORDS, _family_rank, family
from .peers import ERROR, OK, Outcome

if TYPE_CHECKING:
    from .interop import PeerResult


def show(text: bytes) -> str:
    """Bytes for a report, printable: printable ASCII as itself, every other character as
    \\u{XXXX} and every byte that is not UTF-8 as \\xNN (the braces and the x tell them from
    a JSON escape, which shows as itself)."""
    out = []
    for ch in text.decode("utf-8", "surrogateescape"):
        o = ord(ch)
        if 0x20 <= o < 0x7F:
            out.append(ch)
        elif 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02X}")
        else:
            out.append(f"\\u{{{o:04X}}}")
    return "".join(out)


def clip(text: str, most: int = 160) -> str:
    """A shown text cut to `most` characters, saying how long it was (reports; JSON keeps all)."""
    return text if len(text) <= most else f"{text[:most]}... ({len(text)} characters)"


def _answer(data: bytes | None) -> str:
    return "refused" if data is None else show(data)


def _outcome(o: Outcome) -> str:
    if o.status == OK:
        return show(o.data)
    if o.status == ERROR:
        return f"refused ({show(o.data[:120])})"
    return f"{o.status}: {o.detail}"


def _cell(counts: Counter | None) -> str:
    if not counts:
        return "-"
    bad = [(cls, counts[cls]) for cls in CLASSES if counts.get(cls)]
    limit = "".join(f", {counts[c]} {c}" for c in CHOICES if counts.get(c))
    if not bad:
        return f"pass ({counts[AGREE]}){limit}"
    return ", ".join(f"{n} {cls}" for cls, n in bad) + limit


NEEDS_EOF = (
    "answers only once its input is closed (the batch protocol wants each answer flushed as it "
    "is made): each run cost a timeout"
)
NOT_ALONE = "does not fail alone: the peer's answer depends on the documents sent with it"


def _slowest(r: PeerResult) -> str:
    if not r.timed:
        return ""
    case_id, (took, after) = max(r.timed.items(), key=lambda kv: kv[1][0])
    return f"slowest timed answer {took:.2f} s ({case_id}; slow after {after:.2f} s)"


def _ijson_note(r: PeerResult) -> str:
    n = r.totals[IJSON_CHOICE]
    return f"{IJSON_CHOICE}: {n} valid case(s) refused, an {IJSON_CHOICE_WORDS}: shown, not a failure"


def _columns(results: Sequence[PeerResult]) -> list[str]:
    return sorted({f for r in results for f in r.cells}, key=_family_rank)


def _throughput(r: PeerResult) -> str:
    return f"{r.docs_per_second:,.0f}/s" if r.seconds else "-"


def text_report(results: Sequence[PeerResult]) -> str:
    """The matrix and every reproducer, for a terminal."""
    lines = []
    for r in results:
        verdict = "pass" if r.ok else f"{r.failures} of {r.cases} fail"
        lines.append(
            f"{r.spec.name}: {verdict}; {r.answered} answered, {_throughput(r)} ({r.seconds:.2f} s for {r.cases} cases)"
        )
        if r.needs_end_of_input:
            lines.append(f"  protocol: {NEEDS_EOF}")
        for fam in _columns([r]):
            lines.append(f"  {fam:<11} {_cell(r.cells.get(fam))}")
        if r.timed:
            lines.append(f"  {_slowest(r)}")
        if r.totals.get(IJSON_CHOICE):
            lines.append(f"  {_ijson_note(r)}")
        for e in r.examples.values():
            lines.append(f"  [{e.cls}] {r.count(e)} {family(e.category)} cases, e.g. {e.case_id} ({e.clause})")
            if not e.alone:
                lines.append(f"    {NOT_ALONE}; as found:")
            lines.append(f"    reproducer: {clip(show(e.reproducer))}")
            lines.append(f"    fastjcs:    {clip(_answer(e.reproducer_expected))}")
            lines.append(f"    peer:       {clip(_outcome(e.reproducer_got))}")
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "\\`")


#: The most columns a table of the matrix page has: what the documentation's content column shows
#: at 1280 px without a scroll (tests/test_docs_site.py measures it in a browser).
MATRIX_COLUMNS = 6


def matrix_tables(families: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The matrix as markdown tables of at most MATRIX_COLUMNS columns, every one led by the peer:
    the peers (version, language, documents/s), then the families, a few at a time. `rows` are
    (peer, version, language, family cells..., documents/s), as markdown cell text."""
    out = ["| peer | version | language | documents/s |", "|---|---|---|---:|"]
    out += [f"| {r[0]} | {r[1]} | {r[2]} | {r[-1]} |" for r in rows]
    per = MATRIX_COLUMNS - 1
    for start in range(0, len(families), per):
        names = families[start : start + per]
        out += ["", "| peer | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        out += [f"| {r[0]} | " + " | ".join(r[3 + start : 3 + start + len(names)]) + " |" for r in rows]
    return out


def markdown_report(results: Sequence[PeerResult], meta: dict[str, Any]) -> str:
    """The matrix as markdown (for the docs), then each peer's classes with a shrunk reproducer."""
    cols = _columns(results)
    rows = [
        [_md(r.spec.name), _md(r.spec.version or "-"), _md(r.spec.language or "-")]
        + [_md(_cell(r.cells.get(f))) for f in cols]
        + [_throughput(r)]
        for r in results
    ]
    out = [
        "# JCS interop matrix",
        "",
        f"Generated {meta.get('date', '')} by `{meta.get('command', 'fastjcs interop')}` "
        f"(fastjcs {meta.get('fastjcs', '')}): {meta.get('cases', 0)} cases "
        f"({meta.get('corpus', '')}), seed {meta.get('seed', '')}. A cell is `pass (N)` when the "
        "peer agrees with RFC 8785 on all N cases of that family, else the count of each class "
        "of failure; documents/s is the batch run's throughput, faults left out "
        "([the lab](interop.md) says how to read it).",
        "",
        *matrix_tables(cols, rows),
    ]
    for r in results:
        if not r.examples and not r.needs_end_of_input and not r.totals.get(IJSON_CHOICE):
            continue
        out += ["", f"### {r.spec.name}", ""]
        if r.needs_end_of_input:
            out.append(f"- **protocol**: {NEEDS_EOF}")
        if r.totals.get(IJSON_CHOICE):
            out.append(f"- {_ijson_note(r)}")
        for e in r.examples.values():
            if not e.alone:
                out.append(f"- **{e.cls}** ({r.count(e)} {family(e.category)} cases): {NOT_ALONE}")
                continue
            out.append(
                f"- **{e.cls}** ({r.count(e)} {family(e.category)} cases; e.g. `{e.category}`, {e.clause}): "
                f"`{_md(clip(show(e.reproducer)))}` gives `{_md(clip(_outcome(e.reproducer_got)))}`, "
                f"RFC 8785: `{_md(clip(_answer(e.reproducer_expected)))}`"
            )
    return "\n".join(out) + "\n"


def html_report(results: Sequence[PeerResult], meta: dict[str, Any]) -> str:
    """The matrix as one self-contained HTML page (no script, no external resource)."""
    cols = _columns(results)
    e = html.escape
    rows = []
    for r in results:
        cells = []
        for f in cols:
            counts = r.cells.get(f)
            bad = counts is not None and any(counts.get(c) for c in CLASSES)
            klass = "none" if counts is None else ("fail" if bad else "pass")
            cells.append(f'<td class="{klass}">{e(_cell(counts))}</td>')
        rows.append(
            f"<tr><th>{e(r.spec.name)}</th><td>{e(r.spec.version or '-')}</td>"
            f"<td>{e(r.spec.language or '-')}</td>{''.join(cells)}<td>{e(_throughput(r))}</td></tr>"
        )
    details = []
    for r in results:
        if r.needs_end_of_input:
            details.append(f'<tr><td>{e(r.spec.name)}</td><td>protocol</td><td colspan="5">{e(NEEDS_EOF)}</td></tr>')
        for x in r.examples.values():
            if not x.alone:
                details.append(
                    f"<tr><td>{e(r.spec.name)}</td><td>{e(x.cls)}</td><td>{r.count(x)}</td>"
                    f'<td>{e(x.category)}<br>{e(x.clause)}</td><td colspan="3">{e(NOT_ALONE)}</td></tr>'
                )
                continue
            details.append(
                f"<tr><td>{e(r.spec.name)}</td><td>{e(x.cls)}</td><td>{r.count(x)}</td>"
                f"<td>{e(x.category)}<br>{e(x.clause)}</td><td><code>{e(clip(show(x.reproducer)))}</code></td>"
                f"<td><code>{e(clip(_outcome(x.reproducer_got)))}</code></td>"
                f"<td><code>{e(clip(_answer(x.reproducer_expected)))}</code></td></tr>"
            )
    head = "".join(f"<th>{e(c)}</th>" for c in cols)
    summary = (
        f"Generated {meta.get('date', '')}: {meta.get('cases', 0)} cases ({meta.get('corpus', '')}), "
        f"seed {meta.get('seed', '')}."
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>JCS interop matrix</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; margin-bottom: 2em; }}
th, td {{ border: 1px solid #ccc; padding: 4px 8px; vertical-align: top; }}
td.pass {{ background: #d9f2d9; }} td.fail {{ background: #f8d0d0; }} td.none {{ color: #999; }}
code {{ word-break: break-all; }}
</style></head><body>
<h1>JCS interop matrix</h1>
<p>{e(summary)}</p>
<table><tr><th>peer</th><th>version</th><th>language</th>{head}<th>documents/s</th></tr>
{chr(10).join(rows)}
</table>
<h2>Reproducers (shrunk)</h2>
<table><tr><th>peer</th><th>class</th><th>cases</th><th>category</th><th>input</th>
<th>peer answers</th><th>RFC 8785</th></tr>
{chr(10).join(details)}
</table></body></html>
"""
