"""Large single documents, for `fastjcs digest FILE` and `canon FILE` in bounded memory (issue 37).

A plain script (not collected by pytest). `make` writes one generated document of about SIZE bytes
(fast: an array's first 8 MiB of items, then that block again and again; an object's members are
all made, their names unique); `run` times whole
processes on it with /usr/bin/time -v (peak RSS and wall clock), the streamed `fastjcs digest`
against the in-memory path (`fastjcs.digest_text` of the whole file, what `digest FILE` did before)
and `sha256sum` of the same file, and checks the two digests agree.

    python benchmarks/big_document.py make records 100M /path/doc.json
    python benchmarks/big_document.py run /path/doc.json [--no-memory] [--canon]

Shapes: records (an array of small records, members out of order), object (one object of
members in scrambled order), deep (records inside arrays nested 9,000 deep), strings (an array of
1 MiB strings with escapes), geojson (one object holding an array of features).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

PIECE = 8 << 20


def _records(i: int) -> bytes:
    return b'{"name":"user %d","id":%d,"tags":["a","b\\n"],"score":%d.25,"active":true,"zip":"%05d"}' % (
        i,
        i,
        i % 1000,
        i % 100000,
    )


def _member(i: int) -> bytes:
    # names in scrambled order (a multiplicative hash of i), values short
    return b'"k%08x":%d' % ((i * 2654435761) & 0xFFFFFFFF, i)


def _feature(i: int) -> bytes:
    return (
        b'{"type":"Feature","properties":{"name":"place %d","pop":%d},'
        b'"geometry":{"type":"Point","coordinates":[%d.125,-%d.5]}}' % (i, i * 7, i % 180, i % 90)
    )


_STRING = (b'long text with \\"quotes\\" and \\u00e9 escapes ' * 20000)[: 1 << 20]


def make(shape: str, size: int, path: str) -> None:
    opening, closing, item = {
        "records": (b"[", b"]", _records),
        "object": (b"{", b"}", _member),
        "deep": (b"[" * 9000 + b"[", b"]" + b"]" * 9000, _records),
        "strings": (b"[", b"]", lambda i: b'"' + _STRING + b'"'),
        "geojson": (b'{"type":"FeatureCollection","features":[', b"]}", _feature),
    }[shape]
    repeat = shape != "object"  # an array may repeat a block of items; an object's names may not
    with open(path, "wb") as out:
        out.write(opening)
        written, i, buf = len(opening), 0, []
        pending = 0
        block = None
        while written < size:
            if block is not None and written + len(block) <= size:
                out.write(block)
                written += len(block)
                continue
            piece = item(i) if i == 0 else b"," + item(i)
            buf.append(piece)
            pending += len(piece)
            written += len(piece)
            i += 1
            if pending >= PIECE:
                chunk = b"".join(buf)
                out.write(chunk)
                buf, pending = [], 0
                if repeat and block is None:
                    block = chunk if chunk.startswith(b",") else b"," + chunk
        out.write(b"".join(buf))
        out.write(closing)


def _timed(cmd: list[str]) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS in kB, stdout) of a process, by /usr/bin/time -v."""
    run = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, check=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", run.stderr).group(1)
    seconds = sum(float(x) * 60**k for k, x in enumerate(reversed(wall.split(":"))))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1))
    cpu = sum(float(re.search(rf"{kind} time \(seconds\): (\S+)", run.stderr).group(1)) for kind in ("User", "System"))
    return seconds, cpu, rss, run.stdout.strip()


def run(path: str, memory: bool, canon: bool) -> None:
    size = os.path.getsize(path)
    py = sys.executable
    rows = [("fastjcs digest FILE (streamed)", [py, "-m", "fastjcs", "digest", path])]
    if memory:
        rows.append(
            (
                "in memory: digest_text(whole file)",
                [py, "-c", "import sys, fastjcs; print(fastjcs.digest_text(open(sys.argv[1], 'rb').read()))", path],
            )
        )
    if canon:
        out = path + ".canon"
        rows.append(("fastjcs canon FILE -o OUT (streamed)", [py, "-m", "fastjcs", "canon", path, "-o", out]))
    rows.append(("sha256sum FILE", ["sha256sum", path]))
    print(f"{path}: {size / 1e6:.1f} MB; load {os.getloadavg()[0]:.1f}")
    digests = []
    for name, cmd in rows:
        seconds, cpu, rss, stdout = _timed(cmd)
        if name.startswith(("fastjcs digest", "in memory")):
            digests.append(stdout)
        print(f"  {name:40s} {seconds:8.2f} s wall {cpu:8.2f} s CPU {rss / 1024:9.1f} MB peak RSS")
    if canon:
        os.unlink(path + ".canon")
    if len(set(digests)) != 1:
        raise SystemExit(f"digests differ: {digests}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("shape", choices=["records", "object", "deep", "strings", "geojson"])
    m.add_argument("size", help="bytes, with a K, M or G suffix (powers of 10)")
    m.add_argument("path")
    r = sub.add_parser("run")
    r.add_argument("path")
    r.add_argument("--no-memory", action="store_true", help="skip the in-memory path (too large)")
    r.add_argument("--canon", action="store_true", help="time canon FILE -o OUT too")
    args = parser.parse_args(argv)
    if args.command == "make":
        units = {"K": 10**3, "M": 10**6, "G": 10**9}
        size = args.size.upper()
        make(args.shape, int(float(size[:-1]) * units[size[-1]]) if size[-1] in units else int(size), args.path)
    else:
        run(args.path, not args.no_memory, args.canon)
    return 0


if __name__ == "__main__":
    sys.exit(main())
