"""Issue 25, one cross-check tool: a wrong peer is caught by the default run of whatever command a
user reaches for. For every class of the lab a planted peer (tests/lab/planted.py, BY_CLASS) is
put through `fastjcs crosscheck --canon-impl CMD` (one process per document) and `fastjcs
interop --peer NAME=CMD` (the batch protocol), each with its default corpus: the run exits 1 and
names the class. The two wrong canonicalizers of the issue (duplicate names last-wins, lone
surrogate escapes passed through) are among them; before, `crosscheck --canon-impl` kept a
generator of its own and answered "200 agree, 0 disagree, no disagreement", exit 0, for both.

Only the timeouts differ from the defaults, where a class is about time: `timeout` with
--timeout 2 (a hang costs the whole timeout per case), `slow` with --timeout 30 (the default
could cut a slow answer off on a loaded machine).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _cli import fastjcs, one_line_error
from planted import BY_CLASS

from fastjcs.lab import classify
from fastjcs.lab.peers import CANNOT_START

HERE = Path(__file__).resolve().parent
PEER = HERE / "planted_peer.py"
TIMEOUTS = {"timeout": ("--timeout", "2"), "slow": ("--timeout", "30")}
#: classes a one-shot peer cannot show: any output with exit 0 is an answer
BATCH_ONLY = {"protocol-error"}


def test_every_class_of_the_lab_has_a_planted_peer():
    assert {cls for _, cls in BY_CLASS.values()} | {CANNOT_START} == set(classify.CLASSES)


@pytest.fixture(scope="module")
def planted_server(tmp_path_factory):
    """planted_peer.py --serve on a Unix socket: the one-shot client is a light process."""
    sock = tmp_path_factory.mktemp("planted") / "s"
    server = subprocess.Popen([sys.executable, str(PEER), "--serve", str(sock)])
    for _ in range(200):
        if sock.exists():
            break
        time.sleep(0.05)
    yield str(sock)
    server.terminate()
    server.wait(10)


def _client(sock: str, name: str) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, "-S", str(HERE / "planted_client.py"), sock, name))


def _classes(row: dict) -> set[str]:
    return {cls for cls, n in row["totals"].items() if n and cls in classify.CLASSES}


@pytest.mark.parametrize("name", sorted(n for n, (_, cls) in BY_CLASS.items() if cls not in BATCH_ONLY))
def test_crosscheck_canon_impl_catches_the_planted_peer_of_each_class(planted_server, name):
    cls = BY_CLASS[name][1]
    p = fastjcs("crosscheck", "--canon-impl", _client(planted_server, name), *TIMEOUTS.get(cls, ()), timeout=600)
    assert p.returncode == 1, p.stderr
    out = p.stdout.decode()
    assert f"[{cls}]" in out and "1 with failures (canon-impl)" in out, out
    assert "no disagreement" not in out


def test_crosscheck_json_names_the_class(planted_server):
    p = fastjcs("crosscheck", "--json", "--canon-impl", _client(planted_server, "dupes-last-wins"), timeout=600)
    body = json.loads(p.stdout)
    assert p.returncode == 1 and body["ok"] is False
    (row,) = body["canon"]["results"]
    assert _classes(row) == {"accepts-invalid"}
    assert row["cells"]["structure"]["accepts-invalid"] > 0
    example = row["examples"][0]
    assert example["class"] == "accepts-invalid" and example["reproducer_expected"] == "refused"


def test_crosscheck_canon_impl_of_a_command_that_cannot_start():
    p = fastjcs("crosscheck", "--canon-impl", "/nonexistent/canonicalizer", timeout=600)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "cannot start (exit 127")


def _interop(names, *extra):
    peers = [a for n in names for a in ("--peer", f"{n}={shlex.quote(sys.executable)} {shlex.quote(str(PEER))} {n}")]
    p = fastjcs("interop", "--no-progress", "--json", "/dev/stdout", *peers, *extra, timeout=900, process=True)
    assert p.returncode == 1, p.stderr
    text = p.stdout.decode()
    body = json.loads(text[: text.rindex("\n}") + 2])
    return text, {r["peer"]["name"]: r for r in body["results"]}


def test_interop_catches_the_planted_peer_of_each_class_in_one_default_run():
    names = sorted(n for n, (_, cls) in BY_CLASS.items() if cls not in TIMEOUTS)
    text, rows = _interop([*names, "missing=/nonexistent/canonicalizer"])
    for name in names:
        cls = BY_CLASS[name][1]
        assert rows[name]["ok"] is False and cls in _classes(rows[name]), (name, rows[name]["totals"])
        assert f"{name}: " in text and f"[{cls}]" in text
    assert _classes(rows["missing"]) == {CANNOT_START}


@pytest.mark.parametrize("name", sorted(TIMEOUTS))
def test_interop_catches_the_planted_peers_of_time(name):
    _, rows = _interop([name], *TIMEOUTS[name])
    assert rows[name]["ok"] is False and _classes(rows[name]) == {BY_CLASS[name][1]}
