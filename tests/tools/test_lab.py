"""The lab's driver and classes (fastjcs.tools.peers, fastjcs.tools.lab), against peers that
misbehave on purpose (tests/tools/fake_peer.py) and against fastjcs's own `serve-canon`.

Each test names the wrong driver it catches: one that trusts the first unanswered document to be
the culprit of a crash, one that hangs on a silent peer, one that counts a crash or a protocol
error as a refusal, one that takes a trailing newline for a string bug, one that shrinks to a
reproducer of another class.
"""

from __future__ import annotations

import base64
import io
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from fastjcs.tools import lab, peers

FAKE = Path(__file__).with_name("fake_peer.py")


def fake(*modes: str) -> str:
    # Without a preloaded sanitizer runtime (the ASan suite preloads one): this peer's crashes are
    # on purpose, and a sanitizer would report them as findings.
    command = " ".join(shlex.quote(a) for a in (sys.executable, str(FAKE), *modes))
    return f"env -u LD_PRELOAD -u ASAN_OPTIONS -u UBSAN_OPTIONS {command}"


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    clause: str
    text: bytes
    expected: bytes | None
    note: str = ""


DOCS = [b'{"b":1,"a":2}', b"[1,2", b'"boom"', b'{"z":[true]}', b'"hang"', b'"junk"', b"[null]"]
SORTED = {0: b'{"a":2,"b":1}', 3: b'{"z":[true]}', 2: b'"boom"', 4: b'"hang"', 5: b'"junk"', 6: b"[null]"}


def statuses(outcomes):
    return [o.status for o in outcomes]


# ---- the batch driver ------------------------------------------------------------------------


def test_a_good_peer_answers_every_document_in_order_in_one_process():
    with peers.BatchPeer(fake()) as p:
        out = p.run(DOCS * 50)
        assert p.restarts == 0
    assert statuses(out[:7]) == ["ok", "error", "ok", "ok", "ok", "ok", "ok"]
    assert all(out[k].data == SORTED[k % 7] for k in range(len(out)) if k % 7 != 1)


@pytest.mark.parametrize("modes", [("crash",), ("crash", "buffered")])
def test_a_crash_is_the_fault_of_the_document_that_caused_it(modes):
    # With "buffered", the peer dies holding every answer: a driver that blames the first
    # unanswered document (document 0) is wrong; only a probe of each alone finds document 2.
    # (Holding answers breaks the protocol: after the crash each document waits out the timeout
    # before its probe, hence a short one.)
    with peers.BatchPeer(fake(*modes), timeout=0.5) as p:
        out = p.run(DOCS)
    assert statuses(out) == ["ok", "error", "crash", "ok", "ok", "ok", "ok"]
    # killed by SIGSEGV (or, under AddressSanitizer, which catches it, SIGABRT)
    assert out[2].detail.startswith("crash (killed by SIG")


def test_a_silent_peer_is_a_timeout_of_that_document_and_the_run_goes_on():
    with peers.BatchPeer(fake("hang"), timeout=0.5) as p:
        out = p.run(DOCS)
    assert statuses(out) == ["ok", "error", "ok", "ok", "timeout", "ok", "ok"]


def test_a_line_that_is_no_answer_is_a_protocol_error_not_a_refusal():
    with peers.BatchPeer(fake("junk")) as p:
        out = p.run(DOCS)
    assert statuses(out) == ["ok", "error", "ok", "ok", "ok", "protocol-error", "ok"]


def test_a_peer_that_exits_early_is_restarted_and_every_document_answered():
    with peers.BatchPeer(fake("once")) as p:
        out = p.run(DOCS)
        assert p.restarts >= 2  # it did exit early, more than once
    assert statuses(out) == ["ok", "error", "ok", "ok", "ok", "ok", "ok"]


def test_a_command_that_cannot_start_is_cannot_start_for_every_document():
    with peers.BatchPeer("no-such-command-fastjcs-test") as p:
        out = p.run(DOCS)
    assert set(statuses(out)) == {"cannot-start"}
    assert "not found" in out[0].detail


def test_a_peer_that_never_answers_is_given_up_not_restarted_forever():
    with peers.BatchPeer("exit 0") as p:
        out = p.run(DOCS * 100)
        assert p.restarts <= peers.GIVE_UP_AFTER + 1
    assert set(statuses(out)) == {"crash"} and "given up" in out[-1].detail


def test_the_process_stays_up_between_runs():
    with peers.BatchPeer(fake()) as p:
        first = p.run(DOCS[:1])
        pid = p._process.proc.pid
        second = p.run(DOCS[:1])
        assert p._process.proc.pid == pid and first == second


def test_serve_answers_the_protocol_with_fastjcs():
    from fastjcs import canonicalize

    docs = [b'{"b":[1E2,-0.0],"a":"\\u00e9"}', b'{"a":1,"a":2}', b"\xff", b""]
    stdin = io.BytesIO(b"".join(peers.encode_line(d) for d in docs) + b"not base64!\n")
    stdout = io.BytesIO()
    assert peers.serve(canonicalize, stdin, stdout) == 5
    lines = stdout.getvalue().splitlines()
    assert lines[0] == b"ok " + base64.b64encode('{"a":"\u00e9","b":[100,0]}'.encode())
    assert lines[1].startswith(b"error DuplicateKeyError")
    assert lines[2].startswith(b"error ") and lines[3].startswith(b"error ")
    assert lines[4] == b"error not a base64 line"


# ---- classes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, outcome, cls",
    [
        (b'{"a":1}', peers.Outcome("ok", b'{"a":1}'), "agree"),
        (None, peers.Outcome("error", b"no"), "agree"),
        (None, peers.Outcome("ok", b'{"a":2}'), "accepts-invalid"),
        (b'{"a":1}', peers.Outcome("error", b"no"), "refuses-valid"),
        (b"[1e-7]", peers.Outcome("ok", b"[1e-07]"), "wrong-number"),
        ('["\u2028"]'.encode(), peers.Outcome("ok", b'["\\u2028"]'), "wrong-string"),
        (b'{"a":1,"b":2}', peers.Outcome("ok", b'{"b":2,"a":1}'), "wrong-order"),
        (b'{"a":1}', peers.Outcome("ok", b'{"a":1}\n'), "wrong-whitespace"),
        (b'{"a":1}', peers.Outcome("ok", b'{ "a": 1 }'), "wrong-whitespace"),
        (b"[1]", peers.Outcome("ok", b'["1"]'), "wrong-other"),
        (None, peers.Outcome("crash", b"", "SIGSEGV"), "crash"),
        (b"[1]", peers.Outcome("timeout"), "timeout"),
        (b"[1]", peers.Outcome("protocol-error"), "protocol-error"),
    ],
)
def test_classify(expected, outcome, cls):
    assert lab.classify(expected, outcome) == cls


def _case(i: int, category: str, text: bytes) -> Case:
    return Case(f"t/{i}", category, "RFC 8785 3.2", text, lab.expected_of(text))


CASES = [
    _case(i, cat, t)
    for i, (cat, t) in enumerate(
        [
            ("structure-order", b'{"b":1,"a":[2,{"d":0,"c":1}]}'),
            ("number-small", b'{"x":[1.5,1e-7,"pad"],"y":true}'),
            ("string-separators", b'{"k":["a","\xe2\x80\xa8",3]}'),
            ("structure-duplicates", b'{"q":0,"a":1,"a":2}'),
            ("syntax-trailing-comma", b"[1,2,]"),
            ("number-int", b"[1,2,3]"),
            ("order-astral", '{"\ue000":1,"\U0001f600":2}'.encode()),
        ]
    )
]


def test_run_peer_counts_every_case_and_shrinks_one_reproducer_per_class():
    result = lab.run_peer(lab.PeerSpec("fake", fake("ascii")), CASES)
    assert result.cases == 7 and result.answered == 7
    # sort_keys orders by code point (U+E000 before U+1F600), JCS by UTF-16 units (D83D before E000)
    assert result.totals == {"agree": 3, "wrong-number": 1, "wrong-string": 1, "accepts-invalid": 1, "wrong-order": 1}
    assert not result.ok and result.failures == sum(result.totals.values()) - result.totals["agree"]
    assert set(result.examples) == {
        "wrong-number number",
        "wrong-string string",
        "wrong-order order",
        "accepts-invalid structure",
    }
    for key, example in result.examples.items():
        again = lab.classify(example.reproducer_expected, example.reproducer_got)
        assert f"{again} {lab.family(example.category)}" == key  # the reproducer is of its class
        assert len(example.reproducer) <= len(example.text)  # never bigger
    # the smallest text with U+2028 that ensure_ascii escapes (the value inside, alone)
    assert result.examples["wrong-string string"].reproducer == b'"\xe2\x80\xa8"'
    dupes = result.examples["accepts-invalid structure"].reproducer
    assert len(dupes) < len(b'{"q":0,"a":1,"a":2}')
    assert len(result.examples["wrong-number number"].reproducer) <= len(b"1e-7")  # one number, alone


def test_a_trailing_newline_is_a_protocol_option_of_the_one_shot_mode():
    cases = [CASES[0], CASES[5]]
    strip = lab.run_peer(lab.PeerSpec("nl", fake("newline", "--one-shot"), "one-shot"), cases, newline="strip")
    keep = lab.run_peer(
        lab.PeerSpec("nl", fake("newline", "--one-shot"), "one-shot"), cases, newline="keep", shrink_budget=0
    )
    assert strip.ok and strip.totals == {"agree": 2}
    assert keep.totals == {"wrong-whitespace": 2}


def test_a_refusing_peer_is_refuses_valid_with_a_minimal_reproducer():
    result = lab.run_peer(lab.PeerSpec("strict", fake("strict")), CASES)
    assert result.totals["refuses-valid"] == 2  # U+2028 and the astral/private-use keys
    refusals = {k: e for k, e in result.examples.items() if e.cls == "refuses-valid"}
    assert set(refusals) == {"refuses-valid string", "refuses-valid order"}  # one per family
    for example in refusals.values():
        shrunk = example.reproducer
        # one string of one non-ASCII character, alone: all that is left of each object
        assert shrunk[:1] == shrunk[-1:] == b'"' and len(shrunk.decode()) == 3 and max(shrunk) > 127


def test_fastjcs_served_agrees_with_itself_on_both_backends(cli_backend):
    env = " ".join(f"{k}={v}" for k, v in cli_backend.items())
    cmd = f"{env} {shlex.quote(sys.executable)} -m fastjcs serve-canon"
    result = lab.run_peer(lab.PeerSpec("fastjcs", cmd), CASES)
    assert result.ok and result.totals == {"agree": 7}, (cli_backend, result.totals)


def test_show_is_printable_and_unambiguous():
    assert lab.show(b'{"a":"\xe2\x80\xa8\\n"}\xff') == '{"a":"\\u{2028}\\n"}\\xFF'
    assert lab.show("\U0001f600\x00".encode()) == "\\u{1F600}\\u{0000}"


def test_reports_carry_the_matrix_and_the_reproducers():
    results = [
        lab.run_peer(lab.PeerSpec("fake", fake("ascii")), CASES),
        lab.run_peer(lab.PeerSpec("self", f"{shlex.quote(sys.executable)} -m fastjcs serve-canon"), CASES),
    ]
    matrix = lab.Matrix(results, {"date": "D", "cases": 7, "seed": 1, "corpus": "test"})
    md = matrix.markdown()
    assert "| fake |" in md and "| self |" in md and "pass (" in md
    shrunk = results[0].examples["accepts-invalid structure"].reproducer.decode()
    assert "accepts-invalid" in md and f"`{shrunk}` gives" in md
    page = matrix.html()
    assert page.startswith("<!doctype html>") and "<script" not in page and "http" not in page
    assert 'class="fail"' in page and 'class="pass"' in page
    assert not matrix.ok and "1 with failures (fake)" in matrix.text()


def test_the_python_adapter_of_the_docs_is_a_working_peer(tmp_path):
    import re

    from conftest import REPO

    page = (REPO / "docs" / "interop.md").read_text("utf-8")
    (adapter,) = re.findall(r"^```py\n(.*?)^```", page, re.S | re.M)
    (tmp_path / "adapter.py").write_text(adapter)
    (tmp_path / "lib.py").write_text("import fastjcs\n\ndef dumps(value):\n    return fastjcs.dumps(value)\n")
    cmd = f"cd {shlex.quote(str(tmp_path))} && {shlex.quote(sys.executable)} adapter.py"
    result = lab.run_peer(lab.PeerSpec("docs", cmd), CASES)
    # json.loads keeps the last of duplicate names: the one class the adapter's library cannot see
    assert result.totals == {"agree": 6, "accepts-invalid": 1}
