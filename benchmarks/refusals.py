"""What a refusal costs: the time per call of a JSON text or a Python value fastjcs refuses.

    python benchmarks/refusals.py

Bad input is part of the load of a service that checks what it is sent. Each row is the best of
seven repeats of a burst of calls, in microseconds; compare two builds (run this file with each
on PYTHONPATH) and take the ratio, the machine being shared and noisy. Texts: a duplicate name
(`dup`), an unterminated string after 200 bytes (`eof`), and 40 KB of valid objects followed by a
leading zero (`big`, where a second reading costs the most), through the backend's canonicalize,
the public `fastjcs.canonicalize` and `fastjcs.digest_text`. Values: `digest` and `dumps` of a
small record holding a NaN, and `digest_many` of 20 records whose 11th holds it (`many`: the
refused item's cost, the ten digested before it included). Issue 33 (a refusal costs one reading)
was measured with it. Run it on the cffi route too: `FASTJCS_DIRECT=0 python benchmarks/refusals.py`.

    valgrind --tool=callgrind python benchmarks/refusals.py --calls digest_many:value 300

runs one case (`CALLS`) n times after a warm-up, for an instruction count that the load does not
move: the difference of two such runs (100 and 300 calls) over 200 is the count per call.
"""

from __future__ import annotations

import sys
import timeit
from typing import Callable

import fastjcs
from fastjcs.core import backends

BIG = b"[" + b",".join(b'{"k%d":%d}' % (i, i) for i in range(2000)) + b",01]"
TEXTS = {
    "dup": b'{"a":1,"b":[1,2,3],"c":{"x":1,"y":2},"a":2}',
    "eof": b'{"a":[1,2,3],"b":{"c":"' + b"x" * 200 + b'"',
    "big": BIG,
}
VALUE = {"a": [1, 2, {"b": "x" * 50}], "c": list(range(50)), "z": float("nan")}
GOOD = {"a": [1, 2, {"b": "x" * 50}], "c": list(range(50)), "z": 0.5}
MANY = [GOOD] * 10 + [VALUE] + [GOOD] * 9


def best(fn: Callable[[], object], number: int) -> float:
    """Microseconds per call of fn, which must raise a fastjcs error, best of 7 bursts."""

    def run() -> None:
        try:
            fn()
        except fastjcs.FastJCSError:
            return
        raise AssertionError("the input was accepted")

    return min(timeit.repeat(run, number=number, repeat=7)) / number * 1e6


def _bound(fn: Callable[[bytes], object], text: bytes) -> Callable[[], object]:
    return lambda: fn(text)


CALLS: dict[str, Callable[[], object]] = {
    **{f"canonicalize:{name}": _bound(fastjcs.canonicalize, text) for name, text in TEXTS.items()},
    **{f"digest_text:{name}": _bound(fastjcs.digest_text, text) for name, text in TEXTS.items()},
    "digest:value": lambda: fastjcs.digest(VALUE),
    "dumps:value": lambda: fastjcs.dumps(VALUE),
    "digest_many:value": lambda: fastjcs.digest_many(MANY),
}


def calls(name: str, n: int) -> None:
    """n refused calls of one case, after a warm-up: the loop to count under callgrind (run it for
    two n and take the difference over the difference in calls; the timings above move with the
    load of a shared machine, the counts do not)."""
    fn = CALLS[name]
    fastjcs.digest({})  # the algorithm registered, as in a running program
    for _ in range(3 + n):
        try:
            fn()
        except fastjcs.FastJCSError:
            continue
        raise AssertionError("the input was accepted")


def main() -> int:
    if sys.argv[1:2] == ["--calls"]:  # --calls NAME N, NAME one of CALLS
        calls(sys.argv[2], int(sys.argv[3]))
        return 0
    impl = backends.impl()
    route = "direct" if getattr(impl, "_direct", None) is not None else "cffi"
    print(f"fastjcs {fastjcs.__version__} from {fastjcs.__file__}, backend {fastjcs.backend()} ({route} route)")
    print(f"{'text':<6}{'backend':>12}{'public':>12}{'digest_text':>14}   (us per call)")
    for name, text in TEXTS.items():
        n = 200 if name == "big" else 20_000
        row = [
            best(lambda t=text: impl.canonicalize(t, fastjcs.DEFAULT_MAX_DEPTH, False), n),
            best(lambda t=text: fastjcs.canonicalize(t), n),
            best(lambda t=text: fastjcs.digest_text(t), n),
        ]
        print(f"{name:<6}{row[0]:>12.2f}{row[1]:>12.2f}{row[2]:>14.2f}")
    digest = best(lambda: fastjcs.digest(VALUE), 20_000)
    dumps = best(lambda: fastjcs.dumps(VALUE), 20_000)
    many = best(lambda: fastjcs.digest_many(MANY), 5_000)
    print(f"value: digest {digest:.2f} us, dumps {dumps:.2f} us, digest_many {many:.2f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
