"""`fastjcs interop` and `fastjcs serve-canon`: the lab from the command line.

The counter-examples of a lab that lies: a run that compares nothing exits 0, a command that does
not exist is an acceptance disagreement, a trailing newline is a string bug on every document,
failures hidden from the counters or the exit status. Each has a test here; the matrix itself is
checked against peers that misbehave on purpose (tests/lab/fake_peer.py).
"""

from __future__ import annotations

import base64
import json
import shlex
import sys
from pathlib import Path

import pytest
from _cli import fastjcs, me, one_line_error

FAKE = Path(__file__).resolve().parents[1] / "lab" / "fake_peer.py"
SMALL = ("--corpus", "gen", "--per-category", "3", "--no-progress")


def fake(*modes: str) -> str:
    # Without a preloaded sanitizer runtime (the ASan suite preloads one): this peer's crashes are
    # on purpose, and a sanitizer would report them as findings.
    command = " ".join(shlex.quote(a) for a in (sys.executable, str(FAKE), *modes))
    return f"env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS {command}"


def interop(*args, tmp_path: Path, env=None):
    report = tmp_path / "report.json"
    p = fastjcs("interop", *args, "--json", report, timeout=600, extra_env=env)
    assert p.returncode in (0, 1), p.stderr
    return p, json.loads(report.read_text("utf-8"))


def test_serve_canon_speaks_the_batch_protocol():
    lines = [base64.b64encode(d) for d in (b'{"b":1e2,"a":"\\u00e9"}', b'{"a":1,"a":2}')]
    p = fastjcs("serve-canon", input=b"\n".join(lines) + b"\n")
    assert p.returncode == 0 and p.stderr == b""
    out = p.stdout.splitlines()
    assert out[0] == b"ok " + base64.b64encode('{"a":"\u00e9","b":100}'.encode())
    assert out[1].startswith(b"error DuplicateKeyError") and len(out) == 2


def test_serve_canon_names_an_unknown_candidate_in_one_line():
    p = fastjcs("serve-canon", "--candidate", "no-such-canonicalizer")
    assert p.returncode == 2
    one_line_error(p, "no-such-canonicalizer", "known:")


def test_fastjcs_against_itself_agrees_everywhere(tmp_path, cli_backend):
    # --fastjcs runs `serve-canon` on the backend this process's environment selects (cli_backend's)
    p, report = interop("--fastjcs", *SMALL, "--corpus", "es6:200", tmp_path=tmp_path, env=cli_backend)
    assert p.returncode == 0, p.stdout.decode()
    (result,) = report["results"]
    assert result["ok"] and result["failures"] == 0 and result["answered"] == result["cases"]
    # fastjcs refuses the documents past its own depth limit: a limit, reported, not a failure
    limits = result["totals"].get("limit", 0)
    assert result["totals"] == {"agree": result["cases"] - limits, "limit": limits} and limits >= 6
    assert report["meta"]["cases"] == result["cases"] and result["cells"]["structure"]["limit"] == limits
    assert {"number", "string", "order", "structure", "whitespace", "syntax", "es6"} <= set(result["cells"])
    assert b"all agree" in p.stdout


def test_a_command_that_does_not_exist_compares_nothing_exit_2(tmp_path):
    p = fastjcs("interop", "--peer", "ghost=no-such-command-fastjcs-test", *SMALL)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "nothing compared", "ghost", "cannot start")


def test_a_command_that_cannot_start_beside_one_that_runs_is_a_fault_not_a_disagreement(tmp_path):
    p, report = interop("--fastjcs", "--peer", "ghost=no-such-command-fastjcs-test", *SMALL, tmp_path=tmp_path)
    assert p.returncode == 1
    ok, ghost = report["results"]
    assert ok["ok"] and not ghost["ok"]
    assert ghost["totals"] == {"cannot-start": ghost["cases"]} and ghost["answered"] == 0
    assert "accepts-invalid" not in ghost["totals"] and "refuses-valid" not in ghost["totals"]


def test_counters_agree_with_each_other_and_with_the_exit_status(tmp_path):
    p, report = interop("--peer", f"sorted={fake()}", "--peer", f"ascii={fake('ascii')}", *SMALL, tmp_path=tmp_path)
    assert p.returncode == 1 and not report["ok"]
    for r in report["results"]:
        assert sum(r["totals"].values()) == r["cases"] == report["meta"]["cases"]
        assert sum(sum(c.values()) for c in r["cells"].values()) == r["cases"]
        assert r["failures"] == r["cases"] - r["totals"].get("agree", 0) > 0
        assert r["ok"] is False
        classes = {e["class"] for e in r["examples"]}
        assert classes == set(r["totals"]) - {"agree"}  # a reproducer for every class found
    # json.dumps(sort_keys) gets numbers, order and duplicates wrong; ensure_ascii strings too
    totals = report["results"][1]["totals"]
    assert {"wrong-number", "wrong-order", "wrong-string", "accepts-invalid"} <= set(totals)


@pytest.mark.parametrize("newline, code", [("strip", 0), ("keep", 1)])
def test_a_trailing_newline_is_the_one_shot_protocol_option(tmp_path, newline, code):
    docs = tmp_path / "docs.jsonl"
    docs.write_bytes(b'{"b":[true],"a":"x"}\n[null,"y"]\n')
    p, report = interop(
        "--one-shot",
        f"nl={fake('newline', '--one-shot')}",
        "--newline",
        newline,
        "--corpus",
        str(docs),
        "--no-progress",
        tmp_path=tmp_path,
    )
    assert p.returncode == code
    (r,) = report["results"]
    assert r["totals"] == ({"agree": 2} if newline == "strip" else {"wrong-whitespace": 2})


def test_a_peer_that_hangs_is_a_timeout_counted_and_the_rest_compared(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_bytes(b'["hang"]\n[1]\n{"a":[]}\n')
    p, report = interop(
        "--peer", f"h={fake('hang')}", "--timeout", "0.5", "--corpus", str(docs), "--no-progress", tmp_path=tmp_path
    )
    assert p.returncode == 1
    (r,) = report["results"]
    assert r["totals"] == {"timeout": 1, "agree": 2} and r["answered"] == 2
    assert b"1 timeout" in p.stdout


def test_reports_are_written_markdown_and_html(tmp_path):
    md, page = tmp_path / "m.md", tmp_path / "m.html"
    p = fastjcs(
        "interop",
        "--fastjcs",
        "--peer",
        f"ascii={fake('ascii')}",
        *SMALL,
        "--markdown",
        md,
        "--html",
        page,
        timeout=600,
    )
    assert p.returncode == 1
    text = md.read_text("utf-8")
    assert "| fastjcs |" in text and "| ascii |" in text and "### ascii" in text
    assert page.read_text("utf-8").startswith("<!doctype html>")


@pytest.mark.parametrize(
    "args, needle",
    [
        ((), "no peer to run"),
        (("--fastjcs", "--corpus", "no/such/corpus.jsonl"), "--corpus"),
        (("--fastjcs", "--corpus", "es6:x"), "es6"),
        (("--peers", "no/such/peers.json"), "no/such/peers.json"),
        (("--peer", "a=x", "--peer", "a=y"), "share a name"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args, needle):
    p = fastjcs("interop", *args, "--no-progress")
    assert p.returncode == 2
    one_line_error(p, needle)


def test_progress_goes_to_stderr(tmp_path):
    p = fastjcs("interop", "--fastjcs", "--corpus", "gen", "--per-category", "3")
    assert p.returncode == 0
    assert b"fastjcs: " in p.stderr and b"cases" in p.stderr


# ---- issue 23: the lab's edges ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf"])
def test_a_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(value):
    # nan was a ValueError traceback from select(), exit 1
    p = fastjcs("interop", "--fastjcs", "--timeout", value, "--corpus", "es6:3", "--no-progress")
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, f"--timeout: must be a finite number of seconds above 0, not {value}")


@pytest.mark.parametrize(
    "manifest, needle",
    [
        ({"peers": ["x"]}, "peers[0] is not an object"),
        ({"peers": [{"name": "a"}]}, "peers[0] is not an object"),
        ({"peers": [], "skipped": [1]}, "skipped[0] is not an object"),
        ({"peers": [], "skipped": "none"}, '"skipped" is not a list'),
        ({"peers": {"a": "b"}}, "not a peers manifest"),
        ([], "not a peers manifest"),
    ],
)
def test_a_malformed_manifest_is_one_line_exit_2(tmp_path, manifest, needle):
    # {"peers":["x"]} was an AttributeError traceback, {"skipped":[1]} a TypeError one
    path = tmp_path / "peers.json"
    path.write_text(json.dumps(manifest))
    for command in ("interop", "bench"):
        p = fastjcs(command, "--peers", path, *(("--no-progress",) if command == "interop" else ()))
        assert p.returncode == 2 and p.stdout == b"", command
        one_line_error(p, str(path), needle)


def test_a_manifest_that_is_not_json_is_one_line_exit_2(tmp_path):
    for data in (b'{"peers": [', b"\xff"):
        path = tmp_path / "peers.json"
        path.write_bytes(data)
        p = fastjcs("interop", "--peers", path, "--no-progress")
        assert p.returncode == 2
        one_line_error(p, "not a peers manifest")


def test_a_corpus_file_name_that_is_not_utf8_is_shown_escaped(tmp_path):
    # the name went into the markdown and JSON reports as a lone surrogate: UnicodeEncodeError,
    # exit 1, no matrix
    import os

    name = os.fsdecode(b"\xff.json")
    (tmp_path / name).write_bytes(b'[1]\n{"b":0,"a":1}\n')
    md, js = tmp_path / "m.md", tmp_path / "m.json"
    p = fastjcs("interop", "--fastjcs", "--corpus", tmp_path / name, "--markdown", md, "--json", js, "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "\\xff.json" in md.read_text("utf-8")
    report = json.loads(js.read_text("utf-8"))
    assert "\\xff.json" in report["meta"]["corpus"] and report["results"][0]["cases"] == 2


def test_serve_canon_with_stdin_closed_is_one_line_exit_2():
    # `serve-canon <&-` was an OSError traceback, exit 1
    import subprocess

    p = subprocess.run(["sh", "-c", f"exec {me('serve-canon')} <&-"], capture_output=True, timeout=60)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "<stdin>", "Bad file descriptor")


def _running(pid: int) -> bool:
    """Whether the process runs (a zombie no longer runs: its parent died, init reaps it late)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_terminated_lab_ends_its_peers(tmp_path, sig):
    # the peers run in their own sessions: a SIGTERM ended the lab and left its peer running
    import os
    import signal
    import subprocess
    import time

    pidfile = tmp_path / "pid"
    argv = [sys.executable, "-m", "fastjcs", "interop", "--peer", f"h={fake('pid', 'hang')}"]
    argv += ["--corpus", str(tmp_path / "c.jsonl"), "--timeout", "300", "--no-progress"]
    (tmp_path / "c.jsonl").write_bytes(b'"hang"\n')
    lab = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "FAKE_PID": str(pidfile)}
    )
    try:
        deadline = time.monotonic() + 60
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        peer = int(pidfile.read_text())
        assert _running(peer)
        lab.send_signal(getattr(signal, sig))
        lab.communicate(timeout=60)
        assert lab.returncode != 0
        deadline = time.monotonic() + 10
        while _running(peer) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(peer), "the peer outlived the lab"
    finally:
        lab.kill()
        lab.communicate()
        if pidfile.exists() and pidfile.read_text() and _running(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def test_depth_past_fastjcs_limit_is_a_limit_not_a_peer_defect(tmp_path):
    # A 10,001-deep array against `serve-canon --max-depth 20000`, which answers it correctly, was
    # "accepts-invalid (RFC 8785)", exit 1: RFC 8785 sets no depth limit.
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(b"[" * 10_001 + b"]" * 10_001 + b"\n[1]\n")
    higher = f"{me('serve-canon', '--max-depth', '20000')}"
    p, report = interop("--peer", f"higher={higher}", "--fastjcs", "--corpus", deep, "--no-progress", tmp_path=tmp_path)
    assert p.returncode == 0, p.stdout.decode()
    rows = {r["peer"]["name"]: r for r in report["results"]}
    assert rows["higher"]["totals"] == {"agree": 2} and rows["higher"]["ok"]
    assert rows["fastjcs"]["totals"] == {"agree": 1, "limit": 1} and rows["fastjcs"]["ok"]
    assert "1 limit" in p.stdout.decode()
