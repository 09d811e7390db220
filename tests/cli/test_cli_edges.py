"""One line and exit 2 where a traceback was printed (issue 32, finding 7): out of memory, a name
with a NUL on a `--check` line, vector files nested past Python's recursion limit."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import _cli
import pytest

LIMIT = 450_000 * 1024  # `ulimit -v 450000`: the interpreter fits, a whole /dev/zero does not


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.mark.skipif(
    "libasan" in os.environ.get("LD_PRELOAD", ""),
    reason="under AddressSanitizer (.ci/asan.sh) a memory limit leaves no room for its shadow memory",
)
@pytest.mark.parametrize("argv", [["canon", "/dev/zero"], ["digest", "/dev/zero"], ["digest", "--jsonl", "/dev/zero"]])
def test_out_of_memory_is_one_line_naming_the_input(argv):
    p = subprocess.run(
        [sys.executable, "-m", "fastjcs", *argv],
        env=_cli.env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_limited,
        timeout=120,
    )
    assert p.returncode == 2, p.stderr[-2000:]
    _cli.one_line_error(p, f"fastjcs {argv[0]}: out of memory: the input /dev/zero did not fit")


def test_a_nul_in_a_check_line_is_one_line(tmp_path):
    (tmp_path / "sums").write_bytes(b"sha256:" + b"0" * 64 + b"  a\0b.json\n")
    p = _cli.fastjcs("digest", "--check", "sums", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert b"Traceback" not in p.stderr and p.stderr.count(b"\n") == 1, p.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["vectors", "vec"],
        ["vectors", "vec/deep.json"],
        ["serve-vector", "vec/deep.json"],
        ["crosscheck", "--impl", "true", "--vectors", "vec"],
    ],
)
def test_a_vector_file_nested_1200_deep_is_one_line(tmp_path, argv):
    (tmp_path / "vec").mkdir()
    (tmp_path / "vec" / "deep.json").write_text('{"id": "x", "input": ' + "[" * 1200 + "]" * 1200 + "}")
    p = _cli.fastjcs(*argv, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert b"Traceback" not in p.stderr and p.stderr.count(b"\n") == 1, p.stderr
