"""Several FILEs for `canon` and `digest`, `digest --check` (sha256sum -c's habits) and
`digest --expect`, on both backends.

Expected digests are hashlib's over canonical bytes written out by hand (RFC 8785 sorts the
members and writes 1.0 as 1, 1e2 as 100), never fastjcs's own output.
"""

from __future__ import annotations

import hashlib

import pytest
from _cli import fastjcs, lines, one_line_error

A_TEXT, A_CANON = b'{"b": 2, "a": 1}\n', b'{"a":1,"b":2}'
B_TEXT, B_CANON = b"[1.0, 1e2]\n", b"[1,100]"


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha384(data: bytes) -> str:
    return "sha384:" + hashlib.sha384(data).hexdigest()


@pytest.fixture
def two(tmp_path):
    (tmp_path / "a.json").write_bytes(A_TEXT)
    (tmp_path / "b.json").write_bytes(B_TEXT)
    return tmp_path


# ---- canon -------------------------------------------------------------------------------------


def test_canon_several_files_one_canonical_form_per_line(two, cli_backend):
    p = fastjcs("canon", "a.json", "-", "b.json", input=b'{"z": [], "y": 1E0}', cwd=two, extra_env=cli_backend)
    assert p.returncode == 0 and p.stderr == b""
    assert p.stdout == A_CANON + b"\n" + b'{"y":1,"z":[]}\n' + B_CANON + b"\n"
    one = fastjcs("canon", "a.json", cwd=two, extra_env=cli_backend)  # one FILE: no newline, as before
    assert one.stdout == A_CANON


def test_canon_several_files_into_one_output_all_or_nothing(two, cli_backend):
    (two / "bad.json").write_bytes(b'{"a": 1,}')
    (two / "out.jsonl").write_bytes(b"before")
    p = fastjcs("canon", "a.json", "bad.json", "-o", "out.jsonl", cwd=two, extra_env=cli_backend)
    assert p.returncode == 2
    one_line_error(p, "fastjcs canon: bad.json:1:9:")
    assert (two / "out.jsonl").read_bytes() == b"before"  # an error: PATH as it was
    assert sorted(x.name for x in two.iterdir()) == ["a.json", "b.json", "bad.json", "out.jsonl"]
    p = fastjcs("canon", "a.json", "b.json", "-o", "out.jsonl", cwd=two, extra_env=cli_backend)
    assert p.returncode == 0 and (two / "out.jsonl").read_bytes() == A_CANON + b"\n" + B_CANON + b"\n"


def test_canon_several_files_stops_at_the_first_that_fails(two, cli_backend):
    p = fastjcs("canon", "a.json", "missing.json", "b.json", cwd=two, extra_env=cli_backend)
    assert p.returncode == 2
    one_line_error(p, "fastjcs canon: missing.json: No such file or directory")
    assert p.stdout == A_CANON + b"\n"  # never b.json's form where missing.json's would be


def test_canon_check_several_files(two, cli_backend):
    (two / "c.json").write_bytes(A_CANON)
    assert fastjcs("canon", "--check", "c.json", "c.json", cwd=two, extra_env=cli_backend).returncode == 0
    p = fastjcs("canon", "--check", "c.json", "a.json", cwd=two, extra_env=cli_backend)
    assert p.returncode == 1 and p.stdout == b""
    one_line_error(p, "a.json: not in canonical form")


def test_stdin_once(two):
    for command in ("canon", "digest"):
        p = fastjcs(command, "-", "a.json", "-", cwd=two)
        assert p.returncode == 2
        one_line_error(p, "'-' (stdin) can be given once")


# ---- digest with several FILEs -------------------------------------------------------------------


def test_digest_several_files_as_sha256sum_prints_them(two, cli_backend):
    p = fastjcs("digest", "a.json", "b.json", "-", input=B_TEXT, cwd=two, extra_env=cli_backend)
    assert p.returncode == 0 and p.stderr == b""
    assert lines(p.stdout) == [f"{sha256(A_CANON)}  a.json", f"{sha256(B_CANON)}  b.json", f"{sha256(B_CANON)}  -"]
    one = fastjcs("digest", "a.json", cwd=two, extra_env=cli_backend)  # one FILE: named too (issue 36.5)
    assert lines(one.stdout) == [f"{sha256(A_CANON)}  a.json"]
    alone = fastjcs("digest", input=A_TEXT, extra_env=cli_backend)  # stdin alone: the digest alone
    assert lines(alone.stdout) == [sha256(A_CANON)]
    assert lines(fastjcs("digest", "-", input=A_TEXT).stdout) == [sha256(A_CANON)]


def test_digest_several_files_goes_on_past_a_bad_one(two, cli_backend):
    (two / "bad.json").write_bytes(b"[1,]")
    p = fastjcs("digest", "a.json", "bad.json", "missing.json", "b.json", cwd=two, extra_env=cli_backend)
    assert p.returncode == 2  # the others digested, as sha256sum does; never exit 0
    assert lines(p.stdout) == [f"{sha256(A_CANON)}  a.json", f"{sha256(B_CANON)}  b.json"]
    err = p.stderr.decode().splitlines()
    assert len(err) == 2 and err[0].startswith("fastjcs digest: bad.json:1:4:") and "missing.json" in err[1]


def test_digest_jsonl_takes_several_files_each_in_turn(two, cli_backend):
    """Each FILE's lines in turn, numbered within it, its failures named with it (issue 36.7);
    a FILE that cannot be read is one line on stderr, and the others go on (exit 2)."""
    (two / "x.jsonl").write_bytes(A_TEXT + b"[1,\n")  # a last line with no value after its comma
    p = fastjcs("digest", "--jsonl", "x.jsonl", "missing.jsonl", "b.json", cwd=two, extra_env=cli_backend)
    assert p.returncode == 2
    assert lines(p.stdout) == [
        sha256(A_CANON),
        "error:2:4: InvalidJSONError: unexpected end of input, expected a value",
        sha256(B_CANON),
    ]
    err = lines(p.stderr)
    assert err[0].startswith("fastjcs digest: x.jsonl:2:4: InvalidJSONError") and err[0].endswith("(byte 20)")
    assert err[1] == "fastjcs digest: missing.jsonl: No such file or directory" and len(err) == 2
    p = fastjcs("digest", "--jsonl", "a.json", "b.json", cwd=two, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout), p.stderr) == (0, [sha256(A_CANON), sha256(B_CANON)], b"")


def test_digest_jsonl_fail_fast_stops_at_the_first_file_that_fails(two):
    (two / "x.jsonl").write_bytes(b"[1,]\n" + A_TEXT)
    p = fastjcs("digest", "--jsonl", "--fail-fast", "x.jsonl", "b.json", cwd=two)
    assert p.returncode == 2 and lines(p.stdout) == [
        "error:1:4: InvalidJSONError: unexpected character ']', expected a value"
    ]


def test_digest_several_files_refuses_output_dir(two):
    p = fastjcs("digest", "--jsonl", "a.json", "b.json", "--output-dir", "out", cwd=two)
    assert p.returncode == 2
    one_line_error(p, "--output-dir takes one FILE")


# ---- digest --check ----------------------------------------------------------------------------


def test_check_reads_back_what_digest_printed(two, cli_backend):
    sums = fastjcs("digest", "a.json", "b.json", cwd=two, extra_env=cli_backend).stdout
    (two / "SUMS").write_bytes(sums)
    p = fastjcs("digest", "--check", "SUMS", cwd=two, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout), p.stderr) == (0, ["a.json: OK", "b.json: OK"], b"")
    p = fastjcs("digest", "--check", input=sums, cwd=two, extra_env=cli_backend)  # the list on stdin
    assert (p.returncode, lines(p.stdout)) == (0, ["a.json: OK", "b.json: OK"])


def test_check_a_mismatch_is_failed_and_exit_1(two, cli_backend):
    (two / "SUMS").write_text(f"{sha256(A_CANON)}  a.json\n{sha256(A_CANON)}  b.json\n{sha384(B_CANON)}  b.json\n")
    p = fastjcs("digest", "--check", "SUMS", cwd=two, extra_env=cli_backend)
    assert p.returncode == 1
    assert lines(p.stdout) == ["a.json: OK", "b.json: FAILED", "b.json: OK"]  # each line's own algorithm
    one_line_error(p, "fastjcs digest: WARNING: 1 computed digest(s) did NOT match")


def test_check_an_unreadable_or_undigestable_file_is_failed_and_exit_1(two, cli_backend):
    (two / "bad.json").write_bytes(b'{"a": 1, "a": 2}')
    (two / "SUMS").write_text(
        f"{sha256(A_CANON)}  missing.json\n{sha256(A_CANON)}  bad.json\n{sha256(A_CANON)}  a.json\n"
    )
    p = fastjcs("digest", "--check", "SUMS", cwd=two, extra_env=cli_backend)
    assert p.returncode == 1
    assert lines(p.stdout) == ["missing.json: FAILED open or read", "bad.json: FAILED open or read", "a.json: OK"]
    err = p.stderr.decode().splitlines()
    assert "missing.json: No such file" in err[0] and "bad.json:1:10: DuplicateKeyError" in err[1]
    assert err[2] == "fastjcs digest: WARNING: 2 listed file(s) could not be read or digested"


def test_check_bare_hex_is_sha256_and_jcs_n_is_checked_under_its_profile(two, cli_backend):
    bare = hashlib.sha256(A_CANON).hexdigest()
    (two / "SUMS").write_text(f"{bare}  a.json\n")
    p = fastjcs("digest", "--check", "SUMS", cwd=two, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout)) == (0, ["a.json: OK"])
    (two / "r.json").write_bytes(b'{"id": "r-1", "b": {"c": null}, "a": 1}')
    (two / "N").write_text(hashlib.sha256(b'{"a":1}').hexdigest() + "  r.json\n")  # jcs-n: id excluded, null gone
    p = fastjcs("digest", "--check", "--profile", "jcs-n", "--exclude", "id", "N", cwd=two, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout)) == (0, ["r.json: OK"])
    assert fastjcs("digest", "--check", "N", cwd=two, extra_env=cli_backend).returncode == 1  # under jcs


@pytest.mark.parametrize(
    "text, needle",
    [
        ("garbage\n", "SUMS:1: not a digest line"),
        (f"{sha256(A_CANON)} a.json\n", "SUMS:1: not a digest line"),  # one space
        (f"{sha256(A_CANON)}  a.json\n\n", "SUMS:2: not a digest line"),  # an empty line
        (f"{sha256(A_CANON)}  a.json\nsha512:{'0' * 128}  b.json\n", "SUMS:2: InvalidDigestError"),
        (f"SHA256:{hashlib.sha256(A_CANON).hexdigest()}  a.json\n", "SUMS:1: InvalidDigestError"),  # hex only
        (f"{sha256(A_CANON)} -a.json\n", "SUMS:1: not a digest line"),  # neither ' ' nor '*' (binary)
        (f"{sha256(A_CANON)}  \n", "SUMS:1: not a digest line"),  # no name
        (f"{sha256(A_CANON)}  a\0.json\n", "SUMS:1: the name holds a NUL byte"),
        (f"sha256:{'0' * 63}  a.json\n", "SUMS:1: InvalidDigestError"),
        ("", "SUMS: no digest lines"),
        (f"\\{sha256(A_CANON)}  a\\q.json\n", "SUMS:1: unknown escape"),
    ],
)
def test_check_a_malformed_digests_file_is_exit_2_and_nothing_checked(two, text, needle):
    (two / "SUMS").write_text(text)
    p = fastjcs("digest", "--check", "SUMS", cwd=two)
    assert p.returncode == 2 and p.stdout == b""  # not one file checked: the list is read whole first
    one_line_error(p, "fastjcs digest: " + needle)


def test_check_a_name_with_a_line_break_round_trips_escaped(two, cli_backend):
    (two / "x\ny\\z.json").write_bytes(B_TEXT)
    p = fastjcs("digest", "a.json", "x\ny\\z.json", cwd=two, extra_env=cli_backend)
    assert lines(p.stdout) == [f"{sha256(A_CANON)}  a.json", f"\\{sha256(B_CANON)}  x\\ny\\\\z.json"]  # sha256sum's
    (two / "SUMS").write_bytes(p.stdout)
    p = fastjcs("digest", "--check", "SUMS", cwd=two, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout)) == (0, ["a.json: OK", "\\x\\ny\\\\z.json: OK"])


def test_check_options_that_do_not_apply(two):
    (two / "SUMS").write_text(f"{sha256(A_CANON)}  a.json\n")
    for argv, needle in (
        (["--algorithm", "sha384"], "--algorithm does not go with --check"),
        (["--jsonl"], "--jsonl does not go with --check"),
        (["--expect", sha256(A_CANON)], "give --check (digests files) or --expect DIGEST"),
    ):
        p = fastjcs("digest", "--check", *argv, "SUMS", cwd=two)
        assert p.returncode == 2
        one_line_error(p, needle)


# ---- digest --expect ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected",
    [sha256(A_CANON), hashlib.sha256(A_CANON).hexdigest(), sha384(A_CANON)],
    ids=["sha256", "bare", "sha384"],
)
def test_expect_equal_is_exit_0(two, cli_backend, expected):
    p = fastjcs("digest", "--expect", expected, "a.json", cwd=two, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout), p.stderr) == (0, ["match"], b"")


def test_expect_different_is_exit_1_naming_the_digest(two, cli_backend):
    wrong = sha256(A_CANON)[:-1] + ("0" if sha256(A_CANON)[-1] != "0" else "1")
    p = fastjcs("digest", "--expect", wrong, "-", input=A_TEXT, cwd=two, extra_env=cli_backend)
    assert (p.returncode, lines(p.stdout)) == (1, [f"mismatch: <stdin> digests to {sha256(A_CANON)}"])
    p = fastjcs("digest", "--expect", sha256(A_CANON), "--algorithm", "sha384", "a.json", cwd=two)
    assert p.returncode == 1  # a sha384 digest is never a sha256 one


def test_expect_a_malformed_digest_or_several_files_is_exit_2(two):
    p = fastjcs("digest", "--expect", "sha256:abc", "a.json", cwd=two)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "--expect: InvalidDigestError")
    p = fastjcs("digest", "--expect", sha256(A_CANON), "a.json", "b.json", cwd=two)
    assert p.returncode == 2
    one_line_error(p, "--expect takes one FILE")


def test_digests_are_compared_in_constant_time(monkeypatch):
    """digests_equal (what --expect and --check use) compares the hex by hmac.compare_digest (it
    checks the form first, and means a bare digest as SHA-256); a plain == would pass the equality
    tests above too."""
    import hmac

    from fastjcs import digests_equal

    seen = []
    real = hmac.compare_digest

    def spy(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    hexpart = hashlib.sha256(A_CANON).hexdigest()
    assert digests_equal(sha256(A_CANON), hexpart)
    assert seen == [(hexpart.encode(), hexpart.encode())]
    assert not digests_equal(sha384(A_CANON), hexpart)
    assert not digests_equal(sha256(B_CANON), hexpart)
