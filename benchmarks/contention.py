"""Calls alone and in company: the time per call of fastjcs's entry points with and without one
CPU-bound Python thread running beside them, and what that says about holding the GIL.

    python benchmarks/contention.py [--quick] [--json]

A call through cffi releases the GIL while C works and must take it back after: when another
thread holds it, the caller waits up to the switch interval (sys.getswitchinterval(), 5 ms by
default). A call through the direct entry (fastjcs._direct) keeps the GIL: it never waits, but no
other thread runs while it works. Three tables:

1. Small calls (an EAB-size object, its text, one float), every public call, alone and with a
   spinning thread, fastjcs next to orjson and rfc8785: the ratio contended / alone per call
   (goal: <= 1.5x).
2. Texts from 256 B to 16 MiB: canonicalize through the direct entry (GIL held) and through cffi
   (GIL released), alone and contended, and the policy the native backend uses
   (the direct entry's held-text limit, `_direct.held_text_limit()`): its contended time over the best uncontended time
   (goal: <= 1.5x at every size); beside them, for comparison, the same ratio for a call that
   holds the GIL throughout on the same text (orjson's loads and sorted dumps). A call longer
   than about a millisecond is one burst of its own, and the busy thread's turn (one switch
   interval, 5 ms) falls inside a share of such calls that grows with their length: from
   about 1 MiB that, not a wait for the GIL after a release, is what the ratio measures, for any
   call that long, as the control shows.
3. Values from 256 B to 16 MiB of JCS: dumps by the walker (GIL held) against marshal + the C
   reader through cffi (GIL released for the C part), alone and contended; digest_many of 1,000
   records likewise; and two threads each canonicalizing a 16 MiB text against one (the large
   path still runs in parallel).

Times are per call, the median of short bursts; take the ratios (the machine is shared and noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
os.environ.setdefault("FASTJCS_BACKEND", "native")

import fastjcs  # noqa: E402
from fastjcs.core import native_backend as nb  # noqa: E402

try:
    import orjson
except ImportError:  # pragma: no cover - the bench extra has it
    orjson = None
try:
    import rfc8785
except ImportError:  # pragma: no cover
    rfc8785 = None

EAB = {
    "domain": "cmcp.execution-action-binding",
    "version": 1,
    "agent_id": "spiffe://agent.example/payments/prod",
    "action_type": "transfer",
    "action_scope": "account:merchant-7",
    "action_timestamp": "2026-09-10T16:30:00Z",
}


class Spinner:
    """One CPU-bound Python thread (`while not stop: x += 1`), as in ../shared/bench/convoy.py."""

    def __enter__(self) -> Spinner:
        self.stop = False
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()
        time.sleep(0.05)
        return self

    def _spin(self) -> None:
        x = 0
        while not self.stop:
            x += 1

    def __exit__(self, *exc: object) -> None:
        self.stop = True
        self.thread.join()


def per_call(f: Callable[[], Any], budget: float, repeat: int) -> float:
    """Seconds per call: the median over bursts of calls, each burst about 0.2 ms long (at least
    one call), for about `budget` seconds in all (at least 5 * `repeat` bursts).

    A burst is kept well under the switch interval so that what is measured is the latency of a
    call, not the share of the GIL that the calling loop gets: a Python loop beside a spinning
    thread gets half of it whatever it calls, between its calls, in turns of one switch interval
    (5 ms) each. A burst that spans a turn takes 5 ms more, whatever it calls; at 0.2 ms about one
    burst in 25 does, so the median is a call's own latency. (Bursts of 1 ms, as this script had
    until 2026-12-04, span a turn often enough on a loaded machine to move the median: the small
    calls then read 1.6-2.1x contended, orjson's as much as fastjcs's.) A call that releases the
    GIL waits for it at every call (cffi: the released columns below), so it is slowed in every
    burst and the median shows it."""
    f()
    t0 = time.perf_counter()
    f()
    one = max(time.perf_counter() - t0, 1e-7)
    n = max(1, min(10_000, int(2e-4 / one)))
    bursts = max(5 * repeat, min(2000, int(budget / (n * one))))
    times = []
    for _ in range(bursts):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        times.append((time.perf_counter() - t0) / n)
    times.sort()
    return times[len(times) // 2]


def both(f: Callable[[], Any], budget: float, repeat: int) -> tuple[float, float]:
    alone = per_call(f, budget, repeat)
    with Spinner():
        contended = per_call(f, budget, repeat)
    return alone, contended


def text_of(size: int) -> bytes:
    """A JSON text of about `size` bytes: an array of EAB-shaped objects, members out of order."""
    one = json.dumps(dict(reversed(list(EAB.items())))).encode()
    n = max(1, size // (len(one) + 1))
    return b"[" + b",".join([one] * n) + b"]"


def us(t: float) -> str:
    return f"{t * 1e6:,.1f}"


def small_table(budget: float, repeat: int, rows: list[dict]) -> None:
    text = fastjcs.dumps(EAB)
    calls: dict[str, Callable[[], Any]] = {
        "dumps": lambda: fastjcs.dumps(EAB),
        "canonicalize": lambda: fastjcs.canonicalize(text),
        "digest": lambda: fastjcs.digest(EAB),
        "digest_text": lambda: fastjcs.digest_text(text),
        "digest_many (1 value)": lambda: fastjcs.digest_many([EAB]),
        "format_double": lambda: fastjcs.format_double(0.1),
    }
    if orjson is not None:
        calls["orjson.dumps(sorted)"] = lambda: orjson.dumps(EAB, option=orjson.OPT_SORT_KEYS)
    if rfc8785 is not None:
        calls["rfc8785.dumps"] = lambda: rfc8785.dumps(EAB)
    print("\n1. Small calls (EAB-size), us per call; goal: contended within 1.5x of alone")
    print(f"{'call':<24} {'alone':>9} {'contended':>10} {'x':>6}  verdict")
    for name, f in calls.items():
        alone, contended = both(f, budget, repeat)
        ratio = contended / alone
        ours = not name.startswith(("orjson", "rfc8785"))
        verdict = ("PASS" if ratio <= 1.5 else "MISS") if ours else "(peer)"
        print(f"{name:<24} {us(alone):>9} {us(contended):>10} {ratio:>6.2f}  {verdict}")
        rows.append({"table": "small", "call": name, "alone_s": alone, "contended_s": contended})


def text_table(sizes: list[int], budget: float, repeat: int, rows: list[dict]) -> None:
    if nb._direct is None:
        print("\n2. skipped: no direct entry here (PyPy, CPython 3.9): every text goes through cffi")
        return
    limit = nb._direct.held_text_limit
    saved = limit()
    print(
        f"\n2. canonicalize(text): GIL held (direct) vs released (cffi), us per call; "
        f"policy: direct up to {saved:,} bytes; goal: policy contended <= 1.5x best alone"
    )
    peer = orjson is not None
    print(
        f"{'bytes':>10} {'held':>10} {'held+spin':>10} {'released':>10} {'rel+spin':>10} {'policy x':>9}  verdict"
        + (f"  {'orjson x':>8}" if peer else "")
    )
    try:
        for size in sizes:
            data = text_of(size)
            limit(1 << 62)
            held = both(lambda d=data: nb.canonicalize(d, 10_000, False), budget, repeat)
            limit(0)
            released = both(lambda d=data: nb.canonicalize(d, 10_000, False), budget, repeat)
            policy = held if len(data) <= saved else released
            ratio = policy[1] / min(held[0], released[0])
            # the control: a call that holds the GIL throughout, on the same text (orjson's loads and
            # sorted dumps): what the busy thread's turns cost any call of that length
            alone_c, contended_c = (
                both(lambda d=data: orjson.dumps(orjson.loads(d), option=orjson.OPT_SORT_KEYS), budget, repeat)
                if peer
                else (0.0, 0.0)
            )
            print(
                f"{len(data):>10,} {us(held[0]):>10} {us(held[1]):>10} {us(released[0]):>10} "
                f"{us(released[1]):>10} {ratio:>9.2f}  {'PASS' if ratio <= 1.5 else 'MISS'}   "
                + (f"  {contended_c / alone_c:>8.2f}" if peer else "")
            )
            rows.append(
                {
                    "table": "text",
                    "bytes": len(data),
                    "held": held,
                    "released": released,
                    "policy_ratio": ratio,
                    "orjson": (alone_c, contended_c),
                }
            )
    finally:
        limit(saved)


def value_table(sizes: list[int], budget: float, repeat: int, rows: list[dict]) -> None:
    print("\n3. dumps(value): the walker (GIL held) vs marshal + C reader through cffi, us per call")
    print(f"{'JCS bytes':>10} {'walker':>10} {'walk+spin':>10} {'marshal':>10} {'mar+spin':>10} {'walker x':>9}")
    for size in sizes:
        value = json.loads(text_of(size))
        walker = both(lambda v=value: nb.dumps(v, 10_000), budget, repeat)
        marshal = both(lambda v=value: nb._dumps_marshal(v, 10_000), budget, repeat)
        print(
            f"{len(fastjcs.dumps(value)):>10,} {us(walker[0]):>10} {us(walker[1]):>10} {us(marshal[0]):>10} "
            f"{us(marshal[1]):>10} {marshal[0] / walker[0]:>9.2f}"
        )
        rows.append({"table": "value", "bytes": size, "walker": walker, "marshal": marshal})
    records = [dict(EAB, version=i) for i in range(1000)]
    walker = both(lambda: nb.digest_many(records, 10_000, "sha256"), budget, repeat)
    marshal = both(lambda: nb._digest_many_marshal(records, 10_000, "sha256"), budget, repeat)
    print(
        f"{'digest_many 1,000':>10} {us(walker[0]):>10} {us(walker[1]):>10} {us(marshal[0]):>10} "
        f"{us(marshal[1]):>10} {marshal[0] / walker[0]:>9.2f}"
    )
    rows.append({"table": "value", "call": "digest_many 1000", "walker": walker, "marshal": marshal})


def parallel(size: int, rows: list[dict]) -> None:
    data = text_of(size)
    rounds = 4

    def work() -> None:
        for _ in range(rounds):
            fastjcs.canonicalize(data)

    t0 = time.perf_counter()
    work()
    work()
    serial = time.perf_counter() - t0
    threads = [threading.Thread(target=work) for _ in range(2)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    two = time.perf_counter() - t0
    print(
        f"\nLarge texts in parallel: 2 x {rounds} canonicalize of {len(data):,} bytes: one thread after the other "
        f"{serial:.2f} s, two threads {two:.2f} s: speed-up {serial / two:.2f}x on {os.cpu_count()} cores"
    )
    rows.append({"table": "parallel", "bytes": len(data), "serial_s": serial, "two_threads_s": two})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and shorter runs")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    budget, repeat = (0.05, 2) if args.quick else (0.2, 3)
    sizes = [256, 4096, 65536, 1 << 20, 16 << 20] if args.quick else [256 << (2 * k) for k in range(0, 8)] + [16 << 20]
    route = "direct entry" if nb._direct is not None else "cffi only"
    print(
        f"Python {sys.version.split()[0]}, fastjcs {fastjcs.__version__} ({route}), "
        f"switch interval {sys.getswitchinterval() * 1e3:g} ms, {os.cpu_count()} cores"
    )
    rows: list[dict] = []
    small_table(budget, repeat, rows)
    if nb._direct is not None:
        text_table(sizes, budget, repeat, rows)
        value_table(sizes, budget, repeat, rows)
    parallel(16 << 20, rows)
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
