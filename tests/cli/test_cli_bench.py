"""`fastjcs bench`: probes label each canonicalizer, a table or JSON comes out, --plot is optional.

Timings are not asserted (they belong in benchmarks/); each run times for a few milliseconds only.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys

import pytest
from _cli import fastjcs, lines, one_line_error

from fastjcs.lab import bench as _bench
from fastjcs.lab import canonicalizers, probes

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
    for name in ("canonicaljson", "jcs", "json-canonical", "jsoncanon", "jcs-admit"):
        assert (name in rows) != (name in body["skipped"])  # measured, or skipped with a reason
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
    one_line_error(
        p, "--plot needs matplotlib", "install the plot extra: pip install '.[plot]' from a fastjcs checkout"
    )
    assert not (tmp_path / "chart.png").exists()


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib (the plot extra) is absent")
def test_plot_draws_a_png(tmp_path):
    p = fastjcs("bench", "--plot", tmp_path / "chart.png", "--only", "rfc8785", "--only", "json.dumps", *QUICK)
    assert p.returncode == 0
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_probes_catch_each_wrong_construction():
    import rfc8785

    def code_point_sorted(o):  # rfc8785 with a code-point member sort
        if isinstance(o, dict):
            return b"{" + b",".join(rfc8785.dumps(k) + b":" + code_point_sorted(o[k]) for k in sorted(o)) + b"}"
        if isinstance(o, list):
            return b"[" + b",".join(map(code_point_sorted, o)) + b"]"
        return rfc8785.dumps(o)

    assert probes.probe(canonicalizers.Candidate("ok", rfc8785.dumps)) == []
    assert probes.probe(canonicalizers.Candidate("sort", code_point_sorted)) == [
        "rfc8785-3.2.3-sorting",
        "astral-vs-private-use",
        "astral-vs-bmp-top-escaped",
    ]
    upper = canonicalizers.Candidate("upper", lambda o: rfc8785.dumps(o).replace(b"\\u001f", b"\\u001F"))
    assert probes.probe(upper) == ["controls"]
    ascii_ = canonicalizers.Candidate(
        "ascii", lambda o: json.dumps(o, ensure_ascii=True, sort_keys=True, separators=(",", ":")).encode()
    )
    assert {"non-ascii-raw", "rfc8785-3.2.2-string"} <= set(probes.probe(ascii_))


@pytest.mark.parametrize(
    "args",
    [["bench", "--repeat", "0"], ["bench", "--corpus-size", "0"], ["crosscheck", "--impl", "cat", "--parallel", "0"]],
)
def test_a_count_where_zero_means_nothing_is_a_usage_error(args):
    p = fastjcs(*args)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "must be >= 1, not 0")


# ---- external commands (--impl-cmd) and refusals -----------------------------------------------

PEER = """import sys, json, rfc8785
data = sys.stdin.buffer.read()
try:
    out = rfc8785.dumps(json.loads(data))
except Exception as exc:
    print("refused:", exc, file=sys.stderr)
    sys.exit(1)
sys.stdout.buffer.write(out + (b"\\n" if "nl" in sys.argv[1:] else b""))
"""

BIG = '{"n": 18446744073709551616}'


def _corpus(tmp_path, *docs):
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(docs) + "\n")
    return f


def _peer(tmp_path, *args):
    script = tmp_path / "peer.py"
    script.write_text(PEER)
    return " ".join(shlex.quote(a) for a in (sys.executable, str(script), *args))


def test_impl_cmd_is_probed_and_timed_per_process(tmp_path):
    corpus = _corpus(tmp_path, '{"b": 1, "a": [1.0, "x"]}', "[1e21]")
    p = fastjcs("bench", corpus, "--json", "--only", "rfc8785", "--impl-cmd", f"peer={_peer(tmp_path)}", *QUICK)
    assert p.returncode == 0, p.stderr
    rows = {r["name"]: r for r in json.loads(p.stdout)["rows"]}
    peer = rows["peer"]
    assert peer["correct"] and peer["command"] and peer["documents"] == 2
    assert peer["mb_per_s"] > 0 and peer["ms_per_document"] > 0 and peer["ratio"] > 0
    assert {"int-2^64", "int-17-digits"} <= set(peer["refused_probes"])  # rfc8785 inside refuses them


def test_trailing_newline_is_a_protocol_option(tmp_path):
    corpus = _corpus(tmp_path, '{"b": 1}')
    cmd = f"nl={_peer(tmp_path, 'nl')}"
    p = fastjcs("bench", corpus, "--json", "--only", "rfc8785", "--impl-cmd", cmd, *QUICK)
    assert p.returncode == 0
    row = next(r for r in json.loads(p.stdout)["rows"] if r["name"] == "nl")
    assert not row["correct"] and "rfc8785-3.2.3-sorting" in row["failed_probes"]
    p = fastjcs("bench", corpus, "--json", "--only", "rfc8785", "--impl-cmd", cmd, "--strip-newline", *QUICK)
    row = next(r for r in json.loads(p.stdout)["rows"] if r["name"] == "nl")
    assert row["correct"] and row["failed_probes"] == []


def test_a_command_that_cannot_start_is_one_line_exit_2(tmp_path):
    p = fastjcs(
        "bench",
        _corpus(tmp_path, "[1]"),
        "--only",
        "rfc8785",
        "--impl-cmd",
        "ghost=/nonexistent/canonicalizer --flag",
        *QUICK,
    )
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "cannot start", "/nonexistent/canonicalizer")
    p = fastjcs("bench", "--impl-cmd", "no-equals-sign", *QUICK)
    assert p.returncode == 2
    one_line_error(p, "expected NAME=COMMAND")


def test_rfc8785_refusing_one_document_keeps_every_ratio(tmp_path):
    corpus = _corpus(tmp_path, '{"a": 1.5}', '[1, "x"]', BIG)
    p = fastjcs("bench", corpus, "--json", "--only", "rfc8785", "--only", "python", *QUICK)
    assert p.returncode == 0
    rows = {r["name"]: r for r in json.loads(p.stdout)["rows"]}
    base, py = rows["rfc8785"], rows["fastjcs (python)"]
    assert base["documents"] == 2 and list(base["refused"]) == ["2"] and "IntegerDomainError" in base["refused"]["2"]
    assert base["ratio"] == pytest.approx(1.0) and base["ratio_documents"] == 2
    assert py["documents"] == 3 and py["ratio"] > 0 and py["ratio_documents"] == 2
    table = lines(fastjcs("bench", corpus, "--only", "rfc8785", "--only", "python", *QUICK).stdout)
    assert "(2/3 docs)" in table[2] and "(2/3 docs)" in table[3]
    assert any(line.startswith("rfc8785 refused 1 of 3 document(s): #3: IntegerDomainError") for line in table)


def test_a_peer_refusing_some_documents_is_compared_on_the_rest(tmp_path):
    corpus = _corpus(tmp_path, '{"a": 1.5}', BIG.replace("n", "m"), '[1, "x"]')
    p = fastjcs(
        "bench",
        corpus,
        "--json",
        "--mode",
        "object",
        "--only",
        "rfc8785",
        "--only",
        "native",
        "--impl-cmd",
        f"peer={_peer(tmp_path)}",
        *QUICK,
    )
    rows = {r["name"]: r for r in json.loads(p.stdout)["rows"]}
    # in object mode the big integer is a Python int: fastjcs and rfc8785 both refuse it
    assert rows["peer"]["refused"].keys() == {"1"} and rows["peer"]["ratio_documents"] == 2


# ---- batch peers (--peer, --peers) -------------------------------------------------------------


def _serve(candidate=None):
    cmd = [sys.executable, "-m", "fastjcs", "serve-canon"] + (["--candidate", candidate] if candidate else [])
    return " ".join(shlex.quote(a) for a in cmd)


def test_a_batch_peer_is_probed_and_timed_through_one_process(tmp_path):
    corpus = _corpus(tmp_path, '{"b": 1, "a": [1.0, "x"]}', "[1e21]", BIG)
    p = fastjcs(
        "bench",
        corpus,
        "--json",
        "--only",
        "rfc8785",
        "--peer",
        f"rfc8785={_serve('rfc8785')}",
        "--peer",
        f"served={_serve()}",
        *QUICK,
    )
    assert p.returncode == 0, p.stderr
    rows = {r["name"]: r for r in json.loads(p.stdout)["rows"]}
    # the in-process rfc8785 and the one behind the pipe keep a row each
    assert {"rfc8785", "rfc8785 (batch)", "served"} <= set(rows)
    batch = rows["rfc8785 (batch)"]
    assert batch["batch"] and batch["mb_per_s"] > 0 and batch["ratio"] > 0
    assert batch["documents"] == 2 and list(batch["refused"]) == ["2"]  # rfc8785 refuses 2^64
    assert {"int-2^64", "int-17-digits"} <= set(batch["refused_probes"])
    served = rows["served"]
    assert served["correct"] and served["documents"] == 3 and served["refused"] == {}


def test_a_batch_peer_that_cannot_start_is_one_line_exit_2(tmp_path):
    p = fastjcs("bench", _corpus(tmp_path, "[1]"), "--only", "rfc8785", "--peer", "ghost=/nonexistent/peer", *QUICK)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "cannot start", "/nonexistent/peer")


def test_a_peers_manifest_is_read(tmp_path):
    manifest = tmp_path / "peers.json"
    manifest.write_text(json.dumps({"peers": [{"name": "m", "command": _serve(), "protocol": "batch"}]}))
    p = fastjcs("bench", _corpus(tmp_path, "[1]"), "--json", "--only", "rfc8785", "--peers", manifest, *QUICK)
    assert p.returncode == 0, p.stderr
    assert any(r["name"] == "m" and r["correct"] for r in json.loads(p.stdout)["rows"])
    p = fastjcs("bench", "--peers", tmp_path / "absent.json", *QUICK)
    assert p.returncode == 2
    one_line_error(p, "absent.json")


# ---- issue 23: bad durations, and answers checked where they are timed ---------------------------


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--impl-timeout", "nan"), "--impl-timeout: must be a finite number of seconds above 0, not nan"),
        (("--impl-timeout", "0"), "--impl-timeout: must be a finite number of seconds above 0, not 0"),
        (("--impl-timeout", "-1"), "--impl-timeout"),
        (("--min-time", "nan"), "--min-time: must be a finite number of seconds, 0 or more, not nan"),
        (("--min-time", "inf"), "--min-time"),
        (("--min-time", "-1"), "--min-time"),
    ],
)
def test_a_duration_that_is_not_finite_or_positive_is_a_usage_error(args, needle):
    # --impl-timeout nan refused every document with a ValueError and exited 0; --min-time nan hung
    p = fastjcs("bench", "--only", "rfc8785", *args, "--corpus-size", "2000", "--repeat", "1", timeout=60)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, needle)


def test_min_time_nan_is_refused_by_the_library_too():
    with pytest.raises(ValueError, match="min_time"):
        _bench.measure([b"[1]"], min_time=float("nan"), only=["rfc8785"])


def test_a_batch_peer_whose_timed_answers_are_wrong_is_not_jcs_correct(tmp_path):
    # A peer that swaps each pair of answers passes every single-document probe; bench used to
    # call it "JCS-correct: yes". Every answer it times is now held to RFC 8785.
    from pathlib import Path

    fake_peer = Path(__file__).resolve().parents[1] / "lab" / "fake_peer.py"
    swap = " ".join(shlex.quote(a) for a in (sys.executable, str(fake_peer), "swap"))
    corpus = _corpus(tmp_path, "[1]", "[2]", "[3]", "[4]")
    p = fastjcs("bench", corpus, "--json", "--only", "rfc8785", "--peer", f"swap={swap}", "--impl-timeout", "2", *QUICK)
    assert p.returncode == 0, p.stderr
    row = {r["name"]: r for r in json.loads(p.stdout)["rows"]}["swap"]
    assert not row["correct"] and any("timed answers" in f for f in row["failed_probes"]), row


# ---- the table fits 100 columns; --only that matches nothing ------------------------------------


def _widest_result() -> _bench.Result:
    """A result with the widest rows real runs make: every candidate name bench knows (installed
    or not, "(not JCS)" added), a peer named like the longest of interop/setup.sh with " (batch)",
    a --impl-cmd name far past any column, every probe wrong, an error, ratios over part of the
    documents, refusals and commands below the table."""
    found, skipped = canonicalizers.candidates()
    names = [c.name for c in found] + list(skipped) + ["java-json-canonicalization (batch)", "x" * 130]
    every_probe = [p.name for p in probes.PROBES]
    rows = []
    for n, name in enumerate(names):
        row = _bench.Row(name, n % 2 == 0, [] if n % 2 == 0 else every_probe, not_jcs="sorts by code point")
        row.mb_per_s, row.ratio, row.ratio_documents = 123456.7, 0.0123, 12345
        row.refused = {i: "IntegerDomainError: integer beyond 2^53 " * 3 for i in range(5)}
        row.command = "sh -c " + "'node canon.js' " * 10
        row.ms_per_document, row.batch = 12.345, True
        rows.append(row)
    rows[-1].mb_per_s, rows[-1].error = None, "CannotStart: " + "no such file or directory " * 8
    return _bench.Result("text", 10**9, 123456, rows, skipped={**skipped, "orjson": "ImportError: " + "x " * 80})


def test_the_table_fits_100_columns_with_the_widest_rows():
    result = _widest_result()
    table = result.table()
    assert max(len(line) for line in table.splitlines()) <= 100
    assert len(table.splitlines()[0]) < 100  # the name column gave way, not the others
    # nothing was cut: each name is whole in the first column, each note once the wrapping is undone
    rows = table.splitlines()[: table.splitlines().index("text mode; corpus 1000.00 MB in 123456 document(s)")]
    width = rows[0].index(" | ")
    first_column = "".join(line[:width].strip() for line in rows[2:]).replace(" ", "")
    flat = " ".join(table.split())
    for row in result.rows:
        assert row.label.replace(" ", "") in first_column
        assert all(p in flat for p in row.failed_probes)
    assert "CannotStart: no such file or directory" in flat


def test_a_real_table_fits_100_columns():
    p = fastjcs("bench", "--only", "json.dumps", "--only", "rfc8785", *QUICK)
    assert p.returncode == 0
    out = lines(p.stdout)
    assert max(map(len, out)) <= 100, out
    assert "json.dumps (sorted keys) (not JCS) | NO (below)" in out[2] or "json.dumps" in out[3]


@pytest.mark.parametrize(
    "only, needle",
    [
        ("nothing", "no candidate matched --only 'nothing' (candidates here: fastjcs (native), "),
        ("zzz", "no candidate matched --only 'zzz'"),
    ],
)
def test_only_matching_no_candidate_is_exit_2(only, needle):
    p = fastjcs("bench", "--only", "rfc8785", "--only", only, *QUICK)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "fastjcs bench: " + needle.replace("fastjcs (native), ", ""))


def test_only_naming_a_candidate_not_installed_says_so():
    _, skipped = canonicalizers.candidates()
    if not skipped:
        pytest.skip("every known candidate is installed")
    found = [c.name for c in canonicalizers.candidates()[0]]
    absent = next((n for n in skipped if not any(n in f for f in found)), None)  # "jcs" is in "fastjcs"
    if absent is None:
        pytest.skip("every candidate not installed is named inside one that is")
    with pytest.raises(_bench.NoCandidate, match=f"--only '{absent}'.*not installed here"):
        _bench.measure([b"[1]"], only=[absent], min_time=0, repeat=1)
