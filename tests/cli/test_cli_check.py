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
