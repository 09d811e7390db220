"""No input shape makes fastjcs quadratic: time at n and 4n, on both backends.

Each test builds one shape at two sizes, 4x apart, and checks the growth ratio of the time
(tests/_growth.py: CPU time, best of several runs), never an absolute time: about 4 for linear
work, 4.5 for n log n, 16 for quadratic. The shapes are those that hurt a canonicalizer or the
tools around it:
- the core (tests/shapes.py): objects nested deep whose members are out of order (each closing
  object moving its whole subtree), the same through arrays, many members, long shared name
  prefixes, many small records;
- `check`: many findings in one text (positions recounted from the start for each one), with
  non-ASCII text before them (byte offsets re-encoded from the start);
- `digest --jsonl`: one long line on a pipe (each block joined to all before it), and lines that
  fail against lines that do not (a failure costing 50 good lines).
`benchmarks/growth.py` prints the core shapes' ratios as a table.
"""

from __future__ import annotations

import pytest
from _cli import fastjcs, lines
from _growth import RATIO, assert_linear, child_cpu
from _markers import timed
from Crypto.Hash import SHA256
from shapes import SHAPES, canonicalize, dumps

from fastjcs import cli, cpb

# Each check times two sizes, a few seconds apiece: slow (deselected unless --slow; CI runs them).
pytestmark = [timed, pytest.mark.slow]


# ---- the core ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_canonicalize_grows_linearly(backend, name):
    shape = SHAPES[name]
    k = shape.scale(backend.__name__.rsplit("_", 1)[-1])
    small, large = shape.text(k), shape.text(4 * k)
    assert_linear(canonicalize, small, large, bound=shape.bound, what=f"canonicalize {name} ({backend.__name__})")


@pytest.mark.parametrize("name", sorted(n for n, s in SHAPES.items() if s.value is not None))
def test_dumps_grows_linearly(backend, name):
    shape = SHAPES[name]
    small, large = shape.value(1), shape.value(4)
    assert_linear(dumps, small, large, bound=shape.bound, what=f"dumps {name} ({backend.__name__})")


# ---- check: many findings --------------------------------------------------------------------------


def _many_findings(n: int, lead: str = "") -> bytes:
    # One P finding (empty-member) per element, all on one line.
    return ("[" + lead + ",".join(['{"a":null}'] * n) + "]").encode()


@pytest.mark.parametrize("lead", ["", '"\u00e9",', '"\u20ac",\n'], ids=["ascii", "latin1", "bmp"])
def test_cpb_check_is_linear_in_findings(backend, lead):
    # Before: with one non-ASCII character first, each finding's byte offset was re-encoded from
    # the start of the text (1.1 MB: 65 s).
    def run(n: int) -> None:
        assert len(cpb.check(_many_findings(n, lead)).violations) == n

    assert_linear(run, 10_000, 40_000, what=f"cpb.check, {lead!r} first")


@pytest.mark.parametrize("mode", [[], ["--json"]], ids=["text", "json"])
def test_cli_check_is_linear_in_findings(backend, tmp_path, capsys, mode):
    # Before: line and column were counted from byte 0 for each finding (1.1 MB: 22.9 s).
    paths = {}
    for n in (10_000, 40_000):
        paths[n] = tmp_path / f"{n}.json"
        paths[n].write_bytes(_many_findings(n))

    def run(n: int) -> None:
        assert cli.main(["check", str(paths[n]), *mode]) == cpb.EXIT_NON_CONFORMING
        out = capsys.readouterr().out
        assert out.count('"empty-member"' if mode else " empty-member ") == n

    assert_linear(run, 10_000, 40_000, what=f"fastjcs check {' '.join(mode)}")


# ---- digest --jsonl ------------------------------------------------------------------------------


def test_a_long_stdin_line_takes_linear_time(cli_backend):
    """One line of n and 4n bytes on a pipe, read in 16 KiB blocks: each block was joined to
    everything before it and the whole scanned again (a line of 800 MB took 55 s, 200 MB 3.7 s)."""

    def line(n: int) -> bytes:
        return b'{"a":"' + b"x" * n + b'"}\n'

    args = ("digest", "--jsonl", "--chunk-bytes", "16384")
    start = child_cpu(args, b"", cli_backend)
    small, big = (child_cpu(args, line(n), cli_backend) - start for n in (4 << 20, 16 << 20))
    assert big / small < RATIO, (small, big)
    p = fastjcs(*args, input=line(100), extra_env=cli_backend)
    assert p.stdout == f"sha256:{SHA256.new(line(100)[:-1]).hexdigest()}\n".encode()


def test_a_failing_line_costs_a_few_good_ones(cli_backend):
    """N lines that fail against N that do not, of the same shape, in the same run: a failed line
    built an exception, a position and two Python objects, 50x the cost of a good line in C. Both
    go through the parser: the names are out of order, as a line already canonical is hashed
    where it lies (csrc/canonical.c), a cost no failing line can have."""
    n = 400_000 if cli_backend["FASTJCS_BACKEND"] == "native" else 20_000
    good = b"".join(b'{"name":"abc","id":%d,"v":[1,2]}\n' % i for i in range(n))
    bad = b"".join(b'{"name":"abc","id":%d,"v":[1,2],}\n' % i for i in range(n))
    start = child_cpu(("digest", "--jsonl"), b"", cli_backend)
    good_cpu, bad_cpu = (child_cpu(("digest", "--jsonl"), data, cli_backend) - start for data in (good, bad))
    assert bad_cpu / good_cpu < 5, (good_cpu, bad_cpu)
    p = fastjcs("digest", "--jsonl", input=bad[:200], extra_env=cli_backend)
    # line 1 is 33 bytes with its newline; the "}" of line 2 is its 32nd byte
    assert lines(p.stdout)[1] == "error:2:32: InvalidJSONError: unexpected character '}', expected a member name"
    assert lines(p.stderr)[1] == (
        "fastjcs digest: <stdin>:2:32: InvalidJSONError: unexpected character '}', expected a member name (byte 64)"
    )
