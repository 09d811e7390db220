"""fastjcs.lab.bench, fastjcs.lab.probes and fastjcs.lab.canonicalizers: the probes' expected bytes
come from outside bench (RFC 8785's examples as typed in vectors/rfc8785, and the rfc8785
package's ES6 number rendering); every known PyPI canonicalizer is found, or listed as not
installed."""

from __future__ import annotations

import json
import sys
import types

import pytest
import rfc8785
from conftest import REPO

from fastjcs.lab import bench, canonicalizers, probes


def _as_doubles(text: bytes):
    """The JSON text's value with every number a double, as RFC 8785 3.2.2.3 reads numbers."""
    return json.loads(text, parse_int=float, parse_float=float)


@pytest.mark.parametrize("p", [p for p in probes.PROBES if p.want is not None], ids=lambda p: p.name)
def test_each_expected_answer_is_rfc8785s(p):
    assert p.clause.startswith("RFC ")
    assert rfc8785.dumps(_as_doubles(p.text)) == p.want
    if p.has_obj:
        assert rfc8785.dumps(p.obj) == p.want


def test_refusal_probes_are_refused_by_rfc8785_too():
    refusals = [p for p in probes.PROBES if p.want is None]
    assert [p.name for p in refusals] == ["lone-surrogate-refused"]
    with pytest.raises(rfc8785.CanonicalizationError):
        rfc8785.dumps(refusals[0].obj)


def test_rfc_examples_are_those_of_the_repository_vectors():
    examples = json.loads((REPO / "vectors" / "rfc8785" / "examples.json").read_text())["examples"]
    outputs = {e["output"].encode("utf-8") for e in examples}
    sorting = next(p for p in probes.PROBES if p.name == "rfc8785-3.2.3-sorting")
    assert sorting.want in outputs
    values = [p for p in probes.PROBES if p.name.startswith("rfc8785-3.2.2-")]
    assert len(values) == 3  # the RFC's one example, split in its three members
    assert all(p.want[1:-1] in b"".join(outputs) for p in values)


def test_the_number_and_string_classes_are_probed():
    texts = {p.name: p.text for p in probes.PROBES}
    for token in (
        b"18446744073709551616",
        b"9223372036854775808",
        b"12345678901234567",
        b"9007199254740993",
        b"1.00000000000000011102230246251565404236316680908203125",
        b"2.5e-324",
        b"-0,",
        b"999999999999999868928",
        b"\\u2028",
        b"\\uffff",
        b"\\ud83d\\ude02",
        b"\\ue000",
        b"\\ud800",
    ):
        assert any(token in t for t in texts.values()), token
    assert {
        "int-2^64",
        "int-2^63",
        "int-17-digits",
        "halfway",
        "near-halfway",
        "subnormal",
        "1e21-boundary",
        "-0-text",
        "u2028-uffff",
        "astral-vs-bmp-top-escaped",
        "lone-surrogate-refused",
    } <= set(texts)


def test_a_refusal_beyond_double_precision_is_reported_not_wrong():
    wrong, refused = probes.probe_report(canonicalizers.Candidate("rfc8785", rfc8785.dumps))
    assert wrong == []
    assert {"int-2^64", "int-2^63", "int-17-digits", "int-2^53+1"} <= set(refused)
    # a peer that keeps the integer's digits is wrong on them
    keeps = canonicalizers.Candidate(
        "keeps",
        lambda o: rfc8785.dumps(o),
        lambda t: t if t.startswith(b"[1") and b"e" not in t and b"." not in t else rfc8785.dumps(json.loads(t)),
    )
    assert {"int-2^64", "int-17-digits"} <= set(probes.probe_report(keeps)[0])
    # refusing a valid probe that is within a double's precision is wrong
    picky = canonicalizers.Candidate(
        "picky", lambda o: rfc8785.dumps(o), lambda t: 1 / 0 if b"1e+21, 1" in t else rfc8785.dumps(json.loads(t))
    )
    assert "1e21" in probes.probe(picky)


KNOWN = {
    "rfc8785": "rfc8785",
    "jcs": "jcs",
    "json-canonical": "json_canonical",
    "jsoncanon": "jsoncanon",
    "jcs-admit": "jcs_admit",
    "canonicaljson": "canonicaljson",
}


def _fake(module: str) -> types.ModuleType:
    m = types.ModuleType(module)
    dumps = rfc8785.dumps
    m.dumps = m.canonicalize = m.encode_canonical_json = dumps
    m.admit = lambda b: dumps(json.loads(b))
    return m


def test_every_known_pypi_canonicalizer_is_found(monkeypatch):
    for module in KNOWN.values():
        monkeypatch.setitem(sys.modules, module, _fake(module))
    found, skipped = canonicalizers.candidates()
    labels = {c.name: c.label for c in found}
    assert set(KNOWN) <= set(labels) and not set(KNOWN) & set(skipped)
    assert labels["canonicaljson"] == "canonicaljson (not JCS)"
    assert labels["jcs-admit"] == "jcs-admit"
    admit = next(c for c in found if c.name == "jcs-admit")
    assert admit.text(b'{"b":1,"a":2}') == b'{"a":2,"b":1}' and admit.from_obj({"b": 1}) == b'{"b":1}'


def test_every_absent_one_is_listed_as_not_installed(monkeypatch):
    for module in KNOWN.values():
        monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    found, skipped = canonicalizers.candidates()
    assert not set(KNOWN) & {c.name for c in found}
    assert bench.not_installed(skipped)[:6] == list(KNOWN)
    assert skipped["jcs-admit"] == "not installed (pip install jcs-admit; import jcs_admit)"
    table = bench.Result("text", 0, 0, skipped=skipped).table()
    assert "not installed: rfc8785, jcs, json-canonical, jsoncanon, jcs-admit, canonicaljson" in table
    assert bench.Result("text", 0, 0, skipped=skipped).as_dict()["not_installed"][:6] == list(KNOWN)


def test_repeat_zero_is_refused_in_process():
    with pytest.raises(ValueError, match="must be >= 1"):
        bench.measure([b"{}"], repeat=0)


def test_the_not_installed_note_says_how_to_install_them(monkeypatch):
    for module in KNOWN.values():
        monkeypatch.setitem(sys.modules, module, None)
    _found, skipped = canonicalizers.candidates()
    table = " ".join(bench.Result("text", 0, 0, skipped=skipped).table(width=100).split())
    assert "to compare them too: pip install rfc8785 jcs json-canonical jsoncanon jcs-admit canonicaljson" in table


@pytest.mark.parametrize("columns", ["80", "64", "300"])
def test_the_table_takes_the_terminals_width(monkeypatch, columns):
    """Lines wider than the terminal wrap there, cutting words: the table is laid out for the
    terminal's width (COLUMNS, as shutil reads it), at most 100 columns."""
    monkeypatch.setenv("COLUMNS", columns)
    row = bench.Row("json.dumps (sorted keys)", False, [p.name for p in probes.PROBES], not_jcs="sorted keys")
    row.mb_per_s, row.ratio, row.ratio_documents = 26.9, 2.52, 3575
    result = bench.Result(
        "text", 1_050_000, 3575, [row], skipped={"jcs": "not installed (pip install jcs; import jcs)"}
    )
    table = result.table()
    width = min(int(columns), bench.TABLE_WIDTH)
    assert max(map(len, table.splitlines())) <= width
    assert max(map(len, table.splitlines())) > width - 15  # the notes fill the width (not a fixed narrow one)
    # no word is cut: every probe name is whole on a line
    assert all(any(p.name in line for line in table.splitlines()) for p in probes.PROBES)
