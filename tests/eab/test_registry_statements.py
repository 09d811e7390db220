"""The execution registry's two storages run one set of statements (`fastjcs.eab._statements`):
each storage writes only what differs, `reserve` (SQLite holds the write lock already; PostgreSQL
inserts ON CONFLICT DO NOTHING), and says how its reads lock rows. The behaviour is tested against
both storages by the registry tests; this pins the shape, so a statement is not written twice again."""

from __future__ import annotations

import inspect

import pytest

from fastjcs.eab import _sqlite
from fastjcs.eab._statements import Statements


def _own(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items() if inspect.isfunction(value)}


def test_sqlite_writes_only_reserve():
    assert issubclass(_sqlite._SQLiteTx, Statements)
    assert _own(_sqlite._SQLiteTx) == {"__init__", "reserve"}


def test_postgres_writes_only_reserve():
    _postgres = pytest.importorskip("fastjcs.eab._postgres")
    assert issubclass(_postgres._PostgresTx, Statements)
    assert _own(_postgres._PostgresTx) == {"__init__", "reserve"}


class _Recorder:
    def __init__(self) -> None:
        self.sql: list[tuple[str, tuple[object, ...]]] = []

    def execute(self, sql: str, params: tuple[object, ...] = ()) -> _Recorder:
        self.sql.append((sql, params))
        return self

    def fetchone(self) -> None:
        return None

    def fetchall(self) -> list[object]:
        return []


def test_the_statements_take_the_storage_placeholder_and_row_locks():
    conn = _Recorder()
    tx = Statements(conn, ("r", "e", "f"), "%s", " FOR UPDATE")
    tx.lock("a", "x")
    tx.finish("a", "x", "committed", None, 1.0, "finalize")
    assert conn.sql == [
        (
            "SELECT state, terminal_audit_entry_hash, finalized_by FROM r "
            "WHERE agent_identity = %s AND execution_id = %s FOR UPDATE",
            ("a", "x"),
        ),
        (
            "UPDATE r SET state = %s, terminal_audit_entry_hash = %s, finalized_at = %s, "
            "finalized_by = %s WHERE agent_identity = %s AND execution_id = %s",
            ("committed", None, 1.0, "finalize", "a", "x"),
        ),
    ]
