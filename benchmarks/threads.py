"""The 2-thread speed-up of the C core: cffi releases the GIL during C calls, and the core keeps no
global state, so two threads canonicalize two large documents at once.

    PYTHONPATH=src python benchmarks/threads.py [--mb 20] [--repeat 5]

Prints, for canonicalize (text in) and dumps (objects in): the time of two calls one after the
other in one thread, the time of the same two calls in two threads at once (best of --repeat), the
ratio (the speed-up; at most the number of free cores), and whether every output was correct.
dumps gains less: marshal.dumps, which encodes the value for C, runs in Python with the GIL held.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import threading
import time

import fastjcs


def records(n: int, seed: int) -> list:
    rng = random.Random(seed)
    words = ["alpha", "\u00e9t\u00e9", "\u20ac", "\U0001f602", "tab\there", 'q"uote', "plain"]
    return [
        {f"f{rng.randrange(60)}": rng.choice(words) for _ in range(10)}
        | {
            "id": i,
            "n": rng.randrange(-(2**53) + 1, 2**53),
            "ok": i % 3 == 0,
            "none": None,
            "nested": {"z": [i, str(i), {"b": True, "a": []}], "y": rng.random() < 0.5},
        }
        for i in range(n)
    ]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(name: str, call, inputs: list, expected: list, repeat: int) -> None:
    outputs: list = [None, None]

    def sequential() -> None:
        for i in (0, 1):
            outputs[i] = call(inputs[i])

    def parallel() -> None:
        def work(i: int) -> None:
            outputs[i] = call(inputs[i])

        threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    one = best(sequential, repeat)
    ok_one = outputs == expected
    two = best(parallel, repeat)
    ok_two = outputs == expected
    print(
        f"{name:13s} 1 thread {one * 1000:8.1f} ms   2 threads {two * 1000:8.1f} ms   "
        f"speed-up {one / two:4.2f}x   correct: {ok_one and ok_two}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=20, help="size of each document (MB of text)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if fastjcs.backend() != "native":
        raise SystemExit(f"the C backend is not in use (fastjcs.backend() == {fastjcs.backend()!r})")
    n = int(args.mb * 1e6 / 420)  # about 420 bytes of text per record
    values = [records(n, seed) for seed in (1, 2)]
    docs = [json.dumps(v, indent=1).encode() for v in values]
    canon = [fastjcs.canonicalize(d) for d in docs]
    print(
        f"fastjcs {fastjcs.__version__} ({fastjcs.backend()}), {os.cpu_count()} CPUs, "
        f"documents of {len(docs[0]) / 1e6:.1f} and {len(docs[1]) / 1e6:.1f} MB"
    )
    measure("canonicalize", fastjcs.canonicalize, docs, canon, args.repeat)
    measure("dumps", fastjcs.dumps, values, canon, args.repeat)


if __name__ == "__main__":
    main()
