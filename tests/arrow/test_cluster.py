"""fastjcs.dask on a real distributed.LocalCluster of 2 worker processes.

The references are the single-process command (`fastjcs digest --jsonl FILE`, test_jobs.py holds
the in-process job to it) and `fastjcs.digest_texts`. The killed-worker test slows the workers
down (the pure-Python backend) so that a file is being digested when its worker is killed.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install '.[dask]' from a checkout)"
)
pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[dask]' from a checkout)")

import _cli  # noqa: E402
from test_jobs import make_inputs, reference  # noqa: E402

import fastjcs  # noqa: E402
import fastjcs.dask as fdask  # noqa: E402
from fastjcs.bulk import jobs  # noqa: E402
from fastjcs.bulk.jsonl import Settings  # noqa: E402

SETTINGS = Settings("sha256", "jcs", (), fastjcs.DEFAULT_MAX_DEPTH, False)


def _cluster() -> distributed.LocalCluster:
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")


@pytest.fixture(scope="module")
def client():
    with _cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def test_the_jsonl_job_on_the_cluster(client, tmp_path):
    inputs = make_inputs(tmp_path / "in")
    seen = []
    results = fdask.digest_jsonl_files(
        str(tmp_path / "in" / "**" / "*.jsonl"), str(tmp_path / "out"), client=client, on_result=seen.append
    )
    assert len(seen) == len(results) == 4
    for name, path in inputs.items():
        assert (tmp_path / "out" / (name + ".digests")).read_bytes() == reference(path), name
    # A bad line is reported with its file and line, and costs no other line or file.
    notes = {Path(r.source).relative_to(tmp_path / "in").as_posix(): r.notes for r in results}
    assert [n.split(": ")[0] for n in notes["a/two.jsonl"]] == ["101:10", "201:12"]
    assert notes["a/one.jsonl"] == notes["b/one.jsonl"] == notes["b/c/empty.jsonl"] == []
    assert sorted(r.lines for r in results) == [0, 300, 300, 300]


@pytest.mark.slow
def test_the_command_line_with_a_local_cluster_is_the_single_process_one(tmp_path):
    inputs = make_inputs(tmp_path / "in", lines=2000)
    glob = tmp_path / "in" / "**" / "*.jsonl"
    alone = _cli.fastjcs("digest", "--jsonl", glob, "--output-dir", tmp_path / "alone")
    p = _cli.fastjcs("digest", "--jsonl", glob, "--output-dir", tmp_path / "out", "--cluster", "local:2", timeout=300)
    assert p.returncode == alone.returncode == 2
    assert p.stdout.replace(b"/out", b"/alone") == alone.stdout
    assert p.stderr.decode().splitlines() == alone.stderr.decode().splitlines()
    for name, path in inputs.items():
        out = (tmp_path / "out" / (name + ".digests")).read_bytes()
        assert out == (tmp_path / "alone" / (name + ".digests")).read_bytes() == reference(path)


@pytest.mark.slow
def test_a_worker_killed_mid_file_costs_nothing(tmp_path, monkeypatch):
    # Twelve files a couple of seconds each on the pure-Python backend (the workers inherit it).
    root = tmp_path / "in"
    for k in range(12):
        make_inputs(root / f"set{k}", lines=4000)
    reference_dir = tmp_path / "reference"
    todo, _ = jobs.plan(jobs.sources_of(str(root / "**" / "*.jsonl")), str(reference_dir), "jsonl")
    jobs.run_local(todo, SETTINGS)  # the in-process job (held to the command line in test_jobs.py)
    monkeypatch.setenv("FASTJCS_BACKEND", "python")
    with _cluster() as cluster, distributed.Client(cluster) as client:
        outcome: list = []
        job = threading.Thread(
            target=lambda: outcome.append(
                fdask.digest_jsonl_files(str(root / "**" / "*.jsonl"), str(tmp_path / "out"), client=client)
            )
        )
        job.start()
        victim = None
        deadline = time.monotonic() + 120
        while victim is None and time.monotonic() < deadline:
            busy = [w for w, keys in client.processing().items() if keys]
            partial = list((tmp_path / "out").rglob("*.part"))
            if busy and partial:  # a file is half written by a worker
                victim = busy[0]
            else:
                time.sleep(0.05)
        assert victim is not None, "no task started"
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        job.join(timeout=600)
        assert not job.is_alive()
        assert pid not in client.run(os.getpid).values()  # that worker is gone
    results = outcome[0]
    assert len(results) == 48
    for out in reference_dir.rglob("*.digests"):
        mine = tmp_path / "out" / out.relative_to(reference_dir)
        assert mine.read_bytes() == out.read_bytes(), mine  # every line once, in order, none missing
    assert sum(r.lines for r in results) == 12 * 3 * 4000
    assert not list((tmp_path / "out").rglob("*.part"))


# ---- DataFrame columns and Bags ----------------------------------------------------------------

TEXTS = ['{"b": 2, "a": 1}', "[1.0, 2e0]", None, '{"x": [1, 2}', '"\\u00e9"', "true"] * 50


def test_a_dataframe_column(client):
    dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pandas")
    import pandas as pd

    frame = dd.from_pandas(pd.DataFrame({"payload": TEXTS, "n": range(len(TEXTS))}), npartitions=7)
    lazy = fdask.digest_series(frame[frame.n % 6 != 3].payload)  # without the bad rows
    assert isinstance(lazy, dd.Series)
    expected = [None if t is None else fastjcs.digest_text(t) for i, t in enumerate(TEXTS) if i % 6 != 3]
    assert [None if pd.isna(v) else v for v in lazy.compute(scheduler=client.get).tolist()] == expected
    both = fdask.digest_series(frame.payload, errors="null").compute(scheduler=client.get)
    assert list(both.columns) == ["digest", "digest_error"]
    for text, digest, error in zip(TEXTS, both.digest.tolist(), both.digest_error.tolist()):
        if text is not None and "[1, 2}" in text:
            assert pd.isna(digest) and error.startswith("InvalidJSONError: unexpected character '}'")
        else:
            assert (None if pd.isna(digest) else digest) == (None if text is None else fastjcs.digest_text(text))
            assert pd.isna(error)
    with pytest.raises(fastjcs.InvalidJSONError):
        fdask.digest_series(frame.payload).compute(scheduler=client.get)


def test_a_bag_of_texts(client):
    import dask.bag as db

    texts = [t for t in TEXTS if t is not None]
    got = fdask.digest_bag(db.from_sequence(texts, npartitions=4), errors="null").compute(scheduler=client.get)
    expected = fastjcs.digest_texts(texts)
    assert got == [e if isinstance(e, str) else f"{type(e).__name__}: {e}" for e in expected]
    raw = fdask.digest_bag(db.from_sequence([b"[1]"]), raw=True).compute(scheduler=client.get)
    assert raw == [bytes.fromhex(fastjcs.digest_text(b"[1]")[7:])]


def test_an_empty_bag_and_a_partition_of_nulls(client):
    """Finding 14 of issue 23: `digest_bag(db.from_sequence([]))`, or a partition holding only
    None, was a TypeError (pyarrow types such a list null). Now no rows give no digests and a
    null gives None, as digest_texts does."""
    import dask
    import dask.bag as db
    import pandas as pd

    dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pandas")
    for errors in ("raise", "null"):
        assert fdask.digest_bag(db.from_sequence([]), errors=errors).compute(scheduler=client.get) == []
        bag = db.from_sequence([None, None, "[1]", None], npartitions=2)  # a first partition of None alone
        got = fdask.digest_bag(bag, errors=errors).compute(scheduler=client.get)
        assert got == [None, None, fastjcs.digest_text("[1]"), None]
    with dask.config.set({"dataframe.convert-string": False}):  # an object column, as pandas keeps it
        series = dd.from_pandas(pd.Series([None, None, '{"a": 1}', None], dtype=object), npartitions=2)
        got = fdask.digest_series(series).compute(scheduler=client.get)
    assert [None if pd.isna(v) else v for v in got.tolist()] == [None, None, fastjcs.digest_text('{"a":1}'), None]


def test_a_failed_row_is_reported_by_its_place_in_the_series(client):
    """Finding 14 of issue 23: with errors="raise", the error's index counted rows within the
    partition (row 3 of the series was reported as 0). Now it is the row's index in the series."""
    dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe needs pandas")
    import pandas as pd

    texts = ["[1]", "[2]", "[3]", '{"x":', "[5]", "[6]"]
    series = dd.from_pandas(pd.Series(texts, name="p"), npartitions=2)
    assert series.npartitions == 2 and len(series.partitions[1]) == 3  # row 3 opens the second one
    with pytest.raises(fastjcs.InvalidJSONError) as caught:
        fdask.digest_series(series).compute(scheduler=client.get)
    assert caught.value.index == 3 and caught.value.label == 3 and caught.value.offset == 5
    labelled = dd.from_pandas(pd.Series(texts, index=list("abcdef")), npartitions=2)
    with pytest.raises(fastjcs.InvalidJSONError) as caught:
        fdask.digest_series(labelled).compute(scheduler=client.get)
    assert caught.value.label == "d"


def test_the_workers_preload_a_module_that_quiets_their_stop_signals():
    """`--cluster local:N` names a preload module; Dask runs its `dask_setup(worker)`, which leaves
    SIGINT and SIGHUP to the command. When the module moved (fastjcs.dask became a re-export of
    fastjcs.bulk.dask) the preload still named fastjcs.dask, which had no dask_setup: Dask ran
    nothing, and a Ctrl-C printed each worker's traceback again (seen only in the ASan run, where
    the cluster test has dask)."""
    import importlib
    import signal

    from fastjcs.cli.digest_jobs import WORKER_PRELOAD

    setup = importlib.import_module(WORKER_PRELOAD).dask_setup
    assert fdask.dask_setup is setup  # the public name preloads the same
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGHUP)}
    try:
        setup(None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
