#!/usr/bin/env python3
"""fjcs_digest_lines_hex (the C call behind `fastjcs digest --jsonl`) in C, without the process
around it: time against its SHA-256 bound, and instructions per line under callgrind.

Compiles benchmarks/lines_bench.c with the C core (csrc/*.c, the extension's flags) and runs it on
the lines of benchmarks/cli_digest.py's corpora (`eab`, `records`: the same documents, one per
line, json.dumps with its spaces; --canonical: names sorted, no whitespace, as a JCS writer logs
them), or on a JSONL file of your own (--file). The hash is
pycryptodome's compiled SHA256_oneshot, the function the Python binding hands the core, loaded
from its library: the SHA-NI build where the CPU has it for timings, the portable build under
callgrind (valgrind runs no SHA-NI instruction).

    python benchmarks/lines_bench.py --corpus eab --mb 50              # time: x the bound
    python benchmarks/lines_bench.py --corpus eab --lines 20000 --callgrind

Timing: the best of --repeat passes of each (digest every line; hash the file once; hash each line
as it stands, which for canonical lines is the hash's share of the call and so bounds it), in the
same process, so the ratio holds better than the seconds on a shared machine. callgrind: instructions
collected inside fjcs_digest_lines_hex only (--toggle-collect), per line: all of them, those in
SHA256_oneshot (the hash), and the rest (the core's own cost: split, parse, order, render).
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def hash_library(shani: bool) -> Path:
    """pycryptodome's SHA-256 library: the SHA-NI build when asked and present, else the portable."""
    import Crypto.Hash

    folder = Path(Crypto.Hash.__file__).parent
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    names = (["_SHA256_shani"] if shani else []) + ["_SHA256"]
    for name in names:
        for candidate in (folder / f"{name}.abi3.so", folder / f"{name}{suffix}"):
            if candidate.exists():
                return candidate
    raise SystemExit(f"no pycryptodome SHA-256 library in {folder}")


def has_sha_ni() -> bool:
    try:
        from Crypto.Util import _cpu_features

        return bool(_cpu_features.have_sha_ni())
    except Exception:  # noqa: BLE001 - an older pycryptodome: the portable build
        return False


def build(cc: str, out: Path, cflags: list[str]) -> None:
    import build_ffi

    cmd = [cc, *build_ffi._cflags, "-DNDEBUG", "-g", "-fwrapv", *cflags, f"-I{ROOT / 'csrc'}"]
    cmd += [str(ROOT / "benchmarks" / "lines_bench.c"), *(str(ROOT / s) for s in build_ffi._sources)]
    subprocess.run([*cmd, "-o", str(out), "-ldl"], check=True)


def write_lines(path: Path, corpus: str, mb: float, lines: int | None, canonical: bool) -> None:
    import cli_digest

    if lines is None:
        cli_digest.write_corpus_lines(path, corpus, mb, canonical)
        return
    # the first `lines` lines of the same corpus (its seed): write a little more, keep the head
    cli_digest.write_corpus_lines(path, corpus, lines * 600 / 1e6, canonical)
    with open(path, "rb") as f:
        head = b"".join(f.readline() for _ in range(lines))
    path.write_bytes(head)


def run(exe: Path, data: Path, lib: Path, repeat: int) -> dict[str, float]:
    proc = subprocess.run([str(exe), str(data), str(lib), str(repeat)], check=True, capture_output=True, text=True)
    return {k: float(v) for k, v in (line.split() for line in proc.stdout.splitlines())}


def callgrind(exe: Path, data: Path, lib: Path, work: Path) -> dict[str, float]:
    """Instructions inside fjcs_digest_lines_hex, and inside SHA256_oneshot called from it."""
    out = work / "callgrind.out"
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            "--toggle-collect=fjcs_digest_lines_hex",
            str(exe),
            str(data),
            str(lib),
            "1",
        ],
        check=True,
        capture_output=True,
    )
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", str(out)], check=True, capture_output=True, text=True
    ).stdout
    found: dict[str, float] = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*:?(fjcs_digest_lines_hex|SHA256_oneshot)\b", line)
        if m and m.group(2) not in found:
            found[m.group(2)] = float(m.group(1).replace(",", ""))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=["eab", "records"], default="eab")
    parser.add_argument("--mb", type=float, default=50.0, help="MB of lines to time (50)")
    parser.add_argument("--lines", type=int, help="the first N lines instead of --mb (callgrind: 20000)")
    parser.add_argument("--canonical", action="store_true", help="the corpus's lines already canonical")
    parser.add_argument("--file", type=Path, help="a JSONL file of your own instead of --corpus")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="count instructions instead of timing")
    parser.add_argument("--cc", default=shutil.which("cc") or "gcc")
    parser.add_argument("--cflags", default="", help="more compiler flags (e.g. -DFJCS_HAVE_SSE2=0)")
    args = parser.parse_args()
    if args.callgrind and args.lines is None and args.file is None:
        args.lines = 20000

    random.seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        exe = work / "lines_bench"
        build(args.cc, exe, args.cflags.split())
        data = args.file
        if data is None:
            data = work / "lines.jsonl"
            write_lines(data, args.corpus, args.mb, args.lines, args.canonical)
        name = args.file or args.corpus + (" (canonical)" if args.canonical else "")
        if args.callgrind:
            lib = hash_library(shani=False)
            lines = sum(1 for _ in open(data, "rb"))
            got = callgrind(exe, data, lib, work)
            total, sha = got.get("fjcs_digest_lines_hex", 0.0), got.get("SHA256_oneshot", 0.0)
            print(
                f"{name}: {lines} lines; instructions per line: {total / lines:,.0f} in "
                f"fjcs_digest_lines_hex, {sha / lines:,.0f} in SHA256_oneshot (portable), "
                f"{(total - sha) / lines:,.0f} outside the hash"
            )
            return 0
        lib = hash_library(shani=has_sha_ni())
        r = run(exe, data, lib, args.repeat)
        size, lines = r["bytes"], r["lines"]
        print(
            f"{name}: {lines:.0f} lines, {size / 1e6:.1f} MB, {lib.name}, best of {args.repeat}: "
            f"digest_lines_hex {size / r['digest_ns'] * 1e3:.0f} MB/s ({r['digest_ns'] / lines:.0f} ns a line), "
            f"bound {size / r['bound_ns'] * 1e3:.0f} MB/s: {r['bound_ns'] / r['digest_ns']:.3f}x the bound"
            + (f"; {r['failed']:.0f} lines failed" if r["failed"] else "")
        )
        # of canonical lines, what the call hashes: its hash's share, and the most the call could reach
        hashed = r["hash_lines_ns"] / r["bound_ns"]
        print(
            f"  each line hashed as it stands, nothing else: {hashed:.2f}x the bound's time "
            f"(with everything but the hash free, at most {1 / hashed:.2f}x the bound"
            + (")" if args.canonical else "; these lines are not canonical: their canonical forms are shorter)")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
