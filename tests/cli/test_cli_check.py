"""`fastjcs check`: the CPB checker's verdicts and exit codes, through a child process."""

from __future__ import annotations

import json

from _cli import fastjcs, lines, one_line_error


def test_verified_is_exit_0():
    p = fastjcs("check", input=b'{"type": "action", "payload": {"n": 0, "list": [null, [], {}]}}')
    assert (p.returncode, p.stdout, p.stderr) == (0, b"verified\n", b"")


def test_non_conforming_lists_rule_path_code_and_position(tmp_path):
    path = tmp_path / "record.json"
    path.write_bytes(b'{"a": {"b": null},\n "c": 12.50, "d": [{"e": []}],\n "f": 1, "f\\u0301": 2}')
    p = fastjcs("check", path)
    assert p.returncode == 1 and p.stderr == b""
    assert lines(p.stdout) == [  # f and f+U+0301 are not NFC-equal: no R for them
        "non-conforming",
        f'P $["a"]["b"] empty-member {path}:1:8',
        f'R $["c"] non-integer-number {path}:2:7',
        f'P $["d"][0]["e"] empty-member {path}:2:21',
    ]


def test_duplicates_are_rule_r():
    p = fastjcs("check", input=b'{"a": 1, "a": 2}')
    assert p.returncode == 1
    assert lines(p.stdout) == ["non-conforming", 'R $["a"] duplicate-name <stdin>:1:10']


def test_duplicate_after_nfc_is_rule_r():
    p = fastjcs("check", input='{"\u00e9": 1, "e\u0301": 2}'.encode())
    assert p.returncode == 1
    assert lines(p.stdout)[1].startswith('R $["e\u0301"] duplicate-name <stdin>:1:')


def test_json_output():
    p = fastjcs("check", "--json", input=b'{"x": -0, "y": {}}')
    assert p.returncode == 1
    body = json.loads(p.stdout)
    assert body["verdict"] == "non-conforming"
    assert [(v["path"], v["rule"], v["code"], v["line"], v["column"]) for v in body["violations"]] == [
        ('$["x"]', "R", "non-integer-number", 1, 7),
        ('$["y"]', "P", "empty-member", 1, 11),
    ]
    p = fastjcs("check", "--json", input=b"[1]")
    assert p.returncode == 0 and json.loads(p.stdout) == {"verdict": "verified", "violations": []}


def test_not_json_is_exit_2_with_the_position():
    p = fastjcs("check", input=b"[1,]")
    assert p.returncode == 2
    one_line_error(p, "<stdin>:1:4:", "InvalidJSONError")
    p = fastjcs("check", "--max-depth", "1", input=b"[[1]]")
    assert p.returncode == 2
    one_line_error(p, "DepthLimitError")


# ---- several FILEs (issue 36.7) -------------------------------------------------------------------


def test_several_files_each_verdict_named(tmp_path):
    (tmp_path / "good.json").write_bytes(b'{"a": 1}')
    (tmp_path / "bad.json").write_bytes(b'{"a": null}')
    p = fastjcs("check", "good.json", "bad.json", "good.json", cwd=tmp_path)
    assert (p.returncode, p.stderr) == (1, b"")
    assert lines(p.stdout) == [
        "good.json: verified",
        "bad.json: non-conforming",
        'P $["a"] empty-member bad.json:1:2',
        "good.json: verified",
    ]
    p = fastjcs("check", "good.json", "good.json", cwd=tmp_path)
    assert (p.returncode, lines(p.stdout)) == (0, ["good.json: verified", "good.json: verified"])


def test_several_files_as_json_lines(tmp_path):
    (tmp_path / "good.json").write_bytes(b"[1]")
    (tmp_path / "bad.json").write_bytes(b'{"x": 1.5}')
    p = fastjcs("check", "--json", "good.json", "-", input=b'{"x": 1.5}', cwd=tmp_path)
    assert p.returncode == 1
    first, second = map(json.loads, lines(p.stdout))
    assert first == {"file": "good.json", "verdict": "verified", "violations": []}
    assert second["file"] == "<stdin>" and second["verdict"] == "non-conforming"


def test_several_files_one_not_json_is_exit_2_and_the_others_checked(tmp_path):
    (tmp_path / "good.json").write_bytes(b"[1]")
    (tmp_path / "bad.json").write_bytes(b'{"a": null}')
    (tmp_path / "broken.json").write_bytes(b"[1,]")
    p = fastjcs("check", "broken.json", "bad.json", "missing.json", "good.json", cwd=tmp_path)
    assert p.returncode == 2  # bad input outranks a negative verdict
    assert lines(p.stdout) == ["bad.json: non-conforming", 'P $["a"] empty-member bad.json:1:2', "good.json: verified"]
    err = lines(p.stderr)
    assert err[0].startswith("fastjcs check: broken.json:1:4: InvalidJSONError") and len(err) == 2
    assert err[1] == "fastjcs check: missing.json: No such file or directory"
    p = fastjcs("check", "-", "-", cwd=tmp_path)
    assert p.returncode == 2
    one_line_error(p, "'-' (stdin) can be given once")
