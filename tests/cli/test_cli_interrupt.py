"""A Ctrl-C (SIGINT) as a user sends it (issue 36, item 6): `digest --jsonl` leaves only whole
lines on stdout, and a digest of one large document notices the signal at once.

The children are started as `fastjcs(...)` starts them (this interpreter, `-m fastjcs`, the same
environment), by Popen, to be signalled while they run.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

from _cli import env

DIGEST_LINE = re.compile(rb"\Asha256:[0-9a-f]{64}\Z")


def _start(argv, cwd, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "fastjcs", *map(str, argv)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
        **kwargs,
    )


def test_ctrl_c_during_digest_jsonl_leaves_whole_lines(tmp_path):
    """The reader holds back until the pipe is full, so the child is blocked in a write when the
    signal comes: the write ends (the reader reads on), then the run stops, every line whole."""
    lines = 300_000
    (tmp_path / "log.jsonl").write_bytes(b"".join(b'{"n": %d, "s": "abcdefgh"}\n' % i for i in range(lines)))
    proc = _start(["digest", "--jsonl", "log.jsonl"], tmp_path)
    first = os.read(proc.stdout.fileno(), 1)  # it runs and writes (unbuffered: communicate reads the fd)
    time.sleep(1.0)  # the pipe (64 KiB) fills and the child waits in a write
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    out = first + out
    assert proc.returncode == 130, err
    assert err.decode().splitlines()[-1] == "fastjcs digest: interrupted (SIGINT)"
    assert out.endswith(b"\n")
    got = out.split(b"\n")[:-1]
    assert 0 < len(got) < lines  # stopped part-way, and not before it began
    assert all(DIGEST_LINE.match(line) for line in got)


def test_ctrl_c_during_one_long_digest_is_noticed_at_once(tmp_path):
    """The digest of one document runs in a worker thread: the main thread handles the signal at
    once. The call stands in for a long C call holding no GIL (a digest of some GB): PBKDF2 with
    10^9 rounds, which ignores signals and runs for minutes; the child ends within the timeout only
    if the signal was handled while the call went on."""
    (tmp_path / "doc.json").write_bytes(b"[" + b"1," * (1 << 20) + b"1]")  # past LONG_CALL_BYTES
    code = (
        "import hashlib, os, sys, fastjcs.core.digests as d, fastjcs.core.files as f\n"
        "def slow(*args, **kwargs):\n"
        "    os.write(1, b'started\\n')  # not print: no lock of stdout's held while the process ends\n"
        "    hashlib.pbkdf2_hmac('sha256', b'k', b's', 10**9)\n"
        "d.digest_text = f.digest_file = slow  # the in-memory and the streamed route\n"
        "from fastjcs.cli import main\n"
        "sys.exit(main(['digest', 'doc.json']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env()
    )
    assert proc.stdout.readline() == b"started\n"
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the signal waited for the call to end") from None
    assert proc.returncode == 130 and err.decode().strip() == "fastjcs digest: interrupted (SIGINT)"
    assert out == b""
