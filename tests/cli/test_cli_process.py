"""Every command once as users run it, `python -m fastjcs COMMAND` in a child process, and the same
call in this process (tests/_cli.py's default) gives the same exit status and the same bytes.

The rest of tests/cli runs in this process, through `fastjcs.cli.main(argv)`, except what needs a
real process (signals, broken pipes, closed stdio, /dev/stdin, the environment read at start): this
file keeps each command's way through `__main__`, the interpreter's start and its exit, and holds
the in-process runner to what a child does. Expected answers come from rfc8785 and pycryptodome.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import warnings

import pytest
import rfc8785
from _cli import fastjcs, me
from conftest import SUITES
from Crypto.Hash import SHA256

from fastjcs.core import backends

DOC = b'{"b": [1E2, "\\u00e9", -0.0], "a": {"z": null, "\\u20ac": true}}'
CANON = rfc8785.dumps(json.loads(DOC))
DIGEST = f"sha256:{SHA256.new(CANON).hexdigest()}\n".encode()
EAB_FIELDS = {
    "agent_id": "spiffe://agent.example/payments/prod",
    "action_type": "transfer",
    "action_scope": "account:merchant-7",
    "action_timestamp": "2026-09-10T16:30:00Z",
}
EAB_ARGV = [a for k, v in EAB_FIELDS.items() for a in (f"--{k.replace('_', '-')}", v)]
EAB = rfc8785.dumps({"domain": "cmcp.execution-action-binding", "version": 1, **EAB_FIELDS})
CORPUS = b'{"b":1,"a":[1.5,"x"]}\n[1e21]\n'


def both(*args, timed: bool = False, **kw) -> subprocess.CompletedProcess:
    """The call in a child and in this process: the same status, stdout and stderr (rates and
    durations left out where the output is `timed`); the child's."""
    child = fastjcs(*args, process=True, **kw)
    here = fastjcs(*args, **kw)
    untimed = (lambda b: re.sub(rb"[0-9.,]+(/s| s\b)", b"T", b)) if timed else (lambda b: b)
    assert (here.returncode, untimed(here.stdout), untimed(here.stderr)) == (
        child.returncode,
        untimed(child.stdout),
        untimed(child.stderr),
    )
    return child


def test_canon():
    p = both("canon", input=DOC)
    assert (p.returncode, p.stdout, p.stderr) == (0, CANON, b"")
    p = both("canon", input=b'{"a":1,"a":2}')
    assert p.returncode == 2 and p.stderr.count(b"\n") == 1 and b"DuplicateKeyError" in p.stderr


def test_digest(tmp_path):
    (tmp_path / "doc.json").write_bytes(DOC)
    p = both("digest", "doc.json", cwd=tmp_path)  # a FILE is named, as sha256sum names it
    assert (p.returncode, p.stdout, p.stderr) == (0, DIGEST.rstrip(b"\n") + b"  doc.json\n", b"")
    p = both("digest", "--jsonl", input=DOC + b"\n[1,]\n")  # a bad line is bad input: exit 2
    assert p.returncode == 2 and p.stdout.startswith(DIGEST) and b"error:2:" in p.stdout


def test_check():
    assert both("check", input=b'{"a":[1,"x"]}').returncode == 0
    p = both("check", input=DOC)  # CPB: a null member is non-conforming
    assert p.returncode == 1 and p.stdout.startswith(b"non-conforming\n")


def test_eab():
    p = both("eab", *EAB_ARGV)
    assert (p.returncode, p.stdout) == (0, f"sha256:{SHA256.new(EAB).hexdigest()}\n".encode())


def test_registry(tmp_path):
    child = fastjcs("registry", "create", tmp_path / "child.db", process=True)
    here = fastjcs("registry", "create", tmp_path / "here.db")
    assert child.returncode == here.returncode == 0 and child.stderr == here.stderr == b""
    assert (tmp_path / "child.db").exists() and (tmp_path / "here.db").exists()
    assert here.stdout == child.stdout.replace(b"child.db", b"here.db")


def test_vectors():
    p = both("vectors", SUITES / "eab", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)


def test_serve_vector():
    p = both("serve-vector", SUITES / "cpb" / "jcs-n" / "kat-02-three-level-cascade.json")
    assert p.returncode == 0 and json.loads(p.stdout)["digest"]


def test_serve_canon():
    p = both("serve-canon", input=base64.b64encode(DOC) + b"\n")
    assert (p.returncode, p.stdout) == (0, b"ok " + base64.b64encode(CANON) + b"\n")


def test_crosscheck_and_interop(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_bytes(CORPUS)
    p = both("crosscheck", "--canon-impl", me("canon"), "--corpus", corpus, timed=True, timeout=300)
    assert p.returncode == 0 and b"2 cases each: all agree" in p.stdout, p.stdout
    p = both(
        "interop", "--peer", f"self={me('serve-canon')}", "--fastjcs", "--corpus", corpus, "--no-progress", timed=True
    )
    assert p.returncode == 0, p.stderr


def test_bench():
    quick = ("--json", "--only", "rfc8785", "--min-time", "0.005", "--repeat", "1", "--corpus-size", "2000")
    child, here = fastjcs("bench", *quick, process=True), fastjcs("bench", *quick)
    assert child.returncode == here.returncode == 0
    assert json.loads(child.stdout).keys() == json.loads(here.stdout).keys()  # (the timings differ)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion(shell):
    assert both("completion", shell).stdout


def test_version_and_usage():
    assert both("--version").stdout.startswith(b"fastjcs ")
    assert both("--verbose", "--version").returncode == 0
    assert both("digest", "--help").returncode == 0
    assert both("no-such-command").returncode == 2


# ---- the in-process runner puts back what a call changes -------------------------------------


def _state() -> tuple:
    """What a command may change in the process that runs it."""
    return (
        (sys.stdin, sys.stdout, sys.stderr),
        os.getcwd(),
        dict(os.environ),
        {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE)},
        list(warnings.filters),
        (backends.impl(), backends.why()),
    )


def test_the_in_process_runner_leaves_nothing_behind(tmp_path):
    before = _state()
    other = "python" if backends.backend() == "native" else "native"
    p = fastjcs("canon", "-o", "out.json", input=DOC, cwd=tmp_path, extra_env={"FASTJCS_BACKEND": other, "X_Y": "1"})
    assert p.returncode == 0 and (tmp_path / "out.json").read_bytes() == CANON
    p = fastjcs("digest", "--jsonl", input=b"[1,\n")  # a failure on the way
    assert p.returncode == 2  # a bad line is bad input
    assert _state() == before


def test_the_backend_asked_for_is_the_one_that_runs():
    for name in ("python", "native"):
        if name == "native":
            pytest.importorskip("fastjcs._native_ext")
        p = fastjcs("--version", extra_env={"FASTJCS_BACKEND": name})
        assert p.stdout.endswith(f"({name} backend)\n".encode())


def test_what_only_a_start_reads_runs_in_a_child():
    p = fastjcs("--version", "--verbose", extra_env={"FASTJCS_DIRECT": "0"})
    assert p.returncode == 0
    if backends.backend() == "native":
        assert b"small calls: " in p.stdout and b"direct entry for small work" not in p.stdout


def test_a_command_that_may_fork_workers_runs_in_a_child():
    # fork() in this process, which runs threads, can deadlock the child (3.12 warns of it)
    from _cli import _forks

    assert _forks(["digest", "--jsonl", "--jobs", "2"]) and _forks(["digest", "--jobs=0"]) and _forks(["--jobs"])
    assert not _forks(["digest", "--jsonl", "--jobs", "1"]) and not _forks(["canon", "--jobs=1", "x"])
