"""Where the registry tests keep their registries: SQLite (in memory, in a file) and PostgreSQL.

PostgreSQL needs FASTJCS_TEST_POSTGRES_URL, a server on which the tests may create and drop
schemas (`. .ci/postgres.sh start` starts one and sets it), and psycopg; without either, or when
the server does not answer, the PostgreSQL cases skip saying why. Each PostgreSQL registry lives in
a schema of its own, chosen by the URL's search_path and dropped afterwards, so child processes
reach it by the same URL. FASTJCS_TEST_POSTGRES_CTL is a pg_ctl command line for that server, to
which the restart test appends "stop -m fast" and "start".
"""

from __future__ import annotations

import functools
import os
import secrets
import sqlite3
from collections.abc import Iterator

import pytest

PG_URL = os.environ.get("FASTJCS_TEST_POSTGRES_URL", "")
PG_CTL = os.environ.get("FASTJCS_TEST_POSTGRES_CTL", "")


@functools.cache
def _postgres_missing() -> str:
    """Why the PostgreSQL cases cannot run here, or ""."""
    if not PG_URL:
        return "FASTJCS_TEST_POSTGRES_URL is unset (`. .ci/postgres.sh start` starts a server and sets it)"
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install '.[postgres]' from a checkout)"
    try:
        psycopg.connect(PG_URL, connect_timeout=5).close()
    except psycopg.Error as exc:
        return f"the server at FASTJCS_TEST_POSTGRES_URL does not answer: {exc}"
    return ""


def postgres_url() -> str:
    """The server's URL, or skip."""
    if _postgres_missing():
        pytest.skip(_postgres_missing())
    return PG_URL


def admin():
    """An autocommit connection to the test server."""
    import psycopg

    return psycopg.connect(postgres_url(), autocommit=True)


class Targets:
    """Fresh, not yet created registry targets of one storage; PostgreSQL schemas dropped at
    the end."""

    def __init__(self, kind: str, tmp_path) -> None:
        self.kind, self._tmp, self._schemas, self._n = kind, tmp_path, [], 0
        if kind == "postgresql":
            postgres_url()

    def new(self) -> str:
        self._n += 1
        if self.kind == "memory":
            return ":memory:"
        if self.kind == "sqlite":
            return str(self._tmp / f"r{self._n}.db")
        schema = f"fjtest_{secrets.token_hex(6)}"
        with admin() as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        self._schemas.append(schema)
        return f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"

    def close(self) -> None:
        if self._schemas:
            with admin() as conn:
                for schema in self._schemas:
                    conn.execute(f"DROP SCHEMA {schema} CASCADE")


def targets(kind: str, tmp_path) -> Iterator[Targets]:
    made = Targets(kind, tmp_path)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def new_target(request, tmp_path):
    """A factory of fresh, not yet created targets: a file path, or a PostgreSQL URL."""
    yield from (t.new for t in targets(request.param, tmp_path))


@pytest.fixture(params=["memory", "file", "postgresql"])
def make_registry(request, tmp_path):
    """A factory of fresh registries: in memory, in a file, in PostgreSQL (one per call)."""
    from fastjcs.eab import ExecutionRegistry

    opened = []
    kind = {"memory": "memory", "file": "sqlite", "postgresql": "postgresql"}[request.param]
    for made in targets(kind, tmp_path):

        def make(made=made):
            reg = ExecutionRegistry.create(made.new())
            opened.append(reg)
            return reg

        yield make
        for reg in opened:
            reg.close()


def stored(target: str) -> tuple[list[tuple], list[tuple]]:
    """Read behind the registry's back: every reservation (execution_id, state, binding, call_id)
    and every audit event (execution_id, action, state), in order. A SQLite file is checked for
    integrity first."""
    reservations = "SELECT execution_id, state, binding, call_id FROM {} ORDER BY agent_identity, execution_id"
    events = "SELECT execution_id, action, state FROM {} ORDER BY seq"
    if target.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(target) as conn:
            return (
                conn.execute(reservations.format("fastjcs_reservations")).fetchall(),
                conn.execute(events.format("fastjcs_reservation_events")).fetchall(),
            )
    db = sqlite3.connect(target)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return (
            db.execute(reservations.format("reservations")).fetchall(),
            db.execute(events.format("reservation_events")).fetchall(),
        )
    finally:
        db.close()
