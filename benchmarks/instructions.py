"""Instructions per call, counted by callgrind: a ratio that holds on a shared, loaded machine.

    PYTHONPATH=src python benchmarks/instructions.py [--workload eab records doubles strings ints]

For each library (fastjcs.dumps, orjson.dumps sorted, msgspec's sorted encoder) and workload, a
small driver (this file, --driver) runs the call over the workload's documents in a loop, under
`valgrind --tool=callgrind`, twice: for LOW and for HIGH rounds. The difference of the two totals
divided by the difference in calls removes start-up and import; the same two runs of the loop with
the builtin `id` in place of the library call give the loop's own cost per call, which is
subtracted. Instruction counts are not time (a multiply and a move count alike, a cache miss not
at all), but they move with the code and not with the load, so a ratio of two of them can be
checked where timings cannot. The workloads are benchmarks/corpus.py's (eab: the first 100 EAB
objects, one call each; records: one call on the records document; doubles: the 10,000 doubles
as one list), two of issue 31's: 1 MB of non-ASCII strings (one list) and 10,000 small ints, and
issue 33's member sort: `wide`, 100 objects of 40 members and one of 5,000, their names in a
shuffled order (fixed seed); and issue 31's records with a datetime, a UUID, a Decimal and a
dataclass each (`stdlib`: benchmarks/default_records.py's 1,000, one call), which fastjcs writes
with `default=fastjcs.stdlib_types`, orjson with that script's `f` (orjson converts all but the
Decimal itself) and msgspec natively (the same text but for its own datetime form), and the same
records converted beforehand (`stdlib_pre`: plain JSON values, no default). JSON text in:
`floats-text`, the 10,000 doubles' text (json.dumps, so repr's spelling) through
`fastjcs.canonicalize`, against each peer's loads then sorted dumps (a lambda's frame, a few
hundred instructions, in the peers' count).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOW, HIGH = 2, 6
WORKLOADS = ("eab", "records", "doubles", "strings", "ints", "wide", "stdlib", "stdlib_pre", "floats-text")
LIBS = ("fastjcs", "orjson", "msgspec")


def documents(workload: str) -> list:
    if workload == "strings":
        s = "\u00e9t\u00e9 \u4e2d\u6587 \u0436\u0443\u0440\u043d\u0430\u043b "  # 2- and 3-byte UTF-8
        n = 1_000_000 // len(s.encode())
        return [[s + str(i) for i in range(n // 8)] * 8]  # distinct strs: no shared UTF-8 cache
    if workload == "ints":
        return [list(range(-5000, 5000))]
    if workload == "wide":  # past the insertion sort's FJCS_SMALL_SORT: the merge sort's share
        import random

        rng = random.Random(33)
        names = [f"field_{i:05d}" for i in range(5000)]
        small = []
        for k in range(100):
            picked = rng.sample(names, 40)
            small.append({name: k for name in picked})
        rng.shuffle(names)
        return [*small, {name: 1 for name in names}]
    sys.path.insert(0, str(HERE))
    import corpus as corpora

    if workload == "eab":
        return list(corpora.load("eab").objects[:100])
    if workload == "records":
        return [corpora.load("records").objects[0]]
    if workload == "doubles":
        return [corpora.load("floats").objects[0]]
    if workload == "floats-text":
        return [corpora.load("floats").texts[0]]
    if workload == "stdlib":
        import default_records

        return [default_records.records(1000)]
    if workload == "stdlib_pre":  # the same records converted beforehand (issue 31's 1.5x is of these)
        import default_records

        return [default_records.converted(default_records.records(1000))]
    raise SystemExit(f"unknown workload {workload!r}")


def call_of(lib: str):
    if lib == "fastjcs":
        import fastjcs

        return fastjcs.dumps
    if lib == "orjson":
        import orjson

        opt, dumps = orjson.OPT_SORT_KEYS, orjson.dumps
        return lambda o: dumps(o, option=opt)  # the wrapper's cost is in the loop's share below
    if lib == "msgspec":
        import msgspec

        return msgspec.json.Encoder(order="sorted").encode
    if lib == "loop":
        return id
    raise SystemExit(f"unknown library {lib!r}")


def text_call_of(lib: str):
    """JSON text in: fastjcs.canonicalize against each peer's loads + sorted dumps."""
    if lib == "fastjcs":
        import fastjcs

        return fastjcs.canonicalize
    if lib == "orjson":
        import orjson

        opt, dumps, loads = orjson.OPT_SORT_KEYS, orjson.dumps, orjson.loads
        return lambda t: dumps(loads(t), option=opt)
    if lib == "msgspec":
        import msgspec

        encode, decode = msgspec.json.Encoder(order="sorted").encode, msgspec.json.decode
        return lambda t: encode(decode(t))
    return id


def driver(lib: str, workload: str, rounds: int) -> None:
    docs = documents(workload)
    fn = call_of(lib)
    if workload == "floats-text":  # one call per round: the lambdas' frames are not counted apart
        fn = text_call_of(lib)
    # the lambda's frame is orjson's price here; count the bare call instead
    if lib == "orjson" and workload != "floats-text":
        import orjson

        opt, dumps = orjson.OPT_SORT_KEYS, orjson.dumps
        default = None
        if workload == "stdlib":
            import default_records

            default = default_records.f
        for _ in range(rounds):
            for d in docs:
                dumps(d, option=opt, default=default)
        return
    if lib == "fastjcs" and workload == "stdlib":  # likewise: the bare call, its keyword given
        import fastjcs

        dumps, stdlib_types = fastjcs.dumps, fastjcs.stdlib_types
        for _ in range(rounds):
            for d in docs:
                dumps(d, default=stdlib_types)
        return
    for _ in range(rounds):
        for d in docs:
            fn(d)


def total_ir(lib: str, workload: str, rounds: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--driver",
                lib,
                workload,
                str(rounds),
            ],
            check=True,
            capture_output=True,
            env=dict(os.environ, PYTHONHASHSEED="0"),
        )
        m = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        return int(m.group(1))


def per_call(lib: str, workload: str) -> float:
    calls = (HIGH - LOW) * len(documents(workload))
    return (total_ir(lib, workload, HIGH) - total_ir(lib, workload, LOW)) / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--driver", nargs=3, metavar=("LIB", "WORKLOAD", "ROUNDS"))
    parser.add_argument("--workload", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    args = parser.parse_args(argv)
    if args.driver:
        driver(args.driver[0], args.driver[1], int(args.driver[2]))
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        return 2
    print("instructions per call (callgrind, loop subtracted); x = peer / fastjcs")
    print(f"{'workload':<10}{'fastjcs':>12}{'orjson':>12}{'msgspec':>12}{'x orjson':>10}{'x msgspec':>11}")
    for w in args.workload:
        loop = per_call("loop", w)
        ir = {lib: per_call(lib, w) - loop for lib in LIBS}
        f = ir["fastjcs"]
        print(
            f"{w:<10}{f:>12,.0f}{ir['orjson']:>12,.0f}{ir['msgspec']:>12,.0f}"
            f"{ir['orjson'] / f:>10.2f}{ir['msgspec'] / f:>11.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
