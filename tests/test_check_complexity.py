"""`check` is linear in the number of findings: line/column and byte offsets are not recounted
from the start of the text for each one.

Growth-ratio tests: the same work at n and 4n in one run, the time ratio bounded well below the
16 a quadratic cost gives (and above the 4 of a linear one). Correctness of the incremental
position helpers is checked against the direct computation.
"""

from __future__ import annotations

import gc
import random
import time

import pytest

from fastjcs import _errors, cpb, cli
from fastjcs._errors import LineIndex

MAX_RATIO = 6.0


def _many_findings(n: int, lead: str = "") -> bytes:
    # One P finding (empty-member) per element, all on one line.
    return ("[" + lead + ",".join(['{"a":null}'] * n) + "]").encode()


def _ratio(run, n: int, rounds: int = 3) -> float:
    """time(run(4n)) / time(run(n)), each the best of `rounds`, the two sizes taking turns.

    The time is this process's CPU time, the collector paused: on a shared machine, wall time
    also counts the other processes, and the longer run is the likelier to be preempted.
    """
    run(n // 4)  # warm up imports and caches
    best = {n: float("inf"), 4 * n: float("inf")}
    for _ in range(rounds):
        for size in best:
            gc.collect()
            gc.disable()
            try:
                start = time.process_time()
                run(size)
                best[size] = min(best[size], time.process_time() - start)
            finally:
                gc.enable()
    return best[4 * n] / best[n]


@pytest.mark.parametrize("lead", ["", '"\u00e9",', '"\u20ac",\n'], ids=["ascii", "latin1", "bmp"])
def test_cpb_check_is_linear_in_findings(backend, lead):
    # Before: with one non-ASCII character first, each finding's byte offset was re-encoded from
    # the start of the text (1.1 MB: 65 s).
    def run(n: int) -> None:
        assert len(cpb.check(_many_findings(n, lead)).violations) == n

    ratio = _ratio(run, 10_000)
    assert ratio < MAX_RATIO, f"time(4n)/time(n) = {ratio:.1f}"


@pytest.mark.parametrize("mode", [[], ["--json"]], ids=["text", "json"])
def test_cli_check_is_linear_in_findings(backend, tmp_path, capsys, mode):
    # Before: line and column were counted from byte 0 for each finding (1.1 MB: 22.9 s).
    paths = {}
    for n in (2_500, 10_000, 40_000):
        paths[n] = tmp_path / f"{n}.json"
        paths[n].write_bytes(_many_findings(n))

    def run(n: int) -> None:
        assert cli.main(["check", str(paths[n]), *mode]) == cpb.EXIT_NON_CONFORMING
        out = capsys.readouterr().out
        assert out.count('"empty-member"' if mode else " empty-member ") == n

    ratio = _ratio(run, 10_000)
    assert ratio < MAX_RATIO, f"time(4n)/time(n) = {ratio:.1f}"


def test_cli_check_positions(tmp_path, capsys):
    path = tmp_path / "doc.json"
    path.write_bytes(b'[\n {"a": null},\n\n   {"b": 1.5, "a": []}]')
    assert cli.main(["check", str(path)]) == cpb.EXIT_NON_CONFORMING
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [f"P $[0][\"a\"] empty-member {path}:2:3",
                         f"R $[1][\"b\"] non-integer-number {path}:4:10",
                         f"P $[1][\"a\"] empty-member {path}:4:15"]


def _direct_line_col(data: bytes, offset: int):
    before = data[:offset]
    return before.count(b"\n") + 1, offset - (before.rfind(b"\n") + 1) + 1


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_line_index_matches_direct_count(monkeypatch, kind):
    monkeypatch.setattr(_errors, "_CHUNK", 7)  # many chunk boundaries for the memoryview path
    rng = random.Random(5)
    data = bytes(rng.choice(b"ab\n\xc3") for _ in range(3_000))
    offsets = sorted(rng.randrange(len(data) + 1) for _ in range(300))
    offsets += [rng.randrange(len(data) + 1) for _ in range(100)]  # then in any order
    where = LineIndex(kind(data))
    for offset in offsets:
        assert where(offset) == _direct_line_col(data, offset), offset
        assert _errors._line_col(kind(data), offset) == _direct_line_col(data, offset)
