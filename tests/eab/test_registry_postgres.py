"""The execution registry on PostgreSQL: what only a server has (see _registry_stores for the
server these tests use, and why they skip without one).

Opening a schema without a registry, of an older or newer format, or a server that does not
answer; concurrent creators; the pool shared by threads; the server restarted while clients run.
"""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

import _cli
import pytest
from _registry_stores import PG_CTL, Targets, admin, postgres_url, stored
from conftest import REPO

from fastjcs.eab import (
    Admission,
    ExecutionRegistry,
    RegistryClosedError,
    RegistryExistsError,
    RegistryFormatError,
    RegistryNotFoundError,
    RegistryStorageError,
)

WORKER = REPO / "tests" / "eab" / "registry_worker.py"
AGENT = "spiffe://agent.example/payments/prod"
B1 = "sha256:" + "1" * 64


@pytest.fixture
def schemas(tmp_path):
    made = Targets("postgresql", tmp_path)
    yield made
    made.close()


def _schema_of(url: str) -> str:
    return url.rsplit("%3D", 1)[1]


def test_open_never_creates(schemas):
    url = schemas.new()
    with pytest.raises(RegistryNotFoundError, match="ExecutionRegistry.create") as info:
        ExecutionRegistry(url)
    assert url in str(info.value)
    with pytest.raises(RegistryNotFoundError):
        ExecutionRegistry.migrate(url)
    with admin() as conn:
        assert (
            conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = %s", (_schema_of(url),)).fetchone()[0] == 0
        )


def test_search_path_without_a_schema(schemas):
    url = schemas.new().replace("%3Dfjtest_", "%3Dnowhere_")
    for call in (ExecutionRegistry, ExecutionRegistry.create):
        with pytest.raises(RegistryNotFoundError, match="names no existing schema"):
            call(url)


def test_create_never_overwrites(schemas):
    url = schemas.new()
    with ExecutionRegistry.create(url) as reg:
        reg.admit(AGENT, "exec-0", B1)
    with pytest.raises(RegistryExistsError, match=r"ExecutionRegistry\(url\)"):
        ExecutionRegistry.create(url)
    other = schemas.new()
    with admin() as conn:  # one foreign table of the registry's names is enough to refuse
        conn.execute(f"CREATE TABLE {_schema_of(other)}.fastjcs_reservations (a int)")
    with pytest.raises(RegistryExistsError):
        ExecutionRegistry.create(other)
    with pytest.raises(RegistryFormatError, match="no fastjcs_registry_version"):
        ExecutionRegistry(other)
    with ExecutionRegistry(url) as reg:
        assert reg.admit(AGENT, "exec-0", B1) is Admission.REPLAY_IN_FLIGHT


@pytest.mark.parametrize("version, says", [(0, r"ExecutionRegistry.migrate\(url\)"), (4, "upgrade fastjcs")])
def test_other_format_versions_are_refused(schemas, version, says):
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    with admin() as conn:
        conn.execute(f"UPDATE {_schema_of(url)}.fastjcs_registry_version SET version = %s", (version,))
    with pytest.raises(RegistryFormatError, match=says):
        ExecutionRegistry(url)
    with pytest.raises(RegistryFormatError, match=says):
        ExecutionRegistry.migrate(url)


def test_migrate_of_a_current_registry_changes_nothing(schemas):
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    assert ExecutionRegistry.migrate(url) == (3, 3)


def test_a_dropped_table_is_reported(schemas):
    url = schemas.new()
    with ExecutionRegistry.create(url) as reg:
        with admin() as conn:
            conn.execute(f"DROP TABLE {_schema_of(url)}.fastjcs_reservation_events")
        with pytest.raises(RegistryFormatError, match="table is missing"):
            reg.admit(AGENT, "exec-0", B1)
        assert reg.get(AGENT, "exec-0") is None  # the reservation rolled back with the event


def test_unreachable_server_and_password_kept_out_of_messages():
    postgres_url()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    url = f"postgresql://fastjcs:s3cret@127.0.0.1:{port}/registry"
    with pytest.raises(RegistryStorageError, match="PostgreSQL server") as info:
        ExecutionRegistry(url, timeout=2)
    assert "s3cret" not in str(info.value)
    assert "postgresql://fastjcs:***@127.0.0.1" in str(info.value)


def test_use_after_close(schemas):
    url = schemas.new()
    reg = ExecutionRegistry.create(url)
    reg.admit(AGENT, "exec-0", B1)
    reg.close()
    reg.close()
    for call, args in (
        (reg.admit, (AGENT, "exec-1", B1)),
        (reg.get, (AGENT, "exec-0")),
        (reg.finalize, (AGENT, "exec-0", "completed")),
        (reg.recover, ()),
    ):
        with pytest.raises(RegistryClosedError, match="closed"):
            call(*args)


def test_concurrent_creators(schemas, tmp_path):
    """6 processes create one registry at once: one succeeds, the others get RegistryExistsError."""
    url, go = schemas.new(), tmp_path / "go"
    results = _cli.run_together([[WORKER, "create", url, go] for _ in range(6)], go)
    assert Counter(r["created"] for r in results) == {True: 1, False: 5}
    assert {r["error"] for r in results if not r["created"]} == {"RegistryExistsError"}
    assert Counter(r["answer"] for r in results) == {"ADMITTED": 1, "REPLAY_IN_FLIGHT": 5}


# ---------------------------------------------------------------------------------------------------
# The pool
# ---------------------------------------------------------------------------------------------------


def _hold_row_lock(url: str, eid: str):
    """An outside connection holding the row lock of (AGENT, eid) until closed."""
    import psycopg

    conn = psycopg.connect(url)
    conn.execute(
        "SELECT 1 FROM fastjcs_reservations WHERE agent_identity = %s AND execution_id = %s FOR UPDATE", (AGENT, eid)
    )
    return conn


def test_pool_runs_threads_side_by_side(schemas):
    """A call blocked on a row lock holds one pooled connection: with two, another thread's calls
    go on meanwhile; with one, they wait until the blocked call has finished. With two, the lock is
    released only once the other calls are done (or after 10 s, when they wait: the failure), so
    that a loaded machine's slow calls cannot pass for waiting ones."""
    url = schemas.new()
    ExecutionRegistry.create(url).close()
    for size in (2, 1):
        ends = []
        with ExecutionRegistry(url, pool_size=size) as reg:
            reg.admit(AGENT, f"held-{size}", B1)
            outside = _hold_row_lock(url, f"held-{size}")

            def finalize(reg=reg, size=size, ends=ends):
                reg.finalize(AGENT, f"held-{size}", "completed")
                ends.append("finalize")

            admitted = threading.Event()

            def release(outside=outside, admitted=admitted, size=size):
                admitted.wait(timeout=10.0 if size == 2 else 1.0)
                outside.close()

            blocked = threading.Thread(target=finalize)
            releaser = threading.Thread(target=release)
            blocked.start()
            releaser.start()
            time.sleep(0.3)  # the blocked call has its connection
            for n in range(5):
                assert reg.admit(AGENT, f"free-{size}-{n}", B1) is Admission.ADMITTED
            ends.append("admits")
            admitted.set()
            blocked.join(timeout=30)
            releaser.join(timeout=30)
            assert reg.get(AGENT, f"held-{size}").state == "completed"
        assert ends == (["admits", "finalize"] if size == 2 else ["finalize", "admits"]), size


def test_pool_exhausted_past_the_timeout(schemas):
    url = schemas.new()
    with ExecutionRegistry.create(url, pool_size=1, timeout=0.5) as reg:
        with reg._store._connection():  # the only connection, taken
            with pytest.raises(RegistryStorageError, match="every pooled connection"):
                reg.admit(AGENT, "exec-0", B1)
        assert reg.admit(AGENT, "exec-0", B1) is Admission.ADMITTED


def test_lock_held_past_the_timeout(schemas):
    url = schemas.new()
    with ExecutionRegistry.create(url, timeout=0.5) as reg:
        reg.admit(AGENT, "exec-0", B1)
        outside = _hold_row_lock(url, "exec-0")
        try:
            with pytest.raises(RegistryStorageError, match="locked .* 0.5 s"):
                reg.finalize(AGENT, "exec-0", "completed")
        finally:
            outside.close()
        assert reg.finalize(AGENT, "exec-0", "completed") == "completed"


# ---------------------------------------------------------------------------------------------------
# The server restarted during a run
# ---------------------------------------------------------------------------------------------------


def _ctl(*args: str) -> None:
    subprocess.run([*shlex.split(PG_CTL), *args], check=True, capture_output=True, timeout=120)


@pytest.fixture
def restartable():
    postgres_url()
    if not PG_CTL:
        pytest.skip(
            "FASTJCS_TEST_POSTGRES_CTL is unset: no control of the server to restart it "
            "(`. .ci/postgres.sh start` sets it)"
        )
    yield _ctl
    # Whatever happened, leave the server running for the tests after this one.
    subprocess.run([*shlex.split(PG_CTL), "start"], capture_output=True, timeout=120)


def test_server_restart(schemas, restartable):
    url = schemas.new()
    with ExecutionRegistry.create(url, timeout=3) as reg:
        for n in range(10):
            reg.admit(AGENT, f"exec-{n}", B1, call_id=f"c{n}")
        restartable("stop", "-m", "fast")
        for _ in range(2):  # the pooled connection is dead, then no new one can be made
            with pytest.raises(RegistryStorageError, match="connection to the PostgreSQL server"):
                reg.admit(AGENT, "exec-10", B1)
        restartable("start")
        assert reg.admit(AGENT, "exec-10", B1) is Admission.ADMITTED  # reconnected
        for n in range(10):
            assert reg.admit(AGENT, f"exec-{n}", B1) is Admission.REPLAY_IN_FLIGHT
            assert reg.get(AGENT, f"exec-{n}").call_id == f"c{n}"


def test_server_restart_during_a_race(schemas, restartable, tmp_path):
    """4 processes admit the same keys while the server restarts: every key has one reservation,
    held by the one worker that was ADMITTED, or whose answer was lost to the restart and who then
    saw its own reservation as REPLAY_IN_FLIGHT; nobody else got ADMITTED."""
    url, stop = schemas.new(), tmp_path / "stop"
    ExecutionRegistry.create(url).close()
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "through-restart", url, str(w), str(stop)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_cli.env(),
        )
        for w in range(4)
    ]
    try:
        for proc in procs:
            assert proc.stdout.readline() == b"ready\n"
        time.sleep(0.5)
        restartable("stop", "-m", "fast")
        time.sleep(0.5)
        restartable("start")
        time.sleep(1.0)
    finally:
        stop.touch()
        outs = [p.communicate(timeout=120) for p in procs]
    answers = {}
    for w, (proc, (out, err)) in enumerate(zip(procs, outs)):
        assert proc.returncode == 0 and err == b"", err.decode()
        answers[w] = {key: (answer, errors) for key, answer, errors in json.loads(out)}
    assert sum(errors for a in answers.values() for _, errors in a.values()) > 0, "no worker saw the restart"

    reservations, events = stored(url)
    holder = {int(eid[5:]): call_id for eid, _, _, call_id in reservations}
    keys = set().union(*(a.keys() for a in answers.values()))
    assert set(holder) == keys and len(reservations) == len(keys)  # no reservation lost
    assert Counter(a for _, a, _ in events) == {"admit": len(keys)}
    for key in keys:
        winners = [w for w, a in answers.items() if a.get(key, ("",))[0] == "ADMITTED"]
        assert len(winners) <= 1, (key, winners)
        owner = int(holder[key][1:])
        if winners:
            assert winners == [owner], key
        else:  # the owner's answer was lost: it retried and met its own reservation
            assert answers[owner][key][1] > 0 and answers[owner][key][0] == "REPLAY_IN_FLIGHT"
        for w, a in answers.items():
            if w != owner and key in a:
                assert a[key][0] == "REPLAY_IN_FLIGHT", (key, w, a[key])


def test_concurrent_migrations_and_openings(schemas):
    """Issue 32, finding 11: four `migrate` at once on a format-1 registry: one answered (1, 2), the
    others "relation ... already exists ... call again once the server is back"; an opening during
    the migration's commit said the schema "does not hold the tables of registry format 2". Now
    migrations take the schema lock and re-read the format under it (one (1, 2), the rest (2, 2)),
    and an opening waits for the commit."""
    for _ in range(2):
        _race_migrations_and_openings(schemas.new())


def _race_migrations_and_openings(url: str) -> None:
    ExecutionRegistry.create(url).close()
    with admin() as conn:  # back to format 1
        conn.execute(f"DROP TABLE {_schema_of(url)}.fastjcs_refused_admissions")
        conn.execute(f"UPDATE {_schema_of(url)}.fastjcs_registry_version SET version = 1")
    answers: list = []
    opened: list = []
    start = threading.Barrier(6)
    done = threading.Event()

    def migrate() -> None:
        start.wait()
        try:
            answers.append(ExecutionRegistry.migrate(url))
        except Exception as exc:  # noqa: BLE001 - the test reports it
            answers.append(repr(exc))

    def open_() -> None:
        start.wait()
        while not done.is_set():
            try:
                ExecutionRegistry(url).close()
                opened.append("ok")
            except RegistryFormatError as exc:
                opened.append("old" if "ExecutionRegistry.migrate(url)" in str(exc) else repr(exc))

    threads = [threading.Thread(target=migrate) for _ in range(4)] + [threading.Thread(target=open_) for _ in range(2)]
    with admin() as holder:  # every call waits on the version table, then all go at once
        with holder.transaction():
            holder.execute(f"LOCK TABLE {_schema_of(url)}.fastjcs_registry_version IN ACCESS EXCLUSIVE MODE")
            for t in threads:
                t.start()
            time.sleep(1)
    for t in threads[:4]:
        t.join(60)
    done.set()
    for t in threads[4:]:
        t.join(60)
    assert sorted(map(str, answers)) == ["(1, 3)", "(3, 3)", "(3, 3)", "(3, 3)"], answers
    assert set(opened) <= {"ok", "old"}, [o for o in opened if o not in ("ok", "old")][:3]
    ExecutionRegistry(url).close()
