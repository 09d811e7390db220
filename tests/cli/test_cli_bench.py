"""`fastjcs bench`: probes label each canonicalizer, a table or JSON comes out, --plot is optional.

Timings are not asserted (they belong in benchmarks/); each run times for a few milliseconds only.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from fastjcs.tools import bench as _bench
from _cli import fastjcs, lines, one_line_error

QUICK = ("--min-time", "0.005", "--repeat", "1", "--corpus-size", "20000")


def test_json_rows_and_correctness_labels():
    p = fastjcs("bench", "--json", *QUICK)
    assert p.returncode == 0, p.stderr
    body = json.loads(p.stdout)
    rows = {r["name"]: r for r in body["rows"]}
    assert rows["rfc8785"]["correct"] and rows["rfc8785"]["ratio"] == pytest.approx(1.0)
    assert rows["fastjcs (python)"]["correct"]
    wrong = rows["json.dumps (sorted keys)"]
    assert not wrong["correct"]
    assert {"astral-vs-private-use", "1e-7", "-0", "integral-float", "1e21"} <= set(wrong["failed_probes"])
    assert all(r["mb_per_s"] > 0 for r in rows.values())
    for name in ("canonicaljson", "jcs", "json-canonical"):
        assert (name in rows) != (name in body["skipped"])      # measured, or skipped with a reason
    assert body["mode"] == "text" and body["corpus_bytes"] >= 20000


def test_table_object_mode_and_only():
    p = fastjcs("bench", "--mode", "object", "--only", "rfc8785", "--only", "python", *QUICK)
    assert p.returncode == 0
    out = lines(p.stdout)
    assert [c.strip() for c in out[0].split("|")] == ["canonicalizer", "JCS-correct", "MB/s", "vs rfc8785"]
    names = [line.split(" | ")[0].strip() for line in out[2:4]]
    assert names == ["fastjcs (python)", "rfc8785"]
    assert "object mode" in out[4]


def test_file_corpus_json_or_jsonl(tmp_path):
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"a": 1.5}\n\n[1, "x"]\n')
    p = fastjcs("bench", jsonl, "--json", "--only", "rfc8785", *QUICK)
    assert p.returncode == 0 and json.loads(p.stdout)["documents"] == 2
    one = tmp_path / "one.json"
    one.write_text('{\n  "a": [1,\n 2]\n}\n')
    assert json.loads(fastjcs("bench", one, "--json", "--only", "rfc8785", *QUICK).stdout)["documents"] == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n{"a":\n')
    p = fastjcs("bench", bad, *QUICK)
    assert p.returncode == 2
    one_line_error(p, "neither one JSON text nor JSON Lines: line 2")


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None, reason="matplotlib is installed")
def test_plot_without_matplotlib_is_a_clear_error(tmp_path):
    p = fastjcs("bench", "--plot", tmp_path / "chart.png", *QUICK)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "--plot needs matplotlib", "fastjcs[plot]")
    assert not (tmp_path / "chart.png").exists()


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib (the plot extra) is absent")
def test_plot_draws_a_png(tmp_path):
    p = fastjcs("bench", "--plot", tmp_path / "chart.png", "--only", "rfc8785", "--only", "json.dumps", *QUICK)
    assert p.returncode == 0
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_probes_catch_each_wrong_construction():
    import rfc8785

    def code_point_sorted(o):     # rfc8785 with a code-point member sort
        if isinstance(o, dict):
            return b"{" + b",".join(rfc8785.dumps(k) + b":" + code_point_sorted(o[k]) for k in sorted(o)) + b"}"
        if isinstance(o, list):
            return b"[" + b",".join(map(code_point_sorted, o)) + b"]"
        return rfc8785.dumps(o)

    assert _bench.probe(_bench.Candidate("ok", rfc8785.dumps)) == []
    assert _bench.probe(_bench.Candidate("sort", code_point_sorted)) == ["rfc8785-3.2.3-sorting",
                                                                         "astral-vs-private-use"]
    upper = _bench.Candidate("upper", lambda o: rfc8785.dumps(o).replace(b"\\u001f", b"\\u001F"))
    assert _bench.probe(upper) == ["controls"]
    ascii_ = _bench.Candidate("ascii", lambda o: json.dumps(o, ensure_ascii=True, sort_keys=True,
                                                            separators=(",", ":")).encode())
    assert {"non-ascii-raw", "rfc8785-3.2.2-string"} <= set(_bench.probe(ascii_))


@pytest.mark.parametrize("args", [["bench", "--repeat", "0"], ["bench", "--corpus-size", "0"],
                                  ["crosscheck", "--impl", "cat", "--parallel", "0"]])
def test_a_count_where_zero_means_nothing_is_a_usage_error(args):
    p = fastjcs(*args)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "must be >= 1, not 0")
