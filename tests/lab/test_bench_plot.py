"""`fastjcs bench --plot`: the chart says what was measured (mode, corpus), when and on what
machine, and no bar says "(not JCS)" twice (once in its label, once at its end)."""

from __future__ import annotations

import io
import re

import pytest

from fastjcs.lab import bench

matplotlib = pytest.importorskip("matplotlib")


def _result():
    return bench.Result(
        mode="text",
        corpus_bytes=1_050_000,
        documents=3575,
        rows=[
            bench.Row("fastjcs (native)", True, [], mb_per_s=175.3, ratio=13.07),
            bench.Row("rfc8785", True, [], mb_per_s=13.4, ratio=1.0),
            bench.Row("jsoncanon", False, ["1e-7"], mb_per_s=3.5, ratio=0.26),
            bench.Row("json.dumps", False, ["1e21"], mb_per_s=34.4, ratio=2.56, not_jcs="sorted keys only"),
        ],
    )


def _svg_text(result, **kwargs) -> str:
    out = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text kept as text, so it can be read
        bench.plot(result, out, "svg", **kwargs)
    return out.getvalue().decode("utf-8")


def test_the_title_says_mode_corpus_date_and_machine():
    title = bench.plot_title(_result(), when="2026-12-02", machine="x86_64, 2 CPU(s), CPython 3.11.7")
    assert title == (
        "JSON canonicalizers: text mode, 3575 documents (1.05 MB), one call each\n"
        "2026-12-02, x86_64, 2 CPU(s), CPython 3.11.7"
    )
    default = bench.plot_title(_result())
    assert re.search(r"\n\d{4}-\d\d-\d\d, \S+, \d+ CPU\(s\), \w+ \d+\.\d+", default), default


def test_the_chart_carries_its_title():
    svg = _svg_text(_result(), when="2026-12-02", machine="the test machine")
    for part in ("text mode", "3575 documents", "2026-12-02", "the test machine"):
        assert part in svg


def test_not_jcs_is_said_once_per_bar():
    rows = {r.name: r for r in _result().rows}
    for r in rows.values():
        assert (r.label + bench.bar_note(r)).count("(not JCS)") <= 1
    assert bench.bar_note(rows["json.dumps"]) == " 34.4"  # its label says "(not JCS)"
    assert bench.bar_note(rows["jsoncanon"]) == " 3.5 (fails probes)"  # claims JCS, fails probes
    assert bench.bar_note(rows["rfc8785"]) == " 13.4"
    svg = _svg_text(_result())
    assert svg.count("(not JCS)") == 1
