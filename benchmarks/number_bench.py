"""Build and run the number-rendering benchmark: ns per double for fjcs_format_double (C),
snprintf("%.17g"), Python's repr and, where cargo is installed, crates.io's `ryu` and `zmij`
(benchmarks/rust_numbers/, a peer-only cargo program), over the same doubles in the same run.

    PYTHONPATH=src python benchmarks/number_bench.py [--count 1000000] [--repeat 5] [--cc gcc]

Two data sets of --count doubles each: random 64-bit patterns (finite only), and short decimals
(m / 10^j for random m < 10^6 and j <= 6, like 123.456). The C timer is benchmarks/number_bench.c,
compiled here with -O2 into benchmarks/bin/. Correctness is recorded too: the C program checks
that every rendering reads back (strtod), and this script compares a sample with fastjcs.core.python_backend.
The targets: fjcs at most 0.10x the time of snprintf (docs/contract.md#performance-targets) and at
most 0.45x Ryu's (issue 31). The two programs alternate per repetition and each keeps its best, so a
load spike hits both rather than one.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "benchmarks" / "bin"


def random_bits(count: int, rng: random.Random) -> list:
    out = []
    while len(out) < count:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            out.append(x)
    return out


def short_decimals(count: int, rng: random.Random) -> list:
    return [rng.randrange(1, 10**6) / 10 ** rng.randrange(0, 7) for _ in range(count)]


def build(cc: str) -> Path:
    BIN.mkdir(parents=True, exist_ok=True)
    exe = BIN / "number_bench"
    cmd = [
        cc,
        "-std=c11",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Wmissing-prototypes",
        "-Wshadow",
        f"-I{ROOT / 'csrc'}",
        "-o",
        str(exe),
        str(ROOT / "benchmarks" / "number_bench.c"),
        str(ROOT / "csrc" / "number_format.c"),
    ]
    subprocess.run(cmd, check=True)
    return exe


def build_peers() -> Path | None:
    """The cargo program timing ryu and zmij, or None where cargo is missing or the build fails."""
    cargo = shutil.which("cargo")
    if cargo is None:
        return None
    target = BIN / "rust_numbers"
    done = subprocess.run(
        [cargo, "build", "--release", "-q", "--target-dir", str(target)],
        cwd=ROOT / "benchmarks" / "rust_numbers",
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        print(f"(ryu/zmij peers not built: {done.stderr.strip().splitlines()[-1:]})", file=sys.stderr)
        return None
    return target / "release" / "fastjcs-number-peers"


def time_repr(values: list, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        list(map(repr, values))
        best = min(best, time.perf_counter() - t0)
    return best / len(values) * 1e9


def sample_agrees(values: list) -> bool:
    """fastjcs.core.native_backend against fastjcs.core.python_backend on a sample, where the extension is built."""
    try:
        from fastjcs.core import native_backend as _native
        from fastjcs.core import python_backend as _python
    except ImportError:
        return True
    sample = values[:: max(1, len(values) // 2000)]
    return _native.format_doubles(sample) == [_python.format_double(x) for x in sample]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--seed", type=int, default=8785)
    args = parser.parse_args()

    exe = build(args.cc)
    peers = build_peers()
    rng = random.Random(args.seed)
    sets = {"random bits": random_bits(args.count, rng), "short decimals": short_decimals(args.count, rng)}
    print(f"{args.count:,} doubles per set, best of {args.repeat}; ns per double")
    print(
        f"{'set':<16}{'fjcs (C)':>10}{'ryu':>8}{'zmij':>8}{'snprintf':>10}{'repr':>9}"
        f"{'fjcs/ryu':>10}{'fjcs/zmij':>11}{'fjcs/snprintf':>15}  correct"
    )
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, values in sets.items():
            path = Path(tmp) / "doubles.bin"
            path.write_bytes(struct.pack(f"<{len(values)}d", *values))
            fjcs = snp = ryu = zmij = math.inf
            roundtrip = "ok"
            for _ in range(args.repeat):  # alternate the programs, best of each
                line = subprocess.run(
                    [str(exe), str(path), "1"], check=True, capture_output=True, text=True
                ).stdout.split()
                fjcs, snp = min(fjcs, float(line[1])), min(snp, float(line[3]))
                roundtrip = line[5] if roundtrip == "ok" else roundtrip
                if peers is not None:
                    line = subprocess.run(
                        [str(peers), str(path), "1"], check=True, capture_output=True, text=True
                    ).stdout.split()
                    ryu, zmij = min(ryu, float(line[1])), min(zmij, float(line[3]))
            rep = time_repr(values, args.repeat)
            correct = roundtrip == "ok" and sample_agrees(values)
            ok &= correct
            print(
                f"{name:<16}{fjcs:>10.1f}{ryu:>8.1f}{zmij:>8.1f}{snp:>10.1f}{rep:>9.1f}"
                f"{fjcs / ryu:>9.3f}x{fjcs / zmij:>10.3f}x{fjcs / snp:>14.3f}x  {'yes' if correct else 'NO'}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
