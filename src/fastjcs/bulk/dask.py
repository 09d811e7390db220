"""Digests on a Dask cluster: columns of DataFrames, Bags of texts, and jobs over many files.

Dask's distributed scheduler runs the same code on a laptop (``distributed.LocalCluster``) and on
a cluster (an existing scheduler, or one started by dask-kubernetes, dask-jobqueue or SSH), so
this module is all fastjcs needs to run past one machine:

- `digest_series(series)`: the digests of a Dask Series of JSON texts (a DataFrame column), lazily,
  partition by partition through `fastjcs.arrow` (one C call per partition's Arrow chunk), never
  collected to the client; `digest_bag(bag)` the same for a Bag of texts;
- `digest_jsonl_files(inputs, output_dir)` and `digest_parquet_files(inputs, output_dir,
  column=...)`: one task per input file (local paths or any fsspec URL), each writing its output
  file atomically (`fastjcs.bulk.jobs`), so a worker lost mid-file only costs that file again
  (the scheduler reruns its task elsewhere) and `resume=True` skips the files already done.

Every worker needs fastjcs installed (with the C core: a wheel), and the output folder of a file
job must be one filesystem all the workers see. Needs the `dask` extra
(``pip install '.[dask]'`` from a fastjcs checkout: dask[dataframe,distributed] and pyarrow).
"""

from __future__ import annotations

import numbers
import uuid
from typing import Any, Callable, cast

try:
    import dask  # noqa: F401 - the extra is installed (dask.dataframe and dask.bag are used lazily)
    import distributed
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"fastjcs.dask needs dask (install the dask extra: pip install '.[dask]' from a fastjcs checkout): {exc}"
    ) from exc

from ..core.api import DEFAULT_MAX_DEPTH, check_depth
from ..core.errors import CanonicalizationError
from ..core.hashing import check_algorithm
from . import arrow, folder_lock, jobs
from .jobs import Result
from .jsonl import Settings

__all__ = ["digest_series", "digest_bag", "digest_jsonl_files", "digest_parquet_files", "run_tasks", "Result"]


def _options(
    algorithm: str, raw: bool, errors: str, max_depth: int, strict_integers: bool, integers_only: bool
) -> dict[str, Any]:
    """The keywords of `fastjcs.arrow.digest_array`, checked on the client (not on a worker)."""
    if errors not in arrow.POLICIES:
        raise ValueError(f"errors must be 'raise' or 'null', not {errors!r}")
    return dict(
        algorithm=check_algorithm(algorithm),
        raw=bool(raw),
        errors=errors,
        max_depth=check_depth(max_depth),
        strict_integers=bool(strict_integers),
        integers_only=bool(integers_only),
    )


def dask_setup(worker: Any) -> None:
    """A Dask preload (``preload=["fastjcs.dask"]``, as `fastjcs digest --cluster local:N` starts
    its workers): SIGINT and SIGHUP are left to the process that started the cluster. A Ctrl-C
    in a terminal reaches the whole process group, and each worker printed its own traceback; the
    command line stops the job and closes the cluster instead."""
    import signal

    for name in ("SIGINT", "SIGHUP"):
        try:
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        except (AttributeError, ValueError):  # no such signal here, or not the main thread
            pass


# ---- columns and bags ------------------------------------------------------------------------


def _digest_partition(part: Any, options: dict[str, Any], name: str) -> Any:
    """One partition (a pandas Series) through digest_array: an Arrow-backed Series, or with
    errors="null" a DataFrame of `name` and `name`_error."""
    import pandas as pd
    import pyarrow as pa

    texts = pa.array(part.array) if len(part) else pa.array([], pa.string())
    if not (
        pa.types.is_string(texts.type)
        or pa.types.is_large_string(texts.type)
        or pa.types.is_binary(texts.type)
        or pa.types.is_large_binary(texts.type)
    ):
        texts = _texts(part.to_list())  # object columns: str (or bytes) per row
    try:
        result = arrow.digest_array(texts, **options)
    except CanonicalizationError as exc:  # errors="raise": the row's place in the series, not the partition
        if exc.index is not None and 0 <= exc.index < len(part):
            label = part.index[exc.index]
            exc.index = int(label) if isinstance(label, numbers.Integral) else exc.index
            exc.label = label.item() if hasattr(label, "item") else label  # type: ignore[attr-defined]
        raise

    def series(values: Any, label: str) -> Any:  # of the type the meta of digest_series says
        if pa.types.is_large_string(values.type):
            values = values.cast(pa.string())
        return pd.Series(pd.arrays.ArrowExtensionArray(values), index=part.index, name=label)

    if options["errors"] == "raise":
        return series(result, name)
    return pd.concat([series(result.values, name), series(result.errors, name + "_error")], axis=1)


def digest_series(
    series: Any,
    *,
    algorithm: str = "sha256",
    raw: bool = False,
    errors: str = "raise",
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
    name: str = "digest",
) -> Any:
    """The digest of each JSON text of a Dask Series (str or bytes per row, nulls kept), lazily.

    Returns a Dask Series named `name` (Arrow-backed strings ``"<alg>:<hex>"``, or bytes with
    `raw`); with ``errors="null"`` a Dask DataFrame with `name` and `name` + "_error" (the
    message of each failed row). With ``errors="raise"`` the first bad row of a partition fails
    its task when the result is computed: the error of `fastjcs.arrow.digest_array`, whose
    `label` is the row's label in the series' index and `index` that label when it is an
    integer (the row's number in the series for a default index), else the row's number within
    its partition. Options as in `fastjcs.arrow.digest_array`.
    """
    import pandas as pd
    import pyarrow as pa

    options = _options(algorithm, raw, errors, max_depth, strict_integers, integers_only)
    kind = pd.ArrowDtype(pa.binary(32 if algorithm == "sha256" else 48) if raw else pa.string())
    column = pd.Series([], dtype=kind, name=name)
    meta = (
        column
        if errors == "raise"
        else pd.concat([column, pd.Series([], dtype=pd.ArrowDtype(pa.string()), name=name + "_error")], axis=1)
    )
    return series.map_partitions(_digest_partition, options, name, meta=meta)


def _texts(rows: list[Any]) -> Any:
    """A pyarrow array of the texts of a partition; one of no rows, or of None alone (which
    pyarrow types null), is an array of strings."""
    import pyarrow as pa

    texts = pa.array(rows)
    return texts.cast(pa.string()) if pa.types.is_null(texts.type) else texts


def _digest_list(part: Any, options: dict[str, Any]) -> list[Any]:
    result = arrow.digest_array(_texts(list(part)), **options)
    if isinstance(result, arrow.Results):  # errors="null"
        return [
            value if value is not None else error
            for value, error in zip(result.values.to_pylist(), result.errors.to_pylist())
        ]
    return cast(list[Any], result.to_pylist())


def digest_bag(
    bag: Any,
    *,
    algorithm: str = "sha256",
    raw: bool = False,
    errors: str = "raise",
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
) -> Any:
    """The digest of each JSON text (str or bytes) of a Dask Bag, lazily, a partition per call.

    With ``errors="null"`` a failed text gives its message ("ErrorClass: message"), which never
    looks like a digest (no "<alg>:" prefix of 64 or 96 hex digits); a null text gives None.
    """
    options = _options(algorithm, raw, errors, max_depth, strict_integers, integers_only)
    return bag.map_partitions(_digest_list, options)


# ---- jobs over files -------------------------------------------------------------------------


def run_tasks(
    tasks: list[jobs.Task],
    settings: Settings,
    client: Any | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Run the tasks of a planned job (`fastjcs.bulk.jobs.plan`) on the cluster of `client`
    (default: the current one), one task per file; their results in task order. on_result(result)
    is called as each file is done (progress). A task that fails (an input that cannot be read, a
    missing column) raises its error here; one whose worker dies is run again by the scheduler
    (up to its `allowed-failures`), from the start of its file."""
    client = client if client is not None else distributed.get_client()
    run = uuid.uuid4().hex  # keys of this run only: a rerun of the same files is a new run
    futures = client.map(
        jobs.run_task,
        tasks,
        settings=settings,
        pure=False,
        key=[f"fastjcs-digest-{run}-{i}" for i in range(len(tasks))],
    )
    order = {f.key: i for i, f in enumerate(futures)}
    results: list[Result | None] = [None] * len(tasks)
    try:
        for future in distributed.as_completed(futures):
            result = future.result()
            results[order[future.key]] = result
            if on_result is not None:
                on_result(result)
    except BaseException:
        client.cancel(futures)  # the other files: not run for a job that failed
        raise
    return [r for r in results if r is not None]


def _settings(
    algorithm: str,
    max_depth: int,
    strict_integers: bool,
    integers_only: bool,
    profile: str = "jcs",
    exclusion: tuple[str, ...] = (),
) -> Settings:
    return Settings(
        check_algorithm(algorithm),
        profile,
        tuple(exclusion),
        check_depth(max_depth),
        bool(strict_integers),
        bool(integers_only),
    )


def digest_jsonl_files(
    inputs: jobs.Sources,
    output_dir: str,
    *,
    client: Any | None = None,
    algorithm: str = "sha256",
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
    resume: bool = False,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Digest every line of many JSON Lines files on a Dask cluster (`client`, default the
    current one), one task per file.

    `inputs` is a path, a glob or an fsspec URL (or a list of them); each input gets
    ``<output_dir>/<name>.digests``, byte for byte what ``fastjcs digest --jsonl <input>``
    prints, written atomically. Returns a `fastjcs.bulk.jobs.Result` per input (sorted by
    output path):
    its lines and a note per failed line ("LINE:COL: ErrorClass: message (byte N)"). With
    `resume`, inputs whose output exists are not run again (their failed lines are read back
    from the output).
    """
    settings = _settings(algorithm, max_depth, strict_integers, integers_only)
    return _job(inputs, output_dir, "jsonl", None, False, resume, settings, client, on_result)


def digest_parquet_files(
    inputs: jobs.Sources,
    output_dir: str,
    *,
    column: str,
    client: Any | None = None,
    append: bool = False,
    algorithm: str = "sha256",
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_integers: bool = False,
    integers_only: bool = False,
    resume: bool = False,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Digest a column of JSON texts in many Parquet files on a Dask cluster, one task per file.

    Each input gets ``<output_dir>/<name>.digests.parquet`` with the columns `row` (the row's
    number in the file; with `append`, the file's own columns instead), `digest` and `error`.
    Otherwise as `digest_jsonl_files`; a failed row's note is "row N: ErrorClass: message".
    """
    settings = _settings(algorithm, max_depth, strict_integers, integers_only)
    return _job(inputs, output_dir, "parquet", column, append, resume, settings, client, on_result)


def _job(
    inputs: jobs.Sources,
    output_dir: str,
    kind: str,
    column: str | None,
    append: bool,
    resume: bool,
    settings: Settings,
    client: Any | None,
    on_result: Callable[[Result], None] | None,
) -> list[Result]:
    """Plan and run a job, the output folder held for it (`fastjcs.bulk.folder_lock.locked`); all the
    results, sorted by output path, once the leftovers of lost workers are removed."""
    patterns = [inputs] if isinstance(inputs, str) else list(inputs)
    sources = jobs.sources_of(inputs)
    jobs.outputs(sources, output_dir, kind, patterns)  # an output that is an input: refused first
    with folder_lock.locked(output_dir):
        todo, done = jobs.plan(sources, output_dir, kind, column, append, resume, settings, patterns)
        ran = run_tasks(todo, settings, client, on_result)
        jobs.clean(output_dir, [t.output for t in todo])
    return sorted(done + ran, key=lambda r: r.output)
