"""`dumps(recs, default=f)` on records carrying the types real records carry (issue 31, item 1).

    python benchmarks/default_records.py [--records 1000] [--repeat 7] [--interleaved ROUNDS]

1,000 records, each with a datetime, a UUID, a Decimal and a small dataclass beside plain
members; `f` converts those four (isoformat, str, str, the dataclass's fields). Rows, best of
--repeat runs of a loop of calls (times per call):

- fastjcs.dumps(recs, default=fastjcs.stdlib_types): the same four types in stdlib_types' fixed
  representation (isoformat, str, str, the fields), which the walker writes itself on CPython;
- fastjcs.dumps(recs, default=f): the direct entry's walker calls f itself;
- fastjcs.dumps(pre): the same records converted beforehand (the goal: within 1.5x of this);
- the pure-Python backend with default=f (what fastjcs did before the walker called default);
- orjson.dumps(recs, default=f, option=OPT_SORT_KEYS) (orjson writes datetime, UUID and
  dataclasses itself and calls f for the Decimal only; the goal: fastjcs >= 1.0x of it).

f gives what stdlib_types gives (asserted), so every row writes the same bytes.

Times are from a shared machine: quote the ratios with the load (`uptime`), never one time alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import decimal
import os
import sys
import time
import timeit
import uuid
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import fastjcs  # noqa: E402
from fastjcs.core import python_backend  # noqa: E402

try:
    import orjson
except ImportError:  # pragma: no cover - optional
    orjson = None


@dataclasses.dataclass
class Point:
    x: int
    y: float


def f(value: Any) -> Any:
    """The conversion both libraries are given."""
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal)):
        return str(value)
    if dataclasses.is_dataclass(value):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    raise TypeError(f"cannot convert {type(value).__name__}")


def records(n: int) -> list[dict]:
    start = datetime.datetime(2026, 12, 1, 8, 0, 0)
    return [
        {
            "seq": i,
            "actor": f"agent-{i % 17}",
            "action": "tool.call",
            "at": start + datetime.timedelta(seconds=i),
            "id": uuid.UUID(int=i * 7919),
            "amount": decimal.Decimal(f"{i}.{i % 100:02d}"),
            "where": Point(i, i / 4),
            "ok": i % 3 != 0,
        }
        for i in range(n)
    ]


def converted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: converted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [converted(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return converted(f(value))


def best(fn: Any, repeat: int) -> float:
    number = max(1, int(0.2 / max(timeit.timeit(fn, number=1), 1e-7)))
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def interleaved(recs: list, pre: list, rounds: int) -> None:
    dumps, st, clock = fastjcs.dumps, fastjcs.stdlib_types, time.perf_counter_ns
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, call in enumerate((lambda: dumps(recs, default=st), lambda: dumps(pre))):
            start = clock()
            for _ in range(5):
                call()
            best[i] = min(best[i], (clock() - start) / 5)
    print(
        f"{fastjcs.backend()} backend, {len(recs)} records, best of {rounds} interleaved; load {os.getloadavg()}\n"
        f"  default=stdlib_types {best[0] / 1e6:.3f} ms, pre-converted {best[1] / 1e6:.3f} ms: "
        f"{best[0] / best[1]:.2f}x (goal <= 1.5x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--interleaved",
        type=int,
        metavar="ROUNDS",
        help="only the ratio default=stdlib_types / pre-converted: the two calls in turn, ROUNDS times, "
        "the best of each (on a loaded machine the two then see the same load)",
    )
    args = parser.parse_args()
    recs = records(args.records)
    pre = converted(recs)
    if args.interleaved:
        interleaved(recs, pre, args.interleaved)
        return
    assert fastjcs.dumps(recs, default=f) == fastjcs.dumps(pre) == python_backend.dumps(recs, 10_000, False, f)
    assert fastjcs.dumps(recs, default=fastjcs.stdlib_types) == fastjcs.dumps(pre)
    rows = {
        "fastjcs dumps(recs, default=stdlib_types)": best(
            lambda: fastjcs.dumps(recs, default=fastjcs.stdlib_types), args.repeat
        ),
        "fastjcs dumps(recs, default=f)": best(lambda: fastjcs.dumps(recs, default=f), args.repeat),
        "fastjcs dumps(pre-converted)": best(lambda: fastjcs.dumps(pre), args.repeat),
        "pure-Python backend, default=f": best(lambda: python_backend.dumps(recs, 10_000, False, f), args.repeat),
    }
    if orjson is not None:
        option = orjson.OPT_SORT_KEYS
        rows["orjson dumps(recs, default=f, OPT_SORT_KEYS)"] = best(
            lambda: orjson.dumps(recs, default=f, option=option), args.repeat
        )
    print(f"{fastjcs.backend()} backend, {args.records} records, best of {args.repeat}; load {os.getloadavg()}")
    for name, t in rows.items():
        print(f"  {name:48} {t * 1e3:8.3f} ms")
    pre_time = rows["fastjcs dumps(pre-converted)"]
    for name in ("stdlib_types", "f"):
        ours = rows[f"fastjcs dumps(recs, default={name})"]
        print(f"  default={name} / pre-converted: {ours / pre_time:.2f}x (goal <= 1.5x)")
        if orjson is not None:
            ratio = rows["orjson dumps(recs, default=f, OPT_SORT_KEYS)"] / ours
            print(f"  orjson / fastjcs default={name}: {ratio:.2f}x (goal >= 1.0x)")
    ours = rows["fastjcs dumps(recs, default=f)"]
    print(f"  pure-Python backend / default=f: {rows['pure-Python backend, default=f'] / ours:.1f}x")


if __name__ == "__main__":
    main()
