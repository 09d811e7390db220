#!/usr/bin/env python3
"""Time fjcs__parse_double against strtod (C locale): ns per token and the ratio.

Compiles benchmarks/parse_bench.c with csrc/number_parse.c at -O2 and runs it on two kinds of
10^6 tokens (fixed seed):
  shortest   repr() of random finite doubles (every bit pattern equally likely: 15-17 digits,
             exponents across the whole range)
  short      short decimals such as 123.456 ("%.3f" of a uniform value below 1000)

    python benchmarks/parse_bench.py [--n 1000000] [--repeats 7] [--cc cc]

Prints a table; "agree" says whether both readers gave the same bits for every token.
"""

from __future__ import annotations

import argparse
import random
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def shortest_tokens(n: int, rnd: random.Random) -> list[str]:
    out = []
    while len(out) < n:
        x = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
        if x == x and x not in (float("inf"), float("-inf")):
            out.append(repr(x))
    return out


def short_tokens(n: int, rnd: random.Random) -> list[str]:
    return ["%.3f" % (rnd.random() * 1000) for _ in range(n)]


def build(cc: str, out: Path) -> None:
    cmd = [
        cc,
        "-std=c11",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Wmissing-prototypes",
        "-Wshadow",
        f"-I{ROOT / 'csrc'}",
        str(ROOT / "benchmarks" / "parse_bench.c"),
        str(ROOT / "csrc" / "number_parse.c"),
        "-o",
        str(out),
    ]
    subprocess.run(cmd, check=True)


def run(exe: Path, tokens: list[str], repeats: int, work: Path) -> dict[str, str]:
    data = work / "tokens.txt"
    data.write_text("\n".join(tokens) + "\n", encoding="ascii")
    proc = subprocess.run([str(exe), str(data), str(repeats)], check=True, capture_output=True, text=True)
    return dict(line.split() for line in proc.stdout.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=8785)
    parser.add_argument("--cc", default=shutil.which("cc") or "gcc")
    args = parser.parse_args()

    rnd = random.Random(args.seed)
    kinds = {
        "shortest": shortest_tokens(args.n, rnd),
        "short": short_tokens(args.n, rnd),
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        exe = work / "parse_bench"
        build(args.cc, exe)
        print(f"{'tokens':<10} {'n':>9} {'fjcs ns':>9} {'strtod ns':>10} {'ratio':>7}  agree")
        for name, tokens in kinds.items():
            r = run(exe, tokens, args.repeats, work)
            fj, st = float(r["fjcs__parse_double"]), float(r["strtod"])
            print(
                f"{name:<10} {int(r['tokens']):>9} {fj:>9.1f} {st:>10.1f} {st / fj:>6.2f}x  "
                f"{'yes' if r['agree'] == '1' else 'NO'}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
