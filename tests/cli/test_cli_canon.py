"""`fastjcs canon`, through a child process: bytes, exit codes, errors, atomic -o, --check, jcs-n."""

from __future__ import annotations

import json

import rfc8785
from _cli import fastjcs, one_line_error


def test_canonical_bytes_without_trailing_newline():
    p = fastjcs("canon", input=b'{"b": [1E2, "\\u00e9", true], "a": {"\\u20ac": null, "\\r": 0}}\n')
    assert p.returncode == 0, p.stderr
    assert p.stdout == '{"a":{"\\r":0,"\u20ac":null},"b":[100,"\u00e9",true]}'.encode("utf-8")
    assert p.stderr == b""


def test_same_bytes_as_rfc8785_from_a_file(tmp_path):
    value = {"\U0001f602": [-0.0, 1e21, 1e-7, 333333333.3333334], "\ufb33": "\u2028\u007f/", "a": {"x": 1.5}}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(value, indent=2, ensure_ascii=True))
    p = fastjcs("canon", path)
    assert p.returncode == 0, p.stderr
    assert p.stdout == rfc8785.dumps(value)


def test_bad_input_is_one_line_with_the_position():
    p = fastjcs("canon", input=b'{"a": 1,\n  "b": tru}')
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "fastjcs canon: <stdin>:2:11:", "InvalidJSONError", "(byte 19)")


def test_duplicate_key_names_the_file_and_position(tmp_path):
    path = tmp_path / "dup.json"
    path.write_bytes(b'{"a": 1, "a": 2}')
    p = fastjcs("canon", path)
    assert p.returncode == 2
    one_line_error(p, f"{path}:1:10:", "DuplicateKeyError", "'a'")


def test_missing_file_and_bad_usage():
    p = fastjcs("canon", "/nonexistent/x.json")
    assert p.returncode == 2
    one_line_error(p, "/nonexistent/x.json", "No such file")
    assert fastjcs("canon", "--max-depth", "-1").returncode == 2
    assert fastjcs("nosuchcommand").returncode == 2


def test_output_file_is_written_atomically(tmp_path):
    target = tmp_path / "out.json"
    target.write_bytes(b"previous content")
    p = fastjcs("canon", "-o", target, input=b'{"a": [1, 2,]}')
    assert p.returncode == 2
    assert target.read_bytes() == b"previous content"  # untouched on error
    assert [x.name for x in tmp_path.iterdir()] == ["out.json"]  # no temporary file left
    p = fastjcs("canon", "-o", target, input=b'{"b": 1, "a": 2}')
    assert p.returncode == 0 and p.stdout == b""
    assert target.read_bytes() == b'{"a":2,"b":1}'


def test_output_file_gets_the_mode_a_plain_write_would_give(tmp_path):
    """The temporary file is private while written; the result is not (0666 less the umask for a
    new file, the old mode for a replaced one)."""
    import os
    import stat

    new = tmp_path / "new.json"
    assert fastjcs("canon", "-o", new, input=b"[1]").returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask
    kept = tmp_path / "kept.json"
    kept.write_bytes(b"old")
    kept.chmod(0o640)
    assert fastjcs("canon", "-o", kept, input=b"[2]").returncode == 0
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_bytes() == b"[2]"


def test_strict_integers_and_max_depth():
    big = b"[12345678901234567890]"
    assert fastjcs("canon", input=big).stdout == b"[12345678901234567000]"
    p = fastjcs("canon", "--strict-integers", input=big)
    assert p.returncode == 2
    one_line_error(p, "IntegerDomainError", "<stdin>:1:2:")
    assert fastjcs("canon", "--max-depth", "3", input=b"[[[1]]]").returncode == 0
    p = fastjcs("canon", "--max-depth", "2", input=b"[[[1]]]")
    assert p.returncode == 2
    one_line_error(p, "DepthLimitError")


def test_integers_only():
    assert fastjcs("canon", input=b"[1.0, -0]").stdout == b"[1,0]"
    p = fastjcs("canon", "--integers-only", input=b"[-0, 1.0]")
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "NonIntegerNumberError", "<stdin>:1:6:")
    p = fastjcs("canon", "--integers-only", input=b"[9007199254740992]")  # implies strict integers
    one_line_error(p, "IntegerDomainError", "<stdin>:1:2:")
    assert fastjcs("canon", "--integers-only", input=b"[-0, 9007199254740991]").stdout == b"[0,9007199254740991]"


def test_deep_nesting_is_an_error_not_a_crash():
    p = fastjcs("canon", input=b"[" * 1_000_000)
    assert p.returncode == 2
    one_line_error(p, "DepthLimitError")


def test_check_says_whether_the_input_is_canonical(tmp_path):
    assert fastjcs("canon", "--check", input=b'{"a":1,"b":[]}').returncode == 0
    p = fastjcs("canon", "--check", input=b'{"b":[],"a":1}')
    assert p.returncode == 1 and p.stdout == b""
    one_line_error(p, "not in canonical form")
    assert fastjcs("canon", "--check", input=b'{"a":1.0}').returncode == 1
    assert fastjcs("canon", "--check", input=b'{"a":1}\n').returncode == 1  # the newline is not canonical
    assert fastjcs("canon", "--check", input=b'{"a":').returncode == 2


def test_jcs_n_profile_normalizes_and_excludes():
    text = b'{"id": "x", "b": {"c": null, "d": []}, "a": [null, {}], "e": 1}'
    assert fastjcs("canon", "--profile", "jcs-n", input=text).stdout == b'{"a":[null,{}],"e":1,"id":"x"}'
    p = fastjcs("canon", "--profile", "jcs-n", "--exclude", "id", "--exclude", "e", input=text)
    assert p.stdout == b'{"a":[null,{}]}'
    p = fastjcs("canon", "--profile", "jcs-n", input=b'{"a": 1.5}')
    assert p.returncode == 2
    one_line_error(p, "NonIntegerNumberError", '$["a"]', "<stdin>:1:7:")
    p = fastjcs("canon", "--exclude", "id", input=text)
    assert p.returncode == 2
    one_line_error(p, "--exclude applies to --profile jcs-n")


def test_version():
    p = fastjcs("--version")
    assert p.returncode == 0 and p.stdout.startswith(b"fastjcs ")
