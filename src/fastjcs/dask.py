"""`fastjcs.dask`, the public name of `fastjcs.bulk.dask`: digests on a Dask cluster (columns,
Bags, jobs over many files). See that module for the whole story."""

from __future__ import annotations

from .bulk.dask import (
    Result,
    digest_bag,
    digest_jsonl_files,
    digest_parquet_files,
    digest_series,
    run_tasks,
)
from .bulk.dask import dask_setup as dask_setup  # a Dask preload of "fastjcs.dask" runs it on each worker

__all__ = ["digest_series", "digest_bag", "digest_jsonl_files", "digest_parquet_files", "run_tasks", "Result"]
