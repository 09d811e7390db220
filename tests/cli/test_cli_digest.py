"""`fastjcs digest`, one document and JSONL, through a child process."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import textwrap

import pytest
import rfc8785
from _cli import env, fastjcs, lines, one_line_error
from Crypto.Hash import SHA256, SHA384

DOC = b'{"b": 2, "a": [1.5, "\\u00e9"]}'
CANONICAL = b'{"a":[1.5,"\xc3\xa9"],"b":2}'


def sha256(data: bytes) -> str:
    return SHA256.new(data).hexdigest()


# ---- one document ------------------------------------------------------------------------------


def test_one_document_prefixed():
    p = fastjcs("digest", input=DOC)
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"sha256:{sha256(CANONICAL)}\n".encode()
    p = fastjcs("digest", "--algorithm", "sha384", input=DOC)
    assert p.stdout == f"sha384:{SHA384.new(CANONICAL).hexdigest()}\n".encode()


def test_jcs_n_prints_bare_hex():
    text = b'{"id": "r-1", "b": {"c": null}, "a": 1}'
    p = fastjcs("digest", "--profile", "jcs-n", input=text)
    assert p.stdout == (sha256(b'{"a":1,"id":"r-1"}') + "\n").encode()
    # CPB draft -06 withdrew jcs-n: asked for by name, it is computed with one warning line
    assert p.returncode == 0 and p.stderr.decode().splitlines() == [
        "fastjcs digest: warning: jcs-n is withdrawn (CPB draft -06, 2026-08-18): "
        "for checking vintage records only; new digests use jcs"
    ]
    assert fastjcs("digest", input=text).stderr == b""  # jcs (the default): no warning
    p = fastjcs("digest", "--profile", "jcs-n", "--exclude", "id", input=text)
    assert p.stdout == (sha256(b'{"a":1}') + "\n").encode()
    p = fastjcs("digest", "--profile", "jcs-n", "--algorithm", "sha384", input=text)
    assert p.returncode == 2
    one_line_error(p, "SHA-256 only")


def test_bad_document_is_exit_2_with_the_position():
    p = fastjcs("digest", input=b'{"a": 1}\n{"b": 2}')
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "<stdin>:2:1:", "InvalidJSONError", "(byte 9)")
    p = fastjcs("digest", "--algorithm", "sha512", input=DOC)
    assert p.returncode == 2


# ---- JSONL ---------------------------------------------------------------------------------------

GOOD = [b'{"b": 1, "a": "x"}', b"[1, 2, 3]", b'"\\u20ac"', b"true", b'{"n": -0, "m": 1E2}']


def expected(line: bytes, algorithm: str = "sha256") -> str:
    import json

    hash_ = {"sha256": SHA256, "sha384": SHA384}[algorithm]
    return f"{algorithm}:{hash_.new(rfc8785.dumps(json.loads(line))).hexdigest()}"


def test_jsonl_one_line_per_line_in_order_with_failures_in_the_middle_and_at_the_end(tmp_path):
    body = [GOOD[0], b'{"a": 1,}', GOOD[1], b"", GOOD[2], b'{"k": 1, "k": 2}', GOOD[3], b"[1, 2"]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(body))  # no newline after the last line
    p = fastjcs("digest", "--jsonl", path)
    assert p.returncode == 2  # a failed line is bad input (issue 36.10)
    out = lines(p.stdout)
    assert len(out) == len(body)
    for n, (line, got) in enumerate(zip(body, out), 1):
        if n in (2, 4, 6, 8):
            assert got.startswith(f"error:{n}:"), got
        else:
            assert got == expected(line)
    assert out[1].startswith("error:2:9: InvalidJSONError:")
    assert out[3].startswith("error:4:1: InvalidJSONError:")
    assert out[5].startswith("error:6:10: DuplicateKeyError:")
    errors = lines(p.stderr)
    assert len(errors) == 4
    offset_of_line_6 = sum(len(x) + 1 for x in body[:5])
    assert errors[2] == (
        f"fastjcs digest: {path}:6:10: DuplicateKeyError: duplicate member name 'k' (byte {offset_of_line_6 + 9})"
    )
    assert errors[3].startswith(f"fastjcs digest: {path}:8:")


def test_jsonl_sha384_crlf_and_a_final_newline():
    p = fastjcs("digest", "--jsonl", "--algorithm", "sha384", input=GOOD[0] + b"\r\n" + GOOD[1] + b"\n")
    assert p.returncode == 0
    assert lines(p.stdout) == [expected(GOOD[0], "sha384"), expected(GOOD[1], "sha384")]


def test_jsonl_empty_input_has_no_lines():
    p = fastjcs("digest", "--jsonl", input=b"")
    assert p.returncode == 0 and p.stdout == b"" and p.stderr == b""


def test_fail_fast_stops_at_the_first_failed_line():
    body = b"\n".join([GOOD[0], GOOD[1], b"nope", GOOD[2], b"[", GOOD[3]]) + b"\n"
    p = fastjcs("digest", "--jsonl", "--fail-fast", input=body)
    assert p.returncode == 2  # a failed line is bad input (issue 36.10)
    out = lines(p.stdout)
    assert out[:2] == [expected(GOOD[0]), expected(GOOD[1])]
    assert len(out) == 3 and out[2].startswith("error:3:2: InvalidJSONError:")
    assert len(lines(p.stderr)) == 1


def test_jsonl_jcs_n_is_bare_hex():
    p = fastjcs("digest", "--jsonl", "--profile", "jcs-n", input=b'{"a": null, "b": 1}\n{"a": 1.5}\n')
    assert p.returncode == 2  # a failed line is bad input (issue 36.10)
    out = lines(p.stdout)
    assert out[0] == sha256(b'{"b":1}')
    assert out[1].startswith("error:2:7: NonIntegerNumberError:")


def _many_lines(n: int) -> bytes:
    rows = []
    for i in range(n):
        if i % 97 == 13:
            rows.append(b'{"bad": ' + str(i).encode())  # a failure now and then
        else:
            rows.append(b'{"i": %d, "s": "\\u00e9%d", "l": [true, null, %d]}' % (i, i, -i))
    return b"\n".join(rows) + b"\n"


# With the C core, --jobs runs threads (the C call per chunk holds no GIL); on the Python backend,
# or for jcs-n, worker processes. Both must give the bytes of one job.
@pytest.mark.parametrize("workers", [{}, {"FASTJCS_BACKEND": "python"}], ids=["default", "processes"])
@pytest.mark.parametrize("source", ["file", "stdin"])
def test_jobs_2_gives_the_bytes_of_jobs_1(tmp_path, source, workers):
    data = _many_lines(3000)
    path = tmp_path / "many.jsonl"
    path.write_bytes(data)
    args = [path] if source == "file" else []
    stdin = b"" if source == "file" else data
    # small chunks: many of them, cut at line boundaries, reassembled in order
    one = fastjcs("digest", "--jsonl", "--chunk-bytes", "4096", *args, input=stdin)
    two = fastjcs("digest", "--jsonl", "--jobs", "2", "--chunk-bytes", "4096", *args, input=stdin, extra_env=workers)
    whole = fastjcs("digest", "--jsonl", *args, input=stdin)
    assert one.returncode == two.returncode == whole.returncode == 2
    assert one.stdout == two.stdout == whole.stdout
    assert one.stderr == two.stderr == whole.stderr
    out = lines(one.stdout)
    assert len(out) == 3000
    assert sum(x.startswith("error:") for x in out) == len([i for i in range(3000) if i % 97 == 13])
    assert out[13].startswith("error:14:")
    assert out[14] == expected(b'{"i": 14, "s": "\\u00e9%d", "l": [true, null, -14]}'.replace(b"%d", b"14"))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_lines_shorter_and_longer_than_a_chunk(tmp_path, jobs):
    """Chunks of 1000 bytes, lines from a few bytes to several chunks long: each line is digested
    once and whole, from a file and from a pipe, with the read buffers reused from chunk to chunk."""
    import random

    rng = random.Random(5)
    body = [b'{"s": "%s", "n": %d}' % (b"x" * rng.choice([0, 10, 900, 995, 1000, 2500, 7000]), i) for i in range(300)]
    data = b"\n".join(body) + b"\n"
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(data)
    want = "".join(expected(line) + "\n" for line in body).encode()
    for args, stdin in (([path], b""), ([], data)):
        p = fastjcs("digest", "--jsonl", "--jobs", jobs, "--chunk-bytes", "1000", *args, input=stdin)
        assert (p.returncode, p.stderr) == (0, b"") and p.stdout == want


def test_jobs_2_fail_fast():
    data = _many_lines(500)
    p = fastjcs("digest", "--jsonl", "--jobs", "2", "--fail-fast", "--chunk-bytes", "1000", input=data)
    assert p.returncode == 2  # a failed line is bad input (issue 36.10)
    out = lines(p.stdout)
    assert len(out) == 14 and out[-1].startswith("error:14:")


def test_unreadable_file_is_exit_2():
    p = fastjcs("digest", "--jsonl", "/nonexistent.jsonl")
    assert p.returncode == 2
    one_line_error(p, "/nonexistent.jsonl")


# ---- progress bar --------------------------------------------------------------------------------

STUB_TQDM = textwrap.dedent("""\
    import sys
    class tqdm:
        def __init__(self, total=None, file=None, **kw):
            self.file = file or sys.stderr
            self.file.write(f"STUB-TQDM total={total}\\n")
        def update(self, n):
            self.file.write(f"STUB-TQDM update={n}\\n")
        def close(self):
            self.file.write("STUB-TQDM close\\n")
""")


@pytest.fixture
def stub_tqdm(tmp_path):
    """A tqdm stand-in on the child's path: it says on stderr when it is used."""
    (tmp_path / "stub").mkdir()
    (tmp_path / "stub" / "tqdm.py").write_text(STUB_TQDM)
    paths = [str(tmp_path / "stub")] + [p for p in env().get("PYTHONPATH", "").split(os.pathsep) if p]
    return {"PYTHONPATH": os.pathsep.join(paths)}


def _run_with_terminal_stderr(args, extra_env):
    """Run fastjcs with stderr on a pseudo-terminal; return (returncode, stdout, terminal text)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastjcs", *map(str, args)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env(extra_env),
    )
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read()
    proc.wait(30)
    os.close(master)
    return proc.returncode, out, seen.decode("utf-8", "replace")


def test_progress_bar_on_a_terminal_for_a_file(tmp_path, stub_tqdm):
    path = tmp_path / "in.jsonl"
    path.write_bytes(_many_lines(200))
    code, out, terminal = _run_with_terminal_stderr(["digest", "--jsonl", path], stub_tqdm)
    assert code == 2 and len(lines(out)) == 200
    assert f"STUB-TQDM total={path.stat().st_size}" in terminal
    assert "STUB-TQDM close" in terminal
    code, out, terminal = _run_with_terminal_stderr(["digest", "--jsonl", "--no-progress", path], stub_tqdm)
    assert "STUB-TQDM" not in terminal and len(lines(out)) == 200


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path, stub_tqdm):
    path = tmp_path / "in.jsonl"
    path.write_bytes(_many_lines(200))
    p = fastjcs("digest", "--jsonl", path, extra_env=stub_tqdm)
    assert p.returncode == 2  # a failed line is bad input (issue 36.10)
    assert b"STUB-TQDM" not in p.stderr
    assert len(lines(p.stderr)) == len([i for i in range(200) if i % 97 == 13])


def test_no_progress_bar_for_stdin_even_on_a_terminal(tmp_path, stub_tqdm):
    path = tmp_path / "in.jsonl"
    path.write_bytes(_many_lines(50))
    master, slave = pty.openpty()
    with open(path, "rb") as f:
        p = subprocess.run(
            [sys.executable, "-m", "fastjcs", "digest", "--jsonl"],
            stdin=f,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=env(stub_tqdm),
            timeout=60,
        )
    os.close(slave)
    seen = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            seen += os.read(master, 4096)
        except OSError:
            break
    os.close(master)
    assert p.returncode == 2 and len(lines(p.stdout)) == 50
    assert b"STUB-TQDM" not in seen and b"InvalidJSONError" in seen


def test_works_without_tqdm(tmp_path):
    """Where tqdm is not installed, a terminal gets fastjcs's own bar (drawn, then wiped; none with
    --no-progress) and the digests are the same (issue 36.11)."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "tqdm.py").write_text("raise ImportError('tqdm is not installed here')\n")
    paths = [str(blocker)] + [p for p in env().get("PYTHONPATH", "").split(os.pathsep) if p]
    path = tmp_path / "in.jsonl"
    path.write_bytes(_many_lines(20))
    blocked = {"PYTHONPATH": os.pathsep.join(paths)}
    code, out, terminal = _run_with_terminal_stderr(["digest", "--jsonl", path], blocked)
    assert code == 2 and len(lines(out)) == 20
    size = f"{path.stat().st_size / (1 << 20):.1f} MiB"
    assert f"\rdigest: {size} of {size} (100%)" in terminal and "STUB" not in terminal
    assert terminal.rstrip("\r").rsplit("\r", 1)[-1].strip() == ""  # wiped: blanks over the last one
    code, out, terminal = _run_with_terminal_stderr(["digest", "--jsonl", "--no-progress", path], blocked)
    assert code == 2 and len(lines(out)) == 20 and "digest: " not in terminal.replace("fastjcs digest: ", "")
    # Many chunks: the bar is drawn when a later chunk's failure is reported, and wiped first, so
    # each message stands alone on its line as the terminal shows it (carriage returns applied).
    path.write_bytes(_many_lines(400))
    code, out, terminal = _run_with_terminal_stderr(["digest", "--jsonl", "--chunk-bytes", "300", path], blocked)
    assert code == 2 and len(lines(out)) == 400
    shown = [_as_shown(line) for line in terminal.split("\n")]
    messages = [line for line in shown if "fastjcs digest:" in line]
    assert len(messages) == len([i for i in range(400) if i % 97 == 13])
    assert all(line.startswith("fastjcs digest: ") for line in messages), messages


def _as_shown(line: str) -> str:
    """A terminal line as a terminal shows it: each carriage return writes over it from the left."""
    cells: list[str] = []
    for segment in line.split("\r"):
        cells[: len(segment)] = segment
    return "".join(cells).rstrip()


def test_integers_only_one_text_and_jsonl():
    p = fastjcs("digest", "--integers-only", input=b'{"a": 1.5}')
    assert p.returncode == 2
    one_line_error(p, "NonIntegerNumberError", "<stdin>:1:7:")
    assert fastjcs("digest", "--integers-only", input=GOOD[0]).stdout.decode().strip() == expected(GOOD[0])
    p = fastjcs(
        "digest", "--jsonl", "--integers-only", input=b"\n".join([GOOD[0], b"[1e2]", b"[9007199254740993]", GOOD[1]])
    )
    assert p.returncode == 2  # a failed line is bad input (issue 36.10)
    out = lines(p.stdout)
    assert out[0] == expected(GOOD[0]) and out[3] == expected(GOOD[1])
    assert out[1].startswith("error:2:") and "NonIntegerNumberError" in out[1]
    assert out[2].startswith("error:3:") and "IntegerDomainError" in out[2]


def test_jobs_are_bounded_by_the_cpus_and_the_work(tmp_path, backend, monkeypatch):
    """Finding 10 of issue 23: `--jobs 1000` forked 1,000 workers for a 100 KB file on the Python
    backend (13.3 s instead of 0.3 s), and with the C core `--jobs 100000` read 2 x 100,000
    chunks ahead (432 MB for a 289 MB file, 38 MB with 2). Now the pool gets at most one worker
    per CPU and the read-ahead is 2 chunks per worker; the answer is the one of --jobs 1."""
    import concurrent.futures as cf
    import io

    from fastjcs.bulk import jsonl as jl

    seen = {"workers": [], "ahead": []}
    for name in ("ThreadPoolExecutor", "ProcessPoolExecutor"):
        real = getattr(cf, name)

        def spy(workers, *a, _real=real, **kw):
            seen["workers"].append(workers)
            return _real(workers, *a, **kw)

        monkeypatch.setattr(cf, name, spy)
    real_in_order = jl._in_order

    def in_order(submit, items, ahead, done):
        seen["ahead"].append(ahead)
        return real_in_order(submit, items, ahead, done)

    monkeypatch.setattr(jl, "_in_order", in_order)
    data = _many_lines(400)
    settings = jl.Settings("sha256", "jcs", (), 1000, False)
    outputs = []
    for jobs in (1, 1000, 100000):
        out = io.BytesIO()
        jl.digest_stream(io.BytesIO(data), settings, jobs, out.write, lambda notes: None, False, chunk=1000)
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] == outputs[2] and outputs[0].count(b"\n") == 400
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    assert seen["workers"] and max(seen["workers"]) <= cpus
    assert max(seen["ahead"]) <= 2 * cpus
    assert jl.workers_for(1000, size=2500, chunk=1000) == min(3, cpus)  # 3 chunks of work
    assert jl.workers_for(1000, size=0, chunk=1000) == 1
    assert jl.workers_for(0) == cpus


def test_a_capped_jobs_request_is_said(tmp_path, cli_backend):
    path = tmp_path / "many.jsonl"
    path.write_bytes(_many_lines(300))
    one = fastjcs("digest", "--jsonl", path, "--chunk-bytes", "1000", extra_env=cli_backend)
    many = fastjcs("digest", "--jsonl", path, "--jobs", "1000", "--chunk-bytes", "1000", extra_env=cli_backend)
    assert many.returncode == one.returncode == 2 and many.stdout == one.stdout
    note, *rest = many.stderr.decode().splitlines()
    assert note.startswith("fastjcs digest: --jobs 1000: ") and " worker(s) (" in note
    assert int(note.split(": ")[2].split()[0]) <= (os.cpu_count() or 1)
    assert "\n".join(rest) + "\n" == one.stderr.decode()
    missing = fastjcs("digest", "--jsonl", tmp_path / "absent.jsonl", "--jobs", "1000", extra_env=cli_backend)
    assert missing.returncode == 2
    one_line_error(missing, "absent.jsonl: No such file or directory")  # no word of --jobs before it


# ---- JSON Lines as a user meets it (issue 36.10) -------------------------------------------------


@pytest.mark.parametrize("blank", [b"", b"   ", b"\t\r"], ids=["empty", "spaces", "tab-cr"])
def test_a_blank_line_is_said_to_be_one(cli_backend, blank):
    p = fastjcs("digest", "--jsonl", input=GOOD[0] + b"\n" + blank + b"\n" + GOOD[1] + b"\n", extra_env=cli_backend)
    assert p.returncode == 2
    out = lines(p.stdout)
    assert out[0] == expected(GOOD[0]) and out[2] == expected(GOOD[1])
    assert (
        out[1]
        == f"error:2:{len(blank) + 1}: InvalidJSONError: a blank line (JSON Lines holds one JSON text on every line)"
    )
    assert "a blank line" in one_line_error(p, "<stdin>:2:")


def test_a_truncated_line_is_not_called_blank(cli_backend):
    p = fastjcs("digest", "--jsonl", input=b"[1,\n", extra_env=cli_backend)
    assert lines(p.stdout) == ["error:1:4: InvalidJSONError: unexpected end of input, expected a value"]


def test_a_blank_line_is_said_to_be_one_under_jcs_n_too():
    p = fastjcs("digest", "--jsonl", "--profile", "jcs-n", input=b'{"a": 1}\n\n')
    assert p.returncode == 2 and lines(p.stdout)[1].endswith(
        "a blank line (JSON Lines holds one JSON text on every line)"
    )


def test_json_lines_without_jsonl_gets_a_hint(tmp_path, cli_backend):
    (tmp_path / "log.jsonl").write_bytes(GOOD[0] + b"\n" + GOOD[1] + b"\n")
    p = fastjcs("digest", "log.jsonl", cwd=tmp_path, extra_env=cli_backend)
    assert p.returncode == 2
    one_line_error(p, "log.jsonl:2:1:", "expected end of input", "give --jsonl")
    p = fastjcs("digest", input=b"[1] 2", extra_env=cli_backend)  # two values on one line: no such hint
    assert "--jsonl" not in one_line_error(p, "expected end of input")


def test_one_exit_rule_for_a_bad_line_stated_in_help():
    top, digest = fastjcs("--help").stdout.decode(), fastjcs("digest", "--help").stdout.decode()
    assert "2 bad input or usage (a FILE or a line of JSON Lines" in " ".join(top.split())
    assert "makes the exit status 2" in " ".join(digest.split())
    p = fastjcs("digest", input=b"[1,]")  # a document that is not JSON: 2, as a line that is not
    assert p.returncode == 2
