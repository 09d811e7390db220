"""`fastjcs crosscheck` and `fastjcs serve-vector`: both directions of the two protocols.

Against fastjcs itself (the Python backend, in another process) nothing is found; against a
canonicalizer built on json.dumps(sort_keys=True) the lab's wrong-number, wrong-order and (with
ensure_ascii) wrong-string classes are each found and shrunk (--canon-impl is a one-shot peer of
the interop lab: tests/lab/test_planted_classes.py holds its default run to a planted peer of
every class); against vector answerers that refuse, skip or echo, exactly the vectors they get
wrong are reported.
"""

from __future__ import annotations

import json
import shlex
import sys

import pytest
from _cli import fastjcs, lines, me, one_line_error
from conftest import REPO, SUITES, UPSTREAM

from fastjcs.lab import classify, peers
from fastjcs.lab import crosscheck as cc

KATS = SUITES / "cpb" / "jcs-n"
CHECKS = SUITES / "cpb" / "cpb-check"
EAB_ACCEPT = SUITES / "eab" / "eab-accept.json"
WRONG = " ".join(shlex.quote(a) for a in (sys.executable, str(REPO / "tests" / "wrong_canon.py")))
PY_CANON = "FASTJCS_BACKEND=python " + me("canon")


def crosscheck(*args, cwd=None):
    p = fastjcs("crosscheck", "--json", "--parallel", "4", *args, timeout=300, cwd=cwd)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


# ---- serve-vector ------------------------------------------------------------------------------


def test_serve_vector_answers_a_kat_with_its_pinned_bytes():
    path = KATS / "kat-02-three-level-cascade.json"
    pinned = json.loads(path.read_text("utf-8"))
    p = fastjcs("serve-vector", path)
    assert p.returncode == 0
    body = json.loads(p.stdout)
    assert body == {"pre_image": pinned["pre_image"], "digest": pinned["digest"]}


def test_serve_vector_refuses_a_must_fail_vector():
    p = fastjcs("serve-vector", input=(KATS / "kat-12-must-fail-one-point-zero.json").read_bytes())
    assert p.returncode == 1 and p.stdout == b""
    one_line_error(p, "refused: NonIntegerNumberError")


def test_serve_vector_checker_verdicts_and_skips():
    p = fastjcs("serve-vector", CHECKS / "01-array-elements-exempt.json")
    assert p.returncode == 0 and json.loads(p.stdout) == {"verdict": "verified"}
    p = fastjcs("serve-vector", CHECKS / "03-several-in-document-order.json")
    assert p.returncode == 1 and json.loads(p.stdout)["verdict"] == "non-conforming"
    p = fastjcs("serve-vector", SUITES / "cpb" / "typed-refs" / "06-extra-fields-ignored.json")
    assert (p.returncode, p.stdout) == (0, b"")  # skipped: a verifier's verdict


def test_serve_vector_eab():
    v = json.loads(EAB_ACCEPT.read_text("ascii"))["vectors"][0]
    p = fastjcs("serve-vector", input=json.dumps(dict(v, algorithm="sha384")).encode())
    body = json.loads(p.stdout)
    assert body["pre_image"] == v["jcs_utf8"] and body["binding"] == v["bindings"]["sha384"]
    assert body["digest"] == v["bindings"]["sha384"][7:]
    p = fastjcs("serve-vector", input=json.dumps(dict(v, algorithm="sha512")).encode())
    assert p.returncode == 1


def test_serve_vector_bad_input_is_exit_2():
    p = fastjcs("serve-vector", input=b"[1, 2]")
    assert p.returncode == 2
    one_line_error(p, "a vector is a JSON object")
    p = fastjcs("serve-vector", input=b"{")
    assert p.returncode == 2


# ---- crosscheck over the vector protocol -------------------------------------------------------


def test_fastjcs_against_itself_over_the_vector_protocol():
    code, body = crosscheck(
        "--impl", "FASTJCS_BACKEND=python " + me("serve-vector"), "--vectors", KATS, "--vectors", EAB_ACCEPT
    )
    assert code == 0 and body["disagreements"] == []
    assert body["vectors"]["agree"] == 15 + 6 and body["vectors"]["disagree"] == 0


def test_outside_the_checkout_the_shipped_suites_are_the_default(tmp_path):
    code, body = crosscheck("--impl", "exit 1", cwd=tmp_path)  # refuses every vector
    shipped = sum(
        len(json.loads(p.read_bytes())["vectors"]) if p.parent.name == "eab" else 1 for p in SUITES.rglob("*.json")
    )
    assert code == 1 and body["vectors"]["agree"] > 0 and body["vectors"]["disagree"] > 0
    assert sum(body["vectors"].values()) == shipped


def test_an_implementation_that_refuses_everything():
    code, body = crosscheck("--impl", "exit 3", "--vectors", KATS)
    assert code == 1
    # the 8 vectors we answer with a preimage disagree; the 7 MUST-FAIL ones agree
    assert body["vectors"] == {
        "agree": 7,
        "disagree": 8,
        "skipped": 0,
        "protocol-difference": 0,
        "not-answered-by-fastjcs": 0,
        "cannot-start": 0,
        "crash": 0,
        "timeout": 0,
    }
    assert {d["where"] for d in body["disagreements"]} == {p.name for p in KATS.iterdir() if "must-fail" not in p.name}
    assert all(d["theirs"].startswith("refused (exit 3") for d in body["disagreements"])


def test_an_implementation_that_skips_or_echoes():
    # skipping every vector compares nothing: exit 2, one line (docs/cli.md, "Honest verdicts")
    p = fastjcs("crosscheck", "--impl", "cat >/dev/null", "--vectors", KATS)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "nothing compared: the other implementation skipped all 15 vectors")
    code, body = crosscheck("--impl", "cat", "--vectors", KATS)
    # an echo carries the vector's own pinned pre_image and digest: right for the positive
    # vectors, a claimed success for the 7 MUST-FAIL ones
    assert code == 1 and body["vectors"]["disagree"] == 7 and body["vectors"]["agree"] == 8


# ---- crosscheck over the canon protocol: a one-shot peer of the lab ---------------------------
# (a small user corpus keeps these runs short: a process per case; the default corpus is the
# lab's quick cut, tests/lab/test_planted_classes.py)

#: Documents where json.dumps(sort_keys=True) differs from RFC 8785 in number, order and (with
#: ensure_ascii) string escapes, and one it gets right.
_DOCS = [b"[1e21, 1e-7, 1.0]", '{"\ue000":1,"\U0001f602":2}'.encode(), '["\u00e9"]'.encode(), b'{"b":2,"a":1}']


def _corpus(tmp_path, docs=_DOCS):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(b"\n".join(docs) + b"\n")
    return str(path)


def _row(body):
    (row,) = body["canon"]["results"]
    return row


def _failing(row):
    return {cls for cls, n in row["totals"].items() if n and cls in classify.CLASSES}


def test_fastjcs_against_its_python_backend_finds_nothing(tmp_path):
    code, body = crosscheck("--canon-impl", PY_CANON, "--corpus", _corpus(tmp_path))
    assert code == 0 and body["ok"] is True
    assert _row(body)["totals"] == {"agree": 4} and _row(body)["examples"] == []


def test_json_dumps_sort_keys_is_caught_on_numbers_and_member_order(tmp_path):
    code, body = crosscheck("--canon-impl", WRONG, "--corpus", _corpus(tmp_path))
    assert code == 1 and body["ok"] is False
    row = _row(body)
    assert _failing(row) == {"wrong-number", "wrong-order"}
    by_class = {e["class"]: e for e in row["examples"]}
    assert by_class["wrong-number"]["reproducer"] in ("1e21", "1e-7", "1.0")  # shrunk to the number alone
    order = by_class["wrong-order"]["reproducer"]  # shrunk to the two keys that matter
    assert "\\u{E000}" in order and "\\u{1F602}" in order and order.count(":") == 2


def test_ensure_ascii_is_caught_on_string_escaping(tmp_path):
    code, body = crosscheck("--canon-impl", WRONG + " --ascii", "--corpus", _corpus(tmp_path))
    assert code == 1 and "wrong-string" in _failing(_row(body))
    example = next(e for e in _row(body)["examples"] if e["class"] == "wrong-string")
    assert "\\u00e9" in example["reproducer_got"] and len(example["reproducer"]) < 20


def test_text_report_and_usage(tmp_path):
    p = fastjcs("crosscheck", "--canon-impl", WRONG, "--corpus", _corpus(tmp_path))
    assert p.returncode == 1
    out = lines(p.stdout)
    assert out[0].startswith("canon-impl: 2 of 4 fail; 4 answered")
    assert "  [wrong-number] 1 user cases, e.g. user/docs.jsonl:1 (RFC 8785)" in out
    assert out[-1] == "1 peer(s), 4 cases each: 1 with failures (canon-impl)"
    p = fastjcs("crosscheck")
    assert p.returncode == 2
    one_line_error(p, "--impl CMD")


# ---- the pieces, in process --------------------------------------------------------------------


@pytest.mark.parametrize(
    "ours, theirs, kind",
    [
        (b'{"a":1,"b":2}', b'{"b":2,"a":1}', "member-order"),
        (b"[1e-7]", b"[1e-07]", "number-format"),
        (b'{"x":[0]}', b'{"x":[-0.0]}', "number-format"),
        (b'["\xc3\xa9"]', b'["\\u00e9"]', "string-escaping"),
        (b'["a"]', b'["b"]', "other"),
        (b"[1]", b"[1,2]", "other"),
        (b"[1]", b"not json", "other"),
        (b'{"a":"b"}', b'{"a":"b"}\n', "trailing-newline"),
        (b'{"a":["b",1]}', b'{"a": ["b", 1]}', "whitespace"),
        (b'{"a":"b c"}', b'{"a": "b\\u0020c"}', "string-escaping"),
        (b'["\\"", 1]', b'["\\"",1]', "whitespace"),
        (b'{"a":"b"}', b'{"a":"b"}\r\n', "trailing-newline"),
    ],
)
def test_difference_kind(ours, theirs, kind):
    assert classify.difference_kind(ours, theirs) == kind


def test_eab_files_are_sent_one_vector_at_a_time():
    reject = SUITES / "eab" / "eab-reject.json"
    items = list(cc.vector_items([reject]))
    vectors = json.loads(reject.read_text("ascii"))["vectors"]
    assert [json.loads(raw) for _, raw in items] == vectors  # lone surrogates included
    assert items[0][0] == "eab-reject.json#" + vectors[0]["id"]
    assert all(cc.protocol.answer(raw).status == "fail" for _, raw in items)  # every one refused


# ---- contrast vectors: a protocol difference, not a digest disagreement -------------------------

UPSTREAM_KATS = UPSTREAM / "cpb-vectors" / "jcs-n" / "kats"
CONTRAST = [
    "13-nfc-boundary-contrast.json",
    "27-esc-uppercase-contrast.json",
    "28-tab-long-form-contrast.json",
    "29-control-key-escaped-sort-contrast.json",
]


@pytest.mark.skipif(not UPSTREAM_KATS.is_dir(), reason=f"the upstream CPB suite is not at {UPSTREAM_KATS}")
def test_contrast_vectors_refused_as_must_fail_are_a_protocol_difference():
    contrast = (UPSTREAM_KATS / CONTRAST[0]).read_bytes()
    refused = cc.Reply(1, b"", b"must_fail vector")
    verdict, d = cc.compare_vector(CONTRAST[0], contrast, refused)
    assert (verdict, d.kind) == ("protocol-difference", "protocol-difference")
    positive = (UPSTREAM_KATS / "01-basic.json").read_bytes()
    assert cc.compare_vector("01-basic.json", positive, refused)[0] == "disagree"
    # the upstream runner's behaviour: exit non-zero on every must_fail, else answer (here: as fastjcs does)
    upstream_style = (
        f"{shlex.quote(sys.executable)} -c {shlex.quote(_REFUSE_MUST_FAIL)} {shlex.quote(me('serve-vector'))}"
    )
    code, body = crosscheck("--impl", upstream_style, "--vectors", UPSTREAM_KATS)
    assert code == 0, body
    assert body["disagreements"] == []
    assert sorted(d["where"] for d in body["protocol_differences"]) == CONTRAST
    assert body["vectors"]["protocol-difference"] == 4


_REFUSE_MUST_FAIL = (
    "import json, subprocess, sys\n"
    "raw = sys.stdin.buffer.read()\n"
    "sys.exit(1 if json.loads(raw).get('must_fail') is True else "
    "subprocess.run(sys.argv[1], shell=True, input=raw).returncode)\n"
)


# ---- honest verdicts: nothing compared, hidden counts, newlines, peers that give no answer -------
# (docs/cli.md, "Honest verdicts"; every expected count below is the number of cases the run puts)


def _peer(tmp_path, name, body):
    """A fake peer: a Python script in tmp_path, as a shell command."""
    script = tmp_path / name
    script.write_text(body, "utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


_APPEND_NEWLINE = (
    "import subprocess, sys\n"
    "p = subprocess.run([sys.executable, '-m', 'fastjcs', 'canon'], input=sys.stdin.buffer.read(),\n"
    "                   stdout=subprocess.PIPE)\n"
    "sys.stdout.buffer.write(p.stdout + b'\\n')\n"
    "sys.exit(p.returncode)\n"
)


@pytest.mark.parametrize(
    "option, replaced_by",
    [
        (("--documents", "0"), "--corpus SOURCE"),
        (("--documents", "200"), "--corpus SOURCE"),
        (("--per-kind", "1"), "one shrunk reproducer per class"),
    ],
)
def test_options_of_the_old_generator_say_what_replaces_them(option, replaced_by):
    """--documents and --per-kind went with crosscheck's own generator: one line says what
    replaces them, nothing runs."""
    p = fastjcs("crosscheck", "--canon-impl", PY_CANON, *option)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, f"{option[0]} is gone", replaced_by)


def test_a_vector_folder_without_vectors_of_the_protocol_is_exit_2(tmp_path):
    (tmp_path / "not-a-vector.json").write_text('{"a": 1}', "utf-8")
    (tmp_path / "not-json.json").write_text("{", "utf-8")
    p = fastjcs("crosscheck", "--impl", "exit 1", "--vectors", tmp_path)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "nothing compared: no vector fastjcs answers under")


def test_options_of_a_protocol_that_is_not_run_are_refused():
    p = fastjcs("crosscheck", "--canon-impl", PY_CANON, "--vectors", KATS)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, "--vectors feeds --impl")
    for option in (("--corpus", "gen"), ("--per-category", "5")):
        p = fastjcs("crosscheck", "--impl", "exit 1", *option)
        assert p.returncode == 2 and p.stdout == b""
        one_line_error(p, "--corpus and --per-category feed --canon-impl")


def test_a_trailing_newline_is_a_protocol_option(tmp_path):
    peer = _peer(tmp_path, "newline.py", _APPEND_NEWLINE)
    corpus = _corpus(tmp_path, _DOCS[:2])
    code, body = crosscheck("--canon-impl", peer, "--corpus", corpus)  # default: strip
    assert code == 0 and _row(body)["totals"] == {"agree": 2}, body
    code, body = crosscheck("--canon-impl", peer, "--corpus", corpus, "--newline", "keep")
    assert code == 1 and _row(body)["totals"] == {"wrong-whitespace": 2}  # not wrong-string


def test_a_command_that_does_not_exist_is_exit_2_in_one_line(tmp_path):
    missing = str(tmp_path / "no-such-canonicalizer")
    corpus = _corpus(tmp_path)
    for args in (
        ("--canon-impl", missing, "--corpus", corpus),
        ("--canon-impl", "exit 127", "--corpus", corpus),
        ("--impl", missing, "--vectors", KATS),
    ):
        p = fastjcs("crosscheck", *args)
        assert p.returncode == 2 and p.stdout == b"", args
        one_line_error(p, "cannot start (exit 127")
    p = fastjcs("crosscheck", "--canon-impl", str(tmp_path), "--corpus", corpus)  # a folder: exit 126
    assert p.returncode == 2
    one_line_error(p, "cannot start (exit 126")


def test_a_crash_is_classified_as_a_crash_not_a_refusal(tmp_path):
    peer = _peer(tmp_path, "crash.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    code, body = crosscheck("--canon-impl", peer, "--corpus", _corpus(tmp_path))
    assert code == 1 and body["ok"] is False
    assert _row(body)["totals"] == {"crash": 4}
    assert "SIGKILL" in _row(body)["examples"][0]["got"]
    # over the vector protocol a crash on a MUST-FAIL vector is no refusal, so no agreement
    code, body = crosscheck("--impl", peer, "--vectors", KATS)
    assert code == 1 and body["vectors"]["crash"] == 15 and body["vectors"]["agree"] == 0
    p = fastjcs("crosscheck", "--canon-impl", peer, "--corpus", _corpus(tmp_path))
    out = lines(p.stdout)
    assert any(x.startswith("  [crash] 4 user cases, e.g. user/docs.jsonl:") for x in out)
    assert any(x.startswith("    peer:       crash: crash (killed by SIGKILL)") for x in out)
    assert out[-1] == "1 peer(s), 4 cases each: 1 with failures (canon-impl)"


def test_a_time_out_is_classified_as_a_time_out(tmp_path):
    peer = _peer(tmp_path, "slow.py", "import time\ntime.sleep(30)\n")
    code, body = crosscheck("--canon-impl", peer, "--corpus", _corpus(tmp_path, _DOCS[:2]), "--timeout", "0.5")
    assert code == 1
    assert _row(body)["totals"] == {"timeout": 2}
    assert "no answer within 0.5s" in _row(body)["examples"][0]["got"]
    code, body = crosscheck(
        "--impl", peer, "--vectors", KATS / "kat-12-must-fail-one-point-zero.json", "--timeout", "0.5"
    )
    assert code == 1 and body["vectors"]["timeout"] == 1 and body["vectors"]["agree"] == 0


def test_fault_of():
    assert peers.fault_of(0) is None and peers.fault_of(1) is None and peers.fault_of(3) is None
    assert peers.fault_of(127) == peers.fault_of(126) == "cannot-start"
    assert peers.fault_of(-9) == peers.fault_of(128 + 11) == peers.fault_of(128 + 6) == "crash"


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf"])
def test_a_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(value):
    # nan was a ValueError traceback; -1 and 0 were accepted and timed every call out (exit 1)
    p = fastjcs("crosscheck", "--canon-impl", me("canon"), "--timeout", value)
    assert p.returncode == 2 and p.stdout == b""
    one_line_error(p, f"--timeout: must be a finite number of seconds above 0, not {value}")
