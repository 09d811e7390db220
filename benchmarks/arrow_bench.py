"""Figures for fastjcs.arrow and fastjcs.dask, as ratios measured in one run.

    python benchmarks/arrow_bench.py [--files 8] [--lines 100000] [--repeat 5]

1. `digest_array` (one C call per chunk, reading the Arrow buffers) against `digest_texts` (a list
   of bytes) on the same rows: the benchmark corpora's small documents (the EAB pre-images and the
   records one by one). Both on the C core.
2. A JSON Lines job over FILES files of LINES lines each (the EAB pre-images), written to a
   temporary folder: in one process (the command line's path without --cluster), and on a
   distributed.LocalCluster of 1 and of 2 worker processes (started before the clock starts);
   the per-core rate it gives is what docs/arrow.md scales to a cluster.

Needs the dask extra (dask[distributed], pyarrow). Timings are best of --repeat.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import corpus  # noqa: E402

import fastjcs  # noqa: E402


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def rows() -> list[bytes]:
    import json

    out = list(corpus.load("eab").texts)
    out += [json.dumps(r, ensure_ascii=False).encode() for r in corpus.load("records").objects[0]]
    return out


def column_figures(repeat: int) -> None:
    import pyarrow as pa

    from fastjcs.arrow import digest_array

    texts = rows()
    col = pa.array(texts, pa.binary())
    assert digest_array(col).to_pylist() == fastjcs.digest_texts(texts)
    t_texts = best(lambda: fastjcs.digest_texts(texts), repeat)
    t_array = best(lambda: digest_array(col), repeat)
    t_raw = best(lambda: digest_array(col, raw=True), repeat)
    size = sum(map(len, texts))
    print(f"rows: {len(texts):,} ({size / len(texts):.0f} bytes each), backend {fastjcs.backend()}")
    print(f"  digest_texts            {t_texts * 1e3:8.1f} ms  {len(texts) / t_texts / 1e3:7.0f} k rows/s")
    print(
        f"  digest_array            {t_array * 1e3:8.1f} ms  {len(texts) / t_array / 1e3:7.0f} k rows/s"
        f"  ratio {t_texts / t_array:.2f}x"
    )
    print(
        f"  digest_array(raw=True)  {t_raw * 1e3:8.1f} ms  {len(texts) / t_raw / 1e3:7.0f} k rows/s"
        f"  ratio {t_texts / t_raw:.2f}x"
    )


def job_figures(files: int, lines: int, repeat: int) -> None:
    import distributed

    import fastjcs.dask as fdask
    from fastjcs.bulk import jobs
    from fastjcs.bulk.jsonl import Settings

    docs = corpus.load("eab").texts
    settings = Settings("sha256", "jcs", (), fastjcs.DEFAULT_MAX_DEPTH, False)
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(files):
            with open(os.path.join(tmp, f"in-{k}.jsonl"), "wb") as f:
                f.write(b"".join(docs[(k + i) % len(docs)] + b"\n" for i in range(lines)))
        pattern = os.path.join(tmp, "in-*.jsonl")
        size = sum(os.path.getsize(p) for p in jobs.expand(pattern))

        def local() -> None:
            todo, _ = jobs.plan(jobs.expand(pattern), os.path.join(tmp, "local"), "jsonl")
            jobs.run_local(todo, settings)

        total = files * lines
        t_local = best(local, repeat)
        print(f"JSON Lines job: {files} files x {lines:,} lines, {size / 1e6:.0f} MB")
        print(
            f"  one process (no cluster)   {t_local:6.2f} s  {total / t_local / 1e3:7.0f} k lines/s "
            f"{size / t_local / 1e6:6.0f} MB/s"
        )
        for workers in (1, 2):
            with (
                distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
                ) as cluster,
                distributed.Client(cluster) as client,
            ):
                out = os.path.join(tmp, f"cluster{workers}")
                t = best(lambda out=out, client=client: fdask.digest_jsonl_files(pattern, out, client=client), repeat)
            print(
                f"  LocalCluster, {workers} worker(s)   {t:6.2f} s  {total / t / 1e3:7.0f} k lines/s "
                f"{size / t / 1e6:6.0f} MB/s  vs one process {t_local / t:.2f}x"
            )
        print(f"  (the machine has {os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    column_figures(args.repeat)
    job_figures(args.files, args.lines, max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
