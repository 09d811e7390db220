"""`digest` and `digest --check` as a sha256sum user expects them (issue 36, items 5 and 7; issue 32,
items 12 and 13): a one-file list, the options of `sha256sum -c`, binary-mode lines, either case of
hex, CRLF lines, names that are not UTF-8, and messages that stay on one line.

Where coreutils' sha256sum is installed, each option of --check is run on both tools over the same
files (a file that matches, one changed since it was listed, one gone) and their exit statuses,
their stdout lines and the number of their stderr lines are compared: sha256sum is the reference.
The digests of fastjcs's lists are hashlib's over canonical bytes written by hand.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

import pytest
from _cli import fastjcs, lines, one_line_error

OK_TEXT, OK_CANON = b'{"b": 2, "a": 1}\n', b'{"a":1,"b":2}'
OLD_TEXT, OLD_CANON = b"[1.0, 1e2]\n", b"[1,100]"
SHA256SUM = shutil.which("sha256sum")
needs_sha256sum = pytest.mark.skipif(SHA256SUM is None, reason="coreutils' sha256sum is not installed")


def hexdigest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256(data: bytes) -> str:
    return "sha256:" + hexdigest(data)


@pytest.fixture
def files(tmp_path):
    """ok.json (as listed), changed.json (changed since it was listed), missing.json (listed, gone);
    F: fastjcs's list of them, G: sha256sum's list of the same names (its digests of the raw bytes)."""
    (tmp_path / "ok.json").write_bytes(OK_TEXT)
    (tmp_path / "changed.json").write_bytes(b"[2]\n")
    names = ("ok.json", "changed.json", "missing.json")
    ours = {"ok.json": sha256(OK_CANON), "changed.json": sha256(OLD_CANON), "missing.json": sha256(OK_CANON)}
    raw = {"ok.json": hexdigest(OK_TEXT), "changed.json": hexdigest(OLD_TEXT), "missing.json": hexdigest(OK_TEXT)}
    (tmp_path / "F").write_text("".join(f"{ours[n]}  {n}\n" for n in names))
    (tmp_path / "G").write_text("".join(f"{raw[n]}  {n}\n" for n in names))
    return tmp_path


def sha256sum(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([SHA256SUM, *map(str, args)], cwd=cwd, capture_output=True, timeout=60)


# ---- one FILE is listed with its name (36.5) ---------------------------------------------------


def test_a_one_file_list_is_checked(files, cli_backend):
    p = fastjcs("digest", "ok.json", cwd=files, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout)) == (0, [f"{sha256(OK_CANON)}  ok.json"])
    (files / "SUMS").write_bytes(p.stdout)
    p = fastjcs("digest", "--check", "SUMS", cwd=files, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout), p.stderr) == (0, ["ok.json: OK"], b"")


@needs_sha256sum
def test_one_file_is_named_as_sha256sum_names_it(files):
    ours = fastjcs("digest", "ok.json", cwd=files).stdout.decode().split("  ")
    theirs = sha256sum("ok.json", cwd=files).stdout.decode().split("  ")
    assert ours[1] == theirs[1] == "ok.json\n"  # the same layout: digest, two spaces, the name


# ---- the options of sha256sum -c (36.7), held against sha256sum --------------------------------


@needs_sha256sum
@pytest.mark.parametrize(
    "options",
    [
        (),
        ("--quiet",),
        ("--status",),
        ("--ignore-missing",),
        ("--strict",),
        ("--warn",),
        ("--quiet", "--ignore-missing"),
    ],
    ids=lambda o: " ".join(o) or "default",
)
def test_check_options_do_what_sha256sum_does(files, options):
    theirs = sha256sum("-c", *options, "G", cwd=files)
    ours = fastjcs("digest", "--check", *options, "F", cwd=files)
    assert ours.returncode == theirs.returncode
    assert lines(ours.stdout) == lines(theirs.stdout)
    assert len(lines(ours.stderr)) == len(lines(theirs.stderr)), (ours.stderr, theirs.stderr)


def test_check_options_each_change_what_is_printed(files):
    """Without sha256sum at hand, what each option is for, spelled out."""
    default = fastjcs("digest", "--check", "F", cwd=files)
    assert lines(default.stdout) == ["ok.json: OK", "changed.json: FAILED", "missing.json: FAILED open or read"]
    quiet = fastjcs("digest", "--check", "--quiet", "F", cwd=files)
    assert (quiet.returncode, lines(quiet.stdout)) == (1, ["changed.json: FAILED", "missing.json: FAILED open or read"])
    status = fastjcs("digest", "--check", "--status", "F", cwd=files)
    assert (status.returncode, status.stdout) == (1, b"")
    one_line_error(status, "missing.json: No such file or directory")  # the reason, without the summary
    ignore = fastjcs("digest", "--check", "--ignore-missing", "F", cwd=files)
    assert (ignore.returncode, lines(ignore.stdout)) == (1, ["ok.json: OK", "changed.json: FAILED"])
    (files / "changed.json").write_bytes(OLD_TEXT)
    p = fastjcs("digest", "--check", "--ignore-missing", "--quiet", "F", cwd=files)
    assert (p.returncode, p.stdout, p.stderr) == (0, b"", b"")


@pytest.mark.parametrize("tool", ["fastjcs", pytest.param("sha256sum", marks=needs_sha256sum)])
def test_ignore_missing_with_nothing_verified_fails(files, tool):
    (files / "M").write_text(f"{sha256(OK_CANON) if tool == 'fastjcs' else hexdigest(OK_TEXT)}  missing.json\n")
    p = fastjcs("digest", "--check", "--ignore-missing", "M", cwd=files) if tool == "fastjcs" else None
    p = p or sha256sum("-c", "--ignore-missing", "M", cwd=files)
    assert p.returncode == 1 and p.stdout == b""
    one_line_error(p, "M: no file was verified")


@pytest.mark.parametrize("option", ["--strict", "--warn", None])
def test_a_malformed_line_is_always_an_error_before_any_check(files, option):
    """Stricter than sha256sum, which checks the other lines (and exits 0 without --strict):
    a list fastjcs cannot read whole is not half-checked (exit 2, the line named)."""
    (files / "F").write_text(f"{sha256(OK_CANON)}  ok.json\ngarbage\n")
    p = fastjcs("digest", "--check", *([option] if option else []), "F", cwd=files)
    assert (p.returncode, p.stdout) == (2, b"")
    one_line_error(p, "F:2: not a digest line")


@pytest.mark.parametrize("option", ["--quiet", "--status", "--ignore-missing", "--strict", "--warn"])
def test_check_options_without_check_are_refused(files, option):
    p = fastjcs("digest", option, "ok.json", cwd=files)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, f"{option} applies to --check")


# ---- lines sha256sum writes or reads (36.7, 32.12) --------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        f"{hexdigest(OK_CANON)} *ok.json\n",  # binary mode (sha256sum -b)
        f"{sha256(OK_CANON)} *ok.json\n",
        f"{hexdigest(OK_CANON).upper()}  ok.json\n",  # uppercase hex
        f"sha256:{hexdigest(OK_CANON).upper()}  ok.json\n",
        f"{sha256(OK_CANON)}  ok.json\r\n",  # a list written on Windows
    ],
    ids=["binary", "binary-prefixed", "upper", "upper-prefixed", "crlf"],
)
def test_check_reads_the_lines_sha256sum_reads(files, cli_backend, line):
    (files / "L").write_bytes(line.encode())
    p = fastjcs("digest", "--check", "L", cwd=files, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout), p.stderr) == (0, ["ok.json: OK"], b"")


@needs_sha256sum
@pytest.mark.parametrize("form", ["binary", "upper", "crlf"])
def test_sha256sum_reads_those_lines_too(files, form):
    """The reference for the cases above: sha256sum -c accepts each form (its own digest)."""
    digest = hexdigest(OK_TEXT)
    line = {"binary": f"{digest} *ok.json\n", "upper": f"{digest.upper()}  ok.json\n", "crlf": f"{digest}  ok.json\r\n"}
    (files / "L").write_bytes(line[form].encode())
    p = sha256sum("-c", "L", cwd=files)
    assert (p.returncode, lines(p.stdout)) == (0, ["ok.json: OK"])


def test_expect_takes_uppercase_hex(files, cli_backend):
    for expected in (hexdigest(OK_CANON).upper(), "sha256:" + hexdigest(OK_CANON).upper()):
        p = fastjcs("digest", "--expect", expected, "ok.json", cwd=files, extra_env=cli_backend)
        assert (p.returncode, lines(p.stdout)) == (0, ["match"])
    p = fastjcs("digest", "--expect", "SHA256:" + hexdigest(OK_CANON), "ok.json", cwd=files)
    assert p.returncode == 2  # the algorithm's name is exact: only hex has a case


def test_a_name_that_is_not_utf8_round_trips(files, cli_backend):
    name = os.fsdecode(b"\xff.json")
    (files / name).write_bytes(OK_TEXT)
    p = fastjcs("digest", "ok.json", name, cwd=files, extra_env=cli_backend)
    assert p.returncode == 0
    assert p.stdout.splitlines()[1] == sha256(OK_CANON).encode() + b"  \xff.json"  # its bytes, as sha256sum
    (files / "S2").write_bytes(p.stdout)
    p = fastjcs("digest", "--check", "S2", cwd=files, extra_env=cli_backend)
    assert (p.returncode, p.stdout.splitlines()) == (0, [b"ok.json: OK", b"\xff.json: OK"])


@needs_sha256sum
def test_a_name_that_is_not_utf8_is_written_as_sha256sum_writes_it(files):
    name = os.fsdecode(b"\xff.json")
    (files / name).write_bytes(OK_TEXT)
    ours = fastjcs("digest", name, cwd=files).stdout.split(b"  ", 1)[1]
    theirs = sha256sum(name, cwd=files).stdout.split(b"  ", 1)[1]
    assert ours == theirs == b"\xff.json\n"


# ---- messages stay on one line (32.13) ----------------------------------------------------------


@pytest.mark.parametrize("command", ["canon", "digest", "check"])
def test_a_name_with_a_line_feed_stays_on_one_line(tmp_path, command):
    p = fastjcs(command, "no\nsuch.json", cwd=tmp_path)
    assert p.returncode == 2
    one_line_error(p, "no\\nsuch.json: No such file or directory")


@pytest.mark.parametrize("argv", [["canon"], ["digest"], ["digest", "ok.json"], ["digest", "--check"]])
def test_a_name_with_a_bad_byte_is_escaped(files, argv):
    name = os.fsdecode(b"missing\xff.json")
    if argv[-1] == "--check":
        (files / "L").write_bytes(sha256(OK_CANON).encode() + b"  missing\xff.json\n")
        p = fastjcs(*argv, "L", cwd=files)
        assert p.returncode == 1 and p.stdout == b"missing\xff.json: FAILED open or read\n"
        assert "fastjcs digest: missing\\xff.json: No such file" in p.stderr.decode().splitlines()[0]
        return
    p = fastjcs(*argv, name, cwd=files)
    assert p.returncode == 2
    assert "missing\\xff.json: No such file or directory" in p.stderr.decode()
    assert "udcff" not in p.stderr.decode()
