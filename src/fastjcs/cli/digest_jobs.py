"""`fastjcs digest --output-dir`: a job over many files, one output file per input file, on this
machine or on a Dask cluster (--cluster)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable

from .common import install_hint
from .streams import (
    EXIT_ERROR,
    EXIT_OK,
    CLIError,
)

#: The module each worker of `--cluster local:N` preloads: Dask runs its `dask_setup(worker)`.
WORKER_PRELOAD = "fastjcs.bulk.dask"


def _add_job_options(p: argparse.ArgumentParser) -> None:
    """`digest` over many files: FILE is then a path, a glob or an fsspec URL (quoted)."""
    p.add_argument(
        "--output-dir",
        metavar="DIR",
        help="--jsonl or --parquet: one output file per input file under DIR, each written "
        "atomically (FILE may be a glob or an fsspec URL)",
    )
    p.add_argument(
        "--parquet", action="store_true", help="FILE is Parquet: digest the JSON texts of --column (with --output-dir)"
    )
    p.add_argument("--column", metavar="NAME", help="--parquet: the column of JSON texts")
    p.add_argument(
        "--append",
        action="store_true",
        help="--parquet: write the file's own columns, then digest and error (default: row, digest, error)",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS|local:N",
        help="--output-dir: run one task per file on the Dask scheduler at ADDRESS, or on a "
        "local cluster of N worker processes (needs the dask extra)",
    )
    p.add_argument(
        "--resume", action="store_true", help="--output-dir: skip the inputs whose output an earlier run finished"
    )


def _is_job(args: argparse.Namespace) -> bool:
    """Is this `digest` a job over files (--output-dir)? Refuses the options that need one."""
    if args.output_dir is None:
        for given, name in (
            (args.parquet, "--parquet"),
            (args.column, "--column"),
            (args.append, "--append"),
            (args.cluster, "--cluster"),
            (args.resume, "--resume"),
        ):
            if given:
                raise CLIError(f"{name} applies to a job over files: give --output-dir DIR")
        return False
    if args.jsonl == args.parquet:
        raise CLIError("--output-dir takes --jsonl or --parquet (one of them)")
    if args.parquet and not args.column:
        raise CLIError("--parquet needs --column NAME (the column of JSON texts)")
    if not args.parquet and (args.column or args.append):
        raise CLIError("--column and --append apply to --parquet")
    if args.file == "-":
        raise CLIError("--output-dir reads files: give FILE (a path, a glob or a URL), not stdin")
    if args.jobs != 1 or args.fail_fast:
        raise CLIError(
            "--jobs and --fail-fast apply to --jsonl on one file (a job's unit is a file; "
            "--cluster local:N runs N at once)"
        )
    return True


def _cluster_workers(spec: str) -> int:
    """The N of --cluster local:N (0 for a scheduler's address); a bad N is a usage error."""
    if not spec.startswith("local:"):
        return 0
    try:
        workers = int(spec[6:])
    except ValueError:
        workers = 0
    if workers < 1:
        raise CLIError(f"--cluster {spec}: local:N takes a number of workers >= 1")
    return workers


@contextmanager
def _client(spec: str) -> Iterator[Any]:
    """A Dask client for --cluster: the scheduler at ADDRESS, or a local cluster (local:N)."""
    import distributed  # present: _digest_job checked

    workers = _cluster_workers(spec)
    if workers:
        import logging

        # Quiet: the scheduler and the workers log to this command's stderr, which holds one line
        # per failed input line (and a worker lost mid-job is run again, not an error of ours).
        with (
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
                preload=[WORKER_PRELOAD],  # a Ctrl-C is ours to handle, not each worker's
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = distributed.Client(spec, timeout="20s")
    except (OSError, ValueError) as exc:
        raise CLIError(f"--cluster {spec}: cannot reach the scheduler ({exc})") from exc
    with client:
        yield client


def _job_progress(args: argparse.Namespace, total: int) -> Callable[[Any], None]:
    """A progress line on stderr, per file done, when stderr is a terminal."""
    show = not args.no_progress and sys.stderr.isatty()
    seen = [0, 0]

    def on_result(result: Any) -> None:
        seen[0] += 1
        seen[1] += result.lines
        if show:
            sys.stderr.write(f"\rdigest: {seen[0]}/{total} files, {seen[1]:,} lines")
            if seen[0] == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    return on_result


def _digest_job(args: argparse.Namespace, settings: Any) -> int:
    from ..bulk import folder_lock, jobs

    kind = "parquet" if args.parquet else "jsonl"
    # What the job needs, checked before any work: a one-line usage error, never an ImportError.
    if args.cluster is not None:
        _cluster_workers(args.cluster)
    needs = [("pyarrow", "--parquet", "arrow")] if kind == "parquet" else []
    needs += [("distributed", "--cluster", "dask")] if args.cluster is not None else []
    for module, option, extra in needs:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise CLIError(f"{option} needs {module}: {install_hint(extra)} ({exc})") from exc
    # The hashes load before any output exists: pycryptodome builds its cffi bindings as a module
    # loads (pycparser), and a stop signal landing inside that import surfaced as a TypeError
    # traceback instead of the one-line stop (seen once in a SIGHUP test, mid-file).
    from ..core.hashing import hash_module

    hash_module(settings.algorithm), hash_module("sha256")  # the output's, and the inputs' record
    try:
        sources = jobs.sources_of(args.file)
        jobs.outputs(sources, args.output_dir, kind, [args.file])  # an output that is an input: refused first
        with folder_lock.locked(args.output_dir):  # one job at a time in a folder
            todo, done = jobs.plan(
                sources, args.output_dir, kind, args.column, args.append, args.resume, settings, [args.file]
            )
            on_result = _job_progress(args, len(todo))
            try:
                if args.cluster is None:
                    ran = jobs.run_local(todo, settings, on_result)
                else:
                    from .. import dask as _dask

                    with _client(args.cluster) as client:
                        ran = _dask.run_tasks(todo, settings, client, on_result)
            except KeyboardInterrupt:  # a signal: the workers of a local cluster are closed by now
                jobs.clean(args.output_dir, [t.output for t in todo])
                raise
            jobs.clean(args.output_dir, [t.output for t in todo])  # what workers killed mid-file left
    except (OSError, ValueError) as exc:  # an input that cannot be read, a missing column...
        filename = getattr(exc, "filename", None)
        where = f"{filename}: " if filename else ""
        raise CLIError(f"{where}{getattr(exc, 'strerror', None) or exc}") from exc
    results = sorted(done + ran, key=lambda r: r.output)
    separator = ":" if kind == "jsonl" else ": "
    failed = 0
    for r in results:
        for note in r.notes:
            sys.stderr.write(f"fastjcs digest: {r.source}{separator}{note}\n")
        failed += r.failed
    print(
        f"{len(results)} files ({len(done)} done by an earlier run), "
        f"{sum(r.lines for r in results)} {'lines' if kind == 'jsonl' else 'rows'}, "
        f"{failed} failed: {args.output_dir}"
    )
    return EXIT_ERROR if failed else EXIT_OK  # bad input, as with --jsonl on one file
