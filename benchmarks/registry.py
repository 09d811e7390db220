"""Admissions per second of the execution registry on SQLite and on PostgreSQL, and the latency of
one admission.

    PYTHONPATH=src python benchmarks/registry.py [--postgres URL] [--clients 1,2,4,8]
                                                 [--seconds 3] [--latency 2000]

For each storage and each client count, that many processes (each with its own registry instance,
as separate service processes would be) admit new keys for --seconds; the figure is the admissions
of all of them per second. Then one client admits --latency new keys one after the other; the
figure is the median and the 99th percentile of one admit (a new reservation, its audit event,
one committed transaction). SQLite is a file in a temporary directory (WAL, synchronous=FULL);
PostgreSQL is the server at --postgres (default: FASTJCS_TEST_POSTGRES_URL), in a schema made
for the run and dropped afterwards; without a URL it is left out, saying so.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import secrets
import statistics
import sys
import tempfile
import time
from typing import Callable

from fastjcs.eab import ExecutionRegistry, RegistryError

AGENT = "spiffe://agent.example/bench"


def _binding(n: int) -> str:
    return f"sha256:{n:064x}"


def _client(target: str, client: int, start: float, seconds: float, out) -> None:
    """Admit new keys from `start` for `seconds`; put the count on `out`."""
    with ExecutionRegistry(target) as reg:
        reg.get(AGENT, "warm-up")  # connect before the clock starts
        while time.time() < start:
            time.sleep(0.001)
        n, end = 0, start + seconds
        while time.time() < end:
            reg.admit(AGENT, f"c{client}-{n}", _binding(n), call_id=f"c{client}")
            n += 1
    out.put(n)


def throughput(target: str, clients: int, seconds: float) -> float:
    """Admissions per second of `clients` processes together."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 2.0  # after every process has started and connected
    procs = [ctx.Process(target=_client, args=(target, c, start, seconds, out)) for c in range(clients)]
    for p in procs:
        p.start()
    counts = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise RuntimeError(f"a client process exited with {p.exitcode}")
    return sum(counts) / seconds


def latency(target: str, count: int) -> tuple[float, float]:
    """Median and 99th percentile of one admit, in milliseconds."""
    times: list[float] = []
    with ExecutionRegistry(target) as reg:
        for n in range(count):
            t0 = time.perf_counter()
            reg.admit(AGENT, f"lat-{n}", _binding(n))
            times.append(time.perf_counter() - t0)
    times.sort()
    return statistics.median(times) * 1e3, times[min(len(times) - 1, int(len(times) * 0.99))] * 1e3


def run(name: str, fresh: Callable[[], str], clients: list[int], seconds: float, count: int) -> None:
    for n in clients:
        target = fresh()
        print(
            f"{name:<10} {n} client{'s' if n > 1 else ' '}  {throughput(target, n, seconds):>9,.0f} admits/s",
            flush=True,
        )
    median, p99 = latency(fresh(), count)
    print(f"{name:<10} one admit: median {median:.3f} ms, p99 {p99:.3f} ms ({count} admits)", flush=True)


def main(argv: list[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres",
        default=os.environ.get("FASTJCS_TEST_POSTGRES_URL", ""),
        help="a PostgreSQL URL where a schema may be created",
    )
    parser.add_argument("--clients", default="1,2,4,8")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--latency", type=int, default=2000)
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    print(f"# {os.cpu_count()} CPUs; each figure: new keys, one committed transaction each")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            made = iter(range(1000))

            def sqlite_target() -> str:
                path = os.path.join(tmp, f"r{next(made)}.db")
                ExecutionRegistry.create(path).close()
                return path

            run("sqlite", sqlite_target, clients, args.seconds, args.latency)
        if not args.postgres:
            print("postgresql: left out (no --postgres URL and FASTJCS_TEST_POSTGRES_URL unset)")
            return 0
        import psycopg

        schemas = []
        admin = psycopg.connect(args.postgres, autocommit=True)
        try:

            def postgres_target() -> str:
                schema = f"fastjcs_bench_{secrets.token_hex(4)}"
                admin.execute(f"CREATE SCHEMA {schema}")
                schemas.append(schema)
                sep = "&" if "?" in args.postgres else "?"
                url = f"{args.postgres}{sep}options=-csearch_path%3D{schema}"
                ExecutionRegistry.create(url).close()
                return url

            run("postgresql", postgres_target, clients, args.seconds, args.latency)
        finally:
            for schema in schemas:
                admin.execute(f"DROP SCHEMA {schema} CASCADE")
            admin.close()
    except (RegistryError, RuntimeError, OSError, ImportError) as exc:
        print(f"registry benchmark: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    except Exception as exc:  # psycopg errors, without importing psycopg for the SQLite-only run
        print(f"registry benchmark: {type(exc).__name__}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
