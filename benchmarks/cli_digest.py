"""Whole-process throughput of `fastjcs digest --jsonl` against the Python loop a user writes today,
and against the bound of its hash: pycryptodome's SHA-256 over the same bytes, in-process.

A plain script (not collected by pytest). It writes a JSONL file from a fixed seed, then times, as
whole processes (interpreter start and imports included):

    loop      python loop.py FILE        json.loads + rfc8785.dumps + pycryptodome SHA-256 per line
    fastjcs   python -m fastjcs digest --jsonl --jobs N FILE

Both write one `sha256:<hex>` line per input line to a file; the outputs are compared before any
figure is printed. Best of --repeat runs each (the machine is shared: take ratios, not seconds), with
the CPU seconds of that run's process tree beside it: on a loaded machine --jobs 2 cannot get two
cores, and the CPU figure shows how the work was split even when the wall clock cannot.

The bound: SHA256.new(data).digest() over the whole file in memory, in this process, best of
--repeat, timed between the fastjcs runs (so both see the same load). `x the SHA-256 bound` is that
time over fastjcs's: 1.0 would be a digest per line as fast as hashing the input once (issue 31
asks >= 0.5 per core, --jobs 1); beside it the same ratio by CPU seconds (the hash's in this
process, the whole process tree's for fastjcs), which a loaded machine moves less. The fastjcs
runs write bytecode (as an installed package has it) and one untimed run comes first, so neither
compiling the package nor a cold page cache is timed.

Corpora (--corpus): `cli` the EAB-size objects of this script (about 230 bytes a line), `eab` and
`records` the documents of benchmarks/corpus.py (an EAB preimage, about 210 bytes; a nested
record with floats and non-ASCII text, about 500 bytes), as many as --mb asks, one per line;
with --canonical, those lines as a JCS writer logs them (names sorted, no whitespace).

    PYTHONPATH=src python benchmarks/cli_digest.py                      # 100k lines, jobs 1
    PYTHONPATH=src python benchmarks/cli_digest.py -n 1000000 --jobs 1 2 --no-loop
    PYTHONPATH=src python benchmarks/cli_digest.py --corpus eab --mb 300 --no-loop
    python benchmarks/cli_digest.py --corpus eab --mb 300 --no-loop --builds /tmp/main/src src

--builds runs fastjcs from each of several source folders (as PYTHONPATH, each built in place) on
the same corpus, one after the other for each --jobs value, each beside its own SHA-256 bound: a
before/after comparison under the same load, without writing the corpus twice.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LOOP = """\
import json, sys
import rfc8785
from Crypto.Hash import SHA256
out = []
with open(sys.argv[1], "rb") as f:
    for line in f:
        out.append("sha256:" + SHA256.new(rfc8785.dumps(json.loads(line))).hexdigest())
sys.stdout.write("\\n".join(out) + "\\n")
"""


def write_corpus_lines(path: Path, kind: str, mb: float, canonical: bool = False) -> tuple[int, int]:
    """benchmarks/corpus.py's `eab` or `records` documents, made from a fixed seed until the file
    holds `mb` MB, one per line (json.dumps with its spaces, non-ASCII as UTF-8). (lines, bytes).
    With `canonical`, as a JCS writer's log has them: names sorted, no whitespace (json.dumps with
    sort_keys and compact separators, canonical wherever Python's float repr is ECMAScript's)."""
    options: dict[str, Any] = {"sort_keys": True, "separators": (",", ":")} if canonical else {}
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import corpus

    rng = random.Random(f"{corpus.SEED}-{kind}-lines")
    size, n, limit = 0, 0, int(mb * 1e6)
    with open(path, "wb") as f:
        while size < limit:
            doc = corpus._record(rng, n) if kind == "records" else _eab_document(corpus, rng, n)
            line = json.dumps(doc, ensure_ascii=False, **options).encode("utf-8") + b"\n"
            f.write(line)
            size += len(line)
            n += 1
    return n, size


def _eab_document(corpus: Any, rng: random.Random, i: int) -> dict[str, Any]:
    """One document of benchmarks/corpus.py's `eab` corpus (the same fields and value shapes)."""
    return {
        "domain": "cmcp.execution-action-binding",
        "version": 1,
        "agent_id": f"agent-{rng.getrandbits(64):016x}",
        "action_type": rng.choice(["tools/call", "resources/read", "prompts/get", "sampling"]),
        "action_scope": f"{rng.choice(corpus._WORDS)}:{rng.choice(corpus._WORDS)}/{i}",
        "action_timestamp": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
        f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z",
    }


def sha256_bound(path: Path, repeat: int) -> tuple[float, float]:
    """Best wall seconds and best CPU seconds of pycryptodome's SHA-256 over the whole file, in
    memory, in this process."""
    from Crypto.Hash import SHA256

    data = path.read_bytes()
    best = best_cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        SHA256.new(data).digest()
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    return best, best_cpu


def write_corpus(path: Path, n: int, seed: int = 8785) -> int:
    """n EAB-size JSONL lines (about 230 bytes each), as a client would send them."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for _i in range(n):
            f.write(
                json.dumps(
                    {
                        "domain": "cmcp.execution-action-binding",
                        "version": 1,
                        "agent_id": f"spiffe://agent.example/payments/prod-{rng.randrange(1000)}",
                        "action_type": rng.choice(["transfer", "refund", "read", "approve"]),
                        "action_scope": f"account:merchant-{rng.randrange(10**6)}/\u5de5\u5177",
                        "action_timestamp": f"2026-09-{rng.randint(1, 30):02d}T16:{rng.randrange(60):02d}:00Z",
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    return path.stat().st_size


def timed(cmd: list[str], out: Path, repeat: int, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(best wall seconds, CPU seconds of that run's whole process tree)."""
    best, cpu = float("inf"), 0.0
    for _ in range(repeat):
        with open(out, "wb") as sink:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(cmd, stdout=sink, check=True, env=env)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if wall < best:
            best = wall
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return best, cpu


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100_000, help="lines (100000)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1], help="fastjcs --jobs values (1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per command, best kept (3)")
    parser.add_argument("--no-loop", action="store_true", help="time fastjcs only")
    parser.add_argument(
        "--corpus", choices=["cli", "eab", "records"], default="cli", help="the lines (cli: this script's, -n of them)"
    )
    parser.add_argument("--mb", type=float, default=300.0, help="MB of lines for --corpus eab or records (300)")
    parser.add_argument(
        "--canonical", action="store_true", help="eab or records lines already canonical (names sorted, no spaces)"
    )
    parser.add_argument("--builds", nargs="+", metavar="SRC", help="fastjcs from each of these PYTHONPATHs in turn")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        corpus = tmpdir / "corpus.jsonl"
        if args.corpus == "cli":
            size = write_corpus(corpus, args.n)
        else:
            args.n, size = write_corpus_lines(corpus, args.corpus, args.mb, args.canonical)
        print(
            f"{args.corpus}{' (canonical)' if args.canonical else ''}: {args.n} lines, "
            f" {size / 1e6:.1f} MB, best of {args.repeat}, backend "
            f"{os.environ.get('FASTJCS_BACKEND') or 'default'}, load {os.getloadavg()[0]:.2f}"
        )
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        builds = args.builds or [None]
        outputs: dict[int, bytes] = {}
        results = {}
        if not args.no_loop:
            script = tmpdir / "loop.py"
            script.write_text(LOOP)
            results["loop"], cpu = timed([sys.executable, str(script), str(corpus)], tmpdir / "loop.out", args.repeat)
            print(f"  python loop (json + rfc8785 + pycryptodome): {results['loop']:.2f} s (CPU {cpu:.2f} s)")
        for jobs, build in [(jobs, build) for jobs in args.jobs for build in builds]:
            env = base if build is None else {**base, "PYTHONPATH": str(Path(build).resolve())}
            out = tmpdir / f"fastjcs-{jobs}.out"
            name = f"jobs {jobs}" + ("" if build is None else f" {build}")
            cmd = [sys.executable, "-m", "fastjcs", "digest", "--jsonl", "--jobs", str(jobs), str(corpus)]
            timed(cmd, out, 1, env)  # untimed: bytecode written, the file in the page cache
            results[name], cpu = timed(cmd, out, args.repeat, env)
            bound, bound_cpu = sha256_bound(corpus, args.repeat)
            line = (
                ("" if build is None else f"  [{build}]\n")
                + f"  fastjcs digest --jsonl --jobs {jobs}: {results[name]:.2f} s (CPU {cpu:.2f} s, "
                f"{size / 1e6 / results[name]:.0f} MB/s), {bound / results[name]:.2f}x the SHA-256 bound "
                f"({size / 1e6 / bound:.0f} MB/s; by CPU seconds {bound_cpu / cpu:.2f}x)"
            )
            if "loop" in results:
                same = out.read_bytes() == (tmpdir / "loop.out").read_bytes()
                line += (
                    f", {results['loop'] / results[name]:.1f}x the loop, output {'identical' if same else 'DIFFERENT'}"
                )
            if name != "jobs 1" and "jobs 1" in results:
                line += f", {results['jobs 1'] / results[name]:.2f}x jobs 1"
            if build is not None:  # every build's output against the first build's
                got = out.read_bytes()
                first = outputs.setdefault(jobs, got)
                line += "" if got == first else f", output DIFFERENT from {builds[0]}'s"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
