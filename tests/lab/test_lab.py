"""The lab's driver, classes and reports (fastjcs.lab.peers, fastjcs.lab.classify, fastjcs.lab.report,
fastjcs.lab.interop), against peers that misbehave on purpose (tests/lab/fake_peer.py) and against
fastjcs's own `serve-canon`.

Each test names the wrong driver it catches: one that trusts the first unanswered document to be
the culprit of a crash, one that hangs on a silent peer, one that counts a crash or a protocol
error as a refusal, one that takes a trailing newline for a string bug, one that shrinks to a
reproducer of another class.
"""

from __future__ import annotations

import base64
import html
import io
import shlex
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

import fastjcs
from fastjcs.lab import classify, corpus, peers, report
from fastjcs.lab import interop as lab

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
    assert classify.classify(expected, outcome) == cls


def _case(i: int, category: str, text: bytes) -> Case:
    return Case(f"t/{i}", category, "RFC 8785 3.2", text, classify.expected_of(text))


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
    result = lab.run_peer(peers.PeerSpec("fake", fake("ascii")), CASES)
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
        again = classify.classify(example.reproducer_expected, example.reproducer_got)
        assert f"{again} {classify.family(example.category)}" == key  # the reproducer is of its class
        assert len(example.reproducer) <= len(example.text)  # never bigger
    # the smallest text with U+2028 that ensure_ascii escapes (the value inside, alone)
    assert result.examples["wrong-string string"].reproducer == b'"\xe2\x80\xa8"'
    dupes = result.examples["accepts-invalid structure"].reproducer
    assert len(dupes) < len(b'{"q":0,"a":1,"a":2}')
    assert len(result.examples["wrong-number number"].reproducer) <= len(b"1e-7")  # one number, alone


def test_a_trailing_newline_is_a_protocol_option_of_the_one_shot_mode():
    cases = [CASES[0], CASES[5]]
    strip = lab.run_peer(peers.PeerSpec("nl", fake("newline", "--one-shot"), "one-shot"), cases, newline="strip")
    keep = lab.run_peer(
        peers.PeerSpec("nl", fake("newline", "--one-shot"), "one-shot"), cases, newline="keep", shrink_budget=0
    )
    assert strip.ok and strip.totals == {"agree": 2}
    assert keep.totals == {"wrong-whitespace": 2}


def test_a_refusing_peer_is_refuses_valid_with_a_minimal_reproducer():
    result = lab.run_peer(peers.PeerSpec("strict", fake("strict")), CASES)
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
    result = lab.run_peer(peers.PeerSpec("fastjcs", cmd), CASES)
    assert result.ok and result.totals == {"agree": 7}, (cli_backend, result.totals)


def test_show_is_printable_and_unambiguous():
    assert report.show(b'{"a":"\xe2\x80\xa8\\n"}\xff') == '{"a":"\\u{2028}\\n"}\\xFF'
    assert report.show("\U0001f600\x00".encode()) == "\\u{1F600}\\u{0000}"


def test_reports_carry_the_matrix_and_the_reproducers():
    results = [
        lab.run_peer(peers.PeerSpec("fake", fake("ascii")), CASES),
        lab.run_peer(peers.PeerSpec("self", f"{shlex.quote(sys.executable)} -m fastjcs serve-canon"), CASES),
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
    result = lab.run_peer(peers.PeerSpec("docs", cmd), CASES)
    # json.loads keeps the last of duplicate names: the one class the adapter's library cannot see
    assert result.totals == {"agree": 6, "accepts-invalid": 1}


# --- issue 23: the driver reads long answers in linear time ---------------------------------------


def _read_one_line(size: int) -> None:
    """A line of `size` bytes written down a pipe by a thread, read by LineReader."""
    import os
    import threading

    r, w = os.pipe()
    payload = b"x" * size + b"\n"

    def write() -> None:
        with open(w, "wb", closefd=True) as f:
            f.write(payload)

    t = threading.Thread(target=write)
    t.start()
    try:
        line = peers.LineReader(r).readline(60)
    finally:
        t.join()
        os.close(r)
    assert line is not None and len(line) == size


def test_a_long_answer_is_read_in_linear_time():
    # The reader grew a bytes buffer by += and searched all of it for a line ending at every
    # 64 KiB read: quadratic (a 32 MB answer took 23 s, a timeout of 10 s blamed the peer).
    from _growth import assert_linear

    assert_linear(_read_one_line, 2 << 20, 8 << 20, what="LineReader.readline of one long line")


def test_line_reader_keeps_lines_apart_across_reads():
    import os

    r, w = os.pipe()
    os.write(w, b"a\r\nbb\n")
    reader = peers.LineReader(r)
    assert reader.readline(5) == b"a" and reader.readline(5) == b"bb"
    assert reader.readline(0.05) is None  # nothing yet
    os.write(w, b"ccc")
    os.close(w)
    assert reader.readline(5) == b"ccc" and reader.readline(5) == b""
    os.close(r)


# --- issue 23: peers that hold their answers back --------------------------------------------------


def test_a_peer_that_answers_only_at_end_of_input_is_reported_as_such():
    # The driver used to probe each document alone (a timeout each) and call the peer a pass.
    cases = [_case(i, "string-t", d) for i, d in enumerate((b"[1]", b'{"b":1,"a":2}', b"[true]"))]
    result = lab.run_peer(peers.PeerSpec("held", fake("buffered")), cases, timeout=1)
    assert result.needs_end_of_input and not result.ok
    assert result.totals == {"agree": 3}  # its answers are compared all the same
    assert "answers only once its input is closed" in report.text_report([result])
    assert "answers only once its input is closed" in report.markdown_report([result], {})
    assert "answers only once its input is closed" in report.html_report([result], {})
    good = lab.run_peer(peers.PeerSpec("good", fake()), cases, timeout=5)
    assert good.ok and not good.needs_end_of_input


def test_a_shown_reproducer_reproduces_alone():
    # A peer that swaps each pair of answers: every answer is wrong, but a document alone gets
    # its own answer. The shrunk `[]` that "gave" `[]` was shown as a reproducer; now each shown
    # reproducer was put alone and gave its class, or the example says it does not.
    cases = [_case(i, "string-t", d) for i, d in enumerate((b"[1]", b"[2]", b"[3]", b"[4]"))]
    result = lab.run_peer(peers.PeerSpec("swap", fake("swap")), cases, timeout=1, shrink_budget=30)
    assert result.failures == 4
    for e in result.examples.values():
        assert not e.alone or classify.classify_text(e.reproducer, e.reproducer_got) == e.cls
    assert any(not e.alone for e in result.examples.values())
    assert report.NOT_ALONE in report.text_report([result]) and report.NOT_ALONE in report.markdown_report([result], {})
    assert html.escape(report.NOT_ALONE) in report.html_report([result], {})


# --- issue 27: the large family is timed ------------------------------------------------------------


def test_a_peer_slow_on_large_documents_is_slow_not_a_pass(monkeypatch):
    cases = [c for c in corpus.generate(1, 1) if c.category.startswith("large-")]
    big = [c for c in cases if len(c.text) > 1_000_000]
    assert big and max(len(c.text) for c in cases) > 1_000_000
    sleep = max(classify.slow_after(c.text) for c in big) + 0.5
    monkeypatch.setenv("FAKE_SLOW", str(sleep))
    slow = lab.run_peer(peers.PeerSpec("slow", fake("slow")), cases, timeout=sleep + 30, shrink_budget=0)
    assert slow.cells["large"] == {"agree": len(cases) - len(big), "slow": len(big)} and not slow.ok
    assert all(slow.timed[c.id][0] > slow.timed[c.id][1] for c in big)
    fast = lab.run_peer(peers.PeerSpec("fast", fake()), cases, timeout=30, shrink_budget=0)
    assert fast.cells["large"] == {"agree": len(cases)} and fast.ok
    assert set(fast.timed) == {c.id for c in cases} and "slowest timed answer" in report.text_report([fast])


# --- issue 27 and 23 (7): depth past fastjcs's limit is a limit ------------------------------------


def test_depth_past_fastjcs_limit_is_a_limit_whatever_the_peer_does():
    deep = [c for c in corpus.generate(1, 1) if c.category == "structure-deep"][:2]
    assert deep and all(c.limit and c.expected is not None for c in deep)
    refused = peers.Outcome(peers.ERROR, b"too deep")
    right = [peers.Outcome(peers.OK, c.expected) for c in deep]
    assert [classify.classify_case(c.expected, c.limit, refused) for c in deep] == [classify.LIMIT] * len(deep)
    assert [classify.classify_case(c.expected, c.limit, o) for c, o in zip(deep, right)] == [classify.AGREE] * len(deep)
    wrong = peers.Outcome(peers.OK, b"[]")  # wrong bytes are still wrong (and classified: no RecursionError)
    assert classify.classify_case(deep[0].expected, deep[0].limit, wrong) == classify.WRONG_OTHER


# --- issue 27: every category catches its planted wrong peer on every seed -------------------------

SEEDS = (1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def five_runs():
    """The default run's generated corpus (`gen` at the default --per-category 50) on 5 seeds."""
    return {seed: corpus.generate(seed, 50) for seed in SEEDS}


def _answer(peer, text: bytes) -> peers.Outcome:
    try:
        return peers.Outcome(peers.OK, peer(text))
    except Exception as exc:  # noqa: BLE001 - an adapter answers every exception as `error`
        return peers.Outcome(peers.ERROR, str(exc).encode())


def _failing(peer, cases) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cases:
        cls = classify.classify_case(c.expected, c.limit, _answer(peer, c.text))
        if cls not in (classify.AGREE, classify.LIMIT):
            out[c.category] = out.get(c.category, 0) + 1
    return out


def test_every_category_has_a_planted_peer():
    from planted import PLANTED

    assert set(PLANTED) == set(corpus.CATEGORIES)


@pytest.mark.parametrize("category", sorted(corpus.CATEGORIES))
def test_the_default_run_catches_the_planted_peer_of_each_category_on_every_seed(five_runs, category):
    from planted import PLANTED

    peer, also = PLANTED[category]
    for seed, cases in five_runs.items():
        mine = [c for c in cases if c.category == category]
        assert _failing(peer, mine), f"seed {seed}: the planted {category} peer passes"
    # and it fails nowhere else but where its defect also shows (the big documents left out)
    others = [
        c
        for c in five_runs[SEEDS[0]]
        if c.category != category and not c.category.startswith("large-") and c.category != "structure-deep"
    ]
    assert set(_failing(peer, others)) <= also


def test_fastjcs_itself_passes_every_generated_case(five_runs):
    import fastjcs

    assert _failing(fastjcs.canonicalize, five_runs[SEEDS[0]]) == {}


# --- issue 26: the lab and bench say one thing of a refused integer beyond 2^53 ---------------------


def test_a_refusal_of_an_integer_beyond_2_53_is_an_i_json_choice_not_a_failure():
    refused = peers.Outcome(peers.ERROR, b"integer beyond 2^53")
    # 2^53 + 1, 2^64 negative in an object, 17 digits: beyond a double's precision
    for text in (b"[9007199254740993]", b'{"a":-18446744073709551616}', b"[12345678901234567]"):
        expected = fastjcs.canonicalize(text)
        assert classify.classify_case(expected, "", refused, text=text) == classify.IJSON_CHOICE, text
    # 2^53 itself, the same digits in a string, a fraction, a big double: a refusal is wrong
    for text in (b"[9007199254740992]", b'["9007199254740993"]', b"[9007199254740993.5]", b"[1.5e300]"):
        expected = fastjcs.canonicalize(text)
        assert classify.classify_case(expected, "", refused, text=text) == classify.REFUSES_VALID, text
    # bytes for a document that must be refused, and wrong bytes, stay what they are
    assert (
        classify.classify_case(None, "", peers.Outcome(peers.OK, b"[1]"), text=b"[1e400]") == classify.ACCEPTS_INVALID
    )
    wrong = peers.Outcome(peers.OK, b"[9007199254740993]")
    assert classify.classify_case(b"[9007199254740992]", "", wrong, text=b"[9007199254740993]") == classify.WRONG_NUMBER


def test_a_peer_that_refuses_big_integers_passes_and_is_told_so():
    from planted import IJSON_PEER

    cases = [c for c in corpus.generate(SEEDS[0], 50) if c.category == "number-integer"]
    result = lab.PeerResult(peers.PeerSpec("rfc8785-like", "-"), cases=len(cases))
    for c in cases:
        cls = classify.classify_case(c.expected, c.limit, _answer(IJSON_PEER, c.text), text=c.text)
        result.totals[cls] += 1
        result.cells.setdefault("number", Counter())[cls] += 1
    n = result.totals[classify.IJSON_CHOICE]
    assert n > 0 and set(result.totals) == {classify.AGREE, classify.IJSON_CHOICE}
    assert result.ok and result.failures == 0
    shown = report.text_report([result])
    assert f"number      pass ({result.totals[classify.AGREE]}), {n} i-json-choice" in shown
    assert f"i-json-choice: {n} valid case(s) refused, an I-JSON choice (integers beyond 2^53)" in shown


def test_bench_refuses_by_the_same_rule_and_in_the_same_words():
    from fastjcs.lab import bench, probes

    assert [p.name for p in probes.PROBES if p.may_refuse] == [
        p.name for p in probes.PROBES if p.want is not None and classify.beyond_2_53(p.text)
    ]
    assert classify.IJSON_CHOICE_WORDS == "I-JSON choice (integers beyond 2^53)"
    row = bench.Row("rfc8785", True, [], refused_probes=["int-2^53+1"])
    table = bench.Result("text", 1, 1, [row]).table()
    assert "rfc8785 refuses, as an I-JSON choice (integers beyond 2^53): int-2^53+1" in table
