"""What each of default_records.py's four types costs above its pre-converted form, in instructions.

    PYTHONPATH=src python benchmarks/default_types.py [--records 1000]

For each of the four (datetime, UUID, Decimal, dataclass), the records of
benchmarks/default_records.py with that one member left as the object and the other three
converted beforehand, through `fastjcs.dumps(recs, default=fastjcs.stdlib_types)`; and the
records all converted (`pre`), through `fastjcs.dumps(recs)`. Callgrind counts the instructions
inside `fastjcs.dumps` only (`--toggle-collect=api_dumps`), for 1 and for 4 calls: the difference
over 3 calls gives one call with nothing of start-up, import or the loop. Per record: a workload's
count divided by the records; "above pre" is that less the pre-converted records' count, the
type's own cost above the string (or dict) it becomes. `all` is default_records.py's records as
they are (every member an object): instructions.py's `stdlib` workload, counted the same way.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEMBERS = {"datetime": "at", "uuid": "id", "decimal": "amount", "dataclass": "where"}
WORKLOADS = ("pre", *MEMBERS, "all")


def documents(workload: str, n: int) -> list:
    sys.path.insert(0, str(HERE))
    import default_records

    recs = default_records.records(n)
    if workload == "all":
        return recs
    pre = default_records.converted(recs)
    if workload == "pre":
        return pre
    key = MEMBERS[workload]
    return [dict(p, **{key: r[key]}) for p, r in zip(pre, recs)]


def driver(workload: str, n: int, calls: int) -> None:
    import fastjcs

    docs = documents(workload, n)
    dumps, st = fastjcs.dumps, fastjcs.stdlib_types
    if workload == "pre":
        for _ in range(calls):
            dumps(docs)
    else:
        for _ in range(calls):
            dumps(docs, default=st)


def count(workload: str, n: int, calls: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=api_dumps",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--driver",
                workload,
                str(n),
                str(calls),
            ],
            check=True,
            capture_output=True,
            env=dict(os.environ, PYTHONHASHSEED="0"),
        )
        return int(re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M).group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--driver", nargs=3, metavar=("WORKLOAD", "RECORDS", "CALLS"))
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--workload", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    args = parser.parse_args()
    if args.driver:
        driver(args.driver[0], int(args.driver[1]), int(args.driver[2]))
        return 0
    n = args.records
    per = {w: (count(w, n, 4) - count(w, n, 1)) / 3 / n for w in dict.fromkeys(["pre", *args.workload])}
    print(f"instructions per record inside fastjcs.dumps ({n} records; callgrind)")
    print(f"{'workload':<11}{'per record':>12}{'above pre':>11}")
    for w, ir in per.items():
        print(f"{w:<11}{ir:>12,.0f}{ir - per['pre']:>11,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
